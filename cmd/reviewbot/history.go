package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/history"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// runHistory replays the last merged PRs of a repository: what the bot
// would have said on each, before anyone installs it.
func runHistory(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("history", "reviewbot history [--repo DIR] [--rev main] [--n 200] [--format text|json] [--list] [--list-warnings]")
	cmd.about = "Replays the last merged PRs of a repository: what the bot would have said on each."
	fs := cmd.fs
	var repo string
	repoFlag(fs, &repo, "replay the merged PRs of")
	rev := fs.String("rev", "main", "the branch `REV` whose first-parent history is replayed")
	n := fs.Int("n", 200, "number `N` of merged PRs to replay, newest first (0: all)")
	format := fs.String("format", "text", "output `FORMAT`: text or json (one record per PR, one per line)")
	list := fs.Bool("list", false, "list every 🔴 finding (sha #PR rule path:line title)")
	listWarnings := fs.Bool("list-warnings", false, "also list every 🟡 finding")
	owner := fs.String("owner", "", "repository owner `O` for canonical links (default "+checks.DefaultOwner+")")
	name := fs.String("name", "", "repository name `R` for canonical links (default "+checks.DefaultRepo+")")
	cfgFile := fs.String("config", "", "use the configuration in `FILE` instead of each base tree's .github/reviewbot.yml")
	quiet := fs.Bool("quiet", false, "no progress on stderr (there is none unless stderr is a terminal)")
	var budget string
	budgetFlag(fs, &budget)
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reviewbot history:", oneLine(err))
		return exitError
	}
	switch {
	case len(pos) > 0:
		return fail(fmt.Errorf("unexpected argument %q", pos[0]))
	case *n < 0:
		return fail(fmt.Errorf("--n %d: must be 0 (all) or more", *n))
	case *format != "text" && *format != "json":
		return fail(fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	opts := history.Options{Rev: *rev, N: *n, Owner: *owner, Repo: *name}
	var err error
	if opts.Budget, err = parseBudgetFlag(budget); err != nil {
		return fail(err)
	}
	if opts.Config, err = configFlag(*cfgFile); err != nil {
		return fail(err)
	}
	if _, tty := terminalWidth(stderr); tty && !*quiet {
		// A progress line rewritten in place: only a terminal shows it as
		// one; a file or pipe would collect every version of it.
		opts.Progress = func(done, total int, rec *history.Record) {
			fmt.Fprintf(stderr, "\rreviewed %d/%d", done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}

	ctx := context.Background()
	dir, err := resolveRepo(ctx, "history", repo, stderr)
	if err != nil {
		return fail(err)
	}
	r, err := trees.OpenRepo(ctx, dir)
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	reg, err := all.Registry()
	if err != nil {
		return fail(err)
	}
	// Records stream out as they are made: JSON ones at once, the text
	// report's lists as one line each until the summary that heads them
	// is known.
	var emit func(*history.Record) error
	lines := &historyLines{warnings: *listWarnings}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		emit = func(rec *history.Record) error { return enc.Encode(rec) }
	} else {
		emit = func(rec *history.Record) error { lines.add(rec); return nil }
	}
	s, err := history.Run(ctx, r, reg, opts, emit)
	if err != nil {
		return fail(err)
	}
	if *format != "json" {
		writeHistoryText(stdout, *rev, s, lines, *list || *listWarnings)
	}
	if s.AllFailed() {
		fmt.Fprintf(stderr, "reviewbot history: every one of the %d reviews failed; nothing was replayed\n", s.PRs)
		return exitError
	}
	return exitOK
}

// historyLines keeps what the text report lists, one line per finding or
// error, rather than the records they come from.
type historyLines struct {
	warnings                 bool
	blocking, warning, error []string
}

func (l *historyLines) add(rec *history.Record) {
	for _, f := range rec.Findings {
		line := fmt.Sprintf("%s #%d %s %s %s", prose.ShortSHA(rec.SHA), rec.PR, f.Rule, f.Location(), f.Title)
		switch {
		case f.Severity == checks.Blocking:
			l.blocking = append(l.blocking, line)
		case l.warnings:
			l.warning = append(l.warning, line)
		}
	}
	if rec.Error != "" {
		l.error = append(l.error, fmt.Sprintf("%s #%d %s", prose.ShortSHA(rec.SHA), rec.PR, strings.ReplaceAll(oneLineStr(rec.Error), "\t", " ")))
	}
}

func writeHistoryText(w io.Writer, rev string, s history.Summary, lines *historyLines, list bool) {
	fmt.Fprintf(w, "Replayed %d merged PRs of %s (%d from refs/pull/N/head, %d as merge commits).\n",
		s.PRs, rev, s.FromPRHeads, s.FromCommits)
	if s.PRs == 0 {
		fmt.Fprintln(w, "No first-parent commit with a \"(#N)\" subject was found.")
		return
	}
	fmt.Fprintf(w, "PRs with a 🔴 finding: %d (%.1f%%). PRs with only 🟡 findings: %d. Errors: %d.\n",
		s.BlockingPRs, 100*s.BlockingRate, s.WarningPRs, s.Errors)
	fmt.Fprintf(w, "Time per review: median %.1f ms, p95 %.1f ms.\n", s.MedianMS, s.P95MS)
	if len(s.Rules) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "rule\t🔴\t🟡\tPRs")
		for _, rc := range s.Rules {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", rc.Rule, rc.Blocking, rc.Warning, rc.PRs)
		}
		tw.Flush()
	}
	if list {
		for _, l := range []struct {
			sev   checks.Severity
			lines []string
		}{{checks.Blocking, lines.blocking}, {checks.Warning, lines.warning}} {
			if len(l.lines) > 0 {
				fmt.Fprintf(w, "\n%s findings:\n%s\n", l.sev.Emoji(), strings.Join(l.lines, "\n"))
			}
		}
	}
	if len(lines.error) > 0 {
		fmt.Fprintf(w, "\nErrors:\n%s\n", strings.Join(lines.error, "\n"))
	}
}

func oneLineStr(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
