package recipe

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH027 reports a command line that starts with an option: the line
// continuation above it broke, so the command ends early and the shell
// runs the rest as a program of its own.
var SH027 = &checks.Rule{
	ID:       "SH027",
	Severity: checks.Blocking,
	Title:    "Line runs as a stray command: a broken line continuation or a pasted diff line",
	Doc: "A server or client command written over several lines holds together only while every line but the " +
		"last ends with a backslash right before the newline. A space or tab after the backslash, a doubled " +
		"backslash (`\\\\`, which is a literal backslash), a comment line or a blank line " +
		"in the middle ends the command there: it runs without the options below, and the shell then runs the " +
		"next line, `--port 8000 \\`, as a program of its own, which fails with \"command not found\" (or, with " +
		"the trailing `&` now on that line, leaves the server in the foreground). This rule reports a command " +
		"whose first word is an option, on lines the PR writes in a recipe or launcher, and says what broke the " +
		"line above. Make the line above end in a single backslash, and move comments out of the command. The same " +
		"rule reports a line that begins with a diff marker in its first column (`-MAX_NUM_SEQS=...` next to " +
		"`+MAX_NUM_SEQS=...`): a hunk pasted into the script, whose assignments never happen.",
	Run: runSH027,
}

// breakCause is why the continuation above a stray option broke.
type breakCause struct {
	// line is the line that should have continued the command.
	line int
	what string
	// fixed is that line as it should read, "" when the fix is a move.
	fixed string
	// diff is set when the line is a pasted diff line.
	diff bool
}

// pastedDiffLine reports whether line n, which starts with a + or -,
// sits next to another line that starts with the other marker or the same
// one: the shape of a hunk pasted into a file.
func pastedDiffLine(f *script.Facts, n int) bool {
	for _, m := range []int{n - 1, n + 1} {
		if m < 1 || m > f.Lines {
			continue
		}
		t := f.LineText(m)
		if len(t) > 1 && (t[0] == '+' || t[0] == '-') && isNameByte(t[1]) {
			return true
		}
	}
	return false
}

// continuationBreak reads the line that should have continued the
// command a stray breaks: the comment inside it, or the line above.
func continuationBreak(f *script.Facts, s script.Stray) breakCause {
	prev := s.Line - 1
	if s.Comment > 0 {
		prev = s.Comment
	}
	text := f.LineText(prev)
	trimmed := strings.TrimRight(text, " \t")
	c := breakCause{line: prev}
	if own := f.LineText(s.Line); s.Comment == 0 && strings.HasPrefix(own, s.Word[:1]) && pastedDiffLine(f, s.Line) {
		c.line, c.diff = s.Line, true
		c.what = fmt.Sprintf("line %d begins with %s in its first column, a diff marker: the lines of a patch were pasted into the script", s.Line, prose.Code(s.Word[:1]))
		return c
	}
	switch {
	case strings.TrimSpace(text) == "":
		c.what = fmt.Sprintf("line %d is blank, which ends the command above it", prev)
	case strings.HasPrefix(strings.TrimSpace(text), "#"):
		c.what = fmt.Sprintf("line %d is a comment, which ends the command: bash reads a comment to the end of its line, backslash included, so a comment cannot sit inside a continued command", prev)
	case strings.HasSuffix(trimmed, `\`) && trailingBackslashes(trimmed)%2 == 0:
		c.what = fmt.Sprintf("line %d ends in `\\\\`, an escaped (literal) backslash, not a line continuation", prev)
		c.fixed = strings.TrimSuffix(trimmed, `\`)
	case strings.HasSuffix(trimmed, `\`):
		c.what = fmt.Sprintf("line %d has whitespace after its final backslash, so the backslash escapes that space, not the newline", prev)
		c.fixed = trimmed
	default:
		c.what = fmt.Sprintf("line %d does not end with a backslash", prev)
		c.fixed = trimmed + ` \`
	}
	return c
}

// trailingBackslashes counts the backslashes s ends with.
func trailingBackslashes(s string) int {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n
}

func runSH027(p *checks.Pass) error {
	ts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, t := range ts {
		prev := 0
		for _, s := range t.Head.Strays {
			run := s.Line == prev+1 // the next line of a command already reported
			prev = s.Line
			if run || s.Line < 2 || !t.added(s.Line) && !t.added(s.Line-1) && !(s.Comment > 0 && t.added(s.Comment)) {
				continue
			}
			c := continuationBreak(t.Head, s)
			if !c.diff && s.Comment == 0 && (s.Word[0] == '+' || !s.Static) {
				continue // not an option: a command of its own, unless it is a pasted diff line
			}
			p.Report(sh027Finding(t, s, c))
		}
	}
	return nil
}

func sh027Finding(t *target, s script.Stray, c breakCause) checks.Finding {
	opt := prose.Code(s.Word)
	f := checks.Finding{
		Path:  t.Path,
		Line:  s.Line,
		Key:   "stray-option:" + s.Word,
		Title: fmt.Sprintf("Line %d starts a new command with %s: the command above ends early", s.Line, opt),
	}
	if t.added(c.line) {
		f.Line, f.EndLine = c.line, s.Line
	}
	fix := fmt.Sprintf("Make line %d end in a single backslash right before the newline.", c.line)
	switch {
	case c.diff:
		f.Title = fmt.Sprintf("Line %d is a pasted diff line that bash runs as a command", s.Line)
		f.Line, f.EndLine = s.Line, 0
		f.Body = fmt.Sprintf("Bash runs line %d as a program named %s: %s. The line does nothing it was meant to "+
			"(an assignment behind a marker is no assignment), and the script fails there or runs on without it. "+
			"Keep the line the patch meant to add, without its marker, and drop the line it meant to remove.",
			s.Line, opt, c.what)
		ex := &checks.Explain{}
		ex.Problem().Printf("%s.", capitalize(c.what))
		ex.Why().Printf("What the pasted lines set never happens: the benchmark runs without it.")
		ex.Fix().Printf("Apply the patch instead of pasting it: remove the marked lines and write the result.")
		ex.Apply(&f)
		return f
	case c.fixed == "":
		fix = fmt.Sprintf("Move line %d out of the command.", c.line)
	}
	f.Body = fmt.Sprintf("Bash starts a new command at %s on line %d: %s. The command above runs without %s and "+
		"the options after it, and bash then tries to run a program named %s, which fails. %s",
		opt, s.Line, c.what, opt, opt, fix)
	ex := &checks.Explain{}
	ex.Problem().Printf("%s.", capitalize(c.what))
	ex.Why().Printf("The benchmark measures a server started without the options below line %d (or the script "+
		"stops at \"command not found\"), while the recipe reads as if they applied.", c.line)
	if c.fixed != "" {
		ex.Fix().Printf("End line %d with a single backslash.", c.line)
		if t.added(c.line) {
			f.Suggestion = &checks.Suggestion{Line: c.line, EndLine: c.line, Replacement: c.fixed}
		}
	} else {
		ex.Fix().Printf("Move the line out of the command (above or below it), so that every line of the command ends with a backslash.")
	}
	ex.Apply(&f)
	return f
}
