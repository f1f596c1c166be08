package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

func TestReviewCommand(t *testing.T) {
	tests := []struct {
		association string
		wantReview  bool
	}{
		{"MEMBER", true}, {"OWNER", true}, {"COLLABORATOR", true},
		{"CONTRIBUTOR", false}, {"FIRST_TIME_CONTRIBUTOR", false}, {"NONE", false},
	}
	for _, tt := range tests {
		t.Run(tt.association, func(t *testing.T) {
			h, pr, _ := serveSeed001(t)
			want := http.StatusOK
			if tt.wantReview {
				want = http.StatusAccepted
			}
			body, id := reviewCommand(t, h, pr, tt.association)
			h.deliver("issue_comment", body, want)
			h.wait()
			reviews := h.fake.Reviews(pr.Base, pr.Number)
			reactions := h.fake.Reactions(pr.Base, id)
			if !tt.wantReview {
				if len(h.fake.Calls()) != 0 {
					t.Fatalf("an unauthorized command made %d GitHub calls", len(h.fake.Calls()))
				}
				if !strings.Contains(h.logs.String(), "only OWNER, MEMBER or COLLABORATOR may issue commands") {
					t.Fatalf("no logged reason:\n%s", h.logs.String())
				}
				return
			}
			if len(reviews) != 1 {
				t.Fatalf("%d reviews, want 1", len(reviews))
			}
			if len(reactions) != 1 || reactions[0].GetContent() != "eyes" {
				t.Fatalf("reactions %+v, want 👀", reactions)
			}
			// A command never brings the welcome comment: only opened,
			// reopened and ready_for_review do.
			for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
				if reviewer.HasWelcomeMarker(c.GetBody()) {
					t.Fatal("welcome comment posted for a review command")
				}
			}
		})
	}
}

// Some deliveries carry no installation (GitHub's own issue_comment
// examples); the App then looks the installation up.
func TestReviewCommandWithoutInstallation(t *testing.T) {
	h, pr, _ := serveSeed001(t)
	var ev map[string]any
	cmd, _ := reviewCommand(t, h, pr, "MEMBER")
	_ = json.Unmarshal(cmd, &ev)
	delete(ev, "installation")
	body, _ := json.Marshal(ev)
	h.deliver("issue_comment", body, http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1", n)
	}
	if len(h.fake.CallsTo("GET /repos/{owner}/{repo}/installation")) != 1 {
		t.Fatal("installation not looked up")
	}
}

func TestEditedCommentRunsOnlyNewCommands(t *testing.T) {
	h, pr, _ := serveSeed001(t)
	var ev map[string]any
	cmd, _ := reviewCommand(t, h, pr, "MEMBER")
	_ = json.Unmarshal(cmd, &ev)
	ev["action"] = "edited"
	ev["changes"] = map[string]any{"body": map[string]any{"from": "@reviewbot review"}}
	body, _ := json.Marshal(ev)
	h.deliver("issue_comment", body, http.StatusOK)
	ev["changes"] = map[string]any{"body": map[string]any{"from": "typo fixed"}}
	body, _ = json.Marshal(ev)
	h.deliver("issue_comment", body, http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1 (the edit that added the command)", n)
	}
}

