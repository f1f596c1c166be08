package convention

// After "Bugs as deviant behavior" (Engler et al., SOSP 2001); the pair
// shapes are in templates.go, the statistics in mine.go.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// CV001 reports a deviation from a mined sibling convention.
var CV001 = &checks.Rule{
	ID:       "CV001",
	Severity: checks.Warning,
	Title:    "Breaks a convention the sibling recipes keep",
	Doc: "Recipes that serve with the same engine mostly agree on how things go together. This rule " +
		"learns such pairings from the base branch, in four shapes only: a component named in a JSON " +
		"object (`kv_connector`, `method`, `backend`) and a key of the same object; a JSON-valued server " +
		"option and a key of its JSON; a server option and a related option of the same command (one " +
		"that shares a word of its name, such as `--tool-call-parser` and `--enable-auto-tool-choice`); " +
		"and a component selected in a case arm or if branch and an environment variable exported or " +
		"unset in that branch. Copies of one model family count once, `deprecated/` recipes not at all, " +
		"and a pairing must hold in nearly every family that does X (a 95% lower bound on the rate) and " +
		"clearly less often elsewhere, so that something every recipe does is not mistaken for a pairing. " +
		"It reports a line this PR adds that does X without Y, or a Y this PR deletes, and stays silent " +
		"where it cannot see (JSON it cannot parse, arrays it cannot resolve). A finding is a warning: " +
		"the bot does not know why the siblings do it. Confirm a belief in `.github/reviewbot.yml` " +
		"(`conventions: {confirmed: [...]}`, IDs from `reviewbot conventions`) to make it blocking. " +
		"Facts a hand-written rule judges (SH002, SH003, SH006, SH013) are left to it.",
	Run:   runCV001,
	After: afterRecipeRules(),
}

// maxPerFile bounds the findings on one file: the strongest beliefs
// first. A file that breaks many mined pairings at once is a rewrite, and
// a wall of warnings would bury the one that matters.
const maxPerFile = 3

// maxCited is how many siblings a finding cites.
const maxCited = 4

func runCV001(p *checks.Pass) error {
	cfg := p.Change.Settings(p.Ctx)
	for _, fc := range p.Change.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || fc.Binary || !cfg.IsRecipe(fc.Path) || checks.InDeprecated(fc.Path) {
			continue
		}
		if err := cv001File(p, fc, cfg); err != nil {
			return err
		}
	}
	return nil
}

// state says how the PR is to blame for a violation.
type state int

const (
	stateNew     state = iota // the PR adds X without Y
	stateRemoved              // the PR deletes the line that had Y
	stateLost                 // X's line changed and Y is gone (no deleted line names it)
)

// violation is one belief broken at one instance of X in the head.
type violation struct {
	c     cand
	st    stat
	state state
	// xLine is X's head line; baseY the base line that had Y;
	// removedLine the deleted base line that names Y.
	xLine, baseY, removedLine int
	// scope groups the violations of one object, JSON value, command or
	// branch ("cmd:90").
	scope string
	obj   *objInst
	js    *jsonInst
}

func cv001File(p *checks.Pass, fc *checks.FileChange, cfg *checks.Config) error {
	ctx, ch := p.Ctx, p.Change
	head, err := recipe.HeadFacts(ctx, ch, fc.Path)
	if err != nil {
		if script.IsParseError(err) {
			return nil // SH014's business
		}
		return err
	}
	if head == nil || head.Engine == script.EngineUnknown {
		return nil
	}
	base, err := recipe.BaseFacts(ctx, ch, fc.Path)
	if err != nil {
		if !script.IsParseError(err) {
			return err
		}
		base = nil
	}
	c, err := loadCorpus(ctx, ch, head.Engine)
	if err != nil {
		return err
	}
	sh, err := sharedEvidence(ctx, ch, head.Engine)
	if err != nil {
		return err
	}
	ev := evidenceFor(sh, fc.Path)
	hp := extract(head, false)
	var bp *profile
	if base != nil && fc.Status != checks.Added {
		bp = extract(base, false)
	}
	j := &judge{p: p, fc: fc, head: head, base: base, hp: hp, bp: bp, ev: ev,
		corpus: c.index(), confirmed: confirmedSet(cfg), memo: map[cand]*stat{}}
	vs := j.violations()
	for _, f := range j.findings(vs) {
		p.Report(f)
	}
	return nil
}

// judge holds what judging one file needs.
type judge struct {
	p          *checks.Pass
	fc         *checks.FileChange
	head, base *script.Facts
	hp, bp     *profile
	ev         evidence
	corpus     map[xkey][]string // the corpus's Ys by X (see ys)
	confirmed  map[string]bool
	memo       map[cand]*stat
}

