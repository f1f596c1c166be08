package recipe

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH001 reports a weakened strict mode.
var SH001 = &checks.Rule{
	ID:       "SH001",
	Severity: checks.Warning,
	Title:    "Strict mode weakened",
	Doc: "Recipes start with `set -euo pipefail`, so an unset variable, a failing command or a failing " +
		"pipeline stage aborts the run at the line that caused it. This rule reports a change that drops " +
		"one of these options (`set -eo pipefail`, an added `set +u`, a removed `-o pipefail`) while the " +
		"other recipes of the directory keep it. If an optional variable such as `KV_OFFLOAD_BACKEND` or " +
		"`SLURM_JOB_ID` was the reason, read it as `${VAR:-}` (as the sibling recipes do) and keep the " +
		"strict line.",
	Run: runSH001,
}

// strictOption is one option of the strict-mode line.
type strictOption struct {
	name string // set -o name
	flag string // how the strict line spells it
}

var strictOptions = []strictOption{
	{"errexit", "-e"},
	{"nounset", "-u"},
	{"pipefail", "-o pipefail"},
}

func runSH001(p *checks.Pass) error { return eachChangedRecipe(p, sh001) }

// sh001 judges an option the head turns off against the base version (was
// it on?) and the directory (do the siblings keep it?). A new script has
// only the directory to go by, so it needs a near-unanimous one.
func sh001(p *checks.Pass, t *target) error {
	if !t.isNew() && t.Base == nil {
		return nil // no base version to compare with
	}
	if t.isNew() && len(t.Head.Servers) == 0 && len(t.Head.Clients) == 0 {
		return nil // a new helper to source, not a recipe the sweep runs
	}
	// Reading the directory parses every recipe in it; only a head that
	// turns a strict option off needs the comparison.
	if !slices.ContainsFunc(strictOptions, func(o strictOption) bool {
		on, _, _ := t.Head.Option(o.name)
		return !on
	}) {
		return nil
	}
	dir, err := dirRecipes(p.Ctx, p.Change, t.Path)
	if err != nil {
		return err
	}
	var dropped []strictOption
	var keepers [][]*Sibling
	for _, o := range strictOptions {
		if on, _, _ := t.Head.Option(o.name); on {
			continue
		}
		var keep []*Sibling
		for _, s := range dir {
			if on, _, _ := s.Facts.Option(o.name); on {
				keep = append(keep, s)
			}
		}
		n := len(dir)
		if t.isNew() {
			// Only the siblings say what the script should do: ask for a
			// near-unanimous convention.
			if n < 3 {
				sh001TooFew(p, t, o, n)
			}
			if len(keep) < 3 || 10*len(keep) < 9*n {
				continue
			}
		} else {
			on, _, _ := t.Base.Option(o.name)
			if on && n < 2 {
				sh001TooFew(p, t, o, n)
			}
			if !on || len(keep) < 2 || 2*len(keep) <= n {
				continue
			}
		}
		dropped = append(dropped, o)
		keepers = append(keepers, keep)
	}
	if len(dropped) == 0 {
		return nil
	}
	// The siblings that keep every dropped option.
	keep := keepers[0]
	for _, k := range keepers[1:] {
		keep = slices.DeleteFunc(slices.Clone(keep), func(s *Sibling) bool { return !slices.Contains(k, s) })
	}
	p.Report(newSH001(t, dir, dropped, keep))
	return nil
}

// sh001TooFew notes a dropped option the directory has too few recipes to
// judge.
func sh001TooFew(p *checks.Pass, t *target, o strictOption, n int) {
	p.Inconclusive(t.Path, fmt.Sprintf("runs without %s, and %s has %s, too few to tell whether the directory keeps it",
		o.flag, path.Dir(t.Path)+"/", prose.Count(n, "other recipe", "other recipes")))
}

