package app

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// Seed 004's situation: PR #2512 retunes kimik2.5-fp4-b200-vllm. The
// sweep ran on in-PR commit 11b75f153 (run 31147925932, 42 single-node and
// 9 eval jobs green, the eval_results_all artifact with nine GSM8K rows);
// the head 8d034aa came later (a changelog fix and a merge of main) and
// its run 31204430170 skipped the sweep, consuming the pinned reuse. The
// author posted a bare /reuse-sweep-run, a COLLABORATOR pinned run
// 31147925932, then signed off on 2026-08-07.
const (
	seed004Repo     = "SemiAnalysisAI/InferenceX"
	seed004Number   = 2512
	seed004Sweep    = "11b75f153c0ffee0000000000000000000000001"
	seed004Head     = "8d034aa96d340b569de06f4e45886179210f00ed"
	seed004SweepRun = int64(31147925932)
	seed004HeadRun  = int64(31204430170)
	seed004Fixture  = "../checks/signoff/testdata/seed004"
)

var (
	seed004Day     = time.Date(2026, 8, 7, 0, 0, 0, 0, time.UTC)
	seed004Scores  = []string{"0.969", "0.970", "0.971", "0.972", "0.972", "0.973", "0.973", "0.974", "0.974"}
	seed004Signoff = seed004Day.Add(12 * time.Hour)
)

// atDate is a harness option fixing the review date.
func atDate(d time.Time) harnessOption {
	return func(c *Config) { c.Now = func() time.Time { return d } }
}

// seed004 is the served situation.
type seed004 struct {
	h  *harness
	pr *fakegithub.PR
	// bare and pinned are the thread's /reuse-sweep-run comments.
	bare, pinned github.IssueComment
}

// serveSeed004 serves the PR of a fixture (base and head trees, with
// overlay on both), its two commits, check runs, workflow runs, artifacts
// and the command comments of the thread.
func serveSeed004(t testing.TB, h *harness, overlay map[string]string) *seed004 {
	t.Helper()
	return serveSeed004At(t, h, overlay, seed004Day)
}

// serveSeed004At is serveSeed004 with the thread moved to another day
// (its commits, runs and comments keep their times of day).
func serveSeed004At(t testing.TB, h *harness, overlay map[string]string, day time.Time) *seed004 {
	t.Helper()
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	base, head := checks.Tree(fx.Base), checks.Tree(fx.Head)
	if overlay != nil {
		base = &trees.Overlay{Lower: base, Upper: checks.NewMemTree(overlay)}
		head = &trees.Overlay{Lower: head, Upper: checks.NewMemTree(overlay)}
	}
	pr, err := h.fake.AddPR(ctx, fakegithub.PRSpec{Repo: seed004Repo, Number: seed004Number, Base: base, Head: head,
		HeadSHA: seed004Sweep, HeadDate: day.Add(-14 * time.Hour), HeadRef: "kimik25-b200-nightly",
		Title: fx.PR.Title, Author: "xinli-sw", Labels: []string{"full-sweep-fail-fast"}})
	if err != nil {
		t.Fatal(err)
	}
	// The head: the same submission after a changelog fix and a merge of main.
	if _, err := h.fake.PushAt(ctx, pr, head, seed004Head, day.Add(8*time.Hour)); err != nil {
		t.Fatal(err)
	}
	h.install(seed004Repo)
	repo := pr.Base
	var sweep []fakegithub.CheckRunSpec
	for i := range 42 {
		sweep = append(sweep, fakegithub.CheckRunSpec{Name: fmt.Sprintf("single-node 8k1k / kimik2.5-fp4-b200-vllm %02d", i), Conclusion: "success", RunID: seed004SweepRun})
	}
	for i := range 9 {
		sweep = append(sweep, fakegithub.CheckRunSpec{Name: fmt.Sprintf("eval / kimik2.5-fp4-b200-vllm gsm8k %d", i), Conclusion: "success", RunID: seed004SweepRun})
	}
	sweep = append(sweep, fakegithub.CheckRunSpec{Name: "collect-evals", Conclusion: "success", RunID: seed004SweepRun})
	h.fake.AddCheckRuns(repo, seed004Sweep, sweep...)
	var gated []fakegithub.CheckRunSpec
	for i := range 42 {
		gated = append(gated, fakegithub.CheckRunSpec{Name: fmt.Sprintf("single-node 8k1k / kimik2.5-fp4-b200-vllm %02d", i), Conclusion: "skipped", RunID: seed004HeadRun})
	}
	gated = append(gated, fakegithub.CheckRunSpec{Name: "reuse-sweep-gate", Conclusion: "success", RunID: seed004HeadRun},
		fakegithub.CheckRunSpec{Name: "collect-evals", Conclusion: "success", RunID: seed004HeadRun})
	h.fake.AddCheckRuns(repo, seed004Head, gated...)

	h.fake.AddWorkflowRun(repo, fakegithub.WorkflowRunSpec{ID: seed004SweepRun, Conclusion: "success", HeadSHA: seed004Sweep,
		HeadBranch: pr.HeadRef, Created: day.Add(-13 * time.Hour)})
	h.fake.AddWorkflowRun(repo, fakegithub.WorkflowRunSpec{ID: seed004HeadRun, Conclusion: "success", HeadSHA: seed004Head,
		HeadBranch: pr.HeadRef, Created: day.Add(9 * time.Hour)})
	h.fake.AddArtifact(repo, seed004SweepRun, fakegithub.ArtifactSpec{Name: "results_bmk", Data: zipOf(t, map[string][]byte{"results.json": []byte("[]")})})
	h.fake.AddArtifact(repo, seed004SweepRun, fakegithub.ArtifactSpec{Name: "eval_results_all", Data: evalArchive(t, seed004Scores)})

	for i := range 2 {
		h.fake.AddComment(repo, pr.Number, fakegithub.CommentSpec{Login: "github-actions[bot]", Body: "Thanks for the contribution! " + fmt.Sprint(i),
			Created: day.Add(-20 * time.Hour)})
	}
	sd := &seed004{h: h, pr: pr}
	sd.bare = h.fake.AddComment(repo, pr.Number, fakegithub.CommentSpec{Login: "xinli-sw", Association: "MEMBER", Body: "/reuse-sweep-run",
		Created: day.Add(9 * time.Hour)})
	sd.pinned = h.fake.AddComment(repo, pr.Number, fakegithub.CommentSpec{Login: "Ankur-singh", Association: "COLLABORATOR",
		Body: fmt.Sprintf("/reuse-sweep-run %d", seed004SweepRun), Created: day.Add(10 * time.Hour)})
	// The App heard of the push to the head when it happened: its record
	// of heads is what a conversation comment's sign-off is matched to.
	h.pushed(pr, day.Add(8*time.Hour))
	h.fake.ResetCalls() // the test counts its own calls
	return sd
}

