package app

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// passingDay is before kimik2.5's last Single-turn 8k1k day, so MODELS.md
// allows the submission; the thread happens that day, the sign-off at
// noon (signedAt), after both commits.
var (
	passingDay = time.Date(2026, 8, 5, 13, 0, 0, 0, time.UTC)
	signedAt   = time.Date(2026, 8, 5, 12, 0, 0, 0, time.UTC)
)

// servePassing serves seed 004's situation on passingDay.
func servePassing(t *testing.T, h *harness) *seed004 {
	t.Helper()
	return serveSeed004At(t, h, nil, time.Date(2026, 8, 5, 0, 0, 0, 0, time.UTC))
}

// upstreamRecipe serves vllm-project/recipes#412, merged, documenting the
// serving args seed 004's recipe adds.
func upstreamRecipe(t *testing.T, h *harness, merged bool) string {
	t.Helper()
	doc := "# Kimi-K2.5 on Blackwell\n\n```bash\nexport VLLM_USE_V2_MODEL_RUNNER=0\nvllm serve nvidia/Kimi-K2.5-NVFP4 --tensor-parallel-size 8 \\\n" +
		"  --enable-expert-parallel --data-parallel-size 8 \\\n" +
		"  --attention-config '{\"mla_prefill_backend\":\"FLASHINFER\"}' --linear-backend flashinfer_cutlass\n```\n"
	pr, err := h.fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "vllm-project/recipes", Number: 412,
		Base: checks.NewMemTree(map[string]string{"README.md": "recipes\n"}),
		Head: checks.NewMemTree(map[string]string{"README.md": "recipes\n", "Kimi/Kimi-K2.5.md": doc})})
	if err != nil {
		t.Fatal(err)
	}
	if merged {
		h.fake.SetState(pr, "closed", true)
	}
	return "https://github.com/vllm-project/recipes/pull/412"
}

// passingSignoff is the fixture's sign-off with the upstream recipe items
// checked and the merged recipe PR linked.
func passingSignoff(t *testing.T, link string) string {
	t.Helper()
	body := string(readFile(t, filepath.Join(seed004Fixture, "signoff.md")))
	for _, r := range [][2]string{
		{"- [ ] Verified that every single-node", "- [x] Verified that every single-node"},
		{"  - [ ] I linked the upstream recipe PR and verified that it is MERGED.", "  - [x] I linked the upstream recipe PR and verified that it is MERGED. — " + link},
		{"- [ ] Verified against the current MODELS.md", "- [x] Verified against the current MODELS.md"},
	} {
		if !strings.Contains(body, r[0]) {
			t.Fatalf("fixture sign-off lacks %q", r[0])
		}
		body = strings.Replace(body, r[0], r[1], 1)
	}
	return body
}

func TestPassingSignoff(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	h.fake.SetTeam("InferenceX", "core", "someone-else")
	link := upstreamRecipe(t, h, true)
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	if !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅\n") || strings.Contains(v, "@Ankur-singh —") {
		t.Fatalf("verdict:\n%s", v)
	}
	want := map[int]string{}
	for n, st := range seed004Want {
		want[n] = st
	}
	want[3], want[7] = "PASS", "PASS"
	wantChecks(t, v, want, map[int][]string{
		3: {link + ", MERGED", "which documents `--attention-config`, `--linear-backend` and `VLLM_USE_V2_MODEL_RUNNER=0`"},
	})
	if strings.Contains(v, "could not be read") {
		t.Errorf("the readable team was not read:\n%s", v)
	}
	golden(t, "signoff.pass.md", stableIDs(v))
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" || st.GetDescription() != "Sign-off verified: every check passes" {
		t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
	}
}

