package gate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/app/prtree"
	"github.com/reviewbot-dev/reviewbot/app/standing"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/app/sweep"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// StatusContext is the commit status the sign-off verification
// sets: success only on a PASS verdict.
const StatusContext = "codeowner-signoff-verify"

// HeadSkew is added to the App's own clock when it records a head: a
// head the App saw at its time T became the head no later than T, and the
// margin absorbs the difference between the App's clock and GitHub's,
// whose timestamps the comments carry.
const HeadSkew = 2 * time.Second

// Request is a delivery about a sign-off: the job reads the
// comment or review again and decides from what it says then.
type Request struct {
	// Source is standing.Comment, standing.Review or
	// standing.ReviewComment.
	Source string
	// ID is the comment's or review's id; URL its page.
	ID  int64
	URL string
	// Author posted it.
	Author string
	Body   string
	// At is when it was written or last edited.
	At time.Time
	// Commit is the commit a review or review comment was written on
	// (GitHub records it); "" for a conversation comment.
	Commit string
	// Gone: the comment was deleted or the review dismissed.
	Gone bool
}

// Gate is the sign-off flow of one App: what it reads and writes with.
// Every field is required.
type Gate struct {
	Log    *slog.Logger
	Ledger state.Ledger
	// Registry holds the rules check 5 runs on the signed commit.
	Registry *checks.Registry
	Now      func() time.Time
	// Timeout bounds gathering the evidence of one sign-off.
	Timeout time.Duration
	// SweepWorkflow is the file name of the sweep workflow.
	SweepWorkflow string
	// Reader reads sweep artifacts and comments (its Authors is set per
	// PR).
	sweep.Reader
	// BotComments reads the bot's login and the PR's conversation.
	BotComments func(ctx context.Context, rc *ghapi.Repo, number int) (string, []*github.IssueComment, error)
	// Changes reads a PR's change at a commit.
	Changes func() *prtree.Loader
	// Executor writes to the PR for a job holding lease.
	Executor func(rc *ghapi.Repo, number int, head string, lease state.Lease, login string) *post.Executor
}

// Key is the ledger's key of a PR; GitHub names are case-insensitive:
// one PR, one key.
func Key(owner, repo string, number int) string {
	return strings.ToLower(fmt.Sprintf("%s/%s#%d", owner, repo, number))
}

