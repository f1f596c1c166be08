package recipe

import (
	"fmt"
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH023 reports a recipe the PR adds that is out of step with the other
// recipes of its engine on its GPU: it exports an engine variable that
// only another GPU's recipes set (carried over from the recipe it was
// copied from), or lacks a server option all of its GPU's recipes pass.
var SH023 = &checks.Rule{
	ID:       "SH023",
	Severity: checks.Warning,
	Title:    "New recipe carries another GPU's settings or lacks its own GPU's",
	Doc: "A recipe for a new model and GPU is usually copied from the same model's recipe on another GPU, and " +
		"what that GPU needs travels with it. For a recipe the PR adds, this rule compares it with the other " +
		"recipes of its engine and directory on the same GPU (at least three, of at least two models). It " +
		"reports an engine variable the recipe exports that none of them names, when the only recipes that set " +
		"it run on one other GPU — at least two of them, of at least two models, the same model's recipe " +
		"there among them (the copy source). And it reports a server option every one of them passes that the " +
		"new recipe lacks (`--enable-symm-mem` in every B300 SGLang recipe), unless the recipes of the model " +
		"family already agree on it (SH022's) or it is a speculative-decoding option the others need and this " +
		"recipe does not. A comment in the recipe that names the variable or option counts as the reason.",
	Run: runSH023,
}

// gpuPeers are the other recipes of a recipe's engine and directory that
// run on its GPU, and everything its directory holds for that engine.
type gpuPeers struct {
	model, gpu string
	peers, all []*Sibling
}

// gpuPeersOf is nil when the recipe's name is not of the family shape,
// it starts no server, or its GPU has fewer than sh018MinSiblings other
// recipes of at least two models.
func gpuPeersOf(p *checks.Pass, s *target) (*gpuPeers, error) {
	model, gpu, ok := familyOf(s.Path)
	if !ok || len(s.Head.Servers) == 0 || s.Head.Engine == script.EngineUnknown {
		return nil, nil
	}
	all, err := Siblings(p.Ctx, p.Change, s.Path)
	if err != nil {
		return nil, err
	}
	g := &gpuPeers{model: model, gpu: gpu, all: all}
	models := map[string]bool{}
	for _, sib := range all {
		if m, sg, ok := familyOf(sib.Path); ok && sg == gpu && len(sib.Facts.Servers) > 0 {
			g.peers = append(g.peers, sib)
			models[m] = true
		}
	}
	if len(g.peers) < sh018MinSiblings || len(models) < 2 {
		return nil, nil
	}
	return g, nil
}

func runSH023(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		if s.Base != nil {
			continue // only a recipe the PR adds was just copied
		}
		g, err := gpuPeersOf(p, s)
		if err != nil {
			return err
		}
		if g == nil {
			continue
		}
		for _, f := range sh023Carried(s, g) {
			p.Report(f)
		}
		fam, err := modelFamily(p, s)
		if err != nil {
			return err
		}
		if f, ok := sh023Lacking(s, g, fam); ok {
			p.Report(f)
		}
	}
	return nil
}

