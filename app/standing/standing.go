// Package standing decides whether a comment or review is a sign-off that
// stands: the visible text its author wrote, in a review that still
// stands, and the commit it signs. Every rule here answers an attack on a
// required status (docs/signoff.md): an edit by
// someone else, the bot's own comments, a CHANGES_REQUESTED or dismissed
// review are not sign-offs, and a conversation comment signs the head the
// App recorded when it was written, never a commit date.
//
// It reads only what it is given and the edit and head records of the
// ledger; the App's sign-off flow lists the comments and reviews.
package standing

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Where a sign-off was written.
const (
	Comment       = "comment"        // a PR conversation comment
	Review        = "review"         // a review's body
	ReviewComment = "review comment" // an inline review comment
)

// EditObject names a comment or review in the ledger's edit record.
func EditObject(source string, id int64) string {
	return strings.ReplaceAll(source, " ", "_") + ":" + strconv.FormatInt(id, 10)
}

// Marker records, in a verdict comment, which sign-off it verified: its
// withdrawal re-opens the verdict, another's does not.
func Marker(source string, id int64) string {
	return fmt.Sprintf("<!-- reviewbot:signoff-source %s=%d -->", strings.ReplaceAll(source, " ", "_"), id)
}

var markerRE = regexp.MustCompile(`<!-- reviewbot:signoff-source (comment|review|review_comment)=(\d+) -->`)

// ParseMarker returns the sign-off a verdict comment's Marker names.
func ParseMarker(body string) (source string, id int64, ok bool) {
	m := markerRE.FindStringSubmatch(body)
	if m == nil {
		return "", 0, false
	}
	id, err := strconv.ParseInt(m[2], 10, 64)
	return strings.ReplaceAll(m[1], "_", " "), id, err == nil
}

// ReviewCommentCommit is the commit a review comment was written on:
// GitHub moves commit_id along with later pushes while the line still
// exists, original_commit_id stays.
func ReviewCommentCommit(c *github.PullRequestComment) string {
	if id := c.GetOriginalCommitID(); id != "" {
		return id
	}
	return c.GetCommitID()
}

// SignOff is a sign-off as it stands now: written by its author, visible,
// in a review that still stands.
type SignOff struct {
	Source string
	ID     int64
	URL    string
	Author string
	Body   string
	// At is when its text was written (created, or last edited by its
	// author).
	At time.Time
	// Head is the commit it signs; "" when the App cannot tell, and
	// Unknown then says why.
	Head    string
	Unknown string
}

// Is reports whether so was written in (source, id).
func (so *SignOff) Is(source string, id int64) bool { return so.Source == source && so.ID == id }

// Reader judges the sign-offs of one PR.
type Reader struct {
	// Ledger holds who edited what, and the PR's heads over time.
	Ledger state.Ledger
	// Key is the PR's key in the ledger.
	Key string
	// Login is the bot's own login.
	Login string
}

// written checks what every kind of sign-off must be: a person's text
// with the phrase where a reader sees it.
func (r *Reader) written(u *github.User, body string) string {
	switch {
	case u == nil || u.GetLogin() == "":
		return "it has no author"
	case u.GetType() == "Bot" || ghapi.IsUser(u, r.Login):
		return "the bot's own comments are never sign-offs"
	case !comment.HasSignoff(body):
		return "its visible text no longer holds the sign-off phrase (text in code blocks, quotes and HTML comments does not count)"
	}
	return ""
}

// authorsText checks that the last edit of an edited comment was its
// author's: anyone with write access can edit any comment, and GitHub's
// comment objects do not say who did; the edited deliveries' sender does,
// and the ledger recorded it. An edit the App has no record of is not
// trusted.
func (r *Reader) authorsText(ctx context.Context, object, author string, created, updated time.Time, what string) (time.Time, string, error) {
	c, u := created.Truncate(time.Second), updated.Truncate(time.Second)
	if !u.After(c) {
		return created, "", nil
	}
	e, ok, err := r.Ledger.LastEdit(ctx, r.Key, object)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("read who edited %s: %w", object, err)
	}
	switch {
	case !ok || !e.At.Truncate(time.Second).Equal(u):
		return time.Time{}, "it was edited, and the App has no record that its author made the last edit; post the " + what + " again", nil
	case !strings.EqualFold(e.Editor, author):
		return time.Time{}, fmt.Sprintf("%s edited it, and a %s is only what its author wrote", prose.Code(e.Editor), what), nil
	}
	return updated, "", nil
}

// afterBase checks that text written at time at is newer than the PR's
// newest recorded base change: a retarget changes the diff, the owners
// and the evidence, so what was signed before it is not what the PR is
// now.
func (r *Reader) afterBase(ctx context.Context, at time.Time) (string, error) {
	e, ok, err := r.Ledger.LastEdit(ctx, r.Key, state.BaseObject)
	if err != nil {
		return "", fmt.Errorf("read the PR's base changes: %w", err)
	}
	if ok && !at.After(e.At) {
		return "it was written before the PR's base changed, so it signed another diff; sign off again against the new base", nil
	}
	return "", nil
}

