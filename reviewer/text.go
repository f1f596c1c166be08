package reviewer

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// TextOptions shape the human-readable report.
type TextOptions struct {
	// Width wraps prose to this many columns (0: no wrapping, what a pipe
	// or a file wants).
	Width int
	// Verbose adds each finding's extended reasoning.
	Verbose bool
	// Color marks the location, the rule and the labels with ANSI colours.
	Color bool
	// Render renders the findings' markdown for a terminal instead of
	// printing it as written (what a pipe or a file wants).
	Render bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
)

func (o TextOptions) paint(code, s string) string {
	if !o.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// WriteText writes the human-readable report without wrapping or colour.
func WriteText(w io.Writer, r *Report) error { return WriteTextWith(w, r, TextOptions{}) }

// WriteTextWith writes the human-readable report: one block per finding,
// then any rule errors, then a count line.
func WriteTextWith(w io.Writer, r *Report, o TextOptions) error {
	var b strings.Builder
	fs := r.sorted()
	for _, f := range fs {
		writeFinding(&b, f, o)
		b.WriteString("\n")
	}
	for _, err := range r.Errors {
		b.WriteString(o.paint(ansiRed, "error:") + " " + err.Error() + "\n")
	}
	for _, n := range r.NotReviewed {
		for _, l := range wrapLines(notReviewedItem(n, false), o.Width, "", "    ") {
			b.WriteString(strings.Replace(l, "not reviewed:", o.paint(ansiYellow, "not reviewed:"), 1) + "\n")
		}
	}
	if o.Verbose {
		writeUnjudged(&b, r, o)
	}
	blocking, warnings := countSeverities(fs)
	result := "no problems found"
	if len(fs) > 0 {
		result = severityCounts(blocking, warnings)
	}
	extra := prose.Count(r.Stats.Rules, "rule", "rules") + " run"
	if r.Stats.Suppressed > 0 {
		extra += fmt.Sprintf(", %d suppressed by reviewbot:ignore", r.Stats.Suppressed)
	}
	if n := len(r.NotReviewed); n > 0 {
		extra += ", " + prose.Count(n, "file", "files") + " not reviewed"
	}
	if n := len(r.Stats.Inconclusive); n > 0 {
		extra += fmt.Sprintf("; %s too little evidence to judge", prose.Pick(n, "1 rule note says it had", fmt.Sprintf("%d rule notes say they had", n)))
		if !o.Verbose {
			extra += " (--verbose lists them)"
		}
	}
	if len(r.Missing) > 0 {
		var kinds []string
		for _, k := range r.Missing {
			kinds = append(kinds, k.Name)
		}
		extra += "; not in this repository: " + strings.Join(kinds, ", ")
	}
	fmt.Fprintf(&b, "reviewbot: %s in %s (%s)\n", result, prose.Count(r.Stats.Files, "changed file", "changed files"), extra)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeUnjudged lists, for --verbose, what the rules could not look at:
// kinds of file the repository lacks, and what rules had too little
// evidence to judge.
func writeUnjudged(b *strings.Builder, r *Report, o TextOptions) {
	if len(r.Missing) > 0 {
		b.WriteString(o.paint(ansiBold, "Not in this repository, so not checked:") + "\n")
		for _, k := range r.Missing {
			for _, l := range wrapLines(k.String(), o.Width, "    ", "        ") {
				b.WriteString(l + "\n")
			}
		}
		b.WriteString("\n")
	}
	if len(r.Stats.Inconclusive) > 0 {
		b.WriteString(o.paint(ansiBold, "Too little evidence to judge:") + "\n")
		for _, n := range r.Stats.Inconclusive {
			text := "[" + n.Rule + "] "
			if n.Path != "" {
				text += n.Path + ": "
			}
			for _, l := range wrapLines(text+n.Reason, o.Width, "    ", "        ") {
				b.WriteString(l + "\n")
			}
		}
		b.WriteString("\n")
	}
}

// WriteFindingText writes one finding as the text report shows it.
func WriteFindingText(w io.Writer, f checks.Finding, o TextOptions) error {
	var b strings.Builder
	writeFinding(&b, f, o)
	_, err := io.WriteString(w, b.String())
	return err
}

// textLocation is path:line, marked "(base)" when the line numbers the
// base version (a deleted line): the head file has something else there.
func textLocation(f checks.Finding) string {
	loc := f.Path
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	if f.Side == checks.Base {
		loc += " (base)"
	}
	return loc
}

func writeFinding(b *strings.Builder, f checks.Finding, o TextOptions) {
	sev := ansiYellow
	if f.Severity == checks.Blocking {
		sev = ansiRed
	}
	fmt.Fprintf(b, "%s: %s %s %s\n", o.paint(ansiBold, textLocation(f)), f.Severity.Emoji(),
		o.paint(sev, "["+f.Rule+"]"), prose.OneLine(f.Title))
	stmt := statement(f)
	if o.Render {
		stmt = terminalInline(stmt, o)
	}
	for _, l := range wrapLines(stmt, o.Width, "    ", "    ") {
		b.WriteString(l + "\n")
	}
	if explanation := Explanation(f); o.Verbose && strings.TrimSpace(explanation) != "" {
		b.WriteString("\n")
		for _, l := range wrapMarkdown(strings.Trim(explanation, "\n"), o, "    ") {
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	for _, loc := range f.Related {
		text := locLabel(loc)
		if note := prose.OneLine(loc.Note); note != "" {
			text += " — " + note
		}
		lines := wrapLines("evidence: "+text, o.Width, "    ", "        ")
		lines[0] = strings.Replace(lines[0], "evidence:", o.paint(ansiCyan, "evidence:"), 1)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	if f.Suggestion != nil {
		repl := strings.TrimSuffix(f.Suggestion.Replacement, "\n")
		label := o.paint(ansiCyan, "fix:")
		if repl == "" {
			b.WriteString("    " + label + " delete " + locLabel(suggestionRange(f)) + "\n")
		} else {
			// Code is never wrapped: the replacement must stay copyable.
			b.WriteString("    " + label + " replace " + locLabel(suggestionRange(f)) + " with:\n")
			b.WriteString(indent(repl, "        ") + "\n")
		}
	}
}

// wrapLines splits s into lines of at most width columns, the first line
// prefixed with first and the others with rest. Existing line breaks are
// kept; a word longer than the width gets a line of its own. Width 0 only
// prefixes.
func wrapLines(s string, width int, first, rest string) []string {
	var out []string
	prefix := first
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, strings.TrimRight(prefix, " "))
			prefix = rest
			continue
		}
		line := prefix + words[0]
		for _, w := range words[1:] {
			if width > 0 && columns(line)+1+columns(w) > width {
				out = append(out, line)
				line = rest + w
				continue
			}
			line += " " + w
		}
		out = append(out, line)
		prefix = rest
	}
	return out
}

// wrapMarkdown wraps the prose of a rule's extended reasoning and leaves
// fenced code alone; a list item's continuation lines hang under its text.
// With o.Render the markdown is rendered for a terminal: the fences give
// way to an indent, the inline markup to bold, colour or plain text.
func wrapMarkdown(md string, o TextOptions, prefix string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			if !o.Render {
				out = append(out, prefix+line)
			}
			continue
		}
		if fenced || trimmed == "" {
			if fenced && o.Render {
				line = "    " + line
			}
			out = append(out, strings.TrimRight(prefix+line, " "))
			continue
		}
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		hang := lead + strings.Repeat(" ", listMarkerWidth(trimmed))
		if o.Render {
			trimmed = terminalInline(trimmed, o)
		}
		out = append(out, wrapLines(trimmed, o.Width, prefix+lead, prefix+hang)...)
	}
	return out
}

// listMarkerWidth is the width of a markdown list marker ("- ", "12. ")
// starting s, or 0.
func listMarkerWidth(s string) int {
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") {
		return 2
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return i + 2
	}
	return 0
}

// columns approximates the display width of s: one column per rune, two
// for the emoji markers.
func columns(s string) int {
	s = visible(s)
	n := utf8.RuneCountInString(s)
	n += strings.Count(s, "🔴") + strings.Count(s, "🟡")
	return n
}
