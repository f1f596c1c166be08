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

// SH025 reports a server option the PR writes on every path of a recipe
// where the model's other recipes of the engine pass it (with the same
// value) only under a test of one matrix variable.
var SH025 = &checks.Rule{
	ID:       "SH025",
	Severity: checks.Warning,
	Title:    "Server option the model's other recipes pass only for some rows is passed on every path",
	Doc: "Some server options suit one layout of a model only: DeepSeek-V4's vLLM recipes pass " +
		"`--moe-backend deep_gemm_mega_moe` only under `if [ \"$DP_ATTENTION\" = \"true\" ]`. This rule reports " +
		"an option (with its value) that the PR writes into a recipe's server command on every path when at least " +
		"three other recipes of the same model prefix and engine pass it, all of them only under a test of the same " +
		"matrix variable (`DP_ATTENTION`, `SPEC_DECODING`, `TP`, `CONC`, ...), none on every path and none giving " +
		"it another value on another path (an option set per layout, like `--tensor-parallel-size`, is a setting, " +
		"not a switch; another GPU's recipe passing another value has no say), and " +
		"the recipe did not already pass it so before the PR. The recipe must read that variable itself (a recipe " +
		"that never does, an MTP-only one and `SPEC_DECODING`, may run only rows the option suits). The other " +
		"recipes are read from the recipe's directory, the directory above it and that directory's other " +
		"subdirectories (the scenario directories: agentic, fixed sequence length), and the recipe directory's own " +
		"subdirectories; none named `deprecated`. Every row the recipe runs then gets the option, including " +
		"the rows the others keep it from. Expert-parallel switches are SH008's. Put the option under the same " +
		"test, or say in a comment why this recipe needs it on every row.",
	Run: runSH025,
}

// sh025MinRecipes is how many other recipes must pass the option, all of
// them behind the same test.
const sh025MinRecipes = 3

// sh025Cited bounds the recipes a finding cites.
const sh025Cited = 3

// matrixVars are the variables a job's row sets, which a recipe tests to
// pick the options of a layout.
var matrixVars = map[string]bool{
	"DP_ATTENTION": true, "EP_SIZE": true, "TP": true, "CONC": true, "SPEC_DECODING": true,
	"KV_OFFLOADING": true, "KV_OFFLOAD_BACKEND": true, "ISL": true, "OSL": true, "PRECISION": true,
	"IS_AGENTIC": true, "SCENARIO_TYPE": true, "DISAGG": true, "PP_SIZE": true, "DCP_SIZE": true,
}

// isEPFlag reports whether SH008 judges the option for the engine.
func isEPFlag(engine script.Engine, name string) bool {
	for _, e := range epFlags {
		if e.engine == engine && e.flag == name {
			return true
		}
	}
	return false
}

// gateVars are the matrix variables a path tests.
func gateVars(b script.Branch) map[string]script.Cond {
	out := map[string]script.Cond{}
	for _, c := range b {
		if matrixVars[c.Var] {
			if _, ok := out[c.Var]; !ok {
				out[c.Var] = c
			}
		}
	}
	return out
}

// gatedUse is a recipe passing the option behind a test of the variable.
type gatedUse struct {
	sib  *Sibling
	fl   script.Flag
	cond script.Cond
}

func runSH025(p *checks.Pass) error {
	// The options of each model's recipes, indexed once per review: a PR
	// of many recipes of one model reads their flags once, not once per
	// flag of each.
	indexes := map[string]map[string][]optionUse{}
	return eachChangedRecipe(p, func(p *checks.Pass, s *target) error {
		if len(s.Head.Servers) == 0 || s.Head.Engine == script.EngineUnknown {
			return nil
		}
		model, _, ok := familyOf(s.Path)
		if !ok {
			return nil
		}
		var index map[string][]optionUse
		reported := map[string]bool{}
		for _, srv := range s.Head.Servers {
			for _, fl := range srv.Flags {
				name := script.NormFlag(fl.Name)
				key := name + "\x00" + fl.Value
				if !fl.Branch.Unconditional() || !s.added(fl.Line) || reported[key] || plumbing[name] ||
					isEPFlag(s.Head.Engine, name) || !strings.HasPrefix(name, "--") {
					continue
				}
				if index == nil {
					ik := string(s.Head.Engine) + "\x00" + model + "\x00" + dirOf(s.Path)
					if index = indexes[ik]; index == nil {
						recipes, err := modelRecipes(p.Ctx, p.Change, s.Path, model, s.Head.Engine)
						if err != nil {
							return err
						}
						index = optionIndex(recipes)
						indexes[ik] = index
					}
				}
				if s.Base != nil && passesOnEveryPath(s.Base, name, fl.Value) {
					continue // already so before the PR: a rewrite of the command
				}
				uses, gate, ok := gatedEverywhere(othersThan(s, index[name]), fl.Value)
				if !ok || len(s.Head.ReadsOf(gate)) == 0 {
					// A recipe that never reads the variable may run only
					// rows of one value of it (an MTP-only recipe and
					// SPEC_DECODING): the option may be right for all of
					// them.
					continue
				}
				reported[key] = true
				p.Report(sh025Finding(s, model, fl, gate, uses))
			}
		}
		return nil
	})
}

