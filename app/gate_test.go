package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// The merge gate, tried as an attacker would: a drive-by commenter, the
// PR's author, a member with write access who owns nothing. Each test is
// one attack; none may turn or keep codeowner-signoff-verify green for a
// change no owner approved.

// commentBy is an issue_comment delivery whose sender is someone other
// than the comment's author (GitHub lets anyone with write access edit any
// comment, and says who in sender).
func commentBy(t testing.TB, h *harness, pr *fakegithub.PR, c github.IssueComment, action, from, sender string) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(issueCommentPayload(t, h, pr, c, action, from), &ev); err != nil {
		t.Fatal(err)
	}
	ev["sender"] = map[string]any{"login": sender, "type": "User"}
	return mustJSON(t, ev)
}

func noSignoffStatus(t *testing.T, h *harness, pr *fakegithub.PR, sha string) {
	t.Helper()
	if sts := signoffStatus(h, pr, sha); len(sts) != 0 {
		t.Fatalf("%s statuses on %.12s: %+v", gate.StatusContext, sha, sts)
	}
}

// passSeed004 serves seed 004's passing situation with the owner's
// sign-off verified: the head's status is success.
func passSeed004(t *testing.T) (*harness, *seed004, github.IssueComment, string) {
	t.Helper()
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("owner's sign-off: status %s %q", st.GetState(), st.GetDescription())
	}
	return h, sd, c, link
}

// 1. An unreadable team never makes anyone an owner: with the real
// CODEOWNERS line and a token that cannot read @InferenceX/core, any login
// is refused, and nothing is downloaded.
func TestGateUnreadableTeamGrantsNothing(t *testing.T) {
	for _, login := range []string{"someone-else", "random-outsider"} {
		t.Run(login, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h) // no SetTeam: the team answers 404
			link := upstreamRecipe(t, h, true)
			body := strings.Replace(passingSignoff(t, link), "Signed: Ankur-singh", "Signed: "+login, 1)
			sd.postComment(t, login, "MEMBER", body, signedAt)
			h.wait()
			noSignoffStatus(t, h, sd.pr, seed004Head)
			reply := signoffReply(t, h, sd.pr, login)
			if !strings.Contains(reply, "not a CODEOWNER") && !strings.Contains(reply, "Members: read") {
				t.Fatalf("reply:\n%s", reply)
			}
			if n := len(h.fake.CallsTo(fakegithub.RouteArtifactArchive)); n != 0 {
				t.Fatalf("%d downloads", n)
			}
		})
	}
	// A named owner is not held back by the unreadable team.
	h, sd, _, _ := passSeed004(t)
	if v := verdictFor(t, h, sd.pr, seed004Head); !strings.Contains(v, "could not be read; they grant nothing") {
		t.Fatalf("verdict:\n%s", v)
	}
}

