package all

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

var update = flag.Bool("update", false, "rewrite the fixtures' expected.json goldens")

// fixtureDate is the review date of fixtures whose pr.json names none, so
// date-dependent rules give the same answer every day.
var fixtureDate = time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)

const fixturesDir = "../../testdata/prs"

// RunFixture reviews one fixture PR with the full registry.
func runFixture(t testing.TB, dir string) (*trees.Fixture, *checks.Result) {
	t.Helper()
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ch := fx.Change()
	if ch.Date.IsZero() {
		ch.Date = fixtureDate
	}
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("rule error: %v", e)
	}
	return fx, res
}

// TestFixtures reviews every fixture PR under testdata/prs and compares the
// findings with the hand-written expectation in pr.json ("RULE path:line"
// each) and with the expected.json golden (the full wording).
func TestFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "pr.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Skip("no fixture PRs yet")
	}
	for _, prJSON := range dirs {
		dir := filepath.Dir(prJSON)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fx, res := runFixture(t, dir)

			got := make([]string, 0, len(res.Findings))
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
			}
			want := append([]string{}, fx.Expect...)
			sort.Strings(got)
			sort.Strings(want)
			if diff := cmp.Diff(want, got, cmp.Transformer("nilToEmpty", func(s []string) []string {
				if s == nil {
					return []string{}
				}
				return s
			})); diff != "" {
				t.Errorf("findings differ from pr.json \"expect\" (-want +got):\n%s", diff)
			}

			golden := filepath.Join(dir, "expected.json")
			b, err := json.MarshalIndent(goldenFindings(res.Findings), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, '\n')
			if *update {
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantB, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./checks/all -run TestFixtures -update)", err)
			}
			if !bytes.Equal(wantB, b) {
				t.Errorf("expected.json differs (run with -update and review the diff):\n%s",
					cmp.Diff(string(wantB), string(b)))
			}
		})
	}
}

// goldenFindings is what expected.json records: every field a reader sees.
func goldenFindings(fs []checks.Finding) []checks.Finding {
	out := make([]checks.Finding, len(fs))
	copy(out, fs)
	return out
}
