package app

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

func testJob(key string, id int) *job {
	j := &job{key: key, req: &prRequest{number: id, review: true}}
	j.deliveries = []*delivery{{id: fmt.Sprint(id)}}
	return j
}

// A job absorbs the older one of its PR still waiting (the queue's
// mechanics are internal/queue's tests): the merged request asks for
// everything both did, for the deliveries of both, oldest first.
func TestJobAbsorbsWaitingJob(t *testing.T) {
	older := testJob("pr", 2)
	older.req.review = false
	older.req.reactTo = []int64{7}
	older.req.signoffs = []*gate.Request{{ID: 11}}
	last := testJob("pr", 3)
	last.req.review = false
	last.req.welcome = true
	last.req.signoffs = []*gate.Request{{ID: 12}}
	if !last.Absorb(older) {
		t.Fatal("a waiting job of the same PR was not absorbed")
	}
	r := last.req
	if r.review || !r.welcome || len(r.reactTo) != 1 || len(r.signoffs) != 2 || r.signoffs[0].ID != 11 {
		t.Fatalf("merged request lost something: %+v", r)
	}
	if len(last.deliveries) != 2 || last.deliveries[0].id != "2" || last.deliveries[1].id != "3" {
		t.Fatalf("deliveries %v", last.deliveries)
	}
	review := testJob("pr", 4)
	review.req.review = false
	if review.Absorb(testJob("pr", 1)); !review.req.review {
		t.Fatal("an absorbed review request was dropped")
	}
}

func TestMemoryLocker(t *testing.T) {
	ctx := context.Background()
	m := state.NewMemoryLocker()
	a, err := m.Lock(ctx, "pr")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := m.Lock(ctx, "other")
	_ = other.Release(ctx)
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := m.Lock(waitCtx, "pr"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock of a held key: %v", err)
	}
	got := make(chan state.Lease)
	go func() {
		b, _ := m.Lock(ctx, "pr")
		got <- b
	}()
	if err := a.Check(ctx); err != nil {
		t.Fatal(err)
	}
	_ = a.Release(ctx)
	_ = a.Release(ctx) // idempotent
	if err := a.Check(ctx); !errors.Is(err, state.ErrLeaseLost) {
		t.Fatalf("released lease checks %v", err)
	}
	b := <-got
	if b.Token() <= a.Token() {
		t.Fatalf("token %d after %d", b.Token(), a.Token())
	}
	_ = b.Release(ctx)
}

func TestVerifySignature(t *testing.T) {
	body, secret := []byte(`{"zen":"x"}`), []byte("s3cret")
	good := Sign(body, secret)
	for sig, want := range map[string]bool{
		good: true, "": false, "sha256=": false,
		"sha1=" + good[7:]: false, good[:len(good)-2] + "00": false, good + "00": false,
	} {
		if got := verifySignature(sig, body, secret); got != want {
			t.Errorf("verifySignature(%q) = %v, want %v", sig, got, want)
		}
	}
}
