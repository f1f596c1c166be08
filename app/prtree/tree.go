package prtree

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path"
	"sort"
	"sync"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/google/go-github/v62/github"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
)

// maxBlobBytes bounds the files a review reads: the largest real files
// (master configs, the perf changelog) are under a megabyte.
const maxBlobBytes = 32 << 20

// Caches are the caches every API tree of the server shares.
type Caches struct {
	blobs *state.BlobCache
	// shared is the blob tier in Redis, behind blobs (nil: none).
	shared *state.BlobTier
	trees  *state.LRU[*treeListing]
	// fetchLimit bounds the concurrent blob fetches of one bulk read.
	fetchLimit int
	// blobFlight merges concurrent fetches of one blob (two trees of one
	// review, or two reviews, asking for the same sibling), and of one
	// archive.
	blobFlight singleflight.Group
	// archiveBytes bounds the archive of a revision read in one piece
	// (0: never read archives); see SetArchiveBytes.
	archiveBytes int64
	observer     state.CacheObserver
}

// SetArchiveBytes sets the most a merge base's tarball may hold
// uncompressed for the App to read it in one piece (0 or less: never;
// the trees API and a call per file instead). It is capped at half the
// blob cache: the archive's files go there, and one revision must not
// flush every other.
func (c *Caches) SetArchiveBytes(n int64) {
	c.archiveBytes = max(0, min(n, c.blobs.Budget()/2))
}

// NewCaches returns the caches of a server: blobs, then the shared tier
// (nil: none); tree listings within treeBudget bytes; at most fetchLimit
// blob fetches at once per bulk read.
func NewCaches(blobs *state.BlobCache, shared *state.BlobTier, treeBudget int64, fetchLimit int, o state.CacheObserver) *Caches {
	c := &Caches{blobs: blobs, shared: shared, fetchLimit: fetchLimit, observer: o,
		trees: state.NewLRU("tree", treeBudget, func(k string, l *treeListing) int64 { return int64(len(k)) + l.bytes }, o)}
	c.SetArchiveBytes(DefaultArchiveBytes)
	return c
}

// BlobStats are the bytes and entries of the blob cache.
func (c *Caches) BlobStats() (int64, int) { return c.blobs.Stats() }

// TreeStats are the bytes, entries and budget of the tree listings.
func (c *Caches) TreeStats() (int64, int, int64) {
	b, n := c.trees.Stats()
	return b, n, c.trees.Budget()
}

// treeListing is one git tree as the Git data API lists it: a whole
// revision (recursive) or one directory.
type treeListing struct {
	entries  map[string]checks.Entry // path (relative to the listed tree) → entry
	children map[string][]string     // directory → child paths, sorted
	// truncated is set on a recursive listing GitHub cut short; such a
	// listing is not used, the tree is read directory by directory.
	truncated bool
	sha       string // the tree's own SHA
	// bytes estimates what the listing holds, for the cache's budget.
	bytes int64
}

// treeEntryBytes is what one entry of a listing costs: its path twice (the
// map key and the children list), its SHA, and the bookkeeping.
const treeEntryBytes = 200

// apiTree is a revision of a repository read through the Git data API:
// one recursive tree call, then blobs by SHA on demand, cached by SHA. It
// implements checks.Tree and checks.BulkReader.
type apiTree struct {
	gh          *github.Client
	owner, repo string
	commit      string
	caches      *Caches

	loadOnce sync.Once
	loadErr  error
	listing  *treeListing // nil in per-directory mode
	rootSHA  string

	dirMu sync.Mutex
	dirs  map[string]*treeListing // per-directory mode: dir → listing

	// fallbackOwner/fallbackRepo are read instead when the repository
	// answers 404 (a fork's head, also kept in the base repository).
	fallbackOwner, fallbackRepo string

	// treeSHA, when set, is the commit's root tree SHA, and the revision
	// is read from its tarball when the archive checks against it.
	treeSHA string

	// derive rebuilds head files from the base version and the PR's patch
	// (verified against the blob SHA), which costs no call when the base
	// blob is cached.
	derive map[string]derivation
}

