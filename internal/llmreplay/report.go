package llmreplay

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/history"
)

// Tally counts the findings of one group.
type Tally struct {
	Key        string `json:"key"`
	N          int    `json:"n"`
	Replayable int    `json:"replayable"`
	Flagged    int    `json:"flagged"`
	// Red counts the flagged findings with a 🔴 of ours at their place.
	Red int `json:"red"`
}

func (t *Tally) add(r *Result) {
	t.N++
	if r.Replayable() {
		t.Replayable++
	}
	if r.Replayable() && r.Flagged() {
		t.Flagged++
	}
	if r.Replayable() && r.Red() {
		t.Red++
	}
}

// Summary is a replay's figures.
type Summary struct {
	Total      Tally   `json:"total"`
	BySeverity []Tally `json:"by_severity"`
	ByClass    []Tally `json:"by_class"`
	ByReal     []Tally `json:"by_real"`
	// Unreplayable counts the findings that could not be replayed, by
	// reason.
	Unreplayable map[Reason]int `json:"unreplayable"`
	// AtHeaderLine counts the replayed findings placed at the line of
	// their hunk's header rather than their own.
	AtHeaderLine int `json:"at_header_line"`
	// Relaxed tallies the unreplayable findings reviewed all the same
	// (Options.Relaxed): N of them, Flagged at their relaxed place.
	Relaxed Tally `json:"relaxed"`
	PRs     int   `json:"prs"`
	Reviews int   `json:"reviews"`
	// Errors are the reviews that failed, one line each.
	Errors    []string `json:"errors,omitempty"`
	ElapsedMS int64    `json:"elapsed_ms"`
}

// Summarize tallies a replay.
func Summarize(rp *Replay) Summary {
	s := Summary{Total: Tally{Key: "total"}, Unreplayable: map[Reason]int{}, Reviews: len(rp.Reviews),
		ElapsedMS: rp.Elapsed.Milliseconds()}
	groups := map[string]map[string]*Tally{}
	add := func(group, key string, r *Result) {
		if groups[group] == nil {
			groups[group] = map[string]*Tally{}
		}
		t := groups[group][key]
		if t == nil {
			t = &Tally{Key: key}
			groups[group][key] = t
		}
		t.add(r)
	}
	prs := map[int]bool{}
	for _, r := range rp.Results {
		f := r.Finding
		prs[f.PR] = true
		s.Total.add(r)
		add("severity", f.Severity, r)
		add("class", f.Class, r)
		add("real", f.Real, r)
		if !r.Replayable() {
			s.Unreplayable[r.Reason]++
		}
		if r.HeaderLine > 0 {
			s.AtHeaderLine++
		}
		if r.Relaxed != "" {
			s.Relaxed.Key = "relaxed"
			s.Relaxed.N++
			if r.Flagged() {
				s.Relaxed.Flagged++
			}
			if r.Red() {
				s.Relaxed.Red++
			}
		}
	}
	s.PRs = len(prs)
	s.BySeverity, s.ByClass, s.ByReal = tallies(groups["severity"]), tallies(groups["class"]), tallies(groups["real"])
	for _, rec := range rp.Reviews {
		if rec.Error != "" {
			s.Errors = append(s.Errors, fmt.Sprintf("#%d %.10s: %s", rec.PR, rec.HeadSHA, oneLine(rec.Error)))
		}
	}
	return s
}

// tallies orders a group's tallies, largest first.
func tallies(m map[string]*Tally) []Tally {
	out := make([]Tally, 0, len(m))
	for _, t := range m {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Key < out[j].Key
	})
	return out
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// severityLabel shows the other reviewer's severities as its marks.
func severityLabel(s string) string {
	switch s {
	case "red":
		return "🔴 red"
	case "yellow":
		return "🟡 yellow"
	}
	return s
}

// WriteText writes the figures: totals, then a table per label.
func WriteText(w io.Writer, s Summary) error {
	t := s.Total
	fmt.Fprintf(w, "Findings: %d on %d PRs; replayable %d (%d reviews), unreplayable %d",
		t.N, s.PRs, t.Replayable, s.Reviews, t.N-t.Replayable)
	if t.N > t.Replayable {
		var parts []string
		for _, r := range []Reason{NoRef, NoCommit} {
			if n := s.Unreplayable[r]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s: %d", r, n))
			}
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w, ".")
	if s.AtHeaderLine > 0 {
		fmt.Fprintf(w, "Replayed at the line of the hunk's header, no commit holding the hunk at the finding's own line: %d.\n", s.AtHeaderLine)
	}
	if r := s.Relaxed; r.N > 0 {
		fmt.Fprintf(w, "Relaxed (unreplayable, reviewed on a commit holding the hunk elsewhere or later; not in the figures below): %d, flagged %d, with a 🔴 of ours there %d.\n", r.N, r.Flagged, r.Red)
	}
	fmt.Fprintf(w, "Flagged at the same place: %d of %d (%s); of the replayable: %d of %d (%s); with a 🔴 of ours there: %d.\n",
		t.Flagged, t.N, pct(t.Flagged, t.N), t.Flagged, t.Replayable, pct(t.Flagged, t.Replayable), t.Red)
	for _, sev := range s.BySeverity {
		if sev.Key == "red" {
			fmt.Fprintf(w, "🔴 findings flagged: %d of %d (%s); of the replayable: %d of %d (%s); with a 🔴 of ours there: %d.\n",
				sev.Flagged, sev.N, pct(sev.Flagged, sev.N), sev.Flagged, sev.Replayable, pct(sev.Flagged, sev.Replayable), sev.Red)
		}
	}
	for _, g := range []struct {
		name string
		rows []Tally
	}{
		{"severity", s.BySeverity},
		{"class", s.ByClass},
		{"real", s.ByReal},
	} {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tn\treplayable\tflagged\t%% of n\t%% of replayable\tours 🔴\n", g.name)
		for _, r := range append(g.rows, s.Total) {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%d\n", r.Key, r.N, r.Replayable, r.Flagged,
				pct(r.Flagged, r.N), pct(r.Flagged, r.Replayable), r.Red)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Errors) > 0 {
		fmt.Fprintf(w, "\nReviews that failed (%d):\n", len(s.Errors))
		for _, e := range s.Errors {
			fmt.Fprintln(w, "  "+e)
		}
	}
	_, err := fmt.Fprintf(w, "\n%d reviews in %.1f s.\n", s.Reviews, float64(s.ElapsedMS)/1000)
	return err
}

