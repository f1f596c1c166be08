package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// TestExpiredLeaseCannotPost runs the executor with a lease another
// replica took over: it posts nothing at all.
func TestExpiredLeaseCannotPost(t *testing.T) {
	p := redistest.Start(t)
	ctx := context.Background()
	h, pr, _ := serveSeed001(t)
	ttl := 300 * time.Millisecond
	a := newTestRedis(t, p, func(o *state.RedisOptions) { o.LeaseTTL = ttl })
	b := newTestRedis(t, p, func(o *state.RedisOptions) { o.LeaseTTL = ttl })
	key := "semianalysisai/inferencex#2232"
	la, _ := a.Locker().TryLock(ctx, key, nil)
	la.StopRenewing() // stalls
	var lb *state.RedisLease
	for lb == nil {
		time.Sleep(ttl / 5)
		lb, _ = b.Locker().TryLock(ctx, key, nil)
	}
	defer lb.Release(ctx)

	gh, err := h.srv.cfg.Clients.Installation(ctx, installID, pr.Base.Owner, pr.Base.Name)
	if err != nil {
		t.Fatal(err)
	}
	h.fake.ResetCalls()
	ex := &post.Executor{Log: h.srv.log, Clients: h.srv.cfg.Clients, Repo: &ghapi.Repo{Client: gh, Owner: pr.Base.Owner, Name: pr.Base.Name}, Number: pr.Number,
		Head: pr.HeadSHA, Lease: la, Login: "reviewbot-test[bot]"}
	plan := &reviewer.Plan{
		Inline:  []reviewer.InlineComment{{Path: "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh", Line: 2, Side: "RIGHT", Body: "x"}},
		Summary: "summary", Status: reviewer.Status{State: "failure", Description: "1 blocking finding"},
	}
	if err := ex.Execute(ctx, plan, nil); !errors.Is(err, state.ErrLeaseLost) {
		t.Fatalf("execute with an expired lease: %v, want ErrLeaseLost", err)
	}
	if err := ex.PostWelcome(ctx); !errors.Is(err, state.ErrLeaseLost) {
		t.Fatalf("welcome with an expired lease: %v", err)
	}
	for _, c := range h.fake.Calls() {
		if c.Method != http.MethodGet {
			t.Errorf("a replica whose lease expired wrote to GitHub: %s %s", c.Method, c.Path)
		}
	}
	if len(h.fake.Reviews(pr.Base, pr.Number)) != 0 || len(h.fake.IssueComments(pr.Base, pr.Number)) != 0 {
		t.Fatal("something was posted")
	}
}

