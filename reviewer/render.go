package reviewer

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const detailsOpen = "<details><summary>Extended reasoning...</summary>"

// RenderComment renders f as the body of an inline review comment (docs/design.md):
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
	blocks := reasoning(f, applicable)
	body := renderFinding(f, blocks)
	// Over the limit, shorten the narrative from its end (the steps, the
	// notes, then why and the problem), so the evidence and the fix survive.
	for i := len(blocks) - 1; i >= 0; i-- {
		over := utf8.RuneCountInString(body) - MaxBodyChars
		if over <= 0 {
			break
		}
		if !blocks[i].narrative {
			continue
		}
		n := utf8.RuneCountInString(blocks[i].text)
		if keep := n - over - 2*len(truncationNote(n)); keep > 0 {
			head, kept := cutText(blocks[i].text, keep)
			blocks[i].text = strings.TrimRight(head, "\n") + "\n\n" + truncationNote(n-kept)
		} else {
			blocks[i].text = truncationNote(n)
		}
		body = renderFinding(f, blocks)
	}
	return Truncate(body, MaxBodyChars)
}

// The headings of a finding's reasoning, the same for every rule.
const (
	headProblem = "**The problem.**"
	headWhy     = "**Why it matters.**"
	headSteps   = "**Step by step.**"
	headFix     = "**Fix.**"
	headEvid    = "**Evidence.**"
)

// block is one part of the collapsed reasoning; narrative blocks may be
// shortened to fit the comment limit, the evidence and the fix may not.
type block struct {
	text      string
	narrative bool
}

// reasoning is the collapsed reasoning of an inline comment or a summary
// item, in the order of the seeds: the problem, why it matters, the
// evidence (its prose, then the locations), the notes, the steps, the fix
// with the suggestion. Every part is present only when there is something
// to say.
func reasoning(f checks.Finding, applicable bool) []block {
	var out []block
	add := func(text string, narrative bool) {
		if strings.TrimSpace(text) != "" {
			out = append(out, block{text: closeFence(text), narrative: narrative})
		}
	}
	add(headed(headProblem, f.Problem), true)
	add(headed(headWhy, f.Why), true)
	add(renderEvidence(f.Evidence, f.Related), false)
	for _, n := range f.Notes {
		add(headed("**"+noteTitle(n.Title)+"**", n.Text), true)
	}
	add(renderSteps(f.Steps), true)
	fix := strings.TrimSpace(f.Fix)
	switch {
	case fix != "" && f.Suggestion != nil:
		add(headFix+" "+fix+"\n\n"+renderSuggestion(f, applicable, false), false)
	case fix != "":
		add(headFix+" "+fix, false)
	case f.Suggestion != nil:
		add(renderSuggestion(f, applicable, true), false)
	}
	return out
}

// Explanation is a finding's reasoning as one markdown text, for the
// formats that list the evidence locations and the suggested edit on their
// own (text, JSON): the problem, why it matters, the evidence prose, the
// notes, the steps and the fix prose, under the same headings as a comment.
func Explanation(f checks.Finding) string {
	var parts []string
	add := func(text string) {
		if strings.TrimSpace(text) != "" {
			parts = append(parts, closeFence(text))
		}
	}
	add(headed(headProblem, f.Problem))
	add(headed(headWhy, f.Why))
	add(headed(headEvid, f.Evidence))
	for _, n := range f.Notes {
		add(headed("**"+noteTitle(n.Title)+"**", n.Text))
	}
	add(renderSteps(f.Steps))
	add(headed(headFix, f.Fix))
	return strings.Join(parts, "\n\n")
}

// headed is text under a heading, or nothing when there is no text. Text
// that opens with a block (a fence, a list, a quote, a table) starts on the
// line after the heading, where markdown reads it as that block.
func headed(head, text string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return ""
	case opensBlock(t):
		return head + "\n\n" + t
	}
	return head + " " + t
}

// opensBlock reports whether markdown text starts with a block construct.
func opensBlock(t string) bool {
	for _, p := range []string{"```", "~~~", "- ", "* ", "> ", "|"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	return digits > 0 && strings.HasPrefix(t[digits:], ". ")
}

// renderSteps numbers the step-by-step argument.
func renderSteps(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(headSteps + "\n")
	for i, st := range steps {
		b.WriteString("\n" + strconv.Itoa(i+1) + ". " + strings.TrimSpace(st))
	}
	return b.String()
}

// closeFence trims a part and closes a fenced block a rule left open, so it
// cannot swallow the parts after it, the closing tag or the marker.
func closeFence(text string) string {
	t := strings.Trim(text, "\n")
	if fs, open := openFence(t); open {
		t += "\n" + fs.indent + fs.closer
	}
	return t
}

// noteTitle ends a note's title with a period, as the other headings.
func noteTitle(t string) string {
	t = strings.TrimSpace(t)
	if t == "" || strings.ContainsAny(t[len(t)-1:], ".:?!") {
		return t
	}
	return t + "."
}

func renderFinding(f checks.Finding, blocks []block) string {
	var b strings.Builder
	b.WriteString(f.Severity.Emoji() + " " + statement(f))
	if len(blocks) > 0 {
		texts := make([]string, len(blocks))
		for i, bl := range blocks {
			texts[i] = bl.text
		}
		b.WriteString("\n\n" + detailsOpen + "\n\n")
		b.WriteString(strings.Join(texts, "\n\n"))
		b.WriteString("\n</details>\n")
	} else {
		b.WriteString("\n\n")
	}
	b.WriteString(findingMarker(f.Rule, Fingerprint(f)))
	return b.String()
}

// statement is the opening paragraph of a finding.
func statement(f checks.Finding) string {
	if m := strings.TrimSpace(f.Body); m != "" {
		return m
	}
	return strings.TrimSpace(f.Title)
}

// renderEvidence is the evidence part: its prose, then the locations, one
// heading for both.
func renderEvidence(text string, related []checks.Location) string {
	text = strings.TrimSpace(text)
	if len(related) == 0 && text == "" {
		return ""
	}
	var b strings.Builder
	if text != "" {
		b.WriteString(headed(headEvid, text))
	} else {
		b.WriteString(headEvid)
	}
	if len(related) > 0 && text != "" {
		b.WriteString("\n")
	}
	for _, loc := range related {
		b.WriteString("\n- " + prose.Code(locLabel(loc)))
		if note := prose.OneLine(loc.Note); note != "" {
			b.WriteString(" — " + note)
		}
	}
	return b.String()
}

// renderSuggestion renders the suggested edit; headed gives it the Fix
// heading (when no Fix text already carries it).
func renderSuggestion(f checks.Finding, applicable, headed bool) string {
	s := f.Suggestion
	repl := strings.TrimSuffix(s.Replacement, "\n")
	head := ""
	if headed {
		head = headFix + " "
	}
	if applicable {
		if repl == "" {
			return head + "Delete the line:\n" + "```suggestion\n```"
		}
		return head + "Suggested change:\n" + prose.CodeBlock("suggestion", repl)
	}
	// Not anchored on the replaced lines: a suggestion block would replace
	// the wrong lines, so show the edit as plain text.
	target := prose.Code(locLabel(suggestionRange(f)))
	if repl == "" {
		return head + "Delete " + target + "."
	}
	return head + "Replace " + target + " with:\n" + prose.CodeBlock("", repl)
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
