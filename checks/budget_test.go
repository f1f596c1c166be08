package checks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// readEach is a rule that reads every changed file in path order and
// reports one finding per file it read; a refused read ends it, as a read
// error ends any rule.
func readEach(id string) *Rule {
	return testRule(id, Warning, func(p *Pass) error {
		for _, fc := range p.Change.Files {
			if _, err := p.Change.Head.ReadFile(p.Ctx, fc.Path); err != nil {
				return err
			}
			p.Report(Finding{Path: fc.Path, Line: 1, Title: "read", Body: "read", Key: fc.Path})
		}
		return nil
	})
}

// budgetChange is a change adding the given files (path → size).
func budgetChange(sizes map[string]int) *Change {
	files := map[string]string{}
	var fcs []*FileChange
	for p, n := range sizes {
		files[p] = strings.Repeat("x\n", n/2)
		fcs = append(fcs, &FileChange{Path: p, Status: Added})
	}
	cfg := &Config{Paths: Paths{Recipes: []string{"*.sh"}, Changelog: "perf-changelog.yaml"}}
	return &Change{Base: NewMemTree(nil), Head: NewMemTree(files), Files: sortedChanges(fcs), Config: cfg}
}

func sortedChanges(fcs []*FileChange) []*FileChange {
	for i := range fcs {
		for j := i + 1; j < len(fcs); j++ {
			if fcs[j].Path < fcs[i].Path {
				fcs[i], fcs[j] = fcs[j], fcs[i]
			}
		}
	}
	return fcs
}

func reviewWith(t *testing.T, ch *Change, b Budget, rules ...*Rule) *Result {
	t.Helper()
	reg, err := NewRegistry(rules...)
	if err != nil {
		t.Fatal(err)
	}
	ch.Budget = &b
	res, err := Review(context.Background(), reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Errorf("rule errors: %v (a refused read is not one)", res.Errors)
	}
	return res
}

func notReviewed(res *Result) map[string]string {
	out := map[string]string{}
	for _, n := range res.NotReviewed {
		out[n.Path] = n.Reason
	}
	return out
}

func findingPaths(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Rule+" "+f.Path)
	}
	return out
}

// A file over the per-file bound is not read and is named; the review of
// the others goes on, in every rule.
func TestBudgetRefusesOneLargeFile(t *testing.T) {
	ch := budgetChange(map[string]int{"a.sh": 100, "perf-changelog.yaml": 3000, "z.sh": 100})
	res := reviewWith(t, ch, Budget{FileBytes: 1000}, readEach("T001"), testRule("T002", Warning, func(p *Pass) error {
		_, err := p.Change.Head.ReadFile(p.Ctx, "z.sh")
		return err
	}))
	nr := notReviewed(res)
	if r := nr["perf-changelog.yaml"]; !strings.Contains(r, "too large to review (2.9 KiB, over the 1000 bytes a review reads of one file)") {
		t.Errorf("NotReviewed = %v", res.NotReviewed)
	}
	if len(nr) != 1 {
		t.Errorf("NotReviewed = %v, want the large file only", res.NotReviewed)
	}
	if got := strings.Join(findingPaths(res), ","); got != "T001 a.sh" {
		t.Errorf("findings %s: T001 stops at the refused file, keeping what it found before", got)
	}
}

// Once the budget is spent nothing more is read: the refused files and
// the changed files no rule reached are named, with the reason.
func TestBudgetSpent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget Budget
		reason string
	}{
		{"files", Budget{Files: 2}, "the review had read its budget of 2 files before it"},
		{"bytes", Budget{ReadBytes: 250}, "the review had read 200 bytes of its 250 bytes budget before it"},
		{"time", Budget{Time: time.Nanosecond}, "the review ran for its 1ns budget before reading it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := budgetChange(map[string]int{"a.sh": 100, "b.sh": 100, "c.sh": 100, "d.sh": 100, "notes.md": 100})
			if tc.name == "time" {
				time.Sleep(time.Millisecond)
			}
			res := reviewWith(t, ch, tc.budget, readEach("T001"), readEach("T002"))
			nr := notReviewed(res)
			want := []string{"c.sh", "d.sh"}
			if tc.name == "time" {
				want = []string{"a.sh", "b.sh", "c.sh", "d.sh"}
			}
			for _, p := range want {
				if nr[p] != tc.reason {
					t.Errorf("%s: reason %q, want %q (all: %v)", p, nr[p], tc.reason, res.NotReviewed)
				}
			}
			// notes.md is no file a rule of the repository judges: the
			// rules that stopped would not have reviewed it either.
			if len(nr) != len(want) {
				t.Errorf("NotReviewed = %v, want %v", res.NotReviewed, want)
			}
		})
	}
}

// What the change's builder could not diff is named too.
func TestSkipByBuilder(t *testing.T) {
	ch := budgetChange(map[string]int{"a.sh": 10})
	ch.Skip("./dir/x.sh", "its patch does not parse: bad hunk header")
	ch.Skip("dir/x.sh", "a second reason")
	res := reviewWith(t, ch, DefaultBudget, readEach("T001"))
	if got := fmt.Sprint(res.NotReviewed); got != "[{dir/x.sh its patch does not parse: bad hunk header}]" {
		t.Errorf("NotReviewed = %s", got)
	}
	if len(res.Findings) != 1 {
		t.Errorf("findings %v", findingPaths(res))
	}
}

// A read charges once, however many rules make it; cached reads and
// parse-cache hits cost nothing.
func TestBudgetChargesEachFileOnce(t *testing.T) {
	ch := budgetChange(map[string]int{"a.sh": 100, "b.sh": 100})
	res := reviewWith(t, ch, Budget{Files: 2}, readEach("T001"), readEach("T002"), readEach("T003"))
	if len(res.NotReviewed) != 0 || len(res.Findings) != 6 {
		t.Errorf("NotReviewed %v, findings %v", res.NotReviewed, findingPaths(res))
	}
}

func TestParseBudget(t *testing.T) {
	b, err := ParseBudget("file=16MiB, read=1GiB,files=10,parsed=512KiB,time=90s")
	if err != nil {
		t.Fatal(err)
	}
	want := Budget{FileBytes: 16 << 20, ReadBytes: 1 << 30, Files: 10, ParsedBytes: 512 << 10, Time: 90 * time.Second}
	if b != want {
		t.Errorf("got %+v", b)
	}
	if back, err := ParseBudget(b.String()); err != nil || back != b {
		t.Errorf("round trip %q: %+v, %v", b.String(), back, err)
	}
	if b, err := ParseBudget("time=5m"); err != nil || b.Time != 5*time.Minute || b.FileBytes != DefaultBudget.FileBytes {
		t.Errorf("one key: %+v %v", b, err)
	}
	for _, bad := range []string{"file", "size=1", "file=-1", "files=x", "time=soon", "read=12TB"} {
		if _, err := ParseBudget(bad); err == nil {
			t.Errorf("ParseBudget(%q) accepted", bad)
		}
	}
}
