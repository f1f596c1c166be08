package changelog

// What the changelog rules' tests share: a changelog and master config in
// the real files' shape, building entries, and reviewing a change.

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

const testSlug = "https://github.com/SemiAnalysisAI/InferenceX/pull/"

// baseLog is a four-entry changelog tail in the real file's shape.
var baseLog = `- config-keys:
    - dsr1-fp8-h200-sglang
  description:
    - "Bump SGLang to v0.5.5"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2101

- config-keys:
    - dsv4-fp4-b200-vllm
  description:
    - "Raise max-num-seqs to 512"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX

- config-keys:
    - dsv4-fp4-b300-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add DEP8 arm"
    - "Use vllm/vllm-openai:v0.12.0"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2190

- config-keys:
    - kimik2.5-fp4-b200-vllm
  description:
    - "Nightly image"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2222
`

const masterCfg = `dsr1-fp8-h200-sglang:
  image: lmsysorg/sglang:v0.5.5
  model-prefix: dsr1
  scenarios:
    fixed-seq-len:
    - isl: 8192
      search-space:
      - {tp: 8, conc-list: [4, 8]}

dsv4-fp4-b200-vllm:
  image: vllm/vllm-openai:v0.12.0
  model-prefix: dsv4
  scenarios:
    fixed-seq-len:
    - isl: 8192

# agentic
dsv4-fp4-b300-vllm-agentic:
  image: vllm/vllm-openai:v0.12.0
  model-prefix: dsv4
  scenarios:
    agentic-coding:
    - search-space:
      - {tp: 4, conc-list: [1, 2]}

kimik2.5-fp4-b200-vllm:
  image: vllm/vllm-openai:v0.11.0
  model-prefix: kimik2.5
  scenarios:
    fixed-seq-len:
    - isl: 8192
`

func entry(keys []string, desc, link string) string {
	var b strings.Builder
	b.WriteString("- config-keys:\n")
	for _, k := range keys {
		b.WriteString("    - " + k + "\n")
	}
	b.WriteString("  description:\n    - \"" + desc + "\"\n")
	if link != "" {
		b.WriteString("  pr-link: " + link + "\n")
	}
	return b.String()
}

type result struct {
	findings []checks.Finding
}

func (r result) ids() []string {
	out := []string{}
	for _, f := range r.findings {
		side := ""
		if f.Side == checks.Base {
			side = "(base)"
		}
		out = append(out, fmt.Sprintf("%s %s:%d%s", f.Rule, f.Path, f.Line, side))
	}
	sort.Strings(out)
	return out
}

func (r result) get(rule string) *checks.Finding {
	for i := range r.findings {
		if r.findings[i].Rule == rule {
			return &r.findings[i]
		}
	}
	return nil
}

func runReview(t testing.TB, base, head map[string]string, number int) result {
	t.Helper()
	return runRules(t, base, head, number, harnessRules()...)
}

// harnessRules are the rules the table tests of the other rules run:
// every rule but CL008, which their entries, written with the XXX
// placeholder for brevity, would all raise. TestCL008 runs it.
func harnessRules() []*checks.Rule {
	var out []*checks.Rule
	for _, r := range Rules() {
		if r != CL008 {
			out = append(out, r)
		}
	}
	return out
}

func runRules(t testing.TB, base, head map[string]string, number int, rules ...*checks.Rule) result {
	t.Helper()
	ch := checktest.Change(t, checks.NewMemTree(base), checks.NewMemTree(head))
	ch.Cache = checks.NewParseCache(0)
	ch.PR = checks.PRInfo{Number: number, Owner: "SemiAnalysisAI", Repo: "InferenceX"}
	return result{checktest.Review(t, ch, rules...).Findings}
}

const nvCfg = "configs/nvidia-master.yaml"

func withLog(log string, extra ...string) map[string]string {
	m := map[string]string{"perf-changelog.yaml": log, nvCfg: masterCfg}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

// appendEntry is baseLog with a "Retune" entry for keys appended, then
// extra.
func appendEntry(keys []string, extra string) string {
	return baseLog + "\n" + entry(keys, "Retune", "XXX") + extra
}

// ruleCase is a change and the findings its review must produce
// ("RULE path:line", "(base)" after the line of a base-side finding).
type ruleCase struct {
	name       string
	base, head map[string]string
	want       []string
	check      func(t *testing.T, r result) // when there are findings
}

// runCases reviews each case as a change of PR number (0: unknown).
func runCases(t *testing.T, number int, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runReview(t, tc.base, tc.head, number)
			if d := cmp.Diff(tc.want, r.ids()); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
				for _, f := range r.findings {
					t.Logf("%s:%d %s", f.Rule, f.Line, f.Body)
				}
			}
			if tc.check != nil && len(r.findings) > 0 {
				tc.check(t, r)
			}
		})
	}
}