// TestLabelChangesRewriteTheSummaryInPlace: removing the sweep label adds
// the 🟡 line to the summary, adding it back removes it; no new review.
func TestLabelChangesRewriteTheSummaryInPlace(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	before := summaryOf(t, h, pr)
	if strings.Contains(before, "Sweep labels") {
		t.Fatalf("labelled PR warned:\n%s", before)
	}
	reviewCalls := len(h.fake.CallsTo(fakegithub.RouteCreateReview))
	listings := len(h.fake.CallsTo(fakegithub.RouteFiles)) + len(h.fake.CallsTo(fakegithub.RouteCompare))

	h.fake.SetLabels(pr, "evals-only")
	h.deliver("pull_request", withAction(t, payload, "unlabeled"), http.StatusAccepted)
	h.wait()
	warned := summaryOf(t, h, pr)
	if !strings.Contains(warned, "🟡 **Sweep labels:**") || !strings.Contains(warned, "`evals-only` modifies a sweep") {
		t.Fatalf("no label warning after the label was removed:\n%s", warned)
	}
	_, restBefore, _ := strings.Cut(before, "<!-- /reviewbot:labels -->")
	_, restAfter, _ := strings.Cut(warned, "<!-- /reviewbot:labels -->")
	if restBefore != restAfter {
		t.Fatal("the label update changed more than the label section")
	}

	h.fake.SetLabels(pr, "full-sweep-fail-fast", "evals-only")
	h.deliver("pull_request", withAction(t, payload, "labeled"), http.StatusAccepted)
	h.wait()
	if after := summaryOf(t, h, pr); after != before {
		t.Fatalf("label fixed, summary not restored:\n%s", after)
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteCreateReview)); n != reviewCalls {
		t.Fatal("a label change posted a review")
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteFiles)) + len(h.fake.CallsTo(fakegithub.RouteCompare)); n != listings {
		t.Fatalf("label changes read the PR's files (%d listings)", n-listings)
	}
}

func TestSweepLabelsDoNotApplyToOtherChanges(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	readme := &trees.Overlay{Lower: fx.Base, Upper: memTreeOf(map[string]string{"docs/notes.md": "notes\n"})}
	pr, err := h.fake.AddPR(ctx, fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: 77, Base: fx.Base, Head: readme})
	if err != nil {
		t.Fatal(err)
	}
	h.install("SemiAnalysisAI/InferenceX")
	payload := prPayload(t, h, pr, "opened")
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	summary := summaryOf(t, h, pr)
	if strings.Contains(summary, "Sweep labels") || !strings.Contains(summary, "✅ reviewbot found no problems in this PR.") {
		t.Fatalf("docs-only PR without labels:\n%s", summary)
	}
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if reviewer.HasWelcomeMarker(c.GetBody()) {
			t.Fatal("welcome comment on a PR that touches no config, benchmark or changelog")
		}
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 0 {
		t.Fatalf("%d reviews for a PR without findings, want only the summary", n)
	}
	if st := h.fake.Statuses(pr.Base, pr.HeadSHA); len(st) != 1 || st[0].GetState() != "success" || st[0].GetDescription() != "No problems found" {
		t.Fatalf("status %+v", st)
	}
}

func TestWelcomeIsPostedOnce(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.AddIssueComment(pr.Base, pr.Number, "github-actions[bot]", "Thanks!\n"+reviewer.WelcomeMarker)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	h.deliver("pull_request", withAction(t, payload, "reopened"), http.StatusAccepted)
	h.wait()
	welcomes := 0
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if reviewer.HasWelcomeMarker(c.GetBody()) {
			welcomes++
		}
	}
	if welcomes != 1 {
		t.Fatalf("%d welcome comments, want the existing one only", welcomes)
	}
}

func TestForgedSummaryIsNotTrusted(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	// Someone pastes the bot's markers to suppress the findings.
	plan := reviewer.BuildPlan(nil, nil, reviewer.PlanOptions{})
	h.fake.AddIssueComment(pr.Base, pr.Number, "mallory", plan.Summary+
		"\n<!-- reviewbot:posted rule=SH003 fp=e9950409f72f5d48 path=benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh where=inline -->")
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	reviews := h.fake.Reviews(pr.Base, pr.Number)
	if len(reviews) != 1 || len(reviews[0].Comments) != 3 {
		t.Fatalf("a forged marker suppressed findings: %+v", reviews)
	}
}

func TestDraftsWaitForReadyForReview(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.Locked(func() { pr.Draft = true })
	var ev map[string]any
	_ = json.Unmarshal(payload, &ev)
	ev["pull_request"].(map[string]any)["draft"] = true
	draft, _ := json.Marshal(ev)
	h.deliver("pull_request", draft, http.StatusAccepted)
	h.wait()
	if n := len(h.fake.IssueComments(pr.Base, pr.Number)); n != 0 {
		t.Fatalf("a draft got %d comments", n)
	}
	if !strings.Contains(h.logs.String(), "outcome=skipped_draft") {
		t.Fatal("draft not skipped")
	}
	h.fake.Locked(func() { pr.Draft = false })
	h.deliver("pull_request", withAction(t, payload, "ready_for_review"), http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews after ready_for_review, want 1", n)
	}

	h2, pr2, payload2 := serveSeed001(t, func(c *Config) { c.ReviewDrafts = true })
	h2.fake.Locked(func() { pr2.Draft = true })
	_ = json.Unmarshal(payload2, &ev)
	ev["pull_request"].(map[string]any)["draft"] = true
	draft, _ = json.Marshal(ev)
	h2.deliver("pull_request", draft, http.StatusAccepted)
	h2.wait()
	if n := len(h2.fake.Reviews(pr2.Base, pr2.Number)); n != 1 {
		t.Fatalf("with ReviewDrafts a draft got %d reviews, want 1", n)
	}
}