// belief returns the evidence for c when it is a belief CV001 may report
// on this file.
func (j *judge) belief(c cand) (stat, bool) {
	if judgedBy(c, j.fc.Path) != "" {
		return stat{}, false
	}
	st, ok := j.memo[c]
	if !ok {
		s := j.ev.stat(c)
		st = &s
		if !s.holds(c.t, DefaultThresholds) {
			st = nil
		}
		j.memo[c] = st
	}
	if st == nil {
		return stat{}, false
	}
	return *st, true
}

// violations finds every instance of X in the head that lacks Y where a
// belief says it should have it, and the PR is to blame.
func (j *judge) violations() []violation {
	var out []violation
	// have is what the instance has, for the stand-in test (nil: none).
	try := func(v violation, have map[string]int) {
		st, ok := j.belief(v.c)
		if !ok || have != nil && j.substitute(v.c, have) {
			return
		}
		s, baseY, removed, ok := j.blame(v.c, v.xLine)
		if !ok {
			return
		}
		v.st, v.state, v.baseY, v.removedLine = st, s, baseY, removed
		out = append(out, v)
	}
	for _, o := range j.hp.objs {
		if o.open {
			continue
		}
		for _, y := range j.ev.ys(j.corpus, xkey{tObject, o.slot, o.value}) {
			if !o.has(y) {
				try(violation{c: cand{t: tObject, slot: o.slot, val: o.value, y: y}, xLine: o.line,
					scope: fmt.Sprintf("json:%d", o.cfg.Line), obj: o}, o.keys)
			}
		}
		if !o.arm {
			continue
		}
		for _, y := range j.ev.ys(j.corpus, xkey{tArmEnv, o.slot, o.value}) {
			_, name := envParts(y)
			if _, decided := envDecided(j.head, name, o.path); !decided {
				try(violation{c: cand{t: tArmEnv, slot: o.slot, val: o.value, y: y}, xLine: o.line,
					scope: fmt.Sprintf("env:%d", o.line), obj: o}, nil)
			}
		}
	}
	for _, js := range j.hp.jsons {
		if js.open {
			continue
		}
		scope := fmt.Sprintf("flag:%s:%d", js.flag, js.line)
		if js.cfg != nil {
			scope = fmt.Sprintf("json:%d", js.cfg.Line)
		}
		for _, y := range j.ev.ys(j.corpus, xkey{tFlagJSON, js.flag, ""}) {
			if !js.has(y) {
				try(violation{c: cand{t: tFlagJSON, slot: js.flag, y: y}, xLine: js.line, scope: scope, js: js}, js.keys)
			}
		}
	}
	for _, cm := range j.hp.cmds {
		if cm.open {
			continue
		}
		for _, x := range sortedKeys(cm.flags) {
			for _, y := range j.ev.ys(j.corpus, xkey{tFlagPair, x, ""}) {
				if !cm.has(y) {
					try(violation{c: cand{t: tFlagPair, slot: x, y: y}, xLine: cm.flags[x],
						scope: fmt.Sprintf("cmd:%d", cm.line)}, cm.flags)
				}
			}
		}
	}
	return out
}

// substitute reports whether the head instance has something that may
// stand in for Y: an option or key with the same content words as Y's
// (they differ in words like size, ratio, backend, per rank) that the
// followers do not use: `--hicache-ratio` where the siblings pass
// `--hicache-size`, a renamed key. The bot cannot tell an alternative from
// an omission, so it says nothing. (`--speculative-moe-runner-backend`
// names less than `--speculative-eagle-topk` does: no alternative to it.)
func (j *judge) substitute(c cand, have map[string]int) bool {
	for z := range have {
		if z == c.slot || z == c.y || !nameRelated(z, c.y) || !sameFeature(z, c.y) {
			continue
		}
		if j.usualWith(c, z) < 0.5 {
			return true
		}
	}
	return false
}

// sameFeature reports whether two names have the same content words.
func sameFeature(a, b string) bool {
	ta, tb := contentTokens(a), contentTokens(b)
	if len(ta) != len(tb) {
		return false
	}
	for _, t := range ta {
		found := false
		for _, u := range tb {
			found = found || t == u
		}
		if !found {
			return false
		}
	}
	return true
}

// usualWith returns the share of the evidence's instances that do X and
// Y which also have z.
func (j *judge) usualWith(c cand, z string) float64 { return j.ev.usualWith(c, z) }

