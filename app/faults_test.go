package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

const seed001 = "seed001.pull_request.opened.json"

func serveSeed001(t *testing.T, opts ...harnessOption) (*harness, *fakegithub.PR, []byte) {
	t.Helper()
	h := newHarness(t, opts...)
	pr, payload := h.servePayload(payloadPath(seed001), "sh003-seed001-lmcache-arm")
	return h, pr, payload
}

// withAction rewrites a pull_request payload's action.
func withAction(t *testing.T, payload []byte, action string) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	ev["action"] = action
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withHead rewrites a pull_request payload's head SHA.
func withHead(t *testing.T, payload []byte, sha string) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	ev["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha
	b, _ := json.Marshal(ev)
	return b
}

// summaryOf returns the bot's summary comment body on pr.
func summaryOf(t *testing.T, h *harness, pr *fakegithub.PR) string {
	t.Helper()
	var found []string
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if reviewer.ParseSummaryMarker(c.GetBody()) {
			found = append(found, c.GetBody())
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d summary comments, want exactly 1", len(found))
	}
	return found[0]
}

func TestRedeliveryIsIgnored(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	if resp := h.post("pull_request", payload, "same-id", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("first delivery: %d", resp.StatusCode)
	}
	h.wait()
	calls := len(h.fake.Calls())
	if resp := h.post("pull_request", payload, "same-id", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("redelivery: %d, want 200", resp.StatusCode)
	}
	h.wait()
	if n := len(h.fake.Calls()); n != calls {
		t.Fatalf("the redelivery made %d GitHub calls", n-calls)
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1", n)
	}
}

// reviewedSeed001 is serveSeed001 with its PR reviewed once, and the
// fixture it was served from (for the next push).
func reviewedSeed001(t *testing.T) (*harness, *fakegithub.PR, []byte, *trees.Fixture) {
	t.Helper()
	h, pr, payload := serveSeed001(t)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	fx, err := trees.LoadFixture(context.Background(), fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	return h, pr, payload, fx
}

func TestSecondPushWithoutChangesPostsNothingNew(t *testing.T) {
	h, pr, payload, fx := reviewedSeed001(t)
	// Same content pushed again as a new commit (a rebase, an amend).
	head, err := h.fake.Push(context.Background(), pr, fx.Head, "")
	if err != nil {
		t.Fatal(err)
	}
	h.deliver("pull_request", withHead(t, withAction(t, payload, "synchronize"), head), http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews after a push without changes, want 1", n)
	}
	second := summaryOf(t, h, pr)
	if !strings.Contains(second, "No new findings since the last review.") {
		t.Fatalf("re-review summary does not say nothing is new:\n%s", second)
	}
	if got := len(h.fake.IssueComments(pr.Base, pr.Number)); got != 2 {
		t.Fatalf("%d conversation comments, want 2 (welcome, summary)", got)
	}
	if st := h.fake.Statuses(pr.Base, head); len(st) != 1 || st[0].GetState() != "failure" {
		t.Fatalf("status on the new head: %+v", st)
	}
	// A third delivery for the same head leaves even the summary alone.
	edits := len(h.fake.CallsTo(fakegithub.RouteEditComment))
	h.deliver("pull_request", withHead(t, withAction(t, payload, "synchronize"), head), http.StatusAccepted)
	h.wait()
	if n := len(h.fake.CallsTo(fakegithub.RouteEditComment)); n != edits {
		t.Fatalf("an unchanged summary was edited again")
	}
}

func TestFixedFindingIsListedAsResolved(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	fx, err := trees.LoadFixture(context.Background(), fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	// Push the base version back: both findings go away.
	head, err := h.fake.Push(context.Background(), pr, fx.Base, "")
	if err != nil {
		t.Fatal(err)
	}
	h.deliver("pull_request", withHead(t, withAction(t, payload, "synchronize"), head), http.StatusAccepted)
	h.wait()
	summary := summaryOf(t, h, pr)
	for _, want := range []string{"no remaining problems", "**Resolved since last review:**", "SH003", "SH001"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if st := h.fake.Statuses(pr.Base, head); len(st) != 1 || st[0].GetState() != "success" {
		t.Fatalf("status after the fix: %+v", st)
	}
}

func TestBadSignatureIsRejectedWithoutGitHubCalls(t *testing.T) {
	h, _, payload := serveSeed001(t)
	tests := []struct {
		name string
		sig  string
		body []byte
	}{
		{"wrong secret", Sign(payload, []byte("not the secret")), payload},
		{"tampered body", Sign(payload, []byte(testSecret)), bytes.Replace(payload, []byte("2232"), []byte("2233"), 1)},
		{"sha1 only", "sha1=" + strings.Repeat("0", 40), payload},
		{"garbage", "sha256=zz", payload},
		{"missing", "none", payload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig := tt.sig
			if sig == "none" {
				sig = " "
			}
			if resp := h.post("pull_request", tt.body, "bad-"+tt.name, sig); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
		})
	}
	h.wait()
	if calls := h.fake.Calls(); len(calls) != 0 {
		t.Fatalf("bad signatures caused %d GitHub calls (first %s %s)", len(calls), calls[0].Method, calls[0].Path)
	}
	// A bad signature does not burn the delivery id: the genuine delivery
	// with that id is still processed.
	if resp := h.post("pull_request", payload, "bad-wrong secret", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("genuine delivery after a forged one: %d", resp.StatusCode)
	}
}

func TestOversizedBodyIs413(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxBodyBytes = 1024 })
	body := bytes.Repeat([]byte("x"), 2048)
	if resp := h.post("pull_request", body, "big", ""); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	if resp := h.post("pull_request", []byte("{not json"), "bad-json", ""); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("malformed payload: status %d, want 400", resp.StatusCode)
	}
	if len(h.fake.Calls()) != 0 {
		t.Fatal("rejected bodies caused GitHub calls")
	}
}