type derivation struct {
	from  *apiTree
	old   string // path in from; "" for an added file
	patch *gitdiff.File
}

// NewTree is commit of owner/repo read through the API with caches.
func NewTree(gh *github.Client, owner, repo, commit string, caches *Caches) checks.Tree {
	return newAPITree(gh, owner, repo, commit, caches)
}

// NewTreeOf is NewTree of a commit whose root tree SHA is known (a
// branch's head): the commit is then read as one tarball, checked against
// that tree, as a merge base is.
func NewTreeOf(gh *github.Client, owner, repo, commit, treeSHA string, caches *Caches) checks.Tree {
	t := newAPITree(gh, owner, repo, commit, caches)
	t.treeSHA = treeSHA
	return t
}

func newAPITree(gh *github.Client, owner, repo, commit string, caches *Caches) *apiTree {
	return &apiTree{gh: gh, owner: owner, repo: repo, commit: commit, caches: caches, dirs: map[string]*treeListing{}}
}

func (t *apiTree) where() string { return fmt.Sprintf("%s/%s@%.12s", t.owner, t.repo, t.commit) }

// load lists the whole revision with one recursive tree call (cached by
// commit SHA), or falls back to per-directory listing when GitHub
// truncates it.
func (t *apiTree) load(ctx context.Context) error {
	t.loadOnce.Do(func() {
		key := "r:" + t.commit
		if l, ok := t.caches.trees.Get(key); ok {
			t.listing, t.rootSHA = l, l.sha
			if l.truncated {
				t.listing = nil
			}
			return
		}
		if l := t.fromArchive(ctx, key); l != nil {
			t.listing, t.rootSHA = l, l.sha
			return
		}
		tree, _, err := t.gh.Git.GetTree(ctx, t.owner, t.repo, t.commit, true)
		if err != nil && ghapi.IsNotFound(err) && t.fallbackOwner != "" {
			// A fork the App cannot read (private, or deleted): GitHub keeps
			// the PR's head commits in the base repository too.
			t.owner, t.repo, t.fallbackOwner = t.fallbackOwner, t.fallbackRepo, ""
			tree, _, err = t.gh.Git.GetTree(ctx, t.owner, t.repo, t.commit, true)
		}
		if err != nil {
			t.loadErr = fmt.Errorf("list tree %s: %w", t.where(), err)
			return
		}
		l := listingOf(tree, "")
		if tree.GetTruncated() {
			// Keep only the root SHA; the entries are incomplete.
			l = &treeListing{truncated: true, sha: tree.GetSHA()}
		}
		t.caches.trees.Put(key, l)
		t.rootSHA = l.sha
		if !l.truncated {
			t.listing = l
		}
	})
	return t.loadErr
}

// fromArchive reads the revision from its tarball when that is wanted
// and possible: the listing (cached under key, as a tree call's) or nil,
// when the trees API must be asked. The archive's files stay in the blob
// cache even when its listing is not trusted: they are named by content.
func (t *apiTree) fromArchive(ctx context.Context, key string) *treeListing {
	if t.treeSHA == "" || t.caches.archiveBytes <= 0 {
		return nil
	}
	v, err, _ := t.caches.blobFlight.Do("tar:"+t.owner+"/"+t.repo+"@"+t.commit, func() (any, error) {
		if l, ok := t.caches.trees.Get(key); ok {
			return l, nil
		}
		a, err := fetchArchive(ctx, t.gh, t.owner, t.repo, t.commit, t.caches.archiveBytes)
		if err != nil {
			return nil, err
		}
		for sha, b := range a.blobs {
			t.caches.blobs.Put(sha, b)
		}
		if !a.verified(t.treeSHA) {
			return nil, fmt.Errorf("the tarball of %s is not tree %.12s", t.where(), t.treeSHA)
		}
		t.caches.trees.Put(key, a.listing)
		return a.listing, nil
	})
	if t.caches.observer != nil {
		t.caches.observer.CacheLookup("archive", err == nil)
	}
	if err != nil {
		return nil
	}
	return v.(*treeListing)
}

