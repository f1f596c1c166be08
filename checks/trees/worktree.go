package trees

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Shallow reports whether the repository is a shallow clone (its history is
// cut off, as actions/checkout leaves it by default).
func (r *Repo) Shallow(ctx context.Context) (bool, error) {
	out, err := r.run(ctx, "rev-parse", "--is-shallow-repository")
	if err != nil {
		return false, fmt.Errorf("repository %s: %w", r.dir, err)
	}
	return strings.TrimSpace(string(out)) == "true", nil
}

// workTreeRoot returns the top directory of the repository's working tree.
func (r *Repo) workTreeRoot(ctx context.Context) (string, error) {
	if r.bare {
		return "", fmt.Errorf("repository %s is bare: it has no working tree to review", r.dir)
	}
	// -C at the opened directory: a linked worktree's git directory does not
	// say where its working tree is the way the directory itself does.
	cmd := exec.CommandContext(ctx, r.git, append(append([]string{"--no-pager", "-C", r.abs}, gitConfig...),
		"rev-parse", "--show-toplevel")...)
	cmd.Env = append(append([]string(nil), r.env...), "GIT_CEILING_DIRECTORIES="+filepath.Dir(r.abs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("repository %s has no working tree to review (%s)", r.dir, firstLine(stderr.String()))
	}
	top := strings.TrimSpace(stdout.String())
	if top == "" {
		return "", fmt.Errorf("repository %s has no working tree to review", r.dir)
	}
	return top, nil
}

// Dirty reports whether the working tree differs from the checked-out
// commit: staged or unstaged changes, or untracked files git does not
// ignore. A bare repository is never dirty.
func (r *Repo) Dirty(ctx context.Context) (bool, error) {
	if r.bare {
		return false, nil
	}
	top, err := r.workTreeRoot(ctx)
	if err != nil {
		return false, nil // a .git directory opened directly: nothing to compare
	}
	// GIT_OPTIONAL_LOCKS=0 (gitEnv) keeps status from rewriting the index.
	out, err := r.runIn(ctx, top, "status", "--porcelain", "-z", "--untracked-files=normal")
	if err != nil {
		return false, fmt.Errorf("status of %s: %w", r.dir, err)
	}
	return len(bytes.TrimSpace(out)) > 0, nil
}

// Worktree returns the working tree of the repository as a tree.
func (r *Repo) Worktree(ctx context.Context) (*WorktreeTree, error) {
	top, err := r.workTreeRoot(ctx)
	if err != nil {
		return nil, err
	}
	t := &WorktreeTree{repo: r, root: top}
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// diffWorktree is Diff from commit base to the working tree: git's diff
// of the tracked files, plus every untracked file as added.
func (r *Repo) diffWorktree(ctx context.Context, base string, wt *WorktreeTree) ([]*checks.FileChange, []checks.NotReviewed, error) {
	if err := checkRev(base); err != nil {
		return nil, nil, err
	}
	args := append(diffArgs(), base, "--")
	for _, p := range wt.specialPaths() {
		// git diff stops at a file it cannot hash ("unsupported file
		// type"): the special files are left out of it, and named as not
		// reviewed.
		args = append(args, ":(top,exclude,literal)"+p)
	}
	out, err := r.runIn(ctx, wt.root, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("diff %.12s..working tree in %s: %w", base, r.dir, err)
	}
	files, skipped := parseEachFile(out)
	for _, p := range wt.specialPaths() {
		skipped = append(skipped, checks.NotReviewed{Path: p, Reason: (&checks.NotRegularError{Kind: wt.special[p]}).Error()})
	}
	for _, p := range wt.untracked {
		fc, err := diffFile(ctx, nil, wt, "", p, checks.Added)
		if err != nil {
			skipped = append(skipped, checks.NotReviewed{Path: p, Reason: unreadable(err)})
			continue
		}
		files = append(files, fc)
	}
	sortChanges(files)
	return files, skipped, nil
}

// WorktreeTree is the working tree of a clone, a checks.Tree: the files git
// tracks or would track (untracked files that .gitignore does not exclude),
// with their content as it is on disk. Tracked files deleted on disk are
// absent. Entry IDs are git blob SHAs of the content on disk, computed on
// first use.
type WorktreeTree struct {
	repo *Repo
	root string // absolute top of the working tree

	index     *gitIndex // sizes and modes from disk; IDs filled lazily
	untracked []string  // sorted
	// special maps the tracked paths that are on disk neither a file nor
	// a link nor a directory (a named pipe) to what they are; they are
	// never opened.
	special map[string]string

	ids blobIDs
}

// Root is the top directory of the working tree.
func (t *WorktreeTree) Root() string { return t.root }

// Untracked lists the untracked files the tree includes, in path order.
func (t *WorktreeTree) Untracked() []string { return append([]string(nil), t.untracked...) }

// load lists the tracked and untracked paths once; the working tree is
// not expected to change while it is reviewed.
func (t *WorktreeTree) load(ctx context.Context) error {
	staged, err := t.repo.runIn(ctx, t.root, "ls-files", "-z", "--stage", "--cached")
	if err != nil {
		return fmt.Errorf("list working tree of %s: %w", t.repo.dir, err)
	}
	others, err := t.repo.runIn(ctx, t.root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return fmt.Errorf("list working tree of %s: %w", t.repo.dir, err)
	}
	idx := &gitIndex{
		entries:  map[string]gitEntry{"": {mode: modeDir}},
		children: map[string][]string{"": nil},
	}
	add := func(p string, e gitEntry) {
		if _, dup := idx.entries[p]; dup {
			return // one entry per path, whatever the merge stages
		}
		idx.entries[p] = e
		for child := p; child != ""; {
			parent := path.Dir(child)
			if parent == "." {
				parent = ""
			}
			_, known := idx.entries[parent]
			if !known {
				idx.entries[parent] = gitEntry{mode: modeDir}
			}
			idx.children[parent] = append(idx.children[parent], child)
			if known {
				break
			}
			child = parent
		}
	}
	// "<mode> <oid> <stage>\t<path>" records.
	for _, rec := range splitNUL(staged) {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || p == "" {
			return fmt.Errorf("list working tree of %s: unexpected ls-files record %q", t.repo.dir, rec)
		}
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			return fmt.Errorf("list working tree of %s: unexpected mode %q", t.repo.dir, f[0])
		}
		if mode == modeGitlink {
			add(p, gitEntry{mode: modeGitlink, id: f[1]})
			continue
		}
		if e, kind, ok := t.diskEntry(p); ok {
			add(p, e)
			if kind != "" {
				if t.special == nil {
					t.special = map[string]string{}
				}
				t.special[p] = kind
			}
		}
	}
	for _, p := range splitNUL(others) {
		// A nested repository shows as "dir/": it is not part of this tree.
		if strings.HasSuffix(p, "/") {
			continue
		}
		if _, tracked := idx.entries[p]; tracked {
			continue
		}
		if e, _, ok := t.diskEntry(p); ok {
			add(p, e)
			t.untracked = append(t.untracked, p)
		}
	}
	for _, c := range idx.children {
		sort.Strings(c)
	}
	sort.Strings(t.untracked)
	t.index = idx
	return nil
}

// diskEntry stats p; a path that is gone (a tracked file deleted but not
// yet committed) or is now a directory is not a file of the tree. kind
// says what p is when it is neither a regular file nor a link ("named
// pipe"): it is listed, but reading it is an error.
func (t *WorktreeTree) diskEntry(p string) (e gitEntry, kind string, ok bool) {
	root, _, st, err := lstatNoFollow(t.root, p)
	if err != nil {
		return gitEntry{}, "", false
	}
	root.Close()
	if st.IsDir() {
		return gitEntry{}, "", false
	}
	mode := uint32(0o100644)
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		mode = 0o120000
	case !st.Mode().IsRegular():
		kind = fileKind(st.Mode())
	}
	return gitEntry{mode: mode, size: st.Size()}, kind, true
}

// specialPaths lists the tracked paths that are special files, in order.
func (t *WorktreeTree) specialPaths() []string {
	ps := make([]string, 0, len(t.special))
	for p := range t.special {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

func splitNUL(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// Stat implements checks.Tree.
func (t *WorktreeTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	p = checks.CleanPath(p)
	e, ok := t.index.entries[p]
	if !ok {
		return checks.Entry{}, checks.NotExist(p)
	}
	out := e.entry(p)
	if e.isDir() || e.mode == modeGitlink {
		return out, nil
	}
	id, err := t.ids.get(p, func() ([]byte, error) { return t.ReadFile(ctx, p) })
	if err != nil {
		return checks.Entry{}, err
	}
	out.ID = id
	return out, nil
}

// ReadDir implements checks.Tree.
func (t *WorktreeTree) ReadDir(_ context.Context, dir string) ([]checks.Entry, error) {
	dir = checks.CleanPath(dir)
	e, ok := t.index.entries[dir]
	if !ok {
		return nil, checks.NotExist(dir)
	}
	if !e.isDir() {
		return nil, checks.NotDir(dir)
	}
	children := t.index.children[dir]
	out := make([]checks.Entry, 0, len(children))
	for _, c := range children {
		out = append(out, t.index.entries[c].entry(c))
	}
	return out, nil
}

// ReadFile implements checks.Tree. A symlink reads as its target path, as
// git would store it.
func (t *WorktreeTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	p = checks.CleanPath(p)
	e, ok := t.index.entries[p]
	switch {
	case !ok:
		return nil, checks.NotExist(p)
	case e.isDir():
		return nil, checks.NotRegular(p, "directory")
	case e.mode == modeGitlink:
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("is a submodule; its files are not in this repository")}
	}
	// Links are not followed in any component (a tracked directory that
	// became a link out of the tree reads nothing from there), and a named
	// pipe is never opened.
	root, name, st, err := lstatNoFollow(t.root, p)
	if err != nil {
		return nil, fmt.Errorf("read %s in the working tree: %w", p, unwrapPathError(err))
	}
	defer root.Close()
	if st.Mode().IsRegular() && st.Size() > maxGitRead {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("file is %d bytes, over the %d MiB limit", st.Size(), maxGitRead>>20)}
	}
	b, err := readNoFollow(root, name, p, st)
	if err != nil {
		return nil, fmt.Errorf("read %s in the working tree: %w", p, unwrapPathError(err))
	}
	return b, nil
}
