package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// The four kinds of review a PR gets, as the App's GitHub traffic goes:
// the first on a replica that just started (no token, no caches), the
// first of a PR on a replica that has been reviewing others, a review of a
// push, and a review of a head already reviewed (a redelivered event).
const (
	kindFresh     = "first review on a fresh replica (warmed before ready)"
	kindFreshCold = "first review on a fresh replica that did not warm"
	kindWarm      = "first review of a PR on a warm replica"
	kindPush      = "push to a new head"
	kindSame      = "same head again"
)

var reviewKinds = []string{kindFresh, kindFreshCold, kindWarm, kindPush, kindSame}

// kindSample is one review: the GitHub calls it made (every request the
// fake answered while it ran, the tarball's download included), how many
// of them were a fresh process's setup (the installation token and the
// App's slug, asked once an hour and once a process), and how long it
// took from the delivery until its job ended.
type kindSample struct {
	calls, setup int
	elapsed      time.Duration
	routes       []string
	phases       [3]time.Duration // phaseNames' order
	title        string           // the PR's
}

// review is the calls of the review itself, the process's setup left out.
func (s kindSample) review() int { return s.calls - s.setup }

// replayStream reviews every PR of stream five ways (see reviewKinds)
// against h's fake and returns the samples by kind. A fresh replica is a
// new Server with new credentials, one per PR: one that warms the
// repository before it is ready (as deployed; its setup calls are made
// while warming), one that does not; the warm replica is one Server that
// reviews the whole stream, warmed by one review first.
// progress, if set, is called after every PR.
func replayStream(t *testing.T, h *harness, stream []func(int) fakegithub.PRSpec, progress func(map[string][]kindSample)) map[string][]kindSample {
	ctx := context.Background()
	out := map[string][]kindSample{}
	var title string
	measure := func(kind string, deliver func()) {
		h.fake.ResetCalls()
		before := phaseSums(t, h.srv.metrics)
		start := time.Now()
		deliver()
		waitIdle(t, h)
		s := kindSample{elapsed: time.Since(start), title: title}
		after := phaseSums(t, h.srv.metrics)
		for i := range s.phases {
			s.phases[i] = after[i] - before[i]
		}
		for _, c := range h.fake.Calls() {
			s.calls++
			s.routes = append(s.routes, c.Route)
			if c.Route == fakegithub.RouteAccessToken || c.Route == "GET /app" {
				s.setup++
			}
		}
		out[kind] = append(out[kind], s)
	}
	addPR := func(spec fakegithub.PRSpec, number int) *fakegithub.PR {
		spec.Number = number
		pr, err := h.fake.AddPR(ctx, spec)
		if err != nil {
			t.Fatalf("PR %d: %v", number, err)
		}
		return pr
	}
	warm := newReplica(t, h)
	useReplica(h, warm)
	warmup := addPR(stream[0](1), 199999)
	h.deliver("pull_request", prPayload(t, h, warmup, "opened"), http.StatusAccepted)
	waitIdle(t, h)
	for i, next := range stream {
		spec := next(i + 1)
		title = spec.Title
		// A fresh replica as deployed warms the repository's default
		// branch before it is ready. The branch is where the previous PR
		// was opened against (the one before this PR's merge base).
		fresh := newReplica(t, h, warmOn(spec.Repo))
		for fresh.warming() {
			time.Sleep(2 * time.Millisecond)
		}
		useReplica(h, fresh)
		first := addPR(spec, 100000+i)
		// Codeload has the merge base's archive ready; the fake's gzip
		// of it is not GitHub's latency (the injected delay is).
		if err := h.fake.PrepareArchive(first.Base, first.BaseSHA); err != nil {
			t.Fatal(err)
		}
		measure(kindFresh, func() { h.deliver("pull_request", prPayload(t, h, first, "opened"), http.StatusAccepted) })
		shutdownReplica(fresh)

		cold := newReplica(t, h, warmOn())
		useReplica(h, cold)
		coldPR := addPR(spec, 300000+i)
		measure(kindFreshCold, func() { h.deliver("pull_request", prPayload(t, h, coldPR, "opened"), http.StatusAccepted) })
		shutdownReplica(cold)

		useReplica(h, warm)
		pr := addPR(spec, 200000+i)
		measure(kindWarm, func() { h.deliver("pull_request", prPayload(t, h, pr, "opened"), http.StatusAccepted) })
		if _, err := h.fake.Push(ctx, pr, pushedHead(t, spec.Base, spec.Head, i), ""); err != nil {
			t.Fatal(err)
		}
		measure(kindPush, func() { h.deliver("pull_request", prPayload(t, h, pr, "synchronize"), http.StatusAccepted) })
		measure(kindSame, func() { h.deliver("pull_request", prPayload(t, h, pr, "synchronize"), http.StatusAccepted) })
		for _, p := range []*fakegithub.PR{first, coldPR, pr} {
			if len(h.fake.Statuses(p.Base, p.HeadSHA)) == 0 {
				t.Fatalf("PR %d (%s): no status", p.Number, spec.Title)
			}
		}
		if progress != nil {
			progress(out)
		}
	}
	return out
}

