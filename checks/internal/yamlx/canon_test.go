package yamlx

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func parseRoot(t *testing.T, src string) *yaml.Node {
	t.Helper()
	doc, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return Root(doc)
}

// TestCanonicalForms checks Canonical, Hash and Equal against one table:
// the three must agree on every pair.
func TestCanonicalForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"identical", "tp: 4\n", "tp: 4\n", true},
		{"comments and spacing", "# head\ntp:   4   # four\n\n", "tp: 4\n", true},
		{"flow vs block", "row: {tp: 4, conc-list: [1, 2]}\n", "row:\n  conc-list:\n  - 1\n  - 2\n  tp: 4\n", true},
		{"nested flow", "{ b: { name: x }, l: [1, 2] }", "b:\n  name: x\nl:\n- 1\n- 2\n", true},
		{"key order", "a: 1\nb: 2\n", "b: 2\na: 1\n", true},
		{"string quoting styles", "image: 'vllm/vllm-openai:v1'\n", "image: \"vllm/vllm-openai:v1\"\n", true},
		{"plain vs quoted string", "image: vllm/vllm-openai:v1\n", "image: 'vllm/vllm-openai:v1'\n", true},
		{"int spellings", "tp: 8\n", "tp: 0x8\n", true},
		{"int sign", "tp: +8\n", "tp: 8\n", true},
		{"negative zero", "tp: -0\n", "tp: 0\n", true},
		{"octal", "tp: 0o10\n", "tp: 8\n", true},
		{"int vs string differs", "tp: 8\n", "tp: \"8\"\n", false},
		{"int vs single-quoted differs", "{ spec: mtp, tp: '8' }", "{ spec: \"mtp\", tp: 8 }", false},
		{"int vs float differs", "tp: 8\n", "tp: 8.0\n", false},
		{"float spellings", "u: 0.50\n", "u: 0.5\n", true},
		{"float exponent", "u: 5e-1\n", "u: 0.5\n", true},
		{"bool spellings", "multinode: true\n", "multinode: True\n", true},
		{"bool vs string differs", "multinode: true\n", "multinode: 'true'\n", false},
		{"null spellings", "a: ~\n", "a: null\n", true},
		{"empty value is null", "a:\n", "a: null\n", true},
		{"null vs empty string differs", "a: ''\n", "a: ~\n", false},
		{"value differs", "tp: 4\n", "tp: 8\n", false},
		{"list order matters", "l: [1, 2]\n", "l: [2, 1]\n", false},
		{"nesting matters", "[[1], 2]", "[1, [2]]", false},
		{"extra key", "a: 1\n", "a: 1\nb: 2\n", false},
		{"key vs value", "{a: 1, b: 2}", "{a: 2, b: 1}", false},
		{"alias expands", "x: &r {tp: 4}\ny: *r\n", "x: {tp: 4}\ny: {tp: 4}\n", true},
		{"merge key expands", "base: &b {tp: 4, ep: 1}\nrow:\n  <<: *b\n  ep: 4\n", "base: {tp: 4, ep: 1}\nrow: {tp: 4, ep: 4}\n", true},
		{"merge list precedence", "a: &a {k: 1}\nb: &b {k: 2}\nc: {<<: [*a, *b]}\n", "a: {k: 1}\nb: {k: 2}\nc: {k: 1}\n", true},
		{"quoted << is a key", "a: &a {k: 1}\nc: {'<<': *a}\n", "a: {k: 1}\nc: {k: 1}\n", false},
		{"duplicate key last wins", "a: 1\na: 2\n", "a: 2\n", true},
		{"no separator confusion", "a: \"x,b:y\"\n", "a: x\nb: y\n", false},
		{"kind and text do not run together", "a: '1'\n", "a: 1\n", false},
		{"block scalar", "d: |\n  one\n  two\n", "d: \"one\\ntwo\\n\"\n", true},
		{"timestamp spellings", "d: 2026-08-21\n", "d: 2026-08-21T00:00:00Z\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := parseRoot(t, tc.a), parseRoot(t, tc.b)
			sa, okA := Canonical(a)
			sb, okB := Canonical(b)
			if !okA || !okB {
				t.Fatalf("over budget: %v %v", okA, okB)
			}
			if (sa == sb) != tc.same {
				t.Errorf("Canonical equal = %v, want %v\n a: %s\n b: %s", sa == sb, tc.same, sa, sb)
			}
			ha, _ := Hash(a)
			hb, _ := Hash(b)
			if (ha == hb) != tc.same {
				t.Errorf("Hash equal = %v, want %v\n a: %s\n b: %s", ha == hb, tc.same, sa, sb)
			}
			if got := Equal(a, b); got != tc.same {
				t.Errorf("Equal = %v, want %v", got, tc.same)
			}
		})
	}
}

