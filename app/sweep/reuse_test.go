package sweep

import (
	"strings"
	"testing"
)

// Check 4 decides from the labels, not from the wording of the reply's
// warnings (which can change without changing a verdict).
func TestLabelProblems(t *testing.T) {
	tests := []struct {
		labels      []string
		warnings    int
		blocking    []string
		noFullSweep bool
		reason      string
	}{
		{[]string{"full-sweep-fail-fast"}, 0, nil, false, ""},
		{[]string{"full-sweep-enabled", "all-evals"}, 0, nil, false, ""},
		{[]string{"full-sweep-fail-fast", "agentx-fast"}, 1, []string{"agentx-fast"}, false, "`agentx-fast`"},
		{[]string{"evals-only"}, 2, []string{"evals-only"}, true, "`evals-only`"},
		{nil, 1, nil, true, "none of the full-sweep labels"},
	}
	for _, tt := range tests {
		st := AnalyzeLabels(tt.labels)
		if strings.Join(st.blocking, ",") != strings.Join(tt.blocking, ",") || st.noFullSweep != tt.noFullSweep {
			t.Errorf("%v: %+v", tt.labels, st)
		}
		if w := st.Warnings(); len(w) != tt.warnings {
			t.Errorf("%v: warnings %q", tt.labels, w)
		}
		got := st.BlockingReason()
		if (tt.reason == "") != (got == "") || !strings.Contains(got, tt.reason) {
			t.Errorf("%v: blocking %q, want %q", tt.labels, got, tt.reason)
		}
	}
}
