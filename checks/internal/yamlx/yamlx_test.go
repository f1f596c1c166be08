package yamlx

import (
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		src      string
		wantLine int
	}{
		{"a: 1\nb: [1, 2\nc: 3\n", 2}, // where the unclosed sequence opened
		{"a: 1\n  b: 2\n", 2},
		{"- x\ny: 1\n", 2},
		{"\t- x\n", 1},
		{"a: 1\nb: 2\nc: \"x\n", 3},
		{"k: v\nlist:\n  - a\n  b: c\n", 3}, // the sequence the stray key breaks
	} {
		_, err := Parse([]byte(tc.src))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("%q: err = %v, want *SyntaxError", tc.src, err)
			continue
		}
		if se.Line != tc.wantLine || se.Msg == "" {
			t.Errorf("%q: got line %d msg %q, want line %d", tc.src, se.Line, se.Msg, tc.wantLine)
		}
	}
	doc, err := Parse(nil)
	if err != nil || Root(doc) != nil {
		t.Errorf("empty input: %v %v", doc, err)
	}
}

func TestDuplicateKeysAndLookups(t *testing.T) {
	src := "a:\n  x: 1\n  y: [1, 2]\n  x: 3\nb: {k: v, k: w}\na: again\nc: |\n  one\n  two\n"
	doc, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dups := DuplicateKeys(doc)
	want := []Duplicate{{"a", 6, 1}, {"x", 4, 2}, {"k", 5, 5}}
	if len(dups) != len(want) {
		t.Fatalf("dups = %+v", dups)
	}
	seen := map[Duplicate]bool{}
	for _, d := range dups {
		seen[d] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("missing duplicate %+v in %+v", w, dups)
		}
	}
	root := Root(doc)
	if Scalar(Get(root, "a")) != "again" {
		t.Error("Get must return the last duplicate, like yaml.v3 decoding")
	}
	a := Pairs(root)[0].Value
	if got := Strings(Get(a, "y")); len(got) != 2 || got[1] != "2" {
		t.Error(got)
	}
	if KeyNode(root, "b").Line != 5 || Get(root, "zzz") != nil {
		t.Error("KeyNode/Get")
	}
	if EndLine(a) != 4 {
		t.Errorf("EndLine(a) = %d", EndLine(a))
	}
	if got := EndLine(Get(root, "c")); got != 9 {
		t.Errorf("EndLine(block scalar) = %d, want 9", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("a: 1\nb: [1,2]\n"))
	f.Add([]byte("- config-keys: [x]\n  pr-link: XXX\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Parse(b)
		if err == nil {
			DuplicateKeys(doc)
			EndLine(Root(doc))
		}
	})
}

// TestDecimalInt: hardware numbers written with underscores are numbers;
// a number with a unit, or with text around it, is not.
func TestDecimalInt(t *testing.T) {
	for s, want := range map[string]int{"3_095_781": 3095781, "12": 12, "-4": -4, "+7": 7} {
		if n, ok := DecimalInt(s); !ok || n != want {
			t.Errorf("DecimalInt(%q) = %d, %v", s, n, ok)
		}
	}
	for _, s := range []string{"", "abc", "_", "_12", "2TiB", "12 MiB", "0x10", "1.5"} {
		if n, ok := DecimalInt(s); ok {
			t.Errorf("DecimalInt(%q) = %d, accepted", s, n)
		}
	}
}