// excerptLen is how much of a finding's text the miss list shows.
const excerptLen = 300

// WriteMisses lists every finding that was not flagged: the replayable
// ones with their commit, the other reviewer's text (cut), the hunk and
// every finding of ours on that review, then the unreplayable ones with
// the reason.
func WriteMisses(w io.Writer, rp *Replay) error {
	var missed, unreplayable []*Result
	for _, r := range rp.Results {
		switch {
		case !r.Replayable():
			unreplayable = append(unreplayable, r)
		case !r.Flagged():
			missed = append(missed, r)
		}
	}
	fmt.Fprintf(w, "Missed (replayed, nothing of ours at the place): %d\n", len(missed))
	for _, r := range missed {
		writeMiss(w, r)
	}
	fmt.Fprintf(w, "\nUnreplayable: %d\n", len(unreplayable))
	for _, r := range unreplayable {
		writeMiss(w, r)
	}
	return nil
}

func writeMiss(w io.Writer, r *Result) {
	f := r.Finding
	fmt.Fprintf(w, "\n#%d %s %s %s (line %d of the findings file)\n", f.PR, f.Class, severityLabel(f.Severity), location(f.Path, f.Line), f.Index)
	switch {
	case r.Replayable():
		span := "the whole file"
		if r.Span != nil {
			span = fmt.Sprintf("lines %d-%d", r.Span.Start, r.Span.End)
		}
		if r.HeaderLine > 0 {
			span += " (the hunk header's line)"
		}
		fmt.Fprintf(w, "  reviewed %.12s against base %.12s, date %s; place: %s\n", r.Commit, r.Base, f.ThreadDate, span)
	default:
		fmt.Fprintf(w, "  unreplayable: %s", r.Reason)
		if r.Commit != "" {
			fmt.Fprintf(w, " (%.12s)", r.Commit)
		}
		if r.Note != "" {
			fmt.Fprintf(w, "; %s", r.Note)
		}
		if r.Relaxed != "" {
			place := "the whole file"
			if r.Span != nil {
				place = fmt.Sprintf("lines %d-%d", r.Span.Start, r.Span.End)
			}
			flagged := "not flagged"
			if r.Flagged() {
				flagged = "flagged"
			}
			fmt.Fprintf(w, "; relaxed (%s): %s there, %s", r.Relaxed, place, flagged)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  labels: checkable %s, real %s\n", f.Checkable, f.Real)
	fmt.Fprintf(w, "  text: %s\n", excerpt(f.Text, excerptLen))
	if strings.TrimSpace(f.Hunk) == "" {
		fmt.Fprintln(w, "  hunk: (none)")
	} else {
		fmt.Fprintln(w, "  hunk:")
		for _, l := range strings.Split(strings.TrimSuffix(f.Hunk, "\n"), "\n") {
			fmt.Fprintln(w, "    | "+l)
		}
	}
	if r.Review == nil {
		return
	}
	if r.Review.Error != "" {
		fmt.Fprintf(w, "  review error: %s\n", oneLine(r.Review.Error))
	}
	fmt.Fprintf(w, "  ours on this review (%d):\n", len(r.Review.Findings))
	for _, o := range r.Review.Findings {
		fmt.Fprintf(w, "    %s %s %s %s\n", o.Rule, o.Severity.Emoji(), o.Location(), o.Title)
	}
}

func location(path string, line int) string {
	if line <= 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// excerpt is s on one line, cut after about n bytes at a rune boundary.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// jsonReport is WriteJSON's shape.
type jsonReport struct {
	Summary  Summary      `json:"summary"`
	Findings []jsonResult `json:"findings"`
	Reviews  []jsonReview `json:"reviews"`
}

type jsonResult struct {
	*Result
	Flagged bool `json:"flagged"`
	Red     bool `json:"ours_red"`
}

type jsonReview struct {
	PR       int              `json:"pr"`
	Date     string           `json:"date"`
	Base     string           `json:"base"`
	Head     string           `json:"head"`
	Error    string           `json:"error,omitempty"`
	Findings []checks.Finding `json:"findings"`
}

// WriteJSON writes the summary, every finding's result (its labels and
// place, not its text) and every review's findings, as one JSON object.
func WriteJSON(w io.Writer, rp *Replay) error {
	rep := jsonReport{Summary: Summarize(rp), Findings: []jsonResult{}, Reviews: []jsonReview{}}
	for _, r := range rp.Results {
		rep.Findings = append(rep.Findings, jsonResult{Result: r, Flagged: r.Flagged(), Red: r.Red()})
	}
	for _, rec := range rp.Reviews {
		rep.Reviews = append(rep.Reviews, reviewJSON(rec))
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func reviewJSON(rec *history.Record) jsonReview {
	return jsonReview{PR: rec.PR, Date: day(rec.Date), Base: rec.BaseSHA, Head: rec.HeadSHA, Error: rec.Error, Findings: rec.Findings}
}