// waitIdle waits for h's server to finish its jobs: a review on a cold
// replica at GitHub's latency takes longer than harness.wait allows.
func waitIdle(t *testing.T, h *harness) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for h.srv.dispatch.Backlog() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("jobs still running after 10 minutes")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// newReplica is a new Server of h's configuration with new credentials
// (a token exchange to come) and empty caches.
func newReplica(t *testing.T, h *harness, opts ...harnessOption) *Server {
	t.Helper()
	cfg := h.srv.cfg
	cfg.Metrics = metrics.New()
	for _, o := range opts {
		o(&cfg)
	}
	chain := ghapi.TransportChain(nil, testPolicy(h.sleeper), cfg.Metrics, cfg.Logger)
	auth, err := ghapi.NewAppAuth(h.fake.AppID, appKey(t), h.fake.APIURL(), chain, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clients = ghapi.NewAppClients(auth, h.fake.APIURL(), chain)
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The cleanup holds the replica only until it is shut down: a replay
	// starts two replicas per PR, each with its own caches.
	open := &openReplica{srv: srv}
	openReplicas.Store(srv, open)
	t.Cleanup(func() {
		if srv := open.take(); srv != nil {
			shutdownReplica(srv)
		}
	})
	return srv
}

// openReplica is a replica newReplica started and nobody shut down yet.
type openReplica struct {
	mu  sync.Mutex
	srv *Server
}

func (o *openReplica) take() *Server {
	o.mu.Lock()
	defer o.mu.Unlock()
	srv := o.srv
	o.srv = nil
	return srv
}

var openReplicas sync.Map // *Server → *openReplica

// useReplica routes h's deliveries to srv.
func useReplica(h *harness, srv *Server) {
	h.srv = srv
	h.http.Config.Handler = srv.Handler()
}

// shutdownReplica shuts srv down and lets go of it.
func shutdownReplica(srv *Server) {
	if o, ok := openReplicas.LoadAndDelete(srv); ok {
		o.(*openReplica).take()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// pushedHead is head with one more line in one of the files the PR
// changes (a text file if it has one), as an author's next push.
func pushedHead(t *testing.T, base, head checks.Tree, i int) checks.Tree {
	t.Helper()
	ctx := context.Background()
	ch, err := trees.DiffChange(ctx, base, head) // a submodule is named, not an error
	if err != nil {
		t.Fatal(err)
	}
	var first, text string
	for _, f := range ch.Files {
		if f.Status == checks.Deleted || f.Binary {
			continue
		}
		if _, err := head.ReadFile(ctx, f.Path); err != nil {
			continue // a submodule
		}
		if first == "" {
			first = f.Path
		}
		switch path.Ext(f.Path) {
		case ".sh", ".yaml", ".yml", ".md", ".py":
			if text == "" {
				text = f.Path
			}
		}
	}
	target := text
	if target == "" {
		target = first
	}
	if target == "" {
		target = "push.txt" // a PR that only deletes: the push adds a file
	}
	body, _ := head.ReadFile(ctx, target)
	body = append(body, fmt.Sprintf("\n# push %d\n", i)...)
	return &pushedTree{Overlay: &trees.Overlay{Lower: head, Upper: checks.NewMemTree(map[string]string{target: string(body)})},
		head: head, path: target, body: body}
}

// pushedTree is a head with one file changed that reads in bulk as the
// head does: a git tree's bulk read leaves out what has no content (a
// submodule), as GitHub's listing does.
type pushedTree struct {
	*trees.Overlay
	head checks.Tree
	path string
	body []byte
}

func (p *pushedTree) ReadFiles(ctx context.Context, paths []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if br, ok := p.head.(checks.BulkReader); ok {
		got, err := br.ReadFiles(ctx, paths)
		if err != nil {
			return nil, err
		}
		out = got
	} else {
		for _, q := range paths {
			if b, err := p.head.ReadFile(ctx, q); err == nil {
				out[q] = b
			}
		}
	}
	out[p.path] = p.body
	return out, nil
}

// fixtureStream is n fixture PRs of testdata/prs (every fixture, in name
// order, round robin), each against its own base.
func fixtureStream(t *testing.T, n int) []func(int) fakegithub.PRSpec {
	dirs, err := filepath.Glob(filepath.Join(fixturesRoot, "*", "pr.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	sort.Strings(dirs)
	// Spread the picks over the whole set: neighbours share a rule.
	step := max(1, len(dirs)/n)
	var out []func(int) fakegithub.PRSpec
	for i := 0; len(out) < n; i += step {
		fx, err := trees.LoadFixture(context.Background(), filepath.Dir(dirs[i%len(dirs)]))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, func(number int) fakegithub.PRSpec {
			return fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: number, Base: fx.Base, Head: fx.Head,
				Title: fx.PR.Title, Body: fx.PR.Body, Labels: fx.PR.Labels}
		})
	}
	return out
}

// TestReviewCallBudgets holds each kind of review to its GitHub call
// budget (issue 18: at most 12 calls at p95, a push at most 8), on a
// stream of fixture PRs: every call of the review, the tarball's download
// included; a fresh process's token exchange and App lookup are its own
// (and its first review's, two more). Calls are deterministic; time is
// not measured.
func TestReviewCallBudgets(t *testing.T) {
	h := newHarness(t)
	h.install("SemiAnalysisAI/InferenceX")
	samples := replayStream(t, h, fixtureStream(t, 8), nil)
	budgets := map[string]int{kindFresh: 12, kindFreshCold: 12, kindWarm: 12, kindPush: 8, kindSame: 8}
	for _, kind := range reviewKinds {
		for i, s := range samples[kind] {
			budget := budgets[kind]
			if kind == kindPush && slices.Contains(s.routes, fakegithub.RouteCreateReview) {
				// A push that brings new findings posts them: the review
				// itself is the one call more a push can need.
				budget++
			}
			if s.review() > budget {
				t.Errorf("%s, PR %d: %d calls, over the budget of %d:\n%s", kind, i, s.review(), budget, strings.Join(s.routes, "\n"))
			}
			switch {
			case kind == kindFreshCold && s.setup != 2:
				t.Errorf("%s, PR %d: %d setup calls, want the token and the App", kind, i, s.setup)
			case kind == kindFresh && s.setup != 0:
				t.Errorf("%s, PR %d: %d setup calls, want none (warming made them)", kind, i, s.setup)
			}
		}
	}
	t.Log("\n" + kindTable(samples))
}

// TestReplayLatency streams PRs through the App against the fake GitHub
// with GitHub's latency injected (REVIEWBOT_REPLAY_READ_MS per read,
// default 100; REVIEWBOT_REPLAY_WRITE_MS per write, default 300) and
// reports the calls and latency of each kind of review, median and p95.
// By default it streams a few fixture PRs; on the real repository's
// history:
//
//	REVIEWBOT_REPLAY_REPO=/work/.mirror/SemiAnalysisAI+InferenceX/repo REVIEWBOT_REPLAY_N=100 \
//	  go test ./app -run TestReplayLatency -v -timeout 2h
//
// REVIEWBOT_REPLAY_OUT names a file for the table.
func TestReplayLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("a replay with injected latency")
	}
	envMS := func(name string, def int) time.Duration {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
			return time.Duration(v) * time.Millisecond
		}
		return time.Duration(def) * time.Millisecond
	}
	read, write := envMS("REVIEWBOT_REPLAY_READ_MS", 100), envMS("REVIEWBOT_REPLAY_WRITE_MS", 300)
	if os.Getenv("GOGC") == "" {
		// The collector works as hard as in `reviewbot serve`.
		defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	}
	stream := fixtureStream(t, 3)
	if repo := os.Getenv("REVIEWBOT_REPLAY_REPO"); repo != "" {
		n, _ := strconv.Atoi(os.Getenv("REVIEWBOT_REPLAY_N"))
		if n <= 0 {
			n = 100
		}
		stream = soakHistory(t, repo, n)
	}
	h := newHarness(t)
	h.install("SemiAnalysisAI/InferenceX")
	isRead := func(r *http.Request) bool { return r.Method == http.MethodGet || r.Method == http.MethodHead }
	h.fake.Inject(&fakegithub.Fault{Delay: read, Match: func(r *http.Request, _ []byte) bool { return isRead(r) }})
	h.fake.Inject(&fakegithub.Fault{Delay: write, Match: func(r *http.Request, _ []byte) bool { return !isRead(r) }})
	report := func(samples map[string][]kindSample) string {
		table := fmt.Sprintf("%d PRs, %v per read, %v per write\n%s", len(samples[kindFresh]), read, write, kindTable(samples))
		if out := os.Getenv("REVIEWBOT_REPLAY_OUT"); out != "" {
			if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return table
	}
	samples := replayStream(t, h, stream, func(s map[string][]kindSample) { report(s) })
	t.Log("\n" + report(samples))
}

// kindTable is the calls and latency of each kind, median and p95, and
// the routes the p95 review of each kind called.
func kindTable(samples map[string][]kindSample) string {
	var b strings.Builder
	b.WriteString("| review | calls: median / p95 (max) | without a fresh process's setup: median / p95 | latency: median / p95 |\n|---|---|---|---|\n")
	for _, kind := range reviewKinds {
		s := samples[kind]
		if len(s) == 0 {
			continue
		}
		calls, review := make([]int, len(s)), make([]int, len(s))
		lat := make([]time.Duration, len(s))
		for i, x := range s {
			calls[i], review[i], lat[i] = x.calls, x.review(), x.elapsed
		}
		sort.Ints(calls)
		sort.Ints(review)
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Fprintf(&b, "| %s | %d / %d (%d) | %d / %d | %.2f s / %.2f s |\n", kind, calls[len(calls)/2], calls[p95(len(calls))], calls[len(calls)-1],
			review[len(review)/2], review[p95(len(review))], lat[len(lat)/2].Seconds(), lat[p95(len(lat))].Seconds())
	}
	b.WriteString("\n| review | read: median / p95 | rules: median / p95 | write: median / p95 |\n|---|---|---|---|\n")
	for _, kind := range reviewKinds {
		s := samples[kind]
		if len(s) == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s |", kind)
		for i := range phaseNames {
			d := make([]time.Duration, len(s))
			for j, x := range s {
				d[j] = x.phases[i]
			}
			slices.Sort(d)
			fmt.Fprintf(&b, " %.2f s / %.2f s |", d[len(d)/2].Seconds(), d[p95(len(d))].Seconds())
		}
		b.WriteString("\n")
	}
	for _, kind := range reviewKinds {
		s := append([]kindSample(nil), samples[kind]...)
		if len(s) == 0 {
			continue
		}
		sort.Slice(s, func(i, j int) bool { return s[i].elapsed > s[j].elapsed })
		fmt.Fprintf(&b, "\n%s, the slowest reviews (read / rules / write):\n", kind)
		for _, x := range s[:min(len(s), 5)] {
			fmt.Fprintf(&b, "- %.2f s (%.2f / %.2f / %.2f): %s\n", x.elapsed.Seconds(), x.phases[0].Seconds(), x.phases[1].Seconds(), x.phases[2].Seconds(), x.title)
		}
	}
	for _, kind := range reviewKinds {
		s := append([]kindSample(nil), samples[kind]...)
		if len(s) == 0 {
			continue
		}
		sort.Slice(s, func(i, j int) bool { return s[i].calls < s[j].calls })
		counts := map[string]int{}
		for _, r := range s[p95(len(s))].routes {
			counts[r]++
		}
		var parts []string
		for r, n := range counts {
			parts = append(parts, fmt.Sprintf("%d× %s", n, r))
		}
		sort.Strings(parts)
		fmt.Fprintf(&b, "\n%s, the p95 review's calls: %s\n", kind, strings.Join(parts, "; "))
	}
	return b.String()
}

// phaseSums is the time m's reviews spent in each phase so far, in
// phaseNames' order.
func phaseSums(t *testing.T, m *metrics.Metrics) (d [3]time.Duration) {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "reviewbot_review_phase_seconds" {
			continue
		}
		for _, metric := range f.GetMetric() {
			for _, l := range metric.GetLabel() {
				if i := slices.Index(phaseNames, l.GetValue()); l.GetName() == "phase" && i >= 0 {
					d[i] = time.Duration(metric.GetHistogram().GetSampleSum() * float64(time.Second))
				}
			}
		}
	}
	return d
}

