package changelog

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl002Doc = "The perf changelog is append-only history, oldest entry first and newest last. A PR adds its " +
	"entries at the physical end of the file and leaves the base's bytes exactly as they were: no inserting above " +
	"the last entry, no editing, reformatting, moving or deleting, and no change to the blank or whitespace-only " +
	"lines between or after historical entries. The first new entry follows exactly one empty line: the base's own " +
	"last line when the base ends with an empty line, otherwise one empty line the PR adds (a line of spaces is not " +
	"empty). Each further new entry follows exactly one empty line, and the file ends with a single newline. The " +
	"one allowed change to history is correcting an entry's `pr-link` to its canonical " +
	"`https://github.com/<owner>/<repo>/pull/<N>` link, and such a correction goes in a PR of its own, never " +
	"together with new entries. The merge tooling compares the base file with the head byte for byte and treats " +
	"what follows it as the PR's additions; anything else reads as rewritten history and stops the merge. Deleted " +
	"entries are reported on the base side of the diff, at their old lines."

// CL002 checks that the PR only appends to the changelog.
var CL002 = &checks.Rule{
	ID:       "CL002",
	Severity: checks.Blocking,
	Title:    "Changelog history changed: entries must only be appended at the end",
	Doc:      cl002Doc,
	Run:      runCL002,
}

// maxHistoryFindings caps the per-entry findings of one PR: a PR that
// rewrites the whole file (line endings, indentation) gets a handful of
// examples and one summary instead of hundreds of comments.
const maxHistoryFindings = 8

func runCL002(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil {
		return err
	}
	if a.FC != nil && a.Head == nil && a.Base != nil && len(a.Base.Entries) > 0 {
		p.Report(checks.Finding{
			Path: a.BasePath, Line: 1, Side: checks.Base,
			Title: "The perf changelog is deleted",
			Body:  fmt.Sprintf("This PR deletes %s and its %d entries. The changelog is the permanent record every published result is traced to; restore the file.", prose.Code(a.BasePath), len(a.Base.Entries)),
			Key:   "deleted-file",
		})
		return nil
	}
	if !a.Touched() {
		return nil
	}
	var hist []checks.Finding
	al := a.Align
	for i, st := range al.Head {
		e := a.Head.Entries[i]
		switch st {
		case Inserted:
			hist = append(hist, insertedFinding(a, e))
		case Edited:
			b := a.Base.Entries[al.HeadBase[i]]
			if isCorrection(b, e, p.Change.PR.RepoSlug()) {
				continue
			}
			hist = append(hist, editedFinding(a, b, e, p.Change.PR.RepoSlug()))
		case Moved:
			b := a.Base.Entries[al.HeadBase[i]]
			hist = append(hist, checks.Finding{
				Path: a.Path, Line: e.Start, EndLine: e.ContentEnd,
				Title: "Historical changelog entry moved",
				Body: fmt.Sprintf("This PR moves %s from base line %d to line %d. Entries stay in the order they were merged (oldest first); move it back to where it was.",
					entryLabel(e), b.Start, e.Start),
				Related: []checks.Location{{Path: a.BasePath, Line: b.Start, EndLine: b.ContentEnd, Side: checks.Base, Note: "where the entry was"}},
				Key:     "moved:" + entryLabel(e),
			})
		}
	}
	for _, j := range al.Deleted() {
		hist = append(hist, deletedFinding(a, a.Base.Entries[j]))
	}
	if f, ok := separatorHistoryFinding(a); ok {
		hist = append(hist, f)
	}
	checks.SortFindings(hist)
	if len(hist) > maxHistoryFindings {
		rest := hist[maxHistoryFindings-1:]
		var lines []int
		for _, f := range rest {
			lines = append(lines, f.Line)
		}
		summary := rest[0]
		summary.Title = "Many historical changelog entries changed"
		summary.Body = fmt.Sprintf("This PR changes %d historical entries of %s in all; beyond the ones reported individually, entries at lines %s changed too (deleted entries count at their base lines). A change this wide usually comes from re-saving the file with another editor setting (line endings, indentation, quoting): restore the base version of %s and append the new entry to it.",
			len(hist), prose.Code(a.Path), lineList(lines, 12), prose.Code(a.Path))
		// The parts explain the first entry only; the summary stands on
		// its message.
		summary.Problem, summary.Why, summary.Evidence, summary.Fix = "", "", "", ""
		summary.Notes, summary.Steps = nil, nil
		summary.Suggestion = nil
		summary.Key = "many-changed"
		hist = append(hist[:maxHistoryFindings-1], summary)
	}
	for _, f := range hist {
		p.Report(f)
	}

	// Corrections are fine on their own, never together with additions.
	added := a.NewEntries()
	if len(added) > 0 {
		for i, st := range al.Head {
			if st != Edited {
				continue
			}
			e := a.Head.Entries[i]
			b := a.Base.Entries[al.HeadBase[i]]
			if !isCorrection(b, e, p.Change.PR.RepoSlug()) {
				continue
			}
			p.Report(mixedCorrectionFinding(a, b, e, added[0]))
		}
	}

	for _, f := range layoutFindings(a) {
		p.Report(f)
	}
	return nil
}

