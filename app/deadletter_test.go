package app

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

func crashStatus(t *testing.T, h *harness, pr *fakegithub.PR, sha string) string {
	t.Helper()
	for _, st := range h.fake.Statuses(pr.Base, sha) {
		if st.GetContext() == post.StatusContext && st.GetState() == "error" && strings.Contains(st.GetDescription(), "crashed the reviewer") {
			return st.GetDescription()
		}
	}
	return ""
}

// A job that panics costs its delivery, not the process; the third crash
// of a PR's head sets it aside with an error status, later deliveries of
// that head are not run again, and a new push gets a fresh start.
func TestCrashingJobIsSetAside(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	var runs atomic.Int64
	h.srv.beforeRun = func(j *job) {
		runs.Add(1)
		if strings.Contains(j.key, "#2232") && !strings.HasSuffix(j.req.pr.GetHead().GetSHA(), "fixed") {
			panic("a hostile PR")
		}
	}
	for i := range maxAttempts {
		h.deliver("pull_request", payload, http.StatusAccepted)
		h.wait()
		if got := crashStatus(t, h, pr, pr.HeadSHA); (got != "") != (i == maxAttempts-1) {
			t.Fatalf("after crash %d: status %q", i+1, got)
		}
	}
	if !strings.Contains(crashStatus(t, h, pr, pr.HeadSHA), "3 times") {
		t.Fatal("no set-aside status")
	}
	before := runs.Load()
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if runs.Load() != before {
		t.Fatal("a set-aside head was run again")
	}
	if !strings.Contains(h.logs.String(), "outcome=set_aside") {
		t.Fatalf("no set_aside outcome:\n%s", h.logs.String())
	}
	// A new head is reviewed afresh.
	ctx := context.Background()
	if _, err := h.fake.Push(ctx, pr, checks.NewMemTree(map[string]string{"README.md": "fixed\n"}), strings.Repeat("0", 35)+"fixed"); err != nil {
		t.Fatal(err)
	}
	h.deliver("pull_request", prPayload(t, h, pr, "synchronize"), http.StatusAccepted)
	h.wait()
	if runs.Load() != before+1 {
		t.Fatalf("the new head was not run (%d runs)", runs.Load()-before)
	}
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Fatalf("%d reviews of the new head", n)
	}
}

// Work a replica left unfinished because it died while running it (a
// crash no recover catches) is counted by every take; past maxAttempts the
// next replica sets it aside instead of dying too.
func TestKilledWorkerWorkIsSetAside(t *testing.T) {
	p := redistest.Start(t)
	r := newTestRedis(t, p)
	h := newHarness(t, withRedis(r))
	pr := addSeedVariant(t, h.fake, 41)
	h.install(pr.Base.FullName())
	key := newPRJob(0, pr.Base.Owner, pr.Base.Name, pr.Number).key
	// What three replicas that died mid-run left behind: doing, with
	// three attempts counted, and the PR pending, its lease expired.
	c := p.Client()
	ctx := context.Background()
	doing := r.Options().Prefix + "doing:" + key
	if err := c.HSet(ctx, doing, fieldOwner, pr.Base.Owner, fieldRepo, pr.Base.Name, fieldNumber, "41",
		fieldInstallation, "1", fieldReview, "1", fieldAttempts, "3").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ZAdd(ctx, r.Options().Prefix+"pending", redis.Z{Score: 1, Member: key}).Err(); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	h.srv.beforeRun = func(*job) { runs.Add(1) }
	deadline := time.Now().Add(10 * time.Second)
	for crashStatus(t, h, pr, pr.HeadSHA) == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the work was not set aside:\n%s", h.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.wait()
	if runs.Load() != 0 {
		t.Fatalf("the crashing work ran %d times more", runs.Load())
	}
	if n, _ := c.Exists(ctx, doing).Result(); n != 0 {
		t.Fatal("the set-aside work is still waiting")
	}
	if v, _ := c.Get(ctx, r.Options().Prefix+"dead:"+key).Result(); v != pr.HeadSHA {
		t.Fatalf("dead record %q", v)
	}
}

// A replica that dies after claiming a delivery and before storing its
// work leaves a claim nobody acts on. The redelivery (GitHub's, or the
// load balancer retrying the unanswered request on another replica) is
// taken on instead of being dropped as a duplicate; a claim whose work
// was stored makes a redelivery a duplicate.
func TestAbandonedClaimIsTakenOver(t *testing.T) {
	p := redistest.Start(t)
	r := newTestRedis(t, p, func(o *state.RedisOptions) { o.ClaimTimeout = 300 * time.Millisecond })
	h := newHarness(t, withRedis(r))
	pr := addSeedVariant(t, h.fake, 42)
	h.install(pr.Base.FullName())
	ctx := context.Background()
	// The dying replica's claim.
	claimedAt := time.Now()
	if first, err := r.Deliveries().Claim(ctx, "abandoned-1", "dead-replica-nonce"); err != nil || !first {
		t.Fatalf("claim: %v %v", first, err)
	}
	body := prPayload(t, h, pr, "opened")
	// A moment after the claim its replica might still be storing the
	// work: the redelivery waits for the claim to be confirmed or to go
	// stale, and then takes it on.
	if resp := h.post("pull_request", body, "abandoned-1", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the redelivery of an abandoned claim: %d", resp.StatusCode)
	}
	if age := time.Since(claimedAt); age < 300*time.Millisecond {
		t.Fatalf("taken over %v after the claim, before it went stale", age)
	}
	h.wait()
	deadline := time.Now().Add(10 * time.Second)
	for len(h.fake.Reviews(pr.Base, pr.Number)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("never reviewed:\n%s", h.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Confirmed (its work stored): a redelivery is a duplicate.
	if resp := h.post("pull_request", body, "abandoned-1", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("a redelivery of stored work: %d", resp.StatusCode)
	}
}
