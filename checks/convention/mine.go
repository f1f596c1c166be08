package convention

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// Thresholds decide when a candidate is a belief.
type Thresholds struct {
	// MinFamilies is the number of model families that must do X, per
	// template: a key in a component's own object is a strong structural
	// signal (2 families); a pair of options or a branch's env var is
	// also how one author's tuning spreads by copying (3); a JSON
	// option's key has nothing to compare against, so it needs 4.
	MinFamiliesObject  int `json:"min_families_object_key"`
	MinFamiliesPair    int `json:"min_families_option_pair"`
	MinFamiliesBranch  int `json:"min_families_branch_env"`
	MinFamiliesJSONKey int `json:"min_families_option_key"`
	// MinLower is the least lower 95% bound on the families' follow rate
	// (MinLowerJSONKey for a JSON option's keys).
	MinLower        float64 `json:"min_lower_bound"`
	MinLowerJSONKey float64 `json:"min_lower_bound_option_key"`
	// MinLift is, for templates with alternatives to compare against (other
	// components of the slot, commands without the option), the least
	// lower 95% bound on how much more often the families that do X do Y
	// than the others.
	MinLift float64 `json:"min_lift"`
}

// DefaultThresholds are the ones CV001 uses: 2 of 2 families (a lower
// bound of 42%) is enough for a component key the other components do not
// set; a JSON option's key needs at least 4 families that (nearly) all
// set it.
var DefaultThresholds = Thresholds{MinFamiliesObject: 2, MinFamiliesPair: 3, MinFamiliesBranch: 3, MinFamiliesJSONKey: 4,
	MinLower: 0.4, MinLowerJSONKey: 0.6, MinLift: 0.1}

func (th Thresholds) minFamilies(t tmpl) int {
	switch t {
	case tObject:
		return th.MinFamiliesObject
	case tFlagPair:
		return th.MinFamiliesPair
	case tArmEnv:
		return th.MinFamiliesBranch
	}
	return th.MinFamiliesJSONKey
}

// cand is a candidate implication X ⇒ Y of one template.
type cand struct {
	t tmpl
	// slot is the option (tFlagJSON, tFlagPair) or the option and
	// identity key (tObject, tArmEnv) X is about; val the component's
	// name for the latter.
	slot, val string
	y         string
}

// obs is what one recipe shows of a candidate: instances of X and how
// many of them have Y; instances of the alternatives and how many of
// those have Y.
type obs struct {
	xn, xf, cn, cf int
	// xLine, yLine cite the first following (or, failing that, the first)
	// instance of X.
	xLine, yLine int
}

// observe judges a candidate on one recipe. An instance whose Y may be
// hidden (an open command) counts only when Y is seen.
func (p *profile) observe(c cand) obs {
	var o obs
	note := func(xl, yl int, followed bool) {
		if o.xLine == 0 || followed && o.yLine == 0 {
			o.xLine = xl
			if followed {
				o.yLine = yl
			}
		}
	}
	switch c.t {
	case tObject, tArmEnv:
		for _, ob := range p.objs {
			if ob.slot != c.slot || c.t == tArmEnv && !ob.arm {
				continue
			}
			var yl int
			var has bool
			if c.t == tObject {
				yl, has = ob.keys[c.y]
			} else {
				yl, has = ob.binds[c.y]
			}
			if !has && ob.open {
				continue
			}
			if ob.value == c.val {
				o.xn++
				if has {
					o.xf++
				}
				note(ob.line, yl, has)
			} else {
				o.cn++
				if has {
					o.cf++
				}
			}
		}
	case tFlagJSON:
		for _, j := range p.jsons {
			if j.flag != c.slot {
				continue
			}
			yl, has := j.keys[c.y]
			if !has && j.open {
				continue
			}
			o.xn++
			if has {
				o.xf++
			}
			note(j.line, yl, has)
		}
	case tFlagPair:
		for _, cm := range p.cmds {
			yl, has := cm.flags[c.y]
			if !has && cm.open {
				continue
			}
			if xl, ok := cm.flags[c.slot]; ok {
				o.xn++
				if has {
					o.xf++
				}
				note(xl, yl, has)
			} else {
				o.cn++
				if has {
					o.cf++
				}
			}
		}
	}
	return o
}

