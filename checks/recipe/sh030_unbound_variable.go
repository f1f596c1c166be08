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
	"mvdan.cc/sh/v3/syntax"
)

// SH030 reports a variable a single-node recipe reads that nothing sets:
// under `set -u` bash stops the script there; without it the read gives
// an empty string.
var SH030 = &checks.Rule{
	ID:       "SH030",
	Severity: checks.Blocking,
	Title:    "Recipe reads a variable that nothing sets",
	Doc: "A single-node recipe gets its variables from three places: its own assignments, `benchmark_lib.sh`, " +
		"and the job's environment, which the workflow templates and the runner launchers write (a tree without " +
		"workflows is not judged: its jobs' environment is unknown). A multi-node script (under " +
		"`benchmarks/multi_node/`) also gets them from the rest of that tree: the job scripts that pass variables " +
		"into its container, the scripts that source it, the srt-slurm recipes it runs under. This rule reports a " +
		"bare read (`$NAME`, `${NAME}`, a name in `$(( ))`) on a line the PR writes, of a variable the script " +
		"never assigns (every mention of the name in the script is a read), that `benchmark_lib.sh` never " +
		"assigns, that the launchers under `runners/` and the workflows never name (an environment variable is " +
		"written in capitals, so a lower-case name they contain does not count), and, for a multi-node script, " +
		"that no other file of the multi-node tree names in any case: usually a name copied from the script it " +
		"was adapted from, or a misspelling. Under `set -u` (the strict-mode line `set -euo pipefail`) bash stops " +
		"the job on that line with `NAME: unbound variable` (🔴); without it the read gives an empty string, so a " +
		"test on it (`[ \"$concurrency\" -le 128 ]`) errors or never holds and an option gets no value (🟡). Not " +
		"judged: reads that give a default (`${NAME:-}`) or sit under a test of the variable, names that bash, " +
		"Slurm, MPI, the GPU runtime or the inference engine set, and scripts that source files other than " +
		"`benchmark_lib.sh`, `eval` code or read variables by indirection. Assign the variable, give the read a " +
		"default, or use the variable that was meant.",
	Run: runSH030,
}

// sh030MaxPerFile bounds the findings on one recipe.
const sh030MaxPerFile = 3

// runtimePrefixes name variables that the job's runtime sets: the batch
// system, MPI, the GPU driver and runtime, the CI runner.
var runtimePrefixes = []string{"SLURM", "PMI", "PMIX_", "OMPI_", "MPI_", "CUDA_", "NVIDIA_", "NCCL_", "ROCR_", "HIP_",
	"HSA_", "ROCM_", "GPU_", "GITHUB_", "RUNNER_", "ACTIONS_", "CI", "LC_", "LANG", "TERM", "TMPDIR", "TZ", "DISPLAY",
	"XDG_", "SSH_", "LOGNAME", "MAIL", "HOSTNAME", "CONDA_", "VIRTUAL_ENV", "PYTHON", "LD_", "HF_", "HUGGINGFACE_",
	"TRANSFORMERS_", "TORCH", "OMP_", "MKL_", "UCX_", "NIXL_", "ENROOT_", "PYXIS_", "APPTAINER_", "SINGULARITY"}

func runtimeVariable(name string) bool {
	for _, p := range runtimePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return isShellVariable(name) || script.ShellVariable(name) || script.EnvEngine(name) != script.EngineUnknown
}

// recipeScope says where a script gets its environment from: a
// single-node recipe (under benchmarks/single_node/, or directly in
// benchmarks/ in the layout before the split) from the workflows and
// launchers; a multi-node script (under benchmarks/multi_node/) also from
// the job scripts, recipes and sibling scripts of that tree, which submit,
// source or configure it. "" is neither (the library, deprecated scripts).
func recipeScope(p string) string {
	if checks.InDeprecated(p) {
		return ""
	}
	p = strings.TrimPrefix(p, checks.NewerLayoutRoot+"/")
	switch {
	case strings.HasPrefix(p, "benchmarks/single_node/"):
		return scopeSingle
	case strings.HasPrefix(p, multiNodeDir):
		return scopeMulti
	}
	dir, base := path.Split(p)
	if dir == "benchmarks/" && base != "benchmark_lib.sh" && !strings.Contains(base, "disagg") && !strings.Contains(base, "multinode") {
		return scopeSingle
	}
	return ""
}

const (
	scopeSingle  = "single"
	scopeMulti   = "multi"
	multiNodeDir = "benchmarks/multi_node/"
)

// unbound is a variable read bare under set -u that nothing sets.
type unbound struct {
	name    string
	read    script.Read
	near    string // a bound name one or two edits away ("" when none), for reported reads
	nounset bool   // set -u is in effect at the read
}

