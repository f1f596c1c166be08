package masterconfig

import (
	"unsafe"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// The parse cache bounds its bytes by what each value says it holds
// (checks.Sizer): these count the model's structures and strings, which
// TestMemSizeIsHonest compares with the heap they take.

// mapSize is the memory of a map's tables: a fixed header and group, and
// slots at about half occupancy.
func mapSize[K comparable, V any](m map[K]V) int64 {
	var k K
	var v V
	return 400 + 2*int64(len(m))*int64(unsafe.Sizeof(k)+unsafe.Sizeof(v))
}

// MemSize estimates the memory the parsed master config holds.
func (f *File) MemSize() int64 {
	if f == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*f)) + yamlx.DuplicatesMemSize(f.Duplicates) + 8*int64(cap(f.Keys)) + mapSize(f.index)
	if f.Err != nil {
		n += int64(unsafe.Sizeof(*f.Err)) + int64(len(f.Err.Msg))
	}
	for _, k := range f.Keys {
		n += k.memSize()
	}
	return n
}

// plainSize estimates the memory of a value Plain made: maps, lists,
// strings and boxed scalars. Plain bounds how deep values nest, and so
// this recursion.
func plainSize(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return 16 + int64(len(x))
	case map[string]any:
		n := mapSize(x)
		for k, e := range x {
			n += int64(len(k)) + plainSize(e)
		}
		return n
	case []any:
		n := 24 + 16*int64(cap(x))
		for _, e := range x {
			n += plainSize(e)
		}
		return n
	}
	return 8 // a boxed int, float or bool
}

// rawSize is the memory of a key's, block's or row's Raw settings and
// the Lines beside them (whose names are Raw's own strings).
func rawSize(raw map[string]any, lines map[string]int) int64 {
	n := plainSize(raw)
	if lines != nil {
		n += mapSize(lines)
	}
	return n
}

func (k *Key) memSize() int64 {
	n := int64(unsafe.Sizeof(*k)) + rawSize(k.Raw, k.Lines) + int64(len(k.Name)+len(k.Image.Value)+len(k.Model.Value)+len(k.ModelPrefix.Value)+
		len(k.Runner.Value)+len(k.Precision.Value)+len(k.Framework.Value)) + 8*int64(cap(k.Scenarios))
	for _, s := range k.Scenarios {
		n += int64(unsafe.Sizeof(*s)) + 8*int64(cap(s.Rows)) + rawSize(s.Raw, nil)
		for _, r := range s.Rows {
			n += int64(unsafe.Sizeof(*r)) + rawSize(r.Raw, r.Lines) + 8*int64(cap(r.Conc)) + int64(len(r.TP)+len(r.EP)+len(r.DPAttn)+
				len(r.SpecDecoding)+len(r.KVOffloading)+len(r.KVBackend)+len(r.Router)+len(r.ConcProblem))
			for _, w := range []*Worker{r.Prefill, r.Decode} {
				if w != nil {
					n += int64(unsafe.Sizeof(*w)) + int64(len(w.NumWorker)+len(w.TP)+len(w.EP)+len(w.DPAttn)) + mapSize(w.Lines) +
						int64(cap(w.Settings))*int64(unsafe.Sizeof(Setting{}))
					for _, st := range w.Settings {
						n += int64(len(st.Value))
					}
				}
			}
		}
	}
	return n
}

// MemSize estimates the memory of one cached top-level key.
func (pc *parsedChunk) MemSize() int64 {
	return int64(unsafe.Sizeof(*pc)) + int64(len(pc.text)) + pc.key.memSize() + yamlx.DuplicatesMemSize(pc.dups)
}

// MemSize estimates the memory the parsed MODELS.md policy holds.
func (p *Policy) MemSize() int64 {
	if p == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*p)) + int64(p.srcLen) + int64(cap(p.Deprecations))*int64(unsafe.Sizeof(Deprecation{})) +
		int64(cap(p.Arms))*int64(unsafe.Sizeof(ArmDeprecation{}))
	for _, d := range p.Deprecations {
		n += int64(len(d.Model) + len(d.Scenario) + len(d.Precision) + len(d.Source))
	}
	for _, a := range p.Arms {
		n += int64(len(a.Model) + len(a.Arm) + len(a.Published))
	}
	n += mapSize(p.Prefixes) + mapSize(p.scenarios) + mapSize(p.byLen) + mapSize(p.groups)
	for k := range p.Prefixes {
		n += int64(len(k))
	}
	for k, v := range p.scenarios {
		n += int64(len(k) + len(v))
	}
	for _, v := range p.byLen {
		n += int64(len(v))
	}
	for k, v := range p.groups {
		n += int64(len(k.model)+len(k.scenario)+len(k.precision)) + int64(unsafe.Sizeof(*v)) + 8*int64(cap(v.Lines))
		for _, s := range v.Sources {
			n += 16 + int64(len(s))
		}
	}
	return n
}
