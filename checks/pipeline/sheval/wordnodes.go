package sheval

import (
	"sync"
	"unsafe"

	"mvdan.cc/sh/v3/syntax"
)

// wordNodes are the nodes of a word an evaluation looks at each time it
// meets the word, found once (the same scripts are evaluated for row
// after row): each list in the order a walk of the word meets them.
type wordNodes struct {
	// substs are the command substitutions outside any other (subRuns).
	substs []*syntax.CmdSubst
	// reads are the parameter expansions outside any command
	// substitution (checkReads).
	reads []*syntax.ParamExp
	// forms are the parameter expansions outside any command or
	// arithmetic substitution (forms), each with the index past those
	// inside it: a walk that stops at one skips them.
	forms []formNode
}

type formNode struct {
	pe  *syntax.ParamExp
	end int
}

// maxWordNodes bounds the words whose nodes are kept, and
// maxWordNodeBytes the bytes their lists and the memo's entries take
// (past either the memo is emptied): a few times the words of every
// script of a review.
const (
	maxWordNodes     = 1 << 15
	maxWordNodeBytes = 4 << 20
)

// wordNodeMemo keeps the nodes of the words evaluations meet, by word
// (the parse cache keeps each script's syntax tree once).
var wordNodeMemo = struct {
	sync.Mutex
	m     map[*syntax.Word]*wordNodes
	bytes int64
}{m: map[*syntax.Word]*wordNodes{}}

// size estimates the bytes an entry of the memo holds: the map slot, the
// struct and its three lists.
func (wn *wordNodes) size() int64 {
	return 48 + int64(unsafe.Sizeof(*wn)) + 8*int64(cap(wn.substs)+cap(wn.reads)) + int64(unsafe.Sizeof(formNode{}))*int64(cap(wn.forms))
}

// WordNodeStats returns the bytes, the entries and the byte budget of the
// process-wide memo of words' nodes, for the App's cache metrics.
func WordNodeStats() (bytes int64, entries int, budget int64) {
	wordNodeMemo.Lock()
	defer wordNodeMemo.Unlock()
	return wordNodeMemo.bytes, len(wordNodeMemo.m), maxWordNodeBytes
}

// nodesOf are w's nodes, read on first use.
func (e *Eval) nodesOf(w *syntax.Word) *wordNodes {
	wordNodeMemo.Lock()
	wn, ok := wordNodeMemo.m[w]
	wordNodeMemo.Unlock()
	if ok {
		return wn
	}
	wn = readWordNodes(w)
	n := wn.size()
	wordNodeMemo.Lock()
	if len(wordNodeMemo.m) >= maxWordNodes || wordNodeMemo.bytes+n > maxWordNodeBytes {
		clear(wordNodeMemo.m)
		wordNodeMemo.bytes = 0
	}
	if _, dup := wordNodeMemo.m[w]; !dup {
		wordNodeMemo.bytes += n
	}
	wordNodeMemo.m[w] = wn
	wordNodeMemo.Unlock()
	return wn
}

// readWordNodes walks w once for what subRuns, checkReads and forms walk
// it for, with their rules for where a walk stops.
func readWordNodes(w *syntax.Word) *wordNodes {
	wn := &wordNodes{}
	syntax.Walk(w, func(n syntax.Node) bool {
		if cs, ok := n.(*syntax.CmdSubst); ok {
			wn.substs = append(wn.substs, cs)
			return false
		}
		if pe, ok := n.(*syntax.ParamExp); ok {
			wn.reads = append(wn.reads, pe)
		}
		return true
	})
	// The forms: every node the walk enters is closed by a nil call after
	// its children; a parameter expansion's closes its stretch of the list.
	var open []int // -1 for a node that is not a parameter expansion
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case nil:
			if i := open[len(open)-1]; i >= 0 {
				wn.forms[i].end = len(wn.forms)
			}
			open = open[:len(open)-1]
			return true
		case *syntax.CmdSubst, *syntax.ArithmExp:
			return false
		case *syntax.ParamExp:
			open = append(open, len(wn.forms))
			wn.forms = append(wn.forms, formNode{pe: n})
			return true
		}
		open = append(open, -1)
		return true
	})
	return wn
}
