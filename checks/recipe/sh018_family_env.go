package recipe

import (
	"fmt"
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
		"value (`PYTORCH_CUDA_ALLOC_CONF`, an NCCL switch). A few recipes merged without an engine's variable do " +
		"not end the convention: a recipe the PR adds is also reported when at least five recipes of the family, " +
		"two thirds of it, set the variable on both vendors' GPUs; the finding names the ones that do not. Set it " +
		"as the siblings do, or say in a comment why this recipe does not.",
	Run: runSH018,
}

// sh018MinSiblings is how many recipes of the family must set the variable.
const sh018MinSiblings = 3

// sh018MinMost is how many recipes must set an engine's variable that some
// recipes of the family lack, for a recipe the PR adds without it to be
// reported: a convention that a few recipes merged without it have not
// ended.
const sh018MinMost = 5

// mostSet reports whether n setters of a family of size are enough to
// hold a new recipe to the variable though some recipes lack it: at least
// sh018MinMost and two thirds of the family.
func mostSet(n, size int) bool { return n >= sh018MinMost && 3*n >= 2*size }

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
		// The variables the recipes of the family export, and how many do.
		exps := make([]map[string]script.Var, len(family))
		for i, sib := range family {
			exps[i] = exported(sib.Facts)
		}
		count := map[string]int{}
		for _, mine := range exps {
			for name := range mine {
				count[name]++
			}
		}
		var missing []familyVar
		for name, n := range count {
			engineVar := script.EnvEngine(name) == s.Head.Engine
			if namesVar(s.Head, name) {
				continue
			}
			if n < len(family) && !(s.Base == nil && engineVar && mostSet(n, len(family))) {
				continue
			}
			// The PR introduces the break: a recipe it adds, or a variable it
			// deletes.
			mv := familyVar{name: name, of: len(family)}
			if s.Base != nil {
				vs := s.Base.VarsNamed(name)
				if len(vs) == 0 {
					continue
				}
				mv.was = vs[0].Line
			}
			var setters []*Sibling
			for i, sib := range family {
				if _, ok := exps[i][name]; !ok {
					mv.lacking = append(mv.lacking, sib)
					continue
				}
				_, g, _ := familyOf(sib.Path)
				mv.setters = append(mv.setters, familySetter{sib, exps[i][name], g})
				setters = append(setters, sib)
			}
			if len(mv.lacking) > 0 && vendors(setters) < 2 {
				continue // the setters may share one vendor's tuning
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
		// What the whole family sets is one finding; a variable most of it
		// sets is one of its own, which names the recipes that lack it.
		var every []familyVar
		for _, mv := range missing {
			if len(mv.lacking) == 0 {
				every = append(every, mv)
			}
		}
		if len(every) > 0 {
			p.Report(sh018Finding(s, model, gpu, spec, every))
		}
		for _, mv := range missing {
			if len(mv.lacking) > 0 {
				p.Report(sh018Finding(s, model, gpu, spec, []familyVar{mv}))
			}
		}
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
	// of is the family's size; lacking are the recipes of the family that
	// do not set the variable (none, unless most set it and the PR adds
	// the recipe).
	of      int
	lacking []*Sibling
}

// every says how many of the family set the variable: "every other" or
// "5 of the 7 other".
func (mv familyVar) every() string {
	if len(mv.lacking) == 0 {
		return "every other"
	}
	return fmt.Sprintf("%d of the %d other", len(mv.setters), mv.of)
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
	kinds, verb := kind, "exports"
	where := fmt.Sprintf("%s, on %s", prose.Count(len(first.setters), "recipe", "recipes"), prose.JoinAnd(gpus))
	if len(first.lacking) > 0 {
		var lack []string
		for _, sib := range first.lacking {
			lack = append(lack, prose.Code(path.Base(sib.Path)))
		}
		kinds, verb = kind+"s", "export"
		where = fmt.Sprintf("on %s; %s %s not", prose.JoinAnd(gpus), prose.JoinAnd(lack), map[bool]string{true: "does", false: "do"}[len(lack) == 1])
	}
	msg := fmt.Sprintf("%s, which %s %s %s of the %s family in this directory %s (%s), "+
		"e.g. %s:%d. The %s command (line %d) starts without %s, so this %s recipe serves %s differently from "+
		"its siblings on other GPUs. %s before the server starts, as they do; if this GPU needs otherwise, say so "+
		"in a comment that names the variable.",
		what, first.every(), s.Head.Engine, kinds, prose.Code(model), verb, where,
		first.setters[0].sib.Path, first.setters[0].v.Line, prose.Code(srv.Program), srv.Line, them, prose.Code(gpu),
		prose.Code(model), set)
	ex := &checks.Explain{}
	if len(first.lacking) > 0 {
		ex.Problem().Printf("%s missing where most %s %ss of %s set %s.", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(model), them)
	} else {
		ex.Problem().Printf("%s missing where every %s %s of %s sets %s.", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(model), them)
	}
	var sibs []*Sibling
	for _, st := range first.setters {
		sibs = append(sibs, st.sib)
	}
	switch {
	case len(first.lacking) > 0:
		ex.Why().Printf("A variable of the engine that most of the family sets on NVIDIA and AMD GPUs alike is part of how " +
			"the engine serves the model; the few recipes without it do not make a new recipe that leaves it out measure " +
			"the same engine path as the rest of the family's results.")
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
	switch {
	case len(first.lacking) > 0:
		title = fmt.Sprintf("%s, which %d of the %d %s %ss of %s set, is missing", prose.JoinAnd(names), len(first.setters), first.of, s.Head.Engine, kind, prose.Code(model))
	case len(missing) > 1:
		title = fmt.Sprintf("%s, which every %s %s of %s sets, are missing", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(model))
	}
	key := "family-env"
	if len(first.lacking) > 0 {
		key = "family-env-most:" + first.name
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
		Key:     key,
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