// TestConcurrentDeliveriesForOnePRAreSerialized sends several deliveries
// for one PR at once while GitHub is slow. Run concurrently, two first
// reviews would each post a summary; serialized, the second sees the
// first's.
func TestConcurrentDeliveriesForOnePRAreSerialized(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	started := make(chan struct{})
	var once sync.Once
	// A slow files endpoint that says when the first job reached it.
	for _, route := range []string{fakegithub.RouteCompare, fakegithub.RouteFiles} {
		h.fake.Inject(&fakegithub.Fault{Route: route, Before: func() {
			once.Do(func() { close(started) })
			time.Sleep(50 * time.Millisecond)
		}})
	}
	h.post("pull_request", payload, "conc-0", "")
	<-started // the first job is running; the others arrive during it
	var wg sync.WaitGroup
	for i, action := range []string{"synchronize", "reopened", "synchronize", "synchronize"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.post("pull_request", withAction(t, payload, action), fmt.Sprintf("conc-%d", i+1), "")
		}()
	}
	wg.Wait()
	h.wait()
	summaryOf(t, h, pr) // exactly one
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1", n)
	}
	// The calls of one job never interleave with another's: every files
	// listing (a job's start, by comparison or the files API) comes after
	// the previous job's status (its end).
	inJob := false
	for _, c := range h.fake.Calls() {
		switch c.Route {
		case fakegithub.RouteCompare, fakegithub.RouteFiles:
			if inJob {
				t.Fatal("a job started while another job of the same PR was running")
			}
			inJob = true
		case fakegithub.RouteCreateStatus:
			inJob = false
		}
	}
	if runs := reviewRuns(h.fake); runs != 2 {
		t.Fatalf("%d review runs for 5 deliveries; want 2 (the four waiting ones merged)", runs)
	}
}

// Test422OnOneCommentLosesNoFinding makes GitHub refuse the SH003 comment:
// the review goes out with the others (SH001 and CL011, on line 2), and
// the summary lists SH003.
func Test422OnOneCommentLosesNoFinding(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.RejectComments(func(path string, line int) bool { return line == 98 })
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	reviews := h.fake.Reviews(pr.Base, pr.Number)
	var submitted []fakegithub.PostedReview
	for _, r := range reviews {
		if r.Review.GetState() != "PENDING" {
			submitted = append(submitted, r)
		}
	}
	if len(reviews) != len(submitted) {
		t.Fatal("a probe review was left pending")
	}
	if len(submitted) != 1 || len(submitted[0].Comments) != 2 {
		t.Fatalf("want one review with the two comments on line 2 (SH001, CL011) only, got %+v", submitted)
	}
	for _, c := range submitted[0].Comments {
		if c.GetLine() != 2 {
			t.Fatalf("a comment on line %d went out; want those on line 2 only", c.GetLine())
		}
	}
	summary := summaryOf(t, h, pr)
	outside, ok := strings.CutPrefix(summary[strings.Index(summary, "**Additional findings"):], "**Additional findings (outside current diff):**")
	if !ok || !strings.Contains(outside, "dsv4_fp4_b300_vllm.sh:98") || !strings.Contains(outside, "LMCacheMPConnector") {
		t.Fatalf("the rejected finding is not in the summary:\n%s", summary)
	}
	posted := reviewer.ParseSummaryFindings(summary)
	if len(posted) != 3 {
		t.Fatalf("summary records %d findings, want 3", len(posted))
	}
	// A re-review does not post the moved finding inline again.
	h.deliver("pull_request", withAction(t, payload, "synchronize"), http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews after the re-review, want 1", n)
	}
}

