package changelog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
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
	ctx := context.Background()
	bt, ht := checks.NewMemTree(base), checks.NewMemTree(head)
	files, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := checks.NewRegistry(Rules()...)
	if err != nil {
		t.Fatal(err)
	}
	ch := &checks.Change{Base: bt, Head: ht, Files: files, Cache: checks.NewParseCache(0),
		PR: checks.PRInfo{Number: number, Owner: "SemiAnalysisAI", Repo: "InferenceX"}}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("rule error: %v", e)
	}
	return result{res.Findings}
}

func withLog(log string, extra ...string) map[string]string {
	m := map[string]string{"perf-changelog.yaml": log, "configs/nvidia-master.yaml": masterCfg}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func TestRules(t *testing.T) {
	appended := func(link string) string {
		return baseLog + "\n" + entry([]string{"dsv4-fp4-b300-vllm-agentic"}, "Add LMCache arm", link)
	}
	for _, tc := range []struct {
		name   string
		base   map[string]string
		head   map[string]string
		number int
		want   []string
		check  func(t *testing.T, r result)
	}{
		{name: "no change", base: withLog(baseLog), head: withLog(baseLog), number: 2225, want: []string{}},
		{name: "placeholder XXX", base: withLog(baseLog), head: withLog(appended("XXX")), number: 2225, want: []string{}},
		{name: "placeholder pull/XXX", base: withLog(baseLog), head: withLog(appended(testSlug + "XXX")), number: 2225, want: []string{}},
		{name: "own link", base: withLog(baseLog), head: withLog(appended(testSlug + "2225")), number: 2225, want: []string{}},
		{name: "another PR's number", base: withLog(baseLog), head: withLog(appended(testSlug + "2202")), number: 2225,
			want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				f := r.get("CL001")
				for _, s := range []string{"`pull/2202`", "PR #2225", testSlug + "2225", "`XXX`"} {
					if !strings.Contains(f.Message, s) {
						t.Errorf("message lacks %q: %s", s, f.Message)
					}
				}
				if f.Suggestion == nil || f.Suggestion.Replacement != "  pr-link: "+testSlug+"2225" || f.Suggestion.Line != 32 {
					t.Errorf("suggestion = %+v", f.Suggestion)
				}
				if len(f.Related) != 2 || f.Related[0].Line != 26 || f.Related[1].Line != 11 {
					t.Errorf("related = %+v", f.Related)
				}
				if f.Key != "pr-link:"+testSlug+"2202" {
					t.Errorf("key = %q", f.Key)
				}
			}},
		{name: "four X", base: withLog(baseLog), head: withLog(appended(testSlug + "XXXX")), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL001").Message; !strings.Contains(m, "four X's") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "TBD", base: withLog(baseLog), head: withLog(appended(testSlug + "TBD")), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "bare XXXX", base: withLog(baseLog), head: withLog(appended("XXXX")), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "changes suffix", base: withLog(baseLog), head: withLog(appended(testSlug + "2232/changes")), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "http", base: withLog(baseLog), head: withLog(appended("http://github.com/SemiAnalysisAI/InferenceX/pull/2232")), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "other repository", base: withLog(baseLog), head: withLog(appended("https://github.com/someone/InferenceX/pull/2232")), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL001").Message; !strings.Contains(m, "`someone/InferenceX`") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "empty link", base: withLog(baseLog), head: withLog(appended(`""`)), number: 2232, want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "missing link", base: withLog(baseLog), head: withLog(appended("")), number: 2232, want: []string{"CL001 perf-changelog.yaml:28"},
			check: func(t *testing.T, r result) {
				f := r.get("CL001")
				if f.Suggestion == nil || f.Suggestion.Line != 31 || !strings.HasSuffix(f.Suggestion.Replacement, "\n  pr-link: "+testSlug+"2232") {
					t.Errorf("suggestion = %+v", f.Suggestion)
				}
			}},
		{name: "no PR number: other canonical number is fine", base: withLog(baseLog), head: withLog(appended(testSlug + "2202")), number: 0, want: []string{}},
		{name: "no PR number: TBD still wrong", base: withLog(baseLog), head: withLog(appended(testSlug + "TBD")), number: 0, want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				f := r.get("CL001")
				if f.Suggestion == nil || !strings.HasSuffix(f.Suggestion.Replacement, "pull/XXX") {
					t.Errorf("suggestion = %+v", f.Suggestion)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runReview(t, tc.base, tc.head, tc.number)
			if d := cmp.Diff(tc.want, r.ids()); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
				for _, f := range r.findings {
					t.Logf("%s:%d %s", f.Rule, f.Line, f.Message)
				}
			}
			if tc.check != nil && len(r.findings) > 0 {
				tc.check(t, r)
			}
		})
	}
}
