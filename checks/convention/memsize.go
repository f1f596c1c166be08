package convention

import "unsafe"

// The parse cache bounds its bytes by what each value says it holds
// (checks.Sizer). A profile keeps its recipe's facts alive, and a corpus
// its profiles: each is charged with them, though the facts and profiles
// are cached entries of their own too, so that no entry can keep memory
// alive that nothing pays for.

// mapSize is the memory of a map's tables: a fixed header and group, and
// slots at about half occupancy.
func mapSize[K comparable, V any](m map[K]V) int64 {
	var k K
	var v V
	return 400 + 2*int64(len(m))*int64(unsafe.Sizeof(k)+unsafe.Sizeof(v))
}

func keysSize(m map[string]int) int64 {
	n := mapSize(m)
	for k := range m {
		n += int64(len(k))
	}
	return n
}

// MemSize estimates the memory of a recipe's profile and its facts.
func (p *profile) MemSize() int64 {
	if p == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*p)) + p.facts.MemSize() + 8*int64(cap(p.objs)+cap(p.jsons)+cap(p.cmds))
	for _, o := range p.objs {
		n += int64(unsafe.Sizeof(*o)) + keysSize(o.keys) + keysSize(o.binds)
	}
	for _, j := range p.jsons {
		n += int64(unsafe.Sizeof(*j)) + keysSize(j.keys)
	}
	for _, c := range p.cmds {
		n += int64(unsafe.Sizeof(*c)) + keysSize(c.flags)
	}
	return n
}

// MemSize estimates the memory of a mined corpus: its profiles, and the
// candidates and index it computes from them (computed here if they were
// not yet: the cache keeps them once they are).
func (c *corpus) MemSize() int64 {
	n := int64(unsafe.Sizeof(*c)) + 8*int64(cap(c.profiles))
	for _, p := range c.profiles {
		n += p.MemSize()
	}
	cands := c.candidates()
	n += int64(cap(cands)) * int64(unsafe.Sizeof(cand{}))
	n += mapSize(c.index())
	for _, ys := range c.index() {
		n += 16 * int64(cap(ys))
	}
	return n
}
