package script

import "unsafe"

// MemSize estimates the memory the facts hold, for the parse cache's byte
// bound (checks.Sizer): the script's text, every fact slice at its element
// size, the strings the extractor built (JSON keys, heredoc bodies), the
// branch arrays facts share, and what Atoms and the name index add once
// asked. Substrings of the script cost nothing of their own. The
// estimate is checked against measured heap (TestMemSizeIsHonest).
func (f *Facts) MemSize() int64 {
	if f == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*f)) + int64(len(f.src)) + 8*int64(cap(f.lineStarts))
	n += slice(f.Sets) + slice(f.Vars) + slice(f.Reads) + slice(f.Arith) + slice(f.Comments)
	n += slice(f.EnvChecks) + slice(f.Sources) + slice(f.Patches) + slice(f.Overrides)
	n += slice(f.Images) + slice(f.Git) + slice(f.Masked) + slice(f.Calls) + slice(f.LibCalls) + slice(f.Heredocs) + slice(f.Evals) + slice(f.Strays) + slice(f.BareBraces) + slice(f.NameSubsts)
	for _, s := range f.Sets {
		n += slice(s.Options)
	}
	for _, ns := range f.NameSubsts {
		n += 16 * int64(cap(ns.Args))
	}
	for _, c := range f.EnvChecks {
		n += 16 * int64(len(c.Vars))
	}
	for _, h := range f.Heredocs {
		n += int64(len(h.Body)) // <<- bodies are rebuilt without their tabs
	}
	for _, cmds := range [][]*Command{f.Servers, f.Clients} {
		n += 8 * int64(len(cmds))
		for _, c := range cmds {
			n += int64(unsafe.Sizeof(*c)) + slice(c.Args) + slice(c.Flags) + 16*int64(len(c.Opaque))
			for _, fl := range c.Flags {
				n += int64(len(fl.Value)) // joined numbers, unescaped values
			}
		}
	}
	n += 8 * int64(len(f.JSON))
	for _, j := range f.JSON {
		n += int64(unsafe.Sizeof(*j)) + int64(len(j.Raw)) + slice(j.Entries)
		for _, e := range j.Entries {
			n += int64(len(e.Key)) + int64(len(e.Value))
		}
	}
	n += int64(f.condSlots) * int64(unsafe.Sizeof(Cond{}))
	// Atoms (computed on first use) and the by-name index.
	atoms := 4 + 2*len(f.Vars) + len(f.Sources) + len(f.Patches) + len(f.Overrides)
	for _, j := range f.JSON {
		atoms += 2 * len(j.Entries)
	}
	for _, cmds := range [][]*Command{f.Servers, f.Clients} {
		for _, c := range cmds {
			atoms += 1 + 2*len(c.Flags)
		}
	}
	n += int64(atoms) * int64(unsafe.Sizeof(Atom{})+32)
	n += 48 * int64(len(f.Vars)+len(f.Reads)+len(f.Calls)+len(f.LibCalls))
	// The word counts (Mentions, and MentionsAsName's), built for the
	// scripts a rule asks about: a real script has a distinct word per 20
	// bytes or so, at about 40 bytes an entry, in each map.
	n += 4 * int64(len(f.src))
	return n
}

// slice is the memory of a slice's elements.
func slice[T any](s []T) int64 {
	var zero T
	return int64(cap(s)) * int64(unsafe.Sizeof(zero))
}