func runSH030(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	var env map[string]bool
	for _, s := range scripts {
		scope := recipeScope(s.Path)
		if scope == "" || !closedScript(s.Head) {
			continue
		}
		cands := unboundReads(s.Head, s.added)
		if len(cands) == 0 {
			continue
		}
		lib, ok, err := libOf(p, s.Head, s.Path, HeadFacts)
		if err != nil || !ok {
			return err
		}
		if env == nil {
			words, ok, err := envWords(p.Ctx, p.Change)
			if err != nil || !ok {
				return err
			}
			env = words
		}
		var baseHas map[string]bool
		if s.Base != nil {
			baseHas = map[string]bool{}
			for _, u := range unboundReads(s.Base, func(int) bool { return true }) {
				baseHas[u.name] = true
			}
		}
		var tree map[string]bool
		if scope == scopeMulti {
			if tree, err = multiNodeWords(p.Ctx, p.Change, s.Path); err != nil || tree == nil {
				return err
			}
		}
		n := 0
		for _, u := range cands {
			if n == sh030MaxPerFile {
				break
			}
			// The environment of a job is written in capitals: a lower-case
			// name the launchers or workflows happen to contain (a YAML
			// key such as concurrency) passes nothing.
			passed := env[u.name] && strings.ToLower(u.name) != u.name || tree[u.name]
			if passed || baseHas[u.name] || lib != nil && (lib.Bound(u.name) || len(lib.VarsNamed(u.name)) > 0) {
				continue
			}
			u.near = nearName(s.Head, u.name)
			p.Report(sh030Finding(s, u))
			n++
		}
	}
	return nil
}

// unboundReads are the first bare reads, on lines keep accepts, of the
// variables f never binds and mentions only by reading them, that no test
// of the variable guards.
func unboundReads(f *script.Facts, keep func(int) bool) []unbound {
	reads := map[string]int{}
	for _, r := range f.Reads {
		reads[r.Name]++
	}
	var out []unbound
	seen := map[string]bool{}
	for _, r := range f.Reads {
		name := r.Name
		if seen[name] || r.Defaulted || r.Op == "[@]" || r.Op == "[*]" || r.Op == "!" || !keep(r.Line) ||
			!syntax.ValidName(name) || runtimeVariable(name) || f.Bound(name) || len(f.VarsNamed(name)) > 0 ||
			f.Checked(name) || f.MentionsAsName(name) != reads[name] || guarded(r) {
			continue
		}
		seen[name] = true
		out = append(out, unbound{name: name, read: r, nounset: f.NounsetAt(r.Line)})
	}
	return out
}

// guarded reports whether the read sits under a test that names its
// variable (`if [[ -n "${X+x}" ]]`, `case $X`).
func guarded(r script.Read) bool {
	for _, c := range r.Branch {
		if c.Var == r.Name || strings.Contains(c.Text, r.Name) {
			return true
		}
	}
	return false
}

// nearName is a variable the script binds whose name is one or two edits
// from name (ignoring case), for the finding's hint.
func nearName(f *script.Facts, name string) string {
	best, bestD := "", 3
	seen := map[string]bool{}
	for _, v := range f.Vars {
		if seen[v.Name] || v.Name == name || len(v.Name) < 3 {
			continue
		}
		seen[v.Name] = true
		if d := prose.EditDistance(strings.ToUpper(v.Name), strings.ToUpper(name), bestD-1); d < bestD {
			best, bestD = v.Name, d
		}
	}
	return best
}

// The files that write a job's environment: the workflows, and the runner
// launchers and helpers.
var (
	workflowGlobs = []string{".github/workflows/*.yml", ".github/workflows/*.yaml", checks.NewerLayoutRoot + "/.github/workflows/*.yml"}
	launcherGlobs = []string{"runners/**/*.sh", checks.NewerLayoutRoot + "/runners/**/*.sh"}
)

// envWords are the identifier words of the head tree's workflows and
// launchers: every name they could put in a job's environment. ok is false
// when the tree has no workflow: then the job's environment is unknown.
func envWords(ctx context.Context, ch *checks.Change) (words map[string]bool, ok bool, err error) {
	workflows, err := checks.GlobFiles(ctx, ch.Head, workflowGlobs)
	if err != nil || len(workflows) == 0 {
		return nil, false, err
	}
	launchers, err := checks.GlobFiles(ctx, ch.Head, launcherGlobs)
	if err != nil {
		return nil, false, err
	}
	words, ok = fileWords(ctx, ch, append(workflows, launchers...), "")
	if !ok {
		return nil, false, nil // a file that cannot be read may name anything
	}
	return words, true, nil
}