// usualCounts counts one recipe's instances that do X and Y, and those of
// them that also have z.
func (p *profile) usualCounts(c cand, z string) (n, with int) {
	switch c.t {
	case tObject:
		for _, o := range p.objs {
			if o.slot == c.slot && o.value == c.val && o.has(c.y) {
				n++
				if o.has(z) {
					with++
				}
			}
		}
	case tFlagJSON:
		for _, js := range p.jsons {
			if js.flag == c.slot && js.has(c.y) {
				n++
				if js.has(z) {
					with++
				}
			}
		}
	case tFlagPair:
		for _, cm := range p.cmds {
			if cm.has(c.slot) && cm.has(c.y) {
				n++
				if cm.has(z) {
					with++
				}
			}
		}
	}
	return n, with
}

// blame decides whether the PR is to blame for X without Y at head line
// xLine: the base version must not have deviated already, and either the
// PR wrote X's line or it deleted the line that had Y.
func (j *judge) blame(c cand, xLine int) (s state, baseY, removed int, ok bool) {
	var bo obs
	if j.bp != nil {
		bo = j.bp.observe(c)
	}
	if bo.xn > bo.xf {
		return 0, 0, 0, false // an old deviation: not this PR's doing
	}
	followed := bo.xn > 0
	removed = j.deletedMention(c, xLine)
	switch {
	case followed && removed > 0:
		return stateRemoved, bo.yLine, removed, true
	case j.fc.IsAdded(xLine) && followed:
		return stateLost, bo.yLine, 0, true
	case j.fc.IsAdded(xLine):
		return stateNew, 0, 0, true
	}
	return 0, 0, 0, false
}

// deletedMention returns the base line the PR deleted that names Y
// nearest to head line xLine (0 when no deleted line names it): the only
// ground for saying "this PR removes Y".
func (j *judge) deletedMention(c cand, xLine int) int {
	best, dist := 0, 0
	for _, h := range j.fc.Hunks {
		next := h.NewStart // the head line a deletion sits before
		for _, l := range h.Lines {
			switch l.Op {
			case checks.OpAdd, checks.OpContext:
				next = l.New + 1
			case checks.OpDelete:
				if !mentions(l.Text, c) {
					continue
				}
				d := next - xLine
				if d < 0 {
					d = -d
				}
				if best == 0 || d < dist {
					best, dist = l.Old, d
				}
			}
		}
	}
	return best
}

// mentions reports whether a line of shell names Y.
func mentions(line string, c cand) bool {
	switch c.t {
	case tFlagPair:
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '(' || r == ')' || r == '"' || r == '\'' }) {
			if strings.HasPrefix(w, "-") && canonFlag(w) == c.y {
				return true
			}
		}
		return false
	case tArmEnv:
		verb, name := envParts(c.y)
		return strings.Contains(line, verb) && containsWord(line, name)
	}
	k := c.y
	return strings.Contains(line, `"`+k+`"`) || strings.Contains(line, `\"`+k+`\"`) ||
		strings.Contains(line, `"`+strings.ReplaceAll(k, "_", "-")+`"`)
}

func containsWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		before := i == 0 || !identChar(s[i-1])
		after := i+len(w) == len(s) || !identChar(s[i+len(w)])
		if before && after {
			return true
		}
		n := strings.Index(s[i+1:], w)
		if n < 0 {
			break
		}
		i += n + 1
	}
	return false
}

