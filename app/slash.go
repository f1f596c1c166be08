package app

import (
	"regexp"
	"strconv"
	"strings"
)

// The reuse commands (SPEC §5): a maintainer authorizes merging with the
// results of a sweep run instead of running the sweep again.
const (
	cmdReuse = "/reuse-sweep-run" // legacy; bare, or with a run id
	cmdUse   = "/use"             // with a run id
)

// slashCommand is the reuse command of one comment.
type slashCommand struct {
	Name string // cmdReuse or cmdUse
	// RunID is the pinned run; 0 for a bare command.
	RunID int64
	// Invalid says why the command cannot be acted on as written (a bare
	// /use, a run id that is not a number GitHub could have issued); ""
	// when it is well-formed.
	Invalid string
}

// String is the command as its author wrote it.
func (c slashCommand) String() string {
	if c.RunID != 0 {
		return c.Name + " " + strconv.FormatInt(c.RunID, 10)
	}
	return c.Name
}

// Pinned reports whether the command names a run.
func (c slashCommand) Pinned() bool { return c.RunID != 0 }

// commandRe is the repository's own tooling's pattern for each command:
// the command alone on its line, optionally followed by a run id.
var commandRe = regexp.MustCompile(`^\s*(` + regexp.QuoteMeta(cmdReuse) + `|` + regexp.QuoteMeta(cmdUse) + `)(?:\s+(\d+))?\s*$`)

// parseSlashCommand returns the reuse command of a comment body: the last
// one when it holds several (the author's final intent, as the tooling
// reads it). Lines in fenced or indented code blocks, in quotes and in
// HTML comments are not commands: a reply quoting a command, or
// documentation showing one, authorizes nothing.
func parseSlashCommand(body string) (slashCommand, bool) {
	var last slashCommand
	found := false
	for _, line := range commandLines(body) {
		m := commandRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := slashCommand{Name: m[1]}
		if m[2] != "" {
			id, err := strconv.ParseInt(m[2], 10, 64)
			switch {
			case err != nil:
				c.Invalid = m[2] + " is not a run id (too large)"
			case id == 0:
				c.Invalid = "0 is not a run id"
			default:
				c.RunID = id
			}
		} else if c.Name == cmdUse {
			c.Invalid = "`/use` needs the id of the run to reuse: `/use <run_id>`"
		}
		last, found = c, true
	}
	return last, found
}

// commandLines returns the lines of a markdown body that are ordinary
// text: not in a fenced code block, an indented code block, a block quote
// or an HTML comment.
func commandLines(body string) []string {
	var out []string
	var fence string // the opening fence while inside a fenced block
	inComment := false
	prevBlank, inList, inIndented := true, false, false
	for _, line := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if isClosingFence(t, fence) {
				fence = ""
			}
			continue
		}
		if inComment {
			if strings.Contains(t, "-->") {
				inComment = false
			}
			continue
		}
		if t == "" {
			prevBlank = true
			continue
		}
		indented := strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
		// An indented line starts a code block only after a blank line
		// outside a list (inside a list it continues the item), and the
		// block goes on until a line that is not indented.
		if indented && (inIndented || (prevBlank && !inList)) {
			inIndented, prevBlank = true, false
			continue
		}
		inIndented = false
		wasBlank := prevBlank
		prevBlank = false
		if f := openingFence(t); f != "" {
			fence = f
			continue
		}
		if strings.HasPrefix(t, "<!--") {
			if !strings.Contains(t[4:], "-->") {
				inComment = true
			}
			continue
		}
		if strings.HasPrefix(t, ">") {
			continue
		}
		if listItemRe.MatchString(line) {
			inList = true
		} else if wasBlank && !indented {
			inList = false
		}
		out = append(out, line)
	}
	return out
}

var listItemRe = regexp.MustCompile(`^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s`)

// openingFence returns the fence a line opens (three or more backticks or
// tildes), or "".
func openingFence(t string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// isClosingFence reports whether a line closes a block opened by fence:
// the same character, at least as many, nothing after.
func isClosingFence(t, fence string) bool {
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}