// newSH001 builds the finding in the order a reader meets it: where the
// strict line was weakened, what to restore, the message, the evidence and
// the suggestion. Each step is its own helper so that the wording can be
// read apart from the evidence gathering.
func newSH001(t *target, dir []*Sibling, dropped []strictOption, keep []*Sibling) checks.Finding {
	names := make([]string, len(dropped))
	flags := make([]string, len(dropped))
	for i, o := range dropped {
		names[i] = o.name
		flags[i] = prose.Code(o.flag) + " (" + o.name + ")"
	}
	w := findWeakening(t.Head, dropped)
	want := strictToRestore(t, keep)
	where := sh001Where(t, dir, keep)

	// Bare reads of optional variables, and a sibling that reads the same
	// variables with a default.
	var reads []script.Read
	var example *Sibling
	var exampleReads []script.Read
	if slices.ContainsFunc(dropped, func(o strictOption) bool { return o.name == "nounset" }) {
		reads = optionalBareReads(t, keep)
		example, exampleReads = defaultedExample(t, keep, reads)
	}

	var facts []string
	for _, n := range names {
		facts = append(facts, "set:"+n)
	}
	f := checks.Finding{
		Path:       t.Path,
		Line:       w.line,
		Title:      "Strict mode weakened: " + prose.JoinAnd(names) + " dropped",
		Body:       sh001Message(t, w, want, where, flags, example, readNames(reads)),
		Related:    sh001Related(t, keep, example, exampleReads),
		Suggestion: w.suggestion(t, names, want, keep),
		Key:        "strict-mode:" + strings.Join(names, ","),
		Facts:      facts,
	}
	sh001Explain(t, dropped, want, where, reads, example, siblingDefaults(example, exampleReads)).Apply(&f)
	return f
}

// strictWeakening is where the head weakens strict mode: the set command
// that turns an option off (offCmd), or the strict line that no longer
// lists it.
type strictWeakening struct {
	line   int
	offCmd bool
	// cmd is the set command on line, nil when the line holds none (the
	// finding then falls back to line 1 or a generic wording).
	cmd  *script.SetCmd
	head *script.Facts
}

func findWeakening(head *script.Facts, dropped []strictOption) strictWeakening {
	w := strictWeakening{head: head}
	for _, o := range dropped {
		if on, l, set := head.Option(o.name); set && !on {
			w.line, w.offCmd = l, true
			break
		}
	}
	headSet, hasStrict := head.StrictMode()
	if w.line == 0 && hasStrict {
		w.line = headSet.Line
	}
	if w.line == 0 {
		w.line = 1
	}
	for i := range head.Sets {
		if head.Sets[i].Line == w.line {
			w.cmd = &head.Sets[i]
			break
		}
	}
	return w
}

// strictToRestore is the strict line to restore: the base version's, else
// the most common one among the siblings that keep the dropped options.
func strictToRestore(t *target, keep []*Sibling) string {
	want := ""
	if t.Base != nil {
		if s, ok := t.Base.StrictMode(); ok {
			want = s.Text
		}
		return want
	}
	count := map[string]int{}
	for _, s := range keep {
		if sm, ok := s.Facts.StrictMode(); ok {
			count[sm.Text]++
			if want == "" || count[sm.Text] > count[want] {
				want = sm.Text
			}
		}
	}
	return want
}

// sh001Where says how alone the script is in its directory.
func sh001Where(t *target, dir, keep []*Sibling) string {
	dirName := path.Dir(t.Path) + "/"
	total := len(dir) + 1
	without := total - len(keep)
	if without == 1 {
		return fmt.Sprintf("this is the only script among %d in %s without it", total, prose.Code(dirName))
	}
	return fmt.Sprintf("only %d of the %d scripts in %s run without it", without, total, prose.Code(dirName))
}