// Witness is one recipe's instance of a belief's X.
type Witness struct {
	Path string `json:"path"`
	// Line is X's line, YLine the Y that goes with it (0 for an
	// exception).
	Line   int    `json:"line"`
	YLine  int    `json:"y_line,omitempty"`
	Family string `json:"family"`
	// Changed marks a sibling read at its head version because this PR
	// changes it.
	Changed bool `json:"changed_in_pr,omitempty"`
}

// stat is the evidence for one candidate.
type stat struct {
	// families doing X, and their summed follow rate (a family whose
	// recipes disagree adds its share).
	families int
	follow   float64
	// others: families with alternatives (other components of the slot,
	// commands without X), and their summed rate of Y.
	others       int
	othersFollow float64
	lower        float64
	lift         float64
	followers    []Witness
	exceptions   []Witness
}

// hasContrast reports whether a template compares X with alternatives.
func (t tmpl) hasContrast() bool { return t != tFlagJSON }

// holds applies the thresholds.
func (s stat) holds(t tmpl, th Thresholds) bool {
	if s.families < th.minFamilies(t) {
		return false
	}
	if t.hasContrast() {
		return s.lower >= th.MinLower-1e-9 && s.others > 0 && s.lift >= th.MinLift-1e-9
	}
	return s.lower >= th.MinLowerJSONKey-1e-9
}

// score ranks beliefs (and the findings they make): the lift where there
// are alternatives, else how far the follow rate's bound is above even.
func (s stat) score(t tmpl) float64 {
	if t.hasContrast() {
		return s.lift
	}
	return s.lower - 0.5
}

// evaluate computes a candidate's evidence over a set of recipes,
// counting each model family once.
func evaluate(c cand, ev []*profile) stat {
	type acc struct{ xn, xf, cn, cf int }
	fams := map[string]*acc{}
	var st stat
	for _, p := range ev {
		o := p.observe(c)
		if o.xn == 0 && o.cn == 0 {
			continue
		}
		a := fams[p.family]
		if a == nil {
			a = &acc{}
			fams[p.family] = a
		}
		a.xn += o.xn
		a.xf += o.xf
		a.cn += o.cn
		a.cf += o.cf
		if o.xn > 0 {
			w := Witness{Path: p.path, Line: o.xLine, YLine: o.yLine, Family: p.family, Changed: p.changed}
			if o.xf == o.xn {
				st.followers = append(st.followers, w)
			} else {
				w.YLine = 0
				st.exceptions = append(st.exceptions, w)
			}
		}
	}
	for _, a := range fams {
		if a.xn > 0 {
			st.families++
			st.follow += float64(a.xf) / float64(a.xn)
		}
		if a.cn > 0 {
			st.others++
			st.othersFollow += float64(a.cf) / float64(a.cn)
		}
	}
	st.lower, _ = wilson(st.follow, float64(st.families))
	st.lift = diffLower(st.follow, float64(st.families), st.othersFollow, float64(st.others))
	return st
}

// corpus is the evidence of one engine in one base tree: a profile per
// recipe (deprecated/ left out), and the candidates they suggest.
type corpus struct {
	engine   script.Engine
	profiles []*profile

	candOnce sync.Once
	cands    []cand
	idxOnce  sync.Once
	idx      map[xkey][]string
}

