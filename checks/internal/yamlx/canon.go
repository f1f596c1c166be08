package yamlx

import (
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Canonical renders n so that two nodes meaning the same data render
// equally whatever their style: flow or block collections, quoting,
// comments, key order and position do not matter. Master-config rules use
// it to tell a moved or reformatted row from a changed one.
func Canonical(n *yaml.Node) string {
	var b strings.Builder
	canon(&b, n, 0)
	return b.String()
}

// maxCanonDepth bounds recursion on hostile input (deep nesting, alias
// cycles).
const maxCanonDepth = 200

func canon(b *strings.Builder, n *yaml.Node, depth int) {
	if n == nil {
		b.WriteString("~")
		return
	}
	if depth > maxCanonDepth {
		b.WriteString("…")
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			canon(b, c, depth+1)
		}
	case yaml.AliasNode:
		canon(b, n.Alias, depth+1)
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			b.WriteString("~")
			return
		}
		b.WriteString(strconv.Quote(n.Value))
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			canon(b, c, depth+1)
		}
		b.WriteByte(']')
	case yaml.MappingNode:
		type kv struct{ k, v string }
		items := make([]kv, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			var kb, vb strings.Builder
			canon(&kb, n.Content[i], depth+1)
			canon(&vb, n.Content[i+1], depth+1)
			items = append(items, kv{kb.String(), vb.String()})
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].k < items[j].k })
		b.WriteByte('{')
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(it.k)
			b.WriteByte(':')
			b.WriteString(it.v)
		}
		b.WriteByte('}')
	default:
		b.WriteString("?")
	}
}

// Int returns the integer value of a scalar node. Floats, strings that are
// not integers and non-scalars yield ok == false.
func Int(n *yaml.Node) (v int, ok bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	s := strings.ReplaceAll(strings.TrimSpace(n.Value), "_", "")
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return int(i), true
}

// Hash is a 64-bit digest of n's meaning: nodes with equal Canonical forms
// hash equally. It allocates nothing, so parsers can fingerprint every row
// of a large file; unequal nodes collide with negligible probability.
func Hash(n *yaml.Node) uint64 { return hashNode(n, 0) }

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mix is splitmix64's finalizer: it spreads the bits of the order-free sum
// used for mappings.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hashNode(n *yaml.Node, depth int) uint64 {
	if n == nil || depth > maxCanonDepth {
		return 0x9e3779b97f4a7c15
	}
	switch n.Kind {
	case yaml.DocumentNode:
		h := uint64(fnvOffset)
		for _, c := range n.Content {
			h = (h ^ hashNode(c, depth+1)) * fnvPrime
		}
		return h
	case yaml.AliasNode:
		return hashNode(n.Alias, depth+1)
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return 0x9e3779b97f4a7c15
		}
		h := uint64(fnvOffset)
		h = (h ^ 's') * fnvPrime
		for i := 0; i < len(n.Value); i++ {
			h = (h ^ uint64(n.Value[i])) * fnvPrime
		}
		return mix(h)
	case yaml.SequenceNode:
		h := uint64(fnvOffset)
		h = (h ^ 'q') * fnvPrime
		for _, c := range n.Content {
			h = mix(h ^ hashNode(c, depth+1))
		}
		return mix(h + uint64(len(n.Content)))
	case yaml.MappingNode:
		// Key order does not matter: sum the mixed pair digests.
		var sum uint64
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := hashNode(n.Content[i], depth+1)
			v := hashNode(n.Content[i+1], depth+1)
			sum += mix(k*fnvPrime ^ mix(v))
		}
		return mix(sum ^ 'm' ^ uint64(len(n.Content))<<8)
	}
	return 0
}
