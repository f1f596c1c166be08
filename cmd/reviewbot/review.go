package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

type reviewFlags struct {
	repo, base, head      string
	baseDir, headDir      string
	fixture               string
	pr                    int
	owner, name, author   string
	date, format, cfgFile string
}

func runReview(args []string, stdout, stderr io.Writer) int {
	var f reviewFlags
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.repo, "repo", "", "local repository to review (a clone or a bare repository)")
	fs.StringVar(&f.base, "base", "", "base revision (any git revision expression, e.g. origin/main)")
	fs.StringVar(&f.head, "head", "HEAD", "head revision")
	fs.StringVar(&f.baseDir, "base-dir", "", "base tree as a directory (instead of --repo)")
	fs.StringVar(&f.headDir, "head-dir", "", "head tree as a directory (instead of --repo)")
	fs.StringVar(&f.fixture, "fixture", "", "a fixture PR directory (pr.json, base/, head/; see testdata/prs)")
	fs.IntVar(&f.pr, "pr", 0, "pull request number (0: unknown, PR-number rules check shapes only)")
	fs.StringVar(&f.owner, "owner", "", "repository owner for canonical links (default "+checks.DefaultOwner+")")
	fs.StringVar(&f.name, "name", "", "repository name for canonical links (default "+checks.DefaultRepo+")")
	fs.StringVar(&f.author, "author", "", "PR author login")
	fs.StringVar(&f.date, "date", "", "review date YYYY-MM-DD for date-dependent rules (default today)")
	fs.StringVar(&f.format, "format", "text", "output format: text, json, markdown, sarif or github")
	fs.StringVar(&f.cfgFile, "config", "", "use this reviewbot.yml instead of the base tree's .github/reviewbot.yml")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: reviewbot review (--repo DIR --base REV [--head REV] | --base-dir DIR --head-dir DIR | --fixture DIR) [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "reviewbot review: unexpected argument %q\n", fs.Arg(0))
		return exitError
	}
	write, err := writerFor(f.format)
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot review:", err)
		return exitError
	}

	ctx := context.Background()
	ch, cleanup, err := loadChange(ctx, &f)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot review:", oneLine(err))
		return exitError
	}
	reg, err := all.Registry()
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot review:", err)
		return exitError
	}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot review:", oneLine(err))
		return exitError
	}
	rep := &reviewer.Report{Findings: res.Findings, Files: ch.Files, Rules: reg.Rules(), Stats: res.Stats, Errors: res.Errors}
	if err := write(stdout, rep); err != nil {
		fmt.Fprintln(stderr, "reviewbot review: write output:", err)
		return exitError
	}
	if len(res.Errors) > 0 {
		for _, e := range res.Errors {
			fmt.Fprintln(stderr, "reviewbot review:", oneLine(e))
		}
		return exitError
	}
	if res.Blocking() {
		return exitBlocking
	}
	return exitOK
}

func writerFor(format string) (func(io.Writer, *reviewer.Report) error, error) {
	switch format {
	case "text":
		return reviewer.WriteText, nil
	case "json":
		return reviewer.WriteJSON, nil
	case "markdown", "md":
		return reviewer.WriteMarkdown, nil
	case "sarif":
		return reviewer.WriteSARIF, nil
	case "github":
		return reviewer.WriteGitHub, nil
	}
	return nil, fmt.Errorf("unknown --format %q (want text, json, markdown, sarif or github)", format)
}

// loadChange builds the change from exactly one of the three sources.
func loadChange(ctx context.Context, f *reviewFlags) (*checks.Change, func(), error) {
	sources := 0
	for _, set := range []bool{f.repo != "", f.baseDir != "" || f.headDir != "", f.fixture != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return nil, nil, errors.New("give exactly one of --repo (with --base), --base-dir with --head-dir, or --fixture")
	}
	var ch *checks.Change
	var cleanup func()
	switch {
	case f.fixture != "":
		fx, err := trees.LoadFixture(ctx, f.fixture)
		if err != nil {
			return nil, nil, err
		}
		ch = fx.Change()
	case f.repo != "":
		if f.base == "" {
			return nil, nil, errors.New("--repo needs --base (e.g. --base origin/main)")
		}
		if _, err := os.Stat(f.repo); err != nil {
			return nil, nil, fmt.Errorf("repository %s: no such directory", f.repo)
		}
		gc, err := trees.OpenChange(ctx, f.repo, f.base, f.head)
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { gc.Close() }
		ch = &checks.Change{Base: gc.Base, Head: gc.Head, Files: gc.Files,
			PR: checks.PRInfo{BaseSHA: gc.BaseSHA, HeadSHA: gc.HeadSHA}}
	default:
		if f.baseDir == "" || f.headDir == "" {
			return nil, nil, errors.New("--base-dir and --head-dir go together")
		}
		base, err := trees.OpenDir(f.baseDir)
		if err != nil {
			return nil, nil, err
		}
		head, err := trees.OpenDir(f.headDir)
		if err != nil {
			return nil, nil, err
		}
		files, err := trees.Diff(ctx, base, head)
		if err != nil {
			return nil, nil, err
		}
		ch = &checks.Change{Base: base, Head: head, Files: files}
	}
	if f.pr != 0 {
		if f.pr < 0 {
			return nil, cleanup, fmt.Errorf("--pr %d: must be a positive PR number", f.pr)
		}
		ch.PR.Number = f.pr
	}
	if f.owner != "" {
		ch.PR.Owner = f.owner
	}
	if f.name != "" {
		ch.PR.Repo = f.name
	}
	if f.author != "" {
		ch.PR.Author = f.author
	}
	if f.date != "" {
		d, err := time.Parse("2006-01-02", f.date)
		if err != nil {
			return nil, cleanup, fmt.Errorf("--date %q: want YYYY-MM-DD", f.date)
		}
		ch.Date = d
	}
	if f.cfgFile != "" {
		b, err := os.ReadFile(f.cfgFile)
		if err != nil {
			return nil, cleanup, fmt.Errorf("--config: %w", err)
		}
		cfg, err := checks.ParseConfig(b)
		if err != nil {
			return nil, cleanup, err
		}
		cfg.Source = f.cfgFile
		ch.Config = cfg
	}
	ch.Cache = checks.NewParseCache(0)
	return ch, cleanup, nil
}

// oneLine keeps error output to one line per error (stack traces of
// internal errors stay out of the terminal).
func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
