package post

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/testkit"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

var quietLogger = testkit.QuietLogger

// prFixture serves PR o/r#1 from base to head and returns a client of it.
func prFixture(t *testing.T, baseFiles, headFiles map[string]string) (*fakegithub.Server, *fakegithub.PR, *github.Client) {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddToken("tok", "someone")
	pr, err := fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "o/r", Number: 1,
		Base: checks.NewMemTree(baseFiles), Head: checks.NewMemTree(headFiles)})
	if err != nil {
		t.Fatal(err)
	}
	p := ghapi.DefaultRetryPolicy()
	p.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	clients, err := ghapi.NewTokenClients("tok", "", fake.APIURL(), ghapi.TransportChain(nil, p, nil, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := clients.Installation(context.Background(), 0, "o", "r")
	return fake, pr, gh
}

// TestBisectionFindsEveryRejectedComment posts ten inline comments of
// which GitHub refuses two.
func TestBisectionFindsEveryRejectedComment(t *testing.T) {
	var head strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&head, "line %d\n", i)
	}
	fake, pr, gh := prFixture(t, map[string]string{"x": "x\n"}, map[string]string{"x": "x\n", "new.sh": head.String()})
	fake.RejectComments(func(_ string, line int) bool { return line == 3 || line == 8 })
	var findings []checks.Finding
	for i := 1; i <= 10; i++ {
		findings = append(findings, checks.Finding{Rule: "SH009", Severity: checks.Warning, Path: "new.sh", Line: i,
			Body: fmt.Sprintf("finding %d", i), Key: fmt.Sprint(i)})
	}
	files := []*checks.FileChange{{Path: "new.sh", Status: checks.Added}}
	plan := reviewer.BuildPlan(findings, files, reviewer.PlanOptions{})
	if len(plan.Inline) != 10 {
		t.Fatalf("%d inline comments planned", len(plan.Inline))
	}
	lease, _ := state.NewMemoryLocker().Lock(context.Background(), "o/r#1")
	ex := &Executor{Log: quietLogger(), Repo: &ghapi.Repo{Client: gh, Owner: "o", Name: "r"}, Number: 1, Head: pr.HeadSHA,
		Lease: lease, Login: "someone"}
	if err := ex.PostReview(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	reviews := fake.Reviews(fake.Repo("o/r"), 1)
	if len(reviews) != 1 || len(reviews[0].Comments) != 8 {
		t.Fatalf("want one review with 8 comments, got %d reviews", len(reviews))
	}
	if len(plan.Outside) != 2 || plan.Outside[0].Line != 3 || plan.Outside[1].Line != 8 {
		t.Fatalf("moved to the summary: %+v", plan.Outside)
	}
	probes := len(fake.CallsTo(fakegithub.RouteCreateReview)) - 2 // the first attempt and the final review
	t.Logf("%d probes for 2 rejected comments out of 10", probes)
	if probes > 12 {
		t.Fatalf("%d probes; bisection should need about 2·log2(10)", probes)
	}
}

// TestLostLeaseStopsWrites: once another worker holds the PR, the executor
// writes nothing.
func TestLostLeaseStopsWrites(t *testing.T) {
	fake, pr, gh := prFixture(t, map[string]string{"x": "x\n"}, map[string]string{"x": "y\n"})
	lease, _ := state.NewMemoryLocker().Lock(context.Background(), "o/r#1")
	_ = lease.Release(context.Background())
	ex := &Executor{Log: quietLogger(), Repo: &ghapi.Repo{Client: gh, Owner: "o", Name: "r"}, Number: 1,
		Head: pr.HeadSHA, Lease: lease, Login: "someone"}
	plan := reviewer.BuildPlan(nil, nil, reviewer.PlanOptions{})
	if err := ex.Execute(context.Background(), plan, nil); !errors.Is(err, state.ErrLeaseLost) {
		t.Fatalf("execute with a lost lease: %v", err)
	}
	for _, c := range fake.Calls() {
		if c.Method != http.MethodGet {
			t.Fatalf("wrote %s %s without the lease", c.Method, c.Path)
		}
	}
}
