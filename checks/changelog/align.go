package changelog

import (
	"strings"
)

// HeadStatus classifies a head entry against the base.
type HeadStatus int

const (
	// Unchanged: the same text is in base at the matching position.
	Unchanged HeadStatus = iota
	// Appended: new, after every entry that comes from the base.
	Appended
	// Inserted: new, above an entry that comes from the base.
	Inserted
	// Edited: a base entry whose text the PR changed.
	Edited
	// Moved: a base entry's exact text at another position.
	Moved
)

func (s HeadStatus) String() string {
	return [...]string{"unchanged", "appended", "inserted", "edited", "moved"}[s]
}

// Alignment pairs the base's entries with the head's.
type Alignment struct {
	// Head[i] is the status of head entry i; HeadBase[i] its base entry
	// (-1 for appended and inserted entries).
	Head     []HeadStatus
	HeadBase []int
	// BaseHead[j] is the head entry base entry j became, or -1 when the PR
	// deleted it.
	BaseHead []int
}

// Index lists head entries with the given status, in file order.
func (a *Alignment) Index(s HeadStatus) []int {
	var out []int
	for i, st := range a.Head {
		if st == s {
			out = append(out, i)
		}
	}
	return out
}

// New lists the entries the PR adds (appended and inserted), in file order.
func (a *Alignment) New() []int {
	var out []int
	for i, st := range a.Head {
		if st == Appended || st == Inserted {
			out = append(out, i)
		}
	}
	return out
}

// Deleted lists base entries the PR removed.
func (a *Alignment) Deleted() []int {
	var out []int
	for j, h := range a.BaseHead {
		if h < 0 {
			out = append(out, j)
		}
	}
	return out
}

// maxLCSCells bounds the quadratic part of the alignment. Typical PRs
// leave a middle of a few entries once the common prefix and suffix are
// stripped; a PR rewriting hundreds of entries is aligned by unique texts
// instead.
const maxLCSCells = 4 << 20

// Align matches base entries with head entries by their exact text (a
// longest common subsequence after stripping the common prefix and
// suffix), then pairs the leftover entries between two matches as edits
// when they are similar, recognizes entries moved elsewhere, and calls the
// remaining head entries appended (below every entry that comes from the
// base) or inserted (above one).
func Align(base, head []*Entry) *Alignment {
	nb, nh := len(base), len(head)
	a := &Alignment{Head: make([]HeadStatus, nh), HeadBase: make([]int, nh), BaseHead: make([]int, nb)}
	for i := range a.HeadBase {
		a.HeadBase[i] = -1
	}
	for j := range a.BaseHead {
		a.BaseHead[j] = -1
	}
	match := func(j, i int) {
		a.BaseHead[j], a.HeadBase[i], a.Head[i] = i, j, Unchanged
	}
	pre := 0
	for pre < nb && pre < nh && base[pre].Text == head[pre].Text {
		match(pre, pre)
		pre++
	}
	suf := 0
	for suf < nb-pre && suf < nh-pre && base[nb-1-suf].Text == head[nh-1-suf].Text {
		match(nb-1-suf, nh-1-suf)
		suf++
	}
	mb, mh := base[pre:nb-suf], head[pre:nh-suf]
	for _, p := range lcs(mb, mh) {
		match(pre+p[0], pre+p[1])
	}

	// Pair the unmatched entries between consecutive matches as edits.
	unmatchedBase := func(lo, hi int) []int {
		var out []int
		for j := lo; j < hi; j++ {
			if a.BaseHead[j] < 0 {
				out = append(out, j)
			}
		}
		return out
	}
	prevB, prevH := -1, -1
	flush := func(nextB, nextH int) {
		bs := unmatchedBase(prevB+1, nextB)
		cursor := 0
		for i := prevH + 1; i < nextH; i++ {
			if a.HeadBase[i] >= 0 {
				continue
			}
			for k := cursor; k < len(bs); k++ {
				if similar(base[bs[k]], head[i]) {
					a.BaseHead[bs[k]], a.HeadBase[i], a.Head[i] = i, bs[k], Edited
					cursor = k + 1
					break
				}
			}
		}
	}
	for i := 0; i < nh; i++ {
		if a.HeadBase[i] >= 0 && a.Head[i] == Unchanged {
			flush(a.HeadBase[i], i)
			prevB, prevH = a.HeadBase[i], i
		}
	}
	flush(nb, nh)

	// Moves: an unpaired head entry whose exact text is an unpaired base
	// entry's (the LCS could not match it because it changed position).
	byText := map[string][]int{}
	for j := 0; j < nb; j++ {
		if a.BaseHead[j] < 0 {
			byText[base[j].Text] = append(byText[base[j].Text], j)
		}
	}
	if len(byText) > 0 {
		for i := 0; i < nh; i++ {
			if a.HeadBase[i] >= 0 {
				continue
			}
			if js := byText[head[i].Text]; len(js) > 0 {
				a.BaseHead[js[0]], a.HeadBase[i], a.Head[i] = i, js[0], Moved
				byText[head[i].Text] = js[1:]
			}
		}
	}

	// New entries below everything that comes from the base are appended.
	last := -1
	for i := 0; i < nh; i++ {
		if a.HeadBase[i] >= 0 {
			last = i
		}
	}
	for i := 0; i < nh; i++ {
		if a.HeadBase[i] < 0 {
			if i > last {
				a.Head[i] = Appended
			} else {
				a.Head[i] = Inserted
			}
		}
	}
	return a
}