// sh023Carried reports the engine variables the recipe exports that only
// one other GPU's recipes set.
func sh023Carried(s *target, g *gpuPeers) []checks.Finding {
	var out []checks.Finding
	mine := exported(s.Head)
	names := make([]string, 0, len(mine))
	for n := range mine {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		v := mine[name]
		if script.EnvEngine(name) != s.Head.Engine || len(s.Head.CommentsMentioning(name)) > 0 {
			continue
		}
		named := false
		for _, peer := range g.peers {
			if namesVar(peer.Facts, name) {
				named = true
				break
			}
		}
		if named {
			continue
		}
		var setters []familySetter
		var source *familySetter
		gpus, models := map[string]bool{}, map[string]bool{}
		for _, sib := range g.all {
			m, sg, ok := familyOf(sib.Path)
			if !ok || sg == g.gpu {
				continue
			}
			sv, ok := exported(sib.Facts)[name]
			if !ok {
				continue
			}
			st := familySetter{sib, sv, sg}
			setters = append(setters, st)
			gpus[sg], models[m] = true, true
			if m == g.model && source == nil {
				source = &setters[len(setters)-1]
			}
		}
		if len(setters) < 2 || len(gpus) != 1 || len(models) < 2 || source == nil {
			continue
		}
		src := *source
		var cites []checks.Location
		cites = append(cites, src.sib.Loc(src.v.Line, 0, "sets "+name+" (the same model on "+src.gpu+")"))
		for _, st := range setters {
			if st.sib != src.sib && len(cites) < maxEvidence {
				cites = append(cites, st.sib.Loc(st.v.Line, 0, "sets "+name))
			}
		}
		for _, peer := range g.peers {
			if len(cites) >= maxEvidence+2 {
				break
			}
			cites = append(cites, peer.Loc(peer.Facts.Servers[0].Line, 0, "a "+g.gpu+" recipe without it"))
		}
		msg := fmt.Sprintf("This recipe exports %s (line %d), which no other %s recipe on %s in this directory sets "+
			"(%s, of %s); the only recipes that set it run on %s (%s, e.g. %s:%d, the same model's). It looks "+
			"carried over from the %s recipe this one was copied from, so this %s run may take a code path tuned "+
			"for %s that its %s siblings leave at the engine's default. Drop it, or say in a comment that names "+
			"the variable why %s needs it too.",
			prose.Code(name), v.Line, s.Head.Engine, prose.Code(g.gpu), prose.Count(len(g.peers), "recipe", "recipes"),
			modelList(g.peers), prose.Code(src.gpu), prose.Count(len(setters), "recipe", "recipes"), src.sib.Path,
			src.v.Line, prose.Code(src.gpu), prose.Code(g.gpu), prose.Code(src.gpu), prose.Code(g.gpu), prose.Code(g.gpu))
		ex := &checks.Explain{}
		ex.Problem().Printf("%s set in a new %s recipe where only the %s recipes set it.", prose.Code(name), prose.Code(g.gpu), prose.Code(src.gpu))
		ex.Why().Printf("A variable only one GPU's recipes set is that GPU's tuning; copied to another GPU it " +
			"switches a path the recipes of that GPU do not use, and the result is not comparable with theirs.")
		ex.Fix().Printf("Remove the export, or a comment that names %s and says why this GPU needs it.", prose.Code(name))
		f := checks.Finding{
			Path:    s.Path,
			Line:    v.Line,
			Title:   fmt.Sprintf("%s is set only by %s recipes, none of the other %s ones", prose.Code(name), prose.Code(src.gpu), prose.Code(g.gpu)),
			Body:    msg,
			Related: cites,
			Key:     "gpu-carried-env",
			Facts:   []string{"env:" + name},
		}
		ex.Apply(&f)
		out = append(out, f)
	}
	return out
}