func TestRateLimitRetriesRespectRetryAfter(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	review := h.fake.Inject(fakegithub.SecondaryRateLimit(fakegithub.RouteCreateReview, 7*time.Second, 1))
	comment := h.fake.Inject(fakegithub.SecondaryRateLimit(fakegithub.RouteCreateComment, 3*time.Second, 1))
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if review.Fired() != 1 || comment.Fired() != 1 {
		t.Fatal("faults did not fire")
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1 after the rate limit lifted", n)
	}
	waits := h.sleeper.Waits()
	if len(waits) != 2 || waits[0] != 3*time.Second || waits[1] != 7*time.Second {
		t.Fatalf("waits %v, want [3s 7s] as Retry-After said (welcome first, then the review)", waits)
	}
	if got := len(h.fake.IssueComments(pr.Base, pr.Number)); got != 2 {
		t.Fatalf("%d comments, want 2: a rate-limited post must not be posted twice", got)
	}
}

func TestServerErrorsAreRetried(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.Inject(fakegithub.ServerError(fakegithub.RouteCompare, http.StatusBadGateway, 2))
	h.fake.Inject(fakegithub.ServerError(fakegithub.RouteTree, http.StatusServiceUnavailable, 1))
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1 after retries", n)
	}
	if n := len(h.sleeper.Waits()); n != 3 {
		t.Fatalf("%d backoffs, want 3", n)
	}
}

// TestAmbiguousReviewFailureIsNotDuplicated: GitHub creates the review but
// the answer is a 502; the App finds the review instead of posting a second.
func TestAmbiguousReviewFailureIsNotDuplicated(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	lost := h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCreateReview, Times: 1, Status: http.StatusBadGateway,
		AfterHandler: true, Body: `{"message":"Server Error"}`})
	lostSummary := h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCreateComment, Times: 1, Status: http.StatusGatewayTimeout,
		AfterHandler: true, Match: func(_ *http.Request, body []byte) bool { return bytes.Contains(body, []byte("reviewbot:summary")) }})
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if lost.Fired() != 1 || lostSummary.Fired() != 1 {
		t.Fatal("faults did not fire")
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews, want 1", n)
	}
	summaryOf(t, h, pr) // exactly one
	if len(h.fake.CallsTo(fakegithub.RouteListReviews)) == 0 {
		t.Fatal("the App did not look for the review it lost the answer of")
	}
}

func TestPermanentReviewFailureMovesFindingsToSummary(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCreateReview, Status: http.StatusForbidden,
		Body: `{"message":"Resource not accessible by integration"}`})
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	summary := summaryOf(t, h, pr)
	if !strings.Contains(summary, "dsv4_fp4_b300_vllm.sh:98") || !strings.Contains(summary, "dsv4_fp4_b300_vllm.sh:2") {
		t.Fatalf("findings lost when the review could not be posted:\n%s", summary)
	}
	for _, f := range reviewer.ParseSummaryFindings(summary) {
		if !f.InSummary {
			t.Fatalf("finding %s recorded as inline although no review was posted", f.Rule)
		}
	}
}

