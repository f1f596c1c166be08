package convention

import (
	"context"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// Belief is one mined implication X ⇒ Y that clears the thresholds.
type Belief struct {
	// ID is how a maintainer names it in .github/reviewbot.yml
	// (conventions.confirmed): "<engine>: X => Y".
	ID       string        `json:"id"`
	Template string        `json:"template"`
	X        string        `json:"x"`
	Y        string        `json:"y"`
	Families int           `json:"families"`
	Followed float64       `json:"followed"`
	Engine   script.Engine `json:"-"`
	// LowerBound is the lower 95% bound on the rate at which families
	// that do X do Y.
	LowerBound float64 `json:"lower_bound"`
	// Others are the families with alternatives to X (other components
	// of the slot, commands without the option) and OthersFollowed their
	// summed rate of Y; Lift the lower 95% bound on how much more often
	// the families that do X do Y. Absent for a JSON option's keys, which
	// have no alternatives.
	Others         int       `json:"others,omitempty"`
	OthersFollowed float64   `json:"others_followed,omitempty"`
	Lift           float64   `json:"lift,omitempty"`
	Score          float64   `json:"score"`
	Confirmed      bool      `json:"confirmed,omitempty"`
	JudgedBy       string    `json:"judged_by,omitempty"`
	Followers      []Witness `json:"followers"`
	Exceptions     []Witness `json:"exceptions,omitempty"`

	c cand
}

// Convention is what `reviewbot conventions` prints as one item: the
// beliefs with one X (or, for options always passed together, one set
// of options), said once.
type Convention struct {
	// Statement and Evidence say it in plain words.
	Statement string `json:"statement"`
	Evidence  string `json:"evidence"`
	// Together lists options that are always passed together (every
	// pair holds both ways).
	Together []string `json:"together,omitempty"`
	// Score is the weakest belief's.
	Score    float64 `json:"score"`
	JudgedBy string  `json:"judged_by,omitempty"`
	// Beliefs are the implications behind it; their IDs are what
	// conventions.confirmed takes.
	Beliefs []Belief `json:"beliefs"`
}

// EngineBeliefs are the conventions of one engine's recipes.
type EngineBeliefs struct {
	Engine      script.Engine `json:"engine"`
	Recipes     int           `json:"recipes"`
	Families    int           `json:"families"`
	Conventions []Convention  `json:"conventions"`
}

func newBelief(engine script.Engine, c cand, st stat, confirmed map[string]bool) Belief {
	b := Belief{ID: beliefID(engine, c), Engine: engine, Template: c.t.String(), X: xText(c), Y: c.y,
		Families: st.families, Followed: round2(st.follow), LowerBound: round2(st.lower), Score: round2(st.score(c.t)),
		Followers: st.followers, Exceptions: st.exceptions, JudgedBy: judgedBy(c, ""), c: c}
	if c.t.hasContrast() {
		b.Others, b.OthersFollowed, b.Lift = st.others, round2(st.othersFollow), round2(st.lift)
	}
	b.Confirmed = confirmed[normID(b.ID)] || confirmed[normID(anyEngineID(b.ID))]
	return b
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// Report is what `reviewbot conventions` prints.
type Report struct {
	Engines []EngineBeliefs `json:"engines"`
	// Unmatched are entries of conventions.confirmed that name no belief
	// held here (a typo, or a belief the recipes no longer support).
	Unmatched []string `json:"unmatched_confirmed,omitempty"`
}

// Mine returns the conventions CV001 holds about tree's recipes, per
// engine, strongest first. cfg locates the recipes and names the
// confirmed beliefs (nil: .github/reviewbot.yml of tree). engine limits
// it to one engine ("": all, and only then are unmatched confirmations
// reported).
func Mine(ctx context.Context, tree checks.Tree, cfg *checks.Config, engine script.Engine) (*Report, error) {
	ch := &checks.Change{Base: checks.NewCachedTree(tree)}
	ch.Head = ch.Base
	if cfg != nil {
		cp := *cfg // resolving the layout must not change the caller's
		ch.Config = &cp
	}
	if err := ch.Configure(ctx, nil); err != nil {
		return nil, err
	}
	engines := []script.Engine{script.VLLM, script.SGLang, script.TRTLLM, script.ATOM}
	if engine != "" {
		engines = []script.Engine{engine}
	}
	confirmed := confirmedSet(ch.Config)
	rep := &Report{}
	matched := map[string]bool{}
	for _, e := range engines {
		c, err := loadCorpus(ctx, ch, e)
		if err != nil {
			return nil, err
		}
		if len(c.profiles) == 0 {
			continue
		}
		fams := map[string]bool{}
		for _, p := range c.profiles {
			fams[p.family] = true
		}
		bs := beliefsOf(c, confirmed)
		for _, b := range bs {
			matched[normID(b.ID)], matched[normID(anyEngineID(b.ID))] = true, true
		}
		rep.Engines = append(rep.Engines, EngineBeliefs{Engine: e, Recipes: len(c.profiles), Families: len(fams),
			Conventions: conventionsOf(bs)})
	}
	if engine == "" {
		for _, id := range ch.Config.Conventions.Confirmed {
			if !matched[normID(id)] {
				rep.Unmatched = append(rep.Unmatched, id)
			}
		}
	}
	return rep, nil
}

// beliefsOf evaluates every candidate of a corpus.
func beliefsOf(c *corpus, confirmed map[string]bool) []Belief {
	var out []Belief
	for _, cd := range c.candidates() {
		st := evaluate(cd, c.profiles)
		if st.holds(cd.t, DefaultThresholds) {
			out = append(out, newBelief(c.engine, cd, st, confirmed))
		}
	}
	return out
}

// conventionsOf groups beliefs for reading: options that hold pairwise
// both ways are one set ("passed together"), and the beliefs that share
// an X (or a set) are one item listing their Ys.
func conventionsOf(bs []Belief) []Convention {
	held := map[cand]int{}
	for i, b := range bs {
		held[b.c] = i
	}
	mutual := func(a, b string) bool {
		_, ab := held[cand{t: tFlagPair, slot: a, y: b}]
		_, ba := held[cand{t: tFlagPair, slot: b, y: a}]
		return ab && ba
	}
	// Sets of options every pair of which holds both ways, grown greedily
	// from the strongest pair.
	setOf := map[string]int{}
	var sets [][]string
	var pairs []Belief
	for _, b := range bs {
		if b.c.t == tFlagPair && mutual(b.c.slot, b.c.y) {
			pairs = append(pairs, b)
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].Score > pairs[j].Score })
	for _, b := range pairs {
		a, y := b.c.slot, b.c.y
		ia, oka := setOf[a]
		iy, oky := setOf[y]
		switch {
		case oka && oky:
		case oka:
			if all(sets[ia], func(m string) bool { return mutual(m, y) }) {
				sets[ia] = append(sets[ia], y)
				setOf[y] = ia
			}
		case oky:
			if all(sets[iy], func(m string) bool { return mutual(m, a) }) {
				sets[iy] = append(sets[iy], a)
				setOf[a] = iy
			}
		default:
			setOf[a], setOf[y] = len(sets), len(sets)
			sets = append(sets, []string{a, y})
		}
	}
	type gkey struct {
		t         tmpl
		slot, val string
		set       int
	}
	groups := map[gkey]*Convention{}
	var order []gkey
	for _, b := range bs {
		k := gkey{t: b.c.t, slot: b.c.slot, val: b.c.val, set: -1}
		if b.c.t == tFlagPair {
			if i, ok := setOf[b.c.slot]; ok && setOf[b.c.y] == i && contains(sets[i], b.c.y) {
				k = gkey{t: tFlagPair, set: i}
			}
		}
		g := groups[k]
		if g == nil {
			g = &Convention{}
			groups[k] = g
			order = append(order, k)
		}
		g.Beliefs = append(g.Beliefs, b)
	}
	var out []Convention
	for _, k := range order {
		g := groups[k]
		sort.SliceStable(g.Beliefs, func(i, j int) bool { return g.Beliefs[i].Y < g.Beliefs[j].Y })
		weakest := g.Beliefs[0]
		for _, b := range g.Beliefs {
			if b.Score < weakest.Score {
				weakest = b
			}
			if b.JudgedBy != "" {
				g.JudgedBy = b.JudgedBy
			}
		}
		g.Score = weakest.Score
		if k.set >= 0 {
			g.Together = append([]string(nil), sets[k.set]...)
			sort.Strings(g.Together)
			g.Statement = togetherStatement(g.Together)
			g.Evidence = evidenceText(weakest.c, statOf(weakest)) + " (The figures are those of the least supported pair.)"
		} else {
			var ys []string
			for _, b := range g.Beliefs {
				ys = append(ys, b.Y)
			}
			g.Statement = statementMany(weakest.c, ys)
			g.Evidence = evidenceText(weakest.c, statOf(weakest))
			if len(ys) > 1 {
				g.Evidence += " (The figures are those of the least supported of them.)"
			}
		}
		out = append(out, *g)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

func all(xs []string, f func(string) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// statOf rebuilds the figures of a belief for its sentence.
func statOf(b Belief) stat {
	return stat{families: b.Families, follow: b.Followed, others: b.Others, othersFollow: b.OthersFollowed, lower: b.LowerBound, lift: b.Lift}
}

// beliefID names a belief for the configuration: "<engine>: X => Y".
func beliefID(engine script.Engine, c cand) string {
	return string(engine) + ": " + xText(c) + " => " + c.y
}

// xText spells X: the option, or the option, identity key and component
// ("--kv-transfer-config kv_connector=LMCacheMPConnector").
func xText(c cand) string {
	switch c.t {
	case tObject, tArmEnv:
		return c.slot + "=" + c.val
	}
	return c.slot
}

// normID normalizes a belief ID as a maintainer may type it: ⇒ for =>,
// runs of blanks, the engine's case.
func normID(s string) string {
	s = strings.ReplaceAll(s, "⇒", "=>")
	s = strings.Join(strings.Fields(s), " ")
	if e, rest, ok := strings.Cut(s, ": "); ok && !strings.Contains(e, " ") {
		s = strings.ToLower(e) + ": " + rest
	}
	return s
}

// anyEngineID drops the engine of an ID: a confirmed entry without one
// confirms the belief for every engine.
func anyEngineID(id string) string {
	if _, rest, ok := strings.Cut(id, ": "); ok {
		return rest
	}
	return id
}

// confirmedSet returns the normalized IDs a configuration confirms.
func confirmedSet(cfg *checks.Config) map[string]bool {
	out := map[string]bool{}
	if cfg == nil {
		return out
	}
	for _, s := range cfg.Conventions.Confirmed {
		out[normID(s)] = true
	}
	return out
}
