// Package trees provides the checks.Tree implementations used outside the
// App: a revision of a local git repository (a clone or a bare repository),
// a directory on disk, and the overlay trees fixture PRs are made of; and
// the computation of the change between two trees.
package trees

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// DirTree is a directory on disk read as a tree, as git would store it: a
// symbolic link is a file whose content is its target, never followed,
// whatever component of a path it is (a `.github` that links outside the
// tree is a file, and nothing is read through it); nothing outside the
// directory is ever read. Files that are neither regular nor links (named
// pipes, sockets, devices) are listed but never opened: reading one is an
// error that names it.
type DirTree struct {
	root string

	ids blobIDs
}

// OpenDir returns the tree rooted at dir, which must exist.
func OpenDir(dir string) (*DirTree, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("tree directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("tree directory %s: not a directory", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &DirTree{root: abs}, nil
}

// Root is the directory the tree reads.
func (t *DirTree) Root() string { return t.root }

// lstat opens the tree's root and stats p in it without following a link
// in any component: a link on the way to p means p is not in the tree (in
// git, a link is a blob with nothing beneath it). The root is opened per
// call, so a DirTree holds no descriptor.
func (t *DirTree) lstat(p string) (*os.Root, string, fs.FileInfo, error) {
	return lstatNoFollow(t.root, p)
}

// lstatNoFollow is DirTree.lstat for any directory on disk.
func lstatNoFollow(dir, p string) (*os.Root, string, fs.FileInfo, error) {
	p = checks.CleanPath(p)
	if strings.HasPrefix(p, "..") {
		return nil, "", nil, checks.NotExist(p)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", nil, err
	}
	name := "."
	if p != "" {
		name = filepath.FromSlash(p)
	}
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		st, err := root.Lstat(filepath.FromSlash(strings.Join(parts[:i], "/")))
		if err != nil {
			root.Close()
			return nil, "", nil, err
		}
		if !st.IsDir() {
			root.Close()
			return nil, "", nil, checks.NotExist(p)
		}
	}
	st, err := root.Lstat(name)
	if err != nil {
		root.Close()
		return nil, "", nil, err
	}
	return root, name, st, nil
}

// ReadFile implements checks.Tree.
func (t *DirTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	root, name, st, err := t.lstat(p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return readNoFollow(root, name, p, st)
}

// readNoFollow reads a file of root as git stores it: a link's target, a
// regular file's bytes; anything else is a checks.NotRegularError, without
// opening it (a named pipe would block the read forever).
func readNoFollow(root *os.Root, name, p string, st fs.FileInfo) ([]byte, error) {
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := root.Readlink(name)
		return []byte(filepath.ToSlash(target)), err
	case !st.Mode().IsRegular():
		return nil, checks.NotRegular(p, fileKind(st.Mode()))
	}
	// Non-blocking, and checked again once open: the file may have been
	// swapped for a pipe since it was stat'ed.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, checks.NotRegular(p, fileKind(st.Mode()))
	}
	return io.ReadAll(f)
}

