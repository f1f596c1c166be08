package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

type reviewFlags struct {
	repo, base, head    string
	worktree            bool
	baseDir, headDir    string
	fixture             string
	pr                  int
	owner, name         string
	date, cfgFile       string
	format, failOn      choiceFlag
	color               choiceFlag
	sarifFile           string
	only, disable, sevs listFlag
	verbose             bool
	reportUnused        bool
	budget              string
}

var formats = []string{"text", "json", "markdown", "sarif", "github"}

func reviewCommand(f *reviewFlags) *command {
	cmd := newCommand("review",
		"reviewbot review [--repo DIR] --base REV [--head REV | --worktree] [flags]",
		"reviewbot review --base-dir DIR --head-dir DIR [flags]",
		"reviewbot review --fixture DIR [flags]",
		"reviewbot review [flags]    (inside GitHub Actions: the run's pull request)")
	cmd.about = "Exit status: 0 nothing at or above --fail-on, 1 a finding at or above --fail-on, 2 usage or I/O error.\n" +
		"Inside GitHub Actions, --repo, --base, --head, --pr, --owner and --name default to the pull request of\n" +
		"the run (GITHUB_EVENT_PATH, GITHUB_WORKSPACE)."
	f.format = choiceFlag{value: "text", choices: formats}
	f.failOn = choiceFlag{value: "blocking", choices: []string{"blocking", "warning", "never"}}
	f.color = choiceFlag{value: "auto", choices: []string{"auto", "always", "never"}}
	fs := cmd.fs
	repoFlag(fs, &f.repo, "review")
	fs.StringVar(&f.base, "base", "", "base revision `REV`, any git revision expression (e.g. origin/main); the diff starts at its merge base with the head")
	fs.StringVar(&f.head, "head", "HEAD", "head revision `REV`")
	fs.BoolVar(&f.worktree, "worktree", false, "review the working tree of --repo: the checked-out commit plus uncommitted and untracked changes")
	fs.StringVar(&f.baseDir, "base-dir", "", "base tree as a directory `DIR` (with --head-dir, instead of --repo)")
	fs.StringVar(&f.headDir, "head-dir", "", "head tree as a directory `DIR`")
	fs.StringVar(&f.fixture, "fixture", "", "review the fixture PR in `DIR` (pr.json, base/, head/, pr.patch; see testdata/prs)")
	fs.IntVar(&f.pr, "pr", 0, "pull request number `N` (0: unknown, PR-number rules check shapes only)")
	fs.StringVar(&f.owner, "owner", "", "repository `OWNER` for canonical links (default "+checks.DefaultOwner+")")
	fs.StringVar(&f.name, "name", "", "repository `NAME` for canonical links (default "+checks.DefaultRepo+")")
	fs.StringVar(&f.date, "date", "", "review date `YYYY-MM-DD` for date-dependent rules (default today)")
	fs.Var(&f.format, "format", "output `FORMAT`: "+orList(formats))
	fs.StringVar(&f.sarifFile, "sarif-file", "", "also write the findings as SARIF 2.1.0 to `FILE` (for code scanning)")
	fs.StringVar(&f.cfgFile, "config", "", "use the configuration in `FILE` instead of the base tree's .github/reviewbot.yml")
	fs.Var(&f.only, "only", "run only these `RULES` (comma-separated IDs; repeatable)")
	fs.Var(&f.disable, "disable", "do not run these `RULES` (comma-separated IDs; repeatable)")
	fs.Var(&f.sevs, "severity", "set a rule's severity: `RULE=LEVEL`, LEVEL blocking or warning (comma-separated; repeatable)")
	fs.Var(&f.failOn, "fail-on", "exit 1 when a finding of this `LEVEL` or worse exists: blocking, warning or never")
	fs.BoolVar(&f.reportUnused, "report-unused-ignores", false, "report reviewbot:ignore comments the change adds that silence nothing (RB003)")
	fs.BoolVar(&f.verbose, "verbose", false, "text format: print each finding's extended reasoning")
	fs.Var(&f.color, "color", "text format: colour `WHEN`: auto (a terminal without NO_COLOR), always or never")
	budgetFlag(fs, &f.budget)
	return cmd
}

// budgetFlag declares --budget, shared by the commands that review.
func budgetFlag(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "budget", "", "bound each review's work: `SPEC` is key=value pairs over the defaults ("+
		checks.DefaultBudget.String()+"); files past the budget are reported as not reviewed")
}