// AuthorsComment checks that conversation comment c's command reads as
// its author wrote it: "" when it does, else why not (an edit by someone else, or
// one the App has no record of). It is the one rule for everything a
// comment can carry — sign-offs and commands alike: the editor is the
// author of what an edit adds, so an edit by anyone else carries nothing
// in the author's name.
func (r *Reader) AuthorsComment(ctx context.Context, c *github.IssueComment) (string, error) {
	_, why, err := r.authorsText(ctx, EditObject(Comment, c.GetID()), c.GetUser().GetLogin(), c.GetCreatedAt().Time, c.GetUpdatedAt().Time, "command")
	return why, err
}

// FromComment is the sign-off c stands as, or nil and why it does not.
func (r *Reader) FromComment(ctx context.Context, c *github.IssueComment) (*SignOff, string, error) {
	if why := r.written(c.GetUser(), c.GetBody()); why != "" {
		return nil, why, nil
	}
	author := c.GetUser().GetLogin()
	at, why, err := r.authorsText(ctx, EditObject(Comment, c.GetID()), author, c.GetCreatedAt().Time, c.GetUpdatedAt().Time, "sign-off")
	if err != nil || why != "" {
		return nil, why, err
	}
	if why, err := r.afterBase(ctx, at); err != nil || why != "" {
		return nil, why, err
	}
	so := &SignOff{Source: Comment, ID: c.GetID(), URL: c.GetHTMLURL(), Author: author, Body: c.GetBody(), At: at}
	head, ok, err := r.Ledger.HeadAt(ctx, r.Key, at)
	if err != nil {
		return nil, "", fmt.Errorf("read the recorded heads: %w", err)
	}
	if ok {
		so.Head = head
	} else {
		so.Unknown = fmt.Sprintf("the App has no record of this PR's head at %s, when the comment was written (a conversation comment does not say which commit it signs)",
			at.UTC().Format(time.RFC3339))
	}
	return so, "", nil
}

// FromReview is the sign-off a review's body stands as, or nil and why it
// does not.
func (r *Reader) FromReview(ctx context.Context, rv *github.PullRequestReview) (*SignOff, string, error) {
	switch st := rv.GetState(); st {
	case "APPROVED", "COMMENTED":
	case "DISMISSED":
		return nil, "the review was dismissed", nil
	case "CHANGES_REQUESTED":
		return nil, "a review that requests changes is not a sign-off", nil
	default:
		return nil, "the review is " + strings.ToLower(st), nil
	}
	if why := r.written(rv.GetUser(), rv.GetBody()); why != "" {
		return nil, why, nil
	}
	author := rv.GetUser().GetLogin()
	e, ok, err := r.Ledger.LastEdit(ctx, r.Key, EditObject(Review, rv.GetID()))
	if err != nil {
		return nil, "", fmt.Errorf("read who edited review %d: %w", rv.GetID(), err)
	}
	if ok && !strings.EqualFold(e.Editor, author) {
		return nil, fmt.Sprintf("%s edited it, and a sign-off is only what its author wrote", prose.Code(e.Editor)), nil
	}
	if why, err := r.afterBase(ctx, rv.GetSubmittedAt().Time); err != nil || why != "" {
		return nil, why, err
	}
	so := &SignOff{Source: Review, ID: rv.GetID(), URL: rv.GetHTMLURL(), Author: author, Body: rv.GetBody(),
		At: rv.GetSubmittedAt().Time, Head: rv.GetCommitID()}
	if so.Head == "" {
		so.Unknown = "GitHub names no commit for the review"
	}
	return so, "", nil
}

// FromReviewComment is the sign-off an inline comment stands as, or nil
// and why it does not.
func (r *Reader) FromReviewComment(ctx context.Context, c *github.PullRequestComment) (*SignOff, string, error) {
	if why := r.written(c.GetUser(), c.GetBody()); why != "" {
		return nil, why, nil
	}
	author := c.GetUser().GetLogin()
	at, why, err := r.authorsText(ctx, EditObject(ReviewComment, c.GetID()), author, c.GetCreatedAt().Time, c.GetUpdatedAt().Time, "sign-off")
	if err != nil || why != "" {
		return nil, why, err
	}
	if why, err := r.afterBase(ctx, at); err != nil || why != "" {
		return nil, why, err
	}
	so := &SignOff{Source: ReviewComment, ID: c.GetID(), URL: c.GetHTMLURL(), Author: author, Body: c.GetBody(),
		At: at, Head: ReviewCommentCommit(c)}
	if so.Head == "" {
		so.Unknown = "GitHub names no commit for the review comment"
	}
	return so, "", nil
}