// 2. A head nobody signed: the owner signs H1; the author pushes H2 with a
// committer date an hour before the sign-off; then anyone posts and
// deletes (or edits out) a sign-off phrase. H2 must not pass.
func TestGateBackdatedPush(t *testing.T) {
	h, sd, _, link := passSeed004(t)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	evil := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{"docs/notes.md": "unsigned\n"})}
	pushAt := passingDay.Add(10 * time.Minute)
	h2, err := h.fake.PushDated(ctx, sd.pr, evil, "", pushAt, signedAt.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	h.pushed(sd.pr, pushAt)

	h.at(pushAt.Add(time.Minute), func() {
		// A drive-by posts a sign-off phrase and deletes it...
		c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("drive-by", "NONE", passingSignoff(t, link), pushAt.Add(time.Minute)))
		sd.deliverComment(t, c, "created", "", http.StatusAccepted)
		h.wait()
		h.fake.DeleteComment(sd.pr.Base, c.GetID())
		sd.deliverComment(t, c, "deleted", "", http.StatusAccepted)
		h.wait()
		// ...and another edits one out.
		c2 := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("drive-by-2", "NONE", passingSignoff(t, link), pushAt.Add(2*time.Minute)))
		sd.deliverComment(t, c2, "created", "", http.StatusAccepted)
		h.wait()
		edited, err := h.fake.EditComment(sd.pr.Base, c2.GetID(), "never mind", pushAt.Add(3*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		sd.deliverComment(t, edited, "edited", c2.GetBody(), http.StatusAccepted)
		h.wait()
	})
	for _, st := range signoffStatus(h, sd.pr, h2) {
		if st.GetState() == "success" {
			t.Fatalf("the unsigned head %.12s got success: %q\n%s", h2, st.GetDescription(), h.posted(sd.pr))
		}
	}
	if n := len(verdicts(t, h, sd.pr)[h2]); n != 0 {
		t.Fatalf("%d verdicts for the unsigned head", n)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("the signed commit lost its status: %s", st.GetState())
	}

	// The owner's sign-off, re-read after the push, still covers the
	// commit it was written on, whatever the new commit's date says.
	owner := signoffFrom(t, h, sd.pr, "Ankur-singh")
	sd.deliverComment(t, owner, "edited", owner.GetBody(), http.StatusAccepted)
	h.wait()
	for _, st := range signoffStatus(h, sd.pr, h2) {
		if st.GetState() == "success" {
			t.Fatalf("the unsigned head got success after a re-read: %q", st.GetDescription())
		}
	}
}

func signoffFrom(t *testing.T, h *harness, pr *fakegithub.PR, login string) github.IssueComment {
	t.Helper()
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if c.GetUser().GetLogin() == login && strings.Contains(c.GetBody(), "Signed:") {
			return c
		}
	}
	t.Fatalf("no sign-off by %s", login)
	return github.IssueComment{}
}