// Check 3 reads the upstream PR: open, a draft, or unreadable fail.
func TestUpstreamRecipeStates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, h *harness) string
		want  string
	}{
		{"open", func(t *testing.T, h *harness) string { return upstreamRecipe(t, h, false) }, "is open, not MERGED"},
		{"unreadable", func(t *testing.T, h *harness) string {
			h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RoutePull, Status: http.StatusNotFound, Body: `{"message":"Not Found"}`,
				Match: func(r *http.Request, _ []byte) bool { return strings.Contains(r.URL.Path, "vllm-project") }})
			return "https://github.com/vllm-project/recipes/pull/412"
		}, "could not read https://github.com/vllm-project/recipes/pull/412: the GitHub API could not read it"},
		{"merged but its files unreadable", func(t *testing.T, h *harness) string {
			link := upstreamRecipe(t, h, true)
			h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteFiles, Status: http.StatusInternalServerError, Body: `{"message":"Server Error"}`,
				Match: func(r *http.Request, _ []byte) bool { return strings.Contains(r.URL.Path, "vllm-project") }})
			return link
		}, "is MERGED, but its diff could not be read (listing its files failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			link := tc.setup(t, h)
			sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
			h.wait()
			wantChecks(t, verdictFor(t, h, sd.pr, seed004Head), map[int]string{3: "FAIL"}, map[int][]string{3: {tc.want}})
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
				t.Fatalf("status %s", st.GetState())
			}
		})
	}
}

func TestSignoffByNonOwner(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	// A team the token can read: mallory is not in it.
	h.fake.SetTeam("InferenceX", "core", "ankur-singh", "someone")
	link := upstreamRecipe(t, h, true)
	body := strings.Replace(passingSignoff(t, link), "Signed: Ankur-singh", "Signed: mallory", 1)
	h.fake.ResetCalls()
	sd.postComment(t, "mallory", "CONTRIBUTOR", body, signedAt)
	h.wait()
	// Someone who cannot own the change moves nothing: one short reply,
	// no verdict, no status, nothing downloaded.
	if n := len(verdicts(t, h, sd.pr)[seed004Head]); n != 0 {
		t.Fatalf("%d verdicts for a non-owner's sign-off", n)
	}
	if sts := signoffStatus(h, sd.pr, seed004Head); len(sts) != 0 {
		t.Fatalf("statuses %+v", sts)
	}
	reply := signoffReply(t, h, sd.pr, "mallory")
	if !strings.Contains(reply, "`mallory` is not a CODEOWNER of ") || !strings.Contains(reply, "`configs/nvidia-master.yaml` (.github/CODEOWNERS:6: `@ankur-singh` ") {
		t.Fatalf("reply:\n%s", reply)
	}
	for _, route := range []string{fakegithub.RouteRunArtifacts, fakegithub.RouteArtifactArchive, fakegithub.RouteRunJobs, fakegithub.RoutePullCommits} {
		if n := len(h.fake.CallsTo(route)); n != 0 {
			t.Errorf("%d calls to %s for a non-owner's sign-off", n, route)
		}
	}

	// Signing with a CODEOWNER's login does not make a sign-off theirs.
	h2 := newHarness(t, atDate(passingDay))
	sd2 := servePassing(t, h2)
	upstreamRecipe(t, h2, true)
	sd2.postComment(t, "mallory", "CONTRIBUTOR", passingSignoff(t, link), signedAt)
	h2.wait()
	if !strings.Contains(signoffReply(t, h2, sd2.pr, "mallory"), "the sign-off is signed `Ankur-singh` but was posted by `mallory`") {
		t.Fatalf("posted:\n%s", h2.posted(sd2.pr))
	}
	if sts := signoffStatus(h2, sd2.pr, seed004Head); len(sts) != 0 {
		t.Fatalf("statuses %+v", sts)
	}
}

// signoffReply is the bot's one reply to login's sign-offs.
func signoffReply(t *testing.T, h *harness, pr *fakegithub.PR, login string) string {
	t.Helper()
	var found []string
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if c.GetUser().GetLogin() == h.fake.BotLogin() && strings.Contains(c.GetBody(), gate.ReplyMarker(login)) {
			found = append(found, c.GetBody())
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d replies to %s's sign-offs, want 1; posted:\n%s", len(found), login, h.posted(pr))
	}
	return found[0]
}

// A sweep whose eval jobs were all skipped is no sweep: check 1 fails, and
// check 2 has no run to read.
func TestOnlySkippedEvals(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	var reruns []fakegithub.CheckRunSpec
	for i := range 9 {
		reruns = append(reruns, fakegithub.CheckRunSpec{Name: fmt.Sprintf("eval / kimik2.5-fp4-b200-vllm gsm8k %d", i), Conclusion: "skipped", RunID: seed004SweepRun})
	}
	h.fake.AddCheckRuns(sd.pr.Base, seed004Sweep, reruns...) // the latest attempt of each eval job
	link := upstreamRecipe(t, h, true)
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	wantChecks(t, v, map[int]string{1: "FAIL", 2: "FAIL"}, map[int][]string{
		1: {"not concluded success", "skipped", "a skipped job is not a pass"},
		2: {"the sweep run", "check 1 found no sweep run"}})
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "check 1, 2 failed") {
		t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteArtifactArchive)); n != 0 {
		t.Fatalf("%d artifact downloads with no sweep run to download from", n)
	}
}

