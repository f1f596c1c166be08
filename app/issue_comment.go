package app

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// onIssueComment handles issue_comment on a pull request: `@<name> review`
// (or re-review) from someone with write access runs a review now, with 👀
// on the comment as the receipt.
func (s *Server) onIssueComment(_ context.Context, d *delivery, ev *github.IssueCommentEvent) routed {
	issue, comment := ev.GetIssue(), ev.GetComment()
	owner, repo := ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName()
	d.action, d.repo, d.number = ev.GetAction(), ev.GetRepo().GetFullName(), issue.GetNumber()
	if !issue.IsPullRequest() {
		return ignored("comment on an issue, not a pull request")
	}
	if ev.GetAction() != "created" && ev.GetAction() != "edited" {
		return ignored("issue_comment " + ev.GetAction() + " needs nothing")
	}
	if comment.GetUser().GetType() == "Bot" {
		return ignored("comment by a bot")
	}
	cmd, ok := parseReviewCommand(comment.GetBody(), s.cfg.Name)
	if !ok {
		return ignored("no command for @" + s.cfg.Name)
	}
	if ev.GetAction() == "edited" {
		if _, before := parseReviewCommand(ev.GetChanges().GetBody().GetFrom(), s.cfg.Name); before {
			return ignored("the command was already there before the edit")
		}
	}
	who, assoc := comment.GetUser().GetLogin(), comment.GetAuthorAssociation()
	if !mayCommand(assoc) {
		why := fmt.Sprintf("@%s %s from %s ignored: author_association %s, and only OWNER, MEMBER or COLLABORATOR may ask for a review",
			s.cfg.Name, cmd, who, assoc)
		s.log.Info("review command not authorized", append(d.attrs(), "user", who, "author_association", assoc)...)
		return ignored(why)
	}
	if issue.GetState() != "open" {
		return ignored("pull request is not open")
	}
	j := newPRJob(ev.GetInstallation().GetID(), owner, repo, issue.GetNumber())
	j.req.review = true
	j.req.reactTo = []int64{comment.GetID()}
	return routed{job: j, detail: "@" + s.cfg.Name + " " + cmd + " by " + who}
}