// parseBudgetFlag reads --budget ("" for the defaults).
func parseBudgetFlag(s string) (*checks.Budget, error) {
	if s == "" {
		return nil, nil
	}
	b, err := checks.ParseBudget(s)
	if err != nil {
		return nil, fmt.Errorf("--budget: %w", err)
	}
	return &b, nil
}

func runReview(args []string, stdout, stderr io.Writer) int {
	var f reviewFlags
	cmd := reviewCommand(&f)
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reviewbot review:", oneLine(err))
		if f.format.value == "github" {
			_ = reviewer.WriteGitHubError(stdout, oneLine(err))
		}
		return exitError
	}
	if len(pos) > 0 {
		return fail(fmt.Errorf("unexpected argument %q", pos[0]))
	}
	set := cmd.set()
	if f.worktree && set["head"] {
		return fail(errors.New("--worktree reviews the working tree: leave out --head"))
	}
	if err := applyActionsDefaults(&f, set, os.Getenv, stderr); err != nil {
		return fail(err)
	}

	ctx := context.Background()
	if f.baseDir == "" && f.headDir == "" && f.fixture == "" {
		repo, err := resolveRepo(ctx, "review", f.repo, stderr)
		if err != nil {
			return fail(err)
		}
		f.repo = repo
	}
	reg, err := all.Registry()
	if err != nil {
		return fail(err)
	}
	ch, cleanup, err := loadChange(ctx, &f, stderr)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return fail(err)
	}
	if err := configure(ctx, ch, reg, &f); err != nil {
		return fail(err)
	}
	if ch.Budget, err = parseBudgetFlag(f.budget); err != nil {
		return fail(err)
	}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		return fail(err)
	}
	missing, err := ch.Config.Missing(ctx, ch.Base, ch.Head)
	if err != nil {
		return fail(err)
	}
	if len(missing) == len(ch.Config.ReviewedKinds()) {
		return fail(nothingToCheck(&f, missing))
	}
	noteUnchecked(stderr, ch, missing)
	rep := &reviewer.Report{Findings: res.Findings, Files: ch.Files, Rules: reg.Rules(), Stats: res.Stats,
		Errors: res.Errors, NotReviewed: res.NotReviewed, Version: version(), Missing: missing}

	if f.sarifFile != "" {
		var buf bytes.Buffer
		if err := reviewer.WriteSARIF(&buf, rep); err != nil {
			return fail(fmt.Errorf("--sarif-file: %w", err))
		}
		if err := os.WriteFile(f.sarifFile, buf.Bytes(), 0o644); err != nil {
			return fail(fmt.Errorf("--sarif-file: %w", err))
		}
	}
	var werr error
	switch f.format.value {
	case "text":
		werr = reviewer.WriteTextWith(stdout, rep, textOptions(stdout, f.color.value, f.verbose, os.Getenv))
	case "json":
		werr = reviewer.WriteJSON(stdout, rep)
	case "markdown":
		werr = reviewer.WriteMarkdown(stdout, rep)
	case "sarif":
		werr = reviewer.WriteSARIF(stdout, rep)
	case "github":
		werr = reviewer.WriteGitHub(stdout, rep)
	}
	if werr != nil {
		return fail(fmt.Errorf("write output: %w", werr))
	}
	if len(res.Errors) > 0 {
		for _, e := range res.Errors {
			fmt.Fprintln(stderr, "reviewbot review:", oneLine(e))
		}
		return exitError
	}
	return failPolicy(f.failOn.value, res.Findings)
}

// failPolicy is the exit status --fail-on asks for.
func failPolicy(failOn string, fs []checks.Finding) int {
	for _, f := range fs {
		switch {
		case failOn == "warning":
			return exitBlocking
		case failOn == "blocking" && f.Severity == checks.Blocking:
			return exitBlocking
		}
	}
	return exitOK
}

