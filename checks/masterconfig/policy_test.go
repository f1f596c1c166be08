package masterconfig

import (
	"os"
	"testing"
	"time"
)

func day(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}

// expectation is one merged deprecation a MODELS.md must yield.
type expectation struct {
	model, scenario, precision string
	lastDay                    string // "" for undated
}

func checkPolicy(t *testing.T, p *Policy, want []expectation) {
	t.Helper()
	for _, w := range want {
		var v *Verdict
		for _, c := range p.Lookup(w.model, w.scenario, w.precision) {
			if c.Model == w.model && c.Scenario == w.scenario && c.Precision == w.precision {
				v = c
			}
		}
		if v == nil {
			t.Errorf("no deprecation for %+v", w)
			continue
		}
		got := ""
		if !v.LastDay.IsZero() {
			got = v.LastDay.Format("2006-01-02")
		}
		if got != w.lastDay || len(v.Lines) == 0 {
			t.Errorf("%+v: last day %q, lines %v", w, got, v.Lines)
		}
	}
}

// checkActive fails for each (model, scenario, precision) that a
// deprecation in force on 2026-08-21 covers.
func checkActive(t *testing.T, p *Policy, active [][3]string) {
	t.Helper()
	for _, c := range active {
		for _, v := range p.Lookup(c[0], c[1], c[2]) {
			if v.InForce(day("2026-08-21")) {
				t.Errorf("%v is deprecated by %+v", c, v)
			}
		}
	}
}

// sharedDeprecations are the deprecations both the fixture tree's and the
// real MODELS.md announce.
func sharedDeprecations() []expectation {
	return []expectation{
		{"kimik2.5", "Single-turn 8k1k", "", "2026-08-06"},
		{"kimik2.5", "Agentic coding", "", "2026-08-03"},
		{"kimik2.5", "", "", "2026-08-06"},
		{"minimaxm3", "Single-turn 8k1k", "", "2026-08-03"},
		{"qwen3.5", "", "bf16", "2026-08-03"},
		{"", "Single-turn 1k1k", "", "2026-07-16"},
		{"", "Single-turn 1k8k", "", "2026-03-26"},
		{"glm5", "", "", "2026-07-17"},
		{"glm5.1", "", "", "2026-07-17"},
	}
}

func TestParseModelsFixtureTree(t *testing.T) {
	p, _ := ParseModels([]byte(modelsMD(t)))
	checkPolicy(t, p, append(sharedDeprecations(), expectation{"dsv4", "Single-turn 1k1k", "", ""}))
	// Active combinations stay allowed.
	checkActive(t, p, [][3]string{
		{"dsv4", "Agentic coding", "fp4"}, {"dsv4", "Single-turn 8k1k", "fp4"}, {"qwen3.5", "Agentic coding", "fp8"},
		{"kimik3", "Agentic coding", "fp4"}, {"dsr1", "Single-turn 8k1k", "fp8"}, {"glm5.2", "Agentic coding", "fp4"},
		{"minimaxm3", "Agentic coding", "fp4"},
	})
	if len(p.Arms) != 3 {
		t.Errorf("arms: %+v", p.Arms)
	}
	for _, a := range p.Arms {
		if a.Enacted {
			t.Errorf("arm %+v marked enacted", a)
		}
	}
	if p.ScenarioName(FixedSeqLen, 8192, 1024) != "Single-turn 8k1k" || p.ScenarioName(FixedSeqLen, 1024, 8192) != "Single-turn 1k8k" ||
		p.ScenarioName(AgenticCoding, 0, 0) != "Agentic coding" || p.ScenarioName(FixedSeqLen, 2048, 128) != "" {
		t.Error("scenario names")
	}
}

func TestParseModelsReal(t *testing.T) {
	b, err := os.ReadFile("../../../shared/inferencex/MODELS.md")
	if err != nil {
		t.Skip("real MODELS.md not available")
	}
	p, _ := ParseModels(b)
	checkPolicy(t, p, append(sharedDeprecations(),
		expectation{"minimaxm2.5", "", "", "2026-06-19"},
		expectation{"gptoss", "", "", "2026-07-05"},
		expectation{"llama70b", "", "", "2025-10-28"}))
	// The seed 004 decision: allowed on the last day, rejected the day after.
	v := p.Lookup("kimik2.5", "Single-turn 8k1k", "fp4")[0]
	if v.InForce(day("2026-08-06")) || !v.InForce(day("2026-08-07")) {
		t.Errorf("kimik2.5 8k1k: %+v", v)
	}
	if len(p.Arms) != 5 {
		t.Errorf("%d arm rows", len(p.Arms))
	}
	for _, a := range p.Arms {
		if a.Enacted {
			t.Errorf("arm %+v marked enacted; the notice says not yet enacted", a)
		}
	}
	checkActive(t, p, [][3]string{
		{"dsv4", "Agentic coding", "fp4"}, {"kimik3", "Agentic coding", "fp4"}, {"qwen3.5", "Single-turn 8k1k", "fp8"},
		{"glm5.2", "Agentic coding", "fp8"}, {"dsr1", "Single-turn 8k1k", "fp4"}, {"qwen3.8", "Agentic coding", "fp8"},
	})
}

