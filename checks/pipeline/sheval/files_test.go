package sheval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// TestParseShellErrors checks that scripts the evaluator refuses or cannot
// parse give an error that names the file and says why, and never panic.
func TestParseShellErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // substrings of the error, nil for none
	}{
		{"a good script", "#!/bin/bash\necho ok\n", nil},
		{"an empty script", "", nil},
		{"nested substitutions within the bound", strings.Repeat("$(", 150) + strings.Repeat(")", 150), nil},
		{"a syntax error", "if then\n", []string{"runners/p.sh:1:1", "`if` must be followed by a statement list"}},
		{"an unclosed quote", "echo 'open\n", []string{"runners/p.sh:1:6", "without closing quote"}},
		{"an unclosed here-document", "cat <<EOF\nunterminated", []string{"runners/p.sh", "here-document"}},
		{"a missing esac", "case x in", []string{"runners/p.sh", "esac"}},
		{"a stray parenthesis", "))))", []string{"runners/p.sh:1:1"}},
		{"NUL bytes", "a\x00b\n", []string{"runners/p.sh", "binary"}},
		{"invalid UTF-8", "echo \xff\xfe\n", []string{"runners/p.sh", "UTF-8"}},
		{"too deep to follow", strings.Repeat("(", MaxNesting+1), []string{"runners/p.sh", "nests 201 levels deep", "200"}},
		{"too deep in keywords", strings.Repeat("if true; then ", MaxNesting+1), []string{"nests", "levels deep"}},
		{"too long a chain", strings.Repeat("a | ", 20000) + "b", []string{"runners/p.sh", "nested more than"}},
		{"too large", "#" + strings.Repeat("x", MaxScriptBytes), []string{"runners/p.sh", "bytes, more than the 1048576"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseShell("runners/p.sh", []byte(tc.src))
			if tc.want == nil {
				if err != nil || f == nil {
					t.Fatalf("error %v", err)
				}
				if f.Name != "runners/p.sh" {
					t.Errorf("file named %q", f.Name)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestNestingDepth checks the over-estimate of how deep a script nests:
// brackets, and if/case/do against fi/esac/done, never below zero.
func TestNestingDepth(t *testing.T) {
	cases := []struct {
		src  string
		want int
	}{
		{"", 0},
		{"echo hello", 0},
		{"(a)", 1},
		{"((a))", 2},
		{"{ (a); }", 2},
		{"[[ -n $x ]]", 2},
		{"${a[0]}", 2},
		{"$(echo $(echo))", 2},
		{"if x; then y; fi", 1},
		{"if a; then if b; then c; fi; fi", 2},
		{"if a; then :; fi; if b; then :; fi", 1},
		{"for i in a; do x; done", 1},
		{"while x; do if y; then (z); fi; done", 3},
		{"case x in a) b;; esac", 1},
		{"done done fi ) } (", 1}, // closers first never go below zero
		{"IF X THEN", 0},          // keywords are lower case
		{"iffy dodo casey", 0},    // whole words only
		{"echo if", 1},            // an over-estimate: a word "if" counts
		{"# (((", 3},              // so do comments
		{strings.Repeat("(", 1000), 1000},
		{strings.Repeat("()", 1000), 1},
		{strings.Repeat("if ", 50) + strings.Repeat("fi ", 50), 50},
	}
	for _, tc := range cases {
		name := tc.src
		if len(name) > 30 {
			name = name[:30] + "..."
		}
		if got := NestingDepth([]byte(tc.src)); got != tc.want {
			t.Errorf("NestingDepth(%q) = %d, want %d", name, got, tc.want)
		}
	}
}

// TestNestingDepthHugeInput checks that the estimate of a megabyte of
// brackets is linear and exact, and that such a script is refused before
// the recursive parser sees it.
func TestNestingDepthHugeInput(t *testing.T) {
	deep := []byte(strings.Repeat("(", MaxScriptBytes))
	if got := NestingDepth(deep); got != MaxScriptBytes {
		t.Errorf("depth %d, want %d", got, MaxScriptBytes)
	}
	if _, err := ParseShell("d.sh", deep); err == nil || !strings.Contains(err.Error(), "nests") {
		t.Errorf("error %v, want a refusal for nesting", err)
	}
	mixed := []byte(strings.Repeat("{ if [ ( do case ", 20000))
	if got := NestingDepth(mixed); got != 6*20000 {
		t.Errorf("mixed depth %d, want %d", got, 6*20000)
	}
}

// TestTreeFilesMemTree checks the evaluator's file access over an
// in-memory tree: Stat of files, directories and missing paths (with
// paths cleaned), blob IDs, and parsing cached by path.
func TestTreeFilesMemTree(t *testing.T) {
	files := map[string]string{
		"runners/a.sh":      "echo a\n",
		"runners/bad.sh":    "if then\n",
		"benchmarks/x/y.sh": "echo y\n",
	}
	tf := NewTreeFiles(context.Background(), checks.NewMemTree(files), nil)
	stats := []struct {
		p    string
		want Stat
	}{
		{"runners/a.sh", Stat{Exists: true}},
		{"./runners/a.sh", Stat{Exists: true}},
		{"/runners/a.sh", Stat{Exists: true}},
		{"runners", Stat{Exists: true, Dir: true}},
		{"runners/", Stat{Exists: true, Dir: true}},
		{"benchmarks/x", Stat{Exists: true, Dir: true}},
		{"", Stat{Exists: true, Dir: true}},
		{"runners/none.sh", Stat{}},
		{"runners/a.sh/below", Stat{}},
	}
	for _, tc := range stats {
		got, err := tf.Stat(tc.p)
		if err != nil || got != tc.want {
			t.Errorf("Stat(%q) = %+v %v, want %+v", tc.p, got, err, tc.want)
		}
	}
	blobs := map[string]string{
		"runners/a.sh":    checks.BlobID([]byte("echo a\n")),
		"runners":         "",
		"runners/none.sh": "",
	}
	for p, want := range blobs {
		if got := tf.Blob(p); got != want {
			t.Errorf("Blob(%q) = %q, want %q", p, got, want)
		}
	}
	f1, err := tf.Parse("runners/a.sh")
	if err != nil || len(f1.Stmts) != 1 {
		t.Fatalf("Parse: %v", err)
	}
	if f2, _ := tf.Parse("./runners/a.sh"); f2 != f1 {
		t.Error("a second parse of the same path parsed again")
	}
	_, err1 := tf.Parse("runners/bad.sh")
	_, err2 := tf.Parse("runners/bad.sh")
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() || !strings.Contains(err1.Error(), "runners/bad.sh") {
		t.Errorf("parse errors %v and %v, want the same error naming the file", err1, err2)
	}
	if _, err := tf.Parse("runners/none.sh"); !checks.IsNotExist(err) {
		t.Errorf("parse of a missing file: %v, want not-exist", err)
	}
	if _, err := tf.Parse("runners"); err == nil {
		t.Error("a directory parsed as a script")
	}
	if tf.Cache() != nil {
		t.Error("a TreeFiles made without a cache has one")
	}
}

// TestTreeFilesSymlinks checks how a file git stores as a symbolic link
// (its content the relative path of its target) is parsed: as its target
// within the tree, and as itself when the content is no such path.
func TestTreeFilesSymlinks(t *testing.T) {
	files := map[string]string{
		"benchmarks/real.sh":    "bash benchmarks/target.sh\n",
		"runners/link.sh":       "../benchmarks/real.sh",
		"runners/chain.sh":      "link.sh",
		"runners/outside.sh":    "../../etc/passwd",
		"runners/dir.sh":        "../benchmarks",
		"runners/missing.sh":    "../benchmarks/none.sh",
		"runners/words.sh":      "echo hello world",
		"runners/self.sh":       "self.sh",
		"runners/loop1.sh":      "loop2.sh",
		"runners/loop2.sh":      "loop1.sh",
		"benchmarks/target.sh":  "echo\n",
		"runners/abs_target.sh": "/benchmarks/real.sh",
	}
	cases := []struct {
		p    string
		want string // what the evaluation of p runs
	}{
		{"runners/link.sh", "benchmarks/target.sh"},
		{"runners/chain.sh", "benchmarks/target.sh"},
		{"runners/abs_target.sh", ""}, // a target from the root is not a link git makes
		{"runners/outside.sh", ""},    // read as a command, not followed
		{"runners/dir.sh", ""},
		{"runners/missing.sh", ""},
		{"runners/words.sh", ""},
		{"runners/self.sh", ""},
		{"runners/loop1.sh", ""},
	}
	for _, tc := range cases {
		t.Run(tc.p, func(t *testing.T) {
			tf := NewTreeFiles(context.Background(), checks.NewMemTree(files), nil)
			ev := &Eval{Files: tf}
			res, err := ev.Run(tc.p, Env{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := runsOf(res); got != tc.want {
				t.Errorf("runs %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTreeFilesParseCache checks that parsed scripts are kept in the
// change's parse cache by blob: a second TreeFiles over another tree with
// the same content parses nothing, and changed content parses again.
func TestTreeFilesParseCache(t *testing.T) {
	cache := checks.NewParseCache(1 << 20)
	files := map[string]string{"runners/a.sh": "echo a\n"}
	first := NewTreeFiles(context.Background(), checks.NewMemTree(files), cache)
	if first.Cache() != cache {
		t.Error("Cache() is not the cache given")
	}
	f1, err := first.Parse("runners/a.sh")
	if err != nil {
		t.Fatal(err)
	}
	before := cache.Stats()
	second := NewTreeFiles(context.Background(), checks.NewMemTree(files), cache)
	f2, err := second.Parse("runners/a.sh")
	if err != nil {
		t.Fatal(err)
	}
	after := cache.Stats()
	if f2 != f1 || after.Hits != before.Hits+1 {
		t.Errorf("same content: same file %v, hits %d → %d", f2 == f1, before.Hits, after.Hits)
	}
	third := NewTreeFiles(context.Background(), checks.NewMemTree(map[string]string{"runners/a.sh": "echo b\n"}), cache)
	f3, err := third.Parse("runners/a.sh")
	if err != nil || f3 == f1 {
		t.Errorf("changed content reused the old parse (%v)", err)
	}
	if cache.Stats().Entries != 2 {
		t.Errorf("%d cache entries, want one per content", cache.Stats().Entries)
	}
}

// TestTreeFilesDirTree evaluates a launcher of the test tree under
// testdata/tree, read from disk as a checks.Tree (trees.OpenDir): the
// sourced library next to the benchmarks, the -f test against the disk
// and the blob IDs of what was parsed.
func TestTreeFilesDirTree(t *testing.T) {
	dt, err := trees.OpenDir(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	tf := NewTreeFiles(context.Background(), dt, nil)
	ev := &Eval{Files: tf}
	cases := []struct {
		name string
		env  Env
		want string
		reqs []string
	}{
		{"the model's script", envOf("EXP_NAME", "dsr1_1k1k", "PRECISION", "fp8", "MODEL", "m"), "benchmarks/single_node/dsr1_fp8_h100.sh", nil},
		{"a missing script exits", envOf("EXP_NAME", "dsv4_1k1k", "PRECISION", "fp8", "MODEL", "m"), "exit@8", nil},
		{"an unset model", envOf("EXP_NAME", "dsr1_1k1k", "PRECISION", "fp8"), "benchmarks/single_node/dsr1_fp8_h100.sh", []string{"MODEL check_env_vars"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ev.Run("runners/launch_h100.sh", tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if got := runsOf(res); got != tc.want {
				t.Errorf("runs %q, want %q", got, tc.want)
			}
			if got := reqsOf(res); strings.Join(got, ",") != strings.Join(tc.reqs, ",") {
				t.Errorf("requirements %q, want %q", got, tc.reqs)
			}
			for _, p := range []string{"runners/launch_h100.sh", "benchmarks/benchmark_lib.sh"} {
				b, err := os.ReadFile(filepath.Join("testdata", "tree", filepath.FromSlash(p)))
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Sources[p]; got != checks.BlobID(b) {
					t.Errorf("source %s blob %q, want %q", p, got, checks.BlobID(b))
				}
			}
			if !Holds(res, tf) {
				t.Error("the result does not hold for the tree it was made from")
			}
		})
	}
	if _, err := ev.Run("benchmarks/broken.sh", Env{}); err == nil || !strings.Contains(err.Error(), "benchmarks/broken.sh") {
		t.Errorf("broken script: %v", err)
	}
	if s, err := tf.Stat("benchmarks/single_node"); err != nil || !s.Dir {
		t.Errorf("Stat of a directory on disk: %+v %v", s, err)
	}
}