// sh001Message is the finding's body: what the line does, how alone the
// script is, and what to restore (with the optional variables to read as
// ${VAR:-} when nounset was the casualty).
func sh001Message(t *target, w strictWeakening, want, where string, flags []string, example *Sibling, vars []varLines) string {
	var what string
	switch {
	case w.offCmd && w.cmd != nil:
		what = fmt.Sprintf("Line %d adds %s, turning off %s for the rest of the script", w.line, prose.Code(w.cmd.Text), prose.JoinAnd(flags))
	case w.cmd != nil && t.Base != nil && want != "":
		what = fmt.Sprintf("Line %d weakens %s to %s, dropping %s", w.line, prose.Code(want), prose.Code(w.cmd.Text), prose.JoinAnd(flags))
	case w.cmd != nil:
		what = fmt.Sprintf("Line %d runs %s, without %s", w.line, prose.Code(w.cmd.Text), prose.JoinAnd(flags))
	default:
		what = fmt.Sprintf("The script no longer turns on %s", prose.JoinAnd(flags))
	}

	msg := what + ": " + where
	if example != nil {
		msg += fmt.Sprintf(" (%s handles the same optional variables with %s)", prose.Code(path.Base(example.Path)), prose.Code("${VAR:-}"))
	}
	msg += "."
	restore := "Restore " + prose.Code(want)
	switch {
	case w.offCmd && w.cmd != nil:
		restore = "Remove the " + prose.Code(w.cmd.Text)
	case want == "":
		restore = "Turn " + prose.JoinAnd(flags) + " back on"
	}
	if len(vars) > 0 {
		var list []string
		for _, v := range vars {
			list = append(list, fmt.Sprintf("%s (line %s)", prose.Code(v.name), joinLines(v.lines)))
		}
		msg += fmt.Sprintf(" %s and read the optional variables the script expands bare — %s — as %s, instead of disabling nounset for the whole script.",
			restore, prose.JoinAnd(list), prose.Code("${VAR:-}"))
	} else {
		msg += " " + restore + "."
	}
	return msg
}

// sh001Related is the evidence: the base version's strict line, the
// example sibling's defaulted reads, and up to three siblings that keep
// the strict line.
func sh001Related(t *target, keep []*Sibling, example *Sibling, exampleReads []script.Read) []checks.Location {
	var related []checks.Location
	if t.Base != nil {
		if s, ok := t.Base.StrictMode(); ok {
			basePath := t.Path
			if t.File.OldPath != "" {
				basePath = t.File.OldPath
			}
			related = append(related, baseLoc(basePath, s.Line, 0, "before this PR: "+prose.Code(s.Text)))
		}
	}
	if example != nil {
		seen := map[int]bool{}
		for _, r := range exampleReads {
			if seen[r.Line] || len(seen) >= 3 {
				continue
			}
			seen[r.Line] = true
			related = append(related, example.Loc(r.Line, 0, "reads "+prose.Code(r.Name)+" with a default: "+prose.Code(strings.TrimSpace(example.Facts.LineText(r.Line)))))
		}
		if sm, ok := example.Facts.StrictMode(); ok {
			related = append(related, example.Loc(sm.Line, 0, "keeps "+prose.Code(sm.Text)))
		}
	}
	strict := 0
	for _, s := range keep {
		if strict >= 3 {
			break
		}
		strict++
		if example != nil && s == example {
			continue
		}
		if sm, ok := s.Facts.StrictMode(); ok {
			related = append(related, s.Loc(sm.Line, 0, "keeps "+prose.Code(sm.Text)))
		}
	}
	return related
}

// suggestion restores the strict line, or deletes an added `set +u`, when
// the weakening line holds nothing but the set command and the edit loses
// nothing else.
func (w strictWeakening) suggestion(t *target, names []string, want string, keep []*Sibling) *checks.Suggestion {
	if w.cmd == nil || strings.TrimSpace(w.head.LineText(w.line)) != w.cmd.Text {
		return nil
	}
	switch {
	case w.offCmd && onlyTurnsOff(*w.cmd, names):
		return &checks.Suggestion{Line: w.line, EndLine: w.line, Replacement: ""}
	case !w.offCmd && want != "" && onlyRemoves(*w.cmd, want, t, keep):
		return &checks.Suggestion{Line: w.line, EndLine: w.line, Replacement: indentOf(w.head.LineText(w.line)) + want}
	}
	return nil
}

// onlyTurnsOff reports whether the set command does nothing but turn off
// the named options (`set +u`), so deleting it restores them.
func onlyTurnsOff(s script.SetCmd, names []string) bool {
	if len(s.Options) == 0 {
		return false
	}
	for _, o := range s.Options {
		if o.On || !slices.Contains(names, o.Name) {
			return false
		}
	}
	return true
}