// 3. Edited by someone else: a member who owns nothing edits the owner's
// "LGTM so far" into a full sign-off; the owner is not credited. And an
// owner's passing sign-off edited by someone else stops passing.
func TestGateEditedBySomeoneElse(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", "LGTM so far, waiting for the evals.", signedAt))
	sd.deliverComment(t, c, "created", "", http.StatusOK)
	h.wait()
	edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), passingSignoff(t, link), signedAt.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	h.deliver("issue_comment", commentBy(t, h, sd.pr, edited, "edited", c.GetBody(), "write-member"), http.StatusAccepted)
	h.wait()
	noSignoffStatus(t, h, sd.pr, seed004Head)
	if n := len(verdicts(t, h, sd.pr)[seed004Head]); n != 0 {
		t.Fatalf("%d verdicts for an edit by someone else", n)
	}

	h, sd, owner, _ := passSeed004(t)
	tampered, err := h.fake.EditComment(sd.pr.Base, owner.GetID(), owner.GetBody()+"\nAlso approved: the extra kernel patch.\n", signedAt.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	h.deliver("issue_comment", commentBy(t, h, sd.pr, tampered, "edited", owner.GetBody(), "write-member"), http.StatusAccepted)
	h.wait()
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "withdrawn") {
		t.Fatalf("status after someone else's edit: %s %q", st.GetState(), st.GetDescription())
	}
	if v := verdictFor(t, h, sd.pr, seed004Head); !strings.Contains(v, "`write-member` edited it") || !strings.HasPrefix(v, "## ❌❌❌ **REJECTED**") {
		t.Fatalf("verdict:\n%s", v)
	}
	// An edit the App never heard of (a missed delivery) is not trusted
	// either: the comment's updated_at moved, and no record says the
	// author made the change.
	h2, sd2, owner2, _ := passSeed004(t)
	if _, err := h2.fake.EditComment(sd2.pr.Base, owner2.GetID(), owner2.GetBody()+"\n(edited)\n", signedAt.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	other := h2.fake.AddComment(sd2.pr.Base, sd2.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", "/use 1", signedAt.Add(4*time.Minute)))
	_ = other
	h2.fake.DeleteComment(sd2.pr.Base, owner2.GetID())
	sd2.deliverComment(t, owner2, "deleted", "", http.StatusAccepted)
	h2.wait()
	if st := lastStatus(t, h2, sd2.pr, seed004Head); st.GetState() != "failure" {
		t.Fatalf("status %s", st.GetState())
	}
}

// 4. Fabricated evidence: a workflow the PR adds reports passing sweep and
// eval jobs (and its own eval artifact) while the real sweep failed. Only
// the sweep workflow's own runs count, and check 2 reads only the run
// check 1 accepted.
func TestGateFabricatedEvidence(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	repo := sd.pr.Base
	// The real sweep's eval jobs failed on their last attempt.
	var failed []fakegithub.CheckRunSpec
	for i := range 9 {
		failed = append(failed, fakegithub.CheckRunSpec{Name: fmt.Sprintf("eval / kimik2.5-fp4-b200-vllm gsm8k %d", i), Conclusion: "failure", RunID: seed004SweepRun})
	}
	h.fake.AddCheckRuns(repo, seed004Sweep, failed...)
	// The PR's own workflow says everything passed, on the head.
	fake := h.fake.AddWorkflowRun(repo, fakegithub.WorkflowRunSpec{Workflow: "totally-the-sweep.yml", Conclusion: "success", HeadSHA: seed004Head,
		HeadBranch: sd.pr.HeadRef, Created: passingDay.Add(-time.Hour)})
	var forged []fakegithub.CheckRunSpec
	for i := range 3 {
		forged = append(forged, fakegithub.CheckRunSpec{Name: fmt.Sprintf("single-node 8k1k / kimik2.5-fp4-b200-vllm %02d", i), Conclusion: "success", RunID: fake},
			fakegithub.CheckRunSpec{Name: fmt.Sprintf("eval / kimik2.5-fp4-b200-vllm gsm8k %d", i), Conclusion: "success", RunID: fake})
	}
	h.fake.AddCheckRuns(repo, seed004Head, forged...)
	h.fake.AddArtifact(repo, fake, fakegithub.ArtifactSpec{Name: "eval_results_all", Data: evalArchive(t, []string{"1.0", "1.0"})})
	// And a maintainer is talked into pinning it.
	h.fake.AddComment(repo, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", fmt.Sprintf("/use %d", fake), signedAt.Add(-time.Minute)))
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	wantChecks(t, v, map[int]string{1: "FAIL", 2: "FAIL", 4: "FAIL"}, map[int][]string{4: {"not of the sweep workflow"}})
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Fatal("status passes on fabricated evidence")
	}
	for _, c := range h.fake.CallsTo(fakegithub.RouteArtifactArchive) {
		if strings.Contains(c.Path, fmt.Sprint(fake)) {
			t.Fatal("the forged run's artifact was read")
		}
	}

	// A PR that rewrites the sweep workflow itself makes its runs vouch
	// for nothing.
	h2 := newHarness(t, atDate(passingDay))
	sd2 := serveSeed004At(t, h2, map[string]string{}, time.Date(2026, 8, 5, 0, 0, 0, 0, time.UTC))
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	rewritten := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{".github/workflows/run-sweep.yml": "on: pull_request\njobs: {}\n"})}
	head, err := h2.fake.PushAt(ctx, sd2.pr, rewritten, "", passingDay.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	h2.pushed(sd2.pr, passingDay.Add(-2*time.Hour))
	upstreamRecipe(t, h2, true)
	h2.fake.AddWorkflowRun(sd2.pr.Base, fakegithub.WorkflowRunSpec{Conclusion: "success", HeadSHA: head, HeadBranch: sd2.pr.HeadRef, Created: passingDay.Add(-time.Hour)})
	sd2.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h2.wait()
	wantChecks(t, verdictFor(t, h2, sd2.pr, head), map[int]string{1: "FAIL"}, map[int][]string{1: {"`.github/workflows/run-sweep.yml`", "cannot vouch"}})
}

