package pipeline

import (
	"slices"
	"unsafe"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// The evaluations (sheval.Memo) and the kept models live in the change's
// parse cache, which bounds its bytes by what each value says it holds.
// Both grow after they are stored (a memo gains an evaluation per new set
// of deciding inputs, a model a resolution per row), so each re-charges
// the cache as it grows. TestMemSizeIsHonest compares the charges with
// the heap they take.

func mapBytes(n int, slot uintptr) int64 { return sheval.MapBytes(n, slot) }

func strBytes(s string) int64 { return sheval.StrBytes(s) }

func envBytes(e Env, seen map[unsafe.Pointer]bool) int64 { return sheval.EnvBytes(e, seen) }

// plainBytes estimates a value of a Point or of a row's inputs: the
// maps, lists, strings and boxed scalars masterconfig.Plain makes.
func plainBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return 16 + strBytes(x)
	case map[string]any:
		n := mapBytes(len(x), 32)
		for k, e := range x {
			n += strBytes(k) + plainBytes(e)
		}
		return n
	case []any:
		n := 24 + 16*int64(cap(x))
		for _, e := range x {
			n += plainBytes(e)
		}
		return n
	}
	return 8
}

func rowBytes(r *Row) int64 {
	n := int64(unsafe.Sizeof(*r)) + 8*int64(cap(r.Concs)) + strBytes(r.File) + strBytes(r.sig) +
		plainBytes(map[string]any(r.Point)) + plainBytes(r.Inputs)
	// The row's key, block and row are the parsed master config's,
	// charged with it.
	return n
}

// resolutionBytes is what a resolution adds to its model: its launches
// and their envs. The evaluations are the memos'.
func resolutionBytes(res *Resolution) int64 {
	if res == nil {
		return 0
	}
	return resolutionHeaderBytes(res) + launchesBytes(res)
}

// resolutionHeaderBytes is a resolution without its launches: what a
// model pays for a resolution whose launches it took from a donor.
func resolutionHeaderBytes(res *Resolution) int64 {
	return int64(unsafe.Sizeof(*res)) + 8*int64(cap(res.Groups))
}

// launchesBytes is a resolution's launches and their envs.
func launchesBytes(res *Resolution) int64 {
	var n int64
	for _, l := range res.Groups {
		n += int64(unsafe.Sizeof(*l)) + strBytes(l.Launcher) + strBytes(l.Group.Label) + strBytes(l.Group.Name) +
			16*int64(cap(l.Group.Names)) + envBytes(l.Env, nil) + envBytes(l.LauncherEnv, nil)
		for _, s := range l.Group.Names {
			n += strBytes(s)
		}
	}
	return n
}

// stateBytes is what a model holds beyond what the parse cache charges
// elsewhere (parsed files, memos) when it is kept: its rows, the
// resolutions and indexes it has so far. Resolve and Reachers add what
// they add to st.bytes. Called with st.mu held.
func (st *modelState) stateBytes() int64 {
	n := mapBytes(len(st.res), 16) + mapBytes(len(st.bySig), 24) + mapBytes(len(st.vocab), 24) + 8*int64(cap(st.rows))
	for _, r := range st.rows {
		n += rowBytes(r)
	}
	for _, res := range st.res {
		if res.owner == nil || res.owner == st {
			n += resolutionBytes(res)
		} else {
			n += resolutionHeaderBytes(res)
		}
	}
	if st.reach != nil {
		n += reachBytes(st.reach)
	}
	for k := range st.bySig {
		n += strBytes(k)
	}
	for k := range st.vocab {
		n += strBytes(k)
	}
	return n
}

// reachBytes is the reverse index of the files rows reach.
func reachBytes(idx map[string][]*Row) int64 {
	n := mapBytes(len(idx), 40)
	for _, rows := range idx {
		n += 8 * int64(cap(rows))
	}
	return n
}

// MemSize is the memory of the kept models (checks.Sizer).
func (k *keptModels) MemSize() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.bytes
}

// EvictedLast keeps the kept models in the parse cache while it holds
// anything else (checks.EvictedLast): they bound themselves to half the
// cache (recharge), and losing them costs the next review every row.
func (k *keptModels) EvictedLast() {}

// recharge measures the kept models again and tells the cache. Over half
// the cache, it lets go of models (dropIndex: a partial one first, never
// the running review's) until they fit; the rest of the cache is for the
// parsed files and launcher evaluations every review reads.
func (k *keptModels) recharge(cache *checks.ParseCache) {
	limit := cache.MaxBytes() / 2
	k.mu.Lock()
	n := k.sum()
	var dropped []*Model
	for limit > 0 && n > limit && len(k.models) > keptRecent {
		i := k.dropIndex()
		dropped = append(dropped, k.models[i])
		k.fps, k.models = slices.Delete(k.fps, i, i+1), slices.Delete(k.models, i, i+1)
		n = k.sum()
	}
	kept := slices.Clone(k.models)
	k.mu.Unlock()
	if len(dropped) > 0 {
		// The kept models now pay for what they shared with those.
		for _, d := range dropped {
			takeOver(d.st, kept)
		}
		k.mu.Lock()
		n = k.sum()
		k.mu.Unlock()
	}
	k.mu.Lock()
	k.bytes = n
	k.mu.Unlock()
	cache.PutSized(modelKind, "kept", k, n)
}

// sum is what the kept models hold. k.mu is held.
func (k *keptModels) sum() int64 {
	var n int64
	for _, m := range k.models {
		m.st.mu.Lock()
		n += m.st.bytes
		m.st.mu.Unlock()
	}
	return n
}
