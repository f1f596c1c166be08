package recipe

import (
	"fmt"
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH018 reports an environment variable a recipe lacks that every recipe
// of its model family sets.
var SH018 = &checks.Rule{
	ID:       "SH018",
	Severity: checks.Warning,
	Title:    "Environment variable every recipe of the model family sets is missing",
	Doc: "The recipes of one model family (same model prefix in the file name, same directory, same engine, " +
		"with or without speculative decoding alike) are copies of one another adapted to each GPU; a variable " +
		"the engine reads that all of them export (`SGLANG_ENABLE_SPEC_V2=1` in every GLM-5 SGLang MTP recipe) " +
		"is part of how that model is served with that engine, not of one GPU's tuning. This rule reports a " +
		"recipe the PR adds that never mentions such a variable, or one the PR deletes it from, when at least " +
		"three other recipes of the family set it and they run on both NVIDIA and AMD GPUs (so the variable is " +
		"not one vendor's). A comment in the recipe that names the variable counts as saying why it is left " +
		"out. A variable the PR deletes from a recipe is reported where it was, also when the family runs on one " +
		"vendor's GPUs only, and also when no engine reads it but every recipe of the family sets it to the same " +
		"value (`PYTORCH_CUDA_ALLOC_CONF`, an NCCL switch). Set it as the siblings do, or say in a comment why this " +
		"recipe does not.",
	Run: runSH018,
}

// sh018MinSiblings is how many recipes of the family must set the variable.
const sh018MinSiblings = 3

// familyOf names a recipe's model family and its GPU from its file name
// (<model>_<precision>_<gpu>[_...].sh); ok is false for a name of another
// shape.
func familyOf(p string) (model, gpu string, ok bool) {
	parts := strings.Split(strings.TrimSuffix(path.Base(p), path.Ext(p)), "_")
	if len(parts) < 3 || parts[0] == "" || parts[2] == "" {
		return "", "", false
	}
	return parts[0], parts[2], true
}

// vendorOf is the GPU vendor a GPU name in a recipe's file name means.
func vendorOf(gpu string) string {
	if strings.HasPrefix(gpu, "mi") {
		return "AMD"
	}
	return "NVIDIA"
}

// exported is where a script first puts each variable in the environment.
func exported(f *script.Facts) map[string]script.Var {
	out := map[string]script.Var{}
	for _, v := range f.Vars {
		if v.Kind != script.Export && v.Kind != script.EnvPrefix {
			continue
		}
		if _, ok := out[v.Name]; !ok {
			out[v.Name] = v
		}
	}
	return out
}

// namesVar reports whether a script binds, reads or names in a comment
// the variable.
func namesVar(f *script.Facts, name string) bool {
	return len(f.VarsNamed(name)) > 0 || len(f.ReadsOf(name)) > 0 || len(f.CommentsMentioning(name)) > 0
}

// family is the model family of a recipe under review: the other recipes
// of its directory and engine with the same model prefix that serve the
// same way (with speculative decoding or without), and the recipe's model
// and GPU by its file name.
type family struct {
	members    []*Sibling
	model, gpu string
	spec       bool
}

// modelFamily is the family of s, nil when s starts no server, its name
// is not of the <model>_<precision>_<gpu> shape or the family has fewer
// than sh018MinSiblings recipes.
func modelFamily(p *checks.Pass, s *target) (*family, error) {
	model, gpu, ok := familyOf(s.Path)
	if !ok || len(s.Head.Servers) == 0 || s.Head.Engine == script.EngineUnknown {
		return nil, nil
	}
	fam := &family{model: model, gpu: gpu, spec: UsesSpecDecoding(s.Head)}
	sibs, err := Siblings(p.Ctx, p.Change, s.Path)
	if err != nil {
		return nil, err
	}
	for _, sib := range sibs {
		if m, _, ok := familyOf(sib.Path); ok && m == model && len(sib.Facts.Servers) > 0 && UsesSpecDecoding(sib.Facts) == fam.spec {
			fam.members = append(fam.members, sib)
		}
	}
	if len(fam.members) < sh018MinSiblings {
		return nil, nil
	}
	return fam, nil
}

// vendors are the GPU vendors the recipes run on.
func vendors(sibs []*Sibling) int {
	seen := map[string]bool{}
	for _, sib := range sibs {
		_, g, _ := familyOf(sib.Path)
		seen[vendorOf(g)] = true
	}
	return len(seen)
}

// familySetter is a recipe of the family and where it sets the variable.
type familySetter struct {
	sib *Sibling
	v   script.Var
	gpu string
}

func runSH018(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		fam, err := modelFamily(p, s)
		if err != nil {
			return err
		}
		if fam == nil {
			continue
		}
		family, model, gpu, spec := fam.members, fam.model, fam.gpu, fam.spec
		// What one vendor's recipes agree on may be that vendor's tuning,
		// and a variable of no engine may be incidental: either is held
		// against a recipe only when the PR deletes it.
		oneVendor := vendors(family) < 2
		// The variables every recipe of the family exports.
		exps := make([]map[string]script.Var, len(family))
		for i, sib := range family {
			exps[i] = exported(sib.Facts)
		}
		common := maps.Clone(exps[0])
		for _, mine := range exps[1:] {
			for name := range common {
				if _, ok := mine[name]; !ok {
					delete(common, name)
				}
			}
		}
		var missing []familyVar
		for name := range common {
			engineVar := script.EnvEngine(name) == s.Head.Engine
			if namesVar(s.Head, name) {
				continue
			}
			// The PR introduces the break: a recipe it adds, or a variable it
			// deletes.
			mv := familyVar{name: name}
			if s.Base != nil {
				vs := s.Base.VarsNamed(name)
				if len(vs) == 0 {
					continue
				}
				mv.was = vs[0].Line
			}
			for i, sib := range family {
				_, g, _ := familyOf(sib.Path)
				mv.setters = append(mv.setters, familySetter{sib, exps[i][name], g})
			}
			if mv.was == 0 && (oneVendor || !engineVar) {
				continue
			}
			if _, same := agreedValue(mv.setters); !engineVar && !same {
				continue // a value each recipe sets its own way (a path, a size)
			}
			missing = append(missing, mv)
		}
		if len(missing) == 0 {
			continue
		}
		sort.Slice(missing, func(i, j int) bool { return missing[i].name < missing[j].name })
		p.Report(sh018Finding(s, model, gpu, spec, missing))
	}
	return nil
}

