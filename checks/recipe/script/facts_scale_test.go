package script

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// scaleCases are scripts a PR can grow without bound, as a function of a
// size n: nesting within the parser's bounds, and long flat lists. The
// facts of each must cost memory in proportion to n.
var scaleCases = []struct {
	name string
	n    int // the smaller size the test compares
	gen  func(n int) string
}{
	{"nested ifs", 150, func(n int) string {
		return strings.Repeat("if [ -n \"$X\" ]; then export A=1\n", n) + "vllm serve m\n" + strings.Repeat("fi\n", n)
	}},
	{"nested whiles", 150, func(n int) string {
		return strings.Repeat("while true; do export A=1\n", n) + "vllm serve m\n" + strings.Repeat("done\n", n)
	}},
	{"nested case arms", 150, func(n int) string {
		return strings.Repeat("case $X in a) export A=1\n", n) + "vllm serve m\n" + strings.Repeat(";; esac\n", n)
	}},
	{"case arms", 2000, func(n int) string {
		var b strings.Builder
		b.WriteString("case $X in\n")
		for i := range n {
			fmt.Fprintf(&b, "a%d) export A=%d; vllm serve m%d &;;\n", i, i, i)
		}
		b.WriteString("esac\n")
		return b.String()
	}},
	{"fallthrough arms", 2000, func(n int) string {
		var b strings.Builder
		b.WriteString("case $X in\n")
		for i := range n {
			fmt.Fprintf(&b, "a%d) A=%d;&\n", i, i)
		}
		b.WriteString("esac\nvllm serve m\n")
		return b.String()
	}},
	{"overlapping arms", 2000, func(n int) string {
		var b strings.Builder
		b.WriteString("case $X in\n")
		for i := range n {
			fmt.Fprintf(&b, "a%d|a%d) A=%d;;\n", i, i+1, i)
		}
		b.WriteString("esac\nvllm serve m\n")
		return b.String()
	}},
	{"array used after every append", 2000, func(n int) string {
		var b strings.Builder
		b.WriteString("A=(vllm serve m)\n")
		for i := range n {
			fmt.Fprintf(&b, "A+=(--f%d %d)\n\"${A[@]}\" &\n", i, i)
		}
		return b.String()
	}},
	{"appends on exclusive branches", 2000, func(n int) string {
		var b strings.Builder
		b.WriteString("A=(vllm serve m)\n")
		for i := range n {
			fmt.Fprintf(&b, "if [ \"$X\" = %d ]; then A+=(--f%d %d); fi\n", i, i, i)
		}
		b.WriteString("\"${A[@]}\"\n")
		return b.String()
	}},
	{"nested command substitutions", 120, func(n int) string {
		return "X=" + strings.Repeat("$(echo ", n) + "x" + strings.Repeat(")", n) + "\nvllm serve m\n"
	}},
}

// allocated is the bytes Parse (and the queries rules ask of every fact)
// allocates for src, the least of two runs.
func allocated(t *testing.T, src string) uint64 {
	t.Helper()
	best := ^uint64(0)
	for range 2 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f, err := Parse("benchmarks/x_vllm.sh", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		f.Atoms()
		f.UnguardedReads()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}

// TestFactsScaleLinearly doubles each script and expects the memory of
// its facts to double, not quadruple: nested conditions used to copy the
// branch above them at every level, every case arm its own list of the
// arms above it, every use of an array all of its appends.
func TestFactsScaleLinearly(t *testing.T) {
	for _, c := range scaleCases {
		t.Run(c.name, func(t *testing.T) {
			small, large := allocated(t, c.gen(c.n)), allocated(t, c.gen(2*c.n))
			if ratio := float64(large) / float64(small); ratio > 2.6 {
				t.Errorf("twice the script allocates %.1f times as much (%d → %d bytes)", ratio, small, large)
			}
		})
	}
}

// The branch arrays facts share must not let a fact's branch change when
// another construct extends the same prefix.
func TestSharedBranchesStayDistinct(t *testing.T) {
	src := `if [ "$A" = 1 ]; then
  export X=1
  if [ "$B" = 1 ]; then export Y=1; fi
  if [ "$C" = 1 ]; then export Z=1; fi
  export W=1
else
  export V=1
fi
`
	f, err := Parse("benchmarks/x_vllm.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"X": `if [ "$A" = 1 ]`,
		"Y": `if [ "$A" = 1 ] / if [ "$B" = 1 ]`,
		"Z": `if [ "$A" = 1 ] / if [ "$C" = 1 ]`,
		"W": `if [ "$A" = 1 ]`,
		"V": `not [ "$A" = 1 ]`,
	}
	for name, w := range want {
		e := f.Exports(name)
		if len(e) != 1 {
			t.Fatalf("%s: %d exports", name, len(e))
		}
		if got := e[0].Branch.String(); got != w {
			t.Errorf("%s is under %q, want %q", name, got, w)
		}
		if l := len(e[0].Branch); cap(e[0].Branch) != l {
			t.Errorf("%s: branch has room to append into (len %d, cap %d)", name, l, cap(e[0].Branch))
		}
	}
}

// A nest of conditions with many branches at its bottom copies the nest
// once per branch; past maxCondSlots the script is too deeply nested to
// review rather than a gigabyte of facts.
func TestDeepNestWithManyBranchesIsALimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	b.WriteString(strings.Repeat("if [ -n \"$X\" ]; then\n", 300))
	for i := range 2000 {
		fmt.Fprintf(&b, "[ -n \"$Y%d\" ] && export Z%d=1\n", i, i)
	}
	b.WriteString(strings.Repeat("fi\n", 300))
	_, err := Parse("benchmarks/x_vllm.sh", []byte(b.String()))
	if l, ok := IsLimit(err); !ok || l != TooDeep {
		t.Fatalf("err = %v, want too deeply nested", err)
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/python3":                "python3",
		"vllm":                            "vllm",
		strings.Repeat("$(x ", 100) + "/": "",
	} {
		if got := baseName(in); got != want {
			t.Errorf("baseName(%.20q) = %q, want %q", in, got, want)
		}
	}
}

