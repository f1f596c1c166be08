package masterconfig

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

const nv = "configs/nvidia-master.yaml"

// reviewTrees reviews the change from base to head with the MC rules only.
func reviewTrees(t testing.TB, base, head map[string]string, date string, cache *checks.ParseCache) *checks.Result {
	t.Helper()
	ch := checktest.Change(t, checks.NewMemTree(base), checks.NewMemTree(head))
	ch.Cache = cache
	ch.PR = checks.PRInfo{Number: 4242, Owner: "SemiAnalysisAI", Repo: "InferenceX"}
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

// reviewChange reviews ch with the MC rules only.
func reviewChange(t testing.TB, ch *checks.Change) *checks.Result {
	t.Helper()
	return checktest.Review(t, ch, Rules()...)
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