// TestForkPRReadsTheHeadRepository: the head commit lives in the fork; the
// App reads it there and posts on the base repository.
func TestForkPRReadsTheHeadRepository(t *testing.T) {
	h := newHarness(t)
	pr, payload := h.servePayload(payloadPath("fork.pull_request.opened.json"), "sh003-seed001-lmcache-arm")
	if pr.Head == pr.Base || pr.Head.FullName() != "contrib-lab/InferenceX" {
		t.Fatalf("fixture PR is not from a fork: head %s", pr.Head.FullName())
	}
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	headReads, baseHeadReads := 0, 0
	for _, c := range h.fake.Calls() {
		if c.Route != fakegithub.RouteTree && c.Route != fakegithub.RouteBlob {
			continue
		}
		if strings.HasPrefix(c.Path, "/repos/contrib-lab/InferenceX/") {
			headReads++
		} else if strings.Contains(c.Path, pr.HeadSHA) {
			baseHeadReads++
		}
	}
	if headReads == 0 || baseHeadReads != 0 {
		t.Fatalf("head read %d times from the fork and %d times from the base repository", headReads, baseHeadReads)
	}
	reviews := h.fake.Reviews(pr.Base, pr.Number)
	if len(reviews) != 1 || len(reviews[0].Comments) != 3 {
		t.Fatalf("fork PR review: %+v", reviews)
	}
	same := localMarkdown(t, "sh003-seed001-lmcache-arm", pr.Number)
	for _, c := range reviews[0].Comments {
		if !strings.Contains(same, c.GetBody()) {
			t.Errorf("the fork's review differs from the local review at %s:%d", c.GetPath(), c.GetLine())
		}
	}
}

// TestHeadMovedMidReview: a push lands while the review runs; the stale
// result is dropped and the new head reviewed.
func TestHeadMovedMidReview(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	fx, err := trees.LoadFixture(context.Background(), fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	oldHead := pr.HeadSHA
	var newHead string
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCompare, Times: 1, Before: func() {
		// The fix lands: the base version of the recipe.
		newHead, err = h.fake.Push(context.Background(), pr, fx.Base, "")
	}})
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 0 {
		t.Fatalf("%d reviews posted; the stale head's findings must be discarded", n)
	}
	if st := h.fake.Statuses(pr.Base, oldHead); len(st) != 0 {
		t.Fatalf("status set on the stale head: %+v", st)
	}
	if st := h.fake.Statuses(pr.Base, newHead); len(st) != 1 || st[0].GetState() != "success" {
		t.Fatalf("status on the new head: %+v", st)
	}
	if s := summaryOf(t, h, pr); !strings.HasPrefix(strings.TrimSpace(s[strings.Index(s, "-->\n")+4:]), "<!-- /reviewbot:labels -->\n\n✅") {
		t.Fatalf("summary of the new head:\n%s", s)
	}
	if !strings.Contains(h.logs.String(), "head moved during the review") {
		t.Fatal("the head move was not logged")
	}
}

func TestThreeThousandFileLimitIsNoted(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for i := range 3005 {
		files[fmt.Sprintf("docs/generated/page-%04d.md", i)] = fmt.Sprintf("page %d\n", i)
	}
	head := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(files)}
	pr, err := h.fake.AddPR(ctx, fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: 3000, Base: fx.Base, Head: head})
	if err != nil {
		t.Fatal(err)
	}
	h.install("SemiAnalysisAI/InferenceX")
	body, _ := reviewCommand(t, h, pr, "MEMBER")
	h.deliver("issue_comment", body, http.StatusAccepted)
	h.wait()
	summary := summaryOf(t, h, pr)
	if !strings.Contains(summary, "GitHub lists only the first 3000 of this PR's 3006 changed files") {
		t.Fatalf("no 3,000-file note:\n%s", summary)
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteFiles)); n != 30 {
		t.Fatalf("%d files pages, want 30 (100 per page up to GitHub's 3,000)", n)
	}
}

// reviewCommand is an issue_comment delivery asking for a review of pr,
// for a comment the fake then holds (so it can be reacted to).
func reviewCommand(t *testing.T, h *harness, pr *fakegithub.PR, association string) ([]byte, int64) {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(readFile(t, payloadPath("seed001.issue_comment.review.json")), &ev); err != nil {
		t.Fatal(err)
	}
	comment := ev["comment"].(map[string]any)
	c := h.fake.AddIssueComment(pr.Base, pr.Number, "maintainer", comment["body"].(string))
	ev["issue"].(map[string]any)["number"] = pr.Number
	comment["author_association"] = association
	comment["id"] = c.GetID()
	b, _ := json.Marshal(ev)
	return b, c.GetID()
}