// optionUse is a server option a recipe passes.
type optionUse struct {
	sib *Sibling
	fl  script.Flag
}

// optionIndex gathers the recipes' server options by normalized name, in
// recipe order.
func optionIndex(recipes []*Sibling) map[string][]optionUse {
	out := map[string][]optionUse{}
	for _, sib := range recipes {
		for _, srv := range sib.Facts.Servers {
			for _, fl := range srv.Flags {
				n := script.NormFlag(fl.Name)
				out[n] = append(out[n], optionUse{sib, fl})
			}
		}
	}
	return out
}

// othersThan leaves out the uses of the recipe under review (at its path
// or, for a rename, its old one).
func othersThan(s *target, uses []optionUse) []optionUse {
	out := make([]optionUse, 0, len(uses))
	for _, u := range uses {
		if !s.is(u.sib.Path) {
			out = append(out, u)
		}
	}
	return out
}

// passesOnEveryPath reports whether a script's server passes the option
// with the value outside any test.
func passesOnEveryPath(f *script.Facts, name, value string) bool {
	for _, srv := range f.Servers {
		for _, fl := range srv.Flags {
			if script.NormFlag(fl.Name) == name && fl.Value == value && fl.Branch.Unconditional() {
				return true
			}
		}
	}
	return false
}

// gatedEverywhere judges the uses of one option (grouped by recipe, as
// optionIndex lists them) against the value: ok when at least
// sh025MinRecipes recipes pass it with the value, every such use behind a
// test of one matrix variable (gate), none on every path, and none of
// those recipes giving the option another value elsewhere (recipes that
// pass only other values are left out).
func gatedEverywhere(all []optionUse, value string) (uses []gatedUse, gate string, ok bool) {
	var common map[string]bool
	passers := map[string]bool{}
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].sib == all[i].sib {
			j++
		}
		mine := all[i:j]
		i = j
		passes := false
		for _, u := range mine {
			passes = passes || u.fl.Value == value
		}
		if !passes {
			continue // another GPU's backend, or none: no say on this value
		}
		for _, u := range mine {
			fl := u.fl
			if fl.Value != value {
				// The recipe gives the option another value on another
				// path (a size per layout): a setting, not a switch.
				return nil, "", false
			}
			vars := gateVars(fl.Branch)
			if len(vars) == 0 {
				return nil, "", false // passed without a test of the row
			}
			if common == nil {
				common = map[string]bool{}
				for v := range vars {
					common[v] = true
				}
			} else {
				for v := range common {
					if _, ok := vars[v]; !ok {
						delete(common, v)
					}
				}
			}
			passers[u.sib.Path] = true
			uses = append(uses, gatedUse{sib: u.sib, fl: fl})
		}
	}
	if len(passers) < sh025MinRecipes || len(common) == 0 {
		return nil, "", false
	}
	vars := make([]string, 0, len(common))
	for v := range common {
		vars = append(vars, v)
	}
	sort.Strings(vars)
	gate = vars[0]
	for i := range uses {
		uses[i].cond = gateVars(uses[i].fl.Branch)[gate]
	}
	return uses, gate, true
}

