package checks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"testing"
)

func TestParseSuppression(t *testing.T) {
	known := func(id string) bool { return id == "SH009" || id == "CV001" }
	for _, tc := range []struct {
		line    string
		ok      bool
		rules   string
		reason  string
		problem string
	}{
		{"# reviewbot:ignore SH009 one line keeps the diff against upstream small", true, "SH009", "one line keeps the diff against upstream small", ""},
		{"vllm serve \"$MODEL\" --port 8000  # reviewbot:ignore sh009,CV001 mirrors upstream's README", true, "SH009,CV001", "mirrors upstream's README", ""},
		{"  #reviewbot:ignore SH009 -- copied from the b200 recipe", true, "SH009", "-- copied from the b200 recipe", ""},
		{"<!-- reviewbot:ignore CV001 the table is generated -->", true, "CV001", "the table is generated", ""},
		{"# reviewbot:ignore SH009", true, "SH009", "", "gives no reason"},
		{"# reviewbot:ignore SH009 --", true, "SH009", "--", "gives no reason"},
		{"# reviewbot:ignore", true, "", "", "names no rule"},
		{"# reviewbot:ignore SH099 typo", true, "SH099", "typo", "names `SH099`, which is not a rule"},
		{"# reviewbot:ignored SH009 not the keyword", false, "", "", ""},
		{"echo 'x#reviewbot:ignore SH009 inside a word'", false, "", "", ""},
		{"See `# reviewbot:ignore RULE reason` in the docs", false, "", "", ""},
		{"plain line", false, "", "", ""},
	} {
		t.Run(tc.line, func(t *testing.T) {
			s, ok := ParseSuppression(tc.line, known)
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if !ok {
				return
			}
			if strings.Join(s.Rules, ",") != tc.rules || s.Reason != tc.reason {
				t.Errorf("rules %v reason %q", s.Rules, s.Reason)
			}
			if (tc.problem == "") != (s.Problem == "") || !strings.Contains(s.Problem, tc.problem) {
				t.Errorf("problem %q, want %q", s.Problem, tc.problem)
			}
		})
	}
}

// suppressionChange is a PR adding recipe lines around which three rules
// report; head is the recipe's new content.
func suppressionReview(t *testing.T, head string, cfg *Config) *Result {
	t.Helper()
	base := "#!/bin/bash\necho start\n"
	lines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
	var added []DiffLine
	for i, l := range lines[2:] {
		added = append(added, DiffLine{Op: OpAdd, Text: l, New: i + 3})
	}
	fc := &FileChange{Path: "r.sh", OldPath: "r.sh", Status: Modified, Hunks: []Hunk{{
		OldStart: 1, OldLines: 2, NewStart: 1, NewLines: len(lines),
		Lines: append([]DiffLine{{Op: OpContext, Text: lines[0], Old: 1, New: 1}, {Op: OpContext, Text: lines[1], Old: 2, New: 2}}, added...),
	}}}
	// Each rule reports every added line whose text contains its ID in
	// lower case ("t001"): a stand-in for a real rule's judgement.
	mk := func(id string, sev Severity) *Rule {
		return testRule(id, sev, func(p *Pass) error {
			for i, l := range lines {
				if strings.Contains(l, strings.ToLower(id)) && i >= 2 {
					p.Report(Finding{Path: "r.sh", Line: i + 1, Title: id, Body: "m"})
				}
			}
			return nil
		})
	}
	rules := []*Rule{mk("T001", Blocking), mk("T002", Warning)}
	rules = append(rules, Rules()...)
	reg, err := NewRegistry(rules...)
	if err != nil {
		t.Fatal(err)
	}
	if cfg == nil {
		cfg = &Config{}
	}
	res, err := Review(context.Background(), reg, &Change{Base: NewMemTree(map[string]string{"r.sh": base}),
		Head: NewMemTree(map[string]string{"r.sh": head}), Files: []*FileChange{fc}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func findingList(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, fmt.Sprintf("%s:%d", f.Rule, f.Line))
	}
	sort.Strings(out)
	return out
}

func TestSuppressionPipeline(t *testing.T) {
	for _, tc := range []struct {
		name       string
		head       string
		unused     bool
		want       string
		suppressed int
	}{
		{"no comments", "#!/bin/bash\necho start\nt001\nt002\n", false, "T001:3 T002:4", 0},
		{"line above", "#!/bin/bash\necho start\n# reviewbot:ignore T001 measured by hand, see PR 12\nt001\n", false, "", 1},
		{"same line", "#!/bin/bash\necho start\nt001 t002 # reviewbot:ignore T002 upstream spelling\n", false, "T001:3", 1},
		{"two rules", "#!/bin/bash\necho start\n# reviewbot:ignore T001,T002 both deliberate\nt001 t002\n", false, "", 2},
		{"two lines above is too far", "#!/bin/bash\necho start\n# reviewbot:ignore T001 far\n\nt001\n", false, "T001:5", 0},
		{"other rule", "#!/bin/bash\necho start\n# reviewbot:ignore T002 wrong rule\nt001\n", false, "T001:4", 0},
		{"no reason: not applied, reported", "#!/bin/bash\necho start\n# reviewbot:ignore T001\nt001\n", false, "RB002:3 T001:4", 0},
		{"unknown rule: reported", "#!/bin/bash\necho start\n# reviewbot:ignore T009 typo\nt001\n", false, "RB002:3 T001:4", 0},
		{"unused, not asked", "#!/bin/bash\necho start\n# reviewbot:ignore T002 stale\necho fine\n", false, "", 0},
		{"unused, asked", "#!/bin/bash\necho start\n# reviewbot:ignore T002 stale\necho fine\n", true, "RB003:3", 0},
		{"half used, asked", "#!/bin/bash\necho start\n# reviewbot:ignore T001,T002 half\nt001\n", true, "RB003:3", 1},
		{"used, asked", "#!/bin/bash\necho start\n# reviewbot:ignore T001 fine\nt001\n", true, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := suppressionReview(t, tc.head, &Config{ReportUnusedIgnores: tc.unused})
			if got := strings.Join(findingList(res), " "); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
			if res.Stats.Suppressed != tc.suppressed {
				t.Errorf("suppressed %d, want %d", res.Stats.Suppressed, tc.suppressed)
			}
			for _, e := range res.Errors {
				t.Error(e)
			}
		})
	}
	// RB003 names the unused rule only.
	res := suppressionReview(t, "#!/bin/bash\necho start\n# reviewbot:ignore T001,T002 half\nt001\n", &Config{ReportUnusedIgnores: true})
	if msg := res.Findings[0].Body; !strings.Contains(msg, "`T002`") || strings.Contains(msg, "`T001`") {
		t.Errorf("RB003 message %q", msg)
	}
}

