package reviewer

import (
	"strings"
	"unicode/utf8"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const detailsOpen = "<details><summary>Extended reasoning...</summary>"

// RenderComment renders f as the body of an inline review comment (SPEC §3):
// the severity marker and statement, the collapsed extended reasoning with
// the evidence and a ```suggestion block, and the hidden marker a re-review
// finds it by. The suggestion block assumes the comment is anchored on the
// suggestion's lines, as BuildPlan anchors it; the body is kept within
// MaxBodyChars.
func RenderComment(f checks.Finding) string {
	return renderInline(f, true)
}

// renderInline renders an inline comment; applicable says whether the
// comment covers exactly the lines f.Suggestion replaces, the only case in
// which GitHub's "apply suggestion" does the right thing.
func renderInline(f checks.Finding, applicable bool) string {
	body := renderFinding(f, f.Details, applicable)
	if over := utf8.RuneCountInString(body) - MaxBodyChars; over > 0 {
		// Shorten the reasoning first, so the evidence and the fix survive.
		n := utf8.RuneCountInString(f.Details)
		if keep := n - over - 2*len(truncationNote(n)); keep > 0 {
			head, kept := cutText(f.Details, keep)
			body = renderFinding(f, strings.TrimRight(head, "\n")+"\n\n"+truncationNote(n-kept), applicable)
		}
	}
	return Truncate(body, MaxBodyChars)
}

func renderFinding(f checks.Finding, details string, applicable bool) string {
	var b strings.Builder
	b.WriteString(f.Severity.Emoji() + " " + statement(f))
	if parts := detailParts(f, details, applicable); len(parts) > 0 {
		b.WriteString("\n\n" + detailsOpen + "\n\n")
		b.WriteString(strings.Join(parts, "\n\n"))
		b.WriteString("\n</details>\n")
	} else {
		b.WriteString("\n\n")
	}
	b.WriteString(findingMarker(f.Rule, Fingerprint(f)))
	return b.String()
}

// statement is the opening paragraph of a finding.
func statement(f checks.Finding) string {
	if m := strings.TrimSpace(f.Message); m != "" {
		return m
	}
	return strings.TrimSpace(f.Title)
}

// detailParts are the blocks inside the collapsed reasoning: the rule's
// explanation, the evidence list and the suggested fix, each present only
// when there is something to say.
func detailParts(f checks.Finding, details string, applicable bool) []string {
	var parts []string
	if strings.TrimSpace(details) != "" {
		d := strings.Trim(details, "\n")
		// A rule's markdown must not swallow the closing tag and the marker.
		if fs, open := openFence(d); open {
			d += "\n" + fs.indent + fs.closer
		}
		parts = append(parts, d)
	}
	if ev := renderEvidence(f.Related); ev != "" {
		parts = append(parts, ev)
	}
	if f.Suggestion != nil {
		parts = append(parts, renderSuggestion(f, applicable))
	}
	return parts
}

func renderEvidence(related []checks.Location) string {
	if len(related) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**Evidence**")
	for _, loc := range related {
		b.WriteString("\n- " + codeSpan(locLabel(loc)))
		if note := prose.OneLine(loc.Note); note != "" {
			b.WriteString(" — " + note)
		}
	}
	return b.String()
}

func renderSuggestion(f checks.Finding, applicable bool) string {
	s := f.Suggestion
	repl := strings.TrimSuffix(s.Replacement, "\n")
	fence := strings.Repeat("`", max(3, longestRun(repl, '`')+1))
	if applicable {
		if repl == "" {
			return "**Suggested fix**\n" + fence + "suggestion\n" + fence
		}
		return "**Suggested fix**\n" + fence + "suggestion\n" + repl + "\n" + fence
	}
	// Not anchored on the replaced lines: a suggestion block would replace
	// the wrong lines, so show the edit as plain text.
	target := codeSpan(locLabel(suggestionRange(f)))
	if repl == "" {
		return "**Suggested fix**: delete " + target + "."
	}
	return "**Suggested fix** (replace " + target + " with):\n" + fence + "\n" + repl + "\n" + fence
}

// suggestionRange is the head range a suggestion replaces; a suggestion
// without its own lines replaces the finding's lines.
func suggestionRange(f checks.Finding) checks.Location {
	s := f.Suggestion
	loc := checks.Location{Path: f.Path, Line: s.Line, EndLine: s.EndLine}
	if loc.Line <= 0 {
		loc.Line, loc.EndLine = f.Line, f.EndLine
	}
	if loc.EndLine < loc.Line {
		loc.EndLine = loc.Line
	}
	return loc
}

// locLabel is path:line or path:start-end; a file-level location is just the
// path, and one without a path says so.
func locLabel(l checks.Location) string {
	if l.Path == "" {
		return "(repository)"
	}
	return l.String()
}

// codeSpan wraps s in a markdown code span that survives backticks in s.
func codeSpan(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	return ticks + " " + s + " " + ticks
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
