package convention

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

// Thresholds decide when a co-occurrence is a convention.
type Thresholds struct {
	// MinSupport is the number of siblings that must do X (default 3).
	MinSupport int
	// MinConfidence is the fraction of those that must also do Y on the
	// same path (default 0.9).
	MinConfidence float64
}

// DefaultThresholds are the ones CV001 uses (SPEC §4: at least 90% of at
// least 3 siblings).
var DefaultThresholds = Thresholds{MinSupport: 3, MinConfidence: 0.9}

func (t Thresholds) norm() Thresholds {
	if t.MinSupport <= 0 {
		t.MinSupport = DefaultThresholds.MinSupport
	}
	if t.MinConfidence <= 0 || t.MinConfidence > 1 {
		t.MinConfidence = DefaultThresholds.MinConfidence
	}
	return t
}

// meets reports whether num/den ≥ c, tolerating float rounding (9/10
// must meet 0.9).
func meets(num, den int, c float64) bool {
	return den > 0 && float64(num) >= c*float64(den)-1e-9
}

// Group is a sibling group: the recipes of one directory that serve with
// one engine.
type Group struct {
	Dir    string        `json:"dir"`
	Engine recipe.Engine `json:"engine"`
	// Size is the number of recipes in the group (that parse).
	Size int `json:"recipes"`
}

func (g Group) String() string {
	dir := g.Dir
	if dir == "" {
		dir = "."
	}
	return fmt.Sprintf("%s (%s)", dir, g.Engine)
}

// Witness is one sibling's instance of an implication: where it does X
// and, for a follower, the Y that covers it.
type Witness struct {
	Path string `json:"path"`
	// XLine is the line of X (for an exception: the occurrence no Y
	// covers).
	XLine int `json:"x_line"`
	// YLine is the line of the Y covering it (0 for an exception).
	YLine int `json:"y_line,omitempty"`
	// Branch describes the control-flow path of X ("" at top level).
	Branch string `json:"branch,omitempty"`
}

// Implication is a mined convention: every sibling that does X also does
// Y (on the same path, when Local).
type Implication struct {
	Group Group  `json:"group"`
	X     string `json:"x"`
	Y     string `json:"y"`
	// Support is the number of siblings doing X; Followed the number of
	// those in which Y covers every occurrence of X.
	Support  int `json:"support"`
	Followed int `json:"followed"`
	// Confidence is Followed / Support.
	Confidence float64 `json:"confidence"`
	// Local is set when Y is written inside the same branch as X (a case
	// arm, an if branch) in the followers: the convention is then judged
	// per branch, else per file.
	Local bool `json:"local"`
	// Contrast counts the recipes that do neither X nor Y: in the group,
	// or (when every sibling does Y anyway) recipes of the same engine in
	// other directories. It is what makes X ⇒ Y more than "everyone does
	// Y".
	Contrast int `json:"contrast"`
	// Background is set when that contrast comes from other directories:
	// every sibling of the group does Y.
	Background bool      `json:"background,omitempty"`
	Followers  []Witness `json:"followers"`
	Exceptions []Witness `json:"exceptions,omitempty"`
}

// String renders "X ⇒ Y".
func (im Implication) String() string { return im.X + " ⇒ " + im.Y }

// member is one recipe of a group (or of the background).
type member struct {
	path  string
	facts *recipe.Facts
	atoms fileAtoms
}

// bitset is a set of member indexes.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) has(i int) bool { return i >= 0 && i/64 < len(b) && b[i/64]&(1<<(uint(i)%64)) != 0 }

// count returns the size of the set without member ex (ex < 0: none).
func (b bitset) count(ex int) int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	if b.has(ex) {
		n--
	}
	return n
}

// rawWitness is a Witness before its branch is rendered (rendering every
// candidate's witnesses would dominate the cost of mining).
type rawWitness struct {
	xLine, yLine int
	xPath        recipe.Path
}

func (r rawWitness) witness(p string) Witness {
	return Witness{Path: p, XLine: r.xLine, YLine: r.yLine, Branch: branchText(r.xPath)}
}

// pairStat is what mining learned about one candidate X ⇒ Y.
type pairStat struct {
	x, y string
	// doers do X; followers are doers whose every X occurrence a Y
	// covers; related are followers where a covering Y is written with X
	// (same command, same JSON config, or same branch); local are
	// followers where it sits in the same branch.
	doers, followers, related, local bitset
	// bg is the contrast from the background, computed when eval first
	// needs it (nil until then; guarded by the group's bgMu).
	bg *bgStat
}

