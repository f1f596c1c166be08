package script

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rule files of this package may register -update too; whoever comes
// first owns it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// renderFacts prints facts one per line, for golden files a reviewer can
// read next to the script.
func renderFacts(f *Facts) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	at := func(p Branch) string {
		if len(p) == 0 {
			return ""
		}
		return "  @ " + p.String()
	}
	w("engine %s, shebang %q, %d lines", f.Engine, f.Shebang, f.Lines)
	for _, s := range f.Sets {
		var opts []string
		for _, o := range s.Options {
			state := "on"
			if !o.On {
				state = "off"
			}
			opts = append(opts, o.Name+"="+state)
		}
		w("%d: set %s%s", s.Line, strings.Join(opts, " "), at(s.Branch))
	}
	for _, s := range f.Sources {
		w("%d: source %s lib=%v%s", s.Line, s.Target, s.Lib, at(s.Branch))
	}
	for _, c := range f.EnvChecks {
		w("%d: check_env_vars %s", c.Line, strings.Join(c.Vars, " "))
	}
	for _, v := range f.Vars {
		val := ""
		if v.HasValue {
			val = fmt.Sprintf(" = %q static=%v", v.Value, v.Static)
		}
		w("%d-%d: %s %s%s%s", v.Line, v.EndLine, v.Kind, v.Name, val, at(v.Branch))
	}
	for _, a := range f.Arith {
		w("%d: arith %s := %s vars=%v ops=%v divisors=%v%s", a.Line, a.Target, a.Expr, a.Vars, a.Ops, a.Divisors(), at(a.Branch))
	}
	for _, r := range f.UnguardedReads() {
		w("%d: unguarded read %s%s", r.Line, r.Name, at(r.Branch))
	}
	for _, c := range append(append([]*Command{}, f.Servers...), f.Clients...) {
		role := "server"
		if c.Role == Client {
			role = "client"
		}
		w("%d-%d: %s %s (%s) array=%q run=%d oneline=%v bg=%v%s", c.Line, c.EndLine, role, c.Program, c.Engine, c.Array, c.RunLine, c.OneLine, c.Background, at(c.Branch))
		for _, a := range c.Args {
			w("    %d: arg %s", a.Line, a.Text)
		}
		for _, fl := range c.Flags {
			val := ""
			if fl.HasValue {
				val = fmt.Sprintf(" %q", fl.Value)
			}
			via, js := "", ""
			if fl.Via != "" {
				via = " via " + fl.Via
			}
			if fl.JSON != nil {
				js = fmt.Sprintf(" json@%d", fl.JSON.Line)
			}
			w("    %d: %s%s%s%s%s", fl.Line, fl.Name, val, via, js, at(fl.Branch))
		}
		for _, o := range c.Opaque {
			w("    opaque %s", o)
		}
	}
	for _, j := range f.JSON {
		w("%d-%d: json flag=%s var=%s style=%s escaped=%v parsed=%v%s", j.Line, j.EndLine, j.Flag, j.Var, j.Style, j.Escaped, j.Parsed, at(j.Branch))
		if !j.Parsed {
			w("    error: %s", j.Err)
		}
		for _, e := range j.Entries {
			w("    %d: %s %s %q dynamic=%v", e.Line, e.Key, e.Kind, e.Value, e.Dynamic)
		}
	}
	for _, p := range f.Patches {
		w("%d-%d: patch %s %q%s", p.Line, p.EndLine, p.Kind, p.Target, at(p.Branch))
	}
	for _, o := range f.Overrides {
		w("%d: override %s %q%s", o.Line, o.Kind, o.Text, at(o.Branch))
	}
	for _, im := range f.Images {
		w("%d: image %s %q%s", im.Line, im.Kind, im.Ref, at(im.Branch))
	}
	for _, c := range f.Calls {
		w("%d: call %s%s", c.Line, c.Name, at(c.Branch))
	}
	for _, c := range f.Comments {
		w("%d: # %s", c.Line, c.Text)
	}
	for _, a := range f.Atoms() {
		w("atom %d: %s", a.Line, a.Key)
	}
	return b.String()
}

// TestGolden renders the facts of every testdata script (and the parse
// error of the broken one) and compares with testdata/golden/; run with
// -update to rewrite them after a deliberate change.
func TestGolden(t *testing.T) {
	var scripts []string
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sh") {
			scripts = append(scripts, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) < 8 {
		t.Fatalf("found %d scripts", len(scripts))
	}
	for _, p := range scripts {
		rel, _ := filepath.Rel("testdata", p)
		golden := filepath.Join("testdata", "golden", strings.ReplaceAll(strings.TrimSuffix(rel, ".sh"), string(filepath.Separator), "__")+".facts")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if f, err := Parse(filepath.ToSlash(rel), b); err != nil {
			got = "error: " + err.Error() + "\n"
		} else {
			got = renderFacts(f)
		}
		if updating() {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%s: %v (run go test -update)", golden, err)
			continue
		}
		if got != string(want) {
			t.Errorf("%s differs from %s; rerun with -update if intended:\n%s", p, golden, lineDiff(string(want), got))
		}
	}
}

// lineDiff lists the lines that differ, enough to see what changed.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  - %s\n  + %s\n", i+1, w, g)
		}
	}
	return b.String()
}