// p95 is the index of the 95th percentile of n sorted values.
func p95(n int) int { return min(n-1, (n*95+99)/100-1) }

// reviewRuns counts the review runs the fake saw: each begins by listing
// the PR's files, from the comparison that names the merge base (a new
// head) or from the files API (a merge base known).
func reviewRuns(fake *fakegithub.Server) int {
	return len(fake.CallsTo(fakegithub.RouteCompare)) + len(fake.CallsTo(fakegithub.RouteFiles))
}

// TestPostsOverlap checks the order of a first review's writes: the
// review, the summary and the status are posted together (none needs
// another; the status links to the PR, the summary's link being unknown
// yet), and the welcome is out before them.
func TestPostsOverlap(t *testing.T) {
	h := newHarness(t)
	pr, payload := h.servePayload(payloadPath("seed004.pull_request.opened.json"), "cl-seed004-copied-number")
	isSummary := func(_ *http.Request, body []byte) bool { return reviewer.ParseSummaryMarker(commentBody(t, body)) }
	met := holdTogether(h.fake, fakegithub.Fault{Route: fakegithub.RouteCreateComment, Match: isSummary},
		fakegithub.Fault{Route: fakegithub.RouteCreateReview}, fakegithub.Fault{Route: fakegithub.RouteCreateStatus})
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if !met() {
		t.Fatal("the summary, the review and the status were not posted together")
	}
	var welcome, summary, review, status *fakegithub.Call
	for _, c := range h.fake.Calls() {
		switch {
		case c.Route == fakegithub.RouteCreateComment && reviewer.HasWelcomeMarker(commentBody(t, c.Body)):
			welcome = &c
		case c.Route == fakegithub.RouteCreateComment && isSummary(nil, c.Body):
			summary = &c
		case c.Route == fakegithub.RouteCreateReview:
			review = &c
		case c.Route == fakegithub.RouteCreateStatus:
			status = &c
		}
	}
	if welcome == nil || summary == nil || review == nil || status == nil {
		t.Fatalf("want a welcome, a summary, a review and a status; got %v %v %v %v", welcome, summary, review, status)
	}
	if welcome.End.After(summary.Start) || welcome.End.After(review.Start) || welcome.End.After(status.Start) {
		t.Error("the welcome was not out before the review, the summary and the status")
	}
	var event github.PullRequestEvent
	if err := json.Unmarshal(payload, &event); err != nil {
		t.Fatal(err)
	}
	page := event.GetPullRequest().GetHTMLURL()
	if st := h.fake.Statuses(pr.Base, pr.HeadSHA); page == "" || len(st) != 1 || st[0].GetTargetURL() != page {
		t.Errorf("the status should link to the PR's page %q: %+v", page, st)
	}
	if got := h.fake.IssueComments(pr.Base, pr.Number); len(got) != 2 || !reviewer.HasWelcomeMarker(got[0].GetBody()) {
		t.Fatalf("want the welcome, then the summary; got %d comments", len(got))
	}
}