// Base-side and file-level findings have no head line to carry a comment.
func TestSuppressionSkipsBaseAndFileFindings(t *testing.T) {
	head := NewMemTree(map[string]string{"a.sh": "# reviewbot:ignore T001 x\nline\n"})
	reg, _ := NewRegistry(testRule("T001", Warning, func(p *Pass) error {
		p.Report(Finding{Path: "a.sh", Line: 2, Side: Base, Title: "base", Body: "m"})
		p.Report(Finding{Path: "a.sh", Title: "file", Body: "m"})
		p.Report(Finding{Path: "a.sh", Line: 2, Title: "head", Body: "m"})
		return nil
	}))
	res, err := Review(context.Background(), reg, &Change{Base: head, Head: head, Config: &Config{}})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, f := range res.Findings {
		titles = append(titles, f.Title)
	}
	if strings.Join(titles, ",") != "file,base" || res.Stats.Suppressed != 1 {
		t.Errorf("kept %v, suppressed %d", titles, res.Stats.Suppressed)
	}
}

func TestConfigRule(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       string // "" for no finding
	}{
		{"valid", "rules:\n  T001: off\n", ""},
		{"unknown rule", "rules:\n  T001: off\n  T404: warning\n", "line 3: `rules`: `` unknown rule \"T404\""},
		{"bad value", "rules:\n  T001: of\n", "line 2: `rules.T001`: `unknown setting \"of\" (want off, on, blocking or warning"},
		{"yaml", "rules: [\n", "not valid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := NewMemTree(map[string]string{"x": "1\n"})
			head := NewMemTree(map[string]string{"x": "1\n", ConfigPath: tc.head})
			reg, _ := NewRegistry(append([]*Rule{testRule("T001", Warning, func(*Pass) error { return nil })}, Rules()...)...)
			fc := &FileChange{Path: ConfigPath, Status: Added}
			res, err := Review(context.Background(), reg, &Change{Base: base, Head: head, Files: []*FileChange{fc}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(res.Findings) != 0 {
					t.Errorf("findings %+v", res.Findings)
				}
				return
			}
			if len(res.Findings) != 1 || res.Findings[0].Rule != "RB001" || res.Findings[0].Severity != Blocking ||
				!strings.Contains(res.Findings[0].Body, tc.want) {
				t.Errorf("findings %+v, want RB001 saying %q", res.Findings, tc.want)
			}
		})
	}
}

// unreadableTree reads one path as git reads a submodule: a path error.
type unreadableTree struct {
	Tree
	path string
}

func (u unreadableTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if p == u.path {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("is a submodule (commit 754356e9); its files are not in this repository")}
	}
	return u.Tree.ReadFile(ctx, p)
}

func (u unreadableTree) Stat(ctx context.Context, p string) (Entry, error) {
	if p == u.path {
		return Entry{Path: p, ID: "754356e9"}, nil
	}
	return u.Tree.Stat(ctx, p)
}

// A submodule bump is a changed path with no file to read: the
// suppression scan skips it instead of failing the review.
func TestSuppressionSkipsUnreadablePaths(t *testing.T) {
	reg, err := NewRegistry(Rules()...)
	if err != nil {
		t.Fatal(err)
	}
	mem := NewMemTree(map[string]string{"r.sh": "#!/bin/bash\n"})
	ch := &Change{Base: mem, Head: unreadableTree{mem, "utils/aiperf"}, Config: &Config{},
		Files: []*FileChange{{Path: "utils/aiperf", OldPath: "utils/aiperf", Status: Modified,
			Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []DiffLine{
				{Op: OpDelete, Text: "Subproject commit 1111", Old: 1}, {Op: OpAdd, Text: "Subproject commit 2222", New: 1}}}}}}}
	res, err := Review(context.Background(), reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 || len(res.Findings) > 0 {
		t.Errorf("errors %v, findings %v", res.Errors, res.Findings)
	}
}
