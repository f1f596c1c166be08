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

// scriptedLease answers its checks in turn: true holds, false is lost
// (and stays lost once the script runs out). onLost, when set, runs on a
// check that finds the lease lost, as the Redis lease cancels its holder's
// context.
type scriptedLease struct {
	held   []bool
	onLost func()
}

func (l *scriptedLease) Token() int64 { return 1 }
func (l *scriptedLease) Check(context.Context) error {
	ok := false
	if len(l.held) > 0 {
		ok, l.held = l.held[0], l.held[1:]
	}
	if !ok {
		if l.onLost != nil {
			l.onLost()
		}
		return state.ErrLeaseLost
	}
	return nil
}
func (l *scriptedLease) Release(context.Context) error { return nil }

// TestWelcomeTakenBackWhenSecond: a replica that loses the PR while its
// welcome is on the way, or one that took the work over from such a
// replica, takes its welcome back when an earlier one of the same account
// is there; nobody else's comment counts as that welcome.
func TestWelcomeTakenBackWhenSecond(t *testing.T) {
	cases := []struct {
		name      string
		earlier   string // who posted a welcome before: "" nobody
		heldAfter bool   // the lease still held after the write
		resumed   bool
		// cancelled: the review's context is cancelled while the welcome
		// is on its way (a lost lease cancels it), after GitHub made it.
		cancelled bool
		wantErr   error
		want      int // welcomes on the PR after
		wantLists int // conversation listings the executor made
	}{
		{name: "lost after the write, another welcome there", earlier: "someone", want: 1, wantErr: state.ErrLeaseLost, wantLists: 1},
		{name: "lost after the write, the only welcome", want: 1, wantErr: state.ErrLeaseLost, wantLists: 1},
		{name: "resumed work raced a stalled replica", earlier: "someone", heldAfter: true, resumed: true, want: 1, wantLists: 1},
		{name: "resumed work, the only welcome", heldAfter: true, resumed: true, want: 1, wantLists: 1},
		{name: "a pasted marker is not the bot's welcome", earlier: "mallory", heldAfter: true, resumed: true, want: 2, wantLists: 1},
		{name: "held and not resumed: no second look", earlier: "someone", heldAfter: true, want: 2, wantLists: 0},
		{name: "lost while the write was on its way", earlier: "someone", cancelled: true, want: 1, wantErr: state.ErrLeaseLost, wantLists: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, pr, gh := prFixture(t, map[string]string{"x": "x\n"}, map[string]string{"x": "y\n"})
			repo := fake.Repo("o/r")
			var first int64
			if tc.earlier != "" {
				first = fake.AddIssueComment(repo, 1, tc.earlier, reviewer.WelcomeComment()).GetID()
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ex := &Executor{Log: quietLogger(), Repo: &ghapi.Repo{Client: gh, Owner: "o", Name: "r"}, Number: 1,
				Head: pr.HeadSHA, Lease: &scriptedLease{held: []bool{true, tc.heldAfter}, onLost: cancel}, Login: "someone", Resumed: tc.resumed}
			if tc.cancelled {
				fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCreateComment, Before: func() {
					cancel()
					<-ctx.Done()
				}})
			}
			if err := ex.PostWelcome(ctx); !errors.Is(err, tc.wantErr) {
				t.Fatalf("PostWelcome: %v, want %v", err, tc.wantErr)
			}
			var welcomes []github.IssueComment
			for _, c := range fake.IssueComments(repo, 1) {
				if reviewer.HasWelcomeMarker(c.GetBody()) {
					welcomes = append(welcomes, c)
				}
			}
			if len(welcomes) != tc.want {
				t.Fatalf("%d welcomes on the PR, want %d", len(welcomes), tc.want)
			}
			if first != 0 && welcomes[0].GetID() != first {
				t.Errorf("the earlier welcome %d was taken back, not the later one", first)
			}
			if n := len(fake.CallsTo(fakegithub.RouteIssueComments)); n != tc.wantLists {
				t.Errorf("%d conversation listings, want %d", n, tc.wantLists)
			}
		})
	}
}
