package recipe

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH019 reports a variable a recipe assigns that nothing reads.
var SH019 = &checks.Rule{
	ID:       "SH019",
	Severity: checks.Warning,
	Title:    "Variable assigned but never used",
	Doc: "A recipe that computes a value and then starts its server without it usually meant to pass it on: " +
		"an argument array built in a case arm and never spliced into the command, a size computed from " +
		"`CONC` next to a command that hard-codes another, an engine variable such as `SGLANG_ENABLE_SPEC_V2=1` " +
		"assigned without `export` (the server, a child process, never sees it). This rule reports a variable " +
		"the PR assigns in a recipe that starts a server when nothing reads it: no expansion in the script, no " +
		"mention of its name anywhere else in the file (a trap string or a single-quoted `bash -c` script " +
		"counts as a use), no read in `benchmark_lib.sh`, whose functions see the script's variables, and no " +
		"`export`. It stays silent for a script that sources other files, turns on `set -a`, or reads " +
		"variables by computed name, and for the shell's own variables (`IFS`, `PATH`). Pass the value where it " +
		"was meant to go, export it, or drop the assignment.",
	Run: runSH019,
}

// sh019MaxPerFile bounds the findings on one recipe: a script with many
// dead assignments is being rewritten, and the first few say it.
const sh019MaxPerFile = 3

// shellVariables are the variables the shell itself reads (or sets), so an
// assignment to one is a use.
var shellVariables = map[string]bool{
	"IFS": true, "PATH": true, "HOME": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true,
	"OPTIND": true, "OPTARG": true, "OPTERR": true, "REPLY": true, "SECONDS": true, "RANDOM": true,
	"TIMEFORMAT": true, "TMOUT": true, "TMPDIR": true, "CDPATH": true, "GLOBIGNORE": true,
	"PROMPT_COMMAND": true, "HISTFILE": true, "HISTSIZE": true, "HISTFILESIZE": true, "FUNCNEST": true,
	"SHELLOPTS": true, "BASHOPTS": true, "POSIXLY_CORRECT": true, "LANG": true, "LC_ALL": true,
	"TZ": true, "TERM": true, "COLUMNS": true, "LINES": true, "MAILCHECK": true, "ENV": true,
}

func isShellVariable(name string) bool {
	return shellVariables[name] || strings.HasPrefix(name, "BASH") || strings.HasPrefix(name, "LC_")
}

// deadVar is a variable assigned and never used.
type deadVar struct {
	name string
	// line is the first assignment the PR added; array is set when it
	// assigns a list.
	line  int
	array bool
	v     script.Var
}

func runSH019(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		if len(s.Head.Servers) == 0 || !closedScript(s.Head) {
			continue
		}
		lib, ok, err := libOf(p, s.Head, s.Path, HeadFacts)
		if err != nil || !ok {
			return err
		}
		var baseLib *script.Facts
		if s.Base != nil {
			baseLib, _, err = libOf(p, s.Base, s.Path, BaseFacts)
			if err != nil {
				return err
			}
		}
		var dead []deadVar
		seen := map[string]bool{}
		for _, v := range s.Head.Vars {
			if v.Kind != script.Assign || seen[v.Name] || isShellVariable(v.Name) {
				continue
			}
			seen[v.Name] = true
			if !unused(s.Head, lib, v.Name) {
				continue
			}
			// The PR introduces it: an assignment it adds, of a variable the
			// base read (or did not have).
			d := deadVar{name: v.Name}
			for _, a := range s.Head.VarsNamed(v.Name) {
				if a.Kind == script.Assign && s.File.IsAdded(a.Line) {
					d.line, d.array, d.v = a.Line, a.Array, a
					break
				}
			}
			if d.line == 0 {
				continue
			}
			if s.Base != nil && len(s.Base.VarsNamed(v.Name)) > 0 && closedScript(s.Base) && unused(s.Base, baseLib, v.Name) {
				continue // as unused before the PR
			}
			dead = append(dead, d)
		}
		sort.Slice(dead, func(i, j int) bool { return dead[i].line < dead[j].line })
		if len(dead) > sh019MaxPerFile {
			dead = dead[:sh019MaxPerFile]
		}
		for _, d := range dead {
			p.Report(sh019Finding(s, d))
		}
	}
	return nil
}

