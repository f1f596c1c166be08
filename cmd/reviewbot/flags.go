package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// command is a subcommand's flag set with the synopsis its -h prints.
type command struct {
	fs       *flag.FlagSet
	synopsis []string // usage lines, without "Usage: "
	about    string   // a paragraph after the synopsis
}

func newCommand(name string, synopsis ...string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package prints its own errors; help goes to stdout through
	// printUsage, so the package's usage hook stays silent.
	fs.Usage = func() {}
	return &command{fs: fs, synopsis: synopsis}
}

// printUsage writes the synopsis and every flag, in the "--name ARG" form
// the README documents.
func (c *command) printUsage(w io.Writer) {
	for i, s := range c.synopsis {
		prefix := "Usage: "
		if i > 0 {
			prefix = "       "
		}
		fmt.Fprintln(w, prefix+s)
	}
	if c.about != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, c.about)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags:")
	c.fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if isBool(f) {
			arg = ""
		}
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintln(w, line)
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintln(w, "        "+usage)
	})
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parse parses args, letting positional arguments and flags interleave
// (`reviewbot rules CL001 --format json`). ok is false when the command
// should exit with code: 0 after -h (usage on stdout), 2 after a bad flag
// (one line on stderr).
func (c *command) parse(args []string, stdout, stderr io.Writer) (positional []string, code int, ok bool) {
	c.fs.SetOutput(io.Discard)
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printUsage(stdout)
				return nil, exitOK, false
			}
			fmt.Fprintf(stderr, "reviewbot %s: %v (see reviewbot %s -h)\n", c.fs.Name(), err, c.fs.Name())
			return nil, exitError, false
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			return positional, exitOK, true
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), exitOK, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// set reports which flags the command line gave explicitly.
func (c *command) set() map[string]bool {
	m := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// listFlag collects comma-separated values over repeated uses of a flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// choiceFlag accepts one of a fixed set of values.
type choiceFlag struct {
	value   string
	choices []string
}

func (c *choiceFlag) String() string { return c.value }

func (c *choiceFlag) Set(s string) error {
	for _, ch := range c.choices {
		if s == ch {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("want %s", orList(c.choices))
}

// orList renders "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// didYouMean is " (did you mean X?)" for the candidate closest to word when
// one is close enough to be a slip of the keyboard (a letter or two off,
// case aside, or the start of exactly one candidate), else "".
func didYouMean(word string, candidates []string) string {
	w := strings.ToLower(word)
	best, bestDist := "", 3
	var prefixed []string
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if len(w) >= 3 && strings.HasPrefix(lc, w) {
			prefixed = append(prefixed, c)
		}
		limit := 2
		if len(w) < 5 {
			limit = 1
		}
		if d := prose.EditDistance(w, lc, limit); d <= limit && d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}