// 5. Another config's evals vouch for nothing (e2e; the field-by-field
// cases are in the signoff package).
func TestGateOtherConfigsEvals(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	rows := `[{"model_prefix":"kimik2.5","hw":"","framework":"vllm","precision":"fp4","spec_decoding":"none","tp":8,"ep":1,"dp_attention":false,"task":"gsm8k","score":0.99},` +
		`{"model_prefix":"kimik2.5","hw":"b","framework":"vllm","precision":"fp4","spec_decoding":"none","tp":8,"ep":1,"dp_attention":false,"task":"gsm8k","score":0.99},` +
		`{"model_prefix":"kimik2.5","hw":"b200","framework":"vllm","precision":"fp4","spec_decoding":"mtp","tp":2,"ep":1,"dp_attention":false,"task":"gsm8k","score":0.99}]`
	replaceEvalArtifact(t, sd, zipOf(t, map[string][]byte{"agg_eval_all.json": []byte(rows)}), false)
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
	h.wait()
	wantChecks(t, verdictFor(t, h, sd.pr, seed004Head), map[int]string{2: "FAIL"}, map[int][]string{2: {"no eval row of `kimik2.5-fp4-b200-vllm`"}})
}

// 7. Withdrawn and hidden sign-offs: a dismissed review withdraws its
// success; a CHANGES_REQUESTED review is no sign-off; the phrase in a code
// block or an HTML comment is no sign-off.
func TestGateWithdrawnAndHidden(t *testing.T) {
	t.Run("dismissed review", func(t *testing.T) {
		h := newHarness(t, atDate(passingDay))
		sd := servePassing(t, h)
		link := upstreamRecipe(t, h, true)
		rv := h.fake.AddReview(sd.pr.Base, sd.pr, fakegithub.ReviewSpec{Login: "Ankur-singh", State: "APPROVED", Body: passingSignoff(t, link),
			CommitID: seed004Head, Association: "COLLABORATOR", Submitted: signedAt})
		h.deliver("pull_request_review", reviewPayload(t, h, sd.pr, rv, "submitted", "Ankur-singh"), http.StatusAccepted)
		h.wait()
		if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
			t.Fatalf("status %s", st.GetState())
		}
		dismissed, err := h.fake.DismissReview(sd.pr.Base, rv.GetID())
		if err != nil {
			t.Fatal(err)
		}
		h.deliver("pull_request_review", reviewPayload(t, h, sd.pr, dismissed, "dismissed", "a-maintainer"), http.StatusAccepted)
		h.wait()
		if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" || !strings.Contains(st.GetDescription(), "withdrawn") {
			t.Fatalf("status after the dismissal: %s %q", st.GetState(), st.GetDescription())
		}
	})
	t.Run("changes requested", func(t *testing.T) {
		h := newHarness(t, atDate(passingDay))
		sd := servePassing(t, h)
		link := upstreamRecipe(t, h, true)
		rv := h.fake.AddReview(sd.pr.Base, sd.pr, fakegithub.ReviewSpec{Login: "Ankur-singh", State: "CHANGES_REQUESTED", Body: passingSignoff(t, link),
			CommitID: seed004Head, Association: "COLLABORATOR", Submitted: signedAt})
		h.deliver("pull_request_review", reviewPayload(t, h, sd.pr, rv, "submitted", "Ankur-singh"), http.StatusAccepted)
		h.wait()
		noSignoffStatus(t, h, sd.pr, seed004Head)
	})
	for name, wrap := range map[string]func(string) string{
		"fenced":       func(s string) string { return "Once the evals are green I will post this:\n```\n" + s + "\n```\n" },
		"html comment": func(s string) string { return "Soon.\n<!--\n" + s + "\n-->\n" },
		"quoted":       func(s string) string { return "> " + strings.ReplaceAll(s, "\n", "\n> ") },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			link := upstreamRecipe(t, h, true)
			c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", wrap(passingSignoff(t, link)), signedAt))
			sd.deliverComment(t, c, "created", "", http.StatusOK) // nothing to do
			h.wait()
			noSignoffStatus(t, h, sd.pr, seed004Head)
		})
	}
}

