package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/history"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// runHistory replays the last merged PRs of a repository: what the bot
// would have said on each, before anyone installs it.
func runHistory(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("history", "reviewbot history --repo DIR [--rev main] [--n 200] [--format text|json] [--list] [--list-warnings]")
	cmd.about = "Replays the last merged PRs of a repository: what the bot would have said on each."
	fs := cmd.fs
	repo := fs.String("repo", "", "the repository in `DIR` (a clone or a bare repository; refs/pull/N/head are used when present)")
	rev := fs.String("rev", "main", "the branch `REV` whose first-parent history is replayed")
	n := fs.Int("n", 200, "number `N` of merged PRs to replay, newest first (0: all)")
	format := fs.String("format", "text", "output `FORMAT`: text or json (one record per PR, one per line)")
	list := fs.Bool("list", false, "list every 🔴 finding (sha #PR rule path:line title)")
	listWarnings := fs.Bool("list-warnings", false, "also list every 🟡 finding")
	owner := fs.String("owner", "", "repository owner `O` for canonical links (default "+checks.DefaultOwner+")")
	name := fs.String("name", "", "repository name `R` for canonical links (default "+checks.DefaultRepo+")")
	cfgFile := fs.String("config", "", "use the configuration in `FILE` instead of each base tree's .github/reviewbot.yml")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
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
	case *repo == "":
		return fail(errors.New("--repo is required"))
	case *n < 0:
		return fail(fmt.Errorf("--n %d: must be 0 (all) or more", *n))
	case *format != "text" && *format != "json":
		return fail(fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	opts := history.Options{Rev: *rev, N: *n, Owner: *owner, Repo: *name}
	if *cfgFile != "" {
		b, err := os.ReadFile(*cfgFile)
		if err != nil {
			return fail(fmt.Errorf("--config: %w", err))
		}
		cfg, err := checks.ParseConfig(b)
		if err != nil {
			return fail(fmt.Errorf("--config %s: %w", *cfgFile, err))
		}
		cfg.Source = *cfgFile
		opts.Config = cfg
	}
	if !*quiet {
		opts.Progress = func(done, total int, rec *history.Record) {
			fmt.Fprintf(stderr, "\rreviewed %d/%d", done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}

	ctx := context.Background()
	r, err := trees.OpenRepo(ctx, *repo)
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	reg, err := all.Registry()
	if err != nil {
		return fail(err)
	}
	recs, err := history.Run(ctx, r, reg, opts)
	if err != nil {
		return fail(err)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, rec := range recs {
			if err := enc.Encode(rec); err != nil {
				return fail(err)
			}
		}
		return exitOK
	}
	writeHistoryText(stdout, *rev, recs, *list, *listWarnings)
	return exitOK
}

func writeHistoryText(w io.Writer, rev string, recs []*history.Record, list, listWarnings bool) {
	s := history.Summarize(recs)
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
	if list || listWarnings {
		for _, sev := range []checks.Severity{checks.Blocking, checks.Warning} {
			if sev == checks.Warning && !listWarnings {
				continue
			}
			header := false
			for _, rec := range recs {
				for _, f := range rec.Findings {
					if f.Severity != sev {
						continue
					}
					if !header {
						fmt.Fprintf(w, "\n%s findings:\n", sev.Emoji())
						header = true
					}
					fmt.Fprintf(w, "%s #%d %s %s %s\n", short(rec.SHA), rec.PR, f.Rule, f.Location(), f.Title)
				}
			}
		}
	}
	if s.Errors > 0 {
		fmt.Fprintln(w, "\nErrors:")
		for _, rec := range recs {
			if rec.Error != "" {
				fmt.Fprintf(w, "%s #%d %s\n", short(rec.SHA), rec.PR, strings.ReplaceAll(oneLineStr(rec.Error), "\t", " "))
			}
		}
	}
}

func short(sha string) string {
	if len(sha) > 10 {
		return sha[:10]
	}
	return sha
}

func oneLineStr(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
