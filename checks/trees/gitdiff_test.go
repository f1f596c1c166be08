package trees

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reviewbot-dev/reviewbot/checks"
)

var ignoreIndex = cmpopts.IgnoreUnexported(checks.FileChange{})

func ctxLine(text string, old, new int) checks.DiffLine {
	return checks.DiffLine{Op: checks.OpContext, Text: text, Old: old, New: new}
}
func addLine(text string, new int) checks.DiffLine {
	return checks.DiffLine{Op: checks.OpAdd, Text: text, New: new}
}
func delLine(text string, old int) checks.DiffLine {
	return checks.DiffLine{Op: checks.OpDelete, Text: text, Old: old}
}

// summary is a FileChange without its lines, for comparing whole diffs.
type summary struct {
	Path, OldPath string
	Status        checks.FileStatus
	Binary        bool
	Hunks         int
}

func summarize(files []*checks.FileChange) []summary {
	out := make([]summary, 0, len(files))
	for _, f := range files {
		out = append(out, summary{f.Path, f.OldPath, f.Status, f.Binary, len(f.Hunks)})
	}
	return out
}

func TestRepoDiff(t *testing.T) {
	f := newFixture(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	f.git("clone", "-q", "--bare", f.dir, bare)
	ctx := context.Background()

	wantSummary := []summary{
		{"bin.dat", "bin.dat", checks.Modified, true, 0},
		{"changelog.yaml", "changelog.yaml", checks.Modified, false, 2},
		{"docs/c d.txt", "docs/a b.txt", checks.Renamed, false, 0},
		{"docs/old name.txt", "docs/old name.txt", checks.Modified, false, 1},
		{"empty.txt", "", checks.Added, false, 0},
		{"gone.txt", "gone.txt", checks.Deleted, false, 1},
		{"moved/edit.txt", "mv/edit.txt", checks.Renamed, false, 1},
		{"moved/pure.txt", "mv/pure.txt", checks.Renamed, false, 0},
		{"new dir/spaced file.txt", "", checks.Added, false, 1},
		{"noeol.txt", "noeol.txt", checks.Modified, false, 1},
		{"recipes/b.sh", "", checks.Added, false, 1},
		{"say \"hi\"\t\\.txt", "", checks.Added, false, 1},
		{"script.sh", "script.sh", checks.Modified, false, 0}, // mode only
		{"ünï.txt", "ünï.txt", checks.Modified, false, 1},
	}
	wantHunks := map[string][]checks.Hunk{
		"changelog.yaml": {
			{OldStart: 2, OldLines: 7, NewStart: 2, NewLines: 7, Lines: []checks.DiffLine{
				ctxLine("- entry: 2", 2, 2), ctxLine("- entry: 3", 3, 3), ctxLine("- entry: 4", 4, 4),
				delLine("- entry: 5", 5), addLine("- entry: five", 5),
				ctxLine("- entry: 6", 6, 6), ctxLine("- entry: 7", 7, 7), ctxLine("- entry: 8", 8, 8),
			}},
			{OldStart: 18, OldLines: 3, NewStart: 18, NewLines: 4, Lines: []checks.DiffLine{
				ctxLine("- entry: 18", 18, 18), ctxLine("- entry: 19", 19, 19), ctxLine("- entry: 20", 20, 20),
				addLine("- entry: 21", 21),
			}},
		},
		// "\ No newline at end of file" makes b a changed line.
		"noeol.txt": {
			{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 3, Lines: []checks.DiffLine{
				ctxLine("a", 1, 1), delLine("b", 2), addLine("b", 2), addLine("c", 3),
			}},
		},
		"moved/edit.txt": {
			{OldStart: 1, OldLines: 6, NewStart: 1, NewLines: 6, Lines: []checks.DiffLine{
				ctxLine("edit 1", 1, 1), ctxLine("edit 2", 2, 2),
				delLine("edit 3", 3), addLine("edit three", 3),
				ctxLine("edit 4", 4, 4), ctxLine("edit 5", 5, 5), ctxLine("edit 6", 6, 6),
			}},
		},
		"new dir/spaced file.txt": {
			{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 1, Lines: []checks.DiffLine{addLine("fresh", 1)}},
		},
		"gone.txt": {
			{OldStart: 1, OldLines: 1, NewStart: 0, NewLines: 0, Lines: []checks.DiffLine{delLine("bye", 1)}},
		},
		"ünï.txt": {
			{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []checks.DiffLine{delLine("héllo", 1), addLine("héllo wörld", 1)}},
		},
	}

	for _, tc := range []struct {
		name, dir, base, head string
	}{
		{"clone by sha", f.dir, f.c1, f.c2},
		{"clone by expression", f.dir, "HEAD~1", "HEAD"},
		{"bare by tag and branch", bare, "v1", "main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := openTestRepo(t, tc.dir)
			base, err := repo.Resolve(ctx, tc.base)
			if err != nil {
				t.Fatal(err)
			}
			head, err := repo.Resolve(ctx, tc.head)
			if err != nil {
				t.Fatal(err)
			}
			files, _, err := repo.Diff(ctx, base, head)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(wantSummary, summarize(files)); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			for _, fc := range files {
				want, ok := wantHunks[fc.Path]
				if !ok {
					continue
				}
				if d := cmp.Diff(want, fc.Hunks); d != "" {
					t.Errorf("%s hunks (-want +got):\n%s", fc.Path, d)
				}
			}
		})
	}

	t.Run("line queries", func(t *testing.T) {
		repo := openTestRepo(t, f.dir)
		files, _, err := repo.Diff(ctx, f.c1, f.c2)
		if err != nil {
			t.Fatal(err)
		}
		c := &checks.Change{Files: files}
		cl := c.File("changelog.yaml")
		if got := cl.AddedLines(); !cmp.Equal(got, []int{5, 21}) {
			t.Errorf("changelog AddedLines = %v, want [5 21]", got)
		}
		if got := cl.RemovedLines(); !cmp.Equal(got, []int{5}) {
			t.Errorf("changelog RemovedLines = %v, want [5]", got)
		}
		if c.File("mv/pure.txt").Changed() || c.File("script.sh").Changed() {
			t.Error("a pure rename or a mode change counts as changed content")
		}
	})

	t.Run("identical revisions", func(t *testing.T) {
		repo := openTestRepo(t, f.dir)
		files, _, err := repo.Diff(ctx, f.c2, f.c2)
		if err != nil || len(files) != 0 {
			t.Errorf("Diff(c2, c2) = %d files, %v", len(files), err)
		}
	})

	t.Run("bad revision", func(t *testing.T) {
		repo := openTestRepo(t, f.dir)
		if _, _, err := repo.Diff(ctx, "--output=/tmp/x", f.c2); err == nil {
			t.Error("Diff accepted an option as a revision")
		}
	})
}

