package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/convention"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// runConventions prints the implications CV001 mines from a tree, so a
// maintainer can see what the bot believes before it says so on a PR.
func runConventions(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("conventions",
		"reviewbot conventions (--repo DIR --rev REV | --tree DIR) [--dir D] [--min-support N] [--min-confidence C] [--format text|json]")
	cmd.about = "Prints the conventions CV001 mines from the sibling recipes of each directory and engine."
	fs := cmd.fs
	repo := fs.String("repo", "", "mine the git repository in `DIR` (a clone or a bare repository)")
	rev := fs.String("rev", "", "the revision `REV` of --repo to mine (e.g. origin/main)")
	treeDir := fs.String("tree", "", "mine the plain directory `DIR` instead of --repo")
	dir := fs.String("dir", "", "only the recipes directly in directory `D` (default: every recipe directory)")
	minSupport := fs.Int("min-support", convention.DefaultThresholds.MinSupport, "`N` siblings that must do X")
	minConf := fs.Float64("min-confidence", convention.DefaultThresholds.MinConfidence, "fraction `C` of those that must also do Y, in (0, 1]")
	format := fs.String("format", "text", "output `FORMAT`: text or json")
	cfgFile := fs.String("config", "", "use the configuration in `FILE` instead of the tree's .github/reviewbot.yml")
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reviewbot conventions:", oneLine(err))
		return exitError
	}
	switch {
	case len(pos) > 0:
		return fail(fmt.Errorf("unexpected argument %q", pos[0]))
	case (*repo == "") == (*treeDir == ""):
		return fail(errors.New("give exactly one of --repo (with --rev) or --tree"))
	case *repo != "" && *rev == "":
		return fail(errors.New("--repo needs --rev (e.g. --rev origin/main)"))
	case *repo == "" && *rev != "":
		return fail(errors.New("--rev goes with --repo"))
	case *minSupport < 1:
		return fail(fmt.Errorf("--min-support %d: must be at least 1", *minSupport))
	case !(*minConf > 0 && *minConf <= 1):
		return fail(fmt.Errorf("--min-confidence %g: must be in (0, 1]", *minConf))
	case *format != "text" && *format != "json":
		return fail(fmt.Errorf("unknown --format %q (want text or json)", *format))
	}

	ctx := context.Background()
	var tree checks.Tree
	if *repo != "" {
		r, err := trees.OpenRepo(ctx, *repo)
		if err != nil {
			return fail(err)
		}
		defer r.Close()
		t, err := r.Tree(ctx, *rev)
		if err != nil {
			return fail(err)
		}
		tree = t
	} else {
		t, err := trees.OpenDir(*treeDir)
		if err != nil {
			return fail(err)
		}
		tree = t
	}
	var cfg *checks.Config
	if *cfgFile != "" {
		b, err := os.ReadFile(*cfgFile)
		if err != nil {
			return fail(fmt.Errorf("--config: %w", err))
		}
		c, err := checks.ParseConfigFile(b, *cfgFile)
		if err != nil {
			return fail(err)
		}
		cfg = c
	}
	th := convention.Thresholds{MinSupport: *minSupport, MinConfidence: *minConf}
	groups, err := convention.MineGroups(ctx, tree, cfg, *dir, th)
	if err != nil {
		return fail(err)
	}
	if *format == "json" {
		if groups == nil {
			groups = []convention.GroupResult{}
		}
		for i := range groups {
			if groups[i].Implications == nil {
				groups[i].Implications = []convention.Implication{}
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Thresholds convention.Thresholds    `json:"thresholds"`
			Groups     []convention.GroupResult `json:"groups"`
		}{th, groups}); err != nil {
			return fail(err)
		}
		return exitOK
	}
	writeConventionsText(stdout, groups, th)
	return exitOK
}

func writeConventionsText(w io.Writer, groups []convention.GroupResult, th convention.Thresholds) {
	if len(groups) == 0 {
		fmt.Fprintln(w, "no recipe sibling groups found")
		return
	}
	fmt.Fprintf(w, "Conventions held by at least %s of at least %d siblings (X ⇒ Y: every sibling that does X also does Y;\n"+
		"X ⇔ Y: always together). Implied ones are not repeated; --format json lists every implication.\n",
		convention.Percent(th.MinConfidence), th.MinSupport)
	for _, g := range groups {
		dir := g.Group.Dir
		if dir == "" {
			dir = "."
		}
		convs := convention.Reduce(g.Implications)
		fmt.Fprintf(w, "\n%s — %s, %d recipes: %d implications", dir, g.Group.Engine, g.Group.Size, len(g.Implications))
		if len(convs) != len(g.Implications) {
			fmt.Fprintf(w, " (%d shown)", len(convs))
		}
		fmt.Fprintln(w)
		for _, c := range convs {
			im := c.Implication
			if c.Together {
				fmt.Fprintf(w, "  %s\n", strings.Join(c.X, " ⇔ "))
			} else {
				fmt.Fprintf(w, "  %s ⇒ %s\n", strings.Join(c.X, " ≡ "), strings.Join(c.Y, " ≡ "))
			}
			scope := "same file"
			if im.Local {
				scope = "same branch"
			}
			fmt.Fprintf(w, "      %d/%d (%s), %s, contrast %d; e.g. %s\n", im.Followed, im.Support,
				convention.Percent(im.Confidence), scope, im.Contrast, im)
			fmt.Fprintf(w, "      follows: %s\n", witnesses(im.Followers, g.Group.Dir, true))
			if len(im.Exceptions) > 0 {
				fmt.Fprintf(w, "      exceptions: %s\n", witnesses(im.Exceptions, g.Group.Dir, false))
			}
		}
	}
}

// witnesses renders "file.sh:59←58, other.sh:42←40" (X line ← Y line),
// paths relative to the group's directory.
func witnesses(ws []convention.Witness, dir string, withY bool) string {
	parts := make([]string, 0, len(ws))
	for _, wt := range ws {
		p := wt.Path
		if dir != "" && path.Dir(p) == dir {
			p = path.Base(p)
		}
		s := fmt.Sprintf("%s:%d", p, wt.XLine)
		if withY && wt.YLine > 0 {
			s += fmt.Sprintf("←%d", wt.YLine)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