func TestClosedPRsAreIgnored(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	var ev map[string]any
	_ = json.Unmarshal(payload, &ev)
	ev["pull_request"].(map[string]any)["state"] = "closed"
	body, _ := json.Marshal(ev)
	h.deliver("pull_request", body, http.StatusOK)
	// Closed between the delivery and the job.
	h.fake.Locked(func() { pr.State = "closed" })
	cmd, _ := reviewCommand(t, h, pr, "MEMBER")
	h.deliver("issue_comment", cmd, http.StatusAccepted)
	h.wait()
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if c.GetUser().GetLogin() == h.fake.BotLogin() {
			t.Fatal("the bot commented on a closed PR")
		}
	}
	if !strings.Contains(h.logs.String(), "outcome=skipped_closed") {
		t.Fatal("closed PR not skipped")
	}
}

func TestGracefulShutdownDrainsInFlightWork(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.Inject(fakegithub.Slow(fakegithub.RouteFiles, 200*time.Millisecond))
	h.deliver("pull_request", payload, http.StatusAccepted)
	time.Sleep(20 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("shutdown did not let the running review finish (%d reviews)", n)
	}
	// Draining: new deliveries are refused (and can be redelivered).
	if resp := h.post("pull_request", payload, "after-shutdown", ""); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("delivery while draining: %d, want 503", resp.StatusCode)
	}
	resp, err := http.Get(h.http.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while draining: %d", resp.StatusCode)
	}
}

