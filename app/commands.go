package app

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/standing"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/app/sweep"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// DefaultCommandAssociations may issue comment commands (the reuse
// commands and `@<name> review`) unless configured otherwise: the
// associations that have write access to the repository.
var DefaultCommandAssociations = comment.DefaultAssociations

// DefaultSweepWorkflow is the file name of the sweep workflow whose runs
// reuse commands name.
const DefaultSweepWorkflow = "run-sweep.yml"

// commandRequest is a conversation comment that holds (or held, before an
// edit or its deletion) a reuse command.
type commandRequest struct {
	commentID int64
	// deleted: the comment is gone, and with it the authorization.
	deleted bool
}

// replyMarker identifies the bot's reply to command comment id, so an
// edited command updates its reply instead of adding one.
func replyMarker(id int64) string {
	return fmt.Sprintf("<!-- reviewbot:reuse-reply comment=%d -->", id)
}

var replyMarkerRe = regexp.MustCompile(`<!-- reviewbot:reuse-reply comment=(\d+) -->`)

// parseReplyMarker returns the command comment a reply answers.
func parseReplyMarker(body string) (int64, bool) {
	m := replyMarkerRe.FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	id, err := strconv.ParseInt(m[1], 10, 64)
	return id, err == nil
}

// commandReply is what the reply to one command comment says.
type commandReply struct {
	CommentID   int64
	CommentURL  string
	Author      string
	Association string
	// Command is the comment's current command; Gone is set when it has
	// none any more (edited out) or the comment was deleted.
	Command comment.Reuse
	Gone    string
	// Allowed are the associations that may issue commands.
	Allowed    []string
	Authorized bool
	// NotAuthors says why the comment's text is not its author's (edited
	// by someone else, or with no record of who edited it): it then
	// carries no command, whoever its author is.
	NotAuthors string
	Workflow   string
	Res        sweep.Resolution
	Warnings   []string
}

// render writes the reply comment.
func (r *commandReply) render() string {
	var b strings.Builder
	cmd := prose.Code(r.Command.String())
	if r.Command.Name == "" {
		cmd = "The reuse command"
	}
	if r.Gone != "" {
		where := fmt.Sprintf("comment %d", r.CommentID)
		if r.CommentURL != "" {
			where = "[this comment](" + r.CommentURL + ")"
		}
		fmt.Fprintf(&b, "%s of %s %s: it authorizes no reuse any more.\n", cmd, where, r.Gone)
		b.WriteString("\n" + replyMarker(r.CommentID) + "\n")
		return b.String()
	}
	who := fmt.Sprintf("**%s** ([comment](%s)) from @%s", cmd, r.CommentURL, r.Author)
	switch {
	case r.NotAuthors != "":
		fmt.Fprintf(&b, "%s was ignored: %s. Post the command again in a new comment.\n", who, strings.TrimSuffix(text.FirstLine(r.NotAuthors), "."))
		b.WriteString("\n" + replyMarker(r.CommentID) + "\n")
		return b.String()
	case !r.Authorized:
		fmt.Fprintf(&b, "%s was ignored: its author association is `%s`, and only %s may authorize reusing a sweep run. "+
			"Ask a maintainer with write access to post the command.\n", who, orNone(r.Association), joinOr(r.Allowed))
		b.WriteString("\n" + replyMarker(r.CommentID) + "\n")
		return b.String()
	case r.Res.Err != nil:
		fmt.Fprintf(&b, "%s (%s) could not be checked: %s. Edit the comment to have the App check it again.\n",
			who, r.Association, text.FirstLine(r.Res.Err.Error()))
	case r.Res.Run == nil:
		fmt.Fprintf(&b, "%s (%s) cannot be used: %s.\n\n%s\n", who, r.Association, r.Res.Reason, r.Res.Todo)
	default:
		run := r.Res.Run
		verb := "pins"
		if !r.Command.Pinned() {
			verb = "resolves now to"
		}
		fmt.Fprintf(&b, "%s (%s) %s this sweep run; at merge its results are reused instead of running the sweep again:\n\n", who, r.Association, verb)
		fmt.Fprintf(&b, "- run: [%d](%s) of %s\n", run.ID, run.URL, prose.Code(r.Workflow))
		fmt.Fprintf(&b, "- head SHA: `%s` (a commit of this PR)\n", run.HeadSHA)
		fmt.Fprintf(&b, "- conclusion: `%s`\n", run.Conclusion)
		fmt.Fprintf(&b, "- result artifacts: %s\n", text.CodeJoin(run.Artifacts))
		b.WriteString("\nWhile this authorization stands, later pushes to this PR skip the sweep; remove and re-add the primary sweep label to force a new one.\n")
	}
	if !r.Command.Pinned() && r.Command.Name == comment.CmdReuse && r.Command.Invalid == "" {
		b.WriteString("\nA bare `/reuse-sweep-run` is not one-shot: it stays in force for every later push to this PR " +
			"(each sync skips the sweep, and the merge reuses the latest successful run at that time) until a pinned " +
			"`/use <run_id>` or `/reuse-sweep-run <run_id>` supersedes it.\n")
	}
	if r.Res.Err == nil {
		for _, w := range r.Warnings {
			b.WriteString("\n🟡 " + w + "\n")
		}
	}
	b.WriteString("\n" + replyMarker(r.CommentID) + "\n")
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "NONE"
	}
	return s
}

