package changelog

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl007Doc = "Lines this PR adds to the perf changelog carry no trailing spaces, and the file does not end with a " +
	"line of only spaces (what `git diff --check` reports). The validator accepts both, so this does not block, but " +
	"history is immutable byte for byte: spaces merged now stay in the file for good, and a whitespace-only last " +
	"line changes the rule for the next PR, which must then add an empty line after it or have its merge rejected " +
	"by the merge tooling (a whitespace-only line is not the empty separator line). Lines CL002 already reports as a " +
	"wrong separator are left to it."

// CL007 reports trailing whitespace on the lines the PR adds.
var CL007 = &checks.Rule{
	ID:       "CL007",
	Severity: checks.Warning,
	Title:    "Trailing whitespace on lines added to the perf changelog",
	Doc:      cl007Doc,
	Run:      runCL007,
}

func runCL007(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	h := a.Head
	covered := map[int]bool{}
	for _, f := range layoutFindings(a) {
		end := f.EndLine
		if end < f.Line {
			end = f.Line
		}
		for n := f.Line; n <= end; n++ {
			covered[n] = true
		}
	}
	// The whitespace-only lines that end the file, when the PR adds them.
	n := h.NumLines()
	endRun := n + 1
	if strings.HasSuffix(h.Src, "\n") {
		for endRun > 1 && isSpaces(h.Line(endRun-1)) {
			endRun--
		}
	}
	endsWithSpaces := endRun <= n && h.Line(n) != "" && a.IsAdded(n) && !covered[n]

	var lines, onlySpaces []int
	for _, i := range a.AddedLines() {
		if i < 1 || i > n || (endsWithSpaces && i >= endRun) {
			continue
		}
		l := h.Line(i)
		if covered[i] || !strings.HasSuffix(l, " ") || strings.ContainsAny(l, "\t\r") {
			continue // tabs and CRs are CL005's
		}
		lines = append(lines, i)
		if isSpaces(l) {
			onlySpaces = append(onlySpaces, i)
		}
	}
	if len(lines) > 0 {
		f := checks.Finding{
			Path: a.Path, Line: lines[0],
			Title: "Trailing whitespace on lines added to the perf changelog",
			Key:   "trailing-space",
		}
		where := "Line " + lineList(lines, 8) + " ends with spaces"
		if len(lines) > 1 {
			where = "Lines " + lineList(lines, 8) + " end with spaces"
		}
		fix := "Remove the trailing spaces"
		switch {
		case len(onlySpaces) == len(lines) && len(lines) == 1:
			where = "Line " + lineList(lines, 8) + " holds only spaces"
			fix = "Delete the line (emptying it would add a blank line)"
		case len(onlySpaces) == len(lines):
			where = "Lines " + lineList(lines, 8) + " hold only spaces"
			fix = "Delete them (emptying them would add blank lines)"
		case len(onlySpaces) > 0:
			fix += "; delete the lines that hold nothing but spaces (emptying them would add blank lines)"
		}
		f.Body = fmt.Sprintf("%s (added by this PR). Entries are kept byte for byte once merged, so the spaces would stay in the history for good. %s.", where, fix)
		if len(lines) == 1 {
			l := h.Line(lines[0])
			if isSpaces(l) {
				if lines[0] > 1 {
					f.Suggestion = &checks.Suggestion{Line: lines[0] - 1, EndLine: lines[0], Replacement: h.Line(lines[0] - 1)}
				}
			} else {
				f.Suggestion = &checks.Suggestion{Line: lines[0], Replacement: strings.TrimRight(l, " ")}
			}
		}
		p.Report(f)
	}
	if endsWithSpaces {
		last := endRun - 1 // the last line with content
		f := checks.Finding{
			Path: a.Path, Line: endRun, EndLine: n,
			Title: "Perf changelog ends with a whitespace-only line",
			Body: fmt.Sprintf("%s now ends with line %d, which holds only spaces. The merge tooling does not count such a line as the empty line that must separate the history from a new entry, so the next PR that appends must add an empty line after it (and keep the spaces, which are history by then), or its merge is rejected. Delete the line so the file ends with line %d.",
				prose.Code(a.Path), n, last),
			Key: "ends-with-spaces",
		}
		if f.EndLine == f.Line {
			f.EndLine = 0
		}
		if last >= 1 {
			f.Suggestion = &checks.Suggestion{Line: last, EndLine: n, Replacement: h.Line(last)}
		}
		p.Report(f)
	}
	return nil
}

// isSpaces: a non-empty line of spaces only.
func isSpaces(l string) bool { return l != "" && strings.Trim(l, " ") == "" }
