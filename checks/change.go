package checks

import (
	"sort"
	"sync"
	"time"
)

// FileStatus says what the PR did to a file.
type FileStatus string

const (
	Added    FileStatus = "added"
	Modified FileStatus = "modified"
	Deleted  FileStatus = "deleted"
	Renamed  FileStatus = "renamed"
)

// LineOp marks a diff line: context, added or removed.
type LineOp byte

const (
	OpContext LineOp = ' '
	OpAdd     LineOp = '+'
	OpDelete  LineOp = '-'
)

// DiffLine is one line of a hunk. Old is its line number in base (0 for
// added lines), New its line number in head (0 for removed lines).
type DiffLine struct {
	Op   LineOp
	Text string
	Old  int
	New  int
}

// Hunk is one hunk of a unified diff.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []DiffLine
}

// FileChange is the diff of one file.
type FileChange struct {
	// Path is the file's path in head; for a deleted file, its base path.
	Path string
	// OldPath is the path in base ("" for an added file).
	OldPath string
	Status  FileStatus
	Binary  bool
	Hunks   []Hunk

	once    sync.Once
	added   map[int]bool
	anchors []int // head lines before which base lines were removed
}

func (f *FileChange) index() {
	f.once.Do(func() {
		f.added = map[int]bool{}
		for _, h := range f.Hunks {
			next := h.NewStart
			if h.NewLines == 0 {
				next = h.NewStart + 1
			}
			for _, l := range h.Lines {
				switch l.Op {
				case OpAdd:
					f.added[l.New] = true
					next = l.New + 1
				case OpContext:
					next = l.New + 1
				case OpDelete:
					f.anchors = append(f.anchors, next)
				}
			}
		}
		sort.Ints(f.anchors)
	})
}

// IsAdded reports whether head line n was added or changed by the PR. A
// binary file has no lines to comment on.
func (f *FileChange) IsAdded(n int) bool {
	if f == nil || f.Binary {
		return false
	}
	if f.Status == Added {
		return n > 0
	}
	f.index()
	return f.added[n]
}

// AddedLines lists the head lines the PR added or changed, ascending.
func (f *FileChange) AddedLines() []int {
	if f == nil {
		return nil
	}
	f.index()
	out := make([]int, 0, len(f.added))
	for n := range f.added {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// RemovedLines lists the base lines the PR removed or changed, ascending.
func (f *FileChange) RemovedLines() []int {
	if f == nil {
		return nil
	}
	var out []int
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Op == OpDelete {
				out = append(out, l.Old)
			}
		}
	}
	sort.Ints(out)
	return out
}

// Touches reports whether the PR changed anything within head lines
// start..end: an added line inside, or base lines removed strictly inside
// the range (after start, at or before end).
func (f *FileChange) Touches(start, end int) bool {
	if f == nil {
		return false
	}
	if end < start {
		end = start
	}
	if f.Status == Added {
		return true
	}
	f.index()
	for n := start; n <= end; n++ {
		if f.added[n] {
			return true
		}
	}
	i := sort.SearchInts(f.anchors, start+1)
	return i < len(f.anchors) && f.anchors[i] <= end
}

// TouchesFrom reports whether the PR changed anything from head line start
// to the end of the file: an added line at or after start, or base lines
// removed after it.
func (f *FileChange) TouchesFrom(start int) bool {
	if f == nil {
		return false
	}
	if f.Status == Added {
		return true
	}
	f.index()
	for n := range f.added {
		if n >= start {
			return true
		}
	}
	i := sort.SearchInts(f.anchors, start+1)
	return i < len(f.anchors)
}

// HeadLine returns the head line where base line n is, or, for a line the
// PR removed, where it was: the head line that follows the removal (the
// last head line when the removal ends the file). Lines outside the hunks
// move by the lines added and removed above them. It is where a finding
// about something the PR deleted belongs on the head side.
func (f *FileChange) HeadLine(n int) int {
	if f == nil || n <= 0 {
		return n
	}
	delta := 0 // head minus base, above the current hunk
	for _, h := range f.Hunks {
		if n < h.OldStart || h.OldLines == 0 && n == h.OldStart {
			break
		}
		if n >= h.OldStart+h.OldLines {
			delta = h.NewStart + h.NewLines - (h.OldStart + h.OldLines)
			continue
		}
		next := h.NewStart
		if h.NewLines == 0 {
			next = h.NewStart + 1
		}
		for _, l := range h.Lines {
			switch l.Op {
			case OpContext:
				if l.Old == n {
					return l.New
				}
				next = l.New + 1
			case OpAdd:
				next = l.New + 1
			case OpDelete:
				if l.Old == n {
					return f.removedAt(h, next)
				}
			}
		}
		return n + delta
	}
	return n + delta
}

// removedAt is the head line a removal at next stands before: next itself
// unless the hunk ends the file there, then the hunk's last head line.
func (f *FileChange) removedAt(h Hunk, next int) int {
	if last := h.NewStart + h.NewLines - 1; next > last && h.NewLines > 0 {
		// Nothing of the hunk follows the removal; the line after the
		// hunk, if any, is unknown here, so stay on the hunk's last line.
		return last
	}
	return max(next, 1)
}

