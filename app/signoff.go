package app

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/signoff"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// SignoffStatusContext is the commit status the sign-off verification
// sets: success only on a PASS verdict.
const SignoffStatusContext = "codeowner-signoff-verify"

// hasSignoff reports whether a comment or review body carries the
// CODEOWNER sign-off phrase that starts sign-off verification.
func hasSignoff(body string) bool { return strings.Contains(body, signoff.Phrase) }

// Where a sign-off was written.
const (
	sourceComment       = "comment"        // a PR conversation comment
	sourceReview        = "review"         // a review's body
	sourceReviewComment = "review comment" // an inline review comment
)

// signoffRequest is a sign-off to verify, as its delivery carried it.
type signoffRequest struct {
	source string
	// id is the comment's or review's id; url its page.
	id  int64
	url string
	// author posted it.
	author string
	body   string
	// at is when it was written or last edited.
	at time.Time
	// commit is the commit a review or review comment was written on
	// (GitHub records it); "" for a conversation comment.
	commit string
}

// verifySignoff verifies one sign-off and publishes the verdict: one
// comment per signed commit (edited when re-run) and the
// codeowner-signoff-verify status on it. Evidence that cannot be had fails
// its check, so an outage rejects rather than passes.
func (s *Server) verifySignoff(ctx context.Context, rc *repoClient, number int, req *signoffRequest, lease Lease) (string, error) {
	pr, _, err := rc.gh.PullRequests.Get(ctx, rc.owner, rc.repo, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.slug(), number, err)
	}
	switch {
	case pr.GetState() != "open":
		return "signoff_skipped_closed", nil
	case pr.GetDraft():
		return "signoff_skipped_draft", nil
	}
	login, comments, err := s.botComments(ctx, rc, number)
	if err != nil {
		return "", err
	}
	if req.source == sourceComment {
		// Verify the comment as it reads now: a later edit wins over the
		// delivery that queued this job.
		cur := findComment(comments, req.id)
		if cur == nil || !hasSignoff(cur.GetBody()) {
			// Deleted, or the phrase edited out: the newest other sign-off
			// stands in for it; with none left, a passing status must not
			// outlive the sign-off it vouched for.
			other := newestSignoff(comments, req.id)
			if other == nil {
				return s.withdrawSignoff(ctx, rc, pr, login, comments, lease)
			}
			cur = other
			req.id, req.author, req.at = other.GetID(), other.GetUser().GetLogin(), time.Time{}
		}
		req.body, req.url = cur.GetBody(), cur.GetHTMLURL()
		if t := cur.GetUpdatedAt().Time; t.After(req.at) {
			req.at = t
		}
	}
	so, ok := signoff.Parse(req.body)
	if !ok {
		return "signoff_withdrawn", nil // a review's phrase edited out
	}

	vctx, cancel := context.WithTimeout(ctx, s.cfg.SignoffTimeout)
	v := s.buildVerdict(vctx, rc, pr, so, req, comments)
	timedOut := vctx.Err() != nil && ctx.Err() == nil
	cancel()
	if timedOut {
		s.log.Warn("sign-off verification ran out of time; the checks that were waiting fail",
			"repo", rc.slug(), "pr", number, "timeout", s.cfg.SignoffTimeout.String())
	}

	// The head may have moved while the evidence was gathered.
	cur, _, err := rc.gh.PullRequests.Get(ctx, rc.owner, rc.repo, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.slug(), number, err)
	}
	head := cur.GetHead().GetSHA()
	if head != v.SHA && !mentions(v.Notes, head) {
		v.Notes = append(v.Notes, fmt.Sprintf("The PR's head moved to `%s` while this sign-off was verified; this verdict is for the signed commit `%s`. "+
			"A fresh sign-off is needed on the new head, whose %s status fails until then.", head, v.SHA, SignoffStatusContext))
	}
	ex := &executor{s: s, rc: rc, number: number, head: v.SHA, lease: lease, login: login}
	var existing *github.IssueComment
	for _, c := range comments {
		if sha, ok := signoff.ParseMarker(c.GetBody()); ok && sha == v.SHA && isAuthor(c.GetUser(), login) {
			existing = c
			break
		}
	}
	posted, postErr := ex.upsertComment(ctx, "the sign-off verdict", v.Render(), existing, func(body string) bool {
		sha, ok := signoff.ParseMarker(body)
		return ok && sha == v.SHA
	})
	if postErr != nil && (errors.Is(postErr, ErrLeaseLost) || ctx.Err() != nil) {
		return "", postErr
	}
	// The status goes out even when the comment could not: a merge must
	// not wait on, or pass by, a verdict nobody could read.
	st := reviewer.Status{State: "failure", Description: v.Description()}
	if v.Pass() && postErr == nil {
		st.State = "success"
	}
	if postErr != nil {
		st.Description = "Sign-off verdict could not be posted; rejected until it is"
	}
	if err := ex.postStatus(ctx, v.SHA, SignoffStatusContext, st, posted.GetHTMLURL()); err != nil {
		return "", errors.Join(postErr, err)
	}
	if head != v.SHA {
		stale := reviewer.Status{State: "failure",
			Description: fmt.Sprintf("The sign-off is for %s, not this head: a fresh sign-off is needed", short(v.SHA))}
		if err := ex.postStatus(ctx, head, SignoffStatusContext, stale, posted.GetHTMLURL()); err != nil {
			return "", errors.Join(postErr, err)
		}
	}
	if postErr != nil {
		return "", postErr
	}
	if v.Pass() {
		return "signoff_passed", nil
	}
	return "signoff_rejected", nil
}

