package standing

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
)

// signed is a sign-off's visible text.
const signed = signoff.Phrase + " verified the runs."

// Each way a comment can fail to be a sign-off, and the head a standing
// one signs: the rules the gate's attacks run into.
func TestFromComment(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	const key = "o/r#7"
	person := &github.User{Login: github.String("alice"), Type: github.String("User")}
	ledger := state.NewMemoryLedger(0)
	if err := ledger.RecordHead(ctx, key, "aaa", t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := ledger.RecordEdit(ctx, key, EditObject(Comment, 3), "mallory", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := ledger.RecordEdit(ctx, key, EditObject(Comment, 4), "Alice", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	r := &Reader{Ledger: ledger, Key: key, Login: "reviewbot[bot]"}
	mk := func(id int64, u *github.User, body string, updated time.Time) *github.IssueComment {
		return &github.IssueComment{ID: github.Int64(id), User: u, Body: github.String(body),
			CreatedAt: &github.Timestamp{Time: t0}, UpdatedAt: &github.Timestamp{Time: updated}}
	}
	for _, tc := range []struct {
		name string
		c    *github.IssueComment
		why  string
		head string
		at   time.Time
	}{
		{name: "stands", c: mk(1, person, signed, t0), head: "aaa", at: t0},
		{name: "no phrase", c: mk(2, person, "looks fine", t0), why: "its visible text no longer holds the sign-off phrase (text in code blocks, quotes and HTML comments does not count)"},
		{name: "quoted phrase", c: mk(2, person, "> "+signed+"\n\nagreed", t0), why: "its visible text no longer holds the sign-off phrase (text in code blocks, quotes and HTML comments does not count)"},
		{name: "bot", c: mk(2, &github.User{Login: github.String("ci"), Type: github.String("Bot")}, signed, t0), why: "the bot's own comments are never sign-offs"},
		{name: "our login", c: mk(2, &github.User{Login: github.String("reviewbot[bot]")}, signed, t0), why: "the bot's own comments are never sign-offs"},
		{name: "no author", c: mk(2, nil, signed, t0), why: "it has no author"},
		{name: "edited by another", c: mk(3, person, signed, t0.Add(time.Minute)), why: "`mallory` edited it, and a sign-off is only what its author wrote"},
		{name: "edit not recorded", c: mk(5, person, signed, t0.Add(time.Minute)), why: "it was edited, and the App has no record that its author made the last edit; post the sign-off again"},
		{name: "edited by its author", c: mk(4, person, signed, t0.Add(2*time.Minute)), head: "aaa", at: t0.Add(2 * time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			so, why, err := r.FromComment(ctx, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if why != tc.why {
				t.Fatalf("why = %q, want %q", why, tc.why)
			}
			if tc.why != "" {
				if so != nil {
					t.Fatalf("a refused sign-off stands: %+v", so)
				}
				return
			}
			if so.Head != tc.head || !so.At.Equal(tc.at) || !so.Is(Comment, tc.c.GetID()) || so.Author != "alice" {
				t.Errorf("%+v", so)
			}
		})
	}
	// Before any recorded head, a conversation comment signs nothing known.
	early := mk(1, person, signed, t0.Add(-2*time.Hour))
	early.CreatedAt = early.UpdatedAt
	so, _, err := r.FromComment(ctx, early)
	if err != nil || so == nil || so.Head != "" || so.Unknown == "" {
		t.Errorf("%+v %v", so, err)
	}
}

func TestFromReview(t *testing.T) {
	ctx := context.Background()
	ledger := state.NewMemoryLedger(0)
	if err := ledger.RecordEdit(ctx, "k", EditObject(Review, 9), "bob", time.Now()); err != nil {
		t.Fatal(err)
	}
	r := &Reader{Ledger: ledger, Key: "k", Login: "reviewbot[bot]"}
	person := &github.User{Login: github.String("alice"), Type: github.String("User")}
	for _, tc := range []struct {
		state, commit string
		id            int64
		why, unknown  string
	}{
		{state: "APPROVED", commit: "c1", id: 1},
		{state: "COMMENTED", commit: "c1", id: 1},
		{state: "APPROVED", id: 1, unknown: "GitHub names no commit for the review"},
		{state: "DISMISSED", commit: "c1", id: 1, why: "the review was dismissed"},
		{state: "CHANGES_REQUESTED", commit: "c1", id: 1, why: "a review that requests changes is not a sign-off"},
		{state: "PENDING", commit: "c1", id: 1, why: "the review is pending"},
		{state: "APPROVED", commit: "c1", id: 9, why: "`bob` edited it, and a sign-off is only what its author wrote"},
	} {
		rv := &github.PullRequestReview{ID: github.Int64(tc.id), State: github.String(tc.state), User: person,
			Body: github.String(signed), CommitID: github.String(tc.commit)}
		so, why, err := r.FromReview(ctx, rv)
		if err != nil || why != tc.why {
			t.Errorf("%s/%d: why = %q (%v), want %q", tc.state, tc.id, why, err, tc.why)
			continue
		}
		if tc.why == "" && (so == nil || so.Head != tc.commit || so.Unknown != tc.unknown) {
			t.Errorf("%s: %+v", tc.state, so)
		}
	}
}

// A review comment signs the commit it was written on, not the one GitHub
// moved it to.
func TestReviewCommentCommit(t *testing.T) {
	c := &github.PullRequestComment{CommitID: github.String("new"), OriginalCommitID: github.String("old")}
	if got := ReviewCommentCommit(c); got != "old" {
		t.Errorf("got %s", got)
	}
	c.OriginalCommitID = nil
	if got := ReviewCommentCommit(c); got != "new" {
		t.Errorf("got %s", got)
	}
}

// A verdict names the sign-off it rests on, and only a known source parses.
func TestMarker(t *testing.T) {
	for _, tt := range []struct {
		source string
		id     int64
	}{{Comment, 12}, {Review, 9_000_000_001}, {ReviewComment, 7}} {
		src, id, ok := ParseMarker("## x\n" + Marker(tt.source, tt.id) + "\n")
		if !ok || src != tt.source || id != tt.id {
			t.Errorf("%s %d: got %q %d %v", tt.source, tt.id, src, id, ok)
		}
	}
	if _, _, ok := ParseMarker("<!-- reviewbot:signoff-source issue=3 -->"); ok {
		t.Error("an unknown source parsed")
	}
}
