package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// A model depends on the whole tree (a launcher may source any file) and
// on the configuration. When the tree names the content of every top-level
// entry (git trees do: blob and tree IDs), the model of one content is
// built once and reused by the next review of the same content — a re-run,
// or the base of the next PR against the same commit — with the rows it
// already resolved. Trees without IDs (directories, fixtures) build afresh.

// modelKind names the kept models in the parse cache.
const modelKind = "pipeline/model/v1"

// maxKeptModels bounds the models kept: each holds every resolved row.
const maxKeptModels = 3

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
		dropped = k.models[0]
		k.fps, k.models = k.fps[1:], k.models[1:]
	}
	kept := slices.Clone(k.models)
	k.mu.Unlock()
	if dropped != nil {
		takeOver(dropped.st, kept)
	}
	k.recharge(cache)
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
	c.files = newTreeFiles(ctx, tree, cache)
	c.eval = &Eval{Files: c.files, Unknown: m.eval.Unknown, MaxStates: m.eval.MaxStates, MaxSteps: m.eval.MaxSteps, MaxDepth: m.eval.MaxDepth}
	return &c
}

// launchFingerprint identifies what models must share for one to take
// another's resolutions: the configuration's layout and pipeline
// settings. It is "" when the tree does not name the content of what a
// launch reads (the templates, the runner lists, the launchers), since
// each taken resolution is checked against those contents. The rest is
// checked per resolution (see fromDonor): the files its evaluations read,
// the job template among them, and the runner groups of its label, so a
// change to one template, one launcher or one runner label re-resolves
// only the rows it concerns.
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
	h := sha256.New()
	h.Write([]byte("launch/v2\x00"))
	if cfg != nil {
		fmt.Fprintf(h, "%+v\x00%+v", cfg.Paths, cfg.Pipeline)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// donor is where a model takes resolutions from: the state of a model
// built from the same launch inputs. live is that model itself when it
// belongs to the same review (the base, for the head), so rows it has not
// resolved yet may be resolved there, once for both.
type donor struct {
	st   *modelState
	live *Model
}

// SetDonor lets m take the resolutions of d's rows that launch the same
// way, when both were built from the same templates, runner list and
// launchers: the head model of a PR that changes a master config reuses
// the base's resolution of every row the PR leaves alone.
func (m *Model) SetDonor(d *Model) {
	if d != nil && d != m && d.st != m.st && m.launchFP != "" && m.launchFP == d.launchFP {
		m.donor = donor{st: d.st, live: d}
	}
}

// keptDonor is the state of a kept model of the same launch inputs, or
// nil: the most recent one that resolved every row, else the one that
// resolved the most. A head model resolves only what its review asks
// for, so the last review's head is a poor donor for the next base,
// while that review's base resolved them all.
func keptDonor(cache *checks.ParseCache, launchFP string) *modelState {
	k := keptIn(cache)
	if k == nil || launchFP == "" {
		return nil
	}
	k.mu.Lock()
	models := slices.Clone(k.models)
	k.mu.Unlock()
	var best *modelState
	bestN := -1
	for i := len(models) - 1; i >= 0; i-- {
		if models[i].launchFP != launchFP {
			continue
		}
		st := models[i].st
		st.mu.Lock()
		all, n := st.all, len(st.res)
		st.mu.Unlock()
		if all {
			return st
		}
		if n > bestN {
			best, bestN = st, n
		}
	}
	return best
}

func sameGroup(a, b RunnerGroup) bool {
	return a.Label == b.Label && a.Name == b.Name && a.Guessed == b.Guessed && slices.Equal(a.Names, b.Names)
}

// rowSig is what a row's launches depend on besides the tree: its job
// kind, runner label and workflow inputs.
func rowSig(r *Row) string {
	return fmt.Sprintf("%d\x00%s\x00%v", r.Kind, r.Label(), r.Inputs)
}

// fromDonor returns the donor's resolution of a row of the same
// signature, when everything it read of the tree still holds here.
func (m *Model) fromDonor(r *Row) *Resolution {
	d := m.donor
	if d.st == nil {
		return nil
	}
	d.st.mu.Lock()
	if d.st.bySig == nil {
		d.st.bySig = make(map[string]*Row, len(d.st.rows))
		for _, dr := range d.st.rows {
			d.st.bySig[rowSig(dr)] = dr
		}
	}
	dr := d.st.bySig[rowSig(r)]
	var dres *Resolution
	if dr != nil {
		dres = d.st.res[dr]
	}
	d.st.mu.Unlock()
	if dr == nil {
		return nil
	}
	if dres == nil {
		if d.live == nil {
			return nil
		}
		dres = d.live.Resolve(dr)
	}
	// The runner groups of the row's label, as this tree lists them.
	groups := m.groups(r)
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
			if res != nil && !holds(res, m.files) {
				return nil
			}
		}
	}
	d.st.mu.Lock() // takeOver moves owners under it
	owner := dres.owner
	d.st.mu.Unlock()
	if owner == nil {
		owner = d.st
	}
	return &Resolution{Row: r, Groups: dres.Groups, owner: owner}
}
