package changelog

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// The byte layout the merge tooling accepts for a PR that appends entries:
// the head is the base file, byte for byte, followed by the new entries.
// The first one comes after exactly one empty line, which is the base's
// own last line when the base ends with an empty line and one line the PR
// adds otherwise (a whitespace-only last line of the base is not empty and
// does not count). Every further new entry is preceded by exactly one
// empty line, and the file ends with a single newline. Without new entries
// the bytes after the last entry must stay as they are.
//
// layoutFindings reports every departure from that layout, each at the
// lines it concerns (CL002); CL007 leaves those lines to it.
func layoutFindings(a *Analysis) []checks.Finding {
	if a.Head == nil || a.Align == nil || a.Base == nil || len(a.Base.Entries) == 0 || !strings.HasSuffix(a.Base.Src, "\n") {
		return nil
	}
	var out []checks.Finding
	app := a.Align.Index(Appended)
	firstHandled := -1
	last := len(a.Base.Entries) - 1
	if h := a.Align.BaseHead[last]; h >= 0 && (a.Align.Head[h] == Unchanged || a.Align.Head[h] == Edited) {
		b, he := a.Base.Entries[last], a.Head.Entries[h]
		tail := linesOf(a.Base, b.ContentEnd+1, a.Base.NumLines())
		next := -1
		if h+1 < len(a.Head.Entries) {
			next = h + 1
		}
		end := a.Head.NumLines()
		if next >= 0 {
			end = a.Head.Entries[next].Start - 1
		}
		region := linesOf(a.Head, he.ContentEnd+1, end)
		switch {
		case next >= 0 && a.Align.Head[next] == Appended:
			firstHandled = next
			if f, ok := firstSeparator(a, he, a.Head.Entries[next], tail, region); ok {
				out = append(out, f)
			}
		case next < 0 && !equalLines(tail, region):
			out = append(out, tailChanged(a, he, tail, region, nil))
		}
	}
	for _, i := range app {
		if i == firstHandled || i == 0 {
			continue
		}
		if f, ok := laterSeparator(a, a.Head.Entries[i]); ok {
			out = append(out, f)
		}
	}
	if len(app) > 0 {
		if f, ok := blankAtEnd(a); ok {
			out = append(out, f)
		}
	}
	return out
}

// linesOf returns lines a..b of f (none when b < a).
func linesOf(f *File, a, b int) []string {
	var out []string
	for n := a; n <= b; n++ {
		out = append(out, f.Line(n))
	}
	return out
}

