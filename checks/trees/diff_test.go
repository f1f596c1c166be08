package trees

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func render(hs []checks.Hunk) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		for _, l := range h.Lines {
			fmt.Fprintf(&b, "%c%s [%d,%d]\n", l.Op, l.Text, l.Old, l.New)
		}
	}
	return b.String()
}

func TestLineHunks(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"append", "1\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\n6\n",
			"@@ -3,3 +3,4 @@\n 3 [3,3]\n 4 [4,4]\n 5 [5,5]\n+6 [0,6]\n"},
		{"replace", "a\nb\nc\n", "a\nB\nc\n",
			"@@ -1,3 +1,3 @@\n a [1,1]\n-b [2,0]\n+B [0,2]\n c [3,3]\n"},
		{"delete", "a\nb\nc\n", "a\nc\n",
			"@@ -1,3 +1,2 @@\n a [1,1]\n-b [2,0]\n c [3,2]\n"},
		{"new file", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x [0,1]\n+y [0,2]\n"},
		{"removed file", "x\n", "", "@@ -1,1 +0,0 @@\n-x [1,0]\n"},
		{"final newline added", "a\nb", "a\nb\n",
			"@@ -1,2 +1,2 @@\n a [1,1]\n-b [2,0]\n+b [0,2]\n"},
		{"identical", "a\n", "a\n", ""},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "X\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nY\n",
			"@@ -1,4 +1,4 @@\n-1 [1,0]\n+X [0,1]\n 2 [2,2]\n 3 [3,3]\n 4 [4,4]\n@@ -9,4 +9,4 @@\n 9 [9,9]\n 10 [10,10]\n 11 [11,11]\n-12 [12,0]\n+Y [0,12]\n"},
		{"merged hunk", "1\n2\n3\n4\n5\n6\n7\n8\n", "X\n2\n3\n4\n5\n6\n7\nY\n",
			"@@ -1,8 +1,8 @@\n-1 [1,0]\n+X [0,1]\n 2 [2,2]\n 3 [3,3]\n 4 [4,4]\n 5 [5,5]\n 6 [6,6]\n 7 [7,7]\n-8 [8,0]\n+Y [0,8]\n"},
		{"middle edit in repeats", "a\na\na\nb\na\na\na\n", "a\na\na\nc\na\na\na\n",
			"@@ -1,7 +1,7 @@\n a [1,1]\n a [2,2]\n a [3,3]\n-b [4,0]\n+c [0,4]\n a [5,5]\n a [6,6]\n a [7,7]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(LineHunks([]byte(tc.a), []byte(tc.b))); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A changelog repeats the same lines thousands of times; appending an entry
// must still diff as a pure append.
func TestLineHunksRepetitiveAppend(t *testing.T) {
	var base strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&base, "- config-keys:\n    - key-%d\n  description:\n    - \"same text\"\n  pr-link: XXX\n\n", i%7)
	}
	head := base.String() + "- config-keys:\n    - new\n  description:\n    - \"same text\"\n  pr-link: XXX\n"
	hs := LineHunks([]byte(base.String()), []byte(head))
	fc := &checks.FileChange{Status: checks.Modified, Hunks: hs}
	if rem := fc.RemovedLines(); len(rem) != 0 {
		t.Fatalf("append diffed with %d removed lines", len(rem))
	}
	if add := fc.AddedLines(); len(add) != 5 || add[0] != 18001 {
		t.Fatalf("added lines %v", add)
	}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDiffDirTrees(t *testing.T) {
	ctx := context.Background()
	base, err := OpenDir(writeTree(t, map[string]string{
		"same.txt":       "same\n",
		"mod.sh":         "a\nb\n",
		"gone.yaml":      "x: 1\n",
		"old/name.sh":    "moved content\n",
		"bin.dat":        "a\x00b",
		"dir/keep/x.txt": "k\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	head, err := OpenDir(writeTree(t, map[string]string{
		"same.txt":       "same\n",
		"mod.sh":         "a\nB\n",
		"new.md":         "hello\n",
		"new/name.sh":    "moved content\n",
		"bin.dat":        "a\x00c",
		"dir/keep/x.txt": "k\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Diff(ctx, base, head)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, fmt.Sprintf("%s<-%s %s bin=%v hunks=%d", f.Path, f.OldPath, f.Status, f.Binary, len(f.Hunks)))
	}
	want := []string{
		"bin.dat<-bin.dat modified bin=true hunks=0",
		"gone.yaml<-gone.yaml deleted bin=false hunks=1",
		"mod.sh<-mod.sh modified bin=false hunks=1",
		"new.md<- added bin=false hunks=1",
		"new/name.sh<-old/name.sh renamed bin=false hunks=0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDirTreeErrors(t *testing.T) {
	if _, err := OpenDir(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("OpenDir(missing) = %v", err)
	}
	dir := writeTree(t, map[string]string{"a/b.txt": "x"})
	tr, _ := OpenDir(dir)
	ctx := context.Background()
	if _, err := tr.ReadFile(ctx, "../../etc/passwd"); !checks.IsNotExist(err) {
		t.Errorf("escaping the root must look like a missing file, got %v", err)
	}
	if _, err := tr.ReadFile(ctx, "a"); err == nil {
		t.Error("reading a directory")
	}
	if _, err := tr.ReadFile(ctx, "a/none"); !checks.IsNotExist(err) {
		t.Error(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(dir, "a", "link")); err == nil {
		if b, err := tr.ReadFile(ctx, "a/link"); err != nil || string(b) != "b.txt" {
			t.Errorf("symlink read as %q, %v; want its target like git", b, err)
		}
	}
}

func TestOverlayAndFixture(t *testing.T) {
	ctx := context.Background()
	root := writeTree(t, map[string]string{
		"trees/shared/configs/x-master.yaml": "a: 1\n",
		"trees/shared/keep.sh":               "k\n",
		"trees/shared/drop.sh":               "d\n",
		"prs/p/pr.json":                      `{"number": 7, "author": "me", "labels": ["x"], "date": "2026-08-07", "tree": "../../trees/shared", "delete": ["drop.sh"], "expect": ["CL003 configs/x-master.yaml:1"]}`,
		"prs/p/base/extra.txt":               "base only\n",
		"prs/p/head/configs/x-master.yaml":   "a: 2\n",
		"prs/p/head/added.sh":                "new\n",
	})
	fx, err := LoadFixture(ctx, filepath.Join(root, "prs", "p"))
	if err != nil {
		t.Fatal(err)
	}
	if fx.PR.Number != 7 || fx.PR.Author != "me" || fx.Date.Format("2006-01-02") != "2026-08-07" || len(fx.Expect) != 1 {
		t.Errorf("metadata %+v %v %v", fx.PR, fx.Date, fx.Expect)
	}
	var got []string
	for _, f := range fx.Files {
		got = append(got, f.Path+" "+string(f.Status))
	}
	if strings.Join(got, ",") != "added.sh added,configs/x-master.yaml modified,drop.sh deleted" {
		t.Errorf("files %v", got)
	}
	if b, err := fx.Head.ReadFile(ctx, "extra.txt"); err != nil || string(b) != "base only\n" {
		t.Error("head must include the base overlay", err)
	}
	if _, err := fx.Head.ReadFile(ctx, "drop.sh"); !checks.IsNotExist(err) {
		t.Error("deleted file still in head")
	}
	es, err := fx.Head.ReadDir(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Path)
	}
	if strings.Join(names, ",") != "added.sh,configs,extra.txt,keep.sh" {
		t.Errorf("head root = %v", names)
	}
	if _, err := LoadFixture(ctx, filepath.Join(root, "prs")); err == nil {
		t.Error("a directory without pr.json must fail")
	}
}

func TestFixturePatch(t *testing.T) {
	ctx := context.Background()
	root := writeTree(t, map[string]string{
		"trees/shared/log.yaml": "- a: 1\n\n- a: 2\n",
		"trees/shared/old.sh":   "x\n",
		"trees/shared/rm.sh":    "y\n",
		"prs/p/pr.json":         `{"number": 9, "tree": "../../trees/shared"}`,
		"prs/p/pr.patch": `diff --git a/log.yaml b/log.yaml
--- a/log.yaml
+++ b/log.yaml
@@ -1,3 +1,5 @@
 - a: 1
 
 - a: 2
+
+- a: 3
diff --git a/old.sh b/new.sh
similarity index 100%
rename from old.sh
rename to new.sh
diff --git a/rm.sh b/rm.sh
deleted file mode 100644
--- a/rm.sh
+++ /dev/null
@@ -1 +0,0 @@
-y
diff --git a/add.sh b/add.sh
new file mode 100644
--- /dev/null
+++ b/add.sh
@@ -0,0 +1 @@
+z
`,
	})
	fx, err := LoadFixture(ctx, filepath.Join(root, "prs", "p"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fx.Files {
		got = append(got, fmt.Sprintf("%s:%s:%v", f.Path, f.Status, f.AddedLines()))
	}
	want := "add.sh:added:[1],log.yaml:modified:[4 5],new.sh:renamed:[],rm.sh:deleted:[]"
	if strings.Join(got, ",") != want {
		t.Errorf("got %v\nwant %s", got, want)
	}
	// A patch that does not apply is an error naming the file.
	bad := writeTree(t, map[string]string{
		"p/pr.json":  `{"number": 1}`,
		"p/base/f":   "a\n",
		"p/pr.patch": "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-zzz\n+b\n",
	})
	if _, err := LoadFixture(ctx, filepath.Join(bad, "p")); err == nil || !strings.Contains(err.Error(), "apply to f") {
		t.Errorf("bad patch: %v", err)
	}
}
