package pipeline

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl002 = &checks.Rule{
	ID:       "PL002",
	Severity: checks.Warning,
	Title:    "Benchmark script or recipe that no config row runs",
	Doc: "Launchers compute the script a row runs from the row's fields (`benchmarks/single_node/<scenario>/" +
		"<model-prefix>_<precision>_<hardware>[_<framework>][_mtp].sh`), and multi-node rows name their srt-slurm " +
		"recipe in `CONFIG_FILE=`. This rule follows every row of the head tree through its launchers and reports a " +
		"script or recipe this PR moves, or adds together with master-config changes, that no row reaches, in a " +
		"directory the launchers run files from: " +
		"it is never benchmarked. Usually the name does not match what the launcher computes (a different model " +
		"prefix, precision or engine spelling, a missing `_mtp`), or the config row that should run it is missing. " +
		"Helpers other benchmark files use (found by name) and files a launcher may reach through a path the bot " +
		"cannot resolve are not reported.",
	Run: runPL002,
}

// Runnable reports whether a benchmark file is one a launcher could run
// (not a library, template or data file).
func Runnable(p string) bool {
	b := path.Base(p)
	switch path.Ext(b) {
	case ".sh":
		return !strings.Contains(p, "/utils/") && !strings.Contains(p, "_utils/") && !strings.HasSuffix(b, "_lib.sh") &&
			!strings.Contains(p, "/deprecated/")
	case ".yaml", ".yml":
		return strings.Contains(p, "srt-slurm-recipes/") && !strings.Contains(p, "/deprecated/")
	}
	return false
}

func runPL002(p *checks.Pass) error {
	if p.Change.Config == nil {
		return nil
	}
	a, err := Load(p.Ctx, p.Change)
	if err != nil || !a.Relevant {
		return err
	}
	added, err := a.unreached()
	if err != nil || len(added) == 0 {
		return err
	}
	head, err := a.Head()
	if err != nil {
		return err
	}
	head.ResolveAll()
	reached := map[string]bool{}
	var opaque []string // globs of runs the bot could not name
	for _, r := range head.Rows {
		for _, l := range head.Resolve(r).Groups {
			if l.Result == nil {
				continue
			}
			for _, pth := range l.Result.Paths {
				for _, run := range pth.Runs {
					switch {
					case run.Path != "":
						reached[run.Path] = true
					case !run.Known:
						opaque = append(opaque, run.Text)
					}
				}
			}
		}
	}
	dirs := map[string]bool{}
	for p := range reached {
		dirs[launchArea(p)] = true
	}
	// A launcher that rejects a changed row before it computes a script
	// (PL001 reports it) leaves open which file that row would run.
	changed, err := a.ChangedRows()
	if err != nil {
		return err
	}
	undecided := false
	for r := range changed {
		for _, l := range head.Resolve(r).Groups {
			if launchBroken(head, l) && len(head.Outcome(l).Targets) == 0 {
				undecided = true
			}
		}
	}
	for _, fc := range added {
		f := fc.Path
		if reached[f] || mayBe(opaque, f) || mentioned(head, f) {
			continue
		}
		if fc.Status == checks.Renamed {
			// A moved file was run where it was.
			base, err := a.Base()
			if err != nil {
				return err
			}
			if len(base.Reachers(fc.OldPath)) == 0 {
				continue
			}
		} else if !dirs[launchArea(f)] || undecided {
			continue
		}
		p.Report(pl002Finding(fc, head, reached))
	}
	return nil
}

// launchArea is the directory a launcher runs files from: a script's
// directory, or an srt-slurm recipe's engine directory (recipes nest by
// model and topology).
func launchArea(p string) string {
	if i := strings.Index(p, "srt-slurm-recipes/"); i >= 0 {
		rest := p[i+len("srt-slurm-recipes/"):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return p[:i] + "srt-slurm-recipes/" + rest[:j]
		}
	}
	return path.Dir(p)
}

var paramRe = regexp.MustCompile(`\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)

// mayBe reports whether a run the bot could not name may be f: its word,
// with every expansion standing for anything, matches f (a word that is
// all expansion could be anything).
func mayBe(opaque []string, f string) bool {
	for _, t := range opaque {
		parts := paramRe.Split(strings.Trim(t, `"'`), -1)
		for i, s := range parts {
			parts[i] = regexp.QuoteMeta(s)
		}
		rx, err := regexp.Compile("(^|/)" + strings.Join(parts, ".*") + "$")
		if err != nil || rx.MatchString(f) {
			return true
		}
	}
	return false
}