// onlyRemoves reports whether replacing the head set command with want
// loses nothing: every option the head command turns on, want turns on
// too.
func onlyRemoves(s script.SetCmd, want string, t *target, keep []*Sibling) bool {
	var ref *script.SetCmd
	if t.Base != nil {
		if sm, ok := t.Base.StrictMode(); ok && sm.Text == want {
			ref = &sm
		}
	}
	for _, k := range keep {
		if ref != nil {
			break
		}
		if sm, ok := k.Facts.StrictMode(); ok && sm.Text == want {
			ref = &sm
		}
	}
	if ref == nil {
		return false
	}
	for _, o := range s.Options {
		if on, ok := ref.Sets(o.Name); !ok || on != o.On {
			return false
		}
	}
	return true
}

// optionalBareReads returns the head's bare reads of variables that come
// from outside the script, minus those evidently always set: variables the
// strict siblings or the strict base version read bare too.
func optionalBareReads(t *target, keep []*Sibling) []script.Read {
	safe := map[string]bool{}
	for _, s := range keep {
		for _, r := range s.Facts.UnguardedReads() {
			safe[r.Name] = true
		}
	}
	if t.Base != nil {
		if on, _, _ := t.Base.Option("nounset"); on {
			for _, r := range t.Base.UnguardedReads() {
				safe[r.Name] = true
			}
		}
	}
	var out []script.Read
	for _, r := range t.Head.UnguardedReads() {
		if !safe[r.Name] {
			out = append(out, r)
		}
	}
	return out
}

// defaultedExample picks the strict sibling that reads the most of the
// same variables with a default (`${VAR:-}`), and those reads.
func defaultedExample(t *target, keep []*Sibling, reads []script.Read) (*Sibling, []script.Read) {
	want := map[string]bool{}
	for _, r := range reads {
		want[r.Name] = true
	}
	var best *Sibling
	var bestReads []script.Read
	bestScore := 0
	for _, s := range keep {
		seen := map[string]bool{}
		var got []script.Read
		for _, r := range s.Facts.Reads {
			if want[r.Name] && r.Defaulted && r.Op != "-v" && r.Op != "declare -p" && !seen[r.Name] {
				seen[r.Name] = true
				got = append(got, r)
			}
		}
		score := 2 * len(got)
		if len(got) > 0 && s.Facts.Engine == t.Head.Engine {
			score++ // same engine: the closest model to copy from
		}
		if score > bestScore {
			best, bestReads, bestScore = s, got, score
		}
	}
	return best, bestReads
}

type varLines struct {
	name  string
	lines []int
}

// readNames groups reads by variable, in order of first read.
func readNames(reads []script.Read) []varLines {
	var out []varLines
	idx := map[string]int{}
	for _, r := range reads {
		i, ok := idx[r.Name]
		if !ok {
			i = len(out)
			idx[r.Name] = i
			out = append(out, varLines{name: r.Name})
		}
		if !slices.Contains(out[i].lines, r.Line) {
			out[i].lines = append(out[i].lines, r.Line)
		}
	}
	return out
}

func joinLines(lines []int) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = fmt.Sprint(l)
	}
	return strings.Join(s, ", ")
}

// siblingDefaults returns the default each of the sibling's reads gives
// its variable (`${SLURMD_NODENAME:-unknown}` gives "unknown"), read from
// the sibling's line, so the fix can copy it.
func siblingDefaults(s *Sibling, reads []script.Read) map[string]string {
	out := map[string]string{}
	if s == nil {
		return out
	}
	for _, r := range reads {
		if r.Op != ":-" {
			continue
		}
		line := s.Facts.LineText(r.Line)
		open := "${" + r.Name + ":-"
		i := strings.Index(line, open)
		if i < 0 {
			continue
		}
		rest := line[i+len(open):]
		j := strings.IndexByte(rest, '}')
		if j < 0 || strings.ContainsAny(rest[:j], "${}`'\"\\") {
			continue
		}
		out[r.Name] = rest[:j]
	}
	return out
}

