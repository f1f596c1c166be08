package script

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// nesting is a shape a PR can use to make the shell parser recurse: its
// third line is prefix, open n times, leaf, close n times, suffix.
type nesting struct{ name, prefix, open, leaf, close, suffix string }

func (s nesting) build(n int) []byte {
	var b bytes.Buffer
	b.WriteString("#!/usr/bin/env bash\n# nested\n" + s.prefix)
	for range n {
		b.WriteString(s.open)
	}
	b.WriteString(s.leaf)
	for range n {
		b.WriteString(s.close)
	}
	b.WriteString(s.suffix + "\nvllm serve \"$MODEL\"\n")
	return b.Bytes()
}

// maxLevels is the most levels of s that fit in a script the reviewer
// parses (up to 150,000, the depth that crashed the parser).
func (s nesting) maxLevels() int {
	return min(150_000, (MaxBytes-200)/(len(s.open)+len(s.close)))
}

// chain builds a recipe whose third line joins n copies of item with op:
// lists the parser reads by iteration but that make a tree as deep as they
// are long.
func chain(prefix, item, op, suffix string, n int) []byte {
	var b bytes.Buffer
	b.WriteString("#!/usr/bin/env bash\n# chained\n" + prefix)
	for i := range n {
		if i > 0 {
			b.WriteString(op)
		}
		b.WriteString(item)
	}
	b.WriteString(suffix + "\nvllm serve \"$MODEL\"\n")
	return b.Bytes()
}

var nestings = []nesting{
	{"parens", "", "(", "true", ")", ""},
	{"subshells", "", "( ", "true", " )", ""},
	{"command substitutions", "", "$(", "true", ")", ""},
	{"quoted substitutions", "", "\"$(", "true", ")\"", ""},
	{"arithmetic", "", "$((", "1", "))", ""},
	{"arithmetic parens", "X=$((", "(", "1", ")", "))"},
	{"unary minus", "X=$((", "- ", "1", "", "))"},
	{"blocks", "", "{ ", "true", "; }", ""},
	{"ifs", "", "if true; then ", "true", "; fi", ""},
	{"whiles", "", "while true; do ", "true", "; done", ""},
	{"cases", "", "case x in x) ", "true", ";; esac", ""},
	{"functions", "", "f() { ", "true", "; }", ""},
	{"parameter defaults", "", "${X:-", "1", "}", ""},
	{"process substitutions", "", "cat <(", "true", ")", ""},
	{"test groups", "[[ ", "( ", "a", " )", " ]]"},
	{"negated tests", "[[ ", "! ", "a", "", " ]]"},
	{"heredocs in substitutions", "", "$(cat <<E\n", "x", "\nE\n)", ""},
}

// Any nesting a PR can write stops at the bound with a finding-ready
// error instead of exhausting the stack (150,000 levels of "(" was a fatal
// stack overflow that no recover catches).
func TestDeepNestingIsALimitNotACrash(t *testing.T) {
	for _, n := range nestings {
		t.Run(n.name, func(t *testing.T) {
			_, err := Parse("benchmarks/x_vllm.sh", n.build(n.maxLevels()))
			line := 3
			if strings.Contains(n.open, "\n") {
				line = 0 // somewhere in the nesting
			}
			assertLimit(t, err, TooDeep, line)
		})
	}
}

// Lists the parser builds by iteration still make a tree as deep as they
// are long, and every walk over it (the extractor's too) recurses.
func TestLongChainsAreALimit(t *testing.T) {
	for _, c := range []struct {
		name                     string
		prefix, item, op, suffix string
	}{
		{"and list", "", "true", " && ", ""},
		{"or list", "", "true", " || ", ""},
		{"pipeline", "", "cat", " | ", ""},
		{"arithmetic sum", "X=$((", "1", "+", "))"},
		{"arithmetic command", "((", "x", "*", "))"},
		{"let", "let x=", "1", "-", ""},
		{"test and", "[[ ", "a", " && ", " ]]"},
		{"elif", "if false; then :; ", "elif false; then :", "; ", "; fi"},
		{"array index", "A[", "1", "+", "]=1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := min(200_000, (MaxBytes-200)/(len(c.item)+len(c.op)))
			_, err := Parse("benchmarks/x_vllm.sh", chain(c.prefix, c.item, c.op, c.suffix, n))
			assertLimit(t, err, TooDeep, 3)
		})
	}
}