// Handle acts on one sign-off delivery.
func (g *Gate) Handle(ctx context.Context, rc *ghapi.Repo, number int, req *Request, lease state.Lease) (string, error) {
	pr, err := rc.PR(ctx, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	switch {
	case pr.GetState() != "open":
		return "signoff_skipped_closed", nil
	case pr.GetDraft():
		return "signoff_skipped_draft", nil
	}
	g.RecordHead(ctx, rc, pr)
	login, comments, err := g.BotComments(ctx, rc, number)
	if err != nil {
		return "", err
	}
	sv := &signoffView{g: g, rc: rc, pr: pr, login: login, comments: comments, lease: lease}
	so, why, err := sv.current(ctx, req)
	if err != nil {
		return "", err
	}
	if so == nil {
		return sv.withdrawn(ctx, req, why)
	}
	return sv.verify(ctx, so)
}

// RecordHead notes the head the App just read: it was the head no later
// than now.
func (g *Gate) RecordHead(ctx context.Context, rc *ghapi.Repo, pr *github.PullRequest) {
	sha := pr.GetHead().GetSHA()
	if sha == "" {
		return
	}
	key := Key(rc.Owner, rc.Name, pr.GetNumber())
	if err := g.Ledger.RecordHead(ctx, key, sha, g.Now().Add(HeadSkew)); err != nil {
		g.Log.Warn("could not record the head", "repo", rc.Slug(), "pr", pr.GetNumber(), "head", prose.ShortSHA(sha), "error", err)
	}
}

// signoffView is one job's view of a PR's sign-offs.
type signoffView struct {
	g        *Gate
	rc       *ghapi.Repo
	pr       *github.PullRequest
	login    string
	comments []*github.IssueComment
	lease    state.Lease
	// loaded are the changes read for a signed commit, by SHA.
	loaded map[string]*prtree.Loaded
	teams  *sweep.Teams
}

func (v *signoffView) key() string { return Key(v.rc.Owner, v.rc.Name, v.pr.GetNumber()) }

// standing judges this PR's comments and reviews as sign-offs.
func (v *signoffView) standing() *standing.Reader {
	return &standing.Reader{Ledger: v.g.Ledger, Key: v.key(), Login: v.login}
}

// current reads the sign-off a request is about as it is now; nil, with
// the reason, when it is not (or no longer) a sign-off.
func (v *signoffView) current(ctx context.Context, req *Request) (*standing.SignOff, string, error) {
	switch req.Source {
	case standing.Comment:
		c := findComment(v.comments, req.ID)
		if c == nil {
			return nil, "it was deleted", nil
		}
		return v.standing().FromComment(ctx, c)
	case standing.Review:
		if req.Gone {
			return nil, "the review was dismissed", nil
		}
		r, _, err := v.rc.Client.PullRequests.GetReview(ctx, v.rc.Owner, v.rc.Name, v.pr.GetNumber(), req.ID)
		if ghapi.IsNotFound(err) {
			return nil, "the review is gone", nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("get review %d of %s#%d: %w", req.ID, v.rc.Slug(), v.pr.GetNumber(), err)
		}
		return v.standing().FromReview(ctx, r)
	case standing.ReviewComment:
		if req.Gone {
			return nil, "it was deleted", nil
		}
		c, _, err := v.rc.Client.PullRequests.GetComment(ctx, v.rc.Owner, v.rc.Name, req.ID)
		if ghapi.IsNotFound(err) {
			return nil, "it was deleted", nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("get review comment %d of %s: %w", req.ID, v.rc.Slug(), err)
		}
		return v.standing().FromReviewComment(ctx, c)
	}
	return nil, "unknown source " + req.Source, nil
}

// change reads the PR at a signed commit, once per job.
func (v *signoffView) change(ctx context.Context, sha string) (*prtree.Loaded, error) {
	if lc, ok := v.loaded[sha]; ok {
		return lc, nil
	}
	lc, err := v.g.Changes().LoadAt(ctx, v.rc.Client, v.pr, sha)
	if err != nil {
		return nil, err
	}
	// Not checked against the rules here: the verification's review does
	// that, and answers an unknown rule as a review would.
	if err := lc.Change.Configure(ctx, nil); err != nil {
		return nil, fmt.Errorf("the repository configuration: %w", err)
	}
	if v.loaded == nil {
		v.loaded = map[string]*prtree.Loaded{}
	}
	v.loaded[sha] = lc
	return lc, nil
}

// owner is check 0 for so, the gate before anything costly: a sign-off
// from someone who cannot be an owner of every changed path moves nothing.
func (v *signoffView) owner(ctx context.Context, so *standing.SignOff, parsed *signoff.SignOff) (signoff.Check, error) {
	lc, err := v.change(ctx, so.Head)
	if err != nil {
		return signoff.Check{}, err
	}
	if v.teams == nil {
		v.teams = sweep.NewTeams(v.rc.Client)
	}
	return signoff.VerifyOwner(ctx, lc.Change, parsed, so.Author, v.teams)
}

// verify verifies a standing sign-off and publishes the verdict: one
// comment per signed commit (edited when re-run) and the
// codeowner-signoff-verify status on it. Evidence that cannot be had
// fails its check, so an outage rejects rather than passes.
func (v *signoffView) verify(ctx context.Context, so *standing.SignOff) (string, error) {
	parsed, ok := signoff.Parse(so.Body)
	if !ok {
		if _, err := v.withdrawAll(ctx, so.Source, so.ID, "", "its visible text holds no sign-off"); err != nil {
			return "", err
		}
		return v.reply(ctx, so, "its visible text holds no sign-off", "")
	}
	if so.Head == "" {
		if _, err := v.withdrawAll(ctx, so.Source, so.ID, "", so.Unknown); err != nil {
			return "", err
		}
		return v.reply(ctx, so, so.Unknown, "Sign off again in a new comment, or in a review: GitHub records the commit a review is for.")
	}
	owner, err := v.owner(ctx, so, parsed)
	if err != nil {
		return "", v.ownerUnknown(ctx, so, err)
	}
	if owner.Status == signoff.Fail {
		// Edited into something no owner signed: every verdict that
		// rested on it goes.
		if _, err := v.withdrawAll(ctx, so.Source, so.ID, "", owner.Reason); err != nil {
			return "", err
		}
		return v.reply(ctx, so, owner.Reason, "Only a CODEOWNER of every changed path can sign off: ask one to review and sign.")
	}
	// An edited conversation comment signs the head of its edit: the
	// verdicts its earlier text carried on other commits go first.
	if _, err := v.withdrawAll(ctx, so.Source, so.ID, so.Head, "it was edited after a push, and now signs "+prose.ShortSHA(so.Head)); err != nil {
		return "", err
	}
	verdict := v.decide(ctx, so, parsed)
	head, err := v.noteHeadMoved(ctx, verdict)
	if err != nil {
		return "", err
	}
	return v.publish(ctx, so, verdict, head)
}

// ownerUnknown handles a check 0 that could not be made: whether the
// signer owns the change cannot be told, so this sign-off moves nothing;
// but a passing status that rests on an earlier version of this very
// sign-off no longer stands. It returns the error the job ends with.
func (v *signoffView) ownerUnknown(ctx context.Context, so *standing.SignOff, err error) error {
	if errors.Is(err, state.ErrLeaseLost) || ctx.Err() != nil {
		return err
	}
	err = fmt.Errorf("check 0 for the sign-off by %s: %w", so.Author, err)
	shas, rerr := v.restingOn(ctx, so.Source, so.ID)
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, sha := range shas {
		st := reviewer.Status{State: "failure", Description: "The sign-off could not be verified again; rejected until it is"}
		if serr := v.executor(sha).PostStatus(ctx, sha, StatusContext, st, v.verdictFor(sha).GetHTMLURL()); serr != nil {
			return errors.Join(err, serr)
		}
	}
	return err
}

// decide builds the verdict within the sign-off budget; checks still
// waiting when it runs out fail.
func (v *signoffView) decide(ctx context.Context, so *standing.SignOff, parsed *signoff.SignOff) *signoff.Verdict {
	vctx, cancel := context.WithTimeout(ctx, v.g.Timeout)
	defer cancel()
	verdict := v.buildVerdict(vctx, so, parsed)
	if vctx.Err() != nil && ctx.Err() == nil {
		v.g.Log.Warn("sign-off verification ran out of time; the checks that were waiting fail",
			"repo", v.rc.Slug(), "pr", v.pr.GetNumber(), "timeout", v.g.Timeout.String())
	}
	return verdict
}

// noteHeadMoved reads the PR's head again (it may have moved while the
// evidence was gathered), notes a move on the verdict, and returns it.
func (v *signoffView) noteHeadMoved(ctx context.Context, verdict *signoff.Verdict) (string, error) {
	cur, err := v.rc.PR(ctx, v.pr.GetNumber())
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", v.rc.Slug(), v.pr.GetNumber(), err)
	}
	head := cur.GetHead().GetSHA()
	if head != verdict.SHA && !mentions(verdict.Notes, head) {
		when := "after this sign-off"
		if v.pr.GetHead().GetSHA() == verdict.SHA {
			when = "while this sign-off was verified"
		}
		verdict.Notes = append(verdict.Notes, fmt.Sprintf("The PR's head moved to `%s` %s; this verdict is for the signed commit `%s`. "+
			"A fresh sign-off is needed on the new head, whose %s status fails until then.", head, when, verdict.SHA, StatusContext))
	}
	return head, nil
}