// applyActionsDefaults fills what the command line left out from the pull
// request of the GitHub Actions run, so `reviewbot review` in a workflow
// reviews the PR it runs for. Explicit flags always win.
func applyActionsDefaults(f *reviewFlags, set map[string]bool, getenv func(string) string, stderr io.Writer) error {
	noSource := f.repo == "" && f.baseDir == "" && f.headDir == "" && f.fixture == ""
	needed := (noSource || f.repo != "") && (!set["base"] || !set["pr"] || (!set["head"] && !f.worktree))
	if !needed {
		return nil
	}
	ev, err := actionsEvent(getenv)
	if err != nil || ev == nil {
		return err
	}
	if noSource {
		f.repo = ev.Workspace
		if f.repo == "" {
			f.repo = "."
		}
	}
	if !set["base"] {
		f.base = ev.BaseSHA
	}
	if !set["head"] && !f.worktree {
		f.head = ev.HeadSHA
	}
	if !set["pr"] {
		f.pr = ev.Number
	}
	if !set["owner"] && !set["name"] && ev.Owner != "" && ev.Repo != "" {
		f.owner, f.name = ev.Owner, ev.Repo
	}
	fmt.Fprintf(stderr, "reviewbot review: pull request #%d of %s/%s, base %.12s, head %.12s (from GITHUB_EVENT_PATH)\n",
		f.pr, ev.Owner, ev.Repo, f.base, f.head)
	return nil
}

// resolveRepo is the repository a command reads: the one dir is in, or,
// without dir, the one the working directory is in, found the way git finds
// it. When dir is inside a repository rather than its top, a note on
// stderr says which repository is read.
func resolveRepo(ctx context.Context, cmdName, dir string, stderr io.Writer) (string, error) {
	if dir == "" {
		top, err := trees.FindRepo(ctx, ".")
		if err != nil {
			return "", errors.New("the working directory is not in a git repository: give --repo DIR" + otherSources[cmdName])
		}
		return top, nil
	}
	top, err := trees.FindRepo(ctx, dir)
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != top {
			fmt.Fprintf(stderr, "reviewbot %s: note: %s is inside the repository %s, which is what is read\n", cmdName, dir, top)
		}
	}
	return top, nil
}

// otherSources completes resolveRepo's message with the command's other
// ways to say what to read.
var otherSources = map[string]string{
	"review":      ", --base-dir with --head-dir, or --fixture",
	"conventions": ", --tree DIR or --fixture DIR",
	"pipeline":    ", --tree DIR or --fixture DIR",
}

// nothingToCheck is the error for a repository that has none of the files
// the rules review: "no problems found" would claim a look that never
// happened.
func nothingToCheck(f *reviewFlags, missing []checks.FileKind) error {
	where := "the reviewed trees have"
	if f.repo != "" {
		where = f.repo + " has"
	}
	return fmt.Errorf("nothing to check: %s none of the files the rules review (%s); review a repository laid out like InferenceX, or set paths: in %s for another layout",
		where, kindList(missing), checks.ConfigPath)
}

// kindList names file kinds with their paths, "; " between them.
func kindList(kinds []checks.FileKind) string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.String())
	}
	return strings.Join(names, "; ")
}

// noteUnchecked says, once each on stderr, what a review could not check:
// the kinds of file the repository lacks, and the PR-number rules when the
// number is unknown.
func noteUnchecked(stderr io.Writer, ch *checks.Change, missing []checks.FileKind) {
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "reviewbot review: note: not in this repository, so not checked: %s\n", kindList(missing))
	}
	if ch.PR.Number == 0 {
		fmt.Fprintln(stderr, "reviewbot review: note: no --pr, so the PR-number rules checked shapes only (CL001: that a pr-link is a PR link, not that it is this PR's; SH011: any waiver the PR adds counts)")
	}
}

// loadChange builds the change from exactly one of the three sources.
func loadChange(ctx context.Context, f *reviewFlags, stderr io.Writer) (*checks.Change, func(), error) {
	sources := 0
	for _, set := range []bool{f.repo != "", f.baseDir != "" || f.headDir != "", f.fixture != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return nil, nil, errors.New("give exactly one of --repo (with --base), --base-dir with --head-dir, or --fixture")
	}
	if f.worktree && f.repo == "" {
		return nil, nil, errors.New("--worktree goes with --repo")
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
			return nil, nil, errors.New("--base is required: the branch the change goes into (e.g. --base origin/main)")
		}
		if _, err := os.Stat(f.repo); err != nil {
			return nil, nil, fmt.Errorf("repository %s: no such directory", f.repo)
		}
		var gc *trees.GitChange
		var err error
		if f.worktree {
			gc, err = trees.OpenWorktreeChange(ctx, f.repo, f.base)
		} else {
			gc, err = trees.OpenChange(ctx, f.repo, f.base, f.head)
		}
		if err != nil {
			return nil, nil, err
		}
		if !f.worktree && gc.BaseSHA == gc.HeadSHA && gc.BaseTipSHA != gc.HeadSHA {
			gc.Close()
			return nil, nil, fmt.Errorf("head %s (%.12s) is behind base %s (%.12s): every commit of the head is already in the base, so there is no change to review (were --base and --head swapped?)",
				f.head, gc.HeadSHA, f.base, gc.BaseTipSHA)
		}
		cleanup = func() { gc.Close() }
		ch = gc.Change()
		if !f.worktree {
			noteUncommitted(ctx, gc, stderr)
		}
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
		if ch, err = trees.DiffChange(ctx, base, head); err != nil {
			return nil, nil, err
		}
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
	if f.date != "" {
		d, err := time.Parse("2006-01-02", f.date)
		if err != nil {
			return nil, cleanup, fmt.Errorf("--date %q: want YYYY-MM-DD", f.date)
		}
		ch.Date = d
	}
	ch.Cache = checks.NewParseCache(0)
	return ch, cleanup, nil
}

