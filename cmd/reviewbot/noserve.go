//go:build noserve

package main

// A build with -tags noserve leaves out the GitHub App (serve, and replay,
// which drives it): the CLI then compiles and downloads about half of what
// the whole binary needs (no go-github, Prometheus or go-redis). `go
// install ./cmd/reviewbot` stays whole.

import (
	"fmt"
	"io"
)

func runServe(args []string, stdout, stderr io.Writer) int { return notBuilt("serve", stderr) }

func runReplay(args []string, stdout, stderr io.Writer) int { return notBuilt("replay", stderr) }

func notBuilt(cmd string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "reviewbot %s: this reviewbot was built without the GitHub App (-tags noserve); build it whole with go install ./cmd/reviewbot\n", cmd)
	return exitError
}
