package masterconfig

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

const nv = "configs/nvidia-master.yaml"

// reviewTrees reviews the change from base to head with the MC rules only.
func reviewTrees(t testing.TB, base, head map[string]string, date string, cache *checks.ParseCache) *checks.Result {
	t.Helper()
	ctx := context.Background()
	bt, ht := checks.NewMemTree(base), checks.NewMemTree(head)
	files, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		t.Fatal(err)
	}
	ch := &checks.Change{Base: bt, Head: ht, Files: files, Cache: cache,
		PR: checks.PRInfo{Number: 4242, Owner: "SemiAnalysisAI", Repo: "InferenceX"}}
	if date != "" {
		d, err := time.Parse("2006-01-02", date)
		if err != nil {
			t.Fatal(err)
		}
		ch.Date = d
	} else {
		ch.Date = time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)
	}
	return reviewChange(t, ch)
}

func reviewChange(t testing.TB, ch *checks.Change) *checks.Result {
	t.Helper()
	reg, err := checks.NewRegistry(Rules()...)
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

// summary renders findings as sorted "RULE path:line".
func summary(fs []checks.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
	}
	sort.Strings(out)
	return out
}

// lineOf returns the 1-based line of the first line of src containing
// needle (the test fails when there is none).
func lineOf(t testing.TB, src, needle string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, needle) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", needle)
	return 0
}
