package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// runVerifySignoff verifies a CODEOWNER sign-off on a local repository:
// the checks that need no GitHub (0 and 5-12). It prints the verdict
// comment the App would post and exits 1 when the sign-off is rejected.
func runVerifySignoff(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("verify-signoff", "reviewbot verify-signoff [--repo DIR] --base REV [--head REV] --signoff FILE [--date YYYY-MM-DD] [--pr N] [--signer LOGIN]")
	cmd.about = "Verifies a CODEOWNER sign-off on a local clone: the checks that need no GitHub (0 and 5-12)."
	fs := cmd.fs
	var repo string
	repoFlag(fs, &repo, "verify the sign-off on")
	base := fs.String("base", "", "the PR's base revision `REV` (e.g. origin/main)")
	head := fs.String("head", "HEAD", "the signed head revision `REV`")
	file := fs.String("signoff", "", "the sign-off comment in `FILE` (- for standard input)")
	date := fs.String("date", "", "review `DATE` YYYY-MM-DD for MODELS.md deprecations (default today)")
	pr := fs.Int("pr", 0, "pull request number `N` (for waiver names and changelog links)")
	signer := fs.String("signer", "", "`LOGIN` of the comment's author (default: the sign-off's Signed: line)")
	owner := fs.String("owner", "", "repository owner `O` for canonical links (default "+checks.DefaultOwner+")")
	name := fs.String("name", "", "repository name `R` for canonical links (default "+checks.DefaultRepo+")")
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reviewbot verify-signoff:", oneLine(err))
		return exitError
	}
	switch {
	case len(pos) > 0:
		return fail(fmt.Errorf("unexpected argument %q", pos[0]))
	case *base == "":
		return fail(errors.New("--base is required: the PR's base branch (e.g. --base origin/main)"))
	case *file == "":
		return fail(errors.New("--signoff FILE is required"))
	case *pr < 0:
		return fail(fmt.Errorf("--pr %d: must be a positive PR number", *pr))
	}
	var body []byte
	var err error
	if *file == "-" {
		body, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	} else {
		body, err = os.ReadFile(*file)
	}
	if err != nil {
		return fail(fmt.Errorf("--signoff: %w", err))
	}
	so, ok := signoff.Parse(string(body))
	if !ok {
		return fail(fmt.Errorf("%s is not a sign-off: it lacks %q", *file, signoff.Phrase))
	}
	if *signer != "" {
		so.Signer = *signer
	}
	ctx := context.Background()
	dir, err := resolveRepo(ctx, "verify-signoff", repo, stderr)
	if err != nil {
		return fail(err)
	}
	gc, err := trees.OpenChange(ctx, dir, *base, *head)
	if err != nil {
		return fail(err)
	}
	defer gc.Close()
	ch := &checks.Change{Base: gc.Base, Head: gc.Head, Files: gc.Files, Cache: checks.NewParseCache(0),
		PR: checks.PRInfo{Number: *pr, Owner: *owner, Repo: *name, BaseSHA: gc.BaseSHA, HeadSHA: gc.HeadSHA}}
	if *date != "" {
		d, err := time.Parse("2006-01-02", *date)
		if err != nil {
			return fail(fmt.Errorf("--date %q: want YYYY-MM-DD", *date))
		}
		ch.Date = d
	}
	reg, err := all.Registry()
	if err != nil {
		return fail(err)
	}
	v, err := signoff.Verify(ctx, signoff.Input{Change: ch, Registry: reg, SignOff: so, SHA: gc.HeadSHA})
	if err != nil {
		return fail(err)
	}
	fmt.Fprint(stdout, v.Render())
	if !v.Pass() {
		return exitBlocking
	}
	return exitOK
}
