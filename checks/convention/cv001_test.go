package convention

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// alphaBase is n siblings that build the alpha config with the export,
// plus "e", which only has the beta arm.
func alphaBase(n int) map[string]any {
	files := alphaGroup(n, 0)
	files[agentic("e_fp4_b200")] = recipeSpec{arms: []armSpec{betaArm()}, flags: toolFlags}
	return files
}

func cv001Findings(res *checks.Result) []checks.Finding {
	var out []checks.Finding
	for _, f := range res.Findings {
		if f.Rule == "CV001" {
			out = append(out, f)
		}
	}
	return out
}

func TestCV001NewArm(t *testing.T) {
	base := alphaBase(4)
	e := agentic("e_fp4_b200")
	tests := []struct {
		name     string
		head     recipeSpec
		findings int
		sev      checks.Severity
	}{
		{"arm without export", recipeSpec{arms: []armSpec{alphaArm(false), betaArm()}, flags: toolFlags}, 1, checks.Blocking},
		{"arm with export", recipeSpec{arms: []armSpec{alphaArm(true), betaArm()}, flags: toolFlags}, 0, 0},
		{"two arms without export", recipeSpec{arms: []armSpec{alphaArm(false), betaArm(), {name: "alpha2", lines: alphaArm(false).lines}}, flags: toolFlags}, 2, checks.Blocking},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := review(t, tree(base), tree(with(base, e, tc.head)))
			got := cv001Findings(res)
			if len(got) != tc.findings {
				t.Fatalf("%d findings, want %d: %+v", len(got), tc.findings, got)
			}
			script := tc.head.script()
			for i, f := range got {
				if f.Path != e || f.Severity != tc.sev {
					t.Errorf("finding %+v", f)
				}
				wantLine := checktest.LineOf(t, script, "AlphaConnector")
				if i == 1 {
					wantLine = strings.LastIndex(script[:strings.LastIndex(script, "AlphaConnector")], "\n")
					wantLine = strings.Count(script[:wantLine], "\n") + 2
				}
				if f.Line != wantLine {
					t.Errorf("line %d, want %d", f.Line, wantLine)
				}
				if f.Facts[0] != xAlpha || f.Facts[1] != yAlpha {
					t.Errorf("facts %v", f.Facts)
				}
				if !strings.Contains(f.Message, "Every vLLM sibling in `"+agenticDir+"` that builds a `AlphaConnector` config also exports `ALPHA_MODE=1` on the same path (4 of 4)") {
					t.Errorf("message: %s", f.Message)
				}
				if len(f.Related) != 8 {
					t.Errorf("want 4 siblings × (X, Y) cited: %+v", f.Related)
				}
				for _, r := range f.Related {
					if r.Side != checks.Base || r.Line == 0 || r.Path == e {
						t.Errorf("related %+v", r)
					}
				}
				if f.Suggestion == nil || !strings.HasPrefix(f.Suggestion.Replacement, "        export ALPHA_MODE=1\n        OFFLOAD_ARGS=") || f.Suggestion.Line != f.Line {
					t.Errorf("suggestion %+v", f.Suggestion)
				}
				if !strings.Contains(f.Details, "**Step by step.**") || !strings.Contains(f.Details, "**Fix.**") {
					t.Errorf("details: %s", f.Details)
				}
			}
			if tc.findings == 2 && got[0].Key == got[1].Key {
				t.Error("two branches must have distinct keys")
			}
		})
	}
}

func TestCV001OldDeviation(t *testing.T) {
	// Ten siblings follow; "a" already builds the alpha config without the
	// export (10 of 11 is still a convention, and so is 9 of 10 when the
	// file under review is left out).
	base := alphaGroup(11, 1)
	a := agentic("a_fp4_b200")
	old := base[a].(recipeSpec)

	unrelated := old
	unrelated.flags = append([]string{"--max-num-seqs 4"}, toolFlags...)
	touched := old
	touched.arms = []armSpec{{name: "alpha", lines: []string{
		`OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"AlphaConnector","kv_role":"kv_both","extra":1}')`,
	}}, betaArm()}

	for name, head := range map[string]recipeSpec{"unrelated line": unrelated, "deviating line edited": touched} {
		t.Run(name, func(t *testing.T) {
			res := review(t, tree(base), tree(with(base, a, head)))
			if got := cv001Findings(res); len(got) != 0 {
				t.Errorf("old deviation reported: %+v", got)
			}
		})
	}

	// A new deviation in another sibling is a warning now: "a" is an
	// exception. (With one sibling fewer, 8 of 9 others would miss 90%.)
	b := agentic("b_fp4_b200")
	res := review(t, tree(base), tree(with(base, b, recipeSpec{arms: []armSpec{alphaArm(false), betaArm()}, flags: toolFlags})))
	got := cv001Findings(res)
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	f := got[0]
	if f.Severity != checks.Warning || !strings.Contains(f.Message, "(9 of 10; exceptions: `"+a+":") {
		t.Errorf("severity %v message %s", f.Severity, f.Message)
	}
	if !strings.Contains(f.Details, "Exceptions (AlphaConnector config without ALPHA_MODE=1): `"+a) {
		t.Errorf("details: %s", f.Details)
	}
	exc := 0
	for _, r := range f.Related {
		if strings.HasPrefix(r.Note, "exception:") {
			exc++
			if r.Path != a {
				t.Errorf("exception %+v", r)
			}
		}
	}
	if exc != 1 {
		t.Errorf("want the exception cited: %+v", f.Related)
	}
}