func TestOpenChangeMergeBase(t *testing.T) {
	r := newTestRepo(t)
	shared := "- version: 1\n- version: 2\n- version: 3\n"
	r.write(map[string]string{"perf-changelog.yaml": shared, "README.md": "readme\n"})
	cut := r.commit("start")
	r.git("checkout", "-q", "-b", "feature")
	r.write(map[string]string{"perf-changelog.yaml": shared + "- version: branch\n"})
	branch := r.commit("branch entry")
	r.git("checkout", "-q", "main")
	r.write(map[string]string{"perf-changelog.yaml": shared + "- version: main\n", "main-only.txt": "later\n"})
	mainTip := r.commit("main entry")
	r.git("checkout", "-q", "--orphan", "unrelated")
	r.git("rm", "-q", "-r", "-f", ".")
	r.write(map[string]string{"perf-changelog.yaml": "- version: other\n"})
	orphan := r.commit("orphan")
	ctx := context.Background()

	t.Run("diff from the merge base", func(t *testing.T) {
		c, err := OpenChange(ctx, r.dir, "main", "feature")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.BaseSHA != cut || c.BaseTipSHA != mainTip || c.HeadSHA != branch || !c.HasMergeBase {
			t.Errorf("SHAs: base %s tip %s head %s merge base %v; want %s %s %s true", c.BaseSHA, c.BaseTipSHA, c.HeadSHA, c.HasMergeBase, cut, mainTip, branch)
		}
		want := []*checks.FileChange{{
			Path: "perf-changelog.yaml", OldPath: "perf-changelog.yaml", Status: checks.Modified,
			Hunks: []checks.Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 4, Lines: []checks.DiffLine{
				ctxLine("- version: 1", 1, 1), ctxLine("- version: 2", 2, 2), ctxLine("- version: 3", 3, 3),
				addLine("- version: branch", 4),
			}}},
		}}
		if d := cmp.Diff(want, c.Files, ignoreIndex); d != "" {
			t.Errorf("files (-want +got):\n%s", d)
		}
		// The base tree is the merge base's: main's later file is absent.
		if ok, err := checks.Exists(ctx, c.Base, "main-only.txt"); err != nil || ok {
			t.Errorf("main-only.txt in base tree: %v, %v", ok, err)
		}
		b, err := c.Head.ReadFile(ctx, "perf-changelog.yaml")
		if err != nil || string(b) != shared+"- version: branch\n" {
			t.Errorf("head changelog = %q, %v", b, err)
		}
	})

	t.Run("two-dot diff would show main's entry as removed", func(t *testing.T) {
		repo := openTestRepo(t, r.dir)
		files, _, err := repo.Diff(ctx, mainTip, branch)
		if err != nil {
			t.Fatal(err)
		}
		c := &checks.Change{Files: files}
		if got := c.File("perf-changelog.yaml").RemovedLines(); !cmp.Equal(got, []int{4}) {
			t.Errorf("two-dot RemovedLines = %v, want [4]", got)
		}
	})

	t.Run("unrelated histories", func(t *testing.T) {
		// Diffing from main's tip would present all of main as deleted: the
		// review must stop instead.
		c, err := OpenChange(ctx, r.dir, "main", "unrelated")
		var nmb *NoMergeBaseError
		if !errors.As(err, &nmb) {
			if c != nil {
				c.Close()
			}
			t.Fatalf("err = %v, want a NoMergeBaseError", err)
		}
		if nmb.Shallow || nmb.BaseSHA != mainTip || nmb.HeadSHA != orphan {
			t.Errorf("error %+v", nmb)
		}
		if !strings.Contains(err.Error(), "unrelated") || !strings.Contains(err.Error(), "merge-base SHA") {
			t.Errorf("message %q", err)
		}
	})

	t.Run("MergeBase", func(t *testing.T) {
		repo := openTestRepo(t, r.dir)
		for _, tc := range []struct {
			a, b, want string
			ok         bool
		}{
			{"main", "feature", cut, true},
			{mainTip, cut, cut, true},
			{"feature", "unrelated", "", false},
		} {
			got, ok, err := repo.MergeBase(ctx, tc.a, tc.b)
			if err != nil || got != tc.want || ok != tc.ok {
				t.Errorf("MergeBase(%s, %s) = %s, %v, %v; want %s, %v", tc.a, tc.b, got, ok, err, tc.want, tc.ok)
			}
		}
		if _, _, err := repo.MergeBase(ctx, "main", "nope"); err == nil {
			t.Error("MergeBase with an unknown revision succeeded")
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			dir, base, head, want string
		}{
			{r.dir, "nope", "feature", `unknown revision "nope" in ` + r.dir},
			{r.dir, "main", "-x", `invalid revision "-x": must not start with '-'`},
			{filepath.Join(r.dir, "missing"), "main", "feature", "repository " + filepath.Join(r.dir, "missing") + ": no such directory"},
		} {
			c, err := OpenChange(ctx, tc.dir, tc.base, tc.head)
			if err == nil {
				_ = c.Close()
				t.Errorf("OpenChange(%s, %s) succeeded", tc.base, tc.head)
				continue
			}
			if err.Error() != tc.want {
				t.Errorf("OpenChange(%s, %s) = %q, want %q", tc.base, tc.head, err, tc.want)
			}
		}
	})
}

func TestParsePatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		patch string
		want  []*checks.FileChange
	}{
		{
			name: "empty",
			want: []*checks.FileChange{},
		},
		{
			name: "hunk numbering around a removal",
			patch: `diff --git a/f.yaml b/f.yaml
index 1111111..2222222 100644
--- a/f.yaml
+++ b/f.yaml
@@ -10,5 +10,4 @@ section:
 ten
 eleven
-twelve
 thirteen
 fourteen
@@ -30,2 +29,3 @@
 thirty
+thirty and a half
 thirty-one
`,
			want: []*checks.FileChange{{
				Path: "f.yaml", OldPath: "f.yaml", Status: checks.Modified,
				Hunks: []checks.Hunk{
					{OldStart: 10, OldLines: 5, NewStart: 10, NewLines: 4, Lines: []checks.DiffLine{
						ctxLine("ten", 10, 10), ctxLine("eleven", 11, 11), delLine("twelve", 12),
						ctxLine("thirteen", 13, 12), ctxLine("fourteen", 14, 13),
					}},
					{OldStart: 30, OldLines: 2, NewStart: 29, NewLines: 3, Lines: []checks.DiffLine{
						ctxLine("thirty", 30, 29), addLine("thirty and a half", 30), ctxLine("thirty-one", 31, 31),
					}},
				},
			}},
		},
		{
			name: "quoted name",
			patch: `diff --git "a/tab\there.txt" "b/tab\there.txt"
index 1111111..2222222 100644
--- "a/tab\there.txt"
+++ "b/tab\there.txt"
@@ -1 +1 @@
-x
+y
`,
			want: []*checks.FileChange{{
				Path: "tab\there.txt", OldPath: "tab\there.txt", Status: checks.Modified,
				Hunks: []checks.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []checks.DiffLine{delLine("x", 1), addLine("y", 1)}}},
			}},
		},
		{
			name: "mode change with spaces",
			patch: `diff --git a/my file.sh b/my file.sh
old mode 100644
new mode 100755
`,
			want: []*checks.FileChange{{Path: "my file.sh", OldPath: "my file.sh", Status: checks.Modified}},
		},
		{
			name: "copy is an added file",
			patch: `diff --git a/src.txt b/dst.txt
similarity index 100%
copy from src.txt
copy to dst.txt
`,
			want: []*checks.FileChange{{Path: "dst.txt", Status: checks.Added}},
		},
		{
			name: "deleted file and added binary, sorted",
			patch: `diff --git a/z.txt b/z.txt
deleted file mode 100644
index 1111111..0000000
--- a/z.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-one
-two
\ No newline at end of file
diff --git a/img/a b.png b/img/a b.png
new file mode 100644
index 0000000..3333333
Binary files /dev/null and b/img/a b.png differ
`,
			want: []*checks.FileChange{
				{Path: "img/a b.png", Status: checks.Added, Binary: true},
				{Path: "z.txt", OldPath: "z.txt", Status: checks.Deleted, Hunks: []checks.Hunk{
					{OldStart: 1, OldLines: 2, Lines: []checks.DiffLine{delLine("one", 1), delLine("two", 2)}},
				}},
			},
		},
		{
			name: "rename with edit",
			patch: `diff --git a/old/x.sh b/new/x.sh
similarity index 80%
rename from old/x.sh
rename to new/x.sh
index 1111111..2222222 100755
--- a/old/x.sh
+++ b/new/x.sh
@@ -1,2 +1,2 @@
 #!/bin/bash
-echo old
+echo new
`,
			want: []*checks.FileChange{{
				Path: "new/x.sh", OldPath: "old/x.sh", Status: checks.Renamed,
				Hunks: []checks.Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []checks.DiffLine{
					ctxLine("#!/bin/bash", 1, 1), delLine("echo old", 2), addLine("echo new", 2),
				}}},
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePatch(strings.NewReader(tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, ignoreIndex); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	for _, patch := range []string{
		"@@ -1 +1 @@\n-x\n+y\n",
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x\n+y\n",
		"diff --git a/f b/f\nold mode 10x644\n",
	} {
		if files, err := ParsePatch(strings.NewReader(patch)); err == nil {
			t.Errorf("ParsePatch(%q) = %d files, want an error", patch, len(files))
		}
	}
}

// TestRepoDiffMissingBlob: a repository that lacks a changed file's
// content (a clone without its large files) still gives every other file
// its diff, and names the one it cannot read; reading it is a file not
// reviewed, not a failed review.
func TestRepoDiffMissingBlob(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"recipes/a.sh": "#!/bin/bash\necho a\n", "data/trace.jsonl": "{}\n"})
	c1 := r.commit("one")
	r.write(map[string]string{"recipes/a.sh": "#!/bin/bash\necho b\n", "data/trace.jsonl": "{\"big\": true}\n"})
	c2 := r.commit("two")
	blob := r.git("rev-parse", c2+":data/trace.jsonl")
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo, err := OpenRepo(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	files, skipped, err := repo.Diff(ctx, c1, c2)
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize(files); !cmp.Equal(got, []summary{{"recipes/a.sh", "recipes/a.sh", checks.Modified, false, 1}}) {
		t.Errorf("files %v", got)
	}
	if len(skipped) != 1 || skipped[0].Path != "data/trace.jsonl" || !strings.Contains(skipped[0].Reason, "missing from the repository") {
		t.Errorf("skipped %+v", skipped)
	}
	tree, err := repo.Tree(ctx, c2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.ReadFile(ctx, "data/trace.jsonl"); checks.AsNotRegular(err) == nil {
		t.Errorf("reading the missing blob: %v, want a file not reviewed", err)
	}
	if b, err := tree.ReadFile(ctx, "recipes/a.sh"); err != nil || string(b) != "#!/bin/bash\necho b\n" {
		t.Errorf("the other file: %q, %v", b, err)
	}
	es, err := tree.ReadDir(ctx, "data")
	if err != nil || len(es) != 1 {
		t.Errorf("listing the directory of the missing blob: %v, %v", es, err)
	}
}