func TestShutdownDeadlineCancelsWork(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.Inject(fakegithub.Slow(fakegithub.RouteCompare, 5*time.Second))
	h.deliver("pull_request", payload, http.StatusAccepted)
	time.Sleep(20 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.srv.Shutdown(ctx); err == nil {
		t.Fatal("shutdown past its deadline reported success")
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("cancelled work did not stop promptly")
	}
	if n := len(h.fake.IssueComments(pr.Base, pr.Number)); n != 0 {
		t.Fatalf("cancelled job posted %d comments", n)
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	h, _, payload := serveSeed001(t)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	for path, want := range map[string]string{
		"/healthz": "ok",
		"/readyz":  "ready",
		"/metrics": `reviewbot_webhook_deliveries_total{event="pull_request",outcome="queued"} 1`,
	} {
		resp, err := http.Get(h.http.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), want) {
			t.Errorf("%s: %d, body lacks %q", path, resp.StatusCode, want)
		}
		if path == "/metrics" {
			for _, m := range []string{"reviewbot_review_duration_seconds_bucket", `reviewbot_github_api_calls_total{route="GET /repos/{owner}/{repo}/compare/{id}",status="200"}`,
				`reviewbot_cache_requests_total{cache="blob",result="miss"}`, "reviewbot_review_github_calls_count 1",
				// Every cache's size and budget, in bytes.
				`reviewbot_cache_budget_bytes{cache="blob"} 6.7108864e+07`, `reviewbot_cache_bytes{cache="tree"}`, `reviewbot_cache_entries{cache="tree"} 2`,
				`reviewbot_cache_bytes{cache="merge_base"}`, `reviewbot_cache_budget_bytes{cache="parse"} 8.388608e+07`, `reviewbot_cache_bytes{cache="deliveries"}`, `reviewbot_cache_bytes{cache="ledger"}`,
				`reviewbot_cache_budget_bytes{cache="webhook_bodies"} 6.7108864e+07`,
				`reviewbot_cache_budget_bytes{cache="pipeline_expressions"} 1.048576e+06`, `reviewbot_cache_budget_bytes{cache="pipeline_word_nodes"} 4.194304e+06`} {
				if !strings.Contains(string(b), m) {
					t.Errorf("/metrics lacks %s", m)
				}
			}
		}
	}
	if resp, _ := http.Post(h.http.URL+"/healthz", "text/plain", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz: %d", resp.StatusCode)
	}
}

func TestDeliveryLogLine(t *testing.T) {
	h, _, payload := serveSeed001(t)
	id := h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	var line string
	for _, l := range strings.Split(h.logs.String(), "\n") {
		if strings.Contains(l, "delivery="+id) && strings.Contains(l, `msg="webhook delivery"`) {
			line = l
		}
	}
	for _, want := range []string{"event=pull_request", "action=opened", "repo=SemiAnalysisAI/InferenceX", "pr=2232",
		"outcome=reviewed", "duration=", "github_calls="} {
		if !strings.Contains(line, want) {
			t.Errorf("delivery log line lacks %s: %s", want, line)
		}
	}
	if strings.Contains(h.logs.String(), "ghs_") || strings.Contains(h.logs.String(), testSecret) {
		t.Fatal("a secret reached the log")
	}
}

// TestTokenMode runs a whole review with GITHUB_TOKEN instead of App
// credentials (single-repository mode).
func TestTokenMode(t *testing.T) {
	h := newHarness(t)
	h.fake.AddToken("ghp_single", "reviewbot-user")
	clients, err := ghapi.NewTokenClients("ghp_single", "", h.fake.APIURL(), ghapi.TransportChain(nil, testPolicy(h.sleeper), nil, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h.srv.cfg.Clients = clients
	pr, payload := h.servePayload(payloadPath(seed001), "sh003-seed001-lmcache-arm")
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	reviews := h.fake.Reviews(pr.Base, pr.Number)
	if len(reviews) != 1 || reviews[0].Review.GetUser().GetLogin() != "reviewbot-user" {
		t.Fatalf("token-mode review: %+v", reviews)
	}
	// The second review recognizes the user's own summary.
	h.deliver("pull_request", withAction(t, payload, "synchronize"), http.StatusAccepted)
	h.wait()
	summaryOf(t, h, pr)
	for _, c := range h.fake.Calls() {
		if c.Route == fakegithub.RouteAccessToken {
			t.Fatal("token mode asked for an installation token")
		}
	}
}

// TestRepositoryOptsIntoDraftReviews: review-drafts in the base branch's
// .github/reviewbot.yml reviews drafts without the server-wide switch.
func TestRepositoryOptsIntoDraftReviews(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	cfg := memTreeOf(map[string]string{".github/reviewbot.yml": "review-drafts: true\n"})
	base := &trees.Overlay{Lower: fx.Base, Upper: cfg}
	head := &trees.Overlay{Lower: fx.Head, Upper: cfg}
	pr, err := h.fake.AddPR(ctx, fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: 31, Base: base, Head: head, Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	h.install("SemiAnalysisAI/InferenceX")
	h.deliver("pull_request", prPayload(t, h, pr, "opened"), http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews of a draft in a repository that opted in, want 1", n)
	}
}

func TestInvalidRepositoryConfigSetsAnErrorStatus(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	cfg := memTreeOf(map[string]string{".github/reviewbot.yml": "rules:\n  NOPE001: off\n"})
	pr, err := h.fake.AddPR(ctx, fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: 32,
		Base: &trees.Overlay{Lower: fx.Base, Upper: cfg}, Head: &trees.Overlay{Lower: fx.Head, Upper: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	h.install("SemiAnalysisAI/InferenceX")
	h.deliver("pull_request", prPayload(t, h, pr, "opened"), http.StatusAccepted)
	h.wait()
	st := h.fake.Statuses(pr.Base, pr.HeadSHA)
	if len(st) != 1 || st[0].GetState() != "error" || !strings.Contains(st[0].GetDescription(), `unknown rule "NOPE001"`) {
		t.Fatalf("status %+v", st)
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 0 {
		t.Fatal("reviewed under a broken configuration")
	}
}