// reviewPayload is a pull_request_review delivery as GitHub sends it.
func reviewPayload(t testing.TB, h *harness, pr *fakegithub.PR, rv github.PullRequestReview, action, sender string) []byte {
	t.Helper()
	prJSON, err := h.fake.PRJSON(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, map[string]any{"action": action, "pull_request": prJSON, "repository": h.fake.RepoJSON(pr.Base),
		"installation": map[string]any{"id": installID}, "review": rv, "sender": map[string]any{"login": sender, "type": "User"}})
}

// 9 and 10. Griefing and amplification: drive-by commenters posting the
// template signed with their own logins cannot overturn an owner's PASS,
// and each costs a few reads, one reply (edited on later attempts) and no
// download.
func TestGateDriveBys(t *testing.T) {
	h, sd, _, _ := passSeed004(t)
	verdictBefore := verdictFor(t, h, sd.pr, seed004Head)
	h.fake.ResetCalls()
	template := string(readFile(t, filepath.Join(seed004Fixture, "signoff.md")))
	const n = 20
	for i := range n {
		login := "drive-by"
		if i%2 == 1 {
			login = fmt.Sprintf("drive-by-%d", i)
		}
		body := strings.Replace(template, "Signed: Ankur-singh", "Signed: "+login, 1)
		sd.postComment(t, login, "NONE", body, signedAt.Add(time.Duration(i+1)*time.Minute))
	}
	h.wait()
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("an owner's PASS overturned: %s %q", st.GetState(), st.GetDescription())
	}
	if v := verdictFor(t, h, sd.pr, seed004Head); v != verdictBefore {
		t.Fatalf("the verdict was rewritten:\n%s", v)
	}
	calls := h.fake.Calls()
	if d := len(h.fake.CallsTo(fakegithub.RouteArtifactArchive)) + len(h.fake.CallsTo(fakegithub.RouteRunArtifacts)); d != 0 {
		t.Fatalf("%d artifact calls for drive-by sign-offs", d)
	}
	created := len(h.fake.CallsTo(fakegithub.RouteCreateComment))
	if created > n/2+1 {
		t.Fatalf("%d comments created for %d drive-by sign-offs (one reply per author)", created, n)
	}
	if len(calls) > 8*n {
		t.Fatalf("%d GitHub calls for %d drive-by sign-offs", len(calls), n)
	}
	t.Logf("%d drive-by sign-offs: %d GitHub calls, %d comments created", n, len(calls), created)
}

// 9, token mode: the bot's own comments (which quote the phrase in the
// welcome) are never sign-offs, even when the bot is an ordinary user.
func TestGateTokenModeOwnComments(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	h.fake.AddToken("ghp_single", "ankur-singh") // a careless operator: the owner's own token
	clients, err := ghapi.NewTokenClients("ghp_single", "", h.fake.APIURL(), ghapi.TransportChain(nil, testPolicy(h.sleeper), nil, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h.srv.cfg.Clients = clients
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt))
	sd.deliverComment(t, c, "created", "", http.StatusAccepted)
	h.wait()
	noSignoffStatus(t, h, sd.pr, seed004Head)
	// The welcome comment quotes the phrase (as code): not a sign-off.
	w := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("ankur-singh", "COLLABORATOR", reviewer.WelcomeComment(), signedAt))
	sd.deliverComment(t, w, "created", "", http.StatusOK)
	h.wait()
	noSignoffStatus(t, h, sd.pr, seed004Head)
}

