package recipe

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH029 reports a value a recipe gives a variable that a later plain
// assignment replaces before anything reads it.
var SH029 = &checks.Rule{
	ID:       "SH029",
	Severity: checks.Warning,
	Title:    "Value overwritten before anything reads it",
	Doc: "Recipes build their server options in variables and arrays, often in steps: " +
		"`PARALLEL_ARGS+=(--enable-dp-attention)` under a DP-attention test, then the command splices " +
		"`\"${PARALLEL_ARGS[@]}\"`. When a plain assignment of the same variable (`PARALLEL_ARGS=(--tp \"$TP\")`) " +
		"comes after that step instead of before it, it throws the step's value away: the server starts without " +
		"the options the branch added, and the recipe still reads as if it passed them. This rule reports a " +
		"value (an append or an assignment) that a later plain assignment replaces on every path that runs it, " +
		"with no read of the variable in between, when the PR writes either line. It leaves alone an empty " +
		"initial value (`ARGS=()`), a replacement that reads the old value (`X=\"$X --flag\"`), exported " +
		"variables, variables that functions or `benchmark_lib.sh` read, and code in functions or loops, where " +
		"the order of the lines is not the order they run in. Move the plain assignment above the step, or make " +
		"it an append.",
	Run: runSH029,
}

// sh029MaxPerFile bounds the findings on one recipe, and sh029MaxScan the
// lines read looking for a read between two writes (a hostile script of
// many writes far apart must not cost their product).
const (
	sh029MaxPerFile = 3
	sh029MaxScan    = 200_000
)

// overwrite is a plain assignment (then) and the earlier values of the
// variable it throws away (lost), in source order.
type overwrite struct {
	lost []script.Var
	then script.Var
}

func runSH029(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		if !closedScript(s.Head) {
			continue
		}
		lib, ok, err := libOf(p, s.Head, s.Path, HeadFacts)
		if err != nil || !ok {
			return err
		}
		n := 0
		for _, o := range overwrites(s.Head, lib) {
			if n == sh029MaxPerFile {
				break
			}
			if !s.added(o.then.Line) && !slices.ContainsFunc(o.lost, func(v script.Var) bool { return s.added(v.Line) }) {
				continue
			}
			p.Report(sh029Finding(s, o))
			n++
		}
	}
	return nil
}

// overwrites finds, for each plain assignment of f, the earlier values of
// the variable it replaces unread on every path that set them.
func overwrites(f, lib *script.Facts) []overwrite {
	var out []overwrite
	budget := sh029MaxScan
	seen := map[string]bool{}
	for _, v := range f.Vars {
		if v.Kind != script.Assign || seen[v.Name] || isShellVariable(v.Name) {
			continue
		}
		seen[v.Name] = true
		name := v.Name
		if len(f.Exports(name)) > 0 || script.EnvEngine(name) != script.EngineUnknown ||
			lib != nil && lib.Mentions(name) > 0 || readInFunction(f, name) {
			continue
		}
		vars := f.VarsNamed(name)
		for j, then := range vars {
			if then.Kind != script.Assign || then.Append || ordered(then.Branch) || ownReads(f, name, then) {
				continue
			}
			var lost []script.Var
			// Walk back over the writes before it while nothing reads the
			// variable; a plain assignment starts the chain. Each step
			// reads only the lines between this write and the one after
			// it, so a walk reads every line once.
			upto := then.Line
			for i := j - 1; i >= 0; i-- {
				first := vars[i]
				if first.Kind != script.Assign || ordered(first.Branch) || first.EndLine >= upto ||
					mentionedBetween(f, name, first.EndLine, upto, &budget) {
					break
				}
				if !emptyValue(first.Value) && then.Branch.Covers(first.Branch) {
					lost = append([]script.Var{first}, lost...)
				}
				if !first.Append {
					break
				}
				upto = first.Line
			}
			if len(lost) > 0 {
				out = append(out, overwrite{lost: lost, then: then})
			}
			if budget <= 0 {
				break // a script this large is judged as far as the budget went
			}
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].then.Line < out[k].then.Line })
	return out
}