func TestRedisWorkQueue(t *testing.T) {
	p := redistest.Start(t)
	ctx := context.Background()
	r := newTestRedis(t, p)
	c := p.Client()
	w := &sharedWork{r: r, dedup: r.Deliveries(), locker: r.Locker(), work: r.Work()}
	mk := func(id string, review, welcome bool, react ...int64) *job {
		j := newPRJob(7, "Org", "Repo", 5)
		j.req.review, j.req.welcome, j.req.reactTo = review, welcome, react
		j.deliveries = []*delivery{{id: id, event: "pull_request", action: "opened", received: time.UnixMilli(1000 + int64(len(id)))}}
		return j
	}
	if err := w.store(ctx, mk("d1", false, true, 11), time.Second); err != nil {
		t.Fatal(err)
	}
	if err := w.store(ctx, mk("d22", true, false, 12), time.Second); err != nil {
		t.Fatal(err)
	}
	key := "org/repo#5"
	if n, _ := c.ZCard(ctx, "reviewbot:pending").Result(); n != 1 {
		t.Fatalf("%d pending PRs, want 1", n)
	}
	lease, _ := w.locker.TryLock(ctx, key, nil)
	resumed, fields, err := w.work.Take(ctx, lease)
	if err != nil {
		t.Fatal(err)
	}
	j := jobOf(t, key, fields)
	if !j.req.review || !j.req.welcome || fmt.Sprint(j.req.reactTo) != "[11 12]" || len(j.deliveries) != 2 ||
		j.req.owner != "Org" || j.req.repo != "Repo" || j.req.number != 5 || j.req.installation != 7 {
		t.Fatalf("the union of the two deliveries is wrong: %+v, %d deliveries", j.req, len(j.deliveries))
	}
	if resumed {
		t.Fatal("fresh work reported as resumed")
	}
	// Work that arrives during the run is kept for the holder.
	if err := w.store(ctx, mk("d333", true, false), time.Second); err != nil {
		t.Fatal(err)
	}
	if more, err := w.work.Finish(ctx, lease); err != nil || !more {
		t.Fatalf("finish with new work waiting: %v %v", more, err)
	}
	_, fields, _ = w.work.Take(ctx, lease)
	if j := jobOf(t, key, fields); len(j.deliveries) != 1 || j.deliveries[0].id != "d333" || j.req.welcome {
		t.Fatalf("second run: %+v %v", j.req, j.deliveries)
	}
	if more, err := w.work.Finish(ctx, lease); err != nil || more {
		t.Fatalf("last finish: %v %v", more, err)
	}
	lease.StopRenewing()
	if n, _ := c.Exists(ctx, "reviewbot:lease:"+key, "reviewbot:work:"+key, "reviewbot:doing:"+key).Result(); n != 0 {
		t.Fatalf("%d keys left after the last run", n)
	}
	if n, _ := c.ZCard(ctx, "reviewbot:pending").Result(); n != 0 {
		t.Fatal("the PR is still pending")
	}
}