// 11. One parser: what hides a command hides it from every command.
func TestGateHiddenCommands(t *testing.T) {
	h, pr, _ := serveSeed001(t)
	for _, body := range []string{"<!--\n@reviewbot review\n-->", "Thanks! <!--\n@reviewbot review\n-->", "    @reviewbot review",
		"````\n```\n@reviewbot review\n```\n````"} {
		cmd, _ := reviewCommand(t, h, pr, "MEMBER")
		var ev map[string]any
		if err := json.Unmarshal(cmd, &ev); err != nil {
			t.Fatal(err)
		}
		ev["comment"].(map[string]any)["body"] = body
		h.deliver("issue_comment", mustJSON(t, ev), http.StatusOK)
	}
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 0 {
		t.Fatalf("%d reviews from hidden commands", n)
	}
	h2 := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
	sd := serveSeed004(t, h2, nil)
	c := h2.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", "Thanks! <!--\n/use 555\n-->", time.Time{}))
	sd.deliverComment(t, c, "created", "", http.StatusOK)
	h2.wait()
	for _, cm := range h2.fake.IssueComments(sd.pr.Base, sd.pr.Number) {
		if strings.Contains(cm.GetBody(), replyMarker(c.GetID())) {
			t.Fatalf("a reply to a hidden command:\n%s", cm.GetBody())
		}
	}
}

// 12. No nil dereference on any input: a validly signed delivery with any
// object of a real payload set to null is answered, never a panic or a 5xx.
func TestGateNullFields(t *testing.T) {
	h := newHarness(t)
	h.install("Codertocat/Hello-World", "SemiAnalysisAI/InferenceX")
	dir := sharedWebhooks(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("payloads: %v", err)
	}
	for _, f := range files {
		event := strings.SplitN(filepath.Base(f), ".", 2)[0]
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, path := range objectPaths(doc, "", 3) {
			mutated := nullAt(doc, path)
			resp := h.post(event, mustJSON(t, mutated), fmt.Sprintf("null-%s-%s", filepath.Base(f), path), "")
			if resp.StatusCode >= 500 {
				t.Errorf("%s with %s null: %d", filepath.Base(f), path, resp.StatusCode)
			}
		}
	}
	h.wait()
	if strings.Contains(h.logs.String(), "panicked") {
		t.Fatalf("a handler panicked:\n%s", h.logs.String())
	}
	// The case the issue names: issue_comment with "issue": null.
	resp := h.post("issue_comment", []byte(`{"action":"created","issue":null,"comment":{"id":1,"body":"/use 5"},"repository":{"name":"r","owner":{"login":"o"}}}`), "issue-null", "")
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("issue null: %d", resp.StatusCode)
	}
}

// objectPaths lists the dotted paths of the JSON objects in v, to depth.
func objectPaths(v any, prefix string, depth int) []string {
	m, ok := v.(map[string]any)
	if !ok || depth == 0 {
		return nil
	}
	var out []string
	for k, x := range m {
		if _, isObj := x.(map[string]any); !isObj {
			continue
		}
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, p)
		out = append(out, objectPaths(x, p, depth-1)...)
	}
	return out
}

// nullAt returns a copy of doc with the object at path set to null.
func nullAt(doc map[string]any, path string) map[string]any {
	b, _ := json.Marshal(doc)
	var c map[string]any
	_ = json.Unmarshal(b, &c)
	parts := strings.Split(path, ".")
	m := c
	for _, p := range parts[:len(parts)-1] {
		m = m[p].(map[string]any)
	}
	m[parts[len(parts)-1]] = nil
	return c
}

// 13. In token mode the server serves one repository: deliveries for any
// other are refused before anything is read.
func TestGateTokenModeOtherRepository(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Repository = "someone/served" })
	pr, payload := h.servePayload(payloadPath(seed001), "sh003-seed001-lmcache-arm")
	h.fake.ResetCalls()
	resp := h.post("pull_request", payload, "foreign-1", "")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a delivery for %s: %d", pr.Base.FullName(), resp.StatusCode)
	}
	h.wait()
	if n := len(h.fake.Calls()); n != 0 {
		t.Fatalf("%d GitHub calls for another repository's delivery", n)
	}
}
