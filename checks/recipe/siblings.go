package recipe

import (
	"context"
	"fmt"
	"path"
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// Sibling is a recipe of the same sibling group as the file under review:
// as it stands in the base tree, or, when the PR adds or changes it too, as
// the PR leaves it. A sibling the PR changes is evidence of what the author
// meant (in a real PR the B300 recipe of the same PR divided by TP), and its
// base version may no longer say anything the PR agrees with.
type Sibling struct {
	Path  string
	Facts *script.Facts
	// Changed is set when Facts are the PR's head version of the file.
	Changed bool
}

// Loc cites lines of the sibling as evidence, on the side its facts come
// from; a sibling the PR changed says so in the note.
func (s *Sibling) Loc(line, end int, note string) checks.Location {
	if s.Changed {
		if note != "" {
			note += " "
		}
		return headLoc(s.Path, line, end, note+"(changed in this PR)")
	}
	return baseLoc(s.Path, line, end, note)
}

// groupPaths lists the files of dir a sibling group is drawn from: the base
// tree's, plus the ones the PR adds; files the PR deletes are gone. The
// listing is made once per directory and review.
func groupPaths(ctx context.Context, ch *checks.Change, dir string, keep func(string) bool) ([]string, error) {
	v, err := checks.Shared(ch, listingKey, dir, func() ([]string, error) {
		seen := map[string]bool{}
		var paths []string
		for _, t := range []checks.Tree{ch.Base, ch.Head} {
			entries, err := t.ReadDir(ctx, dir)
			if err != nil {
				if checks.IsNotExist(err) {
					continue
				}
				return nil, err
			}
			for _, e := range entries {
				if e.IsDir || seen[e.Path] {
					continue
				}
				seen[e.Path] = true
				if fc := ch.File(e.Path); fc != nil && fc.Status == checks.Deleted {
					continue
				}
				paths = append(paths, e.Path)
			}
		}
		sort.Strings(paths)
		return paths, nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range v {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// changedByPR reports whether the PR adds or changes the file at head path p.
func changedByPR(ch *checks.Change, p string) bool {
	fc := ch.File(p)
	return fc != nil && fc.Path == p && fc.Status != checks.Deleted && fc.Changed()
}

// loadSibling loads a group member: its head version when the PR adds or
// changes it, else its base version.
func loadSibling(ctx context.Context, ch *checks.Change, p string) (*Sibling, error) {
	side, tree, changed := "base", ch.Base, false
	if changedByPR(ch, p) {
		side, tree, changed = "head", ch.Head, true
	}
	f, err := loadFacts(ctx, ch, side, tree, p)
	if err != nil || f == nil {
		return nil, err
	}
	return &Sibling{Path: p, Facts: f, Changed: changed}, nil
}

// factsKind names the recipe parser in the parse cache. The path is part
// of the kind because facts depend on it (Facts.Path, the engine guessed
// from the file name): two identical files at different paths must not
// share an entry.
const factsKind = "recipe.facts"

// loadFacts returns the facts of p in tree: cached across reviews by blob
// ID in ch.Cache, and within a review through checks.Shared. An absent file gives
// nil, nil; a script that does not parse gives a *ParseError.
func loadFacts(ctx context.Context, ch *checks.Change, side string, tree checks.Tree, p string) (*script.Facts, error) {
	p = checks.CleanPath(p)
	f, err := checks.Shared(ch, factsKey, side+"\x00"+p, func() (*script.Facts, error) {
		f, err := checks.Parsed(ctx, ch.Cache, tree, factsKind+"\x00"+p, p, func(b []byte) (*script.Facts, error) {
			return script.Parse(p, b)
		})
		if err != nil {
			if checks.IsNotExist(err) {
				return (*script.Facts)(nil), nil
			}
			// A file too large to read is too large to parse: skipped
			// like one, and reported by SH014.
			if be := checks.AsBudgetError(err); be != nil && be.TooLarge {
				return (*script.Facts)(nil), script.TooLargeError(p, be.Size)
			}
			return (*script.Facts)(nil), err
		}
		return f, nil
	})
	return f, err
}

// HeadFacts returns the facts of the file at head path p (nil when the
// head has no such file). A script that does not parse yields a
// *ParseError: rules other than SH014 should skip the file (see
// IsParseError).
func HeadFacts(ctx context.Context, ch *checks.Change, p string) (*script.Facts, error) {
	return loadFacts(ctx, ch, "head", ch.Head, p)
}

// BaseFacts returns the facts of the file before the PR: at its old path
// when the PR renamed it (p is the head path), nil when the file is new.
func BaseFacts(ctx context.Context, ch *checks.Change, p string) (*script.Facts, error) {
	p = checks.CleanPath(p)
	if fc := ch.File(p); fc != nil {
		switch {
		case fc.Status == checks.Added:
			return nil, nil
		case fc.OldPath != "":
			p = fc.OldPath
		}
	}
	return loadFacts(ctx, ch, "base", ch.Base, p)
}

// Siblings returns the recipes that share p's sibling group (what the
// repository agrees on): the recipes in the same directory with the same
// engine, excluding p itself (and its old path when renamed), as the base
// tree has them, or as the PR leaves them for the ones it adds or changes
// (Sibling.Changed). The engine is p's own at head, else at base, else the
// one its file name suggests; an unknown engine groups with unknown
// engines only. A recipe whose file name names another engine
// (x_sglang.sh next to a vLLM recipe) is not a sibling and is not parsed:
// the name is the repository's own statement of the engine, and trusting
// it spares parsing every other engine's recipes on a cold review.
// Siblings that do not parse are skipped. The result is computed once per
// review and sorted by path.
func Siblings(ctx context.Context, ch *checks.Change, p string) ([]*Sibling, error) {
	p = checks.CleanPath(p)
	sibs, err := checks.Shared(ch, siblingsKey, p, func() ([]*Sibling, error) {
		return siblings(ctx, ch, p)
	})
	return sibs, err
}

func siblings(ctx context.Context, ch *checks.Change, p string) ([]*Sibling, error) {
	engine, err := fileEngine(ctx, ch, p)
	if err != nil {
		return nil, err
	}
	cfg := ch.Settings(ctx)
	dir := dirOf(p)
	group, err := scriptGroup(ctx, ch, "siblings\x00"+string(engine), dir, func(sp string) bool {
		return cfg.IsRecipe(sp) && !OtherEngineByName(sp, engine)
	}, func(s *Sibling) bool { return s.Facts.Engine == engine })
	if err != nil {
		return nil, err
	}
	return groupWithout(ch, dir, group, p), nil
}

// dirOf is the directory of p as trees name it ("" for the root).
func dirOf(p string) string {
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	return dir
}

// scriptGroup loads the scripts of dir that keep selects (by path, before
// parsing) and member accepts (by facts), once per review and key: base
// versions, or the PR's for the ones it changes; scripts that do not parse
// are left out; sorted by path.
func scriptGroup(ctx context.Context, ch *checks.Change, key, dir string, keep func(string) bool, member func(*Sibling) bool) ([]*Sibling, error) {
	group, err := checks.Shared(ch, groupKey, key+"\x00"+dir, func() ([]*Sibling, error) {
		paths, err := groupPaths(ctx, ch, dir, keep)
		if err != nil {
			return nil, err
		}
		// Every candidate is parsed (a name that names no engine must be,
		// to learn the engine): on several cores, side by side.
		warmBaseFacts(ctx, ch, paths)
		var out []*Sibling
		for _, sp := range paths {
			s, err := loadSibling(ctx, ch, sp)
			if err != nil {
				if script.IsParseError(err) {
					continue
				}
				return nil, err
			}
			if s != nil && member(s) {
				out = append(out, s)
			}
		}
		return out, nil
	})
	return group, err
}

// maxChangedSiblings bounds how many of the scripts the PR itself adds or
// changes in a group a script is compared with. The base tree's scripts
// are what the repository agrees on and always all count; the PR's own
// are evidence of what its author meant, and comparing each of a PR's
// thousand new recipes with every other would cost the square of the PR.
// The largest real PR changed 123 recipes of one directory.
const maxChangedSiblings = 256

// groupWithout returns group less p and its old path, keeping the first
// maxChangedSiblings of the scripts the PR changes; when it drops some,
// it says so in the review's NotReviewed.
func groupWithout(ch *checks.Change, dir string, group []*Sibling, p string) []*Sibling {
	old := ""
	if fc := ch.File(p); fc != nil && fc.OldPath != "" {
		old = fc.OldPath
	}
	out := make([]*Sibling, 0, len(group))
	changed, dropped := 0, 0
	for _, s := range group {
		if s.Path == p || s.Path == old {
			continue
		}
		if s.Changed {
			if changed == maxChangedSiblings {
				dropped++
				continue
			}
			changed++
		}
		out = append(out, s)
	}
	if dropped > 0 {
		ch.Skip(dir+"/", fmt.Sprintf("this PR adds or changes more than %d scripts here: each was compared with the base tree's scripts and %d of the PR's, not with all of them", maxChangedSiblings, maxChangedSiblings))
	}
	return out
}

// OtherEngineByName reports whether the file name of recipe p (its base
// name, not its directories) names an engine other than engine. Such a
// recipe is not in engine's sibling group (see Siblings), so callers can
// skip it without parsing it. A name that names no engine says nothing:
// the script must be parsed to learn its engine.
func OtherEngineByName(p string, engine script.Engine) bool {
	e := script.EngineFromName(path.Base(p))
	return e != script.EngineUnknown && e != engine
}

// fileEngine is the engine p is grouped by.
func fileEngine(ctx context.Context, ch *checks.Change, p string) (script.Engine, error) {
	f, err := HeadFacts(ctx, ch, p)
	if err != nil && !script.IsParseError(err) {
		return script.EngineUnknown, err
	}
	if f == nil {
		if f, err = BaseFacts(ctx, ch, p); err != nil && !script.IsParseError(err) {
			return script.EngineUnknown, err
		}
	}
	if f != nil {
		return f.Engine, nil
	}
	return script.EngineFromName(p), nil
}

// The results the recipe rules share within a change.
var (
	listingKey  = checks.NewMemoKey[[]string]("recipe.listing")
	factsKey    = checks.NewMemoKey[*script.Facts]("recipe.facts")
	siblingsKey = checks.NewMemoKey[[]*Sibling]("recipe.siblings")
	groupKey    = checks.NewMemoKey[[]*Sibling]("recipe.group")
)
