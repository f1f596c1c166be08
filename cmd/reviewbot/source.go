package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// The commands say what they read in one way. A git repository is
// --repo DIR, a clone or a bare repository, by default the one the
// working directory is in (found as git finds it, from any subdirectory);
// the commands that read one tree take it at --rev (default HEAD), or a
// plain directory (--tree) or a fixture PR's head or base (--fixture,
// --base) instead. The commands that compare two revisions (review,
// verify-signoff) or replay a branch (history) take --repo alone from
// here: their revisions are theirs.

// repoUsage is --repo's help: verb says what the command does with it.
func repoUsage(verb string) string {
	return verb + " the git repository in `DIR` (a clone or a bare repository; default: the one the working directory is in)"
}

// repoFlag declares --repo on fs into v.
func repoFlag(fs *flag.FlagSet, v *string, verb string) {
	fs.StringVar(v, "repo", "", repoUsage(verb))
}

// treeSource is the flag group of the commands that read one tree.
type treeSource struct {
	cmd     string
	repo    string
	rev     string
	dir     string
	fixture string
	base    bool
}

// addTreeSource declares --repo, --rev, --tree, --fixture and --base on
// cmd's flags; verb says what the command does with the tree ("read",
// "mine").
func addTreeSource(cmd *command, verb string) *treeSource {
	s := &treeSource{cmd: cmd.fs.Name()}
	fs := cmd.fs
	repoFlag(fs, &s.repo, verb)
	fs.StringVar(&s.rev, "rev", "HEAD", "the revision `REV` of the repository to "+verb+" (e.g. origin/main)")
	fs.StringVar(&s.dir, "tree", "", verb+" the plain directory `DIR` instead of a repository")
	fs.StringVar(&s.fixture, "fixture", "", verb+" the head tree of the fixture PR in `DIR` (see testdata/prs)")
	fs.BoolVar(&s.base, "base", false, "with --fixture: "+verb+" the fixture's base tree instead of its head")
	return s
}

// check reports a combination of the group's flags that says two things
// at once; set holds the flags given on the command line.
func (s *treeSource) check(set map[string]bool) error {
	n := 0
	for _, given := range []bool{set["repo"] || set["rev"], s.dir != "", s.fixture != ""} {
		if given {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("give one of --repo (with --rev), --tree and --fixture")
	case s.base && s.fixture == "":
		return errors.New("--base goes with --fixture")
	case s.rev == "":
		return errors.New("--rev: empty revision")
	}
	return nil
}

// open opens the tree the flags name and says what it is, for the output.
// close releases it (never nil when err is nil).
func (s *treeSource) open(ctx context.Context, stderr io.Writer) (tree checks.Tree, source string, close func(), err error) {
	nothing := func() {}
	switch {
	case s.fixture != "":
		fx, err := trees.LoadFixture(ctx, s.fixture)
		if err != nil {
			return nil, "", nil, err
		}
		if s.base {
			return fx.Base, s.fixture + " (base)", nothing, nil
		}
		return fx.Head, s.fixture + " (head)", nothing, nil
	case s.dir != "":
		t, err := trees.OpenDir(s.dir)
		if err != nil {
			return nil, "", nil, err
		}
		return t, s.dir, nothing, nil
	}
	dir, err := resolveRepo(ctx, s.cmd, s.repo, stderr)
	if err != nil {
		return nil, "", nil, err
	}
	r, err := trees.OpenRepo(ctx, dir)
	if err != nil {
		return nil, "", nil, err
	}
	t, err := r.Tree(ctx, s.rev)
	if err != nil {
		r.Close()
		return nil, "", nil, err
	}
	return t, s.rev, func() { r.Close() }, nil
}