// commentBody is the body of a comment's POST.
func commentBody(t *testing.T, body []byte) string {
	var c struct{ Body string }
	if err := json.Unmarshal(body, &c); err != nil {
		t.Errorf("comment POST body: %v", err)
	}
	return c.Body
}

// holdTogether holds the first request matching each fault until every
// one has arrived (up to 5 s). met reports whether all met: requests made
// one after another cannot.
func holdTogether(fake *fakegithub.Server, faults ...fakegithub.Fault) (met func() bool) {
	var all sync.WaitGroup
	all.Add(len(faults))
	allIn := make(chan struct{})
	go func() { all.Wait(); close(allIn) }()
	var n atomic.Int32
	for i := range faults {
		var once sync.Once
		f := faults[i]
		f.Before = func() {
			first := false
			once.Do(func() { all.Done(); first = true })
			if !first {
				return
			}
			select {
			case <-allIn:
				n.Add(1)
			case <-time.After(5 * time.Second):
			}
		}
		fake.Inject(&f)
	}
	return func() bool { return int(n.Load()) == len(faults) }
}

// TestPushEditsSummaryWithStatus: on a review of a push the summary is
// edited in place, so its link is known and the status is set while the
// summary is edited, not after.
func TestPushEditsSummaryWithStatus(t *testing.T) {
	h, pr, payload, fx := reviewedSeed001(t)
	head, err := h.fake.Push(context.Background(), pr, pushedHead(t, fx.Base, fx.Head, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	met := holdTogether(h.fake, fakegithub.Fault{Route: fakegithub.RouteEditComment}, fakegithub.Fault{Route: fakegithub.RouteCreateStatus})
	h.deliver("pull_request", withHead(t, withAction(t, payload, "synchronize"), head), http.StatusAccepted)
	h.wait()
	if !met() {
		t.Fatal("the status waited for the summary's edit")
	}
	if st := h.fake.Statuses(pr.Base, head); len(st) != 1 || !strings.Contains(st[0].GetTargetURL(), "issuecomment") {
		t.Fatalf("status on the new head: %+v", st)
	}
}