// TestRedisSweepResumesOrphanedWork: a holder dies mid-run; its work is
// invisible to the sweep while the lease lives, then resumed.
func TestRedisSweepResumesOrphanedWork(t *testing.T) {
	p := redistest.Start(t)
	ctx := context.Background()
	ttl := 400 * time.Millisecond
	a := newTestRedis(t, p, func(o *state.RedisOptions) { o.LeaseTTL = ttl })
	b := newTestRedis(t, p, func(o *state.RedisOptions) { o.LeaseTTL = ttl })
	wa := &sharedWork{r: a, locker: a.Locker(), work: a.Work()}
	wb := &sharedWork{r: b, locker: b.Locker(), work: b.Work()}
	j := newPRJob(1, "o", "r", 9)
	j.req.review = true
	j.deliveries = []*delivery{{id: "x", received: time.Now()}}
	if err := wa.store(ctx, j, time.Second); err != nil {
		t.Fatal(err)
	}
	sweep := func(r *state.Redis) []string {
		keys, err := r.Work().Unclaimed()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if got := sweep(b); fmt.Sprint(got) != "[o/r#9]" {
		t.Fatalf("sweep of unheld work: %v", got)
	}
	la, _ := wa.locker.TryLock(ctx, j.key, nil)
	if _, _, err := wa.work.Take(ctx, la); err != nil {
		t.Fatal(err)
	}
	la.StopRenewing() // the replica dies: no renewal, no finish
	if got := sweep(b); len(got) != 0 {
		t.Fatalf("the sweep offered held work: %v", got)
	}
	time.Sleep(ttl + ttl/2)
	if got := sweep(b); fmt.Sprint(got) != "[o/r#9]" {
		t.Fatalf("the sweep did not find the dead holder's work: %v", got)
	}
	lb, _ := wb.locker.TryLock(ctx, j.key, nil)
	resumed, fields, err := wb.work.Take(ctx, lb)
	if err != nil {
		t.Fatal(err)
	}
	if !resumed || !jobOf(t, j.key, fields).req.review {
		t.Fatalf("resumed work: %v", fields)
	}
	_ = lb.Release(ctx)

	// Work whose hash expired leaves pending at the next sweep.
	c := p.Client()
	c.ZAdd(ctx, "reviewbot:pending", redis.Z{Score: 1, Member: "gone/x#1"})
	sweep(b)
	if ok, _ := c.ZScore(ctx, "reviewbot:pending", "gone/x#1").Result(); ok != 0 {
		t.Fatal("a PR without work stayed pending")
	}
}

func jobOf(t *testing.T, key string, h map[string]string) *job {
	t.Helper()
	j, err := jobFromWire(key, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestWireCoversRequest fails when prRequest gains a field the work hash
// does not carry: a replica resuming the work would silently drop it.
func TestWireCoversRequest(t *testing.T) {
	carried := map[string]bool{"installation": true, "owner": true, "repo": true, "number": true,
		"review": true, "welcome": true, "reactTo": true, "labels": true, "commands": true, "signoffs": true, "help": true,
		"readHead": true, "baseChanged": true,
		"pr": true, // not carried on purpose: the runner reads the PR as it is then
	}
	typ := reflect.TypeOf(prRequest{})
	var missing []string
	for i := range typ.NumField() {
		if !carried[typ.Field(i).Name] {
			missing = append(missing, typ.Field(i).Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("prRequest fields %v are not in the Redis work hash (wireFields, jobFromWire in redis_work.go)", missing)
	}
	// And a round trip keeps every carried field.
	j := newPRJob(3, "A", "B", 4)
	j.req.review, j.req.welcome, j.req.labels, j.req.reactTo = true, true, true, []int64{1, 2}
	j.req.readHead, j.req.baseChanged = true, true
	j.req.commands = []*commandRequest{{commentID: 7}, {commentID: 9, deleted: true}}
	j.req.signoffs = []*gate.Request{
		{Source: "issue_comment", ID: 11, URL: "https://github.com/A/B/pull/4#issuecomment-11", Author: "owner1", Body: "As a PR reviewer and CODEOWNER ...", At: time.UnixMilli(100)},
		{Source: "pull_request_review", ID: 12, Author: "owner2", Body: "signed", At: time.UnixMilli(200), Commit: "abc", Gone: true},
	}
	j.req.help = []int64{21, 22}
	j.deliveries = []*delivery{{id: "d", event: "issue_comment", action: "created", received: time.UnixMilli(5)}}
	f := wireFields(j)
	h := map[string]string{}
	for i := 0; i < len(f); i += 2 {
		h[f[i].(string)] = f[i+1].(string)
	}
	back, err := jobFromWire(j.key, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	back.req.pr = nil
	if !reflect.DeepEqual(back.req, j.req) || back.deliveries[0].event != "issue_comment" || !back.deliveries[0].received.Equal(time.UnixMilli(5)) {
		t.Fatalf("round trip: %+v → %+v", j.req, back.req)
	}
}

func waitFor(t testing.TB, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSweepKickKeepsTheRequest: the sweep's request names only the PR's
// key; merged into a waiting job of this replica (not yet stored, Redis was
// down), the job keeps its repository and PR, so what it stores later can
// be run.
func TestSweepKickKeepsTheRequest(t *testing.T) {
	waiting := newPRJob(7, "Org", "Repo", 5)
	waiting.req.review = true
	kick := &job{key: waiting.key, req: &prRequest{}}
	if !kick.req.absorb(waiting.req) {
		t.Fatal("not merged")
	}
	if kick.req.owner != "Org" || kick.req.repo != "Repo" || kick.req.number != 5 || kick.req.installation != 7 || !kick.req.review {
		t.Fatalf("merged request %+v", kick.req)
	}
	kick.deliveries = []*delivery{{id: "x", received: time.UnixMilli(1)}}
	h := map[string]string{}
	f := wireFields(kick)
	for i := 0; i < len(f); i += 2 {
		h[f[i].(string)] = f[i+1].(string)
	}
	if _, err := jobFromWire(kick.key, h, nil); err != nil {
		t.Fatal(err)
	}
	// A request without a repository never blanks the stored one.
	if f := wireFields(&job{key: "k", req: &prRequest{}, deliveries: kick.deliveries}); len(f) != 2 {
		t.Fatalf("an empty request writes %v", f)
	}
}