// candidates enumerates the candidates the recipes suggest: every Y seen
// with an X, by template.
func candidatesOf(ps []*profile) []cand {
	seen := map[cand]bool{}
	var out []cand
	add := func(c cand) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	for _, p := range ps {
		for _, o := range p.objs {
			for k := range o.keys {
				add(cand{t: tObject, slot: o.slot, val: o.value, y: k})
			}
			for b := range o.binds {
				add(cand{t: tArmEnv, slot: o.slot, val: o.value, y: b})
			}
		}
		for _, j := range p.jsons {
			for k := range j.keys {
				add(cand{t: tFlagJSON, slot: j.flag, y: k})
			}
		}
		for _, cm := range p.cmds {
			for _, pr := range relatedPairs(cm.flags) {
				add(cand{t: tFlagPair, slot: pr[0], y: pr[1]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return candLess(out[i], out[j]) })
	return out
}

// maxSharing bounds how many options of one command are paired through
// one content word: real commands have a handful (--speculative-*), and a
// hostile one with thousands must not cost their square.
const maxSharing = 32

// relatedPairs returns the ordered pairs of name-related options of a
// command, found through an index of their content words.
func relatedPairs(flags map[string]int) [][2]string {
	byTok := map[string][]string{}
	for _, f := range sortedKeys(flags) {
		for _, t := range contentTokens(f) {
			if len(byTok[t]) < maxSharing {
				byTok[t] = append(byTok[t], f)
			}
		}
	}
	seen := map[[2]string]bool{}
	var out [][2]string
	for _, fs := range byTok {
		for _, a := range fs {
			for _, b := range fs {
				if a != b && !seen[[2]string{a, b}] {
					seen[[2]string{a, b}] = true
					out = append(out, [2]string{a, b})
				}
			}
		}
	}
	return out
}

func candLess(a, b cand) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.slot != b.slot {
		return a.slot < b.slot
	}
	if a.val != b.val {
		return a.val < b.val
	}
	return a.y < b.y
}

func (c *corpus) candidates() []cand {
	c.candOnce.Do(func() { c.cands = candidatesOf(c.profiles) })
	return c.cands
}

// profileKind names profiles in the parse cache.
const profileKind = "convention.profile"

// corpusKind names mined corpora in the parse cache.
const corpusKind = "convention.corpus"

// loadCorpus returns the corpus of engine in ch's base tree: computed
// once per review, and kept in ch.Cache across reviews under the blob IDs
// of every recipe it was read from (a later review of the same base tree
// reuses it whole, and one of a base tree that differs in a few recipes
// re-reads only those).
func loadCorpus(ctx context.Context, ch *checks.Change, engine script.Engine) (*corpus, error) {
	v, err := ch.Memo("convention.corpus\x00"+string(engine), func() (any, error) {
		paths, err := corpusPaths(ctx, ch, engine)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(paths))
		h := sha1.New()
		fmt.Fprintf(h, "%s\n", engine)
		for i, p := range paths {
			if e, err := ch.Base.Stat(ctx, p); err == nil {
				ids[i] = e.ID
			}
			if ids[i] == "" {
				h = nil
			}
			if h != nil {
				fmt.Fprintf(h, "%s %s\n", p, ids[i])
			}
		}
		key := ""
		if h != nil && ch.Cache != nil {
			key = hex.EncodeToString(h.Sum(nil))
			if v, ok := ch.Cache.Get(corpusKind, key); ok {
				if c, ok := v.(*corpus); ok {
					return c, nil
				}
			}
		}
		c := &corpus{engine: engine}
		for i, p := range paths {
			pr, err := baseProfile(ctx, ch, p, ids[i])
			if err != nil {
				return nil, err
			}
			if pr == nil || pr.engine != engine {
				continue
			}
			c.profiles = append(c.profiles, pr)
		}
		ch.Cache.Put(corpusKind, key, c)
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*corpus), nil
}

// baseProfile returns the profile of base recipe p (blob id), cached by
// blob ID; nil for a script that does not parse.
func baseProfile(ctx context.Context, ch *checks.Change, p, id string) (*profile, error) {
	kind := profileKind + "\x00" + p
	if v, ok := ch.Cache.Get(kind, id); ok {
		pr, _ := v.(*profile)
		return pr, nil
	}
	f, err := recipe.BaseFacts(ctx, ch, p)
	if err != nil {
		if script.IsParseError(err) {
			ch.Cache.Put(kind, id, (*profile)(nil))
			return nil, nil
		}
		return nil, err
	}
	if f == nil {
		return nil, nil
	}
	pr := extract(f, false)
	ch.Cache.Put(kind, id, pr)
	return pr, nil
}

// corpusPaths lists the base recipes that may serve with engine: all but
// deprecated ones and those whose file name names another engine.
func corpusPaths(ctx context.Context, ch *checks.Change, engine script.Engine) ([]string, error) {
	v, err := ch.Memo("convention.recipes", func() (any, error) {
		cfg := recipeConfig(ctx, ch)
		return checks.GlobFiles(ctx, ch.Base, cfg.Paths.Recipes)
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range v.([]checks.Entry) {
		if !deprecated(e.Path) && !recipe.OtherEngineByName(e.Path, engine) {
			out = append(out, e.Path)
		}
	}
	return out, nil
}

// recipeConfig returns the change's configuration, resolving the default
// layout when the caller did not (a Change built outside checks.Review).
func recipeConfig(ctx context.Context, ch *checks.Change) *checks.Config {
	if ch.Config != nil && len(ch.Config.Paths.Recipes) > 0 {
		return ch.Config
	}
	c := &checks.Config{Source: "defaults"}
	if ch.Config != nil {
		cp := *ch.Config
		c = &cp
	}
	if err := c.ResolveLayout(ctx, ch.Base); err != nil || len(c.Paths.Recipes) == 0 {
		c.Paths.Recipes = []string{"benchmarks/**/*.sh"}
	}
	return c
}

// evidence is what a review of one file believes from: the base corpus
// without the file itself and without the siblings the PR changes, which
// count at their head version instead.
type evidence struct {
	profiles []*profile
}

// prHeads returns the head profiles of the recipes the PR adds or
// changes, for engine (deleted and deprecated ones left out), and the base
// paths they replace.
func prHeads(ctx context.Context, ch *checks.Change, engine script.Engine) (heads []*profile, replaced map[string]bool, err error) {
	type res struct {
		heads    []*profile
		replaced map[string]bool
	}
	v, err := ch.Memo("convention.prheads\x00"+string(engine), func() (any, error) {
		cfg := recipeConfig(ctx, ch)
		r := res{replaced: map[string]bool{}}
		for _, fc := range ch.Files {
			if !fc.Changed() || fc.Binary {
				continue
			}
			old := fc.Path
			if fc.OldPath != "" {
				old = fc.OldPath
			}
			if fc.Status != checks.Added {
				r.replaced[old] = true
			}
			if fc.Status == checks.Deleted || !cfg.IsRecipe(fc.Path) || deprecated(fc.Path) {
				continue
			}
			f, err := recipe.HeadFacts(ctx, ch, fc.Path)
			if err != nil {
				if script.IsParseError(err) {
					continue
				}
				return nil, err
			}
			if f == nil || f.Engine != engine {
				continue
			}
			r.heads = append(r.heads, extract(f, true))
		}
		return r, nil
	})
	if err != nil {
		return nil, nil, err
	}
	r := v.(res)
	return r.heads, r.replaced, nil
}

// evidenceFor builds the evidence for reviewing head path p (old its base
// path).
func evidenceFor(c *corpus, heads []*profile, replaced map[string]bool, p, old string) evidence {
	ev := evidence{profiles: make([]*profile, 0, len(c.profiles)+len(heads))}
	for _, pr := range c.profiles {
		if pr.path == p || pr.path == old || replaced[pr.path] {
			continue
		}
		ev.profiles = append(ev.profiles, pr)
	}
	for _, pr := range heads {
		if pr.path != p {
			ev.profiles = append(ev.profiles, pr)
		}
	}
	return ev
}