func identChar(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// xkey names the X side of candidates, for the index of their Ys.
type xkey struct {
	t         tmpl
	slot, val string
}

// index returns, for each X the corpus has seen, the Ys seen with it.
func (c *corpus) index() map[xkey][]string {
	c.idxOnce.Do(func() { c.idx = indexCands(c.candidates()) })
	return c.idx
}

func indexCands(cs []cand) map[xkey][]string {
	out := map[xkey][]string{}
	for _, c := range cs {
		k := xkey{c.t, c.slot, c.val}
		out[k] = append(out[k], c.y)
	}
	return out
}

// group is the violations one finding reports: each missing Y once, by
// its strongest belief (vs), and every X that implies one (xs).
type group struct {
	vs, all []violation
	xs      []string
	score   float64
	// others are groups elsewhere in the file that break the same
	// beliefs, reported with this one.
	others []group
}

// findings groups the violations (one finding per object, JSON value or
// branch; per command, one per set of related options) and renders the
// strongest.
func (j *judge) findings(vs []violation) []checks.Finding {
	byScope := map[string][]violation{}
	var scopes []string
	for _, v := range vs {
		if j.reportedBefore(v.c) {
			continue
		}
		if _, ok := byScope[v.scope]; !ok {
			scopes = append(scopes, v.scope)
		}
		byScope[v.scope] = append(byScope[v.scope], v)
	}
	var groups []group
	for _, s := range scopes {
		list := byScope[s]
		if strings.HasPrefix(s, "cmd:") {
			groups = append(groups, components(list)...)
			continue
		}
		groups = append(groups, newGroup(list))
	}
	groups = mergeAlike(groups)
	sort.SliceStable(groups, func(a, b int) bool {
		if groups[a].score != groups[b].score {
			return groups[a].score > groups[b].score
		}
		return groups[a].vs[0].xLine < groups[b].vs[0].xLine
	})
	if len(groups) > maxPerFile {
		groups = groups[:maxPerFile]
	}
	var out []checks.Finding
	for _, g := range groups {
		out = append(out, j.render(g))
	}
	return out
}

// mergeAlike merges the groups of one file that break the very same
// beliefs (the same connector config built in two branches, a command
// written twice): one finding naming every place.
func mergeAlike(gs []group) []group {
	sig := func(g group) string {
		var parts []string
		for _, v := range g.vs {
			parts = append(parts, fmt.Sprint(v.c.t, "|", v.c.slot, "|", v.c.val, "|", v.c.y, "|", v.state))
		}
		sort.Strings(parts)
		return strings.Join(parts, "\x00")
	}
	var out []group
	at := map[string]int{}
	for _, g := range gs {
		k := sig(g)
		if i, ok := at[k]; ok {
			out[i].others = append(out[i].others, g)
			continue
		}
		at[k] = len(out)
		out = append(out, g)
	}
	return out
}

func newGroup(vs []violation) group {
	g := group{vs: vs, all: vs, score: -2}
	seen := map[string]bool{}
	for _, v := range vs {
		if v.c.t == tFlagPair && !seen[v.c.slot] {
			seen[v.c.slot] = true
			g.xs = append(g.xs, v.c.slot)
		}
	}
	sort.Strings(g.xs)
	// Each missing Y once, by its strongest belief.
	best := map[string]int{}
	var kept []violation
	for _, v := range vs {
		k := fmt.Sprint(v.c.t, v.c.y)
		if i, ok := best[k]; ok {
			if v.st.score(v.c.t) > kept[i].st.score(kept[i].c.t) {
				kept[i] = v
			}
			continue
		}
		best[k] = len(kept)
		kept = append(kept, v)
	}
	sort.SliceStable(kept, func(a, b int) bool { return kept[a].st.score(kept[a].c.t) > kept[b].st.score(kept[b].c.t) })
	g.vs = kept
	for _, v := range kept {
		if s := v.st.score(v.c.t); s > g.score {
			g.score = s
		}
	}
	return g
}

// components splits one command's violations into sets of related
// options: `--hicache-size` and `--hicache-ratio` both missing
// `--enable-hierarchical-cache` are one finding, and so are three missing
// `--speculative-*` companions of one option.
func components(vs []violation) []group {
	parent := map[string]string{}
	var find func(string) string
	find = func(a string) string {
		if parent[a] == "" || parent[a] == a {
			parent[a] = a
			return a
		}
		r := find(parent[a])
		parent[a] = r
		return r
	}
	for _, v := range vs {
		a, b := find(v.c.slot), find(v.c.y)
		if a != b {
			parent[a] = b
		}
	}
	by := map[string][]violation{}
	var roots []string
	for _, v := range vs {
		r := find(v.c.slot)
		if _, ok := by[r]; !ok {
			roots = append(roots, r)
		}
		by[r] = append(by[r], v)
	}
	var out []group
	for _, r := range roots {
		out = append(out, newGroup(by[r]))
	}
	return out
}

// reportedBefore reports whether a rule that ran earlier already judged
// Y on this file (its finding lists the fact): a second line of defence
// behind the owners table.
func (j *judge) reportedBefore(c cand) bool {
	want := factsOf(c)
	for _, f := range j.p.Prior() {
		if f.Path != j.fc.Path {
			continue
		}
		for _, k := range f.Facts {
			for _, w := range want {
				if k == w || strings.HasPrefix(k, w+"=") {
					return true
				}
			}
		}
	}
	return false
}

// factsOf spells Y as the recipe atoms other rules cite.
func factsOf(c cand) []string {
	switch c.t {
	case tFlagPair:
		return []string{"flag:" + c.y}
	case tArmEnv:
		_, name := envParts(c.y)
		return []string{"env:" + name, "unset:" + name}
	}
	return []string{"json-key:" + c.y, "json:" + c.y}
}

// branchOf describes where an object is written.
func branchOf(p script.Branch) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Kind == script.CondCase || p[i].Kind == script.CondIf {
			return p[i].String()
		}
	}
	return ""
}