func TestParseModelsForms(t *testing.T) {
	src := "# Models\n\n## Deprecation Notice\n\n" +
		"### Tuesday, September 1, 2026\n\n" +
		"| Model | Deprecated | Remains |\n|---|---|---|\n" +
		"| Foo (`foo`) | Single-turn 8k1k, Agentic coding non-MTP arm | Agentic coding |\n" +
		"| Bar (`bar`) | All **fp8** recipes | fp4 |\n\n" +
		"**September 3, 2026** is the last day for the **Agentic coding** scenario on **Baz** (`baz`). It is **fully retired after September 3, 2026**.\n\n" +
		"| Model | Deprecated arm | Published arm |\n|---|---|---|\n| Foo (`foo`) | Agentic coding, non-MTP | Agentic coding, MTP |\n\n" +
		"## Scenarios\n\n| Scenario | ISL/OSL | Status |\n|---|---|---|\n" +
		"| Single-turn 2k1k | 2048 / 1024 | **Deprecated for all models** since 2026-05-01 |\n\n" +
		"## Model support matrix\n\n| Model | Prefix | Date added | Active scenarios | Deprecated scenarios |\n|---|---|---|---|---|\n" +
		"| Foo | `foo` | 2026-01-01 | Agentic coding | Single-turn 8k1k (removed 2026-09-10, [#1](https://x/pull/1)) |\n" +
		"| Baz | `baz` | 2026-01-01 | Agentic coding (until 2026-09-03) | |\n" +
		"| Bar | `bar` | 2026-01-01 | Single-turn 8k1k | Single-turn 1k1k (Bar-2 only), Agentic coding extra arm |\n" +
		"| Qux | `qux` | 2026-01-01 | None (retired 2026-02-01) | |\n"
	p, _ := ParseModels([]byte(src))
	checkPolicy(t, p, []expectation{
		// The matrix says removed 2026-09-10 (last day 09-09), the notice
		// 09-01: the later date wins, an extension is honored.
		{"foo", "Single-turn 8k1k", "", "2026-09-09"},
		{"bar", "", "fp8", "2026-09-01"},
		{"baz", "Agentic coding", "", "2026-09-03"},
		{"baz", "", "", "2026-09-03"},
		{"", "Single-turn 2k1k", "", "2026-04-30"},
		{"qux", "", "", "2026-01-31"},
	})
	if vs := p.Lookup("foo", "Agentic coding", ""); len(vs) != 0 {
		t.Errorf("a qualified arm item became a scenario deprecation: %+v", vs[0])
	}
	if vs := p.Lookup("bar", "Single-turn 1k1k", ""); len(vs) != 0 {
		t.Errorf("a qualified item (only) became a deprecation: %+v", vs[0])
	}
	if p.ScenarioName(FixedSeqLen, 2048, 1024) != "Single-turn 2k1k" {
		t.Error("scenario table ISL/OSL not learned")
	}
	if len(p.Arms) != 1 || !p.Arms[0].Enacted {
		t.Errorf("arm without a not-yet-enacted note: %+v", p.Arms)
	}
	v := p.Lookup("baz", "Agentic coding", "")[0]
	if v.InForce(day("2026-09-03")) || !v.InForce(day("2026-09-04")) {
		t.Errorf("last-day semantics: %+v", v)
	}

	// Nothing recognizable, nothing deprecated; garbage does not panic.
	for _, s := range []string{"", "|", "| a |\n|---|\n", "### Monday, August 3, 2026\n\n| Model | Deprecated |\n|---|---|\n| `x` |\n",
		"is the last day for", "fully retired after", "### 2026-13-45\n"} {
		p, _ := ParseModels([]byte(s))
		if len(p.Deprecations) != 0 {
			t.Errorf("%q: %+v", s, p.Deprecations)
		}
	}
}