// Every way the eval artifact can be unreadable fails check 2 with its
// cause, and the status fails.
func TestEvalArtifactFailures(t *testing.T) {
	bomb := func(t testing.TB) []byte {
		return zipOf(t, map[string][]byte{"agg_eval_all.json": make([]byte, 80<<20)})
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, sd *seed004)
		want  string
	}{
		{"storage fails", func(t *testing.T, sd *seed004) {
			sd.h.fake.Inject(fakegithub.ServerError(fakegithub.RouteArtifactStorage, http.StatusServiceUnavailable, 0))
		}, "the storage host answered 503 Service Unavailable"},
		{"archive redirect fails", func(t *testing.T, sd *seed004) {
			sd.h.fake.Inject(fakegithub.ServerError(fakegithub.RouteArtifactArchive, http.StatusInternalServerError, 0))
		}, "download artifact"},
		{"artifact list fails", func(t *testing.T, sd *seed004) {
			sd.h.fake.Inject(fakegithub.ServerError(fakegithub.RouteRunArtifacts, http.StatusBadGateway, 0))
		}, "list the artifacts of run 31147925932"},
		{"zip bomb", func(t *testing.T, sd *seed004) { replaceEvalArtifact(t, sd, bomb(t), false) }, "over the 67108864-byte limit"},
		{"corrupt zip", func(t *testing.T, sd *seed004) {
			replaceEvalArtifact(t, sd, []byte("PK\x03\x04this is not a zip archive at all"), false)
		}, "the artifact is not a readable zip archive"},
		{"not JSON inside", func(t *testing.T, sd *seed004) {
			replaceEvalArtifact(t, sd, zipOf(t, map[string][]byte{"agg_eval_all.json": []byte("{oops")}), false)
		}, "agg_eval_all.json is not a JSON list of eval rows"},
		{"expired", func(t *testing.T, sd *seed004) { replaceEvalArtifact(t, sd, evalArchive(t, seed004Scores), true) }, "the artifact expired on"},
		{"too large to download", func(t *testing.T, sd *seed004) {
			sd.h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteRunArtifacts, Status: http.StatusOK, Body: `{"total_count":1,"artifacts":[` +
				`{"id":1,"name":"eval_results_all","size_in_bytes":900000000000,"expired":false}]}`})
		}, "the artifact is 900000000000 bytes, over the 67108864-byte download limit"},
		{"scores below the threshold", func(t *testing.T, sd *seed004) {
			replaceEvalArtifact(t, sd, evalArchive(t, []string{"0.971", "0.42"}), false)
		}, "`kimik2.5-fp4-b200-vllm` `gsm8k` 0.420 < 0.90"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			tt.setup(t, sd)
			link := upstreamRecipe(t, h, true)
			sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
			h.wait()
			v := verdictFor(t, h, sd.pr, seed004Head)
			wantChecks(t, v, map[int]string{1: "PASS", 2: "FAIL", 3: "PASS"}, map[int][]string{2: {tt.want}})
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "check 2") {
				t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
			}
		})
	}
}

// replaceEvalArtifact swaps the sweep run's eval artifact for another: the
// listing then names the new one last, which is the one read.
func replaceEvalArtifact(t *testing.T, sd *seed004, data []byte, expired bool) {
	t.Helper()
	sd.h.fake.AddArtifact(sd.pr.Base, seed004SweepRun, fakegithub.ArtifactSpec{Name: "eval_results_all", Data: data, Expired: expired})
}

