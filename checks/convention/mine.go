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
	// followers and exceptions are the witnesses of the shared evidence;
	// skip is the recipe under review, which is not its own evidence
	// (witnesses() leaves it out).
	followers  []Witness
	exceptions []Witness
	skip       string
}

// witnesses returns the followers and the exceptions without the recipe
// under review.
func (s stat) witnesses() (followers, exceptions []Witness) {
	return withoutPath(s.followers, s.skip), withoutPath(s.exceptions, s.skip)
}

func withoutPath(ws []Witness, p string) []Witness {
	if p == "" {
		return ws
	}
	var out []Witness
	for _, w := range ws {
		if w.Path != p {
			out = append(out, w)
		}
	}
	return out
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
func evaluate(c cand, ev []*profile) stat { return tally(c, ev).without(c, nil) }

// famAcc is what the recipes of one family show of a candidate.
type famAcc struct{ xn, xf, cn, cf int }

// add adds (sign 1) or takes out (-1) one recipe's observation.
func (a famAcc) add(o obs, sign int) famAcc {
	return famAcc{a.xn + sign*o.xn, a.xf + sign*o.xf, a.cn + sign*o.cn, a.cf + sign*o.cf}
}

// share is the family's contribution to a stat: whether it does X, its
// follow rate, whether it has alternatives, and their rate of Y.
func (a famAcc) share() (fam int, follow float64, other int, otherFollow float64) {
	if a.xn > 0 {
		fam, follow = 1, float64(a.xf)/float64(a.xn)
	}
	if a.cn > 0 {
		other, otherFollow = 1, float64(a.cf)/float64(a.cn)
	}
	return fam, follow, other, otherFollow
}

// tallied is a candidate's evidence kept per family, so that one recipe
// can be taken out of it: every changed recipe of a PR is judged on the
// evidence of all the others, and tallying it again for each would cost
// the square of the PR's size.
type tallied struct {
	fams map[string]famAcc
	all  stat // over every recipe: sums, witnesses
}

func tally(c cand, ev []*profile) *tallied {
	t := &tallied{fams: map[string]famAcc{}}
	st := &t.all
	for _, p := range ev {
		o := p.observe(c)
		if o.xn == 0 && o.cn == 0 {
			continue
		}
		t.fams[p.family] = t.fams[p.family].add(o, 1)
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
	for _, a := range t.fams {
		fam, follow, other, otherFollow := a.share()
		st.families += fam
		st.follow += follow
		st.others += other
		st.othersFollow += otherFollow
	}
	return t
}

// without returns the stat of the evidence less recipe self (nil: all of
// it).
func (t *tallied) without(c cand, self *profile) stat {
	st := t.all
	if self != nil {
		if o := self.observe(c); o.xn != 0 || o.cn != 0 {
			a := t.fams[self.family]
			f0, fw0, o0, ow0 := a.share()
			f1, fw1, o1, ow1 := a.add(o, -1).share()
			st.families += f1 - f0
			st.follow += fw1 - fw0
			st.others += o1 - o0
			st.othersFollow += ow1 - ow0
			st.skip = self.path
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
	c, err := checks.Shared(ch, corpusKey, string(engine), func() (*corpus, error) {
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
	return c, nil
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
	entries, err := checks.Shared(ch, recipesKey, "", func() ([]checks.Entry, error) {
		cfg := ch.Settings(ctx)
		return checks.GlobFiles(ctx, ch.Base, cfg.Paths.Recipes)
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !checks.InDeprecated(e.Path) && !recipe.OtherEngineByName(e.Path, engine) {
			out = append(out, e.Path)
		}
	}
	return out, nil
}

// evidence is what a review of one file believes from: the base corpus
// without the siblings the PR changes, which count at their head version
// instead, and without the file itself.
type evidence struct {
	*shared
	// self is the file's own head profile (nil when it has none among the
	// PR's heads): in profiles, but not evidence for itself.
	self *profile
}

// shared is the evidence of every changed recipe of one engine, less
// nothing: the corpus without the recipes the PR replaces, then the PR's
// heads. What is computed over it is computed once (tallied, usual) and
// taken the file's own share out of (evidence.stat, evidence.usualWith).
type shared struct {
	profiles []*profile

	mu      sync.Mutex
	tallies map[cand]*tallied
	usual   map[usualKey][2]int
	// heads counts, per X, the PR's heads that suggest each Y; cands of a
	// head are what that head alone suggests.
	heads  map[xkey]map[string]int
	own    map[*profile]map[xkey][]string
	byPath map[string]*profile // the heads
}

type usualKey struct {
	c cand
	z string
}

// each calls f on every profile of the evidence.
func (e evidence) each(f func(*profile)) {
	for _, p := range e.profiles {
		if p != e.self {
			f(p)
		}
	}
}

// find returns the evidence's profile of path p, or nil.
func (e evidence) find(p string) *profile {
	for _, pr := range e.profiles {
		if pr != e.self && pr.path == p {
			return pr
		}
	}
	return nil
}

// stat is evaluate(c) over the evidence.
func (e evidence) stat(c cand) stat {
	e.mu.Lock()
	t := e.tallies[c]
	if t == nil {
		t = tally(c, e.profiles)
		e.tallies[c] = t
	}
	e.mu.Unlock()
	return t.without(c, e.self)
}

// usualWith returns the share of the evidence's instances that do X and
// Y which also have z.
func (e evidence) usualWith(c cand, z string) float64 {
	k := usualKey{c, z}
	e.mu.Lock()
	counts, ok := e.usual[k]
	if !ok {
		for _, p := range e.profiles {
			n, with := p.usualCounts(c, z)
			counts[0] += n
			counts[1] += with
		}
		e.usual[k] = counts
	}
	e.mu.Unlock()
	if e.self != nil {
		n, with := e.self.usualCounts(c, z)
		counts[0] -= n
		counts[1] -= with
	}
	if counts[0] == 0 {
		return 0
	}
	return float64(counts[1]) / float64(counts[0])
}

// prHeads returns the head profiles of the recipes the PR adds or
// changes, for engine (deleted and deprecated ones left out), and the base
// paths they replace.
func prHeads(ctx context.Context, ch *checks.Change, engine script.Engine) (heads []*profile, replaced map[string]bool, err error) {
	r, err := checks.Shared(ch, prHeadsKey, string(engine), func() (prHeadsResult, error) {
		cfg := ch.Settings(ctx)
		r := prHeadsResult{replaced: map[string]bool{}}
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
			if fc.Status == checks.Deleted || !cfg.IsRecipe(fc.Path) || checks.InDeprecated(fc.Path) {
				continue
			}
			f, err := recipe.HeadFacts(ctx, ch, fc.Path)
			if err != nil {
				if script.IsParseError(err) {
					continue
				}
				return prHeadsResult{}, err
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
	return r.heads, r.replaced, nil
}

// sharedEvidence builds the evidence of one engine's changed recipes
// (once per review: see shared).
func sharedEvidence(ctx context.Context, ch *checks.Change, engine script.Engine) (*shared, error) {
	sh, err := checks.Shared(ch, evidenceKey, string(engine), func() (*shared, error) {
		c, err := loadCorpus(ctx, ch, engine)
		if err != nil {
			return nil, err
		}
		heads, replaced, err := prHeads(ctx, ch, engine)
		if err != nil {
			return nil, err
		}
		return newShared(c, heads, replaced), nil
	})
	if err != nil {
		return nil, err
	}
	return sh, nil
}

// newShared is the evidence of corpus c with the PR's heads in place of
// the recipes they replace.
func newShared(c *corpus, heads []*profile, replaced map[string]bool) *shared {
	s := &shared{tallies: map[cand]*tallied{}, usual: map[usualKey][2]int{},
		heads: map[xkey]map[string]int{}, own: map[*profile]map[xkey][]string{}, byPath: map[string]*profile{}}
	s.profiles = make([]*profile, 0, len(c.profiles)+len(heads))
	for _, pr := range c.profiles {
		if !replaced[pr.path] {
			s.profiles = append(s.profiles, pr)
		}
	}
	for _, h := range heads {
		s.profiles = append(s.profiles, h)
		own := indexCands(candidatesOf([]*profile{h}))
		s.own[h] = own
		s.byPath[h.path] = h
		for k, ys := range own {
			if s.heads[k] == nil {
				s.heads[k] = map[string]int{}
			}
			for _, y := range ys {
				s.heads[k][y]++
			}
		}
	}
	return s
}

// evidenceFor is the evidence for reviewing head path p: the shared
// evidence less p's own head.
func evidenceFor(s *shared, p string) evidence {
	return evidence{shared: s, self: s.byPath[p]}
}

// ys returns the Ys the evidence suggests with X (sorted): the corpus's,
// and those of the PR's heads other than the file's own.
func (e evidence) ys(corpus map[xkey][]string, k xkey) []string {
	heads := e.heads[k]
	if len(heads) == 0 {
		return corpus[k]
	}
	mine := map[string]bool{}
	if e.self != nil {
		for _, y := range e.own[e.self][k] {
			mine[y] = true
		}
	}
	have := map[string]bool{}
	out := append([]string(nil), corpus[k]...)
	for _, y := range out {
		have[y] = true
	}
	added := false
	for y, n := range heads {
		if mine[y] {
			n--
		}
		if n > 0 && !have[y] {
			out = append(out, y)
			added = true
		}
	}
	if added {
		sort.Strings(out)
	}
	return out
}

// prHeadsResult is what prHeads shares within a change.
type prHeadsResult struct {
	heads    []*profile
	replaced map[string]bool
}

// The results the convention miner shares within a change, by engine.
var (
	corpusKey   = checks.NewMemoKey[*corpus]("convention.corpus")
	recipesKey  = checks.NewMemoKey[[]checks.Entry]("convention.recipes")
	prHeadsKey  = checks.NewMemoKey[prHeadsResult]("convention.prheads")
	evidenceKey = checks.NewMemoKey[*shared]("convention.evidence")
)