func TestCanonicalNil(t *testing.T) {
	if s, ok := Canonical(nil); s != "~" || !ok {
		t.Errorf("Canonical(nil) = %q, %v", s, ok)
	}
	if !Equal(nil, nil) {
		t.Error("Equal(nil, nil) = false")
	}
	if Equal(nil, parseRoot(t, "a: 1\n")) {
		t.Error("Equal(nil, mapping) = true")
	}
	// An empty value and an absent one are both null.
	if !Equal(nil, parseRoot(t, "~")) {
		t.Error("Equal(nil, ~) = false")
	}
}

// TestHashDistinguishesStructure hashes many small documents that differ
// only in structure: no two may collide.
func TestHashDistinguishesStructure(t *testing.T) {
	seen := map[uint64]string{}
	for _, src := range []string{"a: 1", "a: [1]", "[a, 1]", "a: {1: ~}", "{a: 1, b: 2}", "{a: 2, b: 1}", "a: 12", "a1: 2",
		"[1, 2]", "[2, 1]", "[[1], 2]", "[1, [2]]", "a: ''", "a: ~", "{a: {a: 1}}", "{a: 1, a2: 1}", "[]", "{}", "[[]]",
		"[~]", "'1'", "1", "1.0", "true", "'true'", "{1: a}", "{'1': a}"} {
		h, ok := Hash(parseRoot(t, src))
		if !ok {
			t.Fatalf("%q: over budget", src)
		}
		if prev, dup := seen[h]; dup {
			t.Errorf("%q and %q hash equally", prev, src)
		}
		seen[h] = src
	}
}

func TestCanonicalAliasCycleTerminates(t *testing.T) {
	for _, src := range []string{"a: &x [1, *x]\n", "a: &x {b: *x}\n", "a: &x {<<: *x, b: 1}\n"} {
		doc, err := Parse([]byte(src))
		if err != nil {
			continue // yaml.v3 may reject the cycle; either way nothing hangs
		}
		_, _ = Canonical(Root(doc))
		_, _ = Hash(Root(doc))
		_ = Equal(Root(doc), Root(doc))
	}
}

// aliasBomb doubles the expansion at each of levels anchors.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x]\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("l" + itoa(i) + ": &l" + itoa(i) + " [*l" + itoa(i-1) + ", *l" + itoa(i-1) + "]\n")
	}
	return b.String()
}

func TestCanonicalBoundsAliasExpansion(t *testing.T) {
	src := aliasBomb(40) // 2^40 nodes expanded
	doc, err := Parse([]byte(src))
	if err != nil {
		t.Skipf("parser rejected the document: %v", err)
	}
	if _, ok := Canonical(Root(doc)); ok {
		t.Error("Canonical expanded 2^40 nodes without giving up")
	}
	if _, ok := Hash(Root(doc)); ok {
		t.Error("Hash expanded 2^40 nodes without giving up")
	}
	if Equal(Root(doc), Root(doc)) {
		t.Error("Equal on an over-budget node should answer false (changed)")
	}
	// A shared budget is spent across calls: the second walk of the same
	// bomb gets nothing.
	c := NewCanon(BudgetFor(len(src)))
	if _, ok := c.Hash(Root(doc)); ok {
		t.Error("Canon.Hash within BudgetFor(len(src))")
	}
	if _, ok := c.Hash(parseRoot(t, "a: 1")); ok {
		t.Error("a spent Canon still reports ok")
	}
}

func TestCanonSharedBudget(t *testing.T) {
	n := parseRoot(t, "{a: 1, b: [1, 2, 3]}") // 1 + 2*2 + 3 = 8 nodes
	c := NewCanon(16)
	if _, ok := c.Hash(n); !ok {
		t.Fatal("first walk over budget")
	}
	if _, ok := c.Hash(n); !ok {
		t.Fatal("second walk over budget")
	}
	if _, ok := c.Hash(n); ok {
		t.Error("third walk fits a budget of two")
	}
}