// isCorrection: only the pr-link line differs, and the new link is a
// canonical link to this repository.
func isCorrection(b, h *Entry, slug string) bool {
	bl, bLine, okB := b.PRLink()
	hl, hLine, okH := h.PRLink()
	if !okB || !okH || bl == hl {
		return false
	}
	if _, ok := canonicalNumber(hl, slug); !ok {
		return false
	}
	bf, hf := b.Get(keyPRLink), h.Get(keyPRLink)
	if bf.Line != bLine || hf.Line != hLine {
		return false
	}
	bs, hs := strings.Split(b.Text, "\n"), strings.Split(h.Text, "\n")
	if len(bs) != len(hs) || bLine-b.Start != hLine-h.Start {
		return false
	}
	k := hLine - h.Start
	for i := range bs {
		if i != k && bs[i] != hs[i] {
			return false
		}
	}
	return true
}

// changedRange returns the differing middle of two texts' lines: head
// lines [p, len(h)-s) replaced base lines [p, len(b)-s).
func changedRange(b, h []string) (p, s int) {
	for p < len(b) && p < len(h) && b[p] == h[p] {
		p++
	}
	for s < len(b)-p && s < len(h)-p && b[len(b)-1-s] == h[len(h)-1-s] {
		s++
	}
	return p, s
}

// rangeCode is path:start-end as code.
func rangeCode(path string, start, end int) string {
	return prose.Code(fmt.Sprintf("%s:%d-%d", path, start, end))
}

func clip(s string) string {
	s = strings.TrimRight(s, "\r")
	if len(s) > 140 {
		return s[:137] + "..."
	}
	return s
}

func insertedFinding(a *Analysis, e *Entry) checks.Finding {
	// The first entry below that comes from the base.
	var below *Entry
	for i := e.Index + 1; i < len(a.Head.Entries); i++ {
		if a.Align.HeadBase[i] >= 0 {
			below = a.Head.Entries[i]
			break
		}
	}
	last := a.Head.Entries[len(a.Head.Entries)-1]
	f := checks.Finding{
		Path: a.Path, Line: e.Start, EndLine: e.ContentEnd,
		Title: "New changelog entry inserted above existing entries",
		Key:   "inserted:" + normalizeText(e.Text),
	}
	belowText := "existing entries"
	if below != nil {
		belowText = fmt.Sprintf("%s at line %d", entryLabel(below), below.Start)
		f.Related = append(f.Related, checks.Location{Path: a.Path, Line: below.Start, Note: "an older entry that now sits below the new one"})
	}
	f.Related = append(f.Related, checks.Location{Path: a.Path, Line: last.ContentEnd, Note: "the physical end of the file, where new entries go"})
	f.Body = fmt.Sprintf("The new %s is inserted at lines %d-%d, above %s. The changelog is chronological (oldest first, newest last) and new entries go at the physical end of the file; move this block below line %d, after one blank line.",
		strings.TrimPrefix(entryLabel(e), "the "), e.Start, e.ContentEnd, belowText, last.ContentEnd)
	f.Why = fmt.Sprintf("The merge tooling takes the entries after the base's last entry as this PR's additions and expects every base entry, unchanged and in order, before them. An entry above an existing one breaks both: it is not read as this PR's addition, and compared position by position with the base, the entries from line %d down no longer line up, so the history check fails at merge.",
		e.Start)
	f.Fix = fmt.Sprintf("Cut lines %d-%d (with the blank line that separates them) and paste them at the end of %s, separated from the last entry by exactly one blank line.",
		e.Start, e.ContentEnd, prose.Code(a.Path))
	return f
}

