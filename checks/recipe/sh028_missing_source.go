package recipe

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH028 reports a script that sources, relative to its own directory, a
// file the repository does not have there.
var SH028 = &checks.Rule{
	ID:       "SH028",
	Severity: checks.Blocking,
	Title:    "Script sources a file that is not where it looks",
	Doc: "Recipes and launchers load their helpers relative to their own location: " +
		"`source \"$(dirname \"$0\")/../../benchmark_lib.sh\"`, or through a variable set to that directory " +
		"(`SCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"`). A recipe copied from another " +
		"directory depth, or moved into a new subdirectory, keeps the old number of `../` and sources a file " +
		"that does not exist: the script stops at its first line, or, without `set -e`, runs on with every helper " +
		"function missing. This rule resolves such a path in the tree the PR leaves and reports it when nothing " +
		"is there, for a `source` line the PR writes or a script it adds or moves (directories named deprecated " +
		"are not judged). When a file of that name sits in a directory above the script, the finding gives the " +
		"path that reaches it.",
	Run: runSH028,
}

// selfDirForms are the ways a script names its own directory, with the
// quotes removed.
var selfDirForms = []string{
	`$(dirname $0)`, `$(dirname ${0})`, `$(dirname ${BASH_SOURCE[0]})`, `$(dirname $BASH_SOURCE)`,
	`$(dirname ${BASH_SOURCE})`, `$(cd $(dirname $0) && pwd)`, `$(cd $(dirname ${BASH_SOURCE[0]}) && pwd)`,
	`$(cd $(dirname $BASH_SOURCE) && pwd)`, `$(cd $(dirname ${BASH_SOURCE}) && pwd)`,
	`$(cd -- $(dirname ${BASH_SOURCE[0]}) && pwd)`, `$(cd -- $(dirname $0) && pwd)`,
}

// isSelfDir reports whether s (quotes removed) names the script's own
// directory.
func isSelfDir(s string) bool {
	for _, f := range selfDirForms {
		if s == f {
			return true
		}
	}
	return false
}

// relativeSource returns the path a source target names relative to the
// script's directory ("../benchmark_lib.sh"), and false when the target
// is not written that way or holds an expansion past the directory.
func relativeSource(f *script.Facts, target string) (string, bool) {
	t := strings.ReplaceAll(target, `"`, "")
	dir, rest, ok := splitSelfDir(f, t)
	if !ok || dir == "" || rest == "" || strings.ContainsAny(rest, "$`*?[") {
		return "", false
	}
	return rest, true
}

// splitSelfDir splits t into its directory part and the rest after the
// slash, when the directory part is the script's own directory.
func splitSelfDir(f *script.Facts, t string) (dir, rest string, ok bool) {
	for _, form := range selfDirForms {
		if strings.HasPrefix(t, form+"/") {
			return form, t[len(form)+1:], true
		}
	}
	name := ""
	switch {
	case strings.HasPrefix(t, "${"):
		if i := strings.Index(t, "}/"); i > 2 {
			name, rest = t[2:i], t[i+2:]
		}
	case strings.HasPrefix(t, "$"):
		if i := strings.IndexByte(t, '/'); i > 1 {
			name, rest = t[1:i], t[i+1:]
		}
	}
	if name == "" || !syntax.ValidName(name) {
		return "", "", false
	}
	// The variable names the script's directory when every value the
	// script gives it does.
	vars := f.VarsNamed(name)
	if len(vars) == 0 {
		return "", "", false
	}
	for _, v := range vars {
		if v.Kind != script.Assign || !v.HasValue || !isSelfDir(strings.ReplaceAll(v.Value, `"`, "")) {
			return "", "", false
		}
	}
	return name, rest, true
}