// publish posts the verdict comment and the statuses it moves: the
// signed commit's, and the current head's when that has no verdict of
// its own.
func (v *signoffView) publish(ctx context.Context, so *standing.SignOff, verdict *signoff.Verdict, head string) (string, error) {
	posted, postErr := v.upsertVerdict(ctx, verdict.SHA, verdict.Render()+standing.Marker(so.Source, so.ID)+"\n")
	if postErr != nil && (errors.Is(postErr, state.ErrLeaseLost) || ctx.Err() != nil) {
		return "", postErr
	}
	ex := v.executor(verdict.SHA)
	// The status goes out even when the comment could not: a merge must
	// not wait on, or pass by, a verdict nobody could read.
	st := reviewer.Status{State: "failure", Description: verdict.Description()}
	if verdict.Pass() && postErr == nil {
		st.State = "success"
	}
	if postErr != nil {
		st.Description = "Sign-off verdict could not be posted; rejected until it is"
	}
	if err := ex.PostStatus(ctx, verdict.SHA, StatusContext, st, posted.GetHTMLURL()); err != nil {
		return "", errors.Join(postErr, err)
	}
	rests := ""
	if st.State == "success" {
		rests = standing.EditObject(so.Source, so.ID)
	}
	if err := v.g.Ledger.RecordVerdict(ctx, v.key(), verdict.SHA, rests); err != nil {
		// Without the record a withdrawal still finds the verdict by its
		// comment; only a deleted or tampered comment would hide it.
		v.g.Log.Warn("could not record the verdict", "repo", v.rc.Slug(), "pr", v.pr.GetNumber(), "sha", prose.ShortSHA(verdict.SHA), "error", err)
	}
	if head != verdict.SHA && v.verdictFor(head) == nil {
		// The head has no verdict of its own: say why it cannot merge.
		stale := reviewer.Status{State: "failure",
			Description: fmt.Sprintf("The sign-off is for %s, not this head: a fresh sign-off is needed", prose.ShortSHA(verdict.SHA))}
		if err := ex.PostStatus(ctx, head, StatusContext, stale, posted.GetHTMLURL()); err != nil {
			return "", errors.Join(postErr, err)
		}
	}
	if postErr != nil {
		return "", postErr
	}
	if verdict.Pass() {
		return "signoff_passed", nil
	}
	return "signoff_rejected", nil
}