func TestDeletedPRIsDropped(t *testing.T) {
	h, _, payload := serveSeed001(t)
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCompare, Status: http.StatusNotFound, Body: `{"message":"Not Found"}`})
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if !strings.Contains(h.logs.String(), "outcome=dropped") {
		t.Fatalf("a 404 did not drop the job:\n%s", h.logs.String())
	}
	if n := len(h.sleeper.Waits()); n != 0 {
		t.Fatalf("a 404 was retried %d times", n)
	}
}

func TestTruncatedTreeFallsBackToDirectoryListings(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.TruncateTreesOver = 10
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	got := h.posted(pr)
	want := readFile(t, "testdata/golden/seed001.posted.md")
	if got != string(want) {
		t.Fatalf("per-directory reads changed the review:\n%s", got)
	}
	nonRecursive := 0
	for _, c := range h.fake.CallsTo(fakegithub.RouteTree) {
		if c.Query.Get("recursive") == "" {
			nonRecursive++
		}
	}
	if nonRecursive == 0 {
		t.Fatal("no per-directory tree calls after truncation")
	}
}

// TestWarmReviewCallBudget: with the base repository cached, reviewing a
// new push costs at most 10 GitHub calls (SPEC §9).
func TestWarmReviewCallBudget(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	fx, err := trees.LoadFixture(context.Background(), fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	head, err := h.fake.Push(context.Background(), pr, headVariant(fx.Head, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	h.fake.ResetCalls()
	h.deliver("pull_request", withHead(t, withAction(t, payload, "synchronize"), head), http.StatusAccepted)
	h.wait()
	var routes []string
	for _, c := range h.fake.Calls() {
		routes = append(routes, c.Route)
	}
	if len(routes) > 10 {
		t.Fatalf("warm re-review made %d calls:\n%s", len(routes), strings.Join(routes, "\n"))
	}
	t.Logf("warm re-review: %d calls\n%s", len(routes), strings.Join(routes, "\n"))
}

// TestPrivateForkFallsBackToTheBaseRepository: the App may not read the
// fork, but GitHub keeps the PR's head in the base repository.
func TestPrivateForkFallsBackToTheBaseRepository(t *testing.T) {
	h := newHarness(t)
	pr, payload := h.servePayload(payloadPath("fork.pull_request.opened.json"), "sh003-seed001-lmcache-arm")
	h.fake.Locked(func() { pr.Head.Private = true })
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	reviews := h.fake.Reviews(pr.Base, pr.Number)
	if len(reviews) != 1 || len(reviews[0].Comments) != 3 {
		t.Fatalf("review of a PR from an unreadable fork: %+v\n%s", reviews, h.logs.String())
	}
}

// TestOmittedPatchesAreComputed: GitHub leaves out the patch of large
// diffs; the App diffs the two versions itself and reviews the same.
func TestOmittedPatchesAreComputed(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.fake.OmitPatchOver = 1
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if got, want := h.posted(pr), string(readFile(t, "testdata/golden/seed001.posted.md")); got != want {
		t.Fatalf("without patches the review differs:\n%s", got)
	}
}

// TestSummaryWithoutItsReviewPostsTheReview: a replica that stopped after
// posting the summary and before the review leaves a summary that says its
// findings are inline; the next review of the same head posts them inline,
// once, rather than trusting the summary.
func TestSummaryWithoutItsReviewPostsTheReview(t *testing.T) {
	first, fpr, payload := serveSeed001(t)
	first.deliver("pull_request", payload, http.StatusAccepted)
	first.wait()
	body := summaryOf(t, first, fpr)
	var claimed []string
	for _, f := range reviewer.ParseSummaryFindings(body) {
		if !f.InSummary {
			claimed = append(claimed, f.Fingerprint)
		}
	}
	if len(claimed) == 0 {
		t.Fatal("the fixture's summary lists no inline finding")
	}

	h, pr, payload := serveSeed001(t)
	h.fake.AddIssueComment(pr.Base, pr.Number, h.fake.BotLogin(), body)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	inline := map[string]int{}
	for _, rv := range h.fake.Reviews(pr.Base, pr.Number) {
		for _, c := range rv.Comments {
			if _, fp, ok := reviewer.ParseFindingMarker(c.GetBody()); ok {
				inline[fp]++
			}
		}
	}
	for _, fp := range claimed {
		if inline[fp] != 1 {
			t.Errorf("finding %s the summary calls inline has %d inline comments, want 1", fp, inline[fp])
		}
	}
	summaryOf(t, h, pr) // still exactly one, edited in place
}
