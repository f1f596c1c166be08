package recipe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSH014(t *testing.T) {
	const target = agenticDir + "t_b300_vllm.sh"
	good := "#!/usr/bin/env bash\ncase \"${X:-}\" in\n    a)\n        Y=1\n        ;;\nesac\nvllm serve \"$MODEL\" &\n"
	noEsac := edit(t, good, "esac\n", "")
	noFi := "#!/usr/bin/env bash\nif [ -n \"${X:-}\" ]; then\n    Y=1\nvllm serve \"$MODEL\" &\n"
	quote := "#!/usr/bin/env bash\necho \"unterminated\nvllm serve \"$MODEL\" &\n"
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    []string
	}{
		{
			name: "unterminated case", base: map[string]string{target: good}, head: map[string]string{target: noEsac},
			want:    []string{"SH014 " + target + ":6"},
			phrases: []string{"This recipe does not parse: line 6, column", "missing its `esac`", "`bash -n " + target + "`"},
		},
		{
			name: "unterminated if in a new recipe", base: map[string]string{}, head: map[string]string{target: noFi},
			want:    []string{"SH014 " + target + ":2"},
			phrases: []string{"This recipe does not parse: line 2"},
		},
		{
			name: "unterminated quote", base: map[string]string{target: good}, head: map[string]string{target: quote},
			want:    []string{"SH014 " + target + ":3"},
			phrases: []string{"reached EOF without closing quote", "A quote is opened and never closed"},
		},
		{
			name: "runner", base: map[string]string{"runners/launch_x.sh": good}, head: map[string]string{"runners/launch_x.sh": noEsac},
			want:    []string{"SH014 runners/launch_x.sh:6"},
			phrases: []string{"This runner does not parse"},
		},
		{
			name: "already broken, PR edits elsewhere",
			base: map[string]string{target: noEsac}, head: map[string]string{target: edit(t, noEsac, "Y=1", "Y=2")},
		},
		{
			name: "already broken, PR edits the broken line",
			base: map[string]string{target: noEsac}, head: map[string]string{target: edit(t, noEsac, "vllm serve \"$MODEL\" &", "vllm serve \"$MODEL\" --port 1 &")},
			want: []string{"SH014 " + target + ":6"},
		},
		{name: "parses", base: map[string]string{target: good}, head: map[string]string{target: edit(t, good, "Y=1", "Y=2")}},
		{name: "not a recipe", base: map[string]string{"docs/x.sh": good}, head: map[string]string{"docs/x.sh": noEsac}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH014, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if len(fs) > 0 {
				mustContain(t, "message", fs[0].Body, tc.phrases...)
			}
		})
	}
}

// The other rules skip a file that does not parse and still review the
// rest of the PR.
func TestUnparsableFileSkippedByOtherRules(t *testing.T) {
	broken := edit(t, toolRecipe, "    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n", "", "VLLM_CMD=(", "if true; then\nVLLM_CMD=(")
	base := toolTree(toolRecipe)
	head := toolTree(broken)
	head[agenticDir+"n_b200_vllm.sh"] = edit(t, toolRecipe, "    --enable-auto-tool-choice\n", "")
	if diff := cmp.Diff([]string{"SH006 " + agenticDir + "n_b200_vllm.sh:3"}, locs(reviewRule(t, SH006, base, head))); diff != "" {
		t.Errorf("SH006 (-want +got):\n%s", diff)
	}
	if got := locs(reviewRule(t, SH014, base, head)); len(got) != 1 || got[0] != "SH014 "+agenticDir+"t_b300_vllm.sh:3" {
		t.Errorf("SH014: %v", got)
	}
}
