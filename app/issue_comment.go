package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/standing"
)

// onIssueComment handles issue_comment on a pull request. One comment may
// ask for several things, each handled in the PR's job:
//   - a reuse command (/reuse-sweep-run, /use <run_id>): 👀 on the
//     comment, then a reply (kept up to date when the comment is edited or
//     deleted);
//   - `@<name> review` (or re-review) from someone the command rule
//     authorizes: 👀, then a review; `@<name> help`: a reply;
//   - the sign-off phrase: the sign-off is verified.
//
// Every command is read by the one comment parser (package comment) from
// the comment's visible text.
func (s *Server) onIssueComment(ctx context.Context, d *delivery, ev *github.IssueCommentEvent) routed {
	issue, cm, repo := ev.GetIssue(), ev.GetComment(), ev.GetRepo()
	if issue == nil || cm == nil || repo == nil {
		return routed{outcome: "bad_payload", detail: "issue_comment without issue, comment or repository", status: 400}
	}
	owner, name := repo.GetOwner().GetLogin(), repo.GetName()
	action := ev.GetAction()
	d.action, d.repo, d.number = action, repo.GetFullName(), issue.GetNumber()
	if owner == "" || name == "" || issue.GetNumber() == 0 || cm.GetID() == 0 {
		return routed{outcome: "bad_payload", detail: "issue_comment without repository, number or comment id", status: 400}
	}
	if issue.PullRequestLinks == nil {
		return ignored("comment on an issue, not a pull request")
	}
	if action != "created" && action != "edited" && action != "deleted" {
		return ignored("issue_comment " + action + " needs nothing")
	}
	if cm.GetUser().GetType() == "Bot" {
		return ignored("comment by a bot")
	}
	if issue.GetState() != "open" {
		return ignored("pull request is not open")
	}
	body, before := cm.GetBody(), ev.GetChanges().GetBody().GetFrom()
	now, was := comment.Parse(body, s.cfg.Name), comment.Parse(before, s.cfg.Name)
	who := cm.GetUser().GetLogin()
	j := newPRJob(ev.GetInstallation().GetID(), owner, name, issue.GetNumber())
	var did []string

	if action == "edited" {
		// Who edited is the sender, not the comment's author: anyone with
		// write access may edit any comment. The record decides whether
		// the comment still speaks for its author (a sign-off does only
		// if its author made the last edit).
		at := cm.GetUpdatedAt().Time
		if err := s.ledger.RecordEdit(ctx, j.key, standing.EditObject(standing.Comment, cm.GetID()), ev.GetSender().GetLogin(), at); err != nil {
			return routed{outcome: "store_error", detail: "cannot record who edited the comment: " + err.Error(), status: 503}
		}
	}

	// Reuse commands. An edit that removes one, or the deletion of its
	// comment, still needs its reply corrected.
	switch {
	case action == "deleted" && now.Reuse != nil:
		j.req.commands = append(j.req.commands, &commandRequest{commentID: cm.GetID(), deleted: true})
		did = append(did, "reuse command deleted")
	case action != "deleted" && (now.Reuse != nil || was.Reuse != nil):
		j.req.commands = append(j.req.commands, &commandRequest{commentID: cm.GetID()})
		if now.Reuse != nil {
			j.req.reactTo = append(j.req.reactTo, cm.GetID())
		}
		did = append(did, "reuse command by "+who)
	}

	if action != "deleted" && now.Bot != "" && !(action == "edited" && was.Bot == now.Bot) {
		assoc := cm.GetAuthorAssociation()
		switch {
		case action == "edited" && ev.GetSender().GetLogin() != who:
			// Someone else's edit does not make the author ask for it.
			s.log.Info("command edited into someone else's comment ignored", append(d.attrs(), "author", who, "editor", ev.GetSender().GetLogin())...)
		case !s.mayCommand(assoc):
			s.log.Info("command not authorized", append(d.attrs(), "user", who, "author_association", assoc,
				"reason", fmt.Sprintf("@%s %s from %s ignored: author_association %s, and only %s may issue commands",
					s.cfg.Name, now.Bot, who, assoc, joinOr(s.cfg.CommandAssociations)))...)
		case now.Bot == "help":
			j.req.help = append(j.req.help, cm.GetID())
			did = append(did, "@"+s.cfg.Name+" help by "+who)
		default:
			j.req.review = true
			if !slices.Contains(j.req.reactTo, cm.GetID()) {
				j.req.reactTo = append(j.req.reactTo, cm.GetID())
			}
			did = append(did, "@"+s.cfg.Name+" "+now.Bot+" by "+who)
		}
	}

	if now.Signoff || was.Signoff {
		at := cm.GetUpdatedAt().Time
		if at.IsZero() || action == "created" {
			at = cm.GetCreatedAt().Time
		}
		j.req.signoffs = append(j.req.signoffs, &gate.Request{Source: standing.Comment, ID: cm.GetID(),
			URL: cm.GetHTMLURL(), Author: who, Body: body, At: at, Gone: action == "deleted"})
		switch {
		case action == "deleted":
			did = append(did, "sign-off deleted")
		case !now.Signoff:
			did = append(did, "sign-off edited out")
		default:
			did = append(did, "sign-off by "+who)
		}
	}
	if len(did) == 0 {
		return ignored("no command for @" + s.cfg.Name + ", no reuse command and no sign-off")
	}
	return routed{job: j, detail: strings.Join(did, "; ")}
}
