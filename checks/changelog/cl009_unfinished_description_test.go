package changelog

import (
	"strings"
	"testing"
)

func TestCL009(t *testing.T) {
	key := []string{"kimik2.5-fp4-mi355x-atom"}
	link := "https://github.com/SemiAnalysisAI/InferenceX/pull/2132"
	log := func(desc string) string { return baseLog + "\n" + entry(key, desc, link) }
	for _, tc := range []struct {
		name string
		base string
		head string
		want []string
	}{
		{"TODO left in", baseLog, log("TODO & update image"), []string{"CL009 perf-changelog.yaml:31"}},
		{"TBD", baseLog, log("Image bump, numbers TBD"), []string{"CL009 perf-changelog.yaml:31"}},
		{"FIXME with a colon", baseLog, log("FIXME: describe the retune"), []string{"CL009 perf-changelog.yaml:31"}},
		{"a written description", baseLog, log("Update ATOM image to rocm7.2.3 atom20260511"), nil},
		// Only capitals, whole words: prose is not a marker.
		{"todo in prose", baseLog, log("Drop the todo list from the launcher"), nil},
		{"TODOS is not TODO", baseLog, log("Resolve TODOS in the script"), nil},
		{"placeholder as a word", baseLog, log("server rewrites the --tensor-parallel-size placeholder"), nil},
		{"a marker already in history", log("TODO"), log("TODO") + "\n" + entry(key, "Retune", link), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runRules(t, withLog(tc.base), withLog(tc.head), 2132, CL009)
			got := r.ids()
			if strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			for _, f := range r.findings {
				if !strings.Contains(f.Body, "`kimik2.5-fp4-mi355x-atom`") {
					t.Errorf("finding names no key: %s", f.Body)
				}
			}
		})
	}
}