func runSH028(p *checks.Pass) error {
	ts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	// A pure move changes no line, but it changes what every relative
	// path of the script reaches.
	ts = slices.Clone(ts) // the list is shared by the rules of the review
	judged := map[string]bool{}
	for _, t := range ts {
		judged[t.Path] = true
	}
	cfg := p.Change.Settings(p.Ctx)
	for _, fc := range p.Change.Files {
		if fc.Status != checks.Renamed || judged[fc.Path] || !cfg.IsRecipe(fc.Path) && !cfg.IsRunner(fc.Path) {
			continue
		}
		head, err := HeadFacts(p.Ctx, p.Change, fc.Path)
		if err != nil {
			if script.IsParseError(err) {
				continue
			}
			return err
		}
		if head != nil {
			ts = append(ts, &target{Path: fc.Path, File: fc, Head: head, ch: p.Change})
		}
	}
	for _, t := range ts {
		if checks.InDeprecated(t.Path) {
			continue
		}
		moved := t.isNew() || t.File.Status == checks.Renamed
		for _, src := range t.Head.Sources {
			if !moved && !t.added(src.Line) {
				continue
			}
			rel, ok := relativeSource(t.Head, src.Target)
			if !ok {
				continue
			}
			dir := path.Dir(t.Path)
			want := path.Clean(path.Join(dir, rel))
			if strings.HasPrefix(want, "../") || want == ".." {
				continue // outside the repository: not ours to resolve
			}
			if _, err := p.Change.Head.Stat(p.Ctx, want); err == nil {
				continue
			} else if !checks.IsNotExist(err) {
				return err
			}
			found, err := nearestAbove(p, dir, path.Base(rel))
			if err != nil {
				return err
			}
			p.Report(sh028Finding(t, src, rel, want, found))
		}
	}
	return nil
}

// nearestAbove returns the path of the file named base in dir or the
// closest directory above it, "" when none has one.
func nearestAbove(p *checks.Pass, dir, base string) (string, error) {
	for d := dir; ; d = path.Dir(d) {
		cand := path.Join(d, base)
		if _, err := p.Change.Head.Stat(p.Ctx, cand); err == nil {
			return cand, nil
		} else if !checks.IsNotExist(err) {
			return "", err
		}
		if d == "." || d == "/" || d == "" {
			return "", nil
		}
	}
}

// relPath returns the path from directory dir to file target, both
// relative to the repository root.
func relPath(dir, target string) string {
	rel, err := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(target))
	if err != nil {
		return target
	}
	return filepath.ToSlash(rel)
}

func sh028Finding(t *target, src script.Source, rel, want, found string) checks.Finding {
	f := checks.Finding{
		Path:  t.Path,
		Line:  src.Line,
		Key:   "missing-source:" + rel,
		Title: fmt.Sprintf("Sources %s, which does not exist", prose.Code(want)),
	}
	body := fmt.Sprintf("Line %d sources %s relative to the script's directory, which resolves to %s: the tree "+
		"this PR leaves has no such file, so the script fails before it starts a server (or, without `set -e`, "+
		"runs on with none of the file's functions).", src.Line, prose.Code(rel), prose.Code(want))
	ex := &checks.Explain{}
	ex.Problem().Printf("%s is not in the repository at %s.", prose.Code(path.Base(rel)), prose.Code(path.Dir(want)))
	ex.Why().Printf("The job fails at its first line, and the sweep reports the configuration as broken rather than measured.")
	if found != "" {
		fix := relPath(path.Dir(t.Path), found)
		body += fmt.Sprintf(" The file is at %s; from this directory that is %s.", prose.Code(found), prose.Code(fix))
		ex.Fix().Printf("Source %s.", prose.Code(fix))
		f.Related = append(f.Related, headLoc(found, 1, 0, "the file the script means to load"))
		line := t.Head.LineText(src.Line)
		if strings.Count(line, rel) == 1 {
			f.Suggestion = &checks.Suggestion{Line: src.Line, EndLine: src.Line, Replacement: strings.Replace(line, rel, fix, 1)}
		}
	} else {
		ex.Fix().Printf("Point the path at the file, or add the file.")
	}
	f.Body = body
	ex.Apply(&f)
	return f
}