func editedFinding(a *Analysis, b, e *Entry, slug string) checks.Finding {
	bs, hs := strings.Split(b.Text, "\n"), strings.Split(e.Text, "\n")
	p, s := changedRange(bs, hs)
	start, end := e.Start+p, e.Start+len(hs)-s-1
	if end < start {
		end = start
	}
	f := checks.Finding{
		Path: a.Path, Line: start, EndLine: end,
		Title:   "Historical changelog entry edited",
		Related: []checks.Location{{Path: a.BasePath, Line: b.Start, EndLine: b.ContentEnd, Side: checks.Base, Note: "the entry as it is in the base"}},
		Key:     "edited:" + normalizeText(b.Text),
	}
	if end == start {
		f.EndLine = 0
	}
	what := "edits"
	bl, _, okB := b.PRLink()
	hl, _, okH := e.PRLink()
	onlyLink := okB && okH && bl != hl && sameExceptLink(b, e)
	switch {
	case onlyLink:
		what = "changes only the `pr-link` of"
	case fieldsEqual(b, e):
		what = "reformats (same values, different bytes)"
	}
	change := ""
	if p < len(bs) && p < len(hs) {
		change = fmt.Sprintf(": %s became %s", prose.CodeLine(clip(strings.TrimSpace(bs[p]))), prose.CodeLine(clip(strings.TrimSpace(hs[p]))))
	} else if p < len(hs) {
		change = fmt.Sprintf(": line %s was added", prose.CodeLine(clip(strings.TrimSpace(hs[p]))))
	} else if p < len(bs) {
		change = fmt.Sprintf(": line %s was removed", prose.CodeLine(clip(strings.TrimSpace(bs[p]))))
	}
	f.Body = fmt.Sprintf("This PR %s the historical %s at lines %d-%d%s. Entries already in the changelog are immutable byte for byte; the only allowed change is correcting a `pr-link` to its canonical link, in a PR of its own. Restore the entry as it is in the base; to record new work on this config, append a new entry at the end instead.",
		what, strings.TrimPrefix(entryLabel(b), "the "), e.Start, e.ContentEnd, change)
	if onlyLink {
		if _, ok := canonicalNumber(hl, slug); !ok {
			f.Body = fmt.Sprintf("This PR changes the `pr-link` of the historical %s (line %d) from %s to %s, which is not a canonical link. Historical entries are immutable except for a `pr-link` correction to the exact form %s (in a PR of its own); use that form or restore the base value.",
				strings.TrimPrefix(entryLabel(b), "the "), start, prose.Code(bl), prose.Code(hl), prose.Code(pullPrefix(slug)+"<N>"))
		}
	}
	f.Why = "The changelog is the record each published result is traced back to; the merge tooling checks that the base's entries are unchanged in the head before it accepts the PR's appended entries, and rejects a rewritten history at merge time."
	f.Notes = []checks.Note{
		{Title: "Base", Text: rangeCode(a.BasePath, b.Start, b.ContentEnd) + ":\n" + prose.CodeBlock("yaml", b.Text)},
		{Title: "Head", Text: rangeCode(a.Path, e.Start, e.ContentEnd) + ":\n" + prose.CodeBlock("yaml", e.Text)},
	}
	if len(hs)-s > p {
		f.Suggestion = &checks.Suggestion{Line: start, EndLine: end, Replacement: strings.Join(bs[p:len(bs)-s], "\n")}
		if end == start {
			f.Suggestion.EndLine = 0
		}
	}
	return f
}

// sameExceptLink: the entries differ only on their pr-link line.
func sameExceptLink(b, e *Entry) bool {
	_, bLine, _ := b.PRLink()
	_, hLine, _ := e.PRLink()
	bs, hs := strings.Split(b.Text, "\n"), strings.Split(e.Text, "\n")
	if len(bs) != len(hs) || bLine-b.Start != hLine-e.Start {
		return false
	}
	for i := range bs {
		if i != bLine-b.Start && bs[i] != hs[i] {
			return false
		}
	}
	return true
}

// fieldsEqual compares parsed values, ignoring positions.
func fieldsEqual(b, e *Entry) bool {
	if b.Err != nil || e.Err != nil || len(b.Fields) != len(e.Fields) {
		return false
	}
	for i := range b.Fields {
		x, y := b.Fields[i], e.Fields[i]
		if x.Key != y.Key || x.Kind != y.Kind || x.Tag != y.Tag || x.Value != y.Value || len(x.Items) != len(y.Items) {
			return false
		}
		for k := range x.Items {
			if x.Items[k].Value != y.Items[k].Value || x.Items[k].Tag != y.Items[k].Tag || x.Items[k].Kind != y.Items[k].Kind {
				return false
			}
		}
	}
	return true
}