// closedScript reports whether every read of the script's variables is
// one the facts can see: it sources nothing but benchmark_lib.sh, does
// not export every assignment (set -a) and reads no variable by a
// computed name (${!name}, eval, a nameref).
func closedScript(f *script.Facts) bool {
	for _, src := range f.Sources {
		if !src.Lib {
			return false
		}
	}
	for _, st := range f.Sets {
		if on, ok := st.Sets("allexport"); ok && on {
			return false
		}
	}
	for _, r := range f.Reads {
		if r.Op == "!" {
			return false
		}
	}
	return len(f.Evals) == 0
}

// libOf returns the facts of the benchmark_lib.sh a script sources (nil
// when it sources none). ok is false when it sources one the tree does not
// have or that does not parse: then what the library reads is unknown.
func libOf(p *checks.Pass, f *script.Facts, scriptPath string, load func(ctx context.Context, ch *checks.Change, p string) (*script.Facts, error)) (*script.Facts, bool, error) {
	sources := false
	for _, src := range f.Sources {
		sources = sources || src.Lib
	}
	if !sources {
		return nil, true, nil
	}
	// The library sits in the recipe's directory or one above it
	// (benchmarks/benchmark_lib.sh for benchmarks/single_node/x.sh).
	for dir := path.Dir(scriptPath); ; dir = path.Dir(dir) {
		lib, err := load(p.Ctx, p.Change, path.Join(dir, "benchmark_lib.sh"))
		if err != nil {
			if script.IsParseError(err) {
				return nil, false, nil
			}
			return nil, false, err
		}
		if lib != nil {
			return lib, true, nil
		}
		if dir == "." || dir == "/" || dir == "" {
			return nil, false, nil
		}
	}
}

// unused reports whether nothing in f (or the library it sources) reads
// or exports name.
func unused(f, lib *script.Facts, name string) bool {
	if len(f.ReadsOf(name)) > 0 || len(f.Exports(name)) > 0 || f.Mentions(name) > len(f.VarsNamed(name)) {
		return false
	}
	return lib == nil || (len(lib.ReadsOf(name)) == 0 && lib.Mentions(name) == 0)
}

func sh019Finding(s *target, d deadVar) checks.Finding {
	srv := s.Head.Servers[0]
	name := prose.Code(d.name)
	f := checks.Finding{
		Path:  s.Path,
		Line:  d.line,
		Key:   "unused-var:" + d.name,
		Facts: []string{"var:" + d.name},
	}
	ex := &checks.Explain{}
	if script.EnvEngine(d.name) != script.EngineUnknown {
		f.Title = fmt.Sprintf("%s is set but never exported, so the server never sees it", name)
		f.Body = fmt.Sprintf("This PR assigns %s (line %d) without `export`, and nothing in the script reads it. It is "+
			"a variable the engine reads from its environment, and a shell variable that is not exported does not "+
			"reach a child process: the %s command (line %d) starts without it. Export it.",
			name, d.line, prose.Code(srv.Program), srv.Line)
		ex.Problem().Printf("%s is a shell variable only; the server's environment does not have it.", name)
		ex.Why().Printf("The run measures the engine without the setting the recipe meant to turn on.")
		ex.Fix().Printf("Write %s.", prose.Code("export "+strings.TrimSpace(s.Head.LineText(d.line))))
		if line := s.Head.LineText(d.line); strings.HasPrefix(strings.TrimSpace(line), d.name+"=") {
			f.Suggestion = &checks.Suggestion{Line: d.line, EndLine: d.line,
				Replacement: indentOf(line) + "export " + strings.TrimLeft(line, " \t")}
		}
		ex.Apply(&f)
		return f
	}
	what, use := "assigns", "reads it"
	if d.array {
		what, use = "builds the array", "splices it into a command"
	}
	f.Title = fmt.Sprintf("%s is assigned but never used", name)
	f.Body = fmt.Sprintf("This PR %s %s (line %d), and nothing %s: no expansion in this script or in the "+
		"`benchmark_lib.sh` functions it calls, and it is not exported, so the %s command (line %d) and the "+
		"programs the script starts never see it. If the value was meant for the server, pass it on; "+
		"otherwise drop the assignment.",
		what, name, d.line, use, prose.Code(srv.Program), srv.Line)
	ex.Problem().Printf("%s is computed and then ignored.", name)
	ex.Why().Printf("A value a recipe computes and does not use is usually a setting that was meant to reach the " +
		"server: the run measures something other than what the script says it configures.")
	ex.Fix().Printf("Use %s where it was meant to go, or remove it.", name)
	ex.Apply(&f)
	return f
}