func TestHashAllocatesNothing(t *testing.T) {
	n := parseRoot(t, "{ tp: 4, ep: 4, dp-attn: true, kv-offload-backend: { name: mooncake, version: \"0.3\" }, conc-list: [32, 48, 64] }")
	c := NewCanon(1 << 30)
	c.Hash(n) // grow the walker's stacks
	if a := testing.AllocsPerRun(100, func() { c.Hash(n) }); a != 0 {
		t.Errorf("Hash allocates %v times per call", a)
	}
}

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
		ok   bool
	}{
		{"4", 4, true}, {"'64'", 64, true}, {"1_024", 1024, true}, {"-2", -2, true},
		{"4.5", 0, false}, {"x", 0, false}, {"[1]", 0, false}, {"99999999999999999999", 0, false},
	} {
		got, ok := Int(parseRoot(t, tc.src))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", tc.src, got, ok, tc.want, tc.ok)
		}
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// FuzzCanonical checks that the two renderings of the canonical form agree:
// equal strings exactly when equal digests.
func FuzzCanonical(f *testing.F) {
	f.Add("{ tp: 4, ep: 1 }", "tp: 4\nep: 1\n")
	f.Add("tp: 8", "tp: '8'")
	f.Add("a: &a {k: 1}\nc: {<<: *a, j: 2}\n", "a: {k: 1}\nc: {k: 1, j: 2}\n")
	f.Add("[1, [2]]", "[[1], 2]")
	f.Add("d: 2026-08-21", "d: 2026-08-21T00:00:00Z")
	f.Add("u: .inf", "u: 1e400")
	f.Add("tp: -0", "tp: 0")
	f.Fuzz(func(t *testing.T, a, b string) {
		da, errA := Parse([]byte(a))
		db, errB := Parse([]byte(b))
		if errA != nil || errB != nil {
			return
		}
		sa, okA := Canonical(Root(da))
		sb, okB := Canonical(Root(db))
		ha, okHA := Hash(Root(da))
		hb, okHB := Hash(Root(db))
		if okA != okHA || okB != okHB {
			t.Fatalf("renderings disagree on the budget: %v/%v, %v/%v", okA, okHA, okB, okHB)
		}
		if !okA || !okB {
			return
		}
		if (sa == sb) != (ha == hb) {
			t.Fatalf("strings equal %v, digests equal %v\n a: %s\n b: %s", sa == sb, ha == hb, sa, sb)
		}
		if Equal(Root(da), Root(db)) != (sa == sb) {
			t.Fatalf("Equal disagrees with Canonical\n a: %s\n b: %s", sa, sb)
		}
	})
}

// decodedForm is scalarForm without the fast paths: every typed value
// goes through yaml.v3's decoder.
func decodedForm(n *yaml.Node) (string, string) {
	switch tag := n.ShortTag(); tag {
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return "b", strconv.FormatBool(v)
		}
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			return "i", strconv.FormatInt(v, 10)
		}
		var u uint64
		if n.Decode(&u) == nil {
			return "i", strconv.FormatUint(u, 10)
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil {
			if math.IsNaN(v) {
				return "f", "NaN"
			}
			return "f", strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return scalarForm(n)
}

// FuzzScalarFastPaths checks that the shortcuts for common spellings read
// scalars exactly as yaml.v3's decoder does.
func FuzzScalarFastPaths(f *testing.F) {
	for _, s := range []string{"8", "-0", "0", "007", "123456789012345678", "1234567890123456789", "0.5", "-0.0", "00.50",
		"1.", ".5", "1e3", "true", "True", "TRUE", "tRue", "0x1F", "1_000", "+1", "-1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := Parse([]byte("v: " + s + "\n"))
		if err != nil {
			return
		}
		n := Get(Root(doc), "v")
		if n == nil || n.Kind != yaml.ScalarNode {
			return
		}
		k1, v1 := scalarForm(n)
		k2, v2 := decodedForm(n)
		if k1 != k2 || v1 != v2 {
			t.Fatalf("%q: fast path %s%q, decoder %s%q", s, k1, v1, k2, v2)
		}
	})
}
