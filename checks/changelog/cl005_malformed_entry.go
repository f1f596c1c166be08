package changelog

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var cl005Doc = "The perf changelog must stay a well-formed file that every tool can load: valid YAML with no " +
	"duplicate mapping keys, UTF-8 text without tabs, carriage returns (CRLF line endings) or NUL bytes, ending " +
	"with a newline, and a list of entries that each begin with the line `- config-keys:` and match the entry " +
	"schema the repository's validator enforces: " + DefaultSchema().Describe() + ", and no other key. Values " +
	"are read as the repository's YAML 1.1 loader reads them (`yes` is a boolean, a date is not a string) and " +
	"converted as its model converts them (`\"true\"` and `1` are booleans). The validator, the sweep generator and " +
	"the merge tooling all read the file first, so one malformed line stops all of them. When the repository's " +
	"schema grows, `changelog:` in `.github/reviewbot.yml` adds the new keys (with a type) and scenario types. " +
	"Only what this PR adds or changes is judged; problems already in the history are not reported. An empty " +
	"list item, which the validator accepts, is a warning."

// CL005 checks the file-level invariants of what the PR adds.
var CL005 = &checks.Rule{
	ID:       "CL005",
	Severity: checks.Blocking,
	Title:    "Perf changelog is malformed where the PR changed it",
	Doc:      cl005Doc,
	Run:      runCL005,
}

func runCL005(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	h := a.Head
	schema := schemaOf(p)
	byteLines := byteProblems(p, a)

	if h.Err != nil && (a.Base == nil || a.Base.Err == nil || a.Base.Err.Msg != h.Err.Msg) && !explainedByBytes(h, byteLines) {
		p.Report(checks.Finding{
			Path: a.Path, Line: h.Err.Line,
			Title: "Perf changelog does not parse as YAML",
			Body: fmt.Sprintf("%s no longer parses as YAML: line %d: %s. The validator, the sweep generator and the merge tooling all load this file first, so each of them fails until it parses. Fix the YAML at line %d (compare its indentation and quoting with the entry above).",
				prose.Code(a.Path), h.Err.Line, prose.CodeLine(h.Err.Msg), h.Err.Line),
			Key: "yaml:" + h.Err.Msg,
		})
	}
	if h.Shape != "" && (a.Base == nil || a.Base.Shape == "") {
		p.Report(checks.Finding{
			Path: a.Path, Line: h.ShapeLine,
			Title: "Perf changelog is not a list of entries",
			Body:  fmt.Sprintf("%s must be a YAML list whose entries start with `- ` in column one, but %s (line %d). Restore the list shape of the base version.", prose.Code(a.Path), h.Shape, h.ShapeLine),
			Key:   "shape:top",
		})
	}

	for _, e := range h.Entries {
		for _, d := range e.Dups {
			if !a.IsAdded(d.Line) {
				continue
			}
			p.Report(checks.Finding{
				Path: a.Path, Line: d.Line,
				Title: "Duplicate key in a changelog entry",
				Body: fmt.Sprintf("The entry at line %d defines %s twice (lines %d and %d). Duplicate mapping keys are errors in this file: loaders that tolerate them silently keep only the last value, so the entry would mean something other than it shows. Keep one %s.",
					e.Start, prose.Code(d.Key), d.FirstLine, d.Line, prose.Code(d.Key)),
				Related: []checks.Location{{Path: a.Path, Line: d.FirstLine, Note: "first definition of " + prose.Code(d.Key)}},
				Key:     "dup:" + d.Key + ":" + normalizeText(h.Line(d.Line)),
			})
		}
	}

	if n := h.NumLines(); n > 0 && !strings.HasSuffix(h.Src, "\n") && a.IsAdded(n) {
		p.Report(checks.Finding{
			Path: a.Path, Line: n,
			Title: "Perf changelog does not end with a newline",
			Body:  fmt.Sprintf("%s ends without a newline after line %d. The file must end with one: the next PR appending an entry would otherwise have to change this line, which reads as an edit of history. Add a final newline.", prose.Code(a.Path), n),
			Key:   "final-newline",
		})
	}

	for i, st := range a.Align.Head {
		if st == Unchanged || st == Moved {
			continue
		}
		e := h.Entries[i]
		if e.Err != nil {
			continue
		}
		for _, pr := range shapeProblems(schema, h, e, st == Edited) {
			if !a.IsAdded(pr.line) {
				continue
			}
			f := checks.Finding{
				Path: a.Path, Line: pr.line,
				Title: "Changelog entry has the wrong shape",
				Body:  fmt.Sprintf("The entry at line %d %s. %s", e.Start, pr.what, pr.fix),
				Why:   "The validator loads each entry into a model of exactly the keys below and rejects any other key or type, and the merge tooling stops on the first entry it rejects; the sweep generator reads the entries through the same model.",
				Notes: []checks.Note{{Title: "Expected shape", Text: "One entry, with every key the model allows:\n" + prose.CodeBlock("yaml", schema.ExampleEntry())}},
				Key:   "shape:" + pr.code,
			}
			if pr.warn {
				f.Severity = checks.Warning
				f.Title = "Changelog entry has an empty item"
				f.Why = "The validator accepts an empty string, so this does not block the merge; it records nothing, though."
				f.Notes = nil
			}
			if pr.suggest != "" {
				f.Suggestion = &checks.Suggestion{Line: pr.line, Replacement: pr.suggest}
			}
			p.Report(f)
		}
	}
	return nil
}