func TestCV001ExportRemoved(t *testing.T) {
	base := alphaBase(4)
	b := agentic("b_fp4_b200")
	head := with(base, b, recipeSpec{arms: []armSpec{alphaArm(false), betaArm()}, flags: toolFlags})
	got := cv001Findings(review(t, tree(base), tree(head)))
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	f := got[0]
	if !strings.Contains(f.Message, "(3 of 3); this PR removes it from the branch at line") ||
		!strings.Contains(f.Message, "Restore `export ALPHA_MODE=1`") {
		t.Errorf("message: %s", f.Message)
	}
	if f.Suggestion == nil || !strings.HasPrefix(f.Suggestion.Replacement, "        export ALPHA_MODE=1\n") {
		t.Errorf("suggestion %+v", f.Suggestion)
	}
	last := f.Related[len(f.Related)-1]
	if last.Path != b || last.Side != checks.Base || !strings.HasPrefix(last.Note, "the base version of this file") {
		t.Errorf("base line not cited: %+v", last)
	}
}

// priorRule reports one finding on path with the given facts, so CV001
// sees it in Pass.Prior.
func priorRule(path string, facts ...string) *checks.Rule {
	return &checks.Rule{ID: "SH999", Severity: checks.Blocking, Title: "t", Doc: "d", Run: func(p *checks.Pass) error {
		p.Report(checks.Finding{Path: path, Line: 1, Title: "prior", Message: "m", Facts: facts, Key: "k"})
		return nil
	}}
}

func TestCV001NoDoubleReport(t *testing.T) {
	base := alphaBase(4)
	e := agentic("e_fp4_b200")
	head := with(base, e, recipeSpec{arms: []armSpec{alphaArm(false), betaArm()}, flags: toolFlags})
	tests := []struct {
		name  string
		prior *checks.Rule
		want  int
	}{
		{"no prior", nil, 1},
		{"prior names Y", priorRule(e, yAlpha), 0},
		{"prior names Y's variable", priorRule(e, "env:ALPHA_MODE"), 0},
		{"prior names X", priorRule(e, xAlpha), 0},
		{"prior names another connector", priorRule(e, "json:kv_connector=BetaConnector"), 1},
		{"prior on another file", priorRule(agentic("a_fp4_b200"), yAlpha), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rules []*checks.Rule
			if tc.prior != nil {
				rules = append(rules, tc.prior)
			}
			if got := cv001Findings(review(t, tree(base), tree(head), rules...)); len(got) != tc.want {
				t.Errorf("%d findings, want %d: %+v", len(got), tc.want, got)
			}
		})
	}
}

func TestCV001OneFindingPerMissingY(t *testing.T) {
	// Two antecedents (the connector and its extra key) imply the same
	// export: one finding, naming the connector.
	arm := func(export bool) armSpec {
		a := armSpec{name: "alpha"}
		if export {
			a.lines = append(a.lines, "export ALPHA_MODE=1")
		}
		a.lines = append(a.lines, `OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"AlphaConnector","kv_role":"kv_both","kv_connector_extra_config":{"alpha_pool":4}}')`)
		return a
	}
	base := map[string]any{}
	for _, n := range []string{"a", "b", "c", "d"} {
		base[agentic(n+"_fp4_b200")] = recipeSpec{arms: []armSpec{arm(true), betaArm()}, flags: toolFlags}
	}
	e := agentic("e_fp4_b200")
	base[e] = recipeSpec{arms: []armSpec{betaArm()}, flags: toolFlags}
	got := cv001Findings(review(t, tree(base), tree(with(base, e, recipeSpec{arms: []armSpec{arm(false), betaArm()}, flags: toolFlags}))))
	if len(got) != 1 || got[0].Facts[0] != xAlpha {
		t.Errorf("findings %+v", got)
	}
}

