// Package checktest builds changes and runs reviews for the tests of the
// rule packages, so that every package's tests judge their rules the same
// way: a review error stops the test and a rule error fails it.
package checktest

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// Change returns the change from base to head with its files diffed. The
// caller sets what else its test needs (PR, Date, Cache, Config).
func Change(t testing.TB, base, head checks.Tree) *checks.Change {
	t.Helper()
	files, err := trees.Diff(context.Background(), base, head)
	if err != nil {
		t.Fatal(err)
	}
	return &checks.Change{Base: base, Head: head, Files: files}
}

// Review reviews ch with rules. A rule that returns an error has not
// judged the change, so its error fails the test.
func Review(t testing.TB, ch *checks.Change, rules ...*checks.Rule) *checks.Result {
	t.Helper()
	reg, err := checks.NewRegistry(rules...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Review(context.Background(), reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("rule error: %v", e)
	}
	return res
}

// LineOf returns the 1-based number of the first line of text that
// contains s; the test stops when none does.
func LineOf(t testing.TB, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", s)
	return 0
}