// fileKind names what a path that is not a regular file is
// (checks.NotRegularError.Kind).
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// ReadDir implements checks.Tree. Entries come in name order.
func (t *DirTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	root, name, st, err := t.lstat(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if !st.IsDir() {
		return nil, checks.NotDir(dir)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]checks.Entry, 0, len(des))
	for _, de := range des {
		if de.Name() == ".git" {
			continue
		}
		// A link to a directory is a link (a file), as git stores it.
		e := checks.Entry{Path: path.Join(checks.CleanPath(dir), de.Name()), IsDir: de.Type().IsDir()}
		if info, err := de.Info(); err == nil && !e.IsDir {
			e.Size = info.Size()
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Stat implements checks.Tree. A file's ID is the git blob SHA of its
// content, computed on first use; a special file has none.
func (t *DirTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	root, _, st, err := t.lstat(p)
	if err != nil {
		return checks.Entry{}, err
	}
	root.Close()
	p = checks.CleanPath(p)
	e := checks.Entry{Path: p, IsDir: st.IsDir()}
	if e.IsDir {
		return e, nil
	}
	e.Size = st.Size()
	if !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
		return e, nil
	}
	id, err := t.ids.get(p, func() ([]byte, error) { return t.ReadFile(ctx, p) })
	if err != nil {
		return checks.Entry{}, err
	}
	e.ID = id
	return e, nil
}

// Overlay is a tree made of a lower tree with an upper tree's files laid
// over it and some paths removed: how fixture PRs describe a head tree as
// "the base plus these files". Either layer may be nil. What the upper
// tree has at a path hides what the lower has there, and a file of the
// upper tree hides everything the lower has beneath its path: an upper
// `agentic` that is a link (a file) leaves no `agentic/x.sh` of the lower
// in the tree, and an upper directory where the lower has a file is a
// directory.
type Overlay struct {
	Lower, Upper checks.Tree
	Removed      map[string]bool
}

func (o *Overlay) layers() []checks.Tree {
	var ls []checks.Tree
	if o.Upper != nil {
		ls = append(ls, o.Upper)
	}
	if o.Lower != nil {
		ls = append(ls, o.Lower)
	}
	return ls
}

func (o *Overlay) removed(p string) bool {
	p = checks.CleanPath(p)
	for q := p; q != "" && q != "."; q = path.Dir(q) {
		if o.Removed[q] {
			return true
		}
	}
	return false
}

// hides reports whether layer l, which has nothing at p, has a file at an
// ancestor of p, which hides the layers below it there.
func hides(ctx context.Context, l checks.Tree, p string) (bool, error) {
	for q := path.Dir(checks.CleanPath(p)); q != "." && q != ""; q = path.Dir(q) {
		e, err := l.Stat(ctx, q)
		if err == nil {
			return !e.IsDir, nil
		}
		if !checks.IsNotExist(err) {
			return false, err
		}
	}
	return false, nil
}

// find calls try on each layer, upper first, until a layer has p; try's
// error matches fs.ErrNotExist when its layer has nothing at p.
func (o *Overlay) find(ctx context.Context, p string, try func(checks.Tree) error) error {
	if o.removed(p) {
		return checks.NotExist(p)
	}
	ls := o.layers()
	for i, l := range ls {
		err := try(l)
		if !checks.IsNotExist(err) {
			return err
		}
		if i == len(ls)-1 {
			break
		}
		if hidden, err := hides(ctx, l, p); err != nil || hidden {
			return cmp.Or(err, checks.NotExist(p))
		}
	}
	return checks.NotExist(p)
}

// ReadFile implements checks.Tree.
func (o *Overlay) ReadFile(ctx context.Context, p string) ([]byte, error) {
	var b []byte
	err := o.find(ctx, p, func(l checks.Tree) (err error) {
		b, err = l.ReadFile(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Stat implements checks.Tree.
func (o *Overlay) Stat(ctx context.Context, p string) (checks.Entry, error) {
	var e checks.Entry
	err := o.find(ctx, p, func(l checks.Tree) (err error) {
		e, err = l.Stat(ctx, p)
		return err
	})
	if err != nil {
		return checks.Entry{}, err
	}
	return e, nil
}

// ReadDir implements checks.Tree: the union of the layers that have a
// directory at dir, upper first, down to a layer that hides the ones
// below.
func (o *Overlay) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	if o.removed(dir) && checks.CleanPath(dir) != "" {
		return nil, checks.NotExist(dir)
	}
	seen := map[string]bool{}
	var out []checks.Entry
	found := false
	for _, l := range o.layers() {
		es, err := l.ReadDir(ctx, dir)
		if err != nil {
			if checks.IsNotDir(err) {
				// A file here: a directory above hides it, else the
				// overlay has a file at dir.
				if !found {
					return nil, err
				}
				break
			}
			if !checks.IsNotExist(err) {
				return nil, err
			}
			if hidden, err := hides(ctx, l, dir); err != nil {
				return nil, err
			} else if hidden {
				break
			}
			continue
		}
		found = true
		for _, e := range es {
			if seen[e.Path] || o.removed(e.Path) {
				continue
			}
			seen[e.Path] = true
			out = append(out, e)
		}
	}
	if !found {
		return nil, checks.NotExist(dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// blobIDs remembers the blob ID of each file read from disk, so a file is
// hashed once per tree.
type blobIDs struct {
	mu  sync.Mutex
	ids map[string]string
}

// get returns p's blob ID, hashing what read returns the first time.
func (b *blobIDs) get(p string, read func() ([]byte, error)) (string, error) {
	b.mu.Lock()
	id, ok := b.ids[p]
	b.mu.Unlock()
	if ok {
		return id, nil
	}
	data, err := read()
	if err != nil {
		return "", err
	}
	id = checks.BlobID(data)
	b.mu.Lock()
	if b.ids == nil {
		b.ids = map[string]string{}
	}
	b.ids[p] = id
	b.mu.Unlock()
	return id, nil
}
