// Package comment is the one parser of pull request comments: the reuse
// commands, `@<name> review` / `help`, and whether a comment is a sign-off,
// all read from what a reader sees (package markdown); and the one
// authorization rule for commands.
package comment

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/signoff"
	"github.com/reviewbot-dev/reviewbot/internal/markdown"
)

// The reuse commands (docs/app.md: "Reuse commands"): a maintainer authorizes merging with the
// results of a sweep run instead of running the sweep again.
const (
	CmdReuse = "/reuse-sweep-run" // legacy; bare, or with a run id
	CmdUse   = "/use"             // with a run id
)

// SignoffPhrase starts every CODEOWNER sign-off.
const SignoffPhrase = signoff.Phrase

// Reuse is the reuse command of one comment.
type Reuse struct {
	Name string // CmdReuse or CmdUse
	// RunID is the pinned run; 0 for a bare command.
	RunID int64
	// Invalid says why the command cannot be acted on as written (a bare
	// /use, a run id that is not a number GitHub could have issued); ""
	// when it is well-formed.
	Invalid string
}

// String is the command as its author wrote it.
func (c Reuse) String() string {
	if c.RunID != 0 {
		return c.Name + " " + strconv.FormatInt(c.RunID, 10)
	}
	return c.Name
}

// Pinned reports whether the command names a run.
func (c Reuse) Pinned() bool { return c.RunID != 0 }

// Parsed is what one comment asks for.
type Parsed struct {
	// Reuse is the comment's reuse command: the last one when it holds
	// several (the author's final intent, as the repository's merge
	// tooling reads it); nil when it has none.
	Reuse *Reuse
	// Bot is the `@<name>` command ("review", "re-review", "help"), the
	// first one on a line of its own; "" when there is none.
	Bot string
	// Signoff is set when the sign-off phrase is in the visible text.
	Signoff bool
}

// reuseRe is the repository's own tooling's pattern for each command:
// the command alone on its line, optionally followed by a run id.
var reuseRe = regexp.MustCompile(`^\s*(` + regexp.QuoteMeta(CmdReuse) + `|` + regexp.QuoteMeta(CmdUse) + `)(?:\s+(\d+))?\s*$`)

// Parse reads the commands of a comment body. name is the mention name
// of the bot's own commands (`@<name> review`); "" reads none.
func Parse(body, name string) Parsed {
	var p Parsed
	var botRe *regexp.Regexp
	if name != "" {
		botRe = regexp.MustCompile(`(?i)^\s*@` + regexp.QuoteMeta(name) + `\s+(review|re-review|help)\s*$`)
	}
	p.Signoff = signoff.Present(body)
	for _, l := range markdown.Visible(body) {
		if m := reuseRe.FindStringSubmatch(l.Text); m != nil {
			r := reuseOf(m[1], m[2])
			p.Reuse = &r
			continue
		}
		if botRe != nil && p.Bot == "" {
			if m := botRe.FindStringSubmatch(l.Text); m != nil {
				p.Bot = strings.ToLower(m[1])
			}
		}
	}
	return p
}

// ParseReuse returns the reuse command of a comment body, if any.
func ParseReuse(body string) (Reuse, bool) {
	if c := Parse(body, "").Reuse; c != nil {
		return *c, true
	}
	return Reuse{}, false
}

// HasSignoff reports whether body carries the sign-off phrase where a
// reader sees it.
func HasSignoff(body string) bool { return signoff.Present(body) }

func reuseOf(name, id string) Reuse {
	c := Reuse{Name: name}
	switch {
	case id != "":
		n, err := strconv.ParseInt(id, 10, 64)
		switch {
		case err != nil:
			c.Invalid = id + " is not a run id (too large)"
		case n == 0:
			c.Invalid = "0 is not a run id"
		default:
			c.RunID = n
		}
	case name == CmdUse:
		c.Invalid = "`/use` needs the id of the run to reuse: `/use <run_id>`"
	}
	return c
}

// DefaultAssociations may issue comment commands unless configured
// otherwise: the author associations that have write access to the
// repository.
var DefaultAssociations = []string{"OWNER", "MEMBER", "COLLABORATOR"}

// Authorized is the one authorization rule for comment commands (the
// reuse commands and `@<name> review`): the comment's author_association
// is one of allowed. The sign-off phrase is not a command: who may sign
// off is decided by CODEOWNERS.
func Authorized(allowed []string, association string) bool {
	a := strings.ToUpper(strings.TrimSpace(association))
	for _, x := range allowed {
		if x == a {
			return a != ""
		}
	}
	return false
}
