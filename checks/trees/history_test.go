package trees

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAncestry(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"a.txt": "1\n"})
	c1 := r.commit("one")
	r.write(map[string]string{"a.txt": "2\n"})
	c2 := r.commit("two")
	r.git("checkout", "-q", "-b", "side", c1)
	r.write(map[string]string{"b.txt": "b\n"})
	c3 := r.commit("side")
	r.git("checkout", "-q", "main")
	r.git("merge", "-q", "--no-edit", "side")
	c4 := r.git("rev-parse", "HEAD")
	repo := openTestRepo(t, r.dir)
	ctx := context.Background()

	got, err := repo.Ancestry(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	var shas []string
	for _, c := range got {
		shas = append(shas, c.SHA)
	}
	// Newest first by committer date (the helper's clock ticks with every
	// git command); both parents of the merge are there.
	if diff := cmp.Diff([]string{c4, c3, c2, c1}, shas); diff != "" {
		t.Errorf("ancestry (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if !got[i].Date.Before(got[i-1].Date) {
			t.Errorf("dates %v not decreasing", got)
		}
	}
	if d := got[len(got)-1].Date; d.Location() != time.UTC || d.Unix() <= 1700000000 {
		t.Errorf("date of the first commit = %v", d)
	}
	// What main already has is left out: the side branch's own commit.
	got, err = repo.Ancestry(ctx, "side", c2)
	if err != nil || len(got) != 1 || got[0].SHA != c3 {
		t.Errorf("ancestry of side, not %.7s = %v, %v", c2, got, err)
	}
	if got, err = repo.Ancestry(ctx, "side", "main"); err != nil || len(got) != 0 {
		t.Errorf("ancestry of side, not main = %v, %v", got, err)
	}
	if _, err := repo.Ancestry(ctx, "side", "nothing"); err == nil {
		t.Error("ancestry with an unknown exclusion gave no error")
	}
	if _, err := repo.Ancestry(ctx, "refs/pull/9/head"); err == nil || !strings.Contains(err.Error(), "unknown revision") {
		t.Errorf("ancestry of a missing ref: %v", err)
	}
}

func TestFileIDs(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"dir/a b.txt": "1\n", "x.txt": "x\n"})
	c1 := r.commit("one")
	r.write(map[string]string{"dir/a b.txt": "2\n"})
	r.remove("x.txt")
	c2 := r.commit("two")
	r.write(map[string]string{"dir/a b.txt": "1\n"})
	c3 := r.commit("three: back to the first version")
	repo := openTestRepo(t, r.dir)
	ctx := context.Background()
	blob := func(rev string) string { return r.git("rev-parse", rev) }

	tests := []struct {
		path string
		want []string
	}{
		// A path with a space; c3 holds c1's blob again.
		{"dir/a b.txt", []string{blob(c1 + ":dir/a b.txt"), blob(c2 + ":dir/a b.txt"), blob(c1 + ":dir/a b.txt")}},
		{"./dir/a b.txt", []string{blob(c1 + ":dir/a b.txt"), blob(c2 + ":dir/a b.txt"), blob(c1 + ":dir/a b.txt")}},
		// Deleted in c2.
		{"x.txt", []string{blob(c1 + ":x.txt"), "", ""}},
		// A directory is no file.
		{"dir", []string{"", "", ""}},
		{"nothing", []string{"", "", ""}},
	}
	for _, tt := range tests {
		got, err := repo.FileIDs(ctx, []string{c1, c2, c3}, tt.path)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
	}
	b, err := repo.ReadBlob(ctx, blob(c2+":dir/a b.txt"))
	if err != nil || string(b) != "2\n" {
		t.Errorf("ReadBlob = %q, %v", b, err)
	}
	for _, bad := range []struct {
		commits []string
		path    string
	}{
		{[]string{c1}, "a\nb"},
		{[]string{c1}, ""},
		{[]string{"main"}, "x.txt"},
	} {
		if _, err := repo.FileIDs(ctx, bad.commits, bad.path); err == nil {
			t.Errorf("FileIDs(%q, %q) gave no error", bad.commits, bad.path)
		}
	}
	if _, err := repo.ReadBlob(ctx, "HEAD:x.txt"); err == nil || !strings.Contains(err.Error(), "not an object ID") {
		t.Errorf("ReadBlob of a revision expression: %v", err)
	}
	if ids, err := repo.FileIDs(ctx, nil, "x.txt"); err != nil || ids != nil {
		t.Errorf("FileIDs of no commits = %v, %v", ids, err)
	}
}
