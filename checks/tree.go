package checks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// Tree is one revision of the reviewed repository, read lazily. Paths are
// slash-separated and relative to the repository root; "" or "." is the
// root. A missing path yields an error that matches fs.ErrNotExist.
//
// Implementations: a git revision (checks/trees), a directory on disk
// (checks/trees) and, in the App, the GitHub contents API.
type Tree interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	ReadDir(ctx context.Context, dir string) ([]Entry, error)
	Stat(ctx context.Context, path string) (Entry, error)
}

// Entry describes a file or directory of a tree.
type Entry struct {
	Path  string // full path from the root
	IsDir bool
	Size  int64
	// ID identifies the content: the git blob SHA where the tree knows it.
	// Equal IDs mean equal bytes, so parsed results may be cached by ID.
	ID string
}

// Name is the last element of the entry's path.
func (e Entry) Name() string { return path.Base(e.Path) }

// CleanPath normalizes a tree path: no leading "./" or "/", no trailing
// slash, "" for the root.
func CleanPath(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	return strings.TrimPrefix(p, "/")
}

// IsNotExist reports whether err says a path is absent.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// NotExist returns the error trees use for absent paths.
func NotExist(p string) error {
	return &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

// NotRegularError is the error of reading a path that holds no file
// content: a directory, or in a tree on disk a named pipe, socket or
// device, which is never opened (opening a named pipe waits for a writer
// forever). A review names such a path as not reviewed instead of
// failing (Result.NotReviewed).
type NotRegularError struct {
	// Kind is what the path is: "directory", "named pipe", "socket",
	// "device", "special file"; "symbolic link" where a link is not
	// read as its target (a fixture's own files).
	Kind string
	// Why, when set, is why a file that is there cannot be read (its
	// content is missing from the repository); Kind is then "file".
	Why string
}

func (e *NotRegularError) Error() string {
	if e.Why != "" {
		return e.Why
	}
	return "a " + e.Kind + ", not a regular file"
}

// NotReviewed is the note naming p, which is e's kind, as not reviewed
// (a directory's path ends in "/").
func (e *NotRegularError) NotReviewed(p string) NotReviewed {
	if e.Kind == "directory" {
		p = strings.TrimSuffix(p, "/") + "/"
	}
	return NotReviewed{Path: p, Reason: e.Error()}
}

// NotRegular returns the error trees give for reading p, which is a kind
// (see NotRegularError.Kind) rather than a file.
func NotRegular(p, kind string) error {
	return &fs.PathError{Op: "read", Path: p, Err: &NotRegularError{Kind: kind}}
}

// Unreadable returns the error trees give for a file p that is there but
// whose content cannot be read, with why: the review names it as not
// reviewed, like a path that holds no file content.
func Unreadable(p, why string) error {
	return &fs.PathError{Op: "read", Path: p, Err: &NotRegularError{Kind: "file", Why: why}}
}

// AsNotRegular returns the *NotRegularError err is or wraps, or nil.
func AsNotRegular(err error) *NotRegularError {
	var nr *NotRegularError
	if errors.As(err, &nr) {
		return nr
	}
	return nil
}

// NotDir returns the error trees give for listing p, which is a file (a
// symbolic link is one) rather than a directory. It matches fs.ErrNotExist:
// no directory is at p, and nothing is beneath a file, so a walk of p
// finds no files, as it finds none beneath a link in git.
func NotDir(p string) error {
	return &fs.PathError{Op: "readdir", Path: p, Err: errNotDir{}}
}

type errNotDir struct{}

func (errNotDir) Error() string        { return "not a directory" }
func (errNotDir) Is(target error) bool { return target == fs.ErrNotExist }

// IsNotDir reports whether err is NotDir's: the path is a file.
func IsNotDir(err error) bool {
	var nd errNotDir
	return errors.As(err, &nd)
}

// MemTree is an in-memory tree, used by tests and by callers that already
// hold the files.
type MemTree struct {
	files map[string][]byte
	dirs  map[string][]string
}

// NewMemTree builds a tree from path → content.
func NewMemTree(files map[string]string) *MemTree {
	t := &MemTree{files: map[string][]byte{}, dirs: map[string][]string{}}
	for p, c := range files {
		t.files[CleanPath(p)] = []byte(c)
	}
	seen := map[string]bool{}
	for p := range t.files {
		for child := p; child != ""; {
			parent := path.Dir(child)
			if parent == "." {
				parent = ""
			}
			key := parent + "\x00" + child
			if !seen[key] {
				seen[key] = true
				t.dirs[parent] = append(t.dirs[parent], child)
			}
			child = parent
		}
	}
	for _, c := range t.dirs {
		sort.Strings(c)
	}
	return t
}

// ReadFile implements Tree.
func (t *MemTree) ReadFile(_ context.Context, p string) ([]byte, error) {
	b, ok := t.files[CleanPath(p)]
	if !ok {
		if _, dir := t.dirs[CleanPath(p)]; dir {
			return nil, NotRegular(p, "directory")
		}
		return nil, NotExist(p)
	}
	return b, nil
}

// ReadDir implements Tree.
func (t *MemTree) ReadDir(_ context.Context, dir string) ([]Entry, error) {
	dir = CleanPath(dir)
	children, ok := t.dirs[dir]
	if !ok {
		if _, file := t.files[dir]; file {
			return nil, NotDir(dir)
		}
		return nil, NotExist(dir)
	}
	out := make([]Entry, 0, len(children))
	for _, c := range children {
		e, _ := t.Stat(context.Background(), c)
		out = append(out, e)
	}
	return out, nil
}

// Stat implements Tree.
func (t *MemTree) Stat(_ context.Context, p string) (Entry, error) {
	p = CleanPath(p)
	if b, ok := t.files[p]; ok {
		return Entry{Path: p, Size: int64(len(b)), ID: BlobID(b)}, nil
	}
	if _, ok := t.dirs[p]; ok {
		return Entry{Path: p, IsDir: true}, nil
	}
	return Entry{}, NotExist(p)
}

// CachedTree memoizes another tree's reads for the duration of one review,
// so rules that look at the same siblings read each file once. It is safe
// for concurrent use.
type CachedTree struct {
	inner Tree
	mu    sync.Mutex
	files map[string]cachedRead
	dirs  map[string]cachedDir
	stats map[string]cachedStat
	// meter charges the review's budget for each file read (nil: no
	// budget); set by Review.
	meter *meter
	// skip names a path a read found not to be a file (NotRegularError)
	// as not reviewed (nil: not named); set by Review.
	skip func(path, reason string)
}

type cachedRead struct {
	b   []byte
	err error
}
type cachedDir struct {
	e   []Entry
	err error
}
type cachedStat struct {
	e   Entry
	err error
}

// NewCachedTree wraps t. Wrapping a CachedTree returns it unchanged.
func NewCachedTree(t Tree) *CachedTree {
	if c, ok := t.(*CachedTree); ok {
		return c
	}
	return &CachedTree{inner: t, files: map[string]cachedRead{}, dirs: map[string]cachedDir{}, stats: map[string]cachedStat{}}
}

// ReadFile implements Tree.
func (c *CachedTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = CleanPath(p)
	c.mu.Lock()
	r, ok := c.files[p]
	c.mu.Unlock()
	if ok {
		return r.b, r.err
	}
	size := int64(-1)
	if c.meter != nil {
		if e, err := c.Stat(ctx, p); err == nil && !e.IsDir {
			size = e.Size
		}
		if err := c.meter.allowRead(p, size); err != nil {
			return nil, err // not cached: the refusal is the review's, not the file's
		}
	}
	b, err := c.inner.ReadFile(ctx, p)
	if ctx.Err() != nil {
		return b, err // don't cache cancellations
	}
	if nr := AsNotRegular(err); nr != nil && c.skip != nil {
		// The rule that wanted a file here gets the error; the review
		// says the path was not reviewed rather than failing the rule.
		n := nr.NotReviewed(p)
		c.skip(n.Path, n.Reason)
	}
	c.meter.readDone(int64(len(b)), size)
	c.mu.Lock()
	c.files[p] = cachedRead{b, err}
	c.mu.Unlock()
	return b, err
}

// wasRead reports whether p was read through the tree.
func (c *CachedTree) wasRead(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.files[CleanPath(p)]
	return ok
}

// ReadDir implements Tree.
func (c *CachedTree) ReadDir(ctx context.Context, dir string) ([]Entry, error) {
	dir = CleanPath(dir)
	c.mu.Lock()
	r, ok := c.dirs[dir]
	c.mu.Unlock()
	if ok {
		return r.e, r.err
	}
	e, err := c.inner.ReadDir(ctx, dir)
	if ctx.Err() != nil {
		return e, err
	}
	c.mu.Lock()
	c.dirs[dir] = cachedDir{e, err}
	c.mu.Unlock()
	return e, err
}

// Stat implements Tree.
func (c *CachedTree) Stat(ctx context.Context, p string) (Entry, error) {
	p = CleanPath(p)
	c.mu.Lock()
	r, ok := c.stats[p]
	c.mu.Unlock()
	if ok {
		return r.e, r.err
	}
	e, err := c.inner.Stat(ctx, p)
	if ctx.Err() != nil {
		return e, err
	}
	c.mu.Lock()
	c.stats[p] = cachedStat{e, err}
	c.mu.Unlock()
	return e, err
}

// Exists reports whether p exists in t; errors other than "not found" are
// returned.
func Exists(ctx context.Context, t Tree, p string) (bool, error) {
	_, err := t.Stat(ctx, p)
	if err == nil {
		return true, nil
	}
	if IsNotExist(err) {
		return false, nil
	}
	return false, err
}

// Walk lists every file (not directory) under dir, depth first, in path
// order. A missing dir yields no files and no error.
func Walk(ctx context.Context, t Tree, dir string) ([]Entry, error) {
	entries, err := t.ReadDir(ctx, dir)
	if err != nil {
		if IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []Entry
	for _, e := range entries {
		if e.IsDir {
			sub, err := Walk(ctx, t, e.Path)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Snapshot reads every file of t into the path → content map NewMemTree
// takes, for a caller that edits a copy of a tree.
func Snapshot(ctx context.Context, t Tree) (map[string]string, error) {
	entries, err := Walk(ctx, t, "")
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		b, err := t.ReadFile(ctx, e.Path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Path, err)
		}
		out[e.Path] = string(b)
	}
	return out, nil
}

// BulkReader is implemented by trees that read many files faster in one
// request than one at a time (a git tree pipelines them to one process).
type BulkReader interface {
	// ReadFiles returns the content of every readable file among paths;
	// absent paths are left out.
	ReadFiles(ctx context.Context, paths []string) (map[string][]byte, error)
}

// Prefetch warms the cache with paths in one bulk read when the wrapped tree
// supports it; otherwise it does nothing and reads happen lazily.
func (c *CachedTree) Prefetch(ctx context.Context, paths []string) error {
	bulk, ok := c.inner.(BulkReader)
	if !ok {
		return nil
	}
	var want []string
	c.mu.Lock()
	for _, p := range paths {
		p = CleanPath(p)
		if _, done := c.files[p]; !done {
			want = append(want, p)
		}
	}
	c.mu.Unlock()
	if c.meter != nil {
		// What the budget refuses is left to the lazy read, which
		// refuses it again and says so.
		allowed := want[:0]
		for _, p := range want {
			size := int64(-1)
			if e, err := c.Stat(ctx, p); err == nil {
				size = e.Size
			}
			if size >= 0 && c.meter.allowRead(p, size) == nil {
				allowed = append(allowed, p)
			}
		}
		want = allowed
	}
	if len(want) == 0 {
		return nil
	}
	got, err := bulk.ReadFiles(ctx, want)
	if err != nil {
		return err
	}
	c.mu.Lock()
	for p, b := range got {
		c.files[CleanPath(p)] = cachedRead{b: b}
	}
	c.mu.Unlock()
	return nil
}

// Prefetch warms t's read cache with paths when t is a CachedTree.
func Prefetch(ctx context.Context, t Tree, paths []string) error {
	if c, ok := t.(*CachedTree); ok {
		return c.Prefetch(ctx, paths)
	}
	return nil
}