// An edited sign-off is verified again and its verdict edited in place.
func TestEditedSignoffEditsTheVerdict(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	first := strings.Replace(passingSignoff(t, link), "- [x] Verified that the code quality", "- [ ] Verified that the code quality", 1)
	c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", first, signedAt)
	h.wait()
	if v := verdictFor(t, h, sd.pr, seed004Head); !strings.Contains(v, "❌ Check 5 (latest checklist): FAIL — unchecked and not explained") {
		t.Fatalf("first verdict:\n%s", v)
	}
	edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), passingSignoff(t, link), signedAt.Add(30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	sd.deliverComment(t, edited, "edited", first, http.StatusAccepted)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head) // still exactly one
	if !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅") {
		t.Fatalf("verdict after the edit:\n%s", v)
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteEditComment)); n != 1 {
		t.Fatalf("%d comment edits, want 1 (the verdict)", n)
	}
	sts := signoffStatus(h, sd.pr, seed004Head)
	if len(sts) != 2 || sts[0].GetState() != "failure" || sts[1].GetState() != "success" {
		t.Fatalf("statuses %+v", sts)
	}
	// A human's comment with the marker is not the verdict.
	h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakegithub.CommentSpec{Login: "prankster", Body: signoff.Marker(seed004Head)})
	sd.deliverComment(t, edited, "edited", first, http.StatusAccepted)
	h.wait()
	verdictFor(t, h, sd.pr, seed004Head)
	for _, cm := range h.fake.IssueComments(sd.pr.Base, sd.pr.Number) {
		if cm.GetUser().GetLogin() == "prankster" && cm.GetBody() != signoff.Marker(seed004Head) {
			t.Fatal("the bot edited someone else's comment")
		}
	}
}

// A sign-off and a push arrive together: the jobs run one after the other
// (no interleaved posts), and the sign-off, written before the push, is
// verified for the commit it signed, with the new head's status failing
// until someone signs it off.
func TestConcurrentSignoffAndPush(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	later := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{"docs/notes.md": "later\n"})}
	// The verification waits in its read of the sweep's jobs until the
	// push has landed, however slow the machine.
	started, pushed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteRunJobs, Before: func() {
		once.Do(func() { close(started) })
		select {
		case <-pushed:
		case <-time.After(10 * time.Second):
		}
	}})
	c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakegithub.CommentSpec{Login: "Ankur-singh", Association: "COLLABORATOR",
		Body: passingSignoff(t, link), Created: signedAt})
	h.deliver("issue_comment", issueCommentPayload(t, h, sd.pr, c, "created", ""), http.StatusAccepted)
	<-started
	// The push lands while the sign-off is being verified.
	moved, err := h.fake.PushAt(ctx, sd.pr, later, "", passingDay)
	close(pushed)
	if err != nil {
		t.Fatal(err)
	}
	pushPayload := prPayload(t, h, sd.pr, "synchronize")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.deliver("pull_request", pushPayload, http.StatusAccepted) }()
	wg.Wait()
	h.wait()

	v := verdictFor(t, h, sd.pr, seed004Head)
	// The push also re-verifies the standing sign-off; whichever run
	// posts last words the move its own way, and both are true.
	if !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅") || !strings.Contains(v, "The PR's head moved to `"+moved+"` while this sign-off was verified") &&
		!strings.Contains(v, "The PR's head moved to `"+moved+"` after this sign-off") {
		t.Fatalf("verdict:\n%s", v)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("signed commit status %s", st.GetState())
	}
	if st := lastStatus(t, h, sd.pr, moved); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "a fresh sign-off is needed") {
		t.Fatalf("new head status %s %q", st.GetState(), st.GetDescription())
	}
	// No interleaving: the calls only the review makes (its state, its
	// review, its reviewbot status) all come after the sign-off job's last
	// write, and the sign-off's writes all before them.
	calls := h.fake.Calls()
	lastSignoff, firstReview := -1, -1
	for i, call := range calls {
		isStatus := call.Route == fakegithub.RouteCreateStatus
		if (isStatus && strings.Contains(string(call.Body), gate.StatusContext)) ||
			(call.Route == fakegithub.RouteCreateComment && strings.Contains(string(call.Body), "codeowner-signoff-verify sha=")) {
			lastSignoff = i
		}
		reviewOnly := call.Route == fakegithub.RouteReviewComments || call.Route == fakegithub.RouteCreateReview ||
			(isStatus && strings.Contains(string(call.Body), `"context":"reviewbot"`))
		if reviewOnly && firstReview < 0 {
			firstReview = i
		}
	}
	if lastSignoff < 0 || firstReview < 0 || firstReview < lastSignoff {
		t.Fatalf("the review (first call %d) interleaved with the sign-off (last write %d)", firstReview, lastSignoff)
	}
	reviewed := false
	for _, st := range h.fake.Statuses(sd.pr.Base, moved) {
		reviewed = reviewed || st.GetContext() == post.StatusContext
	}
	if !reviewed {
		t.Fatalf("the push was not reviewed:\n%s", h.posted(sd.pr))
	}
}