// withDefault rewrites the bare expansions of name on a script line as
// ${name:-def}, for showing the fix; ok is false when the line has none.
func withDefault(line, name, def string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(line); {
		switch {
		case strings.HasPrefix(line[i:], "${"+name+"}"):
			b.WriteString("${" + name + ":-" + def + "}")
			i += len(name) + 3
			changed = true
		case strings.HasPrefix(line[i:], "$"+name) && (i+1+len(name) == len(line) || !isNameByte(line[i+1+len(name)])):
			b.WriteString("${" + name + ":-" + def + "}")
			i += len(name) + 1
			changed = true
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	return b.String(), changed
}

func sh001Explain(t *target, dropped []strictOption, want, where string, reads []script.Read, example *Sibling, defaults map[string]string) *checks.Explain {
	e := &checks.Explain{}
	w := e.Printf
	nounset := slices.ContainsFunc(dropped, func(o strictOption) bool { return o.name == "nounset" })

	e.Problem()
	if t.isNew() {
		w("This new script does not turn on ")
	} else {
		w("Compared with its base version, the script no longer turns on ")
	}
	var parts []string
	for _, o := range dropped {
		parts = append(parts, prose.Code(o.flag)+" ("+o.name+")")
	}
	w("%s; %s.\n\n", prose.JoinAnd(parts), where)

	e.Why()
	for _, o := range dropped {
		switch o.name {
		case "nounset":
			w("Without nounset, expanding a variable that is not set yields an empty string instead of aborting with \"unbound variable\", for every expansion in the script, not only the optional ones. ")
		case "errexit":
			w("Without errexit, a failing command (a server that did not start, a download that failed) no longer stops the script; it carries on and the benchmark reports numbers from a broken setup. ")
		case "pipefail":
			w("Without pipefail, a pipeline reports only its last command's status, so a failure earlier in the pipe is lost. ")
		}
	}
	w("The recipes run unattended inside the sweep, so the difference shows up as a confusing failure far from its cause, or as a run that measures the wrong thing.\n\n")

	if nounset {
		vars := readNames(reads)
		if len(vars) > 0 {
			e.Note("The likely reason")
			w("The script expands optional variables bare (")
			var names []string
			for _, v := range vars {
				names = append(names, prose.Code(v.name))
			}
			w("%s); none of them is listed in `check_env_vars` or assigned earlier, so under `set -u` each aborts whenever the matrix leaves it unset. ", prose.JoinAnd(names))
			if example != nil {
				w("%s, which keeps `set -u`, reads the same variables as `${VAR:-}` instead.", prose.Code(path.Base(example.Path)))
			}
			w("\n\n")
		}
		e.Step()
		w("Under `set -u` (the base version and the sibling recipes), expanding an unset variable stops the script at that line with \"VAR: unbound variable\".\n")
		e.Step()
		w("Optional variables are meant to be unset on some sweep points; `${VAR:-}` (or `${VAR:-default}`) says so explicitly and keeps the check for everything else.\n")
		e.Step()
		w("With nounset turned off instead, a typo anywhere — say `$((TOTAL_CPU_DRAM_G * 3 / 4))` for `TOTAL_CPU_DRAM_GB` — silently expands to empty, the arithmetic yields 0, and the run fails much later (or runs with a zero-sized budget) instead of stopping at the typo.\n\n")
	}

	e.Fix()
	if offCmd := slices.ContainsFunc(dropped, func(o strictOption) bool {
		on, _, set := t.Head.Option(o.name)
		return set && !on
	}); offCmd {
		w("Remove the line that turns the option off")
	} else if want != "" {
		w("Keep %s", prose.Code(want))
	} else {
		w("Keep the options on")
	}
	if nounset && len(reads) > 0 {
		w(" and give the optional reads a default:\n\n```bash\n")
		done := map[int]bool{}
		shown := 0
		for _, r := range reads {
			if done[r.Line] || shown >= 8 {
				continue
			}
			done[r.Line] = true
			line := t.Head.LineText(r.Line)
			fixed := line
			for _, v := range readNames(reads) {
				if slices.Contains(v.lines, r.Line) {
					fixed, _ = withDefault(fixed, v.name, defaults[v.name])
				}
			}
			if fixed == line {
				continue
			}
			shown++
			w("# line %d\n%s\n", r.Line, strings.TrimSpace(fixed))
		}
		w("```\n")
	} else {
		w(".\n")
	}
	return e
}