func TestCV001NewRecipeFileLevel(t *testing.T) {
	files := map[string]any{}
	for _, n := range []string{"a", "b", "c"} {
		files[agentic(n+"_fp4_b200")] = recipeSpec{flags: toolFlags}
		files["benchmarks/single_node/"+n+"_fp4_b200_vllm.sh"] = recipeSpec{flags: []string{"--max-num-seqs 8"}}
	}
	n := agentic("new_fp4_b300")
	for name, tc := range map[string]struct {
		flags []string
		want  int
	}{
		"parser without auto tool choice": {[]string{"--tool-call-parser x"}, 1},
		"both flags":                      {toolFlags, 0},
		"neither flag":                    {nil, 0},
	} {
		t.Run(name, func(t *testing.T) {
			head := with(files, n, recipeSpec{flags: tc.flags})
			got := cv001Findings(review(t, tree(files), tree(head)))
			if len(got) != tc.want {
				t.Fatalf("findings %+v", got)
			}
			if tc.want == 0 {
				return
			}
			f := got[0]
			if f.Severity != checks.Blocking || !strings.Contains(f.Message, "this new recipe does at line") ||
				!strings.Contains(f.Details, "3 vLLM recipes in other directories do neither") {
				t.Errorf("%s\n%s", f.Message, f.Details)
			}
			if f.Suggestion == nil || f.Suggestion.Replacement != "    --tool-call-parser x\n    --enable-auto-tool-choice" {
				t.Errorf("suggestion %+v", f.Suggestion)
			}
		})
	}
}

func TestCV001SkipsUnparsableAndDeleted(t *testing.T) {
	base := alphaBase(4)
	e := agentic("e_fp4_b200")
	for name, head := range map[string]map[string]any{
		"parse error": with(base, e, "#!/usr/bin/env bash\nif then\n"),
		"deleted":     with(base, e, nil),
		"not a recipe": with(with(base, "docs/x.sh", recipeSpec{arms: []armSpec{alphaArm(false)}}),
			e, base[e]),
	} {
		t.Run(name, func(t *testing.T) {
			if got := cv001Findings(review(t, tree(base), tree(head))); len(got) != 0 {
				t.Errorf("findings %+v", got)
			}
		})
	}
}

func TestMinedCachedAcrossReviews(t *testing.T) {
	ctx := context.Background()
	tr := tree(alphaBase(4))
	cache := checks.NewParseCache(0)
	load := func() *mined {
		cfg := &checks.Config{}
		if err := cfg.ResolveLayout(ctx, tr); err != nil {
			t.Fatal(err)
		}
		ch := &checks.Change{Base: tr, Head: tr, Config: cfg, Cache: cache}
		m, err := loadGroup(ctx, ch, agentic("a_fp4_b200"), "vllm", DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		// Within one review the group is memoized, whichever file asks.
		m2, err := loadGroup(ctx, ch, agentic("b_fp4_b200"), "vllm", DefaultThresholds)
		if err != nil || m2 != m {
			t.Fatalf("not memoized per review: %p %p %v", m, m2, err)
		}
		return m
	}
	first, second := load(), load()
	if first != second {
		t.Error("the second review should reuse the mined group (same blob IDs)")
	}
	// Other content, other result.
	other := tree(alphaBase(6))
	cfg := &checks.Config{}
	_ = cfg.ResolveLayout(ctx, other)
	ch := &checks.Change{Base: other, Head: other, Config: cfg, Cache: cache}
	m, err := loadGroup(ctx, ch, agentic("a_fp4_b200"), "vllm", DefaultThresholds)
	if err != nil || m == first || len(m.members) != 6 {
		t.Errorf("members %d, %v", len(m.members), err)
	}
}

func TestCV001Doc(t *testing.T) {
	if CV001.Severity != checks.Warning || len(Rules()) == 0 || Rules()[0] != CV001 {
		t.Errorf("registration: %+v", Rules())
	}
	for _, s := range []string{"90%", "3 siblings", "reviewbot conventions"} {
		if !strings.Contains(CV001.Doc, s) {
			t.Errorf("doc lacks %q", s)
		}
	}
}

func TestCV001ChangedValue(t *testing.T) {
	base := alphaBase(4)
	e := agentic("e_fp4_b200")
	arm := alphaArm(true)
	arm.lines[0] = "export ALPHA_MODE=0"
	got := cv001Findings(review(t, tree(base), tree(with(base, e, recipeSpec{arms: []armSpec{arm, betaArm()}, flags: toolFlags}))))
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	f := got[0]
	if !strings.Contains(f.Message, "sets it to `0` instead") || !strings.Contains(f.Message, "Set `ALPHA_MODE` back to `1`") ||
		!strings.Contains(f.Details, "sets `ALPHA_MODE` to `0` where every follower has `1`") {
		t.Errorf("%s\n%s", f.Message, f.Details)
	}
	if f.Suggestion == nil || f.Suggestion.Replacement != "        export ALPHA_MODE=1" || f.Suggestion.Line != checktest.LineOf(t, with(base, e, nil)[agentic("a_fp4_b200")].(recipeSpec).script(), "ALPHA_MODE") {
		t.Errorf("want the export rewritten in place, not a second one: %+v", f.Suggestion)
	}
}
