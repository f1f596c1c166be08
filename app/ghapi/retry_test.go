package ghapi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/internal/backoff"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// retryFixture is a token-mode client against the fake, its sleeps
// recorded.
func retryFixture(t *testing.T, tune func(*RetryPolicy)) (*fakegithub.Server, *github.Client, *sleeper) {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddToken("tok", "someone")
	fake.AddRepo("octo/repo")
	s := &sleeper{}
	p := testPolicy(s)
	if tune != nil {
		tune(&p)
	}
	clients, err := NewTokenClients("tok", "", fake.APIURL(), TransportChain(nil, p, &routeCounts{}, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := clients.Installation(context.Background(), 0, "octo", "repo")
	return fake, c, s
}

func listStatuses(c *github.Client) error {
	_, _, err := c.Repositories.ListStatuses(context.Background(), "octo", "repo", "main", nil)
	return err
}

func TestRetryRespectsRetryAfter(t *testing.T) {
	fake, c, s := retryFixture(t, nil)
	fault := fake.Inject(fakegithub.SecondaryRateLimit(fakegithub.RouteListStatuses, 7*time.Second, 2))
	if err := listStatuses(c); err != nil {
		t.Fatal(err)
	}
	if fault.Fired() != 2 {
		t.Fatalf("fault fired %d times", fault.Fired())
	}
	if got := s.Waits(); len(got) != 2 || got[0] != 7*time.Second || got[1] != 7*time.Second {
		t.Fatalf("waits %v, want [7s 7s] as Retry-After says", got)
	}
}

func TestRetryWaitsForPrimaryReset(t *testing.T) {
	clock := newFakeClock()
	fake, c, s := retryFixture(t, func(p *RetryPolicy) { p.Now = clock.Now })
	reset := clock.Now().Add(42 * time.Second).Unix()
	fake.Inject(fakegithub.PrimaryRateLimit(fakegithub.RouteListStatuses, time.Unix(reset, 0), 1))
	if err := listStatuses(c); err != nil {
		t.Fatal(err)
	}
	got := s.Waits()
	if len(got) != 1 || got[0] < 42*time.Second || got[0] > 44*time.Second {
		t.Fatalf("waits %v, want about 43s (until the reset, plus a second)", got)
	}
}

func TestRetryRateLimitBudget(t *testing.T) {
	fake, c, s := retryFixture(t, nil)
	fake.Inject(fakegithub.SecondaryRateLimit(fakegithub.RouteListStatuses, 10*time.Minute, 0))
	err := listStatuses(c)
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) {
		t.Fatalf("err = %v, want the rate-limit error once the wait exceeds the budget", err)
	}
	if len(s.Waits()) != 0 {
		t.Fatalf("waited %v for a limit beyond the budget", s.Waits())
	}
}

func TestRetryStatusHandling(t *testing.T) {
	tests := []struct {
		name      string
		fault     fakegithub.Fault
		post      bool
		idem      bool
		wantErr   bool
		wantCalls int
		wantWaits int
	}{
		{name: "502 twice then success", fault: fakegithub.Fault{Times: 2, Status: 502}, wantCalls: 3, wantWaits: 2},
		{name: "503 forever gives up", fault: fakegithub.Fault{Status: 503}, wantErr: true, wantCalls: 4, wantWaits: 3},
		{name: "plain 403 is final", fault: fakegithub.Fault{Times: 1, Status: 403, Body: `{"message":"Resource not accessible by integration"}`},
			wantErr: true, wantCalls: 1},
		{name: "429 without headers waits a minute", fault: fakegithub.Fault{Times: 1, Status: 429}, wantCalls: 2, wantWaits: 1},
		{name: "secondary limit without Retry-After", fault: fakegithub.Fault{Times: 1, Status: 403,
			Body: `{"message":"You have exceeded a secondary rate limit"}`}, wantCalls: 2, wantWaits: 1},
		{name: "404 is final", fault: fakegithub.Fault{Times: 1, Status: 404, Body: `{"message":"Not Found"}`}, wantErr: true, wantCalls: 1},
		{name: "POST not repeated after a 502", post: true, fault: fakegithub.Fault{Times: 1, Status: 502}, wantErr: true, wantCalls: 1},
		{name: "idempotent POST repeated after a 502", post: true, idem: true, fault: fakegithub.Fault{Times: 1, Status: 502}, wantCalls: 2, wantWaits: 1},
		{name: "POST repeated after a rate limit", post: true, fault: fakegithub.Fault{Times: 1, Status: 429,
			Header: map[string]string{"Retry-After": "1"}}, wantCalls: 2, wantWaits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c, s := retryFixture(t, nil)
			route := fakegithub.RouteListStatuses
			if tt.post {
				route = fakegithub.RouteCreateStatus
			}
			f := tt.fault
			f.Route = route
			fake.Inject(&f)
			pr, err := fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "octo/repo", Number: 1})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.idem {
				ctx = Idempotent(ctx)
			}
			if tt.post {
				_, _, err = c.Repositories.CreateStatus(ctx, "octo", "repo", pr.HeadSHA,
					&github.RepoStatus{State: github.String("success"), Context: github.String("reviewbot")})
			} else {
				_, _, err = c.Repositories.ListStatuses(ctx, "octo", "repo", pr.HeadSHA, nil)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if n := len(fake.CallsTo(route)); n != tt.wantCalls {
				t.Errorf("%d calls, want %d", n, tt.wantCalls)
			}
			if n := len(s.Waits()); n != tt.wantWaits {
				t.Errorf("%d waits (%v), want %d", n, s.Waits(), tt.wantWaits)
			}
			if tt.fault.Status == 429 && len(s.Waits()) == 1 && tt.fault.Header == nil && s.Waits()[0] != time.Minute {
				t.Errorf("429 without headers waited %v, want 1m", s.Waits()[0])
			}
		})
	}
}

