package app

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// The end-to-end test of several replicas: `reviewbot serve` processes
// built from this repository, sharing one redis-server and one fake
// GitHub API (in this process, on loopback), driven by signed deliveries
// over HTTP as GitHub sends them.

const e2eLeaseTTL = 2 * time.Second

// serveProc is one `reviewbot serve` process.
type serveProc struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	url  string
	logs *syncBuffer
	done chan struct{}
}

// buildReviewbot builds the binary into dir.
func buildReviewbot(t *testing.T, dir string) string {
	t.Helper()
	// The go command on PATH (.ci/run puts /usr/local/go/bin there).
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH to build the binary: %v", err)
	}
	bin := filepath.Join(dir, "reviewbot")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/reviewbot")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var outcomeRE = regexp.MustCompile(`"msg":"webhook delivery".*?"outcome":"([^"]+)"`)

var servingRE = regexp.MustCompile(`"msg":"reviewbot serving".*?"addr":"([^"]+)"`)

// startServe starts a replica and waits until it listens.
func startServe(t *testing.T, name, bin string, env []string) *serveProc {
	t.Helper()
	sp := &serveProc{t: t, name: name, logs: &syncBuffer{}, done: make(chan struct{})}
	sp.cmd = exec.Command(bin, "serve")
	sp.cmd.Env = append(os.Environ(), env...)
	stderr, err := sp.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		defer close(sp.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			sp.logs.Write([]byte(line + "\n"))
			if m := servingRE.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_ = sp.cmd.Wait()
	}()
	t.Cleanup(func() {
		sp.kill()
		if t.Failed() {
			t.Logf("%s log (last 30 KB):\n%s", name, tail(sp.logs.String(), 30<<10))
		}
	})
	select {
	case a := <-addr:
		sp.url = "http://" + a
	case <-sp.done:
		t.Fatalf("%s exited:\n%s", name, sp.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start:\n%s", name, sp.logs.String())
	}
	return sp
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// kill ends the process with SIGKILL (a crash: no drain, no release).
func (sp *serveProc) kill() {
	select {
	case <-sp.done:
		return
	default:
	}
	_ = sp.cmd.Process.Signal(syscall.SIGCONT) // a stopped process cannot die otherwise
	_ = sp.cmd.Process.Kill()
	<-sp.done
}

func (sp *serveProc) pid() int { return sp.cmd.Process.Pid }

// metric reads one sample (name with its labels, as /metrics prints it)
// from the replica's /metrics; a sample not printed yet is 0.
func (sp *serveProc) metric(sample string) (float64, error) {
	resp, err := http.Get(sp.url + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, sc.Err()
}

// queued is the replica's reviewbot_jobs_queued.
func (sp *serveProc) queued() (int, error) {
	f, err := sp.metric("reviewbot_jobs_queued")
	return int(f), err
}

// e2e is the shared setup: Redis, the fake API, the binary.
type e2e struct {
	t     *testing.T
	redis *redistest.Proc
	rc    *redis.Client
	fake  *fakegithub.Server
	bin   string
	env   []string
	fx    *trees.Fixture
	reg   *checks.Registry
}

func newE2E(t *testing.T) *e2e {
	t.Helper()
	e := &e2e{t: t, redis: redistest.Start(t)}
	e.rc = e.redis.Client()
	dir := t.TempDir()
	e.bin = buildReviewbot(t, dir)
	e.fake = fakegithub.New()
	t.Cleanup(e.fake.Close)
	key := appKey(t)
	e.fake.SetAppKey(&key.PublicKey)
	keyFile := filepath.Join(dir, "app-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = []string{
		"GITHUB_APP_ID=" + strconv.FormatInt(e.fake.AppID, 10), "GITHUB_APP_PRIVATE_KEY_FILE=" + keyFile,
		"GITHUB_WEBHOOK_SECRET=" + testSecret, "GITHUB_API_URL=" + e.fake.APIURL(), "GITHUB_TOKEN=",
		"REVIEWBOT_ADDR=127.0.0.1:0", "REVIEWBOT_LOG_FORMAT=json", "REVIEWBOT_WORKERS=4",
		"REVIEWBOT_REDIS_URL=" + e.redis.URL, "REVIEWBOT_REDIS_LEASE_TTL=" + e2eLeaseTTL.String(),
		"REVIEWBOT_REDIS_BLOB_CACHE_MB=64",
	}
	var err error
	if e.fx, err = trees.LoadFixture(context.Background(), fixturesRoot+"/sh003-seed001-lmcache-arm"); err != nil {
		t.Fatal(err)
	}
	if e.reg, err = all.Registry(); err != nil {
		t.Fatal(err)
	}
	e.fake.Install(installID, e.fx.PR.RepoSlug())
	return e
}

// variant is revision v of PR number: the fixture's head (findings SH001
// and SH003) for even v, its base (none) for odd v, with a line of its own
// so every revision is a distinct commit.
func (e *e2e) variant(number, v int) checks.Tree {
	if v%2 == 1 {
		return headVariant(e.fx.Base, number*10+v)
	}
	return headVariant(e.fx.Head, number*10+v)
}

func (e *e2e) addPR(number int) *fakegithub.PR {
	pr, err := e.fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: e.fx.PR.RepoSlug(), Number: number,
		Base: e.fx.Base, Head: e.variant(number, 0), Title: e.fx.PR.Title, Author: e.fx.PR.Author, Labels: e.fx.PR.Labels})
	if err != nil {
		e.t.Fatal(err)
	}
	return pr
}

func (e *e2e) payload(pr *fakegithub.PR, action string) []byte {
	ev := map[string]any{"action": action, "number": pr.Number}
	if action == "labeled" {
		ev["label"] = map[string]any{"name": "full-sweep-fail-fast"}
	}
	raw, _ := json.Marshal(ev)
	b, err := e.fake.RewritePayload(context.Background(), raw, pr, installID)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// send posts a signed delivery and returns the status.
func send(url, event, id string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Hub-Signature-256", Sign(body, []byte(testSecret)))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// idle waits until the replicas have nothing queued and Redis holds no
// pending work or lease, three looks in a row.
func (e *e2e) idle(timeout time.Duration, procs ...*serveProc) {
	e.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(timeout)
	calm := 0
	for calm < 3 {
		if time.Now().After(deadline) {
			pending, _ := e.rc.ZRange(ctx, "reviewbot:pending", 0, -1).Result()
			e.t.Fatalf("replicas still busy after %v; pending in Redis: %v", timeout, pending)
		}
		time.Sleep(100 * time.Millisecond)
		busy := false
		for _, sp := range procs {
			if n, err := sp.queued(); err != nil || n > 0 {
				busy = true
			}
		}
		if n, _ := e.rc.ZCard(ctx, "reviewbot:pending").Result(); n > 0 {
			busy = true
		}
		if keys, _ := e.rc.Keys(ctx, "reviewbot:lease:*").Result(); len(keys) > 0 {
			busy = true
		}
		if busy {
			calm = 0
		} else {
			calm++
		}
	}
}

// expected is what a review of PR pr at head tree must report: the
// findings' fingerprints and the commit status.
func (e *e2e) expected(pr *fakegithub.PR, head checks.Tree) (map[string]bool, reviewer.Status) {
	e.t.Helper()
	ctx := context.Background()
	files, err := trees.Diff(ctx, e.fx.Base, head)
	if err != nil {
		e.t.Fatal(err)
	}
	info := e.fx.PR
	info.Number = pr.Number
	ch := &checks.Change{Base: e.fx.Base, Head: head, Files: files, PR: info, Date: time.Now()}
	res, err := checks.Review(ctx, e.reg, ch)
	if err != nil {
		e.t.Fatal(err)
	}
	fps := map[string]bool{}
	for _, f := range res.Findings {
		fps[reviewer.Fingerprint(f)] = true
	}
	return fps, reviewer.BuildPlan(res.Findings, files, reviewer.PlanOptions{}).Status
}

// checkPR asserts what the replicas posted on one PR: one review per head
// at most, no comment twice, one welcome and one summary, one status per
// head at most and exactly one on the final head, and every finding of the
// final head reported.
func (e *e2e) checkPR(pr *fakegithub.PR, heads []string, final checks.Tree) {
	e.t.Helper()
	t := e.t
	where := fmt.Sprintf("PR #%d", pr.Number)
	perHead := map[string]int{}
	inline := map[string]int{}
	for _, rv := range e.fake.Reviews(pr.Base, pr.Number) {
		if rv.Review.GetState() == "PENDING" {
			t.Errorf("%s: a pending (probe) review was left behind", where)
			continue
		}
		perHead[rv.Review.GetCommitID()]++
		for _, c := range rv.Comments {
			_, fp, ok := reviewer.ParseFindingMarker(c.GetBody())
			if !ok {
				t.Errorf("%s: an inline comment without a finding marker", where)
			}
			inline[fp]++
		}
	}
	for head, n := range perHead {
		if n > 1 {
			t.Errorf("%s: %d reviews of head %.12s", where, n, head)
		}
	}
	for fp, n := range inline {
		if n > 1 {
			t.Errorf("%s: finding %s commented %d times", where, fp, n)
		}
	}
	var welcome int
	var summaries []string
	for _, c := range e.fake.IssueComments(pr.Base, pr.Number) {
		switch {
		case reviewer.HasWelcomeMarker(c.GetBody()):
			welcome++
		case reviewer.ParseSummaryMarker(c.GetBody()):
			summaries = append(summaries, c.GetBody())
		default:
			t.Errorf("%s: an unexpected comment: %.80q", where, c.GetBody())
		}
	}
	if welcome != 1 || len(summaries) != 1 {
		t.Errorf("%s: %d welcome and %d summary comments, want 1 and 1", where, welcome, len(summaries))
		return
	}
	for i, head := range heads {
		n := len(e.fake.Statuses(pr.Base, head))
		if n > 1 || (i == len(heads)-1 && n != 1) {
			t.Errorf("%s: %d statuses on head %d (%.12s) of %d", where, n, i, head, len(heads))
		}
	}
	want, status := e.expected(pr, final)
	got := map[string]bool{}
	for _, f := range reviewer.ParseSummaryFindings(summaries[0]) {
		got[f.Fingerprint] = true
		if !f.InSummary && inline[f.Fingerprint] == 0 {
			t.Errorf("%s: finding %s %s is said to be inline, but no inline comment carries it", where, f.Rule, f.Fingerprint)
		}
	}
	for fp := range want {
		if !got[fp] {
			t.Errorf("%s: finding %s of the final head is not reported (lost)", where, fp)
		}
	}
	for fp := range got {
		if !want[fp] {
			t.Errorf("%s: the summary reports %s, which the final head does not have", where, fp)
		}
	}
	if sts := e.fake.Statuses(pr.Base, heads[len(heads)-1]); len(sts) == 1 && sts[0].GetState() != status.State {
		t.Errorf("%s: status %s on the final head, want %s", where, sts[0].GetState(), status.State)
	}
}

// leaseOwnerPID is the pid of the process holding PR number's lease, or 0.
func (e *e2e) leaseOwnerPID(number int) int {
	v, err := e.rc.Get(context.Background(), fmt.Sprintf("reviewbot:lease:%s#%d", strings.ToLower(e.fx.PR.RepoSlug()), number)).Result()
	if err != nil {
		return 0
	}
	// A lease value is "<owner>/<token>".
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return 0
	}
	owner := v[:i]
	parts := strings.Split(owner, ":")
	if len(parts) < 3 {
		return 0
	}
	pid, _ := strconv.Atoi(parts[len(parts)-2])
	return pid
}

func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs several replicas")
	}
	parent := t
	e := newE2E(t)
	a := startServe(t, "replica-a", e.bin, e.env)
	b := startServe(t, "replica-b", e.bin, e.env)
	replicas := []*serveProc{a, b}

	t.Run("1000 deliveries for 50 PRs", func(t *testing.T) {
		e.t = t
		const prs, total = 50, 1000
		// A GitHub slow enough that reviews overlap the pushes and the
		// deliveries that follow them.
		e.fake.Inject(fakegithub.Slow(fakegithub.RouteFiles, 20*time.Millisecond))
		type event struct {
			id, event string
			body      []byte
			push      checks.Tree // pushed before the event is sent
		}
		type prPlan struct {
			pr     *fakegithub.PR
			events []*event
			heads  []string
			final  checks.Tree
		}
		plans := make([]*prPlan, prs)
		logical := 0
		for i := range prs {
			pr := e.addPR(1000 + i)
			p := &prPlan{pr: pr, heads: []string{pr.HeadSHA}, final: e.variant(pr.Number, 0)}
			p.events = append(p.events, &event{id: fmt.Sprintf("open-%d", pr.Number), event: "pull_request", body: e.payload(pr, "opened")},
				&event{id: fmt.Sprintf("label-%d", pr.Number), event: "pull_request", body: e.payload(pr, "labeled")})
			for v := 1; v <= i%3; v++ { // 0, 1 or 2 pushes
				p.events = append(p.events, &event{id: fmt.Sprintf("push-%d-%d", pr.Number, v), event: "pull_request", push: e.variant(pr.Number, v)})
				p.final = e.variant(pr.Number, v)
			}
			logical += len(p.events)
			plans[i] = p
		}
		// Every event is delivered several times: duplicates to the same
		// replica, redeliveries to the other, some of them late (after
		// later pushes).
		copies := make(map[*event]int)
		n := 0
		for n < total {
			for _, p := range plans {
				for _, ev := range p.events {
					if n < total {
						copies[ev]++
						n++
					}
				}
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		deliver := func(ev *event, k int, delay time.Duration) {
			defer wg.Done()
			time.Sleep(delay)
			sp := replicas[(k+len(ev.id))%2]
			code, err := send(sp.url, ev.event, ev.id, ev.body)
			if err != nil || (code != http.StatusAccepted && code != http.StatusOK) {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%s to %s: %d %v", ev.id, sp.name, code, err))
				mu.Unlock()
			}
		}
		for _, p := range plans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, ev := range p.events {
					time.Sleep(time.Duration(rand.IntN(60)) * time.Millisecond)
					if ev.push != nil {
						head, err := e.fake.Push(context.Background(), p.pr, ev.push, "")
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						p.heads = append(p.heads, head)
						mu.Unlock()
						ev.body = e.payload(p.pr, "synchronize")
					}
					for k := range copies[ev] {
						wg.Add(1)
						delay := time.Duration(0)
						if k > 0 {
							delay = time.Duration(rand.IntN(400)) * time.Millisecond
						}
						go deliver(ev, k, delay)
					}
				}
			}()
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Fatalf("%d deliveries were not acknowledged, e.g. %s", len(failures), failures[0])
		}
		e.idle(2*time.Minute, replicas...)
		for _, p := range plans {
			e.checkPR(p.pr, p.heads, p.final)
		}
		outcomes := map[string]int{}
		for _, sp := range replicas {
			for _, ev := range []string{"busy", "resumed"} {
				n, _ := sp.metric(`reviewbot_redis_events_total{event="` + ev + `"}`)
				outcomes[sp.name+" redis "+ev] = int(n)
			}
			for _, line := range strings.Split(sp.logs.String(), "\n") {
				if m := outcomeRE.FindStringSubmatch(line); m != nil {
					outcomes[sp.name+" "+m[1]]++
				}
			}
		}
		t.Logf("%d deliveries of %d events for %d PRs; %d review runs; outcomes %v", total, logical, prs,
			reviewRuns(e.fake), outcomes)
	})

	t.Run("a replica killed mid-review", func(t *testing.T) {
		e.t = t
		pr := e.addPR(4000)
		held := make(chan time.Time, 1)
		// The summary's POST of the first run is held: the welcome is
		// posted and the review (posted with the summary) too, the holder
		// is in the middle of the review.
		e.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCreateComment, Times: 1, Delay: time.Minute,
			Match: func(r *http.Request, body []byte) bool {
				if !strings.Contains(r.URL.Path, "/issues/4000/") || !bytes.Contains(body, []byte("reviewbot:summary")) {
					return false
				}
				held <- time.Now()
				return true
			}})
		if code, err := send(a.url, "pull_request", "kill-open", e.payload(pr, "opened")); err != nil || code != http.StatusAccepted {
			t.Fatalf("delivery: %d %v", code, err)
		}
		var heldAt time.Time
		select {
		case heldAt = <-held:
		case <-time.After(30 * time.Second):
			t.Fatal("the review never reached the summary")
		}
		holder, survivor := a, b
		switch e.leaseOwnerPID(pr.Number) {
		case a.pid():
		case b.pid():
			holder, survivor = b, a
		default:
			t.Fatal("the PR's lease is not held by a replica")
		}
		waitFor(t, 30*time.Second, func() bool { return len(e.fake.Reviews(pr.Base, pr.Number)) > 0 })
		if n := len(e.fake.Reviews(pr.Base, pr.Number)); n != 1 {
			t.Fatalf("%d reviews before the kill, want 1", n)
		}
		holder.kill()
		killedAt := time.Now()
		waitFor(t, 30*time.Second, func() bool { return len(e.fake.Statuses(pr.Base, pr.HeadSHA)) > 0 })
		e.idle(30*time.Second, survivor)
		e.checkPR(pr, []string{pr.HeadSHA}, e.variant(pr.Number, 0))
		if !strings.Contains(survivor.logs.String(), "resuming the work another replica left unfinished") {
			t.Error("the survivor did not log that it resumed the work")
		}
		// Nobody touched the PR while the dead replica's lease lived.
		for _, c := range e.fake.Calls() {
			if c.Start.After(killedAt) && (strings.Contains(c.Path, "/pulls/4000") || strings.Contains(c.Path, "/issues/4000")) && c.Start.Before(heldAt.Add(e2eLeaseTTL/2)) {
				t.Errorf("%s %s at %v, before the lease could expire", c.Method, c.Path, c.Start.Sub(heldAt))
			}
		}
		replicas = []*serveProc{survivor, startServe(parent, "replica-c", e.bin, e.env)}
	})

	t.Run("a stalled replica wakes up after losing its lease", func(t *testing.T) {
		e.t = t
		pr := e.addPR(4001)
		held := make(chan struct{}, 1)
		pulls := 0
		// The last look at the PR before posting is held; its replica is
		// then frozen (SIGSTOP) past the lease TTL.
		e.fake.Inject(&fakegithub.Fault{Route: fakegithub.RoutePull, Delay: 500 * time.Millisecond,
			Match: func(r *http.Request, _ []byte) bool {
				if !strings.HasSuffix(r.URL.Path, "/pulls/4001") {
					return false
				}
				pulls++
				if pulls != 2 {
					return false
				}
				held <- struct{}{}
				return true
			}})
		if code, err := send(replicas[0].url, "pull_request", "stall-open", e.payload(pr, "opened")); err != nil || code != http.StatusAccepted {
			t.Fatalf("delivery: %d %v", code, err)
		}
		select {
		case <-held:
		case <-time.After(30 * time.Second):
			t.Fatal("the review never reached its last look")
		}
		stalled, other := replicas[0], replicas[1]
		if e.leaseOwnerPID(pr.Number) == other.pid() {
			stalled, other = other, stalled
		}
		if err := stalled.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, func() bool { return len(e.fake.Statuses(pr.Base, pr.HeadSHA)) > 0 })
		e.idle(30*time.Second, other)
		if err := stalled.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		// The woken replica gets its answer, goes on with the review and
		// must find out before its first write.
		waitFor(t, 30*time.Second, func() bool { return strings.Contains(stalled.logs.String(), "lease lost") })
		e.idle(30*time.Second, stalled, other)
		e.checkPR(pr, []string{pr.HeadSHA}, e.variant(pr.Number, 0))
	})

	// A replica SIGKILLed while a batch of deliveries is arriving: a
	// request it never answered is retried on the other replica with the
	// same delivery id, as a load balancer (or GitHub's redelivery) does;
	// a 503 is retried after its Retry-After. Every PR is reviewed, once,
	// within about one lease period of the kill.
	t.Run("a replica killed mid-batch", func(t *testing.T) {
		e.t = t
		victim, survivor := replicas[0], replicas[1]
		var prs []*fakegithub.PR
		for i := range 10 {
			prs = append(prs, e.addPR(5000+i))
		}
		var wg sync.WaitGroup
		for i, pr := range prs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 25 * time.Millisecond)
				id, body := fmt.Sprintf("batch-%d", pr.Number), e.payload(pr, "opened")
				sp := []*serveProc{victim, survivor}[i%2]
				for try := 0; try < 40; try++ {
					code, err := send(sp.url, "pull_request", id, body)
					if err == nil && code < 300 {
						return
					}
					if err != nil {
						sp = survivor // the load balancer moves on
					}
					time.Sleep(500 * time.Millisecond)
				}
				t.Errorf("PR %d: never accepted", pr.Number)
			}()
		}
		time.Sleep(120 * time.Millisecond)
		victim.kill()
		killedAt := time.Now()
		wg.Wait()
		waitFor(t, e2eLeaseTTL+30*time.Second, func() bool {
			for _, pr := range prs {
				if len(e.fake.Statuses(pr.Base, pr.HeadSHA)) == 0 {
					return false
				}
			}
			return true
		})
		t.Logf("every PR reviewed %v after the kill", time.Since(killedAt).Round(10*time.Millisecond))
		e.idle(30*time.Second, survivor)
		for _, pr := range prs {
			e.checkPR(pr, []string{pr.HeadSHA}, e.variant(pr.Number, 0))
		}
	})
}