// bgStat is what the background (same engine, other directories) says
// about a candidate: how many do X, how many of those follow, how many do
// Y, how many do both, how many do neither.
type bgStat struct {
	doers, followers, hasY, both, neither int
}

// mined is a group's mining result, reusable for every file of the group
// (a file under review is left out of its own evidence by eval).
type mined struct {
	group   Group
	members []*member
	vocab   *vocab
	// has maps an atom key to the members doing it.
	has   map[string]bitset
	pairs []*pairStat
	th    Thresholds

	// The background is only consulted for a file-level candidate the
	// group alone cannot decide, so it is parsed on first need: a cold
	// review of one directory must not parse every recipe of the engine.
	// bgPaths are the candidates (recipes outside the group's directory
	// whose file name does not name another engine); the mined result is
	// cached under their blob IDs, so any review holding it reads the same
	// scripts. bgMu guards the loaded state and every pairStat.bg.
	bgPaths  []string
	bgMu     sync.Mutex
	bgLoaded bool
	bg       []*member
}

// index returns the member at path p, or -1.
func (m *mined) index(p string) int {
	for i, mb := range m.members {
		if mb.path == p {
			return i
		}
	}
	return -1
}

// covers reports whether y covers x: where both sit on a control-flow
// path, y's path must cover x's (the export runs whenever the config is
// built); a top-level X or Y is judged per file.
func covers(f *recipe.Facts, y, x occ) bool {
	if len(x.path) == 0 || len(y.path) == 0 {
		return true
	}
	return f.Covers(y.path, x.path)
}

// together reports whether two atoms are written as one piece: parts of
// one command or JSON config, or standalone statements (exports, unsets)
// on neighbouring lines of the same path.
func together(x, y *occ) bool {
	if x.construct != "" || y.construct != "" {
		return x.construct == y.construct
	}
	d := x.line - y.line
	return d >= -2 && d <= 2 && x.pathStr == y.pathStr
}

// follow judges one script: does Y cover every occurrence of X, is a
// covering Y written together with X, and in the same branch? It returns
// the witness to cite.
func follow(f *recipe.Facts, a fileAtoms, x, y string) (followed, related, local bool, w rawWitness) {
	return followOccs(f, a[x], a[y])
}

// followOccs is follow given the occurrences of X and Y.
func followOccs(f *recipe.Facts, xs, ys []occ) (followed, related, local bool, w rawWitness) {
	if len(xs) == 0 {
		return false, false, false, w
	}
	followed, related, local = true, true, true
	w = rawWitness{xLine: xs[0].line, xPath: xs[0].path}
	for i := range xs {
		xo := &xs[i]
		cov, rel, loc := false, false, false
		for k := range ys {
			yo := &ys[k]
			// Both on a branch: Y's path must cover X's, and then Y sits in
			// X's branch (branch-local). Otherwise Y covers X per file.
			branch := len(xo.path) > 0 && len(yo.path) > 0
			if branch && !f.Covers(yo.path, xo.path) {
				continue
			}
			if !cov && i == 0 {
				w.yLine = yo.line
			}
			cov = true
			if branch || together(xo, yo) {
				if !rel && i == 0 {
					w.yLine = yo.line
				}
				rel = true
			}
			if branch {
				loc = true
			}
		}
		if !cov {
			if followed {
				w = rawWitness{xLine: xo.line, xPath: xo.path}
			}
			followed = false
		}
		related = related && rel
		local = local && loc
	}
	if !followed {
		w.yLine = 0
		return false, false, false, w
	}
	return followed, related, local, w
}

// and2Count returns the size of the intersection of two sets.
func and2Count(a, b bitset) int {
	n := 0
	for i := range a {
		n += bits.OnesCount64(a[i] & b[i])
	}
	return n
}

