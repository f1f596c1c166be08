package convention

import "sort"

// Convention is a readable summary of mined implications: atoms that
// always go together are one class, and an implication that follows from
// two others (A ⇒ B, B ⇒ C gives A ⇒ C) is not repeated.
type Convention struct {
	// X are the antecedent atoms, all equivalent in the group; Y the
	// consequents. Together means X and Y are one class (every sibling
	// doing one does all): Y is empty then.
	X, Y     []string
	Together bool
	// Implication is the strongest implication behind the summary, for its
	// statistics and witnesses.
	Implication Implication
}

// Reduce summarizes the implications of one group.
func Reduce(ims []Implication) []Convention {
	idx := map[string]int{}
	var atoms []string
	id := func(a string) int {
		if i, ok := idx[a]; ok {
			return i
		}
		idx[a] = len(atoms)
		atoms = append(atoms, a)
		return idx[a]
	}
	edge := map[[2]int]Implication{}
	for _, im := range ims {
		x, y := id(im.X), id(im.Y)
		edge[[2]int{x, y}] = im
	}
	parent := make([]int, len(atoms))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for e := range edge {
		if _, back := edge[[2]int{e[1], e[0]}]; back {
			a, b := find(e[0]), find(e[1])
			if a != b {
				parent[a] = b
			}
		}
	}
	members := map[int][]string{}
	for i, a := range atoms {
		r := find(i)
		members[r] = append(members[r], a)
	}
	for _, m := range members {
		sort.Strings(m)
	}
	better := func(a, b Implication) bool {
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.Support != b.Support {
			return a.Support > b.Support
		}
		return a.X+a.Y < b.X+b.Y
	}
	// Class-level edges, each with its strongest implication.
	inside := map[int]Implication{}
	between := map[[2]int]Implication{}
	for e, im := range edge {
		a, b := find(e[0]), find(e[1])
		if a == b {
			if cur, ok := inside[a]; !ok || better(im, cur) {
				inside[a] = im
			}
			continue
		}
		k := [2]int{a, b}
		if cur, ok := between[k]; !ok || better(im, cur) {
			between[k] = im
		}
	}
	out := make([]Convention, 0, len(inside)+len(between))
	for c, im := range inside {
		out = append(out, Convention{X: members[c], Together: true, Implication: im})
	}
	for k, im := range between {
		implied := false
		for mid := range members {
			if mid == k[0] || mid == k[1] {
				continue
			}
			_, ab := between[[2]int{k[0], mid}]
			_, bc := between[[2]int{mid, k[1]}]
			if ab && bc {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, Convention{X: members[k[0]], Y: members[k[1]], Implication: im})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Together != b.Together {
			return a.Together
		}
		if a.X[0] != b.X[0] {
			return a.X[0] < b.X[0]
		}
		if len(a.Y) > 0 && len(b.Y) > 0 && a.Y[0] != b.Y[0] {
			return a.Y[0] < b.Y[0]
		}
		return false
	})
	return out
}
