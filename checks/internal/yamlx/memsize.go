package yamlx

import (
	"unsafe"

	"gopkg.in/yaml.v3"
)

// NodeMemSize estimates the memory a node tree holds (for the parse
// cache's byte bound): every node, its strings, its child slice. Aliases
// are counted where their anchor is, not again.
func NodeMemSize(n *yaml.Node) int64 {
	if n == nil {
		return 0
	}
	var total int64
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += int64(unsafe.Sizeof(*n)) + int64(len(n.Value)+len(n.Anchor)+len(n.HeadComment)+len(n.LineComment)+len(n.FootComment))
		total += 8 * int64(cap(n.Content))
		if n.Kind != yaml.AliasNode {
			stack = append(stack, n.Content...)
		}
	}
	return total
}

// ChunksMemSize estimates the memory of the chunks of one source: their
// texts share the source's, which they keep alive.
func ChunksMemSize(chunks []Chunk) int64 {
	n := int64(cap(chunks)) * int64(unsafe.Sizeof(Chunk{}))
	for _, c := range chunks {
		n += int64(len(c.Text) + len(c.Key))
	}
	return n
}

// DuplicatesMemSize is the memory of a list of duplicates.
func DuplicatesMemSize(d []Duplicate) int64 {
	n := int64(cap(d)) * int64(unsafe.Sizeof(Duplicate{}))
	for _, x := range d {
		n += int64(len(x.Key))
	}
	return n
}