// sh023Lacking reports the server options every recipe on the GPU passes
// that the new recipe lacks.
func sh023Lacking(s *target, g *gpuPeers, fam *family) (checks.Finding, bool) {
	head, opaque := serverOptions(s.Head)
	if opaque {
		return checks.Finding{}, false
	}
	spec := UsesSpecDecoding(s.Head)
	sameKind := false
	opts := make([]map[string]script.Flag, len(g.peers))
	for i, peer := range g.peers {
		opts[i], _ = serverOptions(peer.Facts)
		if UsesSpecDecoding(peer.Facts) == spec {
			sameKind = true
		}
	}
	if !sameKind {
		// Every peer decodes the other way: what they agree on may be how
		// they decode.
		return checks.Finding{}, false
	}
	// The options the model family agrees on are SH022's.
	var famOpts []map[string]script.Flag
	if fam != nil && vendors(fam.members) >= 2 {
		for _, m := range fam.members {
			o, _ := serverOptions(m.Facts)
			famOpts = append(famOpts, o)
		}
	}
	var missing []familyOption
	for n := range opts[0] {
		if _, parser := sh022Parsers[n]; parser || passesEither(head, n) || len(s.Head.CommentsMentioning(n)) > 0 {
			continue
		}
		fo := familyOption{name: n}
		every := true
		for i, peer := range g.peers {
			fl, ok := opts[i][n]
			if !ok || fl.JSON != nil {
				every = false
				break
			}
			_, pg, _ := familyOf(peer.Path)
			fo.passers = append(fo.passers, familyPasser{peer, fl, pg})
		}
		if !every || everyPasses(famOpts, n) || !gpuSpecific(g, n) {
			continue
		}
		missing = append(missing, fo)
	}
	if len(missing) == 0 {
		return checks.Finding{}, false
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].name < missing[j].name })
	srv := s.Head.Servers[0]
	var names, writes []string
	var cites []checks.Location
	for _, fo := range missing {
		names = append(names, prose.Code(fo.name))
		if w, ok := agreedFlag(fo); ok {
			writes = append(writes, prose.Code(w))
		}
	}
	for i := 0; len(cites) < maxEvidence; i++ {
		more := false
		for _, fo := range missing {
			if i < len(fo.passers) && len(cites) < maxEvidence {
				ps := fo.passers[i]
				cites = append(cites, ps.sib.Loc(ps.fl.Line, 0, "passes "+fo.name))
				more = true
			}
		}
		if !more {
			break
		}
	}
	them := "it"
	if len(missing) > 1 {
		them = "them"
	}
	fix := "Pass " + them
	if len(writes) == len(missing) {
		fix = "Add " + prose.JoinAnd(writes)
	}
	first := missing[0].passers[0]
	msg := fmt.Sprintf("The %s command this recipe adds (line %d) never passes %s, although every other %s recipe "+
		"on %s in this directory passes %s (%s, of %s), e.g. %s:%d. Without %s this run uses the engine's "+
		"default where every other %s result sets the option. %s to the server command, as they do; if this "+
		"model needs otherwise, say so in a comment that names the option.",
		prose.Code(srv.Program), srv.Line, prose.JoinAnd(names), s.Head.Engine, prose.Code(g.gpu), them,
		prose.Count(len(g.peers), "recipe", "recipes"), modelList(g.peers), first.sib.Path, first.fl.Line, them,
		prose.Code(g.gpu), fix)
	verb := "is"
	if len(missing) > 1 {
		verb = "are"
	}
	ex := &checks.Explain{}
	ex.Problem().Printf("%s missing from a new recipe where every %s recipe on %s passes %s.", prose.JoinAnd(names), s.Head.Engine, prose.Code(g.gpu), them)
	ex.Why().Printf("An option every recipe of a GPU passes, across models, is how the engine is run on that " +
		"GPU; without it the new result is measured another way than its neighbours on the same hardware.")
	ex.Fix().Printf("%s, or a comment that names the option and says why not.", fix)
	var facts []string
	for _, fo := range missing {
		facts = append(facts, "option:"+fo.name)
	}
	f := checks.Finding{
		Path:    s.Path,
		Line:    srv.Line,
		Title:   fmt.Sprintf("%s, which every %s recipe on %s passes, %s missing", prose.JoinAnd(names), s.Head.Engine, prose.Code(g.gpu), verb),
		Body:    msg,
		Related: cites,
		Key:     "gpu-option",
		Facts:   facts,
	}
	ex.Apply(&f)
	return f, true
}

// everyPasses reports whether every option set holds the option (false
// for no sets).
func everyPasses(sets []map[string]script.Flag, n string) bool {
	if len(sets) == 0 {
		return false
	}
	for _, o := range sets {
		if _, ok := o[n]; !ok {
			return false
		}
	}
	return true
}

// gpuSpecific reports whether the option is the GPU's: the directory has
// at least sh018MinSiblings recipes on other GPUs and fewer than half of
// them pass it. An option most recipes pass anywhere is the model's or the
// engine's choice, not the GPU's; with no other GPUs to compare, nothing
// says the option belongs to this one.
func gpuSpecific(g *gpuPeers, n string) bool {
	others, passing := 0, 0
	for _, sib := range g.all {
		_, sg, ok := familyOf(sib.Path)
		if !ok || sg == g.gpu || len(sib.Facts.Servers) == 0 {
			continue
		}
		others++
		if o, _ := serverOptions(sib.Facts); passesEither(o, n) {
			passing++
		}
	}
	return others >= sh018MinSiblings && 2*passing < others
}

// modelList names the models of the recipes ("`dsr1` and `qwen3.5`").
func modelList(sibs []*Sibling) string {
	seen := map[string]bool{}
	var models []string
	for _, sib := range sibs {
		if m, _, ok := familyOf(sib.Path); ok && !seen[m] {
			seen[m] = true
			models = append(models, prose.Code(m))
		}
	}
	sort.Strings(models)
	return prose.JoinAnd(models)
}