// familyVar is a variable the family sets and the recipe lacks: where each
// recipe of the family sets it, and the line the PR deleted it from (0 for
// a recipe the PR adds).
type familyVar struct {
	name    string
	setters []familySetter
	was     int
}

// agreedValue is the value every setter gives the variable, when they all
// give the same literal one.
func agreedValue(setters []familySetter) (string, bool) {
	val := ""
	for i, st := range setters {
		if !st.v.HasValue || !st.v.Static {
			return "", false
		}
		if i > 0 && st.v.Value != val {
			return "", false
		}
		val = st.v.Value
	}
	return val, true
}

func sh018Finding(s *target, model, gpu string, spec bool, missing []familyVar) checks.Finding {
	srv := s.Head.Servers[0]
	kind := "recipe"
	if spec {
		kind = "speculative-decoding recipe"
	}
	first := missing[0]
	var gpus []string
	seen := map[string]bool{}
	for _, st := range first.setters {
		if !seen[st.gpu] {
			seen[st.gpu] = true
			gpus = append(gpus, prose.Code(st.gpu))
		}
	}
	var names, exports, deleted []string
	var cites []checks.Location
	for _, mv := range missing {
		names = append(names, prose.Code(mv.name))
		if val, ok := agreedValue(mv.setters); ok {
			exports = append(exports, "export "+mv.name+"="+val)
		}
		if mv.was > 0 {
			deleted = append(deleted, fmt.Sprintf("%s (line %d before it)", prose.Code(mv.name), mv.was))
		}
		for _, st := range mv.setters {
			if len(cites) < maxEvidence {
				cites = append(cites, st.sib.Loc(st.v.Line, 0, "sets "+mv.name))
			}
		}
	}
	what := fmt.Sprintf("This recipe never sets %s", prose.JoinAnd(names))
	if len(deleted) > 0 {
		what = "This PR deletes " + prose.JoinAnd(deleted)
	}
	them := "it"
	if len(missing) > 1 {
		them = "them"
	}
	set := "Set " + them
	if len(exports) == len(missing) {
		var codes []string
		for _, e := range exports {
			codes = append(codes, prose.Code(e))
		}
		set = "Add " + prose.JoinAnd(codes)
	}
	msg := fmt.Sprintf("%s, which every other %s %s of the %s family in this directory exports (%s, on %s), "+
		"e.g. %s:%d. The %s command (line %d) starts without %s, so this %s recipe serves %s differently from "+
		"its siblings on other GPUs. %s before the server starts, as they do; if this GPU needs otherwise, say so "+
		"in a comment that names the variable.",
		what, s.Head.Engine, kind, prose.Code(model), prose.Count(len(first.setters), "recipe", "recipes"), prose.JoinAnd(gpus),
		first.setters[0].sib.Path, first.setters[0].v.Line, prose.Code(srv.Program), srv.Line, them, prose.Code(gpu),
		prose.Code(model), set)
	ex := &checks.Explain{}
	ex.Problem().Printf("%s missing where every %s %s of %s sets %s.", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(model), them)
	var sibs []*Sibling
	for _, st := range first.setters {
		sibs = append(sibs, st.sib)
	}
	switch {
	case script.EnvEngine(first.name) != s.Head.Engine:
		ex.Why().Printf("A setting every other recipe of the family gives the same value is part of how the model is " +
			"run there; without it this run differs from the family's other results in a way no comment explains.")
	case vendors(sibs) < 2:
		ex.Why().Printf("A variable of the engine that every other recipe of the family sets is part of how the engine " +
			"serves the model on these GPUs; without it the run measures another engine path than the family's other results.")
	default:
		ex.Why().Printf("A variable of the engine that the whole family sets on NVIDIA and AMD GPUs alike is part of how " +
			"the engine serves the model; without it the run measures another engine path than the family's other results.")
	}
	ex.Fix().Printf("%s, or a comment that names the variable and says why not.", set)
	title := fmt.Sprintf("%s, which every %s %s of %s sets, is missing", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(model))
	if len(missing) > 1 {
		title = fmt.Sprintf("%s, which every %s %s of %s sets, are missing", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(model))
	}
	var facts []string
	for _, mv := range missing {
		facts = append(facts, "env:"+mv.name)
	}
	f := checks.Finding{
		Path:    s.Path,
		Line:    srv.Line,
		Title:   title,
		Body:    msg,
		Related: cites,
		Key:     "family-env",
		Facts:   facts,
	}
	at := stmtLine(s.Head, srv.Line)
	was := 0
	for _, mv := range missing {
		if mv.was > 0 && (was == 0 || mv.was < was) {
			was = mv.was
		}
	}
	if was > 0 {
		// Where the variable was: a reader of the diff sees the deletion
		// there, and the server command may be far below it.
		f.Line = s.headLineOf(was)
		at = stmtLine(s.Head, f.Line)
	}
	if len(exports) == len(missing) {
		f.Suggestion = insertAbove(s.Head, at, exports...)
	}
	ex.Apply(&f)
	return f
}