// listingOf indexes a tree response; prefix is the path of the listed
// directory (per-directory mode).
func listingOf(tree *github.Tree, prefix string) *treeListing {
	l := &treeListing{entries: map[string]checks.Entry{}, children: map[string][]string{}, sha: tree.GetSHA()}
	for _, e := range tree.Entries {
		p := checks.CleanPath(path.Join(prefix, e.GetPath()))
		var entry checks.Entry
		switch e.GetType() {
		case "tree":
			entry = checks.Entry{Path: p, IsDir: true, ID: e.GetSHA()}
		case "blob":
			entry = checks.Entry{Path: p, Size: int64(e.GetSize()), ID: e.GetSHA()}
		default:
			continue // submodules have no content here
		}
		l.entries[p] = entry
	}
	l.index()
	return l
}

// index fills l's children from its entries (an empty directory has an
// empty list, sorted lists otherwise) and estimates its bytes: the one
// indexing of a listing read from the trees API or an archive.
func (l *treeListing) index() {
	for p := range l.entries {
		parent := parentOf(p)
		l.children[parent] = append(l.children[parent], p)
	}
	for p, e := range l.entries {
		if _, ok := l.children[p]; e.IsDir && !ok {
			l.children[p] = nil
		}
	}
	for _, c := range l.children {
		sort.Strings(c)
	}
	l.bytes = 256
	for p := range l.entries {
		l.bytes += int64(2*len(p)) + treeEntryBytes
	}
}

// dir returns the listing of directory dir in per-directory mode.
func (t *apiTree) dir(ctx context.Context, dir string) (*treeListing, error) {
	t.dirMu.Lock()
	l, ok := t.dirs[dir]
	t.dirMu.Unlock()
	if ok {
		return l, nil
	}
	sha := t.rootSHA
	if dir != "" {
		parent := path.Dir(dir)
		if parent == "." {
			parent = ""
		}
		pl, err := t.dir(ctx, parent)
		if err != nil {
			return nil, err
		}
		e, ok := pl.entries[dir]
		if !ok || !e.IsDir {
			return nil, checks.NotExist(dir)
		}
		sha = e.ID
	}
	key := "d:" + sha
	l, ok = t.caches.trees.Get(key)
	if !ok {
		tree, _, err := t.gh.Git.GetTree(ctx, t.owner, t.repo, sha, false)
		if err != nil {
			return nil, fmt.Errorf("list %s/ in %s: %w", dir, t.where(), err)
		}
		l = listingOf(tree, "")
		t.caches.trees.Put(key, l)
	}
	// Directory listings are cached by tree SHA with names relative to the
	// directory; rebase them onto dir for this tree.
	rebased := &treeListing{entries: map[string]checks.Entry{}, children: map[string][]string{}, sha: l.sha}
	for _, name := range l.children[""] {
		e := l.entries[name]
		e.Path = checks.CleanPath(path.Join(dir, name))
		rebased.entries[e.Path] = e
		rebased.children[dir] = append(rebased.children[dir], e.Path)
	}
	t.dirMu.Lock()
	t.dirs[dir] = rebased
	t.dirMu.Unlock()
	return rebased, nil
}

// Stat implements checks.Tree.
func (t *apiTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	p = checks.CleanPath(p)
	if err := t.load(ctx); err != nil {
		return checks.Entry{}, err
	}
	if p == "" {
		return checks.Entry{Path: "", IsDir: true, ID: t.rootSHA}, nil
	}
	if t.listing != nil {
		if e, ok := t.listing.entries[p]; ok {
			return e, nil
		}
		return checks.Entry{}, checks.NotExist(p)
	}
	parent := path.Dir(p)
	if parent == "." {
		parent = ""
	}
	l, err := t.dir(ctx, parent)
	if err != nil {
		return checks.Entry{}, err
	}
	if e, ok := l.entries[p]; ok {
		return e, nil
	}
	return checks.Entry{}, checks.NotExist(p)
}

