package checks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity says whether a finding blocks the merge.
type Severity int

const (
	// Warning (🟡) is a real defect or deviation that does not block.
	Warning Severity = iota + 1
	// Blocking (🔴) will break the run or the merge tooling, or silently
	// measure the wrong thing.
	Blocking
)

// String returns "blocking" or "warning", the spelling used in JSON output
// and in .github/reviewbot.yml.
func (s Severity) String() string {
	switch s {
	case Blocking:
		return "blocking"
	case Warning:
		return "warning"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Emoji is the marker that starts a rendered finding.
func (s Severity) Emoji() string {
	if s == Blocking {
		return "🔴"
	}
	return "🟡"
}

// ParseSeverity accepts "blocking"/"error"/"red" and "warning"/"warn"/"yellow".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "blocking", "error", "red", "🔴":
		return Blocking, nil
	case "warning", "warn", "yellow", "🟡":
		return Warning, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want blocking or warning)", s)
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, err := ParseSeverity(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Side says which version of a file a line number refers to.
type Side string

const (
	// Head is the PR's version (GitHub's RIGHT side). The default.
	Head Side = ""
	// Base is the version before the PR (LEFT side), used for findings
	// about deleted lines.
	Base Side = "base"
)

// Location is a place in a file, with a note saying what it shows. Related
// locations are the evidence of a finding.
type Location struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line,omitempty"`
	// Side is Base when the location refers to the base tree (for example a
	// sibling recipe, which is always read from base). Evidence is cited as
	// path:line either way.
	Side Side   `json:"side,omitempty"`
	Note string `json:"note,omitempty"`
}

// String renders path:line or path:start-end.
func (l Location) String() string {
	if l.Line <= 0 {
		return l.Path
	}
	if l.EndLine > l.Line {
		return fmt.Sprintf("%s:%d-%d", l.Path, l.Line, l.EndLine)
	}
	return fmt.Sprintf("%s:%d", l.Path, l.Line)
}

// Suggestion is a replacement for the lines Line..EndLine of the finding's
// file (head side), rendered as a GitHub ```suggestion block.
type Suggestion struct {
	Line        int    `json:"line"`
	EndLine     int    `json:"end_line,omitempty"`
	Replacement string `json:"replacement"`
}

// Finding is one reported problem.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	EndLine  int      `json:"end_line,omitempty"`
	Side     Side     `json:"side,omitempty"`
	// Title is a short heading (one line, no trailing period) used in
	// summaries, SARIF and Actions annotations.
	Title string `json:"title"`
	// Body is the one-paragraph statement that opens the comment: what is
	// wrong, where, and the fix.
	Body string `json:"body"`
	// Problem says in detail what is wrong and where ("The problem.").
	Problem string `json:"problem,omitempty"`
	// Why says what goes wrong because of it ("Why it matters.").
	Why string `json:"why,omitempty"`
	// Evidence is the prose that introduces the Related locations
	// ("Evidence."); the reviewer lists the locations after it.
	Evidence string `json:"evidence,omitempty"`
	// Notes are further explanations with a heading of their own (how a
	// value was chosen, what a waiver must contain).
	Notes []Note `json:"notes,omitempty"`
	// Steps are the step-by-step argument, one step per entry, in order
	// ("Step by step.").
	Steps []string `json:"steps,omitempty"`
	// Fix says what to do ("Fix."); the suggestion, when there is one,
	// follows it.
	Fix string `json:"fix,omitempty"`
	// Related are the evidence locations, cited as path:line.
	Related    []Location  `json:"related,omitempty"`
	Suggestion *Suggestion `json:"suggestion,omitempty"`
	// Key is the normalized offending text the fingerprint is computed
	// from. Rules set it to something that identifies the problem
	// independently of line numbers (for example the pr-link value); when
	// empty, the text of the reported lines is used.
	// The pipeline fills it in; the reviewer hashes it into the fingerprint.
	Key string `json:"-"`
	// Facts names the recipe facts this finding judged (for example
	// "env:VLLM_USE_SIMPLE_KV_OFFLOAD"); convention mining skips facts a
	// hand-written rule already reported on the same file.
	Facts []string `json:"-"`
}

// Reasoning is the finding's reasoning parts as plain text, one part per
// paragraph in the order the reviewer renders them, without headings: for
// tests and for readers that want the words, not the layout.
func (f Finding) Reasoning() string {
	parts := []string{f.Problem, f.Why, f.Evidence}
	for _, n := range f.Notes {
		parts = append(parts, n.Title+": "+n.Text)
	}
	parts = append(parts, f.Steps...)
	parts = append(parts, f.Fix)
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

// Note is a titled part of a finding's reasoning.
type Note struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Location returns the finding's own position.
func (f Finding) Location() Location {
	return Location{Path: f.Path, Line: f.Line, EndLine: f.EndLine, Side: f.Side}
}
