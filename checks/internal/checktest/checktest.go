// Package checktest builds changes and runs reviews for the tests of the
// rule packages, so that every package's tests judge their rules the same
// way: a review error stops the test and a rule error fails it.
package checktest

import (
	"context"
	"runtime"
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

// SizeCheck compares what parsed values are charged in a byte-bounded
// cache (charge) with the live heap holding them takes: build returns the
// values, held alive while the heap is measured. It fails the test unless
// the charge is between 0.7 and 3 times the heap, and returns the ratio.
// Measure values of a few MiB in all: the heap is noisy below that.
func SizeCheck(t testing.TB, build func() []any, charge func(any) int64) float64 {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vals := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	var charged int64
	for _, v := range vals {
		charged += charge(v)
	}
	runtime.KeepAlive(vals)
	ratio := float64(charged) / float64(max(held, 1))
	t.Logf("charged %d for %d bytes held (%.2f)", charged, held, ratio)
	if ratio < 0.7 || ratio > 3 {
		t.Errorf("charged %.2f times the heap the values hold (%d for %d)", ratio, charged, held)
	}
	return ratio
}