func joinOr(items []string) string {
	if len(items) == 0 {
		return "nobody"
	}
	return prose.JoinOr(items)
}

// answerCommands replies to the reuse commands of a job: each command
// comment gets one reply, found again by its marker (on the bot's own
// comments only) and edited when the command changes. The comments are
// read as they are now, so a reply never answers a stale version.
func (s *Server) answerCommands(ctx context.Context, rc *ghapi.Repo, number int, reqs []*commandRequest, lease state.Lease) (string, error) {
	pr, err := rc.PR(ctx, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	login, comments, err := s.botComments(ctx, rc, number)
	if err != nil {
		return "", err
	}
	byID := map[int64]*github.IssueComment{}
	replies := map[int64]*github.IssueComment{}
	for _, c := range comments {
		byID[c.GetID()] = c
		if id, ok := parseReplyMarker(c.GetBody()); ok && ghapi.IsUser(c.GetUser(), login) && replies[id] == nil {
			replies[id] = c
		}
	}
	resolver := sweep.NewResolver(rc, s.cfg.SweepWorkflow, pr)
	authors := &standing.Reader{Ledger: s.ledger, Key: newPRJob(0, rc.Owner, rc.Name, number).key, Login: login}
	ex := s.executor(rc, number, pr.GetHead().GetSHA(), lease, login)
	done := map[int64]bool{}
	answered := 0
	for i := len(reqs) - 1; i >= 0; i-- { // the newest request of a comment counts
		req := reqs[i]
		if done[req.commentID] {
			continue
		}
		done[req.commentID] = true
		r := s.commandReply(ctx, resolver, authors, pr, byID[req.commentID], req)
		existing := replies[req.commentID]
		if r == nil || (r.Gone != "" && existing == nil) {
			continue // nothing was ever said about it
		}
		id := req.commentID
		if _, err := ex.UpsertComment(ctx, "the reply to comment "+strconv.FormatInt(id, 10), r.render(), existing, func(body string) bool {
			got, ok := parseReplyMarker(body)
			return ok && got == id
		}); err != nil {
			return "", err
		}
		answered++
	}
	if answered == 0 {
		return "commands_unchanged", nil
	}
	return "commands_answered", nil
}

// commandReply decides the reply to command comment c (nil: deleted).
func (s *Server) commandReply(ctx context.Context, resolver *sweep.Resolver, authors *standing.Reader, pr *github.PullRequest, c *github.IssueComment, req *commandRequest) *commandReply {
	r := &commandReply{CommentID: req.commentID, Allowed: s.cfg.CommandAssociations, Workflow: s.cfg.SweepWorkflow}
	if c == nil || req.deleted {
		r.Gone = "was deleted"
		return r
	}
	r.CommentURL, r.Author, r.Association = c.GetHTMLURL(), c.GetUser().GetLogin(), c.GetAuthorAssociation()
	cmd, ok := comment.ParseReuse(c.GetBody())
	if !ok {
		r.Gone = "was removed in an edit"
		return r
	}
	r.Command = cmd
	why, err := authors.AuthorsComment(ctx, c)
	if err != nil {
		r.Res.Err = fmt.Errorf("read who edited the comment: %w", err)
		return r
	}
	if why != "" {
		r.NotAuthors = why
		return r
	}
	r.Authorized = s.mayCommand(r.Association)
	if !r.Authorized {
		return r
	}
	r.Res = resolver.Resolve(ctx, cmd)
	r.Warnings = sweep.AnalyzeLabels(sweep.LabelNames(pr)).Warnings()
	return r
}
