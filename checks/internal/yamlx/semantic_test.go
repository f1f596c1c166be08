package yamlx

import (
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"identical", "tp: 4\n", "tp: 4\n", true},
		{"comments and spacing", "# head\ntp:   4   # four\n\n", "tp: 4\n", true},
		{"flow vs block", "row: {tp: 4, conc-list: [1, 2]}\n", "row:\n  conc-list:\n  - 1\n  - 2\n  tp: 4\n", true},
		{"key order", "a: 1\nb: 2\n", "b: 2\na: 1\n", true},
		{"string quoting styles", "image: 'vllm/vllm-openai:v1'\n", "image: \"vllm/vllm-openai:v1\"\n", true},
		{"plain vs quoted string", "image: vllm/vllm-openai:v1\n", "image: 'vllm/vllm-openai:v1'\n", true},
		{"int spellings", "tp: 8\n", "tp: 0x8\n", true},
		{"int vs string differs", "tp: 8\n", "tp: \"8\"\n", false},
		{"int vs float differs", "tp: 8\n", "tp: 8.0\n", false},
		{"bool spellings", "multinode: true\n", "multinode: True\n", true},
		{"null spellings", "a: ~\n", "a: null\n", true},
		{"empty value is null", "a:\n", "a: null\n", true},
		{"value differs", "tp: 4\n", "tp: 8\n", false},
		{"list order matters", "l: [1, 2]\n", "l: [2, 1]\n", false},
		{"extra key", "a: 1\n", "a: 1\nb: 2\n", false},
		{"alias expands", "x: &r {tp: 4}\ny: *r\n", "x: {tp: 4}\ny: {tp: 4}\n", true},
		{"merge key expands", "base: &b {tp: 4, ep: 1}\nrow:\n  <<: *b\n  ep: 4\n", "base: {tp: 4, ep: 1}\nrow: {tp: 4, ep: 4}\n", true},
		{"merge list precedence", "a: &a {k: 1}\nb: &b {k: 2}\nc: {<<: [*a, *b]}\n", "a: {k: 1}\nb: {k: 2}\nc: {k: 1}\n", true},
		{"duplicate key last wins", "a: 1\na: 2\n", "a: 2\n", true},
		{"no separator confusion", "a: \"x,b:y\"\n", "a: x\nb: y\n", false},
		{"block scalar", "d: |\n  one\n  two\n", "d: \"one\\ntwo\\n\"\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			da, err := Parse([]byte(tc.a))
			if err != nil {
				t.Fatal(err)
			}
			db, err := Parse([]byte(tc.b))
			if err != nil {
				t.Fatal(err)
			}
			if got := Equal(Root(da), Root(db)); got != tc.same {
				sa, _ := Semantic(Root(da))
				sb, _ := Semantic(Root(db))
				t.Errorf("Equal = %v, want %v\n a: %s\n b: %s", got, tc.same, sa, sb)
			}
		})
	}
}

func TestEqualNil(t *testing.T) {
	if !Equal(nil, nil) {
		t.Error("Equal(nil, nil) = false")
	}
	doc, _ := Parse([]byte("a: 1\n"))
	if Equal(nil, Root(doc)) {
		t.Error("Equal(nil, mapping) = true")
	}
}

func TestSemanticBoundsAliasExpansion(t *testing.T) {
	// Each level doubles the expansion; 40 levels would be 2^40 nodes.
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x]\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("l" + itoa(i) + ": &l" + itoa(i) + " [*l" + itoa(i-1) + ", *l" + itoa(i-1) + "]\n")
	}
	doc, err := Parse([]byte(b.String()))
	if err != nil {
		t.Skipf("parser rejected the document: %v", err)
	}
	if _, ok := Semantic(Root(doc)); ok {
		t.Error("Semantic expanded 2^40 nodes without giving up")
	}
	if Equal(Root(doc), Root(doc)) {
		t.Error("Equal on an over-budget node should answer false (changed)")
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
