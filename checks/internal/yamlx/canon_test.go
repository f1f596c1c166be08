package yamlx

import "testing"

func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"flow vs block", "{ tp: 4, ep: 1 }", "tp: 4\nep: 1\n", true},
		{"key order", "{ tp: 4, ep: 1 }", "{ ep: 1, tp: 4 }", true},
		{"quoting", "{ spec: \"mtp\", tp: '8' }", "{ spec: mtp, tp: 8 }", true},
		{"comments", "# c\ntp: 4 # x\n", "tp: 4\n", true},
		{"nested flow", "{ b: { name: x }, l: [1, 2] }", "b:\n  name: x\nl:\n- 1\n- 2\n", true},
		{"value differs", "{ tp: 4 }", "{ tp: 8 }", false},
		{"list order matters", "l: [1, 2]", "l: [2, 1]", false},
		{"no separator confusion", "a: \"x,b:y\"", "a: x\nb: y\n", false},
		{"null spellings", "a: ~", "a: null", true},
	} {
		da, err := Parse([]byte(tc.a))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		db, err := Parse([]byte(tc.b))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ca, cb := Canonical(Root(da)), Canonical(Root(db))
		if (ca == cb) != tc.same {
			t.Errorf("%s: Canonical equal = %v, want %v (%s vs %s)", tc.name, ca == cb, tc.same, ca, cb)
		}
		if ha, hb := Hash(Root(da)), Hash(Root(db)); (ha == hb) != tc.same {
			t.Errorf("%s: Hash equal = %v, want %v", tc.name, ha == hb, tc.same)
		}
	}
	if got := Canonical(nil); got != "~" {
		t.Errorf("Canonical(nil) = %q", got)
	}
}

func TestCanonicalAliasCycleTerminates(t *testing.T) {
	doc, err := Parse([]byte("a: &x [1, *x]\n"))
	if err != nil {
		// yaml.v3 may reject the cycle; either outcome is fine as long as
		// nothing hangs.
		return
	}
	_ = Canonical(Root(doc))
	_ = Hash(Root(doc))
}

func TestHashDistinguishesStructure(t *testing.T) {
	seen := map[uint64]string{}
	for _, src := range []string{"a: 1", "a: [1]", "[a, 1]", "a: {1: ~}", "{a: 1, b: 2}", "{a: 2, b: 1}", "a: 12", "a1: 2",
		"[1, 2]", "[2, 1]", "[[1], 2]", "[1, [2]]", "a: ''", "a: ~", "{a: {a: 1}}", "{a: 1, a2: 1}"} {
		doc, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		h := Hash(Root(doc))
		if prev, ok := seen[h]; ok {
			t.Errorf("%q and %q hash equally", prev, src)
		}
		seen[h] = src
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
		doc, err := Parse([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Int(Root(doc))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", tc.src, got, ok, tc.want, tc.ok)
		}
	}
}
