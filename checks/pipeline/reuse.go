package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// A model depends on the whole tree (a launcher may source any file) and
// on the configuration. When the tree names the content of every top-level
// entry (git trees do: blob and tree IDs), the model of one content is
// built once and reused by the next review of the same content — a re-run,
// or the base of the next PR against the same commit — with the rows it
// already resolved. Trees without IDs (directories, fixtures) build afresh.

// modelKind names the kept models in the parse cache.
const modelKind = "pipeline/model/v1"

// maxKeptModels bounds the models kept: each holds every resolved row
// (what they hold is charged to the parse cache, which bounds the bytes).
// The newest keptRecent are the running review's base and head; of the
// others the one that resolved every row is kept before the rest (see
// dropIndex).
const (
	maxKeptModels = 4
	keptRecent    = 2
)

// fingerprint identifies the model's inputs: the IDs of the tree's
// top-level entries and the configuration's layout and env table. It is
// "" when the tree does not name its content.
func fingerprint(ctx context.Context, tree checks.Tree, cfg *checks.Config) string {
	entries, err := tree.ReadDir(ctx, "")
	if err != nil || len(entries) == 0 {
		return ""
	}
	h := sha256.New()
	for _, e := range entries {
		if e.ID == "" {
			return ""
		}
		fmt.Fprintf(h, "%s\x00%s\x00%v\n", e.Path, e.ID, e.IsDir)
	}
	if cfg != nil {
		fmt.Fprintf(h, "%+v\x00%+v", cfg.Paths, cfg.Pipeline)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keptModels is a small LRU of models by fingerprint.
type keptModels struct {
	mu     sync.Mutex
	models []*Model // most recent last
	fps    []string
	bytes  int64 // see recharge
}

func keptIn(cache *checks.ParseCache) *keptModels {
	if cache == nil {
		return nil
	}
	if v, ok := cache.Get(modelKind, "kept"); ok {
		if k, ok := v.(*keptModels); ok {
			return k
		}
	}
	k := &keptModels{}
	cache.Put(modelKind, "kept", k)
	return k
}

// reuse returns the kept model of the same inputs, bound to tree.
func reuse(ctx context.Context, tree checks.Tree, cache *checks.ParseCache, fp string) *Model {
	k := keptIn(cache)
	if k == nil || fp == "" {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, f := range k.fps {
		if f != fp {
			continue
		}
		m := k.models[i]
		// Most recently used last.
		k.fps = append(append(k.fps[:i:i], k.fps[i+1:]...), fp)
		k.models = append(append(k.models[:i:i], k.models[i+1:]...), m)
		return m.rebind(ctx, tree, cache)
	}
	return nil
}

// keptCount is the number of models cache keeps.
func keptCount(cache *checks.ParseCache) int {
	k := keptIn(cache)
	if k == nil {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.models)
}

// keep stores a freshly built model.
func keep(cache *checks.ParseCache, fp string, m *Model) {
	k := keptIn(cache)
	if k == nil || fp == "" {
		return
	}
	m.st.mu.Lock()
	m.st.kept, m.st.cache = k, cache
	// The master configs it holds are the parse cache's entries, charged
	// there: charging them again here evicts what the next review needs.
	m.st.bytes, m.st.unbilled = m.st.stateBytes(), 0
	m.st.mu.Unlock()
	k.mu.Lock()
	k.fps = append(k.fps, fp)
	k.models = append(k.models, m)
	var dropped *Model
	if len(k.fps) > maxKeptModels {
		i := k.dropIndex()
		dropped = k.models[i]
		k.fps, k.models = slices.Delete(k.fps, i, i+1), slices.Delete(k.models, i, i+1)
	}
	kept := slices.Clone(k.models)
	k.mu.Unlock()
	if dropped != nil {
		takeOver(dropped.st, kept)
	}
	k.recharge(cache)
}

// dropIndex is the kept model to let go of: the oldest of those that did
// not resolve every row, else the oldest; never one of the keptRecent
// newest (the running review's). A model that resolved every row is the
// donor the next merge base needs, where a head resolved only what its
// review asked for and a base that no rule resolved holds nothing. k.mu
// is held.
func (k *keptModels) dropIndex() int {
	older := len(k.models) - keptRecent
	for i := 0; i < older; i++ {
		st := k.models[i].st
		st.mu.Lock()
		all := st.all
		st.mu.Unlock()
		if !all {
			return i
		}
	}
	return 0
}

// takeOver moves what a model no longer kept paid for to the kept models
// that share it: the launches they took from it as their donor stay in
// memory, so the first kept model holding each one pays for it now.
func takeOver(gone *modelState, kept []*Model) {
	payer := map[*Launch]*modelState{}
	for _, m := range kept {
		st := m.st
		if st == gone {
			continue
		}
		st.mu.Lock()
		// No kept model takes from it any more: what is not kept is not
		// charged, and must not stay reachable.
		st.donors = slices.DeleteFunc(slices.Clone(st.donors), func(d *modelState) bool { return d == gone })
		if st.live.st == gone {
			st.live = donor{}
		}
		for _, res := range st.res {
			if res.owner != gone {
				continue
			}
			if len(res.Groups) == 0 {
				res.owner = st
				continue
			}
			if p, ok := payer[res.Groups[0]]; ok {
				res.owner = p
				continue
			}
			payer[res.Groups[0]] = st
			res.owner = st
			st.bytes += launchesBytes(res)
		}
		st.mu.Unlock()
	}
}

// rebind is the model read through another tree of the same content:
// what it parsed and resolved is shared, and what it computes from now on
// reads the new tree.
func (m *Model) rebind(ctx context.Context, tree checks.Tree, cache *checks.ParseCache) *Model {
	c := *m
	c.ctx, c.tree, c.cache = ctx, tree, cache
	c.bounds, c.wholeTree, c.bounded = &bounds{}, false, false
	c.files = sheval.NewTreeFiles(ctx, tree, cache)
	c.eval = &Eval{Files: c.files, Unknown: m.eval.Unknown, MaxStates: m.eval.MaxStates, MaxSteps: m.eval.MaxSteps, MaxDepth: m.eval.MaxDepth}
	return &c
}

// launchFingerprint identifies what models must share for one to take
// another's resolutions: the configuration's pipeline settings. It is ""
// when the tree does not name the content of what a launch reads (the
// templates, the runner lists, the launchers), since each taken
// resolution is checked against those contents. The rest is checked per
// resolution (see fromDonor): the files its evaluations read, the job
// template among them, and the runner groups of its label, so a change
// to one template, one launcher or one runner label re-resolves only the
// rows it concerns.
func launchFingerprint(ctx context.Context, tree checks.Tree, cfg *checks.Config, launchers []checks.Entry) string {
	paths := append(append([]string{}, TemplatePaths[SingleNode], TemplatePaths[MultiNode]), runnersPaths...)
	for _, p := range paths {
		if e, err := tree.Stat(ctx, p); err == nil && e.ID == "" || err != nil && !checks.IsNotExist(err) {
			return ""
		}
	}
	for _, e := range launchers {
		if e.ID == "" {
			return ""
		}
	}
	// Only the pipeline settings reach a launch (the job env, the runner
	// machines' variables); the paths locate files the launches do not
	// read, and differ between bases that added one (MODELS.md, waivers).
	h := sha256.New()
	h.Write([]byte("launch/v2\x00"))
	if cfg != nil {
		fmt.Fprintf(h, "%+v", cfg.Pipeline)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// donor is where a model takes resolutions from. live is a model of the
// same review (the base, for the head): rows it has not resolved yet are
// resolved there, once for both. Without one the model takes from the
// kept models of the same launchFP (modelState.donors).
type donor struct {
	st   *modelState
	live *Model
}

// SetDonor lets m take the resolutions of d's rows that launch the same
// way: the head model of a PR that changes a master config reuses the
// base's resolution of every row the PR leaves alone.
func (m *Model) SetDonor(d *Model) {
	if d != nil && d != m && d.st != m.st && m.launchFP != "" && m.launchFP == d.launchFP {
		m.st.mu.Lock()
		if !m.st.all { // a model that resolved every row takes nothing
			m.st.live = donor{st: d.st, live: d}
		}
		m.st.mu.Unlock()
	}
}

// keptDonors are the states of the kept models of the same launchFP, the
// most useful first: those that resolved every row, most recent first,
// then the others by how many rows they resolved. A head model resolves
// only what its review asks for, so the last review's head is a poor
// donor for the next base, while that review's base resolved them all;
// and merge bases do not only move forward (a PR opened last week has
// last week's launchers), so an older base may hold where the newest
// does not.
func keptDonors(cache *checks.ParseCache, launchFP string) []*modelState {
	k := keptIn(cache)
	if k == nil || launchFP == "" {
		return nil
	}
	k.mu.Lock()
	models := slices.Clone(k.models)
	k.mu.Unlock()
	type cand struct {
		st  *modelState
		all bool
		n   int
		age int
	}
	var cs []cand
	for i, m := range models {
		if m.launchFP != launchFP {
			continue
		}
		m.st.mu.Lock()
		cs = append(cs, cand{st: m.st, all: m.st.all, n: len(m.st.res), age: len(models) - i})
		m.st.mu.Unlock()
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		switch {
		case a.all != b.all:
			if a.all {
				return -1
			}
			return 1
		case a.all:
			return a.age - b.age
		default:
			return b.n - a.n
		}
	})
	out := make([]*modelState, len(cs))
	for i, c := range cs {
		out[i] = c.st
	}
	return out
}

// rowSig is what a row's launches depend on besides the tree: its job
// kind, runner label and workflow inputs, as a digest: the model keeps
// one per row.
func rowSig(r *Row) string {
	b := strconv.AppendInt(make([]byte, 0, 4096), int64(r.Kind), 10)
	b = appendSigText(b, r.Label())
	b = appendSigValue(b, r.Inputs, 0)
	sum := sha256.Sum256(b)
	return string(sum[:])
}

// maxSigDepth bounds how deep appendSigValue follows nested inputs; what
// is deeper is printed by fmt.
const maxSigDepth = 16

// appendSigValue appends an encoding of an input value that tells apart
// any two values a workflow could tell apart: each kind tagged, texts
// length-prefixed, a map's keys sorted. (Numbers print as fmt's %v does,
// so an integer and a float of one value are the same input, as they are
// to an expression.)
func appendSigValue(b []byte, v any, depth int) []byte {
	if depth >= maxSigDepth {
		return fmt.Appendf(append(b, '?'), "%#v", v)
	}
	switch v := v.(type) {
	case nil:
		return append(b, 'z')
	case ghexpr.Unknown:
		return append(b, 'u')
	case string:
		return appendSigText(append(b, 's'), v)
	case bool:
		return strconv.AppendBool(append(b, 'b'), v)
	case int:
		return strconv.AppendInt(append(b, 'n'), int64(v), 10)
	case int64:
		return strconv.AppendInt(append(b, 'n'), v, 10)
	case float64:
		return strconv.AppendFloat(append(b, 'n'), v, 'g', -1, 64)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = strconv.AppendInt(append(b, 'm'), int64(len(keys)), 10)
		for _, k := range keys {
			b = appendSigValue(appendSigText(b, k), v[k], depth+1)
		}
		return b
	case []any:
		b = strconv.AppendInt(append(b, 'l'), int64(len(v)), 10)
		for _, x := range v {
			b = appendSigValue(b, x, depth+1)
		}
		return b
	}
	return fmt.Appendf(append(b, '?'), "%#v", v)
}

func appendSigText(b []byte, s string) []byte {
	b = strconv.AppendInt(append(b, ':'), int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

func sameGroup(a, b RunnerGroup) bool {
	return a.Label == b.Label && a.Name == b.Name && a.Guessed == b.Guessed && slices.Equal(a.Names, b.Names)
}

// fromDonor returns a donor's resolution of a row of the same signature,
// when everything it read of the tree still holds here and the row runs
// on the same runner groups: the live donor's, else the first kept
// donor's that holds.
func (m *Model) fromDonor(r *Row) *Resolution {
	m.st.mu.Lock()
	donors, live := m.st.donors, m.st.live
	m.st.mu.Unlock()
	if live.st == nil && len(donors) == 0 {
		return nil
	}
	sig, groups := r.sig, m.groups(r)
	if live.st != nil {
		return m.takeFrom(live.st, live.live, r, sig, groups)
	}
	for _, d := range donors {
		if res := m.takeFrom(d, nil, r, sig, groups); res != nil {
			return res
		}
	}
	return nil
}

// rowBySig returns the state's row of launch signature sig and its
// resolution so far (nil, nil when it has no such row).
func (d *modelState) rowBySig(sig string) (*Row, *Resolution) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bySig == nil {
		d.bySig = make(map[string]*Row, len(d.rows))
		for _, dr := range d.rows {
			d.bySig[dr.sig] = dr
		}
	}
	dr := d.bySig[sig]
	if dr == nil {
		return nil, nil
	}
	return dr, d.res[dr]
}

// resolveAtLiveDonor has the live donor resolve, all at once (see
// ResolveRows), the rows fromDonor would ask it for one by one when
// resolving rows.
func (m *Model) resolveAtLiveDonor(rows []*Row) {
	m.st.mu.Lock()
	live := m.st.live
	m.st.mu.Unlock()
	if live.live == nil {
		return
	}
	var want []*Row
	for _, r := range rows {
		if m.resolved(r) != nil {
			continue
		}
		if dr, dres := live.st.rowBySig(r.sig); dr != nil && dres == nil && !launchDiffers(m, live.live, r, m.groups(r)) {
			want = append(want, dr)
		}
	}
	live.live.ResolveRows(want)
}

// launchDiffers reports whether the live donor d's resolution of r
// cannot hold in m whatever else it reads: the row's job template, or the
// launcher one of its runner groups is named after, differs between the
// two trees. The donor then need not resolve the row for m (takeFrom
// would refuse it); a launcher named otherwise only costs that detour.
func launchDiffers(m, d *Model, r *Row, groups []RunnerGroup) bool {
	if t := m.Templates[r.Kind]; t != nil && m.files.Blob(t.Path) != d.files.Blob(t.Path) {
		return true
	}
	for _, g := range groups {
		p := "runners/launch_" + groupPrefix(g) + ".sh"
		if m.files.Blob(p) != d.files.Blob(p) {
			return true
		}
	}
	return false
}

// takeFrom returns d's resolution of the row of signature sig when it
// holds here and runs on groups (r's runner groups in this tree); live
// is d's model when rows d has not resolved may be resolved there.
func (m *Model) takeFrom(d *modelState, live *Model, r *Row, sig string, groups []RunnerGroup) *Resolution {
	dr, dres := d.rowBySig(sig)
	if dr == nil {
		return nil
	}
	if dres == nil {
		if live == nil || launchDiffers(m, live, r, groups) {
			return nil
		}
		dres = live.Resolve(dr)
	}
	if len(groups) != len(dres.Groups) {
		return nil
	}
	for i, l := range dres.Groups {
		if !sameGroup(l.Group, groups[i]) {
			return nil
		}
		if l.Err != nil || (l.Launcher != "" && l.Result == nil) {
			return nil // what failed may not fail here: resolve it again
		}
		for _, res := range []*Result{l.Step, l.Result} {
			if res != nil && !sheval.Holds(res, m.files) {
				return nil
			}
		}
	}
	d.mu.Lock() // takeOver moves owners under it
	owner := dres.owner
	d.mu.Unlock()
	if owner == nil {
		owner = d
	}
	return &Resolution{Row: r, Groups: dres.Groups, owner: owner}
}