func fakeComment(login, association, body string, at time.Time) fakegithub.CommentSpec {
	return fakegithub.CommentSpec{Login: login, Association: association, Body: body, Created: at}
}

// evalArchive is an eval_results_all archive with one GSM8K row per score
// for the seed's config.
func evalArchive(t testing.TB, scores []string) []byte {
	t.Helper()
	var rows []string
	for i, s := range scores {
		rows = append(rows, fmt.Sprintf(`{"model_prefix":"kimik2.5","model":"nvidia/Kimi-K2.5-NVFP4","hw":"b200","framework":"vllm",`+
			`"precision":"fp4","spec_decoding":"none","tp":%d,"ep":1,"conc":%d,"dp_attention":false,"task":"gsm8k","score":%s,"score_name":"exact_match"}`,
			[]int{8, 4}[i%2], 1<<(i%9), s))
	}
	return zipOf(t, map[string][]byte{"eval_results_all/agg_eval_all.json": []byte("[" + strings.Join(rows, ",") + "]")})
}

func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for name, content := range files {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// postComment adds a human's comment to the fake and delivers its
// issue_comment event.
func (sd *seed004) postComment(t *testing.T, login, association, body string, at time.Time) github.IssueComment {
	t.Helper()
	c := sd.h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakegithub.CommentSpec{Login: login, Association: association, Body: body, Created: at})
	sd.h.deliver("issue_comment", issueCommentPayload(t, sd.h, sd.pr, c, "created", ""), http.StatusAccepted)
	return c
}

// issueCommentPayload is an issue_comment delivery for a comment of the
// fake, shaped like GitHub's (see ../shared/webhooks).
func issueCommentPayload(t testing.TB, h *harness, pr *fakegithub.PR, c github.IssueComment, action, from string) []byte {
	t.Helper()
	ev := map[string]any{
		"action": action,
		"issue": map[string]any{"number": pr.Number, "state": "open", "title": pr.Title,
			"pull_request": map[string]any{"url": fmt.Sprintf("%s/repos/%s/pulls/%d", h.fake.URL, pr.Base.FullName(), pr.Number)},
			"user":         map[string]any{"login": pr.Author, "type": "User"}},
		"comment":      c,
		"repository":   h.fake.RepoJSON(pr.Base),
		"installation": map[string]any{"id": installID},
		"sender":       c.User,
	}
	if from != "" {
		ev["changes"] = map[string]any{"body": map[string]any{"from": from}}
	}
	return mustJSON(t, ev)
}

