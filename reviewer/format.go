package reviewer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Report is the outcome of a local review, as the output formats print it.
type Report struct {
	Findings []checks.Finding
	Files    []*checks.FileChange
	// Rules documents the rules that ran (SARIF carries their docs).
	Rules  []*checks.Rule
	Stats  checks.Stats
	Errors []error
	// NotReviewed are the files the review did not judge, and why
	// (checks.Result.NotReviewed).
	NotReviewed []checks.NotReviewed
	// Version is reviewbot's version, for SARIF's tool description ("" or
	// "devel" when unknown).
	Version string
	// Missing are the kinds of reviewed file neither tree has: the rules
	// about them had nothing to check.
	Missing []checks.FileKind
}

// JSONSchemaVersion is the version of the shape WriteJSON writes. It
// changes when a field is removed or changes meaning; new fields do not
// change it.
const JSONSchemaVersion = 1

// sorted returns the findings ordered by path, then line, without touching
// the caller's slice.
func (r *Report) sorted() []checks.Finding {
	fs := append([]checks.Finding(nil), r.Findings...)
	checks.SortFindings(fs)
	return fs
}

func severityName(s checks.Severity) string {
	if s == checks.Blocking {
		return "blocking"
	}
	return "warning"
}

type jsonFinding struct {
	Rule        string             `json:"rule"`
	Severity    string             `json:"severity"`
	Path        string             `json:"path"`
	Line        int                `json:"line"`
	EndLine     int                `json:"end_line,omitempty"`
	Side        checks.Side        `json:"side,omitempty"`
	Title       string             `json:"title"`
	Body        string             `json:"body"`
	Details     string             `json:"details,omitempty"`
	Related     []checks.Location  `json:"related,omitempty"`
	Suggestion  *checks.Suggestion `json:"suggestion,omitempty"`
	Fingerprint string             `json:"fingerprint"`
}

type jsonStats struct {
	Files      int   `json:"files"`
	Rules      int   `json:"rules"`
	Suppressed int   `json:"suppressed"`
	ElapsedMS  int64 `json:"elapsed_ms"`
	// NotFound are the kinds of reviewed file the repository does not
	// have; Inconclusive what rules had too little evidence to judge.
	NotFound     []jsonKind            `json:"not_found"`
	Inconclusive []checks.Inconclusive `json:"inconclusive"`
}

type jsonKind struct {
	Kind  string   `json:"kind"`
	Paths []string `json:"paths"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonReport struct {
	Tool          jsonTool             `json:"tool"`
	SchemaVersion int                  `json:"schema_version"`
	Findings      []jsonFinding        `json:"findings"`
	Stats         jsonStats            `json:"stats"`
	Errors        []string             `json:"errors,omitempty"`
	NotReviewed   []checks.NotReviewed `json:"not_reviewed,omitempty"`
}

// WriteJSON writes the machine-readable report of `reviewbot review
// --format json`.
func WriteJSON(w io.Writer, r *Report) error {
	version := r.Version
	if version == "" {
		version = "devel"
	}
	out := jsonReport{
		Tool:          jsonTool{Name: "reviewbot", Version: version},
		SchemaVersion: JSONSchemaVersion,
		Findings:      []jsonFinding{},
		Stats: jsonStats{Files: r.Stats.Files, Rules: r.Stats.Rules, Suppressed: r.Stats.Suppressed,
			ElapsedMS: r.Stats.Elapsed.Milliseconds(), NotFound: []jsonKind{},
			Inconclusive: append([]checks.Inconclusive{}, r.Stats.Inconclusive...)},
	}
	for _, k := range r.Missing {
		out.Stats.NotFound = append(out.Stats.NotFound, jsonKind{Kind: k.Name, Paths: k.Patterns})
	}
	for _, f := range r.sorted() {
		out.Findings = append(out.Findings, jsonFinding{
			Rule: f.Rule, Severity: severityName(f.Severity), Path: f.Path, Line: f.Line,
			EndLine: f.EndLine, Side: f.Side, Title: f.Title, Body: f.Body, Details: Explanation(f),
			Related: f.Related, Suggestion: f.Suggestion, Fingerprint: Fingerprint(f),
		})
	}
	for _, err := range r.Errors {
		out.Errors = append(out.Errors, err.Error())
	}
	out.NotReviewed = r.NotReviewed
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteMarkdown writes exactly the bodies a first review by the App would
// post: each inline comment under a header naming its anchor, then the
// summary. Rule errors, which the App does not post, follow under their own
// header.
func WriteMarkdown(w io.Writer, r *Report) error {
	plan := BuildPlan(r.Findings, r.Files, PlanOptions{NotReviewed: r.NotReviewed})
	var b strings.Builder
	for _, c := range plan.Inline {
		anchor := fmt.Sprintf("%s:%d", c.Path, c.Line)
		if c.StartLine > 0 {
			anchor = fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.Line)
		}
		fmt.Fprintf(&b, "### %s (%s)\n\n%s\n\n", prose.Code(anchor), c.Side, c.Body)
	}
	fmt.Fprintf(&b, "### Summary\n\n%s\n", plan.Summary)
	if len(r.Errors) > 0 {
		b.WriteString("\n### Errors\n\n")
		for _, err := range r.Errors {
			b.WriteString("- " + prose.OneLine(err.Error()) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// evidenceLines lists locations as plain text, one per line.
func evidenceLines(related []checks.Location, prefix string) string {
	lines := make([]string, len(related))
	for i, loc := range related {
		lines[i] = prefix + locLabel(loc)
		if note := prose.OneLine(loc.Note); note != "" {
			lines[i] += " — " + note
		}
	}
	return strings.Join(lines, "\n")
}