// withdrawn handles a sign-off that no longer stands (deleted, edited
// out or by someone else, dismissed): every verdict that rested on it is
// re-decided, on whichever commit it was — a force push can make an older
// commit the head again. Verdicts resting on other sign-offs stay.
func (v *signoffView) withdrawn(ctx context.Context, req *Request, why string) (string, error) {
	return v.withdrawAll(ctx, req.Source, req.ID, "", why)
}

// restingOn returns the commits whose verdict rests on the sign-off
// (source, id): by the App's record, and by the markers of the bot's
// verdict comments (the record may be gone with a restarted replica; a
// comment may be gone or edited by anyone with write access).
func (v *signoffView) restingOn(ctx context.Context, source string, id int64) ([]string, error) {
	object := standing.EditObject(source, id)
	recorded, err := v.g.Ledger.Verdicts(ctx, v.key())
	if err != nil {
		return nil, fmt.Errorf("read the recorded verdicts: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	add := func(sha string) {
		if !seen[sha] {
			seen[sha] = true
			out = append(out, sha)
		}
	}
	for sha, on := range recorded {
		if on == object {
			add(sha)
		}
	}
	for _, c := range v.comments {
		sha, ok := signoff.ParseMarker(c.GetBody())
		if !ok || !ghapi.IsUser(c.GetUser(), v.login) {
			continue
		}
		if src, got, ok := standing.ParseMarker(c.GetBody()); ok && src == source && got == id {
			add(sha)
		}
	}
	sort.Strings(out) // one order whatever the map's
	return out, nil
}

// restsOn reports whether head's verdict rests on the sign-off (source,
// id), by the App's record or its verdict comment's marker.
func (v *signoffView) restsOn(ctx context.Context, head, source string, id int64) (bool, error) {
	shas, err := v.restingOn(ctx, source, id)
	if err != nil {
		return false, err
	}
	for _, sha := range shas {
		if sha == head {
			return true, nil
		}
	}
	return false, nil
}

// withdrawAll re-decides every commit whose verdict rests on the sign-off
// (source, id), except keep's (the commit the sign-off now signs).
func (v *signoffView) withdrawAll(ctx context.Context, source string, id int64, keep, why string) (string, error) {
	outcome := "signoff_withdrawn"
	shas, err := v.restingOn(ctx, source, id)
	if err != nil {
		return "", err
	}
	for _, sha := range shas {
		if sha == keep {
			continue
		}
		o, err := v.withdraw(ctx, sha, source, id, why)
		if err != nil {
			return "", err
		}
		outcome = o
	}
	return outcome, nil
}

// withdraw re-decides head after the sign-off its verdict rested on went:
// the newest other standing sign-off of an owner on head is verified
// instead, and with none the head's status fails.
func (v *signoffView) withdraw(ctx context.Context, head, source string, id int64, why string) (string, error) {
	rests, err := v.restsOn(ctx, head, source, id)
	if err != nil || !rests {
		return "signoff_withdrawn", err // the head's verdict, if any, rests on another sign-off
	}
	other, err := v.newestFor(ctx, head, source, id)
	if err != nil {
		return "", err
	}
	if other != nil {
		return v.verify(ctx, other)
	}
	return v.reject(ctx, head, fmt.Sprintf("the sign-off this verdict verified no longer stands (%s)", strings.TrimSuffix(prose.OneLine(why), ".")))
}

// reject turns head's verdict into a rejection for the reason given and
// fails head's status: nothing stands behind the verdict any more. The
// status fails even when the verdict comment is gone.
func (v *signoffView) reject(ctx context.Context, head, reason string) (string, error) {
	ex := v.executor(head)
	verdict := v.verdictFor(head)
	if verdict != nil {
		body := verdict.GetBody()
		if strings.HasPrefix(body, "## ✅✅✅ **Verdict: PASS** ✅✅✅") {
			body = strings.Replace(body, "## ✅✅✅ **Verdict: PASS** ✅✅✅", "## ❌❌❌ **REJECTED** ❌❌❌", 1)
		}
		note := fmt.Sprintf("**Withdrawn:** %s. A CODEOWNER must sign off again.\n\n", reason)
		if !strings.Contains(body, note) {
			body = strings.Replace(body, signoff.Marker(head), note+signoff.Marker(head), 1)
		}
		if body != verdict.GetBody() {
			if err := ex.EditComment(ctx, verdict, body); err != nil {
				return "", err
			}
		}
	}
	st := reviewer.Status{State: "failure", Description: "The sign-off was withdrawn: a CODEOWNER must sign off again"}
	if err := ex.PostStatus(ctx, head, StatusContext, st, verdict.GetHTMLURL()); err != nil {
		return "", err
	}
	if err := v.g.Ledger.RecordVerdict(ctx, v.key(), head, ""); err != nil {
		return "", fmt.Errorf("record the withdrawn verdict: %w", err)
	}
	return "signoff_withdrawn", nil
}

// BaseChanged withdraws every verdict of a retargeted PR: a new base
// changes the diff, the owners and the evidence, and the sign-offs
// written before it no longer stand (the ledger recorded the change).
func (g *Gate) BaseChanged(ctx context.Context, rc *ghapi.Repo, number int, lease state.Lease) (string, error) {
	pr, err := rc.PR(ctx, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	login, comments, err := g.BotComments(ctx, rc, number)
	if err != nil {
		return "", err
	}
	v := &signoffView{g: g, rc: rc, pr: pr, login: login, comments: comments, lease: lease}
	reason := "the PR's base changed to " + prose.Code(pr.GetBase().GetRef()) + " after it was verified: the diff, the owners and the evidence are different"
	recorded, err := g.Ledger.Verdicts(ctx, v.key())
	if err != nil {
		return "", fmt.Errorf("read the recorded verdicts: %w", err)
	}
	var shas []string
	for sha := range recorded {
		shas = append(shas, sha)
	}
	for _, c := range comments {
		if sha, ok := signoff.ParseMarker(c.GetBody()); ok && ghapi.IsUser(c.GetUser(), login) && recorded[sha] == "" {
			shas = append(shas, sha)
		}
	}
	sort.Strings(shas)
	outcome := "base_changed"
	for _, sha := range shas {
		if _, err := v.reject(ctx, sha, reason); err != nil {
			return "", err
		}
		outcome = "base_changed_verdicts_withdrawn"
	}
	return outcome, nil
}

// newestFor finds the newest standing sign-off, other than (source, id),
// that signs head and passes check 0.
func (v *signoffView) newestFor(ctx context.Context, head, source string, id int64) (*standing.SignOff, error) {
	var cands []*standing.SignOff
	add := func(so *standing.SignOff, _ string, err error) error {
		if err != nil {
			return err
		}
		if so != nil && so.Head == head && !so.Is(source, id) {
			cands = append(cands, so)
		}
		return nil
	}
	for _, c := range v.comments {
		if !comment.HasSignoff(c.GetBody()) {
			continue
		}
		if err := add(v.standing().FromComment(ctx, c)); err != nil {
			return nil, err
		}
	}
	reviews, err := ghapi.ListAll(ctx, func(opts *github.ListOptions) ([]*github.PullRequestReview, *github.Response, error) {
		return v.rc.Client.PullRequests.ListReviews(ctx, v.rc.Owner, v.rc.Name, v.pr.GetNumber(), opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the reviews of %s#%d: %w", v.rc.Slug(), v.pr.GetNumber(), err)
	}
	for _, r := range reviews {
		if r.GetCommitID() != head || !comment.HasSignoff(r.GetBody()) {
			continue
		}
		if err := add(v.standing().FromReview(ctx, r)); err != nil {
			return nil, err
		}
	}
	rcs, err := ghapi.ListAll(ctx, func(opts *github.ListOptions) ([]*github.PullRequestComment, *github.Response, error) {
		return v.rc.Client.PullRequests.ListComments(ctx, v.rc.Owner, v.rc.Name, v.pr.GetNumber(), &github.PullRequestListCommentsOptions{ListOptions: *opts})
	})
	if err != nil {
		return nil, fmt.Errorf("list the review comments of %s#%d: %w", v.rc.Slug(), v.pr.GetNumber(), err)
	}
	for _, c := range rcs {
		if standing.ReviewCommentCommit(c) != head || !comment.HasSignoff(c.GetBody()) {
			continue
		}
		if err := add(v.standing().FromReviewComment(ctx, c)); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].At.After(cands[j].At) })
	for _, so := range cands {
		parsed, ok := signoff.Parse(so.Body)
		if !ok {
			continue
		}
		c, err := v.owner(ctx, so, parsed)
		if err != nil {
			return nil, err
		}
		if c.Status != signoff.Fail {
			return so, nil
		}
	}
	return nil, nil
}

// reply answers a sign-off that moves nothing, in one comment per author
// (edited on their next attempt): why, and what to do. Nothing is
// downloaded and no status changes.
func (v *signoffView) reply(ctx context.Context, so *standing.SignOff, why, todo string) (string, error) {
	marker := ReplyMarker(so.Author)
	var existing *github.IssueComment
	for _, c := range v.comments {
		if ghapi.IsUser(c.GetUser(), v.login) && strings.Contains(c.GetBody(), marker) {
			existing = c
			break
		}
	}
	where := "Your sign-off"
	if so.URL != "" {
		where = "Your [sign-off](" + so.URL + ")"
	}
	body := fmt.Sprintf("@%s — %s was not verified, and the `%s` status is unchanged: %s.", so.Author, where, StatusContext,
		strings.TrimSuffix(text.FirstLine(why), "."))
	if todo != "" {
		body += " " + todo
	}
	body += "\n\n" + marker + "\n"
	ex := v.executor(v.pr.GetHead().GetSHA())
	if _, err := ex.UpsertComment(ctx, "the reply to a sign-off", body, existing, func(b string) bool { return strings.Contains(b, marker) }); err != nil {
		return "", err
	}
	return "signoff_not_verified", nil
}

// ReplyMarker marks the bot's one reply to login's sign-offs that were
// not verified.
func ReplyMarker(login string) string {
	return "<!-- reviewbot:signoff-reply login=" + strings.ToLower(login) + " -->"
}

func (v *signoffView) executor(head string) *post.Executor {
	return v.g.Executor(v.rc, v.pr.GetNumber(), head, v.lease, v.login)
}

// verdictFor is the bot's verdict comment for sha, or nil.
func (v *signoffView) verdictFor(sha string) *github.IssueComment {
	for _, c := range v.comments {
		if got, ok := signoff.ParseMarker(c.GetBody()); ok && got == sha && ghapi.IsUser(c.GetUser(), v.login) {
			return c
		}
	}
	return nil
}

func (v *signoffView) upsertVerdict(ctx context.Context, sha, body string) (*github.IssueComment, error) {
	return v.executor(sha).UpsertComment(ctx, "the sign-off verdict", body, v.verdictFor(sha), func(b string) bool {
		got, ok := signoff.ParseMarker(b)
		return ok && got == sha
	})
}

func mentions(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func findComment(comments []*github.IssueComment, id int64) *github.IssueComment {
	for _, c := range comments {
		if c.GetID() == id {
			return c
		}
	}
	return nil
}

// buildVerdict gathers the evidence and verifies. It always returns a
// verdict: an error that stops the verification fails every check with
// its cause.
func (v *signoffView) buildVerdict(ctx context.Context, so *standing.SignOff, parsed *signoff.SignOff) *signoff.Verdict {
	g := v.g
	resolver := sweep.NewResolver(v.rc, g.SweepWorkflow, v.pr)
	commits, err := resolver.PRCommits(ctx)
	if err != nil {
		return signoff.Unfinished(so.Head, parsed.Signer, err, nil, nil)
	}
	var notes []string
	if !inCommits(commits, so.Head) && so.Head != v.pr.GetHead().GetSHA() {
		notes = append(notes, fmt.Sprintf("The signed commit `%s` is no longer part of this PR (force-pushed away?); its head is now `%s`. Sign off again on the head.",
			so.Head, v.pr.GetHead().GetSHA()))
	}
	lc, err := v.change(ctx, so.Head)
	if err != nil {
		return signoff.Unfinished(so.Head, parsed.Signer, err, notes, nil)
	}
	ch := lc.Change
	ev := sweep.NewEvidence(v.rc, ch, resolver, v.login, sweep.Reader{MaxArtifactBytes: g.MaxArtifactBytes, Download: g.Download, MayCommand: g.MayCommand,
		Authors: v.standing().AuthorsComment})
	scope, total := upTo(commits, so.Head), len(commits)
	if scope == nil && so.Head == v.pr.GetHead().GetSHA() {
		// Past GitHub's 250 listed commits: the head is one all the same.
		scope = append(append([]*github.RepositoryCommit(nil), commits...), &github.RepositoryCommit{SHA: github.String(so.Head)})
		total = len(scope)
	}
	reuse, reused := ev.Reuse(ctx, resolver, v.pr, v.comments)
	swept, found := ev.Sweep(ctx, scope, total, reused)
	gh := []signoff.Check{swept, ev.Evals(ctx, found), ev.Recipe(ctx, parsed), reuse}
	if lc.Truncated() {
		notes = append(notes, fmt.Sprintf("GitHub lists only %d of the PR's %d changed files; only those were verified.", lc.Listed, lc.Changed))
	}
	var blockers []string
	if v.teams == nil {
		v.teams = sweep.NewTeams(v.rc.Client)
	}
	verdict, err := signoff.Verify(ctx, signoff.Input{Change: ch, Registry: g.Registry, SignOff: parsed, SHA: so.Head, Teams: v.teams,
		GitHub: gh, Notes: notes, Author: so.Author, Blockers: blockers})
	if err != nil {
		// Checks 1-4 were decided; the others could not run.
		return signoff.Unfinished(so.Head, parsed.Signer, err, notes, gh)
	}
	return verdict
}

func inCommits(commits []*github.RepositoryCommit, sha string) bool {
	for _, c := range commits {
		if c.GetSHA() == sha {
			return true
		}
	}
	return false
}

// upTo returns the commits up to and including sha: a sweep of a later
// commit says nothing about what was signed. A signed commit no longer in
// the PR leaves none.
func upTo(commits []*github.RepositoryCommit, sha string) []*github.RepositoryCommit {
	for i, c := range commits {
		if c.GetSHA() == sha {
			return commits[:i+1]
		}
	}
	return nil
}