// A conversation comment signs the head as it was when it was written:
// a push that landed before the App got to the comment (its commit dated
// after the comment) is not what was signed.
func TestSignoffBeforeAPush(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	later := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{"docs/notes.md": "later\n"})}
	moved, err := h.fake.PushAt(ctx, sd.pr, later, "", signedAt.Add(20*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	if !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅") ||
		!strings.Contains(v, "The PR's head moved to `"+moved+"` after this sign-off; this verdict is for the signed commit `"+seed004Head+"`") {
		t.Fatalf("verdict:\n%s", v)
	}
	if n := len(verdicts(t, h, sd.pr)[moved]); n != 0 {
		t.Fatalf("%d verdicts for the unsigned head", n)
	}
	if st := lastStatus(t, h, sd.pr, moved); st.GetState() != "failure" {
		t.Fatalf("unsigned head's status %s", st.GetState())
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("signed commit's status %s", st.GetState())
	}
}

// A review body signs the commit it was submitted on; a review comment
// the commit it was written on.
func TestSignoffInReviews(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	prJSON, err := h.fake.PRJSON(context.Background(), sd.pr)
	if err != nil {
		t.Fatal(err)
	}
	rv := h.fake.AddReview(sd.pr.Base, sd.pr, fakegithub.ReviewSpec{Login: "Ankur-singh", State: "APPROVED", Body: passingSignoff(t, link),
		CommitID: seed004Head, Association: "COLLABORATOR", Submitted: signedAt})
	review := map[string]any{"action": "submitted", "pull_request": prJSON, "repository": h.fake.RepoJSON(sd.pr.Base),
		"installation": map[string]any{"id": installID}, "review": rv, "sender": rv.User}
	h.deliver("pull_request_review", mustJSON(t, review), http.StatusAccepted)
	h.wait()
	if v := verdictFor(t, h, sd.pr, seed004Head); !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅") {
		t.Fatalf("review verdict:\n%s", v)
	}
	rc := h.fake.AddReviewComment(sd.pr.Base, sd.pr, fakegithub.ReviewCommentSpec{Login: "Ankur-singh", Body: passingSignoff(t, link),
		Path: "configs/nvidia-master.yaml", Line: 1, CommitID: seed004Sweep, Created: signedAt})
	comment := map[string]any{"action": "created", "pull_request": prJSON, "repository": h.fake.RepoJSON(sd.pr.Base),
		"installation": map[string]any{"id": installID}, "comment": rc, "sender": rc.User}
	h.deliver("pull_request_review_comment", mustJSON(t, comment), http.StatusAccepted)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Sweep)
	if !strings.Contains(v, "The PR's head moved to `"+seed004Head+"` after this sign-off; this verdict is for the signed commit `"+seed004Sweep+"`") {
		t.Fatalf("review comment verdict:\n%s", v)
	}
	// The head keeps the verdict of the review that signed it: a sign-off
	// of an older commit is about that commit only.
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("head status after a sign-off of an older commit: %s %q", st.GetState(), st.GetDescription())
	}
	if st := lastStatus(t, h, sd.pr, seed004Sweep); st.GetState() != "success" {
		t.Fatalf("signed commit's status %s:\n%s", st.GetState(), v)
	}
	// Drafts and closed PRs are not verified.
	for _, mod := range []func(pr *github.PullRequest){
		func(pr *github.PullRequest) { pr.Draft = github.Bool(true) },
		func(pr *github.PullRequest) { pr.State = github.String("closed") },
	} {
		p := *prJSON
		mod(&p)
		review["pull_request"] = &p
		h.deliver("pull_request_review", mustJSON(t, review), http.StatusOK)
	}
}