// verdicts returns the bot's verdict comments on the PR by the SHA their
// marker names.
func verdicts(t *testing.T, h *harness, pr *fakegithub.PR) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if sha, ok := signoff.ParseMarker(c.GetBody()); ok && c.GetUser().GetLogin() == h.fake.BotLogin() {
			out[sha] = append(out[sha], c.GetBody())
		}
	}
	return out
}

// verdictFor returns the one verdict comment for sha.
func verdictFor(t *testing.T, h *harness, pr *fakegithub.PR, sha string) string {
	t.Helper()
	vs := verdicts(t, h, pr)[sha]
	if len(vs) != 1 {
		t.Fatalf("%d verdict comments for %.12s, want 1; posted:\n%s", len(vs), sha, h.posted(pr))
	}
	return vs[0]
}

// signoffStatus returns the codeowner-signoff-verify statuses of sha,
// oldest first.
func signoffStatus(h *harness, pr *fakegithub.PR, sha string) []github.RepoStatus {
	var out []github.RepoStatus
	for _, st := range h.fake.Statuses(pr.Base, sha) {
		if st.GetContext() == gate.StatusContext {
			out = append(out, st)
		}
	}
	return out
}

// lastStatus is the newest codeowner-signoff-verify status of sha.
func lastStatus(t *testing.T, h *harness, pr *fakegithub.PR, sha string) github.RepoStatus {
	t.Helper()
	sts := signoffStatus(h, pr, sha)
	if len(sts) == 0 {
		t.Fatalf("no %s status on %.12s; posted:\n%s", gate.StatusContext, sha, h.posted(pr))
	}
	return sts[len(sts)-1]
}

// checkLines maps each check number of a verdict to its line.
func checkLines(t *testing.T, verdict string) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, l := range strings.Split(verdict, "\n") {
		var n int
		for _, mark := range []string{"✅ Check ", "❌ Check ", "➖ Check "} {
			if rest, ok := strings.CutPrefix(l, mark); ok {
				if _, err := fmt.Sscanf(rest, "%d", &n); err == nil {
					out[n] = l
				}
			}
		}
	}
	return out
}

// wantChecks asserts each check's status (PASS, FAIL, N/A) and that its
// line holds the given evidence.
func wantChecks(t *testing.T, verdict string, want map[int]string, evidence map[int][]string) {
	t.Helper()
	lines := checkLines(t, verdict)
	if len(lines) != 13 {
		t.Errorf("%d check lines, want 13:\n%s", len(lines), verdict)
	}
	for n, st := range want {
		if !strings.Contains(lines[n], "): "+st+" — ") {
			t.Errorf("check %d: want %s, got %q", n, st, lines[n])
		}
	}
	for n, subs := range evidence {
		for _, s := range subs {
			if !strings.Contains(lines[n], s) {
				t.Errorf("check %d lacks %q: %q", n, s, lines[n])
			}
		}
	}
}

// seed004Want are the check outcomes of seed 004's verdict (check 12
// postdates the seed; it does not apply).
var seed004Want = map[int]string{0: "PASS", 1: "PASS", 2: "PASS", 3: "FAIL", 4: "PASS", 5: "PASS", 6: "PASS",
	7: "FAIL", 8: "PASS", 9: "N/A", 10: "PASS", 11: "N/A", 12: "N/A"}

// seed004Evidence is what the verdict lines cite, as the seed's do.
var seed004Evidence = map[int][]string{
	0: {"`Ankur-singh` owns `configs/nvidia-master.yaml`", "CODEOWNERS:"},
	1: {"11b75f153", "42/42", "9/9", "actions/runs/31147925932"},
	2: {"`agg_eval_all.json`", "actions/runs/31147925932", "9 gsm8k results", "0.969–0.974"},
	3: {"`--attention-config`", "`--linear-backend`", "`VLLM_USE_V2_MODEL_RUNNER=0`"},
	4: {"`/reuse-sweep-run 31147925932` posted by Ankur-singh (COLLABORATOR)", "actions/runs/31147925932", "`eval_results_all`"},
	6: {"vllm/vllm-openai:nightly"},
	7: {"kimik2.5", "Single-turn 8k1k", "MODELS.md:", "2026-08-07", "2026-08-06"},
	9: {"no speculative decoding"},
}