// mine computes the candidate implications of a group. Candidates are
// kept with room for one file to be left out (the file under review),
// so the final thresholds are applied by eval.
//
// Only atoms at least MinSupport siblings do can be either side of an
// implication (a Y must co-occur with that many doers of X), so the work
// is done over those, numbered in key order: co-occurrence is the size
// of a bitset intersection, and each sibling's occurrences are looked up
// by number.
func mine(members []*member, g Group, th Thresholds) *mined {
	th = th.norm()
	n := len(members)
	m := &mined{group: g, members: members, has: map[string]bitset{}, th: th}
	for i, mb := range members {
		for k := range mb.atoms {
			b := m.has[k]
			if b == nil {
				b = newBitset(n)
				m.has[k] = b
			}
			b.set(i)
		}
	}
	keys := make([]string, 0, len(m.has))
	for k, b := range m.has {
		if b.count(-1) >= th.MinSupport {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	nk := len(keys)
	has := make([]bitset, nk)
	subj := make([]string, nk)
	id := make(map[string]int, nk)
	for i, k := range keys {
		has[i], subj[i], id[k] = m.has[k], subject(k), i
	}
	// occs[i*nk+k] are member i's occurrences of keys[k].
	occs := make([][]occ, n*nk)
	for i, mb := range members {
		for k, os := range mb.atoms {
			if j, ok := id[k]; ok {
				occs[i*nk+j] = os
			}
		}
	}
	// Scratch for the candidate being judged; a kept one gets copies.
	followers, related, local := newBitset(n), newBitset(n), newBitset(n)
	var doerList []int
	for xi, x := range keys {
		doers := has[xi]
		s := doers.count(-1)
		// Leaving one file out can at best drop one doer that lacks Y.
		need := int(math.Ceil(th.MinConfidence*float64(s-1) - 1e-9))
		if need < th.MinSupport {
			need = th.MinSupport
		}
		doerList = doerList[:0]
		for i := range members {
			if doers.has(i) {
				doerList = append(doerList, i)
			}
		}
		for yi, y := range keys {
			if yi == xi || and2Count(doers, has[yi]) < need ||
				subj[xi] == subj[yi] || parentKey(x, y) || passedToOccs(occs, nk, doerList, xi, x, y) {
				continue
			}
			clear(followers)
			clear(related)
			clear(local)
			nf := 0
			for d, i := range doerList {
				if nf+len(doerList)-d < need {
					break // cannot reach the support any more: dropped below
				}
				fo, rel, loc, _ := followOccs(members[i].facts, occs[i*nk+xi], occs[i*nk+yi])
				if fo {
					followers.set(i)
					nf++
				}
				if rel {
					related.set(i)
				}
				if loc {
					local.set(i)
				}
			}
			if nf < need {
				continue
			}
			m.pairs = append(m.pairs, &pairStat{x: x, y: y, doers: doers, followers: slices.Clone(followers),
				related: slices.Clone(related), local: slices.Clone(local)})
		}
	}
	return m
}

// backgroundStat returns the background's contrast for a candidate,
// parsing the background on first need (see mined.bgPaths).
func (m *mined) backgroundStat(ctx context.Context, ch *checks.Change, p *pairStat) (bgStat, int, error) {
	m.bgMu.Lock()
	defer m.bgMu.Unlock()
	if !m.bgLoaded {
		var bg []*member
		for _, bp := range m.bgPaths {
			f, err := recipe.BaseFacts(ctx, ch, bp)
			if err != nil {
				if recipe.IsParseError(err) {
					continue
				}
				return bgStat{}, 0, err
			}
			if f != nil && f.Engine == m.group.Engine {
				bg = append(bg, &member{path: f.Path, facts: f, atoms: atomsOf(f, m.vocab)})
			}
		}
		m.bg, m.bgLoaded = bg, true
	}
	if p.bg == nil {
		st := &bgStat{}
		for _, bg := range m.bg {
			_, hx := bg.atoms[p.x]
			_, hy := bg.atoms[p.y]
			switch {
			case hx:
				st.doers++
				if fo, _, _, _ := follow(bg.facts, bg.atoms, p.x, p.y); fo {
					st.followers++
				}
			case !hy:
				st.neither++
			}
			if hy {
				st.hasY++
				if hx {
					st.both++
				}
			}
		}
		p.bg = st
	}
	return *p.bg, len(m.bg), nil
}

// eval applies the thresholds to a candidate with member ex (the file
// under review) left out, or none when ex < 0. ch is the review asking:
// a candidate that needs the background reads it from ch's base tree.
// The implication's Followers and Exceptions are filled by witnesses.
func (m *mined) eval(ctx context.Context, ch *checks.Change, p *pairStat, ex int) (Implication, bool, error) {
	th := m.th
	s := p.doers.count(ex)
	f := p.followers.count(ex)
	if s < th.MinSupport || !meets(f, s, th.MinConfidence) {
		return Implication{}, false, nil
	}
	// Y must be written with X, not just somewhere in the same file:
	// otherwise X ⇒ Y is a coincidence of two independent habits.
	if !meets(p.related.count(ex), s, th.MinConfidence) {
		return Implication{}, false, nil
	}
	local := meets(p.local.count(ex), f, th.MinConfidence)
	// A branch-local pairing is evidence in itself (of all the branches,
	// Y sits in those that do X). A file-level one must beat chance: in a
	// small group, a Y most siblings do is also done by any three of them.
	// When the group alone cannot tell (every sibling does Y), the
	// engine's recipes in other directories may: but there X and Y must
	// go together both ways, or a Y that merely comes with the directory
	// (every agentic recipe has it) would be tied to every X that does too.
	hasY := m.has[p.y]
	n := len(m.members)
	if ex >= 0 && ex < n {
		n--
	}
	k := hasY.count(ex)
	both := 0
	for i := range m.members {
		if i != ex && p.doers.has(i) && hasY.has(i) {
			both++
		}
	}
	contrast := n - (s + k - both)
	background := false
	if !local && !(contrast > 0 && hyperTail(n, k, s, f) <= significance) {
		bg, size, err := m.backgroundStat(ctx, ch, p)
		if err != nil {
			return Implication{}, false, err
		}
		if !(bg.neither > 0 &&
			meets(f+bg.followers, s+bg.doers, th.MinConfidence) &&
			meets(both+bg.both, k+bg.hasY, th.MinConfidence) &&
			hyperTail(n+size, k+bg.hasY, s+bg.doers, f+bg.followers) <= significance) {
			return Implication{}, false, nil
		}
		contrast, background = bg.neither, true
	}
	im := Implication{Group: m.group, X: p.x, Y: p.y, Support: s, Followed: f,
		Confidence: float64(f) / float64(s), Local: local, Contrast: contrast, Background: background}
	im.Group.Size = len(m.members)
	if ex >= 0 && ex < len(m.members) {
		im.Group.Size--
	}
	return im, true, nil
}

// witnesses fills the Followers and Exceptions of im, an implication
// eval made of p with member ex left out. The instance each sibling
// cites is judged again here: keeping one per doer for every candidate
// would cost more than redoing it for the few that make a finding.
func (m *mined) witnesses(im *Implication, p *pairStat, ex int) {
	for i, mb := range m.members {
		if i == ex || !p.doers.has(i) {
			continue
		}
		_, _, _, rw := follow(mb.facts, mb.atoms, p.x, p.y)
		w := rw.witness(mb.path)
		if p.followers.has(i) {
			im.Followers = append(im.Followers, w)
		} else {
			im.Exceptions = append(im.Exceptions, w)
		}
	}
}

// implications evaluates every candidate with member ex left out.
func (m *mined) implications(ctx context.Context, ch *checks.Change, ex int) ([]Implication, error) {
	var out []Implication
	for _, p := range m.pairs {
		im, ok, err := m.eval(ctx, ch, p, ex)
		if err != nil {
			return nil, err
		}
		if ok {
			m.witnesses(&im, p, ex)
			out = append(out, im)
		}
	}
	return out, nil
}

// significance is the chance level a file-level implication must beat:
// the probability that f or more of s siblings drawn at random among the
// group do Y.
const significance = 0.05

// hyperTail is P(X ≥ k) for X hypergeometric: k or more of the n drawn
// from N items of which K are marked.
func hyperTail(N, K, n, k int) float64 {
	if n <= 0 || k <= 0 {
		return 1
	}
	lc := func(a, b int) float64 {
		if b < 0 || b > a {
			return math.Inf(-1)
		}
		x, _ := math.Lgamma(float64(a + 1))
		y, _ := math.Lgamma(float64(b + 1))
		z, _ := math.Lgamma(float64(a - b + 1))
		return x - y - z
	}
	total := lc(N, n)
	p := 0.0
	for i := k; i <= n && i <= K; i++ {
		p += math.Exp(lc(K, i) + lc(N-K, n-i) - total)
	}
	return math.Min(p, 1)
}

// passedTo reports whether y is the flag x's JSON is passed to in every
// sibling doing x ("kv_connector" ⇒ --kv-transfer-config): true by
// construction. occs is mine's table of occurrences (nk keys per
// member), xi the number of x.
func passedToOccs(occs [][]occ, nk int, doers []int, xi int, x, y string) bool {
	if !strings.HasPrefix(x, "json") || !strings.HasPrefix(y, "flag:") {
		return false
	}
	for _, i := range doers {
		for _, o := range occs[i*nk+xi] {
			if o.via != y {
				return false
			}
		}
	}
	return true
}

// loadGroup mines the group of recipe p (its directory, its engine) from
// the base tree: the siblings recipe.Siblings returns plus p's own base
// version. Results are memoized per directory and engine for the review,
// and kept in ch.Cache across reviews under the blob IDs of every script
// they were computed from.
func loadGroup(ctx context.Context, ch *checks.Change, p string, engine recipe.Engine, th Thresholds) (*mined, error) {
	th = th.norm()
	dir := path.Dir(checks.CleanPath(p))
	if dir == "." {
		dir = ""
	}
	key := fmt.Sprintf("convention.group\x00%s\x00%s\x00%d\x00%g", dir, engine, th.MinSupport, th.MinConfidence)
	v, err := ch.Memo(key, func() (any, error) {
		sibs, err := recipe.Siblings(ctx, ch, p)
		if err != nil {
			return nil, err
		}
		var facts []*recipe.Facts
		for _, s := range sibs {
			facts = append(facts, s.Facts)
		}
		if own, err := recipe.BaseFacts(ctx, ch, p); err == nil && own != nil && own.Engine == engine && path.Dir(own.Path) == path.Dir(checks.CleanPath(p)) {
			facts = append(facts, own)
		} else if err != nil && !recipe.IsParseError(err) {
			return nil, err
		}
		sort.Slice(facts, func(i, j int) bool { return facts[i].Path < facts[j].Path })
		bg, err := backgroundPaths(ctx, ch, dir, engine)
		if err != nil {
			return nil, err
		}
		return mineCached(ctx, ch, Group{Dir: dir, Engine: engine}, facts, bg, th), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*mined), nil
}

// backgroundPaths lists the base recipes that may serve with engine
// outside dir: all but those whose file name names another engine. They
// are parsed only if an implication needs them (mined.backgroundStat).
func backgroundPaths(ctx context.Context, ch *checks.Change, dir string, engine recipe.Engine) ([]string, error) {
	v, err := ch.Memo("convention.recipes", func() (any, error) {
		cfg := recipeConfig(ctx, ch)
		return checks.GlobFiles(ctx, ch.Base, cfg.Paths.Recipes)
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range v.([]checks.Entry) {
		d := path.Dir(e.Path)
		if d == "." {
			d = ""
		}
		if d != dir && !recipe.OtherEngineByName(e.Path, engine) {
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

// minedKind names mining results in the parse cache.
const minedKind = "convention.mined"

// mineCached mines a group, reusing a result computed from the very same
// scripts (by blob ID) in an earlier review. bg are the paths of the
// background candidates.
func mineCached(ctx context.Context, ch *checks.Change, g Group, group []*recipe.Facts, bg []string, th Thresholds) *mined {
	id := ""
	if ch.Cache != nil {
		id = blobKey(ctx, ch.Base, g, group, bg, th)
		if v, ok := ch.Cache.Get(minedKind, id); ok {
			if m, ok := v.(*mined); ok {
				return m
			}
		}
	}
	raws := make([]*rawAtoms, len(group))
	for i, f := range group {
		raws[i] = indexRaw(f)
	}
	v := buildVocab(raws)
	members := make([]*member, len(group))
	for i, f := range group {
		members[i] = &member{path: f.Path, facts: f, atoms: atomsOfRaw(raws[i], v)}
	}
	g.Size = len(members)
	m := mine(members, g, th)
	m.vocab = v
	m.bgPaths = bg
	if id != "" {
		ch.Cache.Put(minedKind, id, m)
	}
	return m
}

// blobKey identifies a mining input by the blob IDs of its scripts (the
// group's, and the background candidates'); "" when a tree gives no IDs
// (nothing is cached then).
func blobKey(ctx context.Context, t checks.Tree, g Group, group []*recipe.Facts, bg []string, th Thresholds) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%g\n", g.Dir, g.Engine, th.MinSupport, th.MinConfidence)
	paths := make([]string, 0, len(group)+len(bg))
	for _, f := range group {
		paths = append(paths, f.Path)
	}
	for i, p := range append(paths, bg...) {
		e, err := t.Stat(ctx, p)
		if err != nil || e.ID == "" {
			return ""
		}
		list := 0
		if i >= len(group) {
			list = 1
		}
		fmt.Fprintf(h, "%d %s %s\n", list, p, e.ID)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// GroupResult is the mining result of one sibling group.
type GroupResult struct {
	Group        Group         `json:"group"`
	Implications []Implication `json:"implications"`
}

// MineGroups mines the sibling groups of the recipes directly in dir (of
// every recipe directory when dir is ""), from tree. cfg locates the
// recipes (nil: .github/reviewbot.yml of tree, else the default layout).
// This is what CV001 believes, printed by `reviewbot conventions`.
func MineGroups(ctx context.Context, tree checks.Tree, cfg *checks.Config, dir string, th Thresholds) ([]GroupResult, error) {
	if cfg == nil {
		c, err := checks.LoadConfig(ctx, tree)
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	cp := *cfg
	if err := cp.ResolveLayout(ctx, tree); err != nil {
		return nil, err
	}
	ch := &checks.Change{Base: checks.NewCachedTree(tree), Head: nil, Config: &cp}
	ch.Head = ch.Base
	entries, err := checks.GlobFiles(ctx, ch.Base, cp.Paths.Recipes)
	if err != nil {
		return nil, err
	}
	dir = checks.CleanPath(dir)
	// One representative recipe per (directory, engine).
	type gk struct {
		dir    string
		engine recipe.Engine
	}
	reps := map[gk]string{}
	var order []gk
	for _, e := range entries {
		d := path.Dir(e.Path)
		if d == "." {
			d = ""
		}
		if dir != "" && d != dir {
			continue
		}
		f, err := recipe.BaseFacts(ctx, ch, e.Path)
		if err != nil {
			if recipe.IsParseError(err) {
				continue
			}
			return nil, err
		}
		if f == nil || f.Engine == recipe.EngineUnknown {
			continue
		}
		k := gk{d, f.Engine}
		if _, ok := reps[k]; !ok {
			reps[k] = e.Path
			order = append(order, k)
		}
	}
	if dir != "" && len(order) == 0 {
		if ok, err := isDir(ctx, tree, dir); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("%s: no such directory", dir)
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].dir != order[j].dir {
			return order[i].dir < order[j].dir
		}
		return order[i].engine < order[j].engine
	})
	var out []GroupResult
	for _, k := range order {
		m, err := loadGroup(ctx, ch, reps[k], k.engine, th)
		if err != nil {
			return nil, err
		}
		ims, err := m.implications(ctx, ch, -1)
		if err != nil {
			return nil, err
		}
		sortImplications(ims)
		g := m.group
		g.Size = len(m.members)
		out = append(out, GroupResult{Group: g, Implications: ims})
	}
	return out, nil
}

// Mine returns the implications of the sibling groups in dir (every
// recipe directory when dir is "").
func Mine(ctx context.Context, tree checks.Tree, cfg *checks.Config, dir string, th Thresholds) ([]Implication, error) {
	groups, err := MineGroups(ctx, tree, cfg, dir, th)
	if err != nil {
		return nil, err
	}
	var out []Implication
	for _, g := range groups {
		out = append(out, g.Implications...)
	}
	return out, nil
}

func isDir(ctx context.Context, t checks.Tree, p string) (bool, error) {
	e, err := t.Stat(ctx, p)
	if err != nil {
		if checks.IsNotExist(err) {
			return false, nil
		}
		return false, err
	}
	return e.IsDir, nil
}

// sortImplications orders by X, then strength.
func sortImplications(ims []Implication) {
	sort.SliceStable(ims, func(i, j int) bool {
		a, b := ims[i], ims[j]
		if a.X != b.X {
			return a.X < b.X
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.Support != b.Support {
			return a.Support > b.Support
		}
		return a.Y < b.Y
	})
}

// branchText describes a control-flow path for messages ("" at top
// level).
func branchText(p recipe.Path) string {
	if len(p) == 0 {
		return ""
	}
	return p.String()
}

// Percent renders a confidence as "100%" or "92%".
func Percent(c float64) string { return strconv.Itoa(int(math.Floor(c*100+1e-9))) + "%" }