// Bad input: a sign-off that names no signer gets a reply naming the
// problem; one that does gets a verdict naming it and a failure status;
// the server keeps working.
func TestMalformedSignoffs(t *testing.T) {
	huge := signoff.Phrase + ":\n" + strings.Repeat("- [x] Verified that "+strings.Repeat("lorem ipsum ", 40)+"\n", 700) + "\nSigned: Ankur-singh\n"
	tests := []struct {
		name  string
		body  string
		reply string
		want  map[int][]string
	}{
		{"phrase alone", signoff.Phrase, "the sign-off has no `Signed:` login", nil},
		{"unclosed fence and junk", signoff.Phrase + ":\n```\n- [x] \x00\x01 ]]]\nSigned: `@`\n", "the sign-off has no `Signed:` login", nil},
		// Past the parser's bound (four times GitHub's own limit), the
		// rest is not read: its Signed: line with it.
		{"giant comment", huge, "the sign-off has no `Signed:` login", nil},
		{"template not filled in", signoff.Phrase + ":\n- [x] Verified A\n\nSigned: Ankur-singh\n", "", map[int][]string{
			5: {"FAIL — the sign-off is not the latest template: 15 of 15 items"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			sd.postComment(t, "Ankur-singh", "COLLABORATOR", tt.body, signedAt)
			h.wait()
			if tt.reply != "" {
				if r := signoffReply(t, h, sd.pr, "Ankur-singh"); !strings.Contains(r, tt.reply) {
					t.Fatalf("reply:\n%s", r)
				}
				if sts := signoffStatus(h, sd.pr, seed004Head); len(sts) != 0 {
					t.Fatalf("statuses %+v", sts)
				}
				return
			}
			v := verdictFor(t, h, sd.pr, seed004Head)
			wantChecks(t, v, nil, tt.want)
			if len([]rune(v)) > 65536 {
				t.Fatalf("verdict of %d characters", len([]rune(v)))
			}
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
				t.Fatalf("status %s", st.GetState())
			}
		})
	}
}

// API errors fail the checks that needed the answer, naming the cause.
func TestSignoffAPIErrors(t *testing.T) {
	tests := []struct {
		name  string
		fault *fakegithub.Fault
		want  map[int][]string
		all   string // every check fails with this cause
	}{
		{"sweep jobs", fakegithub.ServerError(fakegithub.RouteRunJobs, http.StatusInternalServerError, 0),
			map[int][]string{1: {"FAIL — could not read the sweep runs of the PR's commits", "500"}}, ""},
		{"unknown run in the reuse command", &fakegithub.Fault{Route: fakegithub.RouteWorkflowRun, Status: http.StatusNotFound, Body: `{"message":"Not Found"}`},
			map[int][]string{4: {"FAIL — `/reuse-sweep-run 31147925932` by Ankur-singh (COLLABORATOR) cannot be used: run 31147925932 does not exist"}}, ""},
		{"PR commits", fakegithub.ServerError(fakegithub.RoutePullCommits, http.StatusBadGateway, 0), nil,
			"not verified: list the commits of SemiAnalysisAI/InferenceX#2512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			link := upstreamRecipe(t, h, true)
			h.fake.Inject(tt.fault)
			sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
			h.wait()
			v := verdictFor(t, h, sd.pr, seed004Head)
			wantChecks(t, v, nil, tt.want)
			if tt.all != "" {
				for n, l := range checkLines(t, v) {
					if !strings.Contains(l, "FAIL — "+tt.all) {
						t.Errorf("check %d: %q", n, l)
					}
				}
			}
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
				t.Fatalf("status %s", st.GetState())
			}
		})
	}
}

// A verification that outlives its time budget fails closed.
func TestSignoffTimeout(t *testing.T) {
	h := newHarness(t, atDate(passingDay), func(c *Config) { c.SignoffTimeout = 300 * time.Millisecond })
	sd := servePassing(t, h)
	h.fake.Inject(fakegithub.Slow(fakegithub.RouteRunArtifacts, 2*time.Second))
	link := upstreamRecipe(t, h, true)
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	wantChecks(t, v, map[int]string{2: "FAIL"}, map[int][]string{2: {"context deadline exceeded"}})
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Fatalf("status %s", st.GetState())
	}
}

// When the verdict cannot be posted, the status still fails (closed), and
// the delivery can be retried.
func TestVerdictPostFailureStillFailsTheStatus(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCreateComment, Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	st := lastStatus(t, h, sd.pr, seed004Head)
	if st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "could not be posted") {
		t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
	}
	if !strings.Contains(h.logs.String(), "outcome=failed") {
		t.Fatalf("the job did not fail:\n%s", h.logs.String())
	}
}

