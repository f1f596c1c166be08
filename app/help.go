package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// helpMarker identifies the bot's answer to `@<name> help` comment id.
func helpMarker(id int64) string { return fmt.Sprintf("<!-- reviewbot:help comment=%d -->", id) }

// helpText lists the comment commands and the rules.
func (s *Server) helpText(id int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**reviewbot commands** (on a line of their own; text in code blocks, quotes and HTML comments is not read)\n\n")
	fmt.Fprintf(&b, "- `@%s review` or `@%s re-review`: review the PR's head now\n", s.cfg.Name, s.cfg.Name)
	fmt.Fprintf(&b, "- `@%s help`: this list\n", s.cfg.Name)
	b.WriteString("- `/use <run_id>` or `/reuse-sweep-run [<run_id>]`: authorize reusing a sweep run at merge\n")
	fmt.Fprintf(&b, "\nCommands count from %s. A CODEOWNER's sign-off (a comment or review with the phrase of the checklist template) is verified, and its verdict sets the `%s` status.\n",
		joinOr(s.cfg.CommandAssociations), gate.StatusContext)
	b.WriteString("\n<details><summary>Rules</summary>\n\n| rule | severity | title |\n|---|---|---|\n")
	for _, r := range s.reg.Rules() {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.ID, r.Severity, strings.ReplaceAll(r.Title, "|", "\\|"))
	}
	b.WriteString("\n</details>\n\n" + helpMarker(id) + "\n")
	return b.String()
}

// answerHelp answers each `@<name> help` comment once (an edit of the
// comment finds the same answer by its marker).
func (s *Server) answerHelp(ctx context.Context, rc *ghapi.Repo, number int, ids []int64, lease state.Lease) (string, error) {
	pr, err := rc.PR(ctx, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	login, comments, err := s.botComments(ctx, rc, number)
	if err != nil {
		return "", err
	}
	ex := s.executor(rc, number, pr.GetHead().GetSHA(), lease, login)
	done := map[int64]bool{}
	for _, id := range ids {
		if done[id] {
			continue
		}
		done[id] = true
		marker := helpMarker(id)
		var existing *github.IssueComment
		for _, c := range comments {
			if ghapi.IsUser(c.GetUser(), login) && strings.Contains(c.GetBody(), marker) {
				existing = c
			}
		}
		if _, err := ex.UpsertComment(ctx, "the help", s.helpText(id), existing, func(b string) bool { return strings.Contains(b, marker) }); err != nil {
			return "", err
		}
	}
	return "help_answered", nil
}
