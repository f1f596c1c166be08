package sheval

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// MaxScriptBytes bounds the scripts the evaluator parses: a launcher or a
// recipe is a few dozen KB; anything far larger is not one.
const MaxScriptBytes = 1 << 20

// MaxNesting bounds how deeply a script's constructs may nest before the
// evaluator refuses to parse it (the parser and the walk recurse).
const MaxNesting = 200

// shKind names parsed shell files in the parse cache.
const shKind = "pipeline/sh/v1"

// TreeFiles reads and parses files of a tree for the evaluator, caching
// parsed scripts by blob in the change's parse cache and by path for the
// review.
type TreeFiles struct {
	ctx   context.Context
	tree  checks.Tree
	cache *checks.ParseCache

	mu     sync.Mutex
	parsed map[string]parsedSh
	stats  map[string]Stat
}

type parsedSh struct {
	f   *syntax.File
	err error
}

func NewTreeFiles(ctx context.Context, tree checks.Tree, cache *checks.ParseCache) *TreeFiles {
	return &TreeFiles{ctx: ctx, tree: tree, cache: cache, parsed: map[string]parsedSh{}, stats: map[string]Stat{}}
}

// Stat implements Files.
func (t *TreeFiles) Stat(p string) (Stat, error) {
	p = checks.CleanPath(p)
	t.mu.Lock()
	s, ok := t.stats[p]
	t.mu.Unlock()
	if ok {
		return s, nil
	}
	e, err := t.tree.Stat(t.ctx, p)
	switch {
	case checks.IsNotExist(err):
		s = Stat{}
	case err != nil:
		return Stat{}, err
	default:
		s = Stat{Exists: true, Dir: e.IsDir}
	}
	t.mu.Lock()
	t.stats[p] = s
	t.mu.Unlock()
	return s, nil
}

// Blob implements Files: the blob ID of a file ("" when it is absent).
func (t *TreeFiles) Blob(p string) string {
	e, err := t.tree.Stat(t.ctx, checks.CleanPath(p))
	if err != nil || e.IsDir {
		return ""
	}
	if e.ID != "" {
		return e.ID
	}
	b, err := t.tree.ReadFile(t.ctx, p)
	if err != nil {
		return ""
	}
	return checks.BlobID(b)
}

// Parse implements Files. A file git stores as a symlink reads as its
// target's path; it is followed within the tree.
func (t *TreeFiles) Parse(p string) (*syntax.File, error) {
	p = checks.CleanPath(p)
	t.mu.Lock()
	r, ok := t.parsed[p]
	t.mu.Unlock()
	if ok {
		return r.f, r.err
	}
	f, err := t.parse(p, 0)
	t.mu.Lock()
	t.parsed[p] = parsedSh{f, err}
	t.mu.Unlock()
	return f, err
}

func (t *TreeFiles) parse(p string, hops int) (*syntax.File, error) {
	if target, ok := t.symlink(p); ok && hops < 4 {
		return t.parse(target, hops+1)
	}
	return checks.Parsed(t.ctx, t.cache, t.tree, shKind, p, func(b []byte) (*syntax.File, error) {
		return ParseShell(p, b)
	})
}

// symlink returns the target of a file whose content is the relative path
// of another file of the tree (how git trees present symlinks).
func (t *TreeFiles) symlink(p string) (string, bool) {
	e, err := t.tree.Stat(t.ctx, p)
	if err != nil || e.IsDir || e.Size == 0 || e.Size > 256 {
		return "", false
	}
	b, err := t.tree.ReadFile(t.ctx, p)
	if err != nil || bytes.ContainsAny(b, "\n \t$;") {
		return "", false
	}
	target := checks.CleanPath(path.Join(path.Dir(p), string(b)))
	if target == p || strings.HasPrefix(target, "..") {
		return "", false
	}
	if s, err := t.tree.Stat(t.ctx, target); err != nil || s.IsDir {
		return "", false
	}
	return target, true
}

// ParseShell parses a script with the bounds every parse here has.
func ParseShell(name string, b []byte) (*syntax.File, error) {
	if len(b) > MaxScriptBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a script may have to be followed", name, len(b), MaxScriptBytes)
	}
	if d := NestingDepth(b); d > MaxNesting {
		return nil, fmt.Errorf("%s: nests %d levels deep, more than the %d followed", name, d, MaxNesting)
	}
	return script.ParseScript(name, b, false)
}

// NestingDepth over-estimates how deeply brackets and keywords nest, so a
// hostile script is refused before the recursive parser sees it.
func NestingDepth(b []byte) int {
	depth, top := 0, 0
	open := func() {
		depth++
		top = max(top, depth)
	}
	closeOne := func() {
		if depth > 0 {
			depth--
		}
	}
	start := -1
	word := func(end int) {
		if start < 0 {
			return
		}
		switch string(b[start:end]) {
		case "if", "case", "do":
			open()
		case "fi", "esac", "done":
			closeOne()
		}
		start = -1
	}
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			if start < 0 {
				start = i
			}
			continue
		}
		word(i)
		switch c {
		case '(', '{', '[':
			open()
		case ')', '}', ']':
			closeOne()
		}
	}
	word(len(b))
	return top
}

// Cache is the parse cache the files are read through (may be nil).
func (t *TreeFiles) Cache() *checks.ParseCache { return t.cache }
