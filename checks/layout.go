package checks

import (
	"context"
	"path"
	"strings"
)

// FileKind is a kind of file the rules review, with the paths or globs the
// configuration (or the detected layout) says it lives at.
type FileKind struct {
	Name     string
	Patterns []string
}

func (k FileKind) String() string { return k.Name + " (" + strings.Join(k.Patterns, ", ") + ")" }

// ReviewedKinds are the kinds of file the rules review, where c says they
// are. Call it after ResolveLayout.
func (c *Config) ReviewedKinds() []FileKind {
	return []FileKind{
		{"perf changelog", []string{c.Paths.Changelog}},
		{"master configs", c.Paths.MasterConfigs},
		{"recipes", c.Paths.Recipes},
		{"runners", c.Paths.Runners},
	}
}

// Missing returns the reviewed kinds of which none of the trees has a
// file: the rules about them had nothing to look at, which a review must
// say rather than report "no problems".
func (c *Config) Missing(ctx context.Context, trees ...Tree) ([]FileKind, error) {
	var missing []FileKind
	for _, k := range c.ReviewedKinds() {
		found := false
		for _, t := range trees {
			var err error
			if found, err = hasAny(ctx, t, k.Patterns); err != nil {
				return nil, err
			}
			if found {
				break
			}
		}
		if !found {
			missing = append(missing, k)
		}
	}
	return missing, nil
}

func hasAny(ctx context.Context, t Tree, patterns []string) (bool, error) {
	for _, p := range patterns {
		if !strings.ContainsAny(p, "*?[{") {
			// A plain path: a Stat, not a walk of the whole tree.
			if ok, err := Exists(ctx, t, p); ok || err != nil {
				return ok, err
			}
			continue
		}
		files, err := GlobFiles(ctx, t, []string{p})
		if err != nil || len(files) > 0 {
			return len(files) > 0, err
		}
	}
	return false, nil
}

// InDeprecated reports whether p sits below a directory named deprecated:
// a file kept for history, which no config runs and no rule holds to
// today's conventions.
func InDeprecated(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "deprecated" {
			return true
		}
	}
	return false
}
