package all

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// overlayTree is a tree with one file replaced.
type overlayTree struct {
	checks.Tree
	path    string
	content []byte
}

func (o overlayTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if checks.CleanPath(p) == o.path {
		return o.content, nil
	}
	return o.Tree.ReadFile(ctx, p)
}

func (o overlayTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	if checks.CleanPath(p) == o.path {
		return checks.Entry{Path: o.path, Size: int64(len(o.content)), ID: checks.BlobID(o.content)}, nil
	}
	return o.Tree.Stat(ctx, p)
}

func (o overlayTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	es, err := o.Tree.ReadDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	for i, e := range es {
		if e.Path == o.path {
			es[i] = checks.Entry{Path: o.path, Size: int64(len(o.content)), ID: checks.BlobID(o.content)}
		}
	}
	return es, nil
}

// applySuggestion replaces the suggestion's lines of src.
func applySuggestion(src []byte, s *checks.Suggestion) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	end := s.EndLine
	if end < s.Line {
		end = s.Line
	}
	if s.Line < 1 || end > len(lines) {
		return nil, fmt.Errorf("suggestion lines %d-%d outside the file's %d lines", s.Line, end, len(lines))
	}
	repl := s.Replacement
	if repl != "" && !strings.HasSuffix(repl, "\n") && strings.HasSuffix(lines[end-1], "\n") {
		repl += "\n"
	}
	out := strings.Join(lines[:s.Line-1], "") + repl + strings.Join(lines[end:], "")
	return []byte(out), nil
}

// identity names a finding independently of its line: lines move when a
// suggestion adds or removes some.
func identity(f checks.Finding) string { return f.Rule + "\x00" + f.Path + "\x00" + f.Key }

// TestSuggestionsFix applies every fixture finding's suggestion to the
// head, reviews again, and requires that the finding is gone and that no
// finding appears that was not there before: a suggestion the author
// commits with one click must fix what it says and break nothing else.
func TestSuggestionsFix(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "pr.json"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, prJSON := range dirs {
		dir := filepath.Dir(prJSON)
		fx, res := runFixture(t, dir)
		before := map[string]bool{}
		for _, f := range res.Findings {
			before[identity(f)] = true
		}
		for _, f := range res.Findings {
			if f.Suggestion == nil || f.Side == checks.Base {
				continue
			}
			n++
			f := f
			t.Run(fmt.Sprintf("%s/%s:%d", filepath.Base(dir), f.Rule, f.Line), func(t *testing.T) {
				ctx := context.Background()
				src, err := fx.Head.ReadFile(ctx, f.Path)
				if err != nil {
					t.Fatal(err)
				}
				fixed, err := applySuggestion(src, f.Suggestion)
				if err != nil {
					t.Fatal(err)
				}
				head := overlayTree{Tree: fx.Head, path: checks.CleanPath(f.Path), content: fixed}
				files, err := trees.Diff(ctx, fx.Base, head)
				if err != nil {
					t.Fatal(err)
				}
				ch := fx.Change()
				ch.Head, ch.Files = head, files
				if ch.Date.IsZero() {
					ch.Date = fixtureDate
				}
				res2, err := checks.Review(ctx, reg, ch)
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range res2.Findings {
					id := identity(g)
					if id == identity(f) {
						t.Errorf("%s still reported after its suggestion:\n%s", f.Rule, g.Body)
					} else if !before[id] {
						t.Errorf("the suggestion for %s brings a new finding: %s %s:%d %s", f.Rule, g.Rule, g.Path, g.Line, g.Title)
					}
				}
			})
		}
	}
	if n == 0 {
		t.Skip("no fixture finding carries a suggestion")
	}
}