func equalLines(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// shown renders a line's whitespace so a reader can see it.
func shown(l string) string {
	if l == "" {
		return "an empty line"
	}
	if isBlank(l) {
		n := len(l)
		if n == 1 {
			return "one space"
		}
		return fmt.Sprintf("%d spaces", n)
	}
	return prose.CodeLine(clip(l))
}

const layoutWhy = "When the PR is merged through `utils/merge_with_reuse.sh`, the changelog step " +
	"(`prepare_perf_changelog_merge.py canonicalize`) compares the files byte for byte: the head must start with the " +
	"base file exactly, whitespace-only lines included, the first new entry must follow one empty line (the base's " +
	"own last line when it is empty, else one line the PR adds), every further new entry must follow exactly one " +
	"empty line, and the file must end with a single newline. Any other layout is rejected and the merge stops."

// firstSeparator judges the lines between the base's last entry (he in
// head) and the first appended entry e. tail are the base's lines after
// that entry, region the head's.
func firstSeparator(a *Analysis, he, e *Entry, tail, region []string) (checks.Finding, bool) {
	if len(region) < len(tail) || !equalLines(tail, region[:len(tail)]) {
		return tailChanged(a, he, tail, region, e), true
	}
	added := region[len(tail):]
	baseEndsEmpty := len(tail) > 0 && tail[len(tail)-1] == ""
	var want []string
	if !baseEndsEmpty {
		want = []string{""}
	}
	if equalLines(added, want) {
		return checks.Finding{}, false
	}
	firstAdded := he.ContentEnd + 1 + len(tail)
	var addedLines []int
	for i := range added {
		addedLines = append(addedLines, firstAdded+i)
	}
	var problem, fix string
	switch {
	case baseEndsEmpty:
		problem = fmt.Sprintf("is preceded by %s this PR adds (%s) on top of the empty line the base already ends with (line %d), so %d blank lines stand between it and the entry above",
			countLines(len(added)), "line "+lineList(addedLines, 5), firstAdded-1, len(region))
		fix = fmt.Sprintf("The base's last line is already the separator: remove the lines this PR adds before line %d.", e.Start)
	case len(added) == 0 && len(tail) == 0:
		problem = fmt.Sprintf("starts right after line %d with no blank line in between", he.ContentEnd)
		fix = fmt.Sprintf("Add one empty line before line %d.", e.Start)
	case len(added) == 0:
		problem = fmt.Sprintf("follows line %d, the base's last line, which holds %s: a line of spaces is not the empty line that separates entries", firstAdded-1, shown(tail[len(tail)-1]))
		fix = fmt.Sprintf("Add one empty line before line %d and leave line %d as it is (historical bytes, whitespace included, are immutable).", e.Start, firstAdded-1)
	case len(added) > 1:
		problem = fmt.Sprintf("is preceded by %s this PR adds (lines %s)", countLines(len(added)), lineList(addedLines, 5))
		fix = fmt.Sprintf("Keep exactly one empty line between line %d and the entry.", firstAdded-1)
	default:
		problem = fmt.Sprintf("is preceded by line %d, which holds %s instead of being empty", firstAdded, shown(added[0]))
		fix = fmt.Sprintf("Make line %d an empty line.", firstAdded)
	}
	f := separatorFindingAt(a, e, firstAdded, want, problem, fix)
	return f, true
}

func countLines(n int) string {
	if n == 1 {
		return "one blank line"
	}
	return fmt.Sprintf("%d blank lines", n)
}

// laterSeparator judges the lines between an appended entry and the new
// entry above it: exactly one empty line right before the entry.
func laterSeparator(a *Analysis, e *Entry) (checks.Finding, bool) {
	prev := a.Head.Entries[e.Index-1]
	region := linesOf(a.Head, prev.ContentEnd+1, e.Start-1)
	n := len(region)
	if n > 0 && region[n-1] == "" && (n == 1 || region[n-2] != "") {
		return checks.Finding{}, false
	}
	var problem, fix string
	want := []string{""}
	switch {
	case n == 0:
		problem = fmt.Sprintf("starts right after line %d with no blank line in between", prev.ContentEnd)
		fix = fmt.Sprintf("Add one empty line before line %d.", e.Start)
	case region[n-1] != "":
		problem = fmt.Sprintf("is preceded by line %d, which holds %s instead of being empty", e.Start-1, shown(region[n-1]))
		fix = fmt.Sprintf("Make line %d an empty line.", e.Start-1)
	default:
		empties := 0
		for i := n - 1; i >= 0 && region[i] == ""; i-- {
			empties++
		}
		problem = fmt.Sprintf("is preceded by %d empty lines (lines %d-%d)", empties, e.Start-empties, e.Start-1)
		fix = "Keep exactly one empty line between the entries."
	}
	return separatorFindingAt(a, e, prev.ContentEnd+1, want, problem, fix), true
}

// separatorFindingAt reports the separator from head line first to e's
// first line, suggesting the lines want in its place.
func separatorFindingAt(a *Analysis, e *Entry, first int, want []string, problem, fix string) checks.Finding {
	prev := first - 1
	f := checks.Finding{
		Path: a.Path, Line: first, EndLine: e.Start,
		Title: "New changelog entry not separated by exactly one blank line",
		Body: fmt.Sprintf("The new %s at line %d %s. %s",
			strings.TrimPrefix(entryLabel(e), "the "), e.Start, problem, fix),
		Why:        layoutWhy,
		Evidence:   fmt.Sprintf("Line %d ends the entry above; the new entry starts at line %d.", prev, e.Start),
		Suggestion: &checks.Suggestion{Line: first, EndLine: e.Start, Replacement: strings.Join(append(append([]string{}, want...), a.Head.Line(e.Start)), "\n")},
		Key:        "separator:" + normalizeText(e.Text),
	}
	if first >= e.Start {
		f.Line = e.Start
		f.EndLine = 0
		f.Suggestion.Line, f.Suggestion.EndLine = e.Start, 0
	}
	return f
}

// tailChanged reports changed bytes after the base's last entry (he in
// head): e is the first appended entry, or nil when the PR appends none.
func tailChanged(a *Analysis, he *Entry, tail, region []string, e *Entry) checks.Finding {
	first := he.ContentEnd + 1
	i := 0
	for i < len(tail) && i < len(region) && tail[i] == region[i] {
		i++
	}
	var change string
	switch {
	case i < len(tail) && i < len(region):
		change = fmt.Sprintf("line %d held %s in the base and holds %s now", first+i, shown(tail[i]), shown(region[i]))
	case i < len(tail):
		change = fmt.Sprintf("the base's line %d (%s) is gone", first+i, shown(tail[i]))
	default:
		change = fmt.Sprintf("line %d (%s) is new", first+i, shown(region[i]))
	}
	want := append([]string{}, tail...)
	f := checks.Finding{
		Path:  a.Path,
		Title: "Whitespace after the last historical changelog entry changed",
		Related: []checks.Location{{Path: a.BasePath, Line: a.Base.Entries[len(a.Base.Entries)-1].ContentEnd, Side: checks.Base,
			Note: "the base's last entry; the lines after it are history too"}},
		Key: "history-tail",
	}
	if e != nil {
		if len(tail) == 0 || tail[len(tail)-1] != "" {
			want = append(want, "")
		}
		f.Body = fmt.Sprintf("This PR changes the lines that end the base's history, after line %d: %s. The merge tooling accepts appended entries only when the head begins with the base file byte for byte, whitespace-only lines included. Restore those lines as they are in the base and put the new entry at line %d after them, separated by one empty line.",
			he.ContentEnd, change, e.Start)
		f.Line, f.EndLine = first, e.Start
		f.Suggestion = &checks.Suggestion{Line: first, EndLine: e.Start, Replacement: strings.Join(append(want, a.Head.Line(e.Start)), "\n")}
		if first >= e.Start {
			f.Line, f.EndLine = e.Start, 0
			f.Suggestion.Line, f.Suggestion.EndLine = e.Start, 0
		}
	} else {
		rule := "A PR that adds no entry may change nothing in the changelog but a `pr-link`, and the whitespace after the last entry is history too."
		if len(a.NewEntries()) > 0 {
			rule = "The lines after the base's last entry are history too, whitespace-only ones included, and stay byte for byte as they are."
		}
		f.Body = fmt.Sprintf("This PR changes the lines after the last entry (line %d): %s. %s Restore the end of the file as it is in the base.",
			he.ContentEnd, change, rule)
		f.Line = first + i
		if f.Line > a.Head.NumLines() {
			f.Line = a.Head.NumLines()
		}
		if len(region) > 0 {
			f.Line, f.EndLine = first, first+len(region)-1
			f.Suggestion = &checks.Suggestion{Line: he.ContentEnd, EndLine: first + len(region) - 1,
				Replacement: strings.Join(append([]string{a.Head.Line(he.ContentEnd)}, want...), "\n")}
			if f.EndLine == f.Line {
				f.EndLine = 0
			}
		}
	}
	f.Why = layoutWhy
	return f
}

// blankAtEnd reports a file that ends with an empty line after the PR's
// last entry.
func blankAtEnd(a *Analysis) (checks.Finding, bool) {
	h := a.Head
	n := h.NumLines()
	if n == 0 || h.Line(n) != "" || !strings.HasSuffix(h.Src, "\n") || len(h.Entries) == 0 {
		return checks.Finding{}, false
	}
	last := h.Entries[len(h.Entries)-1]
	if last.ContentEnd >= n {
		return checks.Finding{}, false
	}
	lines, what := fmt.Sprintf("lines %d-%d", last.ContentEnd+1, n), "blank lines"
	if last.ContentEnd+1 == n {
		lines, what = fmt.Sprintf("line %d", n), "a blank line"
	}
	f := checks.Finding{
		Path: a.Path, Line: last.ContentEnd + 1, EndLine: n,
		Title: "Perf changelog ends with a blank line",
		Body: fmt.Sprintf("%s ends with %s after the last new entry (%s). The file must end with the entry's last line and a single newline; the merge tooling rejects a file that ends with an empty line. Remove %s.",
			prose.Code(a.Path), what, lines, lines),
		Why:        layoutWhy,
		Suggestion: &checks.Suggestion{Line: last.ContentEnd, EndLine: n, Replacement: h.Line(last.ContentEnd)},
		Key:        "blank-at-end",
	}
	if f.EndLine == f.Line {
		f.EndLine = 0
	}
	return f, true
}
