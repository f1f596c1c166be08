package checks

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

func testRule(id string, sev Severity, run func(p *Pass) error) *Rule {
	return &Rule{ID: id, Severity: sev, Title: id + " title", Doc: id + " doc", Run: run}
}

func TestReviewPipeline(t *testing.T) {
	head := NewMemTree(map[string]string{"b.sh": "one\n  two   words\nthree\n", "a.yaml": "x: 1\n"})
	reg, err := NewRegistry(
		testRule("T001", Blocking, func(p *Pass) error {
			p.Report(Finding{Path: "b.sh", Line: 2, Title: "second line", Body: "m"})
			p.Report(Finding{Path: "./a.yaml", Line: 1, Title: "dup", Body: "m", Key: "k"})
			p.Report(Finding{Path: "a.yaml", Line: 1, Title: "dup", Body: "m", Key: "k"})
			return nil
		}),
		testRule("T002", Warning, func(p *Pass) error { panic("boom") }),
		testRule("T003", Warning, func(p *Pass) error {
			// T002 panicked; T001's three reports are visible (dedup
			// happens once at the end).
			if len(p.Prior()) != 3 {
				t.Errorf("Prior() = %v", p.Prior())
			}
			p.Report(Finding{Path: "a.yaml", Line: 1, Title: "w", Body: "m"})
			return errors.New("could not read x")
		}),
		testRule("T004", Warning, func(p *Pass) error {
			p.Report(Finding{Path: "a.yaml", Line: 1, Title: "override", Body: "m"})
			return nil
		}),
		testRule("T005", Blocking, func(p *Pass) error {
			t.Error("disabled rule ran")
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Rules: map[string]RuleSetting{"T004": {Severity: Blocking}, "T005": {Disabled: true}}}
	res, err := Review(context.Background(), reg, &Change{Base: NewMemTree(nil), Head: head, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+":"+f.Path+":"+f.Severity.String()+":"+f.Key)
	}
	want := []string{
		"T001:a.yaml:blocking:k",
		"T003:a.yaml:warning:x: 1",
		"T004:a.yaml:blocking:x: 1",
		"T001:b.sh:blocking:two words",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("findings:\n got %v\nwant %v", got, want)
	}
	if len(res.Errors) != 2 || !strings.Contains(res.Errors[0].Error(), "T002: internal error") || !strings.Contains(res.Errors[1].Error(), "T003: could not read x") {
		t.Errorf("errors = %v", res.Errors)
	}
	if res.Stats.Rules != 4 || !res.Blocking() {
		t.Errorf("stats %+v blocking %v", res.Stats, res.Blocking())
	}
}

// A rule that could not judge says so once per thing it could not judge,
// under its own ID, and a disabled rule says nothing.
func TestReviewInconclusive(t *testing.T) {
	reg, err := NewRegistry(
		testRule("T001", Warning, func(p *Pass) error {
			p.Inconclusive("./a.sh", "only one sibling")
			p.Inconclusive("a.sh", "only one sibling")
			p.Inconclusive("", "no PR number")
			return nil
		}),
		testRule("T002", Warning, func(p *Pass) error {
			p.Inconclusive("a.sh", "only one sibling")
			return nil
		}),
		testRule("T003", Warning, func(p *Pass) error {
			p.Inconclusive("a.sh", "disabled")
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Rules: map[string]RuleSetting{"T003": {Disabled: true}}}
	res, err := Review(context.Background(), reg, &Change{Base: NewMemTree(nil), Head: NewMemTree(nil), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	want := []Inconclusive{{"T001", "a.sh", "only one sibling"}, {"T001", "", "no PR number"}, {"T002", "a.sh", "only one sibling"}}
	if len(res.Findings) != 0 || fmt.Sprint(res.Stats.Inconclusive) != fmt.Sprint(want) {
		t.Errorf("inconclusive %v, want %v (findings %v)", res.Stats.Inconclusive, want, res.Findings)
	}
	// Outside a review (a pass built by hand) the note goes nowhere.
	(&Pass{Rule: reg.Lookup("T001")}).Inconclusive("a.sh", "x")
}

func TestReviewRejectsUnknownRuleInConfig(t *testing.T) {
	reg, _ := NewRegistry(testRule("T001", Warning, func(*Pass) error { return nil }))
	base := NewMemTree(map[string]string{ConfigPath: "rules:\n  NOPE: off\n"})
	_, err := Review(context.Background(), reg, &Change{Base: base, Head: base})
	if err == nil || !strings.Contains(err.Error(), `unknown rule "NOPE"`) {
		t.Fatal(err)
	}
}

func TestNewRegistryValidates(t *testing.T) {
	ok := testRule("A", Warning, func(*Pass) error { return nil })
	if _, err := NewRegistry(ok, ok); err == nil {
		t.Error("duplicate IDs accepted")
	}
	if _, err := NewRegistry(&Rule{ID: "B"}); err == nil {
		t.Error("incomplete rule accepted")
	}
}

func TestSeverity(t *testing.T) {
	for in, want := range map[string]Severity{"blocking": Blocking, "Error": Blocking, "warning": Warning, "warn": Warning} {
		if got, err := ParseSeverity(in); err != nil || got != want {
			t.Errorf("ParseSeverity(%q) = %v, %v", in, got, err)
		}
	}
	if Blocking.Emoji() != "🔴" || Warning.Emoji() != "🟡" {
		t.Error("emoji")
	}
	var s Severity
	if err := s.UnmarshalJSON([]byte(`"warning"`)); err != nil || s != Warning {
		t.Error(s, err)
	}
	if b, _ := Blocking.MarshalJSON(); string(b) != `"blocking"` {
		t.Error(string(b))
	}
}

// pipeTree is a tree with a named pipe at one path, as a tree on disk
// reports it: reading it is a NotRegularError.
type pipeTree struct {
	Tree
	pipe string
}

func (t pipeTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if CleanPath(p) == t.pipe {
		return nil, NotRegular(p, "named pipe")
	}
	return t.Tree.ReadFile(ctx, p)
}

// A path a rule reads that is not a file (a directory, a named pipe) is
// named as not reviewed, not a rule error that fails the review; the
// rule's earlier findings and the other rules' stand. A directory the
// change puts where a reviewed file belongs is named too, read or not.
func TestReviewNotRegular(t *testing.T) {
	files := map[string]string{
		"perf-changelog.yaml/x.yaml":             "a: 1\n",
		"configs/nvidia-master.yaml/x.yaml":      "a: 1\n",
		"benchmarks/single_node/a_b200.sh/in.sh": "echo\n",
		"benchmarks/single_node/b_b200.sh":       "echo\n",
		"docs/notes.md/x":                        "x\n",
	}
	var changed []*FileChange
	for p := range files {
		changed = append(changed, &FileChange{Path: p, Status: Added})
	}
	head := pipeTree{Tree: NewMemTree(files), pipe: "benchmarks/single_node/b_b200.sh"}
	for _, tc := range []struct {
		read string
		want string // the NotReviewed entry the read adds
	}{
		{"perf-changelog.yaml", "perf-changelog.yaml/: a directory, not a regular file"},
		{"docs/notes.md", "docs/notes.md/: a directory, not a regular file"},
		{"benchmarks/single_node/b_b200.sh", "benchmarks/single_node/b_b200.sh: a named pipe, not a regular file"},
	} {
		t.Run(tc.read, func(t *testing.T) {
			reg, err := NewRegistry(
				testRule("T001", Blocking, func(p *Pass) error {
					p.Report(Finding{Path: "a.txt", Line: 1, Title: "before", Body: "m"})
					if _, err := p.Change.Head.ReadFile(p.Ctx, tc.read); err != nil {
						return fmt.Errorf("read %s: %w", tc.read, err)
					}
					t.Errorf("%s was read", tc.read)
					return nil
				}),
				testRule("T002", Warning, func(p *Pass) error {
					p.Report(Finding{Path: "a.txt", Line: 1, Title: "other", Body: "m"})
					return nil
				}),
			)
			if err != nil {
				t.Fatal(err)
			}
			ch := &Change{Base: NewMemTree(nil), Head: head, Files: changed, Config: &Config{}}
			res, err := Review(context.Background(), reg, ch)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Errors) != 0 {
				t.Errorf("errors %v", res.Errors)
			}
			if len(res.Findings) != 2 {
				t.Errorf("findings %v", res.Findings)
			}
			var got []string
			for _, n := range res.NotReviewed {
				got = append(got, n.Path+": "+n.Reason)
			}
			want := []string{
				"benchmarks/single_node/a_b200.sh/: a directory, not a regular file",
				"configs/nvidia-master.yaml/: a directory, not a regular file",
				"perf-changelog.yaml/: a directory, not a regular file",
			}
			if !strings.Contains(strings.Join(want, "\n"), tc.want) {
				want = append(want, tc.want)
			}
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("NotReviewed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A base whose configuration path is a directory has no configuration:
// the defaults apply, and the review says so rather than failing.
func TestConfigureNotRegular(t *testing.T) {
	ch := &Change{Base: NewMemTree(map[string]string{ConfigPath + "/x": "rules: {}\n"}), Head: NewMemTree(nil)}
	if err := ch.Configure(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if ch.Config.Source != "defaults" {
		t.Errorf("source %q", ch.Config.Source)
	}
	nr := ch.NotReviewed()
	if len(nr) != 1 || nr[0].Path != ConfigPath+"/" || nr[0].Reason != "a directory, not a regular file, so the default configuration applies" {
		t.Errorf("NotReviewed = %v", nr)
	}
}
