package recipe

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH017 reports a git clone the PR writes that nothing pins to a commit.
var SH017 = &checks.Rule{
	ID:       "SH017",
	Severity: checks.Warning,
	Title:    "Repository cloned at whatever its default branch holds",
	Doc: "A recipe or runner launcher that builds or installs from a `git clone` runs the code the cloned " +
		"repository's default branch holds on the day of the job, unless the clone is pinned: `--branch <tag>` " +
		"(or `--revision`) on the clone, or a `git checkout`/`git switch`/`git reset` to a named ref after it and " +
		"before the script's next clone. Unpinned, two runs of one config can benchmark different code, and a push " +
		"to that repository can break or change the benchmark with no change in this one. This rule reports a " +
		"clone the PR adds or changes with neither, citing a pinned clone of the same repository (or of another " +
		"one) in a script of the same directory when there is one. A clone whose comment (on its line or the three " +
		"above) says it follows the default branch on purpose, naming `main`, `master`, `HEAD`, the latest or the " +
		"default branch, is left alone. Pin the clone to a tag or a commit.",
	Run: runSH017,
}

func runSH017(p *checks.Pass) error {
	recipes, err := changedRecipes(p)
	if err != nil {
		return err
	}
	runners, err := changedRunners(p)
	if err != nil {
		return err
	}
	for i, group := range [][]*target{recipes, runners} {
		for _, s := range group {
			var sibs []*Sibling
			looked := false
			for _, g := range s.Head.Git {
				if g.Kind != script.GitClone || g.Ref != "" || g.Repo == "" || !s.added(g.Line) || s.Head.PinnedLater(g.Line) || followsOnPurpose(s.Head, g.Line) {
					continue
				}
				if !looked {
					looked = true
					if i == 0 {
						sibs, err = dirRecipes(p.Ctx, p.Change, s.Path)
					} else {
						sibs, err = dirScripts(p.Ctx, p.Change, s.Path, "runner.dir", (*checks.Config).IsRunner)
					}
					if err != nil {
						return err
					}
				}
				p.Report(sh017Finding(s, g, pinnedClone(sibs, g.Repo)))
			}
		}
	}
	return nil
}

// onPurpose are the words of a comment that says a clone follows the
// default branch by choice.
var onPurpose = regexp.MustCompile(`(?i)\b(main|master|head|latest|default branch|tip of)\b`)

// followsOnPurpose reports whether a comment on line n or the three lines
// above says the clone there follows the default branch by choice.
func followsOnPurpose(f *script.Facts, n int) bool {
	for _, c := range f.Comments {
		if c.EndLine >= n-3 && c.Line <= n && onPurpose.MatchString(c.Text) {
			return true
		}
	}
	return false
}

// pinnedEvidence is a pinned clone in another script.
type pinnedEvidence struct {
	sib  *Sibling
	op   script.GitOp
	same bool // of the same repository
}

// pinnedClone finds a pinned clone among sibs, one of repo first.
func pinnedClone(sibs []*Sibling, repo string) *pinnedEvidence {
	var other *pinnedEvidence
	for _, sb := range sibs {
		for _, g := range sb.Facts.Git {
			if g.Kind != script.GitClone || g.Ref == "" && !sb.Facts.PinnedLater(g.Line) {
				continue
			}
			if sameRepo(g.Repo, repo) {
				return &pinnedEvidence{sib: sb, op: g, same: true}
			}
			if other == nil {
				other = &pinnedEvidence{sib: sb, op: g}
			}
		}
	}
	return other
}

// sameRepo compares two clone sources as the repository they name: no
// scheme, no trailing .git or slash, any case.
func sameRepo(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if _, rest, ok := strings.Cut(s, "://"); ok {
			s = rest
		}
		s = strings.TrimPrefix(s, "git@")
		s = strings.Replace(s, ":", "/", 1)
		return strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	}
	return a != "" && norm(a) == norm(b)
}

func sh017Finding(s *target, g script.GitOp, ev *pinnedEvidence) checks.Finding {
	as := ""
	var related []checks.Location
	if ev != nil {
		what := "another clone"
		if ev.same {
			what = "the same repository"
		}
		as = fmt.Sprintf(", as %s pins %s", prose.CodeAt(ev.sib.Path, ev.op.Line), what)
		related = append(related, ev.sib.Loc(ev.op.Line, 0, "pinned clone"))
	}
	msg := fmt.Sprintf("%s (line %d) takes whatever the default branch of %s holds when the job runs: the clone has no "+
		"%s, and no %s to a named commit follows it. Two runs of this benchmark can build different code, and a "+
		"push there can break or change the results with no change here. Pin it with %s on the clone or a %s "+
		"after it%s.",
		prose.Code("git clone"), g.Line, prose.Code(g.Repo), prose.Code("--branch"), prose.Code("git checkout"),
		prose.Code("--branch <tag>"), prose.Code("git checkout <commit>"), as)
	ex := &checks.Explain{}
	ex.Problem().Printf("The PR clones %s without pinning a tag or commit.", prose.Code(g.Repo))
	ex.Why().Printf("A benchmark's results are only comparable when the code it runs is fixed; an unpinned clone follows " +
		"the other repository's pushes.")
	ex.Fix().Printf("Add %s to the clone, or %s in the clone's directory right after it.", prose.Code("--branch <tag>"),
		prose.Code("git checkout <commit>"))
	f := checks.Finding{
		Path:    s.Path,
		Line:    g.Line,
		Title:   fmt.Sprintf("%s cloned without a pinned tag or commit", prose.Code(g.Repo)),
		Body:    msg,
		Related: related,
		Key:     "unpinned-clone:" + strings.ToLower(g.Repo),
		Facts:   []string{"git-clone"},
	}
	ex.Apply(&f)
	return f
}