// Changed reports whether the file's content differs between base and head
// (a pure rename or a mode change does not count).
func (f *FileChange) Changed() bool {
	if f == nil {
		return false
	}
	return f.Status == Added || f.Status == Deleted || f.Binary || len(f.Hunks) > 0
}

// PRInfo is the pull request's metadata.
type PRInfo struct {
	Number  int      `json:"number"`
	Owner   string   `json:"owner,omitempty"`
	Repo    string   `json:"repo,omitempty"`
	Author  string   `json:"author,omitempty"`
	Labels  []string `json:"labels,omitempty"`
	BaseSHA string   `json:"base_sha,omitempty"`
	HeadSHA string   `json:"head_sha,omitempty"`
	Title   string   `json:"title,omitempty"`
	Body    string   `json:"body,omitempty"`
}

// DefaultOwner and DefaultRepo name the reviewed repository when nothing
// says otherwise.
const (
	DefaultOwner = "SemiAnalysisAI"
	DefaultRepo  = "InferenceX"
)

// RepoSlug returns owner/repo, defaulting to SemiAnalysisAI/InferenceX.
func (p PRInfo) RepoSlug() string {
	owner, repo := p.Owner, p.Repo
	if owner == "" {
		owner = DefaultOwner
	}
	if repo == "" {
		repo = DefaultRepo
	}
	return owner + "/" + repo
}

// Change is everything a rule may read about one pull request.
type Change struct {
	Base, Head Tree
	Files      []*FileChange
	PR         PRInfo
	// Date is the review date for date-dependent rules (MODELS.md
	// deprecations). Zero means today.
	Date time.Time
	// Config is the repository configuration; nil means "load
	// .github/reviewbot.yml from Base and autodetect the layout".
	Config *Config
	// Cache keeps parsed files across reviews (may be nil).
	Cache *ParseCache
	// Budget bounds the review's work; nil means DefaultBudget.
	Budget *Budget

	memoMu sync.Mutex
	memo   map[memoID]*memoEntry

	skipMu  sync.Mutex
	skipped map[string]string // see Skip

	// byPath and byOld index Files for File (rules ask it per sibling,
	// and a PR of thousands of files would make a scan the square).
	filesMu sync.Mutex
	indexed int         // len(Files) when the index was built
	first   *FileChange // and Files[0]
	byPath  map[string]*FileChange
	byOld   map[string]*FileChange
}

type memoEntry struct {
	once sync.Once
	val  any
	err  error
}

// File returns the diff of the file at head path p (or base path, for a
// deleted or renamed file), or nil when the PR does not touch it.
func (c *Change) File(p string) *FileChange {
	p = CleanPath(p)
	c.filesMu.Lock()
	defer c.filesMu.Unlock()
	var first *FileChange
	if len(c.Files) > 0 {
		first = c.Files[0]
	}
	if c.byPath == nil || c.indexed != len(c.Files) || c.first != first {
		c.byPath = make(map[string]*FileChange, len(c.Files))
		c.byOld = map[string]*FileChange{}
		for _, f := range c.Files {
			if _, ok := c.byPath[f.Path]; !ok {
				c.byPath[f.Path] = f
			}
			if _, ok := c.byOld[f.OldPath]; !ok && f.OldPath != "" && f.Status != Added {
				c.byOld[f.OldPath] = f
			}
		}
		c.indexed, c.first = len(c.Files), first
	}
	if f := c.byPath[p]; f != nil {
		return f
	}
	return c.byOld[p]
}

// MemoKey names a result the rules of one change share (a parsed model of
// the change, a listing) and carries the result's type: Shared with a key
// of another type, or a function returning another type, does not compile.
// Keys are compared by identity: declare each once, as a package variable.
type MemoKey[T any] struct{ name string }

// NewMemoKey returns a key; name is for debugging only.
func NewMemoKey[T any](name string) *MemoKey[T] { return &MemoKey[T]{name: name} }

// String is the key's name.
func (k *MemoKey[T]) String() string { return k.name }

// memoID is one shared result: a key and the argument it was asked for
// (a path, an engine; "" when the key needs none).
type memoID struct {
	key any
	arg string
}

// Shared computes fn once per change for key and arg and returns its
// result to every caller; rules of one domain share their parsed model of
// the change this way.
func Shared[T any](c *Change, key *MemoKey[T], arg string, fn func() (T, error)) (T, error) {
	id := memoID{key: key, arg: arg}
	c.memoMu.Lock()
	if c.memo == nil {
		c.memo = map[memoID]*memoEntry{}
	}
	e, ok := c.memo[id]
	if !ok {
		e = &memoEntry{}
		c.memo[id] = e
	}
	c.memoMu.Unlock()
	e.once.Do(func() { e.val, e.err = fn() })
	v, _ := e.val.(T)
	return v, e.err
}

// Today is the review date, truncated to the day.
func (c *Change) Today() time.Time {
	d := c.Date
	if d.IsZero() {
		d = time.Now()
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
}
