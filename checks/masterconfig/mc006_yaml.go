package masterconfig

import (
	"fmt"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc006 = &checks.Rule{
	ID:       "MC006",
	Severity: checks.Blocking,
	Title:    "Master config YAML error",
	Doc: "A master config must parse as YAML, be a mapping from config key to config, and define each key once per " +
		"mapping. The sweep generator loads the whole file, so a syntax error stops every config in it, not only the " +
		"one the PR edits; and with a repeated key most YAML loaders keep only the last definition (PyYAML does so " +
		"silently), so one of the two configs or settings is dropped without a word. The finding gives the parser's " +
		"line, or both lines of a repeated key. While the file has such an error, the other master-config checks " +
		"cannot judge it.",
	Run: runMC006,
}

// runMC006 reports only what the PR introduces: a parse error when base
// parsed (or on a line the PR wrote), a duplicate key base did not have (or
// on a line the PR wrote). While a file has such a problem the other MC
// rules skip it, since no reading of it is certain.
func runMC006(p *checks.Pass) error {
	a, err := load(p)
	if err != nil {
		return err
	}
	for _, fs := range a.files {
		h := fs.head
		switch {
		case h.Err != nil:
			line := h.Err.Line
			if line <= 0 {
				line = 1
			}
			b := fs.base
			if b != nil && b.Err != nil && b.Err.Msg == h.Err.Msg && !fs.fc.IsAdded(line) {
				continue // broken before this PR, and not on a line it wrote
			}
			p.Report(checks.Finding{
				Path:  fs.path,
				Line:  line,
				Title: "master config does not parse: " + prose.CodeLine(h.Err.Msg),
				Body: fmt.Sprintf("%s no longer parses as YAML: %s (line %d). The sweep generator loads the whole file, "+
					"so every config in it stops generating, not only the one this PR edits, and none of the other "+
					"master-config checks can judge the file. Fix the YAML at or just before line %d.",
					prose.Code(fs.path), prose.CodeLine(h.Err.Msg), line, line),
				Notes: []checks.Note{{Title: "Where to look", Text: "The parser reports the line where it could no longer continue; the cause is often " +
					"a line or two earlier: an unclosed `{`/`[` in a flow-style row, a missing `,` between row settings, " +
					"or indentation that does not line up with the sibling rows."}},
				Key: "MC006 parse " + h.Err.Msg,
			})
		case h.NotMapping:
			if fs.base != nil && fs.base.NotMapping {
				continue
			}
			line := h.RootLine
			if line <= 0 {
				line = 1
			}
			p.Report(checks.Finding{
				Path:  fs.path,
				Line:  line,
				Title: "master config is not a mapping",
				Body: fmt.Sprintf("%s must be a mapping from config key to config at the top level, but it is not, so "+
					"the sweep generator cannot read any config from it. Fix: restore the `config-key:` mapping layout.", prose.Code(fs.path)),
				Key: "MC006 not-a-mapping",
			})
		default:
			reportDuplicates(p, fs)
		}
	}
	return nil
}

func reportDuplicates(p *checks.Pass, fs *fileState) {
	before := map[string]bool{}
	if fs.base != nil {
		for _, d := range fs.base.Duplicates {
			before[dupScope(fs.base, d)+"\x00"+d.Key] = true
		}
	}
	for _, d := range fs.head.Duplicates {
		scope := dupScope(fs.head, d)
		if before[scope+"\x00"+d.Key] && !fs.fc.IsAdded(d.Line) && !fs.fc.IsAdded(d.FirstLine) {
			continue
		}
		where := "at the top level"
		if scope != "" {
			where = "in " + prose.Code(scope)
		}
		p.Report(checks.Finding{
			Path:  fs.path,
			Line:  d.Line,
			Title: fmt.Sprintf("duplicate key %s %s", prose.Code(d.Key), where),
			Body: fmt.Sprintf("%s is defined twice %s of %s: at line %d and again at line %d. YAML loaders keep only one "+
				"of the two (PyYAML silently keeps the last), so the other definition is dropped without an error and the "+
				"sweep runs something other than what the file shows. Fix: remove or rename one of them (merge the two if both "+
				"carry settings you need).", prose.Code(d.Key), where, prose.Code(fs.path), d.FirstLine, d.Line),
			Related: []checks.Location{{Path: fs.path, Line: d.FirstLine, Note: "first definition of " + prose.Code(d.Key)}},
			Key:     "MC006 duplicate " + scope + " " + d.Key,
		})
	}
}

// dupScope names the config key a duplicate sits in ("" for a repeated
// config key itself).
func dupScope(f *File, d yamlx.Duplicate) string {
	k := f.KeyAt(d.Line)
	if k == nil || k.Line == d.Line {
		return ""
	}
	return k.Name
}