// TestSeed004SignoffFixture replays seed 004 through the fake API with the
// fixture's own sign-off and checklist: REJECTED on checks 3 and 7.
func TestSeed004SignoffFixture(t *testing.T) {
	h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
	sd := serveSeed004(t, h, nil)
	body := string(readFile(t, filepath.Join(seed004Fixture, "signoff.md")))
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, seed004Signoff)
	h.wait()

	v := verdictFor(t, h, sd.pr, seed004Head)
	if !strings.HasPrefix(v, "## ❌❌❌ **REJECTED** ❌❌❌\n\n@Ankur-singh — 2 blockers: check 3 (upstream recipe) and check 7 (deprecated models).") {
		t.Errorf("verdict header:\n%s", v)
	}
	wantChecks(t, v, seed004Want, seed004Evidence)
	golden(t, "seed004.signoff.md", stableIDs(v))
	st := lastStatus(t, h, sd.pr, seed004Head)
	if st.GetState() != "failure" || st.GetDescription() != "Sign-off rejected: check 3, 7 failed" || !strings.Contains(st.GetTargetURL(), "#issuecomment-") {
		t.Errorf("status %s %q %s", st.GetState(), st.GetDescription(), st.GetTargetURL())
	}
	if n := len(signoffStatus(h, sd.pr, seed004Sweep)); n != 0 {
		t.Errorf("%d statuses on the sweep commit; the sign-off signed the head", n)
	}
	for _, c := range h.fake.Calls() {
		if c.Status >= 500 {
			t.Errorf("call %s %s answered %d", c.Method, c.Path, c.Status)
		}
	}
}

// sharedDir is ../shared beside the repository (REVIEWBOT_SHARED
// overrides), or skips the test.
func sharedDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("REVIEWBOT_SHARED"); dir != "" {
		return dir
	}
	return filepath.Dir(sharedWebhooks(t))
}

// TestSeed004SignoffReal replays seed 004 with the seed's own sign-off
// text (cut from the thread), the real CODEOWNERS and eval thresholds, and
// the real checklist as it stood on the seed's date: today's checklist
// (2026-08-21) minus its `append-only` item, which was added to the
// template on 2026-08-14, after the sign-off.
func TestSeed004SignoffReal(t *testing.T) {
	shared := sharedDir(t)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(shared, p))
		if err != nil {
			t.Skipf("../shared incomplete: %v", err)
		}
		return string(b)
	}
	seed := read("seeds/004_9aaba700e0d78b55.txt")
	checklist := read("inferencex/docs/PR_REVIEW_CHECKLIST.md")
	var kept []string
	for _, l := range strings.Split(checklist, "\n") {
		if !strings.Contains(l, "If this PR uses `append-only: true`") {
			kept = append(kept, l)
		}
	}
	if len(kept) != strings.Count(checklist, "\n") {
		t.Fatal("the real checklist has no append-only item to take out")
	}
	i := strings.Index(seed, signoff.Phrase)
	j := strings.Index(seed[max(i, 0):], "\n[Klaud-Cold]")
	if i < 0 || j < 0 {
		t.Fatal("seed 004 has no sign-off")
	}
	body := seed[i : i+j]

	h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
	sd := serveSeed004(t, h, map[string]string{
		".github/CODEOWNERS":          read("inferencex/CODEOWNERS"),
		"docs/PR_REVIEW_CHECKLIST.md": strings.Join(kept, "\n"),
		"utils/evals/thresholds.yaml": read("inferencex/eval-thresholds.yaml"),
	})
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, seed004Signoff)
	h.wait()
	v := verdictFor(t, h, sd.pr, seed004Head)
	if !strings.HasPrefix(v, "## ❌❌❌ **REJECTED** ❌❌❌\n\n@Ankur-singh — 2 blockers: check 3 (upstream recipe) and check 7 (deprecated models).") {
		t.Errorf("verdict header:\n%s", v)
	}
	evidence := map[int][]string{}
	for n, e := range seed004Evidence {
		evidence[n] = e
	}
	evidence[0] = []string{"`Ankur-singh` owns `configs/nvidia-master.yaml` (.github/CODEOWNERS:7)"}
	evidence[5] = []string{"every item of the current docs/PR_REVIEW_CHECKLIST.md template (14 items)"}
	wantChecks(t, v, seed004Want, evidence)
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Errorf("status %s", st.GetState())
	}
	t.Logf("verdict for the seed's own sign-off:\n%s", v)
}