// byteProblems reports tabs, CRs, NULs and invalid UTF-8 on added lines,
// one finding per kind, and returns the lines involved.
func byteProblems(p *checks.Pass, a *Analysis) map[int]bool {
	h := a.Head
	kinds := []struct {
		code, title, name, why, fix string
		has                         func(string) bool
		lines                       []int
	}{
		{code: "tab", title: "Tab character in the perf changelog", name: "a tab character",
			why: "YAML forbids tabs in indentation, and the changelog holds none anywhere.",
			fix: "Replace the tabs with spaces (entry keys indent with 2 spaces, list items with 4).",
			has: func(l string) bool { return strings.ContainsRune(l, '\t') }},
		{code: "cr", title: "CRLF line ending in the perf changelog", name: "a carriage return (a CRLF line ending)",
			why: "The file uses LF line endings; a CR becomes part of the line's bytes (and of a plain value at its end), so the entry no longer matches what reviewers see.",
			fix: "Save the file with LF line endings (for example with `dos2unix`, or `git config core.autocrlf input`).",
			has: func(l string) bool { return strings.ContainsRune(l, '\r') }},
		{code: "nul", title: "NUL byte in the perf changelog", name: "a NUL byte",
			why: "YAML does not allow NUL, and git treats a file holding one as binary, hiding the diff from review.",
			fix: "Remove the NUL bytes.",
			has: func(l string) bool { return strings.IndexByte(l, 0) >= 0 }},
		{code: "utf8", title: "Invalid UTF-8 in the perf changelog", name: "bytes that are not valid UTF-8",
			why: "YAML files are read as UTF-8, and an invalid byte stops the loader.",
			fix: "Re-encode the text as UTF-8.",
			has: func(l string) bool { return !utf8.ValidString(l) }},
	}
	bad := map[int]bool{}
	for _, n := range a.AddedLines() {
		if n < 1 || n > h.NumLines() {
			continue
		}
		l := h.Line(n)
		for i := range kinds {
			if kinds[i].has(l) {
				kinds[i].lines = append(kinds[i].lines, n)
				bad[n] = true
			}
		}
	}
	for _, k := range kinds {
		if len(k.lines) == 0 {
			continue
		}
		where := "Line " + lineList(k.lines, 6) + " contains"
		if len(k.lines) > 1 {
			where = "Lines " + lineList(k.lines, 6) + " contain"
		}
		p.Report(checks.Finding{
			Path: a.Path, Line: k.lines[0],
			Title: k.title,
			Body:  fmt.Sprintf("%s %s (added by this PR). %s %s", where, k.name, k.why, k.fix),
			Key:   "bytes:" + k.code,
		})
	}
	return bad
}

// explainedByBytes: the parse error is the YAML reader tripping over a
// byte problem already reported (the reader places such errors loosely,
// often at the entry's first line).
func explainedByBytes(h *File, bad map[int]bool) bool {
	if bad[h.Err.Line] {
		return true
	}
	msg := strings.ToLower(h.Err.Msg)
	if !strings.Contains(msg, "control characters") && !strings.Contains(msg, "utf-8") &&
		!strings.Contains(msg, "tab") && !strings.Contains(msg, "cannot start any token") {
		return false
	}
	start, end := h.Err.Line, h.Err.Line
	if e := h.EntryAt(h.Err.Line); e != nil {
		start, end = e.Start, e.End
	}
	for n := range bad {
		if n >= start && n <= end {
			return true
		}
	}
	return false
}

// shapeProblems lists what is wrong with an entry's structure: the
// schema's verdict, plus the line the tools find entries by. pr-link is
// CL001's business for new entries; for edited ones it must stay a string.
func shapeProblems(s *Schema, h *File, e *Entry, edited bool) []schemaProblem {
	out := s.Check(h, e)
	if e.Kind == yaml.MappingNode && !strings.HasPrefix(h.Line(e.Start), entryMarker) {
		out = append(out, schemaProblem{line: e.Start, code: "first-key",
			what: "does not begin with the line `" + entryMarker + "`",
			fix: "The validator and the merge tooling find entries by the lines that begin with `" + entryMarker +
				"` and reject the file when their count differs from the number of entries; write `config-keys` first, as `" + entryMarker + "`."})
	}
	if !edited {
		// A new entry's pr-link is judged by CL001, with the PR's number.
		kept := out[:0]
		for _, pr := range out {
			if pr.code != "missing:"+keyPRLink && pr.code != "type:"+keyPRLink {
				kept = append(kept, pr)
			}
		}
		out = kept
	}
	return out
}

// entryMarker begins every entry's first line.
const entryMarker = "- " + keyConfigKeys + ":"

func tagName(tag string) string {
	switch tag {
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a date"
	case "!!str":
		return "a string"
	}
	return "a " + strings.TrimPrefix(tag, "!!")
}
