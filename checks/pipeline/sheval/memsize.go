package sheval

import "unsafe"

// MapBytes is the memory of a map's tables: a fixed header and group,
// and slots at about half occupancy.
func MapBytes(n int, slot uintptr) int64 { return 200 + 3*int64(n)*int64(slot)/2 }

// StrBytes is the memory of a string's bytes.
func StrBytes(s string) int64 { return int64(len(s)) }

// locBytes is 0: a location's file is the path string every location in
// that file shares.
func locBytes(Loc) int64 { return 0 }

// EnvBytes counts an env once per seen (paths and runs of one
// evaluation share their envs); seen may be nil.
func EnvBytes(e Env, seen map[unsafe.Pointer]bool) int64 {
	if e == nil {
		return 0
	}
	if seen != nil {
		p := *(*unsafe.Pointer)(unsafe.Pointer(&e))
		if seen[p] {
			return 0
		}
		seen[p] = true
	}
	n := MapBytes(len(e), unsafe.Sizeof("")+unsafe.Sizeof(Value{}))
	for k, v := range e {
		// Names are the scripts' and the template's, shared by every env.
		_ = k
		n += StrBytes(v.Str) + 16*int64(cap(v.List))
		for _, s := range v.List {
			n += StrBytes(s)
		}
	}
	return n
}

func runBytes(r *Run, seen map[unsafe.Pointer]bool) int64 {
	n := StrBytes(r.Path) + StrBytes(r.Text) + locBytes(r.At) + int64(cap(r.From))*int64(unsafe.Sizeof(Loc{})) + EnvBytes(r.Env, seen)
	for _, l := range r.From {
		n += locBytes(l)
	}
	return n
}

func pathBytes(p *Path, seen map[unsafe.Pointer]bool) int64 {
	n := int64(cap(p.Runs))*int64(unsafe.Sizeof(Run{})) + int64(cap(p.Reqs))*int64(unsafe.Sizeof(Req{})) +
		int64(cap(p.Decisions))*int64(unsafe.Sizeof(Decision{}))
	for i := range p.Runs {
		n += runBytes(&p.Runs[i], seen)
	}
	if p.Exit != nil {
		n += int64(unsafe.Sizeof(*p.Exit)) + locBytes(p.Exit.At) + StrBytes(p.Exit.Code)
	}
	for _, q := range p.Reqs {
		n += StrBytes(q.Var) + StrBytes(q.How) + locBytes(q.At)
	}
	for _, d := range p.Decisions {
		n += locBytes(d.At) + StrBytes(d.label) // the node is the parsed script's, charged with it
	}
	return n
}

// MemSize estimates the memory of one evaluation.
func (r *Result) MemSize() int64 {
	if r == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*r)) + int64(cap(r.Paths))*int64(unsafe.Sizeof(Path{})) + StrBytes(r.EnvSum)
	seen := map[unsafe.Pointer]bool{}
	for i := range r.Paths {
		n += pathBytes(&r.Paths[i], seen)
	}
	n += MapBytes(len(r.Queries), unsafe.Sizeof("")+unsafe.Sizeof(Stat{}))
	for k := range r.Queries {
		n += StrBytes(k)
	}
	n += MapBytes(len(r.Reads), 2*unsafe.Sizeof(""))
	for k, v := range r.Reads {
		n += StrBytes(k) + StrBytes(v)
	}
	n += MapBytes(len(r.Sources), 2*unsafe.Sizeof(""))
	for k, v := range r.Sources {
		n += StrBytes(k) + StrBytes(v)
	}
	n += MapBytes(len(r.Effects), unsafe.Sizeof("")+1)
	for k := range r.Effects {
		n += StrBytes(k)
	}
	n += MapBytes(len(r.Checks), unsafe.Sizeof("")+unsafe.Sizeof(Req{}))
	for k, q := range r.Checks {
		n += StrBytes(k) + StrBytes(q.Var) + StrBytes(q.How) + locBytes(q.At)
	}
	return n
}
