package state

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
)

// Both ledgers answer the same questions the same way: which head a time
// falls under (never a head recorded later than the time), and who made
// the last recorded edit.
func TestLedgers(t *testing.T) {
	ledgers := map[string]func(t *testing.T) Ledger{
		"memory": func(*testing.T) Ledger { return NewMemoryLedger(0) },
		"redis": func(t *testing.T) Ledger {
			return newTestRedis(t, redistest.Start(t)).Ledger()
		},
	}
	t0 := time.Date(2026, 8, 5, 8, 0, 0, 0, time.UTC)
	for name, newLedger := range ledgers {
		t.Run(name, func(t *testing.T) {
			l := newLedger(t)
			ctx := context.Background()
			pr := "o/r#1"
			if _, ok, err := l.HeadAt(ctx, pr, t0); err != nil || ok {
				t.Fatalf("empty ledger: %v %v", ok, err)
			}
			if _, ok, err := l.Newest(ctx, pr); err != nil || ok {
				t.Fatalf("empty ledger's newest: %v %v", ok, err)
			}
			for _, r := range []struct {
				sha string
				at  time.Duration
			}{{"h1", 0}, {"h2", 2 * time.Hour}, {"h1", 4 * time.Hour}, {"h3", time.Hour}} { // h3's delivery came late
				if err := l.RecordHead(ctx, pr, r.sha, t0.Add(r.at)); err != nil {
					t.Fatal(err)
				}
			}
			for _, tt := range []struct {
				at   time.Duration
				want string
			}{
				{-time.Minute, ""}, {0, "h1"}, {30 * time.Minute, "h1"}, {time.Hour, "h3"}, {90 * time.Minute, "h3"},
				{2 * time.Hour, "h2"}, {3 * time.Hour, "h2"}, {4 * time.Hour, "h1"}, {100 * time.Hour, "h1"},
			} {
				got, ok, err := l.HeadAt(ctx, pr, t0.Add(tt.at))
				if err != nil || got != tt.want || ok != (tt.want != "") {
					t.Errorf("HeadAt(+%v) = %q %v %v, want %q", tt.at, got, ok, err, tt.want)
				}
			}
			// The newest is the latest by time, not the last recorded.
			if got, ok, err := l.Newest(ctx, pr); err != nil || !ok || got != "h1" {
				t.Errorf("Newest = %q %v %v, want h1", got, ok, err)
			}
			if _, ok, _ := l.HeadAt(ctx, "o/r#2", t0.Add(time.Hour)); ok {
				t.Error("another PR's heads")
			}
			// A PR's record is bounded.
			for i := range maxHeadsPerPR + 10 {
				if err := l.RecordHead(ctx, "o/r#3", fmt.Sprintf("s%d", i), t0.Add(time.Duration(i)*time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
			if _, ok, _ := l.HeadAt(ctx, "o/r#3", t0.Add(5*time.Minute)); ok {
				t.Error("the oldest heads were kept past the bound")
			}
			if got, _, _ := l.HeadAt(ctx, "o/r#3", t0.Add(time.Duration(maxHeadsPerPR+9)*time.Minute)); got != fmt.Sprintf("s%d", maxHeadsPerPR+9) {
				t.Errorf("newest head %q", got)
			}

			// Which sign-off each passing verdict rests on: replaced by a
			// newer verdict, forgotten when it no longer passes.
			for _, v := range [][2]string{{"h1", "comment:7"}, {"h2", "review:8"}, {"h1", "comment:9"}, {"h2", ""}} {
				if err := l.RecordVerdict(ctx, pr, v[0], v[1]); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := l.Verdicts(ctx, pr); err != nil || len(got) != 1 || got["h1"] != "comment:9" {
				t.Errorf("Verdicts = %v %v, want h1 on comment:9", got, err)
			}
			if got, err := l.Verdicts(ctx, "o/r#2"); err != nil || len(got) != 0 {
				t.Errorf("another PR's verdicts %v %v", got, err)
			}
			for i := range maxHeadsPerPR + 5 {
				if err := l.RecordVerdict(ctx, "o/r#4", fmt.Sprintf("s%d", i), "comment:1"); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := l.Verdicts(ctx, "o/r#4"); len(got) > maxHeadsPerPR {
				t.Errorf("%d verdicts kept, past the bound", len(got))
			}

			if _, ok, err := l.LastEdit(ctx, pr, "comment:5"); ok || err != nil {
				t.Fatalf("no edit yet: %v %v", ok, err)
			}
			if err := l.RecordEdit(ctx, pr, "comment:5", "member", t0.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if err := l.RecordEdit(ctx, pr, "comment:5", "owner", t0.Add(2*time.Minute)); err != nil {
				t.Fatal(err)
			}
			e, ok, err := l.LastEdit(ctx, pr, "comment:5")
			if err != nil || !ok || e.Editor != "owner" || !e.At.Equal(t0.Add(2*time.Minute)) {
				t.Fatalf("last edit %+v %v %v", e, ok, err)
			}
		})
	}
}

// The memory ledger stays within its byte budget, oldest PRs out first.
func TestMemoryLedgerBudget(t *testing.T) {
	l := NewMemoryLedger(64 << 10)
	ctx := context.Background()
	t0 := time.Now()
	for i := range 5000 {
		_ = l.RecordHead(ctx, fmt.Sprintf("o/r#%d", i), "sha", t0)
	}
	if l.Size() > 64<<10 {
		t.Fatalf("%d bytes held, budget %d", l.Size(), 64<<10)
	}
	if _, ok, _ := l.HeadAt(ctx, "o/r#4999", t0); !ok {
		t.Error("the newest PR was evicted")
	}
	if _, ok, _ := l.HeadAt(ctx, "o/r#0", t0); ok {
		t.Error("the oldest PR was kept")
	}
}
