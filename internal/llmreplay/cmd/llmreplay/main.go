// Command llmreplay measures how many of another reviewer's inline
// findings reviewbot makes at the same place, on a repository that
// carries the pull requests' heads (refs/pull/N/head):
//
//	go run ./internal/llmreplay/cmd/llmreplay --repo DIR --findings FILE [--misses] [--relaxed] [--json]
//
// See package llmreplay for the procedure, and the README (Development)
// for the file's shape.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/llmreplay"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmreplay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", "", "the repository in `DIR` (a clone or a bare mirror with refs/pull/N/head)")
	file := fs.String("findings", "", "the findings, one JSON object per line, in `FILE`")
	mainRev := fs.String("main", "main", "the branch `REV` merge bases are taken with")
	misses := fs.Bool("misses", false, "also list every finding that was not flagged, with its text, hunk and our findings on its review")
	asJSON := fs.Bool("json", false, "write the figures and every finding's result as JSON")
	relaxed := fs.Bool("relaxed", false, "also review the unreplayable findings on a commit that holds their hunk at another line or after their day (counted apart: the figures stay the strict ones)")
	workers := fs.Int("workers", 0, "replay `N` pull requests at once (default: the number of CPUs)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "llmreplay:", err)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return fail(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	case *repo == "" || *file == "":
		return fail(fmt.Errorf("--repo and --findings are required"))
	}
	f, err := os.Open(*file)
	if err != nil {
		return fail(err)
	}
	findings, err := llmreplay.Load(f)
	f.Close()
	if err != nil {
		return fail(fmt.Errorf("%s: %w", *file, err))
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
	rp, err := llmreplay.Run(ctx, r, reg, findings, llmreplay.Options{Main: *mainRev, Workers: *workers, Relaxed: *relaxed})
	if err != nil {
		return fail(err)
	}
	if *asJSON {
		err = llmreplay.WriteJSON(stdout, rp)
	} else {
		err = llmreplay.WriteText(stdout, llmreplay.Summarize(rp))
		if err == nil && *misses {
			fmt.Fprintln(stdout)
			err = llmreplay.WriteMisses(stdout, rp)
		}
	}
	if err != nil {
		return fail(err)
	}
	return 0
}