// ReadDir implements checks.Tree.
func (t *apiTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	dir = checks.CleanPath(dir)
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	l := t.listing
	if l == nil {
		var err error
		if l, err = t.dir(ctx, dir); err != nil {
			return nil, err
		}
	} else if dir != "" {
		if e, ok := l.entries[dir]; !ok || !e.IsDir {
			return nil, checks.NotExist(dir)
		}
	}
	children := l.children[dir]
	out := make([]checks.Entry, 0, len(children))
	for _, c := range children {
		out = append(out, l.entries[c])
	}
	return out, nil
}

// ReadFile implements checks.Tree.
func (t *apiTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	e, err := t.Stat(ctx, p)
	if err != nil {
		return nil, err
	}
	if e.IsDir {
		return nil, checks.NotRegular(p, "directory")
	}
	if e.Size > maxBlobBytes {
		return nil, fmt.Errorf("read %s in %s: %d bytes is more than the App reads (%d)", p, t.where(), e.Size, maxBlobBytes)
	}
	if b, ok := t.caches.blobs.Get(e.ID); ok {
		return b, nil
	}
	if d, ok := t.derive[e.Path]; ok {
		if b, ok := t.derived(ctx, d, e.ID); ok {
			return b, nil
		}
	}
	return t.fetchBlob(ctx, e)
}

// derived rebuilds a file from its base version and the PR's patch. The
// result is used only when it hashes to the blob SHA GitHub lists, so a
// patch that does not describe the file exactly costs a fetch, never a
// wrong file.
func (t *apiTree) derived(ctx context.Context, d derivation, sha string) ([]byte, bool) {
	var src []byte
	if d.old != "" {
		var err error
		if src, err = d.from.ReadFile(ctx, d.old); err != nil {
			return nil, false
		}
	}
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, bytes.NewReader(src), d.patch); err != nil {
		return nil, false
	}
	if checks.BlobID(out.Bytes()) != sha {
		return nil, false
	}
	t.caches.blobs.Put(sha, out.Bytes())
	return out.Bytes(), true
}

func (t *apiTree) fetchBlob(ctx context.Context, e checks.Entry) ([]byte, error) {
	v, err, _ := t.caches.blobFlight.Do(e.ID, func() (any, error) {
		if b, ok := t.caches.blobs.Get(e.ID); ok {
			return b, nil
		}
		if b, ok := t.caches.shared.Get(ctx, e.ID); ok {
			t.caches.blobs.Put(e.ID, b)
			return b, nil
		}
		b, _, err := t.gh.Git.GetBlobRaw(ctx, t.owner, t.repo, e.ID)
		if err != nil {
			return nil, err
		}
		if checks.BlobID(b) != e.ID {
			return nil, fmt.Errorf("blob %s: content does not match its SHA", e.ID)
		}
		t.caches.blobs.Put(e.ID, b)
		t.caches.shared.Put(ctx, e.ID, b)
		return b, nil
	})
	if err != nil {
		if ghapi.IsStatus(err, http.StatusNotFound) {
			return nil, checks.NotExist(e.Path)
		}
		return nil, fmt.Errorf("read %s in %s: %w", e.Path, t.where(), err)
	}
	return v.([]byte), nil
}

// ReadFiles implements checks.BulkReader: the files are fetched
// concurrently, a bounded number at a time. Files that fail to load are
// left out; reading them again reports the error.
func (t *apiTree) ReadFiles(ctx context.Context, paths []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(paths))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(t.caches.fetchLimit, 1))
	for _, p := range paths {
		g.Go(func() error {
			b, err := t.ReadFile(gctx, p)
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				return nil
			}
			mu.Lock()
			out[p] = b
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

var _ checks.BulkReader = (*apiTree)(nil)