// ordered reports whether code on path b may run in another order than
// its lines: in a function body or a loop.
func ordered(b script.Branch) bool {
	for _, c := range b {
		if c.Kind == script.CondFunc || c.Kind == script.CondLoop {
			return true
		}
	}
	return false
}

// readInFunction reports whether a function of f reads name: a call
// anywhere may read the value.
func readInFunction(f *script.Facts, name string) bool {
	for _, r := range f.ReadsOf(name) {
		if _, ok := r.Branch.InFunc(); ok {
			return true
		}
	}
	return false
}

// emptyValue reports whether an assignment only initializes: `X=`,
// `X=""`, `X=()`.
func emptyValue(v string) bool {
	switch strings.TrimSpace(v) {
	case "", `""`, "''", "()", "( )":
		return true
	}
	return false
}

// mentionedBetween reports whether a line after `after` and before
// `before` names the variable, comment lines aside; every line read
// counts against budget, and an exhausted budget counts as a mention.
func mentionedBetween(f *script.Facts, name string, after, before int, budget *int) bool {
	for n := after + 1; n < before; n++ {
		if *budget--; *budget < 0 {
			return true
		}
		text := strings.TrimSpace(f.LineText(n))
		if strings.HasPrefix(text, "#") {
			continue
		}
		if wordCount(text, name) > 0 {
			return true
		}
	}
	return false
}

// ownReads reports whether an assignment names its variable past its own
// name: `X="$X --flag"` keeps the old value.
func ownReads(f *script.Facts, name string, v script.Var) bool {
	own := 0
	for n := v.Line; n <= max(v.EndLine, v.Line); n++ {
		own += wordCount(f.LineText(n), name)
	}
	return own > 1
}

// wordCount counts name as a whole word in s.
func wordCount(s, name string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return n
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isNameByte(s[j-1])) && (end == len(s) || !isNameByte(s[end])) {
			n++
		}
		i = end
	}
}

func sh029Finding(s *target, o overwrite) checks.Finding {
	name := prose.Code(o.then.Name)
	lines := make([]string, len(o.lost))
	for i, v := range o.lost {
		lines[i] = strconv.Itoa(v.Line)
	}
	what := "line " + lines[0]
	if len(lines) > 1 {
		what = "lines " + prose.JoinAnd(lines)
	}
	f := checks.Finding{
		Path:  s.Path,
		Line:  o.then.Line,
		Key:   "overwritten:" + o.then.Name,
		Facts: []string{"var:" + o.then.Name},
		Title: fmt.Sprintf("%s is replaced on line %d before anything reads what %s put in it", name, o.then.Line, what),
	}
	if !s.added(o.then.Line) {
		for _, v := range o.lost {
			if s.added(v.Line) {
				f.Line = v.Line
				break
			}
		}
	}
	var steps []string
	for i, v := range o.lost {
		verb, obj := "assigns", name
		if v.Append {
			verb = "appends to"
		}
		if i > 0 {
			obj = "it"
		}
		where := "at the top level"
		if !v.Branch.Unconditional() {
			where = "under " + prose.Code(v.Branch.String())
		}
		steps = append(steps, fmt.Sprintf("line %d %s %s %s", v.Line, verb, obj, where))
		f.Related = append(f.Related, headLoc(s.Path, v.Line, v.EndLine, "a value that is lost"))
	}
	f.Body = fmt.Sprintf("%s; then line %d assigns %s again, on every path that runs %s, with nothing reading it "+
		"in between: what %s put in it never reaches the server or anything else. If line %d was meant to "+
		"start the value, move it above %s; otherwise make it an append.",
		capitalize(strings.Join(steps, "; ")), o.then.Line, name, what, what, o.then.Line, what)
	ex := &checks.Explain{}
	ex.Problem().Printf("Line %d throws away the value %s gave %s.", o.then.Line, what, name)
	ex.Why().Printf("The recipe reads as if the server got what %s sets; the run measures it without.", what)
	ex.Fix().Printf("Assign %s before %s, or append on line %d.", name, what, o.then.Line)
	ex.Apply(&f)
	return f
}
