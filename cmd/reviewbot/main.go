// Command reviewbot reviews pull requests to an InferenceX-style benchmark
// repository: locally on a clone (`reviewbot review`), or as a GitHub App.
//
//	reviewbot review [--repo DIR] --base REV [--head REV] [--pr N] [--format F]
//	reviewbot review [--repo DIR] --base REV --worktree
//	reviewbot review --base-dir DIR --head-dir DIR [--pr N]
//	reviewbot review --fixture testdata/prs/NAME
//	reviewbot review             (inside GitHub Actions: the run's pull request)
//	reviewbot rules [--long] [ID...] [--format text|markdown|json]
//	reviewbot conventions [--repo DIR] [--rev REV] | --tree DIR [--engine E] [--format text|json]
//	reviewbot history [--repo DIR] [--rev main] [--n 200] [--format text|json] [--list]
//	reviewbot verify-signoff [--repo DIR] --base REV [--head REV] --signoff FILE [--date D]
//	reviewbot serve [flags]   (configuration from the environment; see reviewbot serve -h)
//	reviewbot replay [--url URL] [--secret S] [--event E] payload.json
//	reviewbot version
//	reviewbot help COMMAND
//
// --repo defaults to the repository the working directory is in. A build
// with -tags noserve leaves out serve and replay (and the App's
// dependencies).
package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
)

// exit codes of every subcommand
const (
	exitOK       = 0
	exitBlocking = 1 // a 🔴 finding exists
	exitError    = 2 // usage or I/O error
)

func main() {
	// A one-shot review is a short burst that parses hundreds of sibling
	// recipes into a small live heap; the default GC target collects
	// several times per review for little gain (about a quarter of a cold
	// review's CPU). serve and history keep caches for hours: there a heap
	// five times the live one would sit at GOMEMLIMIT (the soak's RSS did).
	// history keeps Go's default; serve collects at half again its live
	// heap, so that its caches (about 250 MiB when full) and a review's
	// working set stay under a GOMEMLIMIT of 600 MiB without the runtime
	// leaning on it. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(os.Args[1:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// gcPercent is the GC target of a command (see main).
func gcPercent(args []string) int {
	switch {
	case len(args) > 0 && args[0] == "serve":
		return 50 // app.GCPercent (serve_test.go holds them equal)
	case len(args) > 0 && args[0] == "history":
		return 100
	}
	return 400
}

const usage = `reviewbot reviews pull requests to an InferenceX-style benchmark repository.

Usage:
  reviewbot review [flags]     review a change, locally or in GitHub Actions (see reviewbot review -h)
  reviewbot rules [ID...]      list every rule, or explain the named ones (see reviewbot rules -h)
  reviewbot conventions        print the sibling conventions CV001 mines (see reviewbot conventions -h)
  reviewbot pipeline [KEY]     follow config rows to the script or recipe they run (see reviewbot pipeline -h)
  reviewbot history            replay the last merged PRs: what the bot would have said (see reviewbot history -h)
  reviewbot verify-signoff     verify a CODEOWNER sign-off on a local clone (checks 0 and 5-12)
  reviewbot serve              run the GitHub App (see reviewbot serve -h)
  reviewbot replay FILE        send a signed webhook payload to a running server (see reviewbot replay -h)
  reviewbot version            print the version

"reviewbot help COMMAND" (or "reviewbot COMMAND -h") prints a command's usage and flags.

Exit status: 0 no blocking finding, 1 a blocking (🔴) finding (review --fail-on changes the
level), 2 usage or I/O error. verify-signoff: 1 when the sign-off is rejected.
serve: 0 after a clean shutdown, 1 when serving or draining failed, 2 bad configuration.
replay: 0 when the App accepted the delivery, 1 when it did not (not 2xx, or unhandled_event),
2 usage error.
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitError
	}
	switch args[0] {
	case "review":
		return runReview(args[1:], stdout, stderr)
	case "rules":
		return runRules(args[1:], stdout, stderr)
	case "conventions":
		return runConventions(args[1:], stdout, stderr)
	case "pipeline":
		return runPipeline(args[1:], stdout, stderr)
	case "history":
		return runHistory(args[1:], stdout, stderr)
	case "verify-signoff":
		return runVerifySignoff(args[1:], stdout, stderr)
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "replay":
		return runReplay(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return runVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && args[0] == "help" {
			// `reviewbot help review` is `reviewbot review -h`, as with go
			// and git.
			if !isCommand(args[1]) {
				fmt.Fprintf(stderr, "reviewbot help: unknown command %q%s\n", args[1], didYouMean(args[1], commands))
				return exitError
			}
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "reviewbot: unknown command %q%s\n\n%s", args[0], didYouMean(args[0], commands), usage)
	return exitError
}

// commands are the subcommands usage lists (and run dispatches), for
// `reviewbot help COMMAND` and "did you mean".
var commands = func() []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  reviewbot ([a-z][a-z-]*)`).FindAllStringSubmatch(usage, -1) {
		out = append(out, m[1])
	}
	return out
}()

func isCommand(name string) bool {
	for _, c := range commands {
		if c == name {
			return true
		}
	}
	return false
}
