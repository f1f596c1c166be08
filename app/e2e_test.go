package app

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// seedCases are webhook payloads of our own for PRs built like the seed
// threads, each served with its fixture PR.
var seedCases = []struct {
	name, payload, fixture string
}{
	{"seed000", "seed000.pull_request.opened.json", "cl-seed000-other-pr-number"},
	{"seed001", "seed001.pull_request.opened.json", "sh003-seed001-lmcache-arm"},
	{"seed003", "seed003.pull_request.opened.json", "sh004-seed003-per-rank-key"},
	{"seed004", "seed004.pull_request.opened.json", "cl-seed004-copied-number"},
}

func payloadPath(name string) string { return filepath.Join("testdata", "webhooks", name) }

// TestSeedReviews drives the real server with an opened delivery per seed
// PR and compares everything posted (inline comments, summary, welcome,
// status) with its golden.
func TestSeedReviews(t *testing.T) {
	for _, tc := range seedCases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			pr, payload := h.servePayload(payloadPath(tc.payload), tc.fixture)
			h.deliver("pull_request", payload, http.StatusAccepted)
			h.wait()
			got := h.posted(pr)
			golden(t, tc.name+".posted.md", got)

			reviews := h.fake.Reviews(pr.Base, pr.Number)
			if len(reviews) != 1 || reviews[0].Review.GetCommitID() != pr.HeadSHA || reviews[0].Review.GetState() != "COMMENTED" {
				t.Fatalf("want one COMMENT review on the head, got %+v", reviews)
			}
			comments := h.fake.IssueComments(pr.Base, pr.Number)
			if len(comments) != 2 || !reviewer.HasWelcomeMarker(comments[0].GetBody()) || !reviewer.ParseSummaryMarker(comments[1].GetBody()) {
				t.Fatalf("want the welcome comment then the summary, got %d comments", len(comments))
			}
			if st := h.fake.Statuses(pr.Base, pr.HeadSHA); len(st) != 1 || st[0].GetContext() != "reviewbot" {
				t.Fatalf("want one reviewbot status, got %+v", st)
			}
			for _, c := range h.fake.Calls() {
				if c.Status >= 400 {
					t.Errorf("call %s %s answered %d", c.Method, c.Path, c.Status)
				}
			}
		})
	}
}

// TestReviewMatchesLocalMarkdown checks the promise of `reviewbot review
// --format markdown`: the App posts exactly those bodies.
func TestReviewMatchesLocalMarkdown(t *testing.T) {
	h := newHarness(t)
	pr, payload := h.servePayload(payloadPath("seed001.pull_request.opened.json"), "sh003-seed001-lmcache-arm")
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	local := localMarkdown(t, "sh003-seed001-lmcache-arm", pr.Number)
	for _, c := range h.fake.Reviews(pr.Base, pr.Number)[0].Comments {
		if !strings.Contains(local, c.GetBody()) {
			t.Errorf("inline comment on %s:%d is not what reviewbot review prints:\n%s", c.GetPath(), c.GetLine(), c.GetBody())
		}
	}
}

func TestRealPullRequestPayload(t *testing.T) {
	dir := sharedWebhooks(t)
	h := newHarness(t)
	pr, payload := h.servePayload(filepath.Join(dir, "pull_request.opened.payload.json"), "sh003-seed001-lmcache-arm")
	if pr.Base.FullName() != "Codertocat/Hello-World" || pr.Number != 2 {
		t.Fatalf("payload served as %s#%d", pr.Base.FullName(), pr.Number)
	}
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	reviews := h.fake.Reviews(pr.Base, pr.Number)
	if len(reviews) != 1 || len(reviews[0].Comments) == 0 {
		t.Fatalf("no review posted for the real payload:\n%s", h.posted(pr))
	}
	if got := reviews[0].Review.GetCommitID(); got != "ec26c3e57ca3a959ca5aad62de7213c562f8c821" {
		t.Fatalf("review on %s, want the payload's head", got)
	}
	// The synchronize payload of the same PR, same head: nothing new.
	h.deliver("pull_request", readFile(t, filepath.Join(dir, "pull_request.synchronize.payload.json")), http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews after a synchronize without changes, want 1", n)
	}
}

// TestRealPayloadsAreHandled sends every real payload: each gets a 2xx and
// the right kind of answer; none makes the App fail.
func TestRealPayloadsAreHandled(t *testing.T) {
	dir := sharedWebhooks(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Skip("no payloads")
	}
	h := newHarness(t)
	pr, _ := h.servePayload(filepath.Join(dir, "pull_request.opened.payload.json"), "sh003-seed001-lmcache-arm")
	want := map[string]string{
		"ping": "pong", "installation": "acknowledged", "check_run": "unhandled_event",
		"pull_request.opened": "queued", "pull_request.reopened": "queued", "pull_request.synchronize": "queued",
		"pull_request.ready_for_review": "queued", "pull_request.labeled": "queued", "pull_request.closed": "ignored",
		"issue_comment": "ignored", "pull_request_review": "ignored", "pull_request_review_comment": "ignored",
	}
	for _, f := range files {
		name := filepath.Base(f)
		event, _, _ := strings.Cut(name, ".")
		body := readFile(t, f)
		id := "real-" + name
		req, _ := http.NewRequest(http.MethodPost, h.http.URL+"/webhook", strings.NewReader(string(body)))
		req.Header.Set("X-Hub-Signature-256", Sign(body, []byte(testSecret)))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var ack map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&ack)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Errorf("%s: status %d (%v)", name, resp.StatusCode, ack)
			continue
		}
		key := event
		if event == "pull_request" {
			action := strings.Split(name, ".")[1]
			key += "." + action
		}
		if w, ok := want[key]; ok && ack["outcome"] != w {
			t.Errorf("%s: outcome %q (%s), want %q", name, ack["outcome"], ack["detail"], w)
		}
	}
	h.wait()
	if strings.Contains(h.logs.String(), "outcome=failed") {
		t.Fatalf("a job failed:\n%s", h.logs.String())
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1 (the later deliveries change nothing)", n)
	}
}

// localMarkdown is what `reviewbot review --format markdown` prints for a
// fixture.
func localMarkdown(t *testing.T, fixture string, number int) string {
	t.Helper()
	fx, err := loadFixtureChange(fixture, number)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := reviewer.WriteMarkdown(&b, fx); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