// lcs returns index pairs (base, head) of a longest common subsequence of
// entry texts.
func lcs(b, h []*Entry) [][2]int {
	nb, nh := len(b), len(h)
	if nb == 0 || nh == 0 {
		return nil
	}
	ids := map[string]int32{}
	id := func(s string) int32 {
		v, ok := ids[s]
		if !ok {
			v = int32(len(ids))
			ids[s] = v
		}
		return v
	}
	bi := make([]int32, nb)
	for j, e := range b {
		bi[j] = id(e.Text)
	}
	hi := make([]int32, nh)
	for i, e := range h {
		hi[i] = id(e.Text)
	}
	if nb*nh > maxLCSCells {
		return uniqueMatches(bi, hi)
	}
	// t[j][i] = LCS length of b[j:], h[i:].
	w := nh + 1
	t := make([]int32, (nb+1)*w)
	for j := nb - 1; j >= 0; j-- {
		for i := nh - 1; i >= 0; i-- {
			if bi[j] == hi[i] {
				t[j*w+i] = t[(j+1)*w+i+1] + 1
			} else if x, y := t[(j+1)*w+i], t[j*w+i+1]; x >= y {
				t[j*w+i] = x
			} else {
				t[j*w+i] = y
			}
		}
	}
	var out [][2]int
	for j, i := 0, 0; j < nb && i < nh; {
		switch {
		case bi[j] == hi[i]:
			out = append(out, [2]int{j, i})
			j++
			i++
		case t[(j+1)*w+i] >= t[j*w+i+1]:
			j++
		default:
			i++
		}
	}
	return out
}

// uniqueMatches is the fallback for huge rewrites: match texts that occur
// once on each side, keeping only an increasing run.
func uniqueMatches(b, h []int32) [][2]int {
	count := map[int32]int{}
	posB := map[int32]int{}
	for j, v := range b {
		count[v]++
		posB[v] = j
	}
	seenH := map[int32]int{}
	for _, v := range h {
		seenH[v]++
	}
	var out [][2]int
	lastB := -1
	for i, v := range h {
		if count[v] == 1 && seenH[v] == 1 && posB[v] > lastB {
			out = append(out, [2]int{posB[v], i})
			lastB = posB[v]
		}
	}
	return out
}

// similar decides whether a head entry is an edit of a base entry: they
// share at least half of their value lines (lines that are not bare keys
// and not shared placeholders), or carry the same non-placeholder pr-link.
func similar(b, h *Entry) bool {
	lb, _, okB := b.PRLink()
	lh, _, okH := h.PRLink()
	if okB && okH && lb == lh && lb != "" && !strings.HasSuffix(lb, "XXX") {
		return true
	}
	vb, vh := valueLines(b.Text), valueLines(h.Text)
	if len(vb) == 0 || len(vh) == 0 {
		return false
	}
	count := map[string]int{}
	for _, l := range vb {
		count[l]++
	}
	common := 0
	for _, l := range vh {
		if count[l] > 0 {
			count[l]--
			common++
		}
	}
	longer := len(vb)
	if len(vh) > longer {
		longer = len(vh)
	}
	return 2*common >= longer
}

// valueLines are an entry's lines that carry values, trimmed: key-only
// lines ("- config-keys:", "  description:") say nothing about identity.
func valueLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(strings.TrimPrefix(l, "-"))
		if t == "" || strings.HasSuffix(t, ":") {
			continue
		}
		out = append(out, t)
	}
	return out
}