func deletedFinding(a *Analysis, b *Entry) checks.Finding {
	// Where it belongs in head: after the nearest kept entry above it.
	var after *Entry
	for j := b.Index - 1; j >= 0 && after == nil; j-- {
		if h := a.Align.BaseHead[j]; h >= 0 {
			after = a.Head.Entries[h]
		}
	}
	f := checks.Finding{
		Path: a.BasePath, Line: b.Start, EndLine: b.ContentEnd, Side: checks.Base,
		Title: "Historical changelog entry deleted",
		Why:   "The merge tooling checks that every base entry is still present, unchanged, in the head.",
		Notes: []checks.Note{{Title: "Deleted entry", Text: rangeCode(a.BasePath, b.Start, b.ContentEnd) + ", base:\n" + prose.CodeBlock("yaml", b.Text)}},
		Key:   "deleted:" + normalizeText(b.Text),
	}
	where := " at the top of the file"
	if after != nil {
		// The comment goes where the entry belongs in the head, the line
		// a reader of the head diff sees the gap at; the deleted text is
		// quoted in the note.
		where = fmt.Sprintf(" after line %d, where this comment is", after.ContentEnd)
		f.Path, f.Line, f.EndLine, f.Side = a.Path, after.ContentEnd, 0, checks.Head
	}
	f.Body = fmt.Sprintf("This PR deletes the historical %s at base lines %d-%d. Entries are never removed, not even for configs that were retired later: the changelog is the record each published result is traced back to. Restore the entry%s.",
		strings.TrimPrefix(entryLabel(b), "the "), b.Start, b.ContentEnd, where)
	return f
}

func mixedCorrectionFinding(a *Analysis, b, e, first *Entry) checks.Finding {
	bl, _, _ := b.PRLink()
	hl, line, _ := e.PRLink()
	return checks.Finding{
		Path: a.Path, Line: line,
		Title: "pr-link correction mixed with new changelog entries",
		Body: fmt.Sprintf("This PR corrects the `pr-link` of the historical entry for %s from %s to %s (line %d) and also adds new entries (line %d). A correction is allowed only in a PR of its own: the merge tooling accepts the PR's appended entries only when every base entry is unchanged, and accepts a changed `pr-link` only in a PR that appends nothing. Move the correction to a separate PR, or drop it from this one.",
			codeList(b.KeyNames(), 3), prose.Code(shortLink(bl)), prose.Code(shortLink(hl)), line, first.Start),
		Related: []checks.Location{{Path: a.Path, Line: first.Start, Note: "the first new entry of this PR"}},
		Suggestion: func() *checks.Suggestion {
			text := a.Head.Line(line)
			i := strings.Index(text, keyPRLink+":")
			if i < 0 {
				return nil
			}
			return &checks.Suggestion{Line: line, Replacement: text[:i] + keyPRLink + ": " + bl}
		}(),
		Key: "correction-mixed:" + hl,
	}
}

// separatorHistoryFinding reports changed blank lines between two
// historical entries (one finding for all of them).
func separatorHistoryFinding(a *Analysis) (checks.Finding, bool) {
	al := a.Align
	var lines []int
	for i := 0; i+1 < len(a.Head.Entries); i++ {
		j := al.HeadBase[i]
		if j < 0 || al.Head[i] != Unchanged || al.Head[i+1] != Unchanged || al.HeadBase[i+1] != j+1 {
			continue
		}
		h, b := a.Head.Entries[i], a.Base.Entries[j]
		if h.End-h.ContentEnd != b.End-b.ContentEnd || a.Head.Lines(h.ContentEnd+1, h.End) != a.Base.Lines(b.ContentEnd+1, b.End) {
			n := h.ContentEnd + 1
			if n > h.End {
				n = a.Head.Entries[i+1].Start
			}
			lines = append(lines, n)
		}
	}
	if len(lines) == 0 {
		return checks.Finding{}, false
	}
	return checks.Finding{
		Path: a.Path, Line: lines[0],
		Title: "Blank lines between historical changelog entries changed",
		Body: fmt.Sprintf("This PR changes the blank lines between historical entries (at lines %s). History is kept byte for byte, separators included; restore them as they are in the base.",
			lineList(lines, 8)),
		Key: "history-separators",
	}, true
}

// normalizeText collapses whitespace, for fingerprint keys.
func normalizeText(s string) string { return checks.NormalizeKey(s) }