func TestRetryBackoffGrowsWithJitter(t *testing.T) {
	p := DefaultRetryPolicy()
	for n := 1; n <= 6; n++ {
		full := p.BaseDelay << (n - 1)
		if full > p.MaxDelay {
			full = p.MaxDelay
		}
		for range 50 {
			d := p.wait(n)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
}

func TestRetryTimesOutSlowAttempts(t *testing.T) {
	fake, c, s := retryFixture(t, func(p *RetryPolicy) { p.AttemptTimeout = 50 * time.Millisecond })
	fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteListStatuses, Times: 1, Delay: 2 * time.Second})
	start := time.Now()
	if err := listStatuses(c); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("the slow attempt was not cut off by the attempt timeout")
	}
	if len(s.Waits()) != 1 {
		t.Fatalf("waits %v, want one backoff before the second attempt", s.Waits())
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	fake, c, _ := retryFixture(t, func(p *RetryPolicy) { p.Sleep = backoff.Sleep; p.BaseDelay = time.Hour; p.MaxDelay = time.Hour })
	fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteListStatuses, Status: 502})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := c.Repositories.ListStatuses(ctx, "octo", "repo", "main", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
}

func TestAPIRoute(t *testing.T) {
	tests := map[string]string{
		"/repos/SemiAnalysisAI/InferenceX/pulls/2232/files":                    "GET /repos/{owner}/{repo}/pulls/{id}/files",
		"/api/v3/repos/o/r/git/blobs/0123456789abcdef0123456789abcdef01234567": "GET /repos/{owner}/{repo}/git/blobs/{id}",
		"/repos/o/r/compare/abc...def":                                         "GET /repos/{owner}/{repo}/compare/{id}",
		"/app/installations/77/access_tokens":                                  "GET /app/installations/{id}/access_tokens",
		"/user":                                                                "GET /user",
	}
	for path, want := range tests {
		if got := RouteOf("GET", path); got != want {
			t.Errorf("RouteOf(%q) = %q, want %q", path, got, want)
		}
	}
}