// nestedExtraction is a script nested n levels with shape s, parsed
// without the reviewer's bounds (the benchmark measures the extractor
// past them).
func nestedExtraction(b *testing.B, s nesting, n int) (string, *syntax.File) {
	src := s.build(n)
	file, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(string(src)), "x")
	if err != nil {
		b.Fatal(err)
	}
	return string(src), file
}

var nestingDepths = []int{12_500, 25_000, 50_000, 100_000}

var benchNestings = []nesting{
	{"parens", "", "(", "true", ")", ""},
	{"subshells", "", "( ", "true", " )", ""},
	{"command-substitutions", "", "$(", "true", ")", ""},
	{"blocks", "", "{ ", "true", "; }", ""},
	{"ifs", "", "if true; then ", "true", "; fi", ""},
	{"whiles", "", "while true; do ", "true", "; done", ""},
	{"cases", "", "case x in x) ", "true", ";; esac", ""},
	{"parameter-defaults", "", "${X:-", "1", "}", ""},
}

// BenchmarkParseNesting is the whole path a PR's recipe takes (bounds,
// parse, facts) at nesting depths far past the bounds: the cost of saying
// "too deeply nested", which must grow with the size of the script, not
// faster. 100,000 levels of "(" used to crash the process; 100,000 of
// "$(" took 32 s.
//
//	go test ./checks/recipe/script -run '^$' -bench BenchmarkParseNesting -benchmem
func BenchmarkParseNesting(b *testing.B) {
	for _, s := range benchNestings {
		for _, n := range nestingDepths {
			src := s.build(n) // past 1 MiB: too large, as cheap to say
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Parse("benchmarks/x_vllm.sh", src); !isLimit(err, TooDeep) && !isLimit(err, TooLarge) {
						b.Fatalf("err = %v", err)
					}
				}
			})
		}
	}
}

// BenchmarkExtractNesting is the extractor alone on trees nested far
// past the parser's bounds (parsed here without them): its cost must grow
// with the depth, not its square.
//
//	go test ./checks/recipe/script -run '^$' -bench BenchmarkExtractNesting -benchmem
func BenchmarkExtractNesting(b *testing.B) {
	// The tree is walked by recursion; these depths need more stack than
	// the default limit allows.
	defer debug.SetMaxStack(debug.SetMaxStack(4 << 30))
	for _, s := range benchNestings {
		if s.name == "parens" {
			continue // arithmetic: the extractor does not recurse into it by statement
		}
		for _, n := range nestingDepths {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				src, file := nestedExtraction(b, s, n)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := extractFacts("benchmarks/x_vllm.sh", src, file); err != nil && !isLimit(err, TooDeep) {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFactsBreadth is the scripts of TestFactsScaleLinearly at 1, 2,
// 4 and 8 times their size, through Parse.
//
//	go test ./checks/recipe/script -run '^$' -bench BenchmarkFactsBreadth -benchmem
func BenchmarkFactsBreadth(b *testing.B) {
	for _, c := range scaleCases {
		for _, k := range []int{1, 2, 4, 8} {
			src := []byte(c.gen(k * c.n))
			b.Run(fmt.Sprintf("%s/%d", strings.ReplaceAll(c.name, " ", "-"), k*c.n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Parse("benchmarks/x_vllm.sh", src); err != nil && !isLimit(err, TooDeep) {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