// multiNodeWords are the identifier words of every file of the head's
// multi-node tree other than the script at self: the job scripts that
// export or pass variables to it (`docker run -e`, `srun --export`), the
// scripts that source it, the srt-slurm recipes whose environment blocks
// it runs under. Nil (nothing judged) when a file cannot be read.
func multiNodeWords(ctx context.Context, ch *checks.Change, self string) (map[string]bool, error) {
	root := multiNodeDir
	if strings.HasPrefix(self, checks.NewerLayoutRoot+"/") {
		root = checks.NewerLayoutRoot + "/" + root
	}
	entries, err := checks.GlobFiles(ctx, ch.Head, []string{root + "**"})
	if err != nil {
		return nil, err
	}
	words, ok := fileWords(ctx, ch, entries, self)
	if !ok {
		return nil, nil
	}
	return words, nil
}

// fileWords are the identifier words of the head files of entries other
// than skip, each read once through the parse cache; ok is false when a
// file cannot be read.
func fileWords(ctx context.Context, ch *checks.Change, entries []checks.Entry, skip string) (words map[string]bool, ok bool) {
	words = map[string]bool{}
	ok = true
	for _, e := range entries {
		if e.Path == skip {
			continue
		}
		ws, err := checks.Parsed(ctx, ch.Cache, ch.Head, "recipe/envwords/v1", e.Path, func(b []byte) (wordSet, error) { return wordsOf(b), nil })
		if err != nil {
			ok = false
			continue
		}
		for _, w := range ws {
			words[w] = true
		}
	}
	return words, ok
}

// wordSet is the distinct identifier words of a file, sorted.
type wordSet []string

// MemSize is what the parse cache charges for the set.
func (w wordSet) MemSize() int64 {
	n := int64(24 + 16*len(w))
	for _, s := range w {
		n += int64(len(s))
	}
	return n
}

// wordsOf returns the distinct shell-name words of b (at most maxWords).
func wordsOf(b []byte) wordSet {
	const maxWords = 1 << 16
	seen := map[string]bool{}
	for i := 0; i < len(b) && len(seen) < maxWords; {
		c := b[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			i++
			continue
		}
		j := i
		for j < len(b) && (b[j] == '_' || b[j] >= 'a' && b[j] <= 'z' || b[j] >= 'A' && b[j] <= 'Z' || b[j] >= '0' && b[j] <= '9') {
			j++
		}
		seen[string(b[i:j])] = true
		i = j
	}
	out := make(wordSet, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

func sh030Finding(s *target, u unbound) checks.Finding {
	name := u.name
	fix := "Assign " + prose.Code(name) + " before this line, read it with a default (" + prose.Code("${"+name+":-}") +
		") if it may be unset, or use the variable that was meant"
	if u.near != "" {
		fix += fmt.Sprintf(" (the script sets %s)", prose.Code(u.near))
	}
	nothing := "nothing sets the variable: the script never assigns it, `benchmark_lib.sh` does not, and no launcher or workflow passes it"
	if recipeScope(s.Path) == scopeMulti {
		nothing = "nothing sets the variable: the script never assigns it, `benchmark_lib.sh` does not, no launcher or workflow passes it, and no other file of the multi-node tree names it"
	}
	f := checks.Finding{
		Path: s.Path,
		Line: u.read.Line,
		Key:  "SH030 " + name,
	}
	if !u.nounset {
		f.Severity = checks.Warning
		f.Title = fmt.Sprintf("%s is read, and nothing sets it", prose.Code("$"+name))
		f.Body = fmt.Sprintf("Line %d reads %s, but %s. The read gives an empty string on every job: a test on it "+
			"errors or never holds, and an option built from it gets no value. %s.", u.read.Line, prose.Code("$"+name), nothing, fix)
		return f
	}
	where := "`set -u`"
	if strict, ok := s.Head.StrictMode(); ok && strict.Line < u.read.Line {
		f.Related = append(f.Related, checks.Location{Path: s.Path, Line: strict.Line, Note: "turns on nounset"})
		where = fmt.Sprintf("%s (line %d)", prose.Code(strict.Text), strict.Line)
	}
	f.Title = fmt.Sprintf("%s is read under `set -u`, and nothing sets it", prose.Code("$"+name))
	f.Body = fmt.Sprintf("Line %d reads %s while %s is in effect, but %s. Bash stops the job here with %s every time "+
		"it reaches this line. %s.", u.read.Line, prose.Code("$"+name), where, nothing, prose.Code(name+": unbound variable"), fix)
	return f
}