// modelRecipes are the recipes of the engine whose file names carry the
// model prefix (p's among them), in the directories of one layout: p's
// directory, its parent and the parent's other subdirectories (the
// scenario directories: agentic, fixed sequence length), and p's own
// subdirectories; none named deprecated.
func modelRecipes(ctx context.Context, ch *checks.Change, p, model string, engine script.Engine) ([]*Sibling, error) {
	dir := dirOf(p)
	seen := map[string]bool{dir: true}
	dirs := []string{dir}
	add := func(d string) {
		if !seen[d] && !strings.Contains(path.Base(d), "deprecated") {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	subdirs := func(d string) error {
		for _, t := range []checks.Tree{ch.Base, ch.Head} {
			entries, err := t.ReadDir(ctx, d)
			if err != nil {
				if checks.IsNotExist(err) {
					continue
				}
				return err
			}
			for _, e := range entries {
				if e.IsDir {
					add(e.Path)
				}
			}
		}
		return nil
	}
	if dir != "" {
		if parent := dirOf(dir); parent != "" {
			add(parent)
			if err := subdirs(parent); err != nil {
				return nil, err
			}
		}
		if err := subdirs(dir); err != nil {
			return nil, err
		}
	}
	sort.Strings(dirs[1:])
	var out []*Sibling
	for _, d := range dirs {
		byModel, err := modelPaths(ctx, ch, d)
		if err != nil {
			return nil, err
		}
		var group []*Sibling
		for _, sp := range byModel[model] {
			if OtherEngineByName(sp, engine) {
				continue
			}
			sib, err := loadSibling(ctx, ch, sp)
			if err != nil {
				if script.IsParseError(err) {
					continue
				}
				return nil, err
			}
			if sib != nil && sib.Facts.Engine == engine {
				group = append(group, sib)
			}
		}
		out = append(out, groupWithout(ch, d, group, "")...)
	}
	return out, nil
}

// modelPathsKey memoizes modelPaths within a review.
var modelPathsKey = checks.NewMemoKey[map[string][]string]("recipe.modelpaths")

// modelPaths are the recipes of dir by the model prefix of their file
// names, listed once per review: a PR of a thousand recipes of as many
// models does not filter the listing a thousand times.
func modelPaths(ctx context.Context, ch *checks.Change, dir string) (map[string][]string, error) {
	return checks.Shared(ch, modelPathsKey, dir, func() (map[string][]string, error) {
		cfg := ch.Settings(ctx)
		paths, err := groupPaths(ctx, ch, dir, cfg.IsRecipe)
		if err != nil {
			return nil, err
		}
		out := map[string][]string{}
		for _, p := range paths {
			if m, _, ok := familyOf(p); ok {
				out[m] = append(out[m], p)
			}
		}
		return out, nil
	})
}

func sh025Finding(s *target, model string, fl script.Flag, gate string, uses []gatedUse) checks.Finding {
	opt := fl.Name
	if fl.HasValue {
		opt += " " + fl.Value
	}
	recipes := map[string]bool{}
	var cites []checks.Location
	var named []string
	for _, u := range uses {
		if recipes[u.sib.Path] {
			continue
		}
		recipes[u.sib.Path] = true
		if len(cites) < sh025Cited {
			cites = append(cites, u.sib.Loc(u.fl.Line, 0, fmt.Sprintf("passes %s only under %s", prose.Code(fl.Name), prose.Code(u.cond.Text))))
			named = append(named, prose.Code(fmt.Sprintf("%s:%d", path.Base(u.sib.Path), u.fl.Line)))
		}
	}
	test := uses[0].cond.Text
	body := fmt.Sprintf("Line %d passes %s to the %s server on every path, but the %d other %s %s recipes that pass it do so only "+
		"under a test of %s (e.g. %s: %s). Every row this recipe runs now gets it, including the ones the other recipes keep it "+
		"from. Put it under the same test of %s, or say in a comment why this recipe needs it on every row.",
		fl.Line, prose.Code(opt), s.Head.Engine, len(recipes), prose.Code(model), s.Head.Engine, prose.Code(gate),
		prose.JoinAnd(named), prose.Code(test), prose.Code(gate))
	return checks.Finding{
		Path:    s.Path,
		Line:    fl.Line,
		Title:   fmt.Sprintf("%s is passed on every path; the other %s recipes pass it only under a test of %s", prose.Code(opt), prose.Code(model), prose.Code(gate)),
		Body:    body,
		Related: cites,
		Key:     "gated-option:" + script.NormFlag(fl.Name),
	}
}
