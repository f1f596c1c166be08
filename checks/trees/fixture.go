package trees

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Fixture is a fixture PR: a directory holding
//
//	pr.json   the PR metadata, the review date and the shared tree
//	base/     files of the base tree (laid over the shared tree)
//	head/     files the PR adds or changes (laid over the base)
//	base.patch a git-style diff applied to the shared tree and base/ (optional)
//	pr.patch  a git-style diff applied on top of base and head/ (optional)
//
// A patch keeps a one-line change to a large shared file (a master config,
// the changelog) a one-line fixture instead of a copy of the whole file;
// `git diff --no-index` of the two versions writes one.
//
// pr.json:
//
//	{"number": 2225, "owner": "SemiAnalysisAI", "repo": "InferenceX",
//	 "author": "someone", "labels": ["full-sweep-fail-fast"],
//	 "date": "2026-08-07",             // review date (optional)
//	 "tree": "../../trees/inferencex", // shared base tree, relative (optional)
//	 "delete": ["path/removed.sh"],    // files the PR deletes (optional)
//	 "expect": ["CL001 perf-changelog.yaml:120"]} // findings the test requires
//
// Keeping the unchanged repository in one shared tree keeps each fixture
// down to the files its PR touches.
type Fixture struct {
	Dir        string
	Base, Head checks.Tree
	Files      []*checks.FileChange
	// NotReviewed are the files left out of Files because they could not
	// be read (a named pipe in head/).
	NotReviewed []checks.NotReviewed
	PR          checks.PRInfo
	Date        time.Time
	Expect      []string
}

// FixtureMeta is the content of a fixture's pr.json.
type FixtureMeta struct {
	checks.PRInfo
	Date   string   `json:"date,omitempty"`
	Tree   string   `json:"tree,omitempty"`
	Delete []string `json:"delete,omitempty"`
	// Expect lists the findings a fixture must produce, each as
	// "RULE path:line", written by hand so the golden files cannot drift
	// silently. Empty means the PR must produce no finding.
	Expect []string `json:"expect,omitempty"`
}

// LoadFixture reads a fixture PR directory and computes its change.
func LoadFixture(ctx context.Context, dir string) (*Fixture, error) {
	raw, err := readFixtureFile(dir, "pr.json")
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %w", dir, err)
	}
	var meta FixtureMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, fmt.Errorf("fixture %s: pr.json: %w", dir, err)
	}
	fx := &Fixture{Dir: dir, PR: meta.PRInfo, Expect: meta.Expect}
	if meta.Date != "" {
		if fx.Date, err = time.Parse("2006-01-02", meta.Date); err != nil {
			return nil, fmt.Errorf("fixture %s: pr.json date: %w", dir, err)
		}
	}
	var shared checks.Tree
	if meta.Tree != "" {
		treeDir := filepath.FromSlash(meta.Tree)
		if !filepath.IsAbs(treeDir) {
			treeDir = filepath.Join(dir, treeDir)
		}
		if shared, err = OpenDir(treeDir); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", dir, err)
		}
	}
	layer := func(name string) (checks.Tree, error) {
		// Not followed: a head/ that links elsewhere would review that.
		st, err := os.Lstat(filepath.Join(dir, name))
		switch {
		case os.IsNotExist(err):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("fixture %s: %w", dir, err)
		case !st.IsDir():
			return nil, fmt.Errorf("fixture %s: %s is a %s, not a directory", dir, name, fileKind(st.Mode()))
		}
		return OpenDir(filepath.Join(dir, name))
	}
	baseLayer, err := layer("base")
	if err != nil {
		return nil, err
	}
	headLayer, err := layer("head")
	if err != nil {
		return nil, err
	}
	fx.Base = &Overlay{Lower: shared, Upper: baseLayer}
	if fx.Base, err = patchLayer(ctx, dir, "base.patch", fx.Base); err != nil {
		return nil, err
	}
	removed := map[string]bool{}
	for _, p := range meta.Delete {
		removed[checks.CleanPath(p)] = true
	}
	fx.Head = &Overlay{Lower: fx.Base, Upper: headLayer, Removed: removed}
	if fx.Head, err = patchLayer(ctx, dir, "pr.patch", fx.Head); err != nil {
		return nil, err
	}
	if fx.Files, fx.NotReviewed, err = diffTrees(ctx, fx.Base, fx.Head); err != nil {
		return nil, fmt.Errorf("fixture %s: %w", dir, err)
	}
	return fx, nil
}

// Change returns the fixture as a checks.Change.
func (fx *Fixture) Change() *checks.Change {
	ch := &checks.Change{Base: fx.Base, Head: fx.Head, Files: fx.Files, PR: fx.PR, Date: fx.Date}
	for _, n := range fx.NotReviewed {
		ch.Skip(n.Path, n.Reason)
	}
	return ch
}

// readFixtureFile reads a file of the fixture itself (pr.json, a patch):
// a regular file, never a link followed out of the fixture or a named
// pipe opened.
func readFixtureFile(dir, name string) ([]byte, error) {
	root, rel, st, err := lstatNoFollow(dir, name)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPathError(err)}
	}
	defer root.Close()
	if !st.Mode().IsRegular() {
		return nil, checks.NotRegular(name, fileKind(st.Mode()))
	}
	return readNoFollow(root, rel, name, st)
}

// patchLayer applies the fixture's patch file name to tree, if it exists.
func patchLayer(ctx context.Context, dir, name string, tree checks.Tree) (checks.Tree, error) {
	patch, err := readFixtureFile(dir, name)
	if os.IsNotExist(err) {
		return tree, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %w", dir, err)
	}
	t, err := applyPatch(ctx, tree, patch)
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %s: %w", dir, name, err)
	}
	return t, nil
}

// applyPatch returns tree with a git-style patch applied: patched and new
// files in an in-memory layer, deleted and renamed-away files removed.
func applyPatch(ctx context.Context, tree checks.Tree, patch []byte) (checks.Tree, error) {
	files, _, err := gitdiff.Parse(bytes.NewReader(patch))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file diffs in the patch")
	}
	upper := map[string]string{}
	removed := map[string]bool{}
	for _, f := range files {
		var src []byte
		if !f.IsNew {
			if src, err = tree.ReadFile(ctx, f.OldName); err != nil {
				return nil, fmt.Errorf("%s: %w", f.OldName, err)
			}
		}
		if f.IsDelete {
			removed[checks.CleanPath(f.OldName)] = true
			continue
		}
		var out bytes.Buffer
		if err := gitdiff.Apply(&out, bytes.NewReader(src), f); err != nil {
			return nil, fmt.Errorf("apply to %s: %w", f.NewName, err)
		}
		if f.IsRename {
			removed[checks.CleanPath(f.OldName)] = true
		}
		upper[f.NewName] = out.String()
	}
	return &Overlay{Lower: tree, Upper: checks.NewMemTree(upper), Removed: removed}, nil
}