// newestSignoff is the newest sign-off comment other than id, by a person.
func newestSignoff(comments []*github.IssueComment, id int64) *github.IssueComment {
	var best *github.IssueComment
	for _, c := range comments {
		if c.GetID() == id || c.GetUser().GetType() == "Bot" || !hasSignoff(c.GetBody()) {
			continue
		}
		if best == nil || !c.GetCreatedAt().Time.Before(best.GetCreatedAt().Time) {
			best = c
		}
	}
	return best
}

// withdrawSignoff handles a sign-off deleted or edited into something
// else with no other sign-off left: the head's status fails, naming why,
// when the App had verified a sign-off there.
func (s *Server) withdrawSignoff(ctx context.Context, rc *repoClient, pr *github.PullRequest, login string, comments []*github.IssueComment, lease Lease) (string, error) {
	head := pr.GetHead().GetSHA()
	var verdict *github.IssueComment
	for _, c := range comments {
		if sha, ok := signoff.ParseMarker(c.GetBody()); ok && sha == head && isAuthor(c.GetUser(), login) {
			verdict = c
		}
	}
	if verdict == nil {
		return "signoff_withdrawn", nil
	}
	ex := &executor{s: s, rc: rc, number: pr.GetNumber(), head: head, lease: lease, login: login}
	st := reviewer.Status{State: "failure", Description: "The sign-off was withdrawn: a CODEOWNER must sign off again"}
	if err := ex.postStatus(ctx, head, SignoffStatusContext, st, verdict.GetHTMLURL()); err != nil {
		return "", err
	}
	return "signoff_withdrawn", nil
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
func (s *Server) buildVerdict(ctx context.Context, rc *repoClient, pr *github.PullRequest, so *signoff.SignOff, req *signoffRequest, comments []*github.IssueComment) *signoff.Verdict {
	head := pr.GetHead().GetSHA()
	resolver := newReuseResolver(rc, s.cfg.SweepWorkflow, pr)
	commits, err := resolver.prCommits(ctx)
	if err != nil {
		return fatalVerdict(head, so.Signer, err, nil, nil)
	}
	sc := signedCommit(req, head, commits)
	lc, err := s.loadChangeAt(ctx, rc.gh, pr, sc.sha)
	if err != nil {
		return fatalVerdict(sc.sha, so.Signer, err, sc.notes, nil)
	}
	ch := lc.change
	cfg, err := checks.LoadConfig(ctx, ch.Base)
	if err == nil {
		err = cfg.ResolveLayout(ctx, ch.Base, ch.Head)
	}
	if err != nil {
		return fatalVerdict(sc.sha, so.Signer, fmt.Errorf("the repository configuration: %w", err), sc.notes, nil)
	}
	ch.Config = cfg

	ev := &evidence{s: s, rc: rc, ch: ch, resolver: resolver}
	scope, total := upTo(commits, sc.sha), len(commits)
	if scope == nil && sc.sha == head {
		// Past GitHub's 250 listed commits: the head is one all the same.
		scope = append(append([]*github.RepositoryCommit(nil), commits...), &github.RepositoryCommit{SHA: github.String(head)})
		total = len(scope)
	}
	sweep, found := ev.sweep(ctx, scope, total)
	gh := []signoff.Check{sweep, ev.evals(ctx, found), ev.recipe(ctx, so), ev.reuse(ctx, resolver, pr, comments)}
	notes := sc.notes
	if lc.truncated() {
		notes = append(notes, fmt.Sprintf("GitHub lists only %d of the PR's %d changed files; only those were verified.", lc.listed, lc.changed))
	}
	v, err := signoff.Verify(ctx, signoff.Input{Change: ch, Registry: s.reg, SignOff: so, SHA: sc.sha, Teams: &apiTeams{gh: rc.gh},
		GitHub: gh, Notes: notes, Author: req.author, Blockers: sc.blockers})
	if err != nil {
		// Checks 1-4 were decided; the others could not run.
		return fatalVerdict(sc.sha, so.Signer, err, notes, gh)
	}
	return v
}

// fatalVerdict rejects a sign-off whose verification could not finish:
// the checks already decided keep their result, every other check fails
// with the cause, so the verdict says what went wrong and the status fails
// closed.
func fatalVerdict(sha, signer string, cause error, notes []string, decided []signoff.Check) *signoff.Verdict {
	v := &signoff.Verdict{SHA: sha, Signer: signer, Notes: notes}
	why := firstLine(cause.Error())
	if errors.Is(cause, context.DeadlineExceeded) {
		why = "the verification ran out of time (" + why + ")"
	}
	have := map[int]signoff.Check{}
	for _, c := range decided {
		have[c.N] = c
	}
	for n := signoff.CheckOwner; n <= signoff.CheckAppendOnly; n++ {
		if c, ok := have[n]; ok {
			v.Checks = append(v.Checks, c)
			continue
		}
		v.Checks = append(v.Checks, signoff.Check{N: n, Status: signoff.Fail, Reason: "not verified: " + why})
	}
	return v
}

// signed is the commit a sign-off vouches for.
type signed struct {
	sha      string
	notes    []string
	blockers []string
}

// signedCommit decides which commit a sign-off signed. A review and a
// review comment name theirs (GitHub records the commit they were written
// on). A conversation comment does not: it signed the head as it was when
// the comment was written (or last edited), which is the head now unless
// the head commit is newer than the comment; then it is the newest commit
// of the PR that is not (commits are dated by their committer date, which
// a push cannot make later than the push).
func signedCommit(req *signoffRequest, head string, commits []*github.RepositoryCommit) signed {
	out := signed{sha: head}
	inPR := func(sha string) bool {
		for _, c := range commits {
			if c.GetSHA() == sha {
				return true
			}
		}
		return false
	}
	switch {
	case req.commit != "":
		out.sha = req.commit
	case len(commits) == 0 || req.at.IsZero():
	default:
		date := func(c *github.RepositoryCommit) time.Time { return c.GetCommit().GetCommitter().GetDate().Time }
		last := commits[len(commits)-1]
		if last.GetSHA() != head || !date(last).After(req.at) {
			break
		}
		out.sha = ""
		for i := len(commits) - 1; i >= 0; i-- {
			if !date(commits[i]).After(req.at) {
				out.sha = commits[i].GetSHA()
				break
			}
		}
		if out.sha == "" {
			out.sha = head
			out.notes = append(out.notes, fmt.Sprintf("Every commit of this PR is newer than the sign-off (%s), so the commit it signed "+
				"cannot be told (a rebase after the sign-off?); this verdict is for the head `%s`, which the sign-off did not see.",
				req.at.UTC().Format(time.RFC3339), head))
			out.blockers = append(out.blockers, "the sign-off predates every commit of this PR, so a fresh sign-off on the head is needed")
			return out
		}
	}
	if out.sha == head {
		return out
	}
	if !inPR(out.sha) {
		out.notes = append(out.notes, fmt.Sprintf("The signed commit `%s` is no longer part of this PR (force-pushed away?); its head is now `%s`. "+
			"Sign off again on the head.", out.sha, head))
	} else {
		out.notes = append(out.notes, fmt.Sprintf("The PR's head moved to `%s` after this sign-off; this verdict is for the signed commit `%s`. "+
			"A fresh sign-off is needed on the new head, whose %s status fails until then.", head, out.sha, SignoffStatusContext))
	}
	return out
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

// sortedByCreation returns comments oldest first.
func sortedByCreation(cs []*github.IssueComment) []*github.IssueComment {
	out := append([]*github.IssueComment(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].GetCreatedAt().Time.Before(out[j].GetCreatedAt().Time) })
	return out
}
