package pipeline

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

// maxScriptBytes bounds the scripts the evaluator parses: a launcher or a
// recipe is a few dozen KB; anything far larger is not one.
const maxScriptBytes = 1 << 20

// maxNesting bounds how deeply a script's constructs may nest before the
// evaluator refuses to parse it (the parser and the walk recurse).
const maxNesting = 200

// shKind names parsed shell files in the parse cache.
const shKind = "pipeline/sh/v1"

// treeFiles reads and parses files of a tree for the evaluator, caching
// parsed scripts by blob in the change's parse cache and by path for the
// review.
type treeFiles struct {
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

func newTreeFiles(ctx context.Context, tree checks.Tree, cache *checks.ParseCache) *treeFiles {
	return &treeFiles{ctx: ctx, tree: tree, cache: cache, parsed: map[string]parsedSh{}, stats: map[string]Stat{}}
}

// Stat implements Files.
func (t *treeFiles) Stat(p string) (Stat, error) {
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
func (t *treeFiles) Blob(p string) string {
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
func (t *treeFiles) Parse(p string) (*syntax.File, error) {
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

func (t *treeFiles) parse(p string, hops int) (*syntax.File, error) {
	if target, ok := t.symlink(p); ok && hops < 4 {
		return t.parse(target, hops+1)
	}
	return checks.Parsed(t.ctx, t.cache, t.tree, shKind, p, func(b []byte) (*syntax.File, error) {
		return parseShell(p, b)
	})
}

// symlink returns the target of a file whose content is the relative path
// of another file of the tree (how git trees present symlinks).
func (t *treeFiles) symlink(p string) (string, bool) {
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

// parseShell parses a script with the bounds every parse here has.
func parseShell(name string, b []byte) (*syntax.File, error) {
	if len(b) > maxScriptBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a script may have to be followed", name, len(b), maxScriptBytes)
	}
	if d := nestingDepth(b); d > maxNesting {
		return nil, fmt.Errorf("%s: nests %d levels deep, more than the %d followed", name, d, maxNesting)
	}
	return script.ParseScript(name, b, false)
}

// nestingDepth over-estimates how deeply brackets and keywords nest, so a
// hostile script is refused before the recursive parser sees it.
func nestingDepth(b []byte) int {
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
