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

	"github.com/reviewbot-dev/reviewbot/app/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/app/signoff"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
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
	golden(t, "signoff.pass.md", v)
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
	// A team the token can read: mallory is not in it. (Unreadable, it
	// would not be held against her: SPEC §6.)
	h.fake.SetTeam("InferenceX", "core", "ankur-singh", "someone")
	link := upstreamRecipe(t, h, true)
	body := strings.Replace(passingSignoff(t, link), "Signed: Ankur-singh", "Signed: mallory", 1)
	sd.postComment(t, "mallory", "CONTRIBUTOR", body, signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	wantChecks(t, v, map[int]string{0: "FAIL", 3: "PASS", 7: "PASS"}, map[int][]string{
		0: {"@mallory is not a CODEOWNER of ", "configs/nvidia-master.yaml (.github/CODEOWNERS:6: @ankur-singh "}})
	if !strings.Contains(v, "@mallory — one blocker: check 0 (CODEOWNER).") {
		t.Errorf("mention:\n%s", v)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || st.GetDescription() != "Sign-off rejected: check 0 failed" {
		t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
	}

	// Signing with a CODEOWNER's login does not make a sign-off theirs.
	h2 := newHarness(t, atDate(passingDay))
	sd2 := servePassing(t, h2)
	upstreamRecipe(t, h2, true)
	sd2.postComment(t, "mallory", "CONTRIBUTOR", passingSignoff(t, link), signedAt)
	h2.wait()
	wantChecks(t, verdictFor(t, h2, sd2.pr, seed004Head), map[int]string{0: "FAIL"}, map[int][]string{
		0: {"the sign-off is signed `Ankur-singh` but was posted by @mallory"}})
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
		}, "`kimik2.5-fp4-b200-vllm` gsm8k 0.420 < 0.90"},
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
	first := strings.Replace(passingSignoff(t, link), "Signed: Ankur-singh", "Signed: FILL_IN_GITHUB_USERNAME", 1)
	c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", first, signedAt)
	h.wait()
	if v := verdictFor(t, h, sd.pr, seed004Head); !strings.Contains(v, "❌ Check 0 (CODEOWNER): FAIL — the sign-off has no `Signed:` login") {
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
	started := make(chan struct{})
	var once sync.Once
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCheckRuns, Before: func() {
		once.Do(func() { close(started) })
		time.Sleep(20 * time.Millisecond)
	}})
	c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakegithub.CommentSpec{Login: "Ankur-singh", Association: "COLLABORATOR",
		Body: passingSignoff(t, link), Created: signedAt})
	h.deliver("issue_comment", issueCommentPayload(t, h, sd.pr, c, "created", ""), http.StatusAccepted)
	<-started
	// The push lands while the sign-off is being verified.
	fx, err := trees.LoadFixture(ctx, seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	later := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{"docs/notes.md": "later\n"})}
	moved, err := h.fake.PushAt(ctx, sd.pr, later, "", passingDay)
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
	if !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅") || !strings.Contains(v, "The PR's head moved to `"+moved+"` while this sign-off was verified") {
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
		if (isStatus && strings.Contains(string(call.Body), SignoffStatusContext)) ||
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
		reviewed = reviewed || st.GetContext() == StatusContext
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
	review := map[string]any{"action": "submitted", "pull_request": prJSON, "repository": h.fake.RepoJSON(sd.pr.Base),
		"installation": map[string]any{"id": installID},
		"review": map[string]any{"id": 555, "body": passingSignoff(t, link), "commit_id": seed004Head, "state": "approved",
			"user": map[string]any{"login": "Ankur-singh", "type": "User"}, "author_association": "COLLABORATOR",
			"submitted_at": signedAt.Format(time.RFC3339),
			"html_url":     "https://github.com/SemiAnalysisAI/InferenceX/pull/2512#pullrequestreview-555"}}
	h.deliver("pull_request_review", mustJSON(t, review), http.StatusAccepted)
	h.wait()
	if v := verdictFor(t, h, sd.pr, seed004Head); !strings.HasPrefix(v, "## ✅✅✅ **Verdict: PASS** ✅✅✅") {
		t.Fatalf("review verdict:\n%s", v)
	}
	comment := map[string]any{"action": "created", "pull_request": prJSON, "repository": h.fake.RepoJSON(sd.pr.Base),
		"installation": map[string]any{"id": installID},
		"comment": map[string]any{"id": 556, "body": passingSignoff(t, link), "commit_id": seed004Head, "original_commit_id": seed004Sweep,
			"path": "configs/nvidia-master.yaml", "user": map[string]any{"login": "Ankur-singh", "type": "User"},
			"created_at": signedAt.Format(time.RFC3339), "updated_at": signedAt.Format(time.RFC3339)}}
	h.deliver("pull_request_review_comment", mustJSON(t, comment), http.StatusAccepted)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Sweep)
	if !strings.Contains(v, "The PR's head moved to `"+seed004Head+"` after this sign-off; this verdict is for the signed commit `"+seed004Sweep+"`") {
		t.Fatalf("review comment verdict:\n%s", v)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "The sign-off is for 11b75f153c0f") {
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

// Bad input: each gets a verdict naming the problem, a failure status,
// and the server keeps working.
func TestMalformedSignoffs(t *testing.T) {
	huge := signoff.Phrase + ":\n" + strings.Repeat("- [x] Verified that "+strings.Repeat("lorem ipsum ", 40)+"\n", 700) + "\nSigned: Ankur-singh\n"
	tests := []struct {
		name string
		body string
		want map[int][]string
	}{
		{"phrase alone", signoff.Phrase, map[int][]string{
			0: {"FAIL — the sign-off has no `Signed:` login"}, 5: {"FAIL — the sign-off is not the latest template: 15 of 15 items"}}},
		{"unclosed fence and junk", signoff.Phrase + ":\n```\n- [x] \x00\x01 ]]]\nSigned: `@`\n", map[int][]string{0: {"FAIL"}, 5: {"FAIL"}}},
		{"giant comment", huge, map[int][]string{5: {"FAIL — the sign-off is not the latest template"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			sd.postComment(t, "Ankur-singh", "COLLABORATOR", tt.body, signedAt)
			h.wait()
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
		{"check runs", fakegithub.ServerError(fakegithub.RouteCheckRuns, http.StatusInternalServerError, 0),
			map[int][]string{1: {"FAIL — could not read the check runs of the PR's commits", "500"}}, ""},
		{"team members", fakegithub.ServerError(fakegithub.RouteTeamMembers, http.StatusInternalServerError, 0),
			map[int][]string{0: {"FAIL — could not read the members of @InferenceX/core"}}, ""},
		{"unknown run in the reuse command", &fakegithub.Fault{Route: fakegithub.RouteWorkflowRun, Status: http.StatusNotFound, Body: `{"message":"Not Found"}`},
			map[int][]string{4: {"FAIL — `/reuse-sweep-run 31147925932` by Ankur-singh (COLLABORATOR) cannot be used: run 31147925932 does not exist"}}, ""},
		{"PR commits", fakegithub.ServerError(fakegithub.RoutePullCommits, http.StatusBadGateway, 0), nil,
			"not verified: list the commits of SemiAnalysisAI/InferenceX#2512"},
		{"base tree", fakegithub.ServerError(fakegithub.RouteTree, http.StatusInternalServerError, 0), nil, "not verified: "},
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

	// Two sign-offs; deleting the passing one re-verifies the other.
	second := sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, signedAt.Add(2*time.Minute))
	h.wait()
	bad := strings.Replace(body, "Signed: Ankur-singh", "Signed: FILL_IN_GITHUB_USERNAME", 1)
	h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", bad, signedAt.Add(time.Minute)))
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("status %s", st.GetState())
	}
	h.fake.DeleteComment(sd.pr.Base, second.GetID())
	sd.deliverComment(t, second, "deleted", "", http.StatusAccepted)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	if !strings.Contains(v, "the sign-off has no `Signed:` login") {
		t.Fatalf("the remaining sign-off was not verified:\n%s", v)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Fatalf("status %s", st.GetState())
	}
	// A deleted comment that was no sign-off and held no command is ignored.
	plain := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("x", "NONE", "thanks", time.Time{}))
	sd.deliverComment(t, plain, "deleted", "", http.StatusOK)
}
