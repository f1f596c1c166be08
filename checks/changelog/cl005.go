package changelog

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
)

const cl005Doc = "The perf changelog must stay a well-formed file that every tool can load: valid YAML with no " +
	"duplicate mapping keys, UTF-8 text without tabs, carriage returns (CRLF line endings) or NUL bytes, ending " +
	"with a newline, and a list of entries each shaped as a mapping with `config-keys` (a non-empty list of " +
	"strings), `description` (a non-empty list of strings), `pr-link` (a string), optionally `scenario-type` (a " +
	"list of strings) and `append-only: true`, and no other keys. The validator, the sweep generator and the merge " +
	"tooling all read the file first, so one malformed line stops all of them. Only what this PR adds or changes " +
	"is judged; problems already in the history are not reported."

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
	byteLines := byteProblems(p, a)

	if h.Err != nil && (a.Base == nil || a.Base.Err == nil || a.Base.Err.Msg != h.Err.Msg) && !explainedByBytes(h, byteLines) {
		p.Report(checks.Finding{
			Path: a.Path, Line: h.Err.Line,
			Title: "Perf changelog does not parse as YAML",
			Message: fmt.Sprintf("`%s` no longer parses as YAML: line %d: %s. The validator, the sweep generator and the merge tooling all load this file first, so each of them fails until it parses. Fix the YAML at line %d (compare its indentation and quoting with the entry above).",
				a.Path, h.Err.Line, h.Err.Msg, h.Err.Line),
			Key: "yaml:" + h.Err.Msg,
		})
	}
	if h.Shape != "" && (a.Base == nil || a.Base.Shape == "") {
		p.Report(checks.Finding{
			Path: a.Path, Line: h.ShapeLine,
			Title:   "Perf changelog is not a list of entries",
			Message: fmt.Sprintf("`%s` must be a YAML list whose entries start with `- ` in column one, but %s (line %d). Restore the list shape of the base version.", a.Path, h.Shape, h.ShapeLine),
			Key:     "shape:top",
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
				Message: fmt.Sprintf("The entry at line %d defines `%s` twice (lines %d and %d). Duplicate mapping keys are errors in this file: loaders that tolerate them silently keep only the last value, so the entry would mean something other than it shows. Keep one `%s`.",
					e.Start, d.Key, d.FirstLine, d.Line, d.Key),
				Related: []checks.Location{{Path: a.Path, Line: d.FirstLine, Note: "first definition of `" + d.Key + "`"}},
				Key:     "dup:" + d.Key + ":" + normalizeText(h.Line(d.Line)),
			})
		}
	}

	if n := h.NumLines(); n > 0 && !strings.HasSuffix(h.Src, "\n") && a.IsAdded(n) {
		p.Report(checks.Finding{
			Path: a.Path, Line: n,
			Title:   "Perf changelog does not end with a newline",
			Message: fmt.Sprintf("`%s` ends without a newline after line %d. The file must end with one: the next PR appending an entry would otherwise have to change this line, which reads as an edit of history. Add a final newline.", a.Path, n),
			Key:     "final-newline",
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
		for _, pr := range shapeProblems(h, e, st == Edited) {
			if !a.IsAdded(pr.line) {
				continue
			}
			f := checks.Finding{
				Path: a.Path, Line: pr.line,
				Title:   "Changelog entry has the wrong shape",
				Message: fmt.Sprintf("The entry at line %d %s. %s", e.Start, pr.what, pr.fix),
				Details: "**Expected shape.**\n```yaml\n- config-keys:\n    - <config key or glob>\n  scenario-type:        # optional\n    - agentic-coding\n  description:\n    - \"<what changed and why>\"\n  pr-link: https://github.com/<owner>/<repo>/pull/<N>\n  append-only: true     # optional\n```\nThe validator loads each entry into this schema; an entry of another shape fails validation and the sweep generator cannot read its keys.",
				Key:     "shape:" + pr.code,
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
	for n := 1; n <= h.NumLines(); n++ {
		if !a.IsAdded(n) {
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
			Title:   k.title,
			Message: fmt.Sprintf("%s %s (added by this PR). %s %s", where, k.name, k.why, k.fix),
			Key:     "bytes:" + k.code,
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

type shapeProblem struct {
	line    int
	code    string
	what    string
	fix     string
	suggest string
}

// shapeProblems lists what is wrong with an entry's structure. pr-link is
// CL001's business for new entries; for edited ones it must stay a string.
func shapeProblems(h *File, e *Entry, edited bool) []shapeProblem {
	var out []shapeProblem
	if e.Kind != yaml.MappingNode {
		return append(out, shapeProblem{line: e.Start, code: "not-mapping",
			what: "is " + kindName(e.Kind) + ", not a mapping with `config-keys`, `description` and `pr-link`",
			fix:  "Write the entry as `- config-keys: ...` with its keys indented by two spaces."})
	}
	stringList := func(key string, required bool) {
		f := e.Get(key)
		if f == nil {
			if required {
				out = append(out, shapeProblem{line: e.Start, code: "missing:" + key,
					what: "has no `" + key + "`",
					fix:  "Add `" + key + ":` with a list of strings."})
			}
			return
		}
		if f.Kind != yaml.SequenceNode {
			what := "has `" + key + "` as " + kindName(f.Kind)
			if f.Tag == "!!null" {
				what = "has an empty `" + key + "`"
			}
			fix := "Write it as a list: `" + key + ":` followed by `    - <value>` lines."
			out = append(out, shapeProblem{line: f.KeyLine, code: "not-list:" + key, what: what + ", not a list of strings", fix: fix})
			return
		}
		if len(f.Items) == 0 {
			out = append(out, shapeProblem{line: f.KeyLine, code: "empty:" + key,
				what: "has an empty `" + key + "` list", fix: "List at least one value."})
		}
		for _, it := range f.Items {
			switch {
			case !it.IsString():
				what := fmt.Sprintf("has a `%s` item that is %s", key, kindName(it.Kind))
				if it.Kind == yaml.ScalarNode {
					what = fmt.Sprintf("has a `%s` item `%s` that YAML reads as %s, not a string", key, it.Value, tagName(it.Tag))
				}
				out = append(out, shapeProblem{line: it.Line, code: "item:" + key + ":" + it.Value, what: what,
					fix: "Quote the value (`- \"" + it.Value + "\"`)."})
			case strings.TrimSpace(it.Value) == "":
				out = append(out, shapeProblem{line: it.Line, code: "blank:" + key,
					what: "has an empty `" + key + "` item", fix: "Remove it or fill it in."})
			}
		}
	}
	stringList(keyConfigKeys, true)
	stringList(keyDescription, true)
	stringList(keyScenarioType, false)
	if f := e.Get(keyAppendOnly); f != nil && !(f.Tag == "!!bool" && strings.EqualFold(f.Value, "true")) {
		out = append(out, shapeProblem{line: f.KeyLine, code: "append-only",
			what: fmt.Sprintf("sets `append-only: %s`; the flag is either `true` or absent", f.Value),
			fix:  "Write `append-only: true`, or remove the line for a regular entry."})
	}
	if f := e.Get(keyEvalsOnly); f != nil && f.Tag != "!!bool" {
		out = append(out, shapeProblem{line: f.KeyLine, code: "evals-only",
			what: fmt.Sprintf("sets `evals-only: %s`, which is not a boolean", f.Value),
			fix:  "Write `evals-only: true`, or remove the line."})
	}
	if edited {
		if f := e.Get(keyPRLink); f == nil || f.Kind != yaml.ScalarNode || f.Tag != "!!str" {
			line := e.Start
			if f != nil {
				line = f.KeyLine
			}
			out = append(out, shapeProblem{line: line, code: "pr-link", what: "has no string `pr-link`",
				fix: "Restore the entry's `pr-link`."})
		}
	}
	for _, f := range e.Fields {
		if isKnownKey(f.Key) {
			continue
		}
		sp := shapeProblem{line: f.KeyLine, code: "unknown:" + f.Key,
			what: "has the unknown key `" + f.Key + "`",
			fix:  "Entries have only `config-keys`, `scenario-type`, `description`, `pr-link` and `append-only`; remove it."}
		if k, ok := nearestKnownKey(f.Key); ok {
			sp.fix = "Did you mean `" + k + "`?"
			text := h.Line(f.KeyLine)
			if i := strings.Index(text, f.Key+":"); i >= 0 {
				sp.suggest = text[:i] + k + text[i+len(f.Key):]
			}
		}
		out = append(out, sp)
	}
	return out
}

func isKnownKey(k string) bool {
	for _, x := range knownKeys {
		if x == k {
			return true
		}
	}
	return false
}

func nearestKnownKey(k string) (string, bool) {
	best, bestD := "", 4
	for _, x := range knownKeys {
		if d := editDistance(strings.ToLower(k), x, 4); d < bestD {
			best, bestD = x, d
		}
	}
	return best, best != "" && bestD <= 3
}

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
	}
	return "a " + strings.TrimPrefix(tag, "!!")
}