// Nesting far deeper than any real recipe (they stay under 20 levels)
// parses as usual.
func TestOrdinaryNestingParses(t *testing.T) {
	for _, n := range nestings {
		t.Run(n.name, func(t *testing.T) {
			f, err := Parse("benchmarks/x_vllm.sh", n.build(40))
			if err != nil {
				t.Fatalf("40 levels: %v", err)
			}
			if len(f.Servers) != 1 {
				t.Errorf("servers = %d, want the vllm serve after the nesting", len(f.Servers))
			}
		})
	}
	if _, err := Parse("benchmarks/x_vllm.sh", chain("", "true", " && ", "", 300)); err != nil {
		t.Errorf("300 commands joined by &&: %v", err)
	}
	// The parser recurses once per line of a run of comment lines, which
	// is no nesting at all: a long commented-out block still parses.
	block := "#!/usr/bin/env bash\n" + strings.Repeat("# vllm serve \"$MODEL\" --old-flag\n", 9000) + "vllm serve \"$MODEL\"\n"
	if _, err := Parse("benchmarks/x_vllm.sh", []byte(block)); err != nil {
		t.Errorf("9,000 comment lines: %v", err)
	}
}

func TestSizeAndBinaryAreLimits(t *testing.T) {
	big := append([]byte("#!/usr/bin/env bash\n"), bytes.Repeat([]byte("echo ok\n"), MaxBytes/8+1)...)
	_, err := Parse("benchmarks/x_vllm.sh", big)
	assertLimit(t, err, TooLarge, 1)
	if pe := err.(*ParseError); !strings.Contains(pe.Msg, "1 MiB") {
		t.Errorf("message %q does not name the bound", pe.Msg)
	}
	_, err = Parse("benchmarks/x_vllm.sh", []byte("#!/usr/bin/env bash\necho\n\x7fELF\x02\x01\x00\x00"))
	assertLimit(t, err, Binary, 3)
	// At the bound itself, a script is parsed.
	exact := append([]byte("#!/usr/bin/env bash\n"), bytes.Repeat([]byte("#"), MaxBytes-21)...)
	if _, err := Parse("benchmarks/x_vllm.sh", append(exact, '\n')); err != nil {
		t.Errorf("a script of exactly MaxBytes: %v", err)
	}
}

// The helpers that parse pieces of a script (a bash -c string, a value, an
// arithmetic expression, a command line) keep the same bounds.
func TestPieceParsersAreBounded(t *testing.T) {
	deep := strings.Repeat("(", 150_000)
	if _, err := ParseArithmetic(deep + "1" + strings.Repeat(")", 150_000)); !isLimit(err, TooDeep) {
		t.Errorf("ParseArithmetic: %v", err)
	}
	if _, err := ParseDocument("$" + strings.Repeat("$(", 150_000)); !isLimit(err, TooDeep) {
		t.Errorf("ParseDocument: %v", err)
	}
	if _, err := ParseLine(deep); !isLimit(err, TooDeep) {
		t.Errorf("ParseLine: %v", err)
	}
	if name, plain := VarRef("$" + strings.Repeat("{X:-$", 150_000)); name != "" || plain {
		t.Errorf("VarRef of a deep value = %q, %v", name, plain)
	}
	// A bash -c string nested deeply inside an ordinary recipe: the recipe
	// parses, the string is left unread.
	src := "#!/usr/bin/env bash\nsrun bash -c '" + strings.Repeat("$(", 30_000) + "enroot import docker://x" + strings.Repeat(")", 30_000) + "'\n"
	if _, err := Parse("runners/launch_x.sh", []byte(src)); err != nil {
		t.Errorf("recipe with a deep bash -c string: %v", err)
	}
}

func assertLimit(t *testing.T, err error, want Limit, line int) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a *ParseError", err)
	}
	if pe.Limit != want {
		t.Fatalf("limit = %v (%s), want %v", pe.Limit, pe.Msg, want)
	}
	if pe.Line != line && (line != 0 || pe.Line < 3) {
		t.Errorf("line = %d, want %d (%s)", pe.Line, line, pe.Msg)
	}
	if l, ok := IsLimit(err); !ok || l != want {
		t.Errorf("IsLimit = %v, %v", l, ok)
	}
}

func isLimit(err error, want Limit) bool {
	l, ok := IsLimit(err)
	return ok && l == want
}

// Every shell parse of the module goes through bounds.go: a parser made
// anywhere else has no depth bound.
func TestEveryShellParseIsBounded(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Base(p) == "bounds.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewParser" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "syntax" {
					t.Errorf("%s: syntax.NewParser outside checks/recipe/script/bounds.go", fset.Position(sel.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