// noteUncommitted says, in one line, that the working tree's changes were
// not part of a review of the checked-out commit: a contributor running
// the CLI before committing would otherwise read "no problems found" as
// covering them.
func noteUncommitted(ctx context.Context, gc *trees.GitChange, stderr io.Writer) {
	head, err := gc.Repo.Resolve(ctx, "HEAD")
	if err != nil || head != gc.HeadSHA {
		return // the reviewed head is not what is checked out
	}
	if dirty, err := gc.Repo.Dirty(ctx); err == nil && dirty {
		fmt.Fprintln(stderr, "reviewbot review: note: the working tree has uncommitted changes, which were not reviewed (add --worktree to include them)")
	}
}

// configure loads the repository configuration (or --config) and lays the
// command line's rule selection over it: --only, --disable and --severity
// win over the file, as a linter's flags do.
func configure(ctx context.Context, ch *checks.Change, reg *checks.Registry, f *reviewFlags) error {
	ch.Base = checks.NewCachedTree(ch.Base)
	cfg, err := configFlag(f.cfgFile)
	if err != nil {
		return err
	}
	ch.Config = cfg
	if err := ch.Configure(ctx, reg); err != nil {
		return err
	}
	cfg = ch.Config
	ids := func(flag string, list []string) ([]string, error) {
		var out []string
		for _, id := range list {
			r, err := lookupRule(reg, id)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			out = append(out, r.ID)
		}
		return out, nil
	}
	only, err := ids("--only", f.only)
	if err != nil {
		return err
	}
	disable, err := ids("--disable", f.disable)
	if err != nil {
		return err
	}
	type sevSet struct {
		id  string
		sev checks.Severity
	}
	var sevs []sevSet
	for _, kv := range f.sevs {
		id, level, found := strings.Cut(kv, "=")
		if !found {
			return fmt.Errorf("--severity %q: want RULE=blocking or RULE=warning", kv)
		}
		got, err := ids("--severity", []string{strings.TrimSpace(id)})
		if err != nil {
			return err
		}
		var sev checks.Severity
		switch strings.TrimSpace(level) {
		case "blocking":
			sev = checks.Blocking
		case "warning":
			sev = checks.Warning
		default:
			return fmt.Errorf("--severity %s: unknown severity %q (want blocking or warning)", got[0], level)
		}
		sevs = append(sevs, sevSet{got[0], sev})
	}
	for _, id := range only {
		for _, d := range disable {
			if id == d {
				return fmt.Errorf("%s is both in --only and in --disable", id)
			}
		}
	}
	if cfg.Rules == nil {
		cfg.Rules = map[string]checks.RuleSetting{}
	}
	if len(only) > 0 {
		keep := map[string]bool{}
		for _, id := range only {
			keep[id] = true
		}
		for _, r := range reg.Rules() {
			s := cfg.Rules[r.ID]
			s.Disabled = !keep[r.ID]
			cfg.Rules[r.ID] = s
		}
	}
	for _, id := range disable {
		s := cfg.Rules[id]
		s.Disabled = true
		cfg.Rules[id] = s
	}
	for _, s := range sevs {
		set := cfg.Rules[s.id]
		set.Severity = s.sev
		cfg.Rules[s.id] = set
	}
	cfg.ReportUnusedIgnores = cfg.ReportUnusedIgnores || f.reportUnused
	ch.Config = cfg
	return nil
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

// configFlag reads the configuration --config names; with no file it
// returns nil, and the change's own (.github/reviewbot.yml of the base)
// is loaded by checks.Change.Configure.
func configFlag(file string) (*checks.Config, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return checks.ParseConfigFile(b, file)
}
