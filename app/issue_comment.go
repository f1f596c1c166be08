package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
)

// onIssueComment handles issue_comment on a pull request. One comment may
// ask for several things, each handled in the PR's job:
//   - a reuse command (/reuse-sweep-run, /use <run_id>): 👀 on the
//     comment, then a reply (kept up to date when the comment is edited or
//     deleted);
//   - `@<name> review` (or re-review) from someone with write access: 👀,
//     then a review;
//   - the sign-off phrase: the sign-off is verified.
func (s *Server) onIssueComment(_ context.Context, d *delivery, ev *github.IssueCommentEvent) routed {
	issue, comment := ev.GetIssue(), ev.GetComment()
	owner, repo := ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName()
	action := ev.GetAction()
	d.action, d.repo, d.number = action, ev.GetRepo().GetFullName(), issue.GetNumber()
	if !issue.IsPullRequest() {
		return ignored("comment on an issue, not a pull request")
	}
	if action != "created" && action != "edited" && action != "deleted" {
		return ignored("issue_comment " + action + " needs nothing")
	}
	if comment.GetUser().GetType() == "Bot" {
		return ignored("comment by a bot")
	}
	if issue.GetState() != "open" {
		return ignored("pull request is not open")
	}
	body, before := comment.GetBody(), ev.GetChanges().GetBody().GetFrom()
	who := comment.GetUser().GetLogin()
	j := newPRJob(ev.GetInstallation().GetID(), owner, repo, issue.GetNumber())
	var did []string

	// Reuse commands. An edit that removes one, or the deletion of its
	// comment, still needs its reply corrected.
	_, hasCmd := parseSlashCommand(body)
	_, hadCmd := parseSlashCommand(before)
	switch {
	case action == "deleted" && hasCmd:
		j.req.commands = append(j.req.commands, &commandRequest{commentID: comment.GetID(), deleted: true})
		did = append(did, "reuse command deleted")
	case action != "deleted" && (hasCmd || hadCmd):
		j.req.commands = append(j.req.commands, &commandRequest{commentID: comment.GetID()})
		if hasCmd {
			j.req.reactTo = append(j.req.reactTo, comment.GetID())
		}
		did = append(did, "reuse command by "+who)
	}
	if action == "deleted" {
		if hasSignoff(body) || hasSignoff(before) {
			// A withdrawn sign-off must not leave a passing status behind.
			j.req.signoffs = append(j.req.signoffs, &signoffRequest{source: sourceComment, id: comment.GetID(), author: who})
			did = append(did, "sign-off deleted")
		}
		if len(did) == 0 {
			return ignored("deleted comment held no reuse command and no sign-off")
		}
		return routed{job: j, detail: strings.Join(did, "; ")}
	}

	if cmd, ok := parseReviewCommand(body, s.cfg.Name); ok {
		_, already := parseReviewCommand(before, s.cfg.Name)
		assoc := comment.GetAuthorAssociation()
		switch {
		case action == "edited" && already:
			// The command was already there before the edit.
		case !mayCommand(assoc):
			s.log.Info("review command not authorized", append(d.attrs(), "user", who, "author_association", assoc,
				"reason", fmt.Sprintf("@%s %s from %s ignored: author_association %s, and only OWNER, MEMBER or COLLABORATOR may ask for a review",
					s.cfg.Name, cmd, who, assoc))...)
		default:
			j.req.review = true
			if !contains64(j.req.reactTo, comment.GetID()) {
				j.req.reactTo = append(j.req.reactTo, comment.GetID())
			}
			did = append(did, "@"+s.cfg.Name+" "+cmd+" by "+who)
		}
	}

	if hasSignoff(body) || hasSignoff(before) {
		at := comment.GetUpdatedAt().Time
		if at.IsZero() {
			at = comment.GetCreatedAt().Time
		}
		j.req.signoffs = append(j.req.signoffs, &signoffRequest{source: sourceComment, id: comment.GetID(),
			url: comment.GetHTMLURL(), author: who, body: body, at: at})
		did = append(did, "sign-off by "+who)
	}
	if len(did) == 0 {
		return ignored("no command for @" + s.cfg.Name + ", no reuse command and no sign-off")
	}
	return routed{job: j, detail: strings.Join(did, "; ")}
}

func contains64(list []int64, v int64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