// mentioned reports whether another file runs or includes f by name: a
// launcher, a master config, or a benchmark file of its directory or the
// one above.
func mentioned(m *Model, f string) bool {
	name := path.Base(f)
	var files []string
	files = append(files, m.Launchers...)
	for _, c := range m.Configs {
		files = append(files, c.Path)
	}
	for _, dir := range []string{path.Dir(f), path.Dir(path.Dir(f))} {
		entries, err := m.tree.ReadDir(m.ctx, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir && e.Path != f {
				files = append(files, e.Path)
			}
		}
	}
	for _, p := range files {
		if ext := path.Ext(p); ext != ".sh" && ext != ".yaml" && ext != ".yml" && ext != ".py" {
			continue
		}
		b, err := m.tree.ReadFile(m.ctx, p)
		if err == nil && strings.Contains(string(b), name) {
			return true
		}
	}
	return false
}

func pl002Finding(fc *checks.FileChange, m *Model, reached map[string]bool) checks.Finding {
	f := fc.Path
	ex := &checks.Explain{}
	moved := fc.Status == checks.Renamed
	verb := "adds"
	if moved {
		verb = "moves"
	}
	// The reached files of the same directory show what the launchers
	// compute there.
	var near []string
	var related []checks.Location
	var same []string
	for p := range reached {
		if path.Dir(p) == path.Dir(f) {
			same = append(same, p)
		}
	}
	sort.Strings(same)
	for _, p := range same {
		if len(near) == 3 {
			break
		}
		near = append(near, code(p))
	}
	body := fmt.Sprintf("This PR %s %s, but no master-config row runs it: no launcher path of any row computes this file, so it is never benchmarked.", verb, code(f))
	if moved {
		body += fmt.Sprintf(" It was %s before; the rows that ran it there now run something else or nothing.", code(fc.OldPath))
	}
	body += " Check that its name is what the launcher computes for the config it is for (model prefix, precision, hardware, engine, `_mtp`), or add the row that runs it."
	ex.Problem()
	ex.Printf("No row of the head tree's master configs reaches %s on any launcher path.", code(f))
	ex.Why()
	ex.Printf("A benchmark file is run only through a row: the launcher of the row's runner computes the script's path from the row's fields, or a multi-node row names its recipe in `CONFIG_FILE=`. A file no row reaches stays untested while the PR looks like it adds a benchmark.")
	if len(near) > 0 {
		ex.Evidence()
		ex.Printf("Files of the same directory that rows do reach, for the naming the launchers use: %s.", prose.JoinAnd(near))
	}
	ex.Fix()
	ex.Printf("Rename the file to the path the launcher computes for its config, or add (or correct) the master-config row that runs it.")
	fnd := checks.Finding{
		Path:    f,
		Line:    1,
		Title:   code(path.Base(f)) + " is run by no config row",
		Body:    body,
		Related: related,
		Key:     "PL002 " + f,
	}
	ex.Apply(&fnd)
	return fnd
}

// unreached are the runnable benchmark files the PR moves, or adds along
// with master-config changes, that no head row runs: what PL002 judges
// against every row, resolved once per change.
func (a *Analysis) unreached() ([]*checks.FileChange, error) {
	a.unreachedOnce.Do(func() {
		added := a.strandable()
		if len(added) == 0 {
			return
		}
		var paths []string
		for _, fc := range added {
			paths = append(paths, fc.Path)
		}
		head, err := a.Head()
		if err != nil {
			a.unreachedErr = err
			return
		}
		// Asking for the rows of the files resolves only the rows that
		// may run them (see Reachers).
		reach := head.ReachersOf(paths)
		// A file another file names by its base name is never reported
		// (see mentioned): it needs no resolution of every row either.
		a.unreachedFiles = slices.DeleteFunc(added, func(fc *checks.FileChange) bool {
			return len(reach[fc.Path]) > 0 || mentioned(head, fc.Path)
		})
	})
	return a.unreachedFiles, a.unreachedErr
}

// strandable are the files PL002 judges: the runnable benchmark files the
// PR moves (a moved file was run by something), or adds along with
// master-config changes (a PR that only adds a recipe may be staging it).
func (a *Analysis) strandable() []*checks.FileChange {
	var out []*checks.FileChange
	for _, fc := range a.Benchmarks {
		if Runnable(fc.Path) && (fc.Status == checks.Renamed || fc.Status == checks.Added && len(a.Configs) > 0) {
			out = append(out, fc)
		}
	}
	return out
}