// The signed storage URL is a credential: a failed download names the
// host, never the URL.
func TestDownloadErrorsHideTheSignedURL(t *testing.T) {
	h := newHarness(t, atDate(passingDay), func(c *Config) {
		c.Download = roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return nil, fmt.Errorf("connection reset")
		})
	})
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	wantChecks(t, v, map[int]string{2: "FAIL"}, map[int][]string{2: {"download artifact", "connection reset"}})
	if strings.Contains(v, "sig=") || strings.Contains(v, "artifact-storage") {
		t.Fatalf("the verdict shows the signed URL:\n%s", v)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A withdrawn sign-off (the phrase edited out, or the comment deleted)
// must not leave its passing status behind; another sign-off still on the
// PR is verified in its place.
func TestWithdrawnSignoff(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	body := passingSignoff(t, link)
	c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, signedAt)
	h.wait()
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("status %s", st.GetState())
	}
	edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), "Withdrawn until the recipe PR is re-checked.", signedAt.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	sd.deliverComment(t, edited, "edited", body, http.StatusAccepted)
	h.wait()
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "withdrawn") {
		t.Fatalf("status after the withdrawal %s %q", st.GetState(), st.GetDescription())
	}

	// Two sign-offs; deleting the passing one re-verifies the other. A
	// sign-off that names no signer (no owner) is not a candidate.
	second := sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, signedAt.Add(3*time.Minute))
	h.wait()
	unsigned := strings.Replace(body, "Signed: Ankur-singh", "Signed: FILL_IN_GITHUB_USERNAME", 1)
	h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", unsigned, signedAt.Add(2*time.Minute)))
	unexplained := strings.Replace(body, "- [x] Verified that the code quality", "- [ ] Verified that the code quality", 1)
	h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", unexplained, signedAt.Add(time.Minute)))
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("status %s", st.GetState())
	}
	h.fake.DeleteComment(sd.pr.Base, second.GetID())
	sd.deliverComment(t, second, "deleted", "", http.StatusAccepted)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	if !strings.Contains(v, "❌ Check 5 (latest checklist): FAIL — unchecked and not explained") {
		t.Fatalf("the remaining owner sign-off was not verified:\n%s", v)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Fatalf("status %s", st.GetState())
	}
	// A deleted comment that was no sign-off and held no command is ignored.
	plain := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("x", "NONE", "thanks", time.Time{}))
	sd.deliverComment(t, plain, "deleted", "", http.StatusOK)
}

// Check 0 is the gate: when it cannot be told (an API error), the
// sign-off moves nothing, except that a passing status resting on an
// earlier version of the same sign-off stops passing.
func TestSignoffGateErrors(t *testing.T) {
	t.Run("team members unreadable by error", func(t *testing.T) {
		h := newHarness(t, atDate(passingDay))
		sd := servePassing(t, h)
		link := upstreamRecipe(t, h, true)
		h.fake.Inject(fakegithub.ServerError(fakegithub.RouteTeamMembers, http.StatusInternalServerError, 0))
		sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
		h.wait()
		if r := signoffReply(t, h, sd.pr, "Ankur-singh"); !strings.Contains(r, "could not read the members of `@InferenceX/core`") {
			t.Fatalf("reply:\n%s", r)
		}
		if sts := signoffStatus(h, sd.pr, seed004Head); len(sts) != 0 {
			t.Fatalf("statuses %+v", sts)
		}
	})
	for _, tt := range []struct {
		name, want string
		fault      *fakegithub.Fault
		failed     bool
	}{
		// The gate answers: the owner's edited sign-off no longer passes
		// it, so the verdict resting on it goes.
		{"team members unreadable on re-verification", "withdrawn", fakegithub.ServerError(fakegithub.RouteTeamMembers, http.StatusInternalServerError, 0), false},
		// The gate cannot answer: nothing is decided, and the passing
		// status resting on the earlier text stops passing.
		{"files unreadable on re-verification", "could not be verified again", fakegithub.ServerError(fakegithub.RouteFiles, http.StatusInternalServerError, 0), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			link := upstreamRecipe(t, h, true)
			c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
			h.wait()
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
				t.Fatalf("status %s", st.GetState())
			}
			h.fake.Inject(tt.fault)
			edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), passingSignoff(t, link)+"\nRe-checked.\n", signedAt.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			sd.deliverComment(t, edited, "edited", c.GetBody(), http.StatusAccepted)
			h.wait()
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), tt.want) {
				t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
			}
			if failed := strings.Contains(h.logs.String(), "outcome=failed"); failed != tt.failed {
				t.Fatalf("job failed = %v:\n%s", failed, h.logs.String())
			}
		})
	}
}
