package changelog

import (
	"strings"
	"testing"
)

func TestCL008(t *testing.T) {
	key := []string{"dsv4-fp4-b300-vllm-agentic"}
	pull := "https://github.com/SemiAnalysisAI/InferenceX/pull/"
	log := func(link string) string { return baseLog + "\n" + entry(key, "Retune", link) }
	for _, tc := range []struct {
		name   string
		number int
		base   string
		head   string
		want   []string
	}{
		{"bare placeholder, PR known", 2225, baseLog, log("XXX"), []string{"CL008 perf-changelog.yaml:32"}},
		{"pull/XXX placeholder, PR known", 2225, baseLog, log(pull + "XXX"), []string{"CL008 perf-changelog.yaml:32"}},
		{"placeholder, PR number unknown", 0, baseLog, log("XXX"), nil},
		{"the PR's own link", 2225, baseLog, log(pull + "2225"), nil},
		// Not placeholders: CL001's, not CL008's.
		{"four X's", 2225, baseLog, log(pull + "XXXX"), nil},
		{"lower-case xxx", 2225, baseLog, log(pull + "xxx"), nil},
		{"TBD", 2225, baseLog, log("TBD"), nil},
		{"a placeholder already in history", 2225, log("XXX"), log("XXX") + "\n" + entry(key, "Again", pull+"2225"), nil},
		{"two new entries with placeholders", 2225, baseLog, log("XXX") + "\n" + entry(key, "Again", "XXX"),
			[]string{"CL008 perf-changelog.yaml:32", "CL008 perf-changelog.yaml:38"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runRules(t, withLog(tc.base), withLog(tc.head), tc.number, CL008)
			got := r.ids()
			if strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			for _, f := range r.findings {
				if !strings.Contains(f.Body, pull+"2225") || f.Suggestion == nil || !strings.HasSuffix(f.Suggestion.Replacement, "pr-link: "+pull+"2225") {
					t.Errorf("finding names no link to write: %s %+v", f.Body, f.Suggestion)
				}
			}
		})
	}
}
