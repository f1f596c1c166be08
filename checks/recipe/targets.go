package recipe

// The scripts a recipe rule judges: the recipes and runner launchers a PR
// adds or changes, and their siblings in the base tree.

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// target is a script the PR adds or changes, with its facts.
type target struct {
	Path string
	File *checks.FileChange
	// Head is never nil.
	Head *script.Facts
	// Base is the version before the PR (at the old path for a rename);
	// nil for a new file or a base version that does not parse.
	Base *script.Facts

	ch *checks.Change
}

// sibLoc cites lines of another recipe as evidence: from the base tree,
// or from the PR's version when the PR adds or changes that recipe (as
// Siblings reads it), saying so.
func (t *target) sibLoc(p string, line, end int, note string) checks.Location {
	if t.ch != nil && changedByPR(t.ch, p) {
		s := Sibling{Path: p, Changed: true}
		return s.Loc(line, end, note)
	}
	return baseLoc(p, line, end, note)
}

// is reports whether p is this recipe: its path, or its old path when the
// PR renames it.
func (t *target) is(p string) bool {
	return p == t.Path || t.File != nil && t.File.OldPath != "" && p == t.File.OldPath
}

// isNew reports whether the PR adds the file.
func (t *target) isNew() bool { return t.File.Status == checks.Added }

// added reports whether the PR added or changed head line n.
func (t *target) added(n int) bool { return t.File.IsAdded(n) }

// headLineOf is the head line where base line n is, or where it was when
// the PR removed it (see checks.FileChange.HeadLine).
func (t *target) headLineOf(n int) int { return t.File.HeadLine(n) }

// touches reports whether the PR changed anything in head lines
// start..end (see checks.FileChange.Touches).
func (t *target) touches(start, end int) bool { return t.File.Touches(start, end) }

// changedRecipes returns the recipes (the configured recipe paths) the PR
// adds or modifies, in path order. Deleted files, pure renames and scripts
// whose head does not parse (SH014 reports those) are left out. The list
// is computed once per change.
func changedRecipes(p *checks.Pass) ([]*target, error) {
	return changedScripts(p, "recipe", (*checks.Config).IsRecipe)
}

// changedRunners is changedRecipes for the runner launchers.
func changedRunners(p *checks.Pass) ([]*target, error) {
	return changedScripts(p, "runner", (*checks.Config).IsRunner)
}

func changedScripts(p *checks.Pass, kind string, match func(*checks.Config, string) bool) ([]*target, error) {
	ch := p.Change
	ts, err := checks.Shared(ch, changedKey, kind, func() ([]*target, error) {
		cfg := ch.Settings(p.Ctx)
		var out []*target
		for _, fc := range ch.Files {
			if fc.Status == checks.Deleted || fc.Binary || !fc.Changed() || !match(cfg, fc.Path) {
				continue
			}
			head, err := HeadFacts(p.Ctx, ch, fc.Path)
			if err != nil {
				if script.IsParseError(err) {
					continue
				}
				return nil, err
			}
			if head == nil {
				continue
			}
			base, err := BaseFacts(p.Ctx, ch, fc.Path)
			if err != nil && !script.IsParseError(err) {
				return nil, err
			}
			out = append(out, &target{Path: fc.Path, File: fc, Head: head, Base: base, ch: ch})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
		return out, nil
	})
	return ts, err
}

// dirRecipes returns every recipe in p's directory at base, whatever its
// engine, excluding p and its old path: the group for conventions that do
// not depend on the engine (strict mode).
func dirRecipes(ctx context.Context, ch *checks.Change, p string) ([]*Sibling, error) {
	return dirScripts(ctx, ch, p, "recipe.dir", (*checks.Config).IsRecipe)
}

// dirScripts returns the scripts of p's directory that match (recipes,
// runners), excluding p and its old path, as Siblings does (base versions,
// or the PR's for the ones it changes). Scripts that do not
// parse are skipped; the result is sorted by path and computed once per
// review (kind names the memo).
func dirScripts(ctx context.Context, ch *checks.Change, p, kind string, match func(*checks.Config, string) bool) ([]*Sibling, error) {
	p = checks.CleanPath(p)
	sibs, err := checks.Shared(ch, dirScriptsKey, kind+"\x00"+p, func() ([]*Sibling, error) {
		cfg := ch.Settings(ctx)
		dir := dirOf(p)
		group, err := scriptGroup(ctx, ch, kind, dir, func(sp string) bool { return match(cfg, sp) },
			func(*Sibling) bool { return true })
		if err != nil {
			return nil, err
		}
		return groupWithout(ch, dir, group, p), nil
	})
	return sibs, err
}

// warmBaseFacts parses the base versions of paths concurrently, so that
// the first look at a large directory with a cold parse cache costs the
// parse time divided by the cores; the results land in the change's memo
// and parse cache, where loadFacts (and Siblings) find them. Errors are
// left for the caller's own loadFacts to report.
func warmBaseFacts(ctx context.Context, ch *checks.Change, paths []string) {
	workers := min(runtime.GOMAXPROCS(0), len(paths))
	if workers < 2 {
		return
	}
	// One bulk read where the tree supports it (a git tree).
	_ = checks.Prefetch(ctx, ch.Base, paths)
	next := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				if ctx.Err() == nil {
					_, _ = loadFacts(ctx, ch, "base", ch.Base, p)
				}
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
}

// eachChangedRecipe runs check on every recipe the PR adds or changes, in
// path order, and stops at the first error: the Run of a rule that judges
// one recipe at a time.
func eachChangedRecipe(p *checks.Pass, check func(*checks.Pass, *target) error) error {
	ts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := check(p, t); err != nil {
			return err
		}
	}
	return nil
}

// changedRecipesAndRunners returns the recipes, then the runner
// launchers, that the PR adds or changes: the scripts that run inside the
// benchmark container either way.
func changedRecipesAndRunners(p *checks.Pass) ([]*target, error) {
	recipes, err := changedRecipes(p)
	if err != nil {
		return nil, err
	}
	runners, err := changedRunners(p)
	if err != nil {
		return nil, err
	}
	return slices.Concat(recipes, runners), nil
}

// The script listings the recipe rules share within a change.
var (
	changedKey    = checks.NewMemoKey[[]*target]("recipe.changed")
	dirScriptsKey = checks.NewMemoKey[[]*Sibling]("recipe.dir")
)
