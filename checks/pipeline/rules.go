package pipeline

import (
	"fmt"
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Rules returns the pipeline rules (PL001-PL015) in run order.
func Rules() []*checks.Rule {
	return []*checks.Rule{pl001, pl002, pl003, pl004, pl005, pl006, pl007, pl008, pl009, pl010, pl011, pl012, pl013, pl014, pl015}
}

// maxRowsCited bounds the rows one finding lists.
const maxRowsCited = 4

// rowHit is one row's problem, identified by a fingerprint that does not
// depend on line numbers, so the same problem at base is recognized.
type rowHit struct {
	row *Row
	fp  string
}

// keyGroup is the rows of one key sharing a problem.
type keyGroup struct {
	key  string
	fp   string
	hits []rowHit
}

// groupByKey gathers hits by key and fingerprint, in row order.
func groupByKey(hits []rowHit) []*keyGroup {
	var out []*keyGroup
	idx := map[string]*keyGroup{}
	for _, h := range hits {
		k := h.row.Key.Name + "\x00" + h.fp
		g, ok := idx[k]
		if !ok {
			g = &keyGroup{key: h.row.Key.Name, fp: h.fp}
			idx[k] = g
			out = append(out, g)
		}
		g.hits = append(g.hits, h)
	}
	return out
}

// rowLoc cites a row.
func rowLoc(r *Row, note string) checks.Location {
	return checks.Location{Path: r.File, Line: r.Row.Line, Note: note}
}

// loc cites a line of the head tree.
func loc(l Loc, note string) checks.Location {
	return checks.Location{Path: l.File, Line: l.Line, Note: note}
}

// rowNames renders "the row at line 12" or "3 rows (lines 12, 14 and 16)".
func rowNames(hits []rowHit) string {
	if len(hits) == 1 {
		return fmt.Sprintf("the row at %s", code(fmt.Sprintf("%s:%d", hits[0].row.File, hits[0].row.Row.Line)))
	}
	var lines []string
	for i, h := range hits {
		if i == maxRowsCited {
			lines = append(lines, fmt.Sprintf("%d more", len(hits)-maxRowsCited))
			break
		}
		lines = append(lines, fmt.Sprint(h.row.Row.Line))
	}
	return fmt.Sprintf("%d rows (%s lines %s)", len(hits), code(hits[0].row.File), prose.JoinAnd(lines))
}

// changedFile returns the PR's change of a path, or nil.
func changedFile(ch *checks.Change, p string) *checks.FileChange {
	return ch.File(p)
}

// primary picks where a finding about rows goes: the first row the PR
// changed; else the first evidence line the PR changed; else the first
// row (outside the diff, the finding goes to the summary).
func primary(ch *checks.Change, changed map[*Row]bool, hits []rowHit, evidence []Loc) (string, int) {
	for _, h := range hits {
		if changed[h.row] {
			return h.row.File, h.row.Row.Line
		}
	}
	for _, e := range evidence {
		if fc := changedFile(ch, e.File); fc != nil && e.Line > 0 && fc.IsAdded(e.Line) {
			return e.File, e.Line
		}
	}
	return hits[0].row.File, hits[0].row.Row.Line
}

// baseHas reports whether some base row of the key shows the problem fp.
func baseHas(a *Analysis, r *Row, fps func(*Model, *Row) []string, fp string) bool {
	base, err := a.Base()
	if err != nil {
		return false
	}
	for _, br := range base.Key(r.Key.Name) {
		for _, f := range fps(base, br) {
			if f == fp {
				return true
			}
		}
	}
	return false
}

// subjects loads the analysis and the rows a rule judges; nil when the PR
// does not touch the pipeline.
func subjects(p *checks.Pass) (*Analysis, *Model, []*Row, error) {
	if p.Change.Config == nil {
		return nil, nil, nil, nil
	}
	a, err := Load(p.Ctx, p.Change)
	if err != nil || !a.Relevant {
		return nil, nil, nil, err
	}
	rows, err := a.Subjects()
	if err != nil || len(rows) == 0 {
		return nil, nil, nil, err
	}
	head, err := a.Head()
	if err != nil {
		return nil, nil, nil, err
	}
	return a, head, rows, nil
}

// sortedLocs orders evidence by file and line, without repeats.
func sortedLocs(ls []checks.Location) []checks.Location {
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Path != ls[j].Path {
			return ls[i].Path < ls[j].Path
		}
		return ls[i].Line < ls[j].Line
	})
	out := ls[:0]
	for i, l := range ls {
		if i > 0 && l.Path == out[len(out)-1].Path && l.Line == out[len(out)-1].Line {
			continue
		}
		out = append(out, l)
	}
	return out
}

// code quotes s, which may come from the PR, as one code span
// (prose.Code).
func code(s string) string { return prose.Code(s) }
