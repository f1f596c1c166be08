package script

import (
	"fmt"
	"strings"
	"testing"
)

// Pathological scripts (splices of splices, call chains that fan out,
// hundreds of alternatives) must finish with bounded results rather than
// blow up; the shell itself would expand some of them exponentially.
func TestPathologicalInputsStayBounded(t *testing.T) {
	gens := map[string]func() string{
		"many appends": func() string {
			var b strings.Builder
			b.WriteString("A=(vllm serve m)\n")
			for i := 0; i < 3000; i++ {
				fmt.Fprintf(&b, "A+=(--f%d %d)\n", i, i)
			}
			b.WriteString("\"${A[@]}\"\n")
			return b.String()
		},
		"many alternatives": func() string {
			var b strings.Builder
			for i := 0; i < 500; i++ {
				fmt.Fprintf(&b, "if [ \"$X\" = %d ]; then A=(vllm serve m%d); fi\n", i, i)
			}
			for i := 0; i < 500; i++ {
				fmt.Fprintf(&b, "A+=(--f%d)\n", i)
			}
			b.WriteString("\"${A[@]}\"\n")
			return b.String()
		},
		"splice fanout": func() string {
			var b strings.Builder
			b.WriteString("A0=(--x 1)\n")
			for i := 1; i < 12; i++ {
				fmt.Fprintf(&b, "A%d=(%s)\n", i, strings.Repeat(fmt.Sprintf("\"${A%d[@]}\" ", i-1), 10))
			}
			b.WriteString("vllm serve m \"${A11[@]}\"\n")
			return b.String()
		},
		"function fanout": func() string {
			var b strings.Builder
			b.WriteString("f0() { export X=1; }\n")
			for i := 1; i < 12; i++ {
				fmt.Fprintf(&b, "f%d() { %s }\n", i, strings.Repeat(fmt.Sprintf("f%d; ", i-1), 10))
			}
			b.WriteString("f11\nset -u\nvllm serve m\n")
			return b.String()
		},
		"deep case nesting": func() string {
			var b strings.Builder
			for i := 0; i < 200; i++ {
				fmt.Fprintf(&b, "case $V%d in a%d) ", i, i)
			}
			b.WriteString("export Y=1; vllm serve m --x 1")
			for i := 0; i < 200; i++ {
				b.WriteString(" ;; esac")
			}
			b.WriteString("\n")
			return b.String()
		},
	}
	for name, g := range gens {
		f, err := Parse("x.sh", []byte(g()))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		flags := 0
		for _, c := range f.Servers {
			flags += len(c.Flags) + len(c.Opaque)
		}
		if flags > 2*expandBudget || len(f.Servers) > maxVariants {
			t.Errorf("%s: %d servers, %d flags", name, len(f.Servers), flags)
		}
		if len(f.Servers) == 0 {
			t.Errorf("%s: no server found", name)
		}
		for _, v := range f.Vars {
			f.Covers(v.Branch, nil)
		}
		_ = f.Atoms()
	}
	// The export deep in the call chain still reaches the top level.
	f, _ := Parse("x.sh", []byte(gens["function fanout"]()))
	if e := f.Exports("X"); len(e) != 1 || !f.Covers(e[0].Branch, nil) {
		t.Errorf("function fanout export = %+v", e)
	}
}
