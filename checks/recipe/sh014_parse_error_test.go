package recipe

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
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

// A recipe the reviewer does not parse is named with its reason (and the
// line, when there is one), never silently skipped: binary bytes where a
// recipe was or at a new recipe path, a recipe past the size bound, one
// nested past the depth bound. The nesting that used to crash the process
// is one of them.
func TestSH014Limits(t *testing.T) {
	const target = agenticDir + "t_b300_vllm.sh"
	good := "#!/usr/bin/env bash\nset -euo pipefail\nvllm serve \"$MODEL\" &\n"
	deep := "#!/usr/bin/env bash\nset -euo pipefail\n" + strings.Repeat("(", 150_000) + "true" + strings.Repeat(")", 150_000) + "\nvllm serve \"$MODEL\" &\n"
	chained := "#!/usr/bin/env bash\nset -euo pipefail\ntrue" + strings.Repeat(" && true", 5000) + "\nvllm serve \"$MODEL\" &\n"
	elf := "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	big := good + strings.Repeat("# padding\n", (1<<20)/10+1)
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    []string
	}{
		{
			name: "deep nesting", base: map[string]string{target: good}, head: map[string]string{target: deep},
			want:    []string{"SH014 " + target + ":3"},
			phrases: []string{"This recipe was not reviewed: it is nested too deeply for the reviewer to parse (about line 3)", "flatten"},
		},
		{
			name: "long chain", base: map[string]string{target: good}, head: map[string]string{target: chained},
			want:    []string{"SH014 " + target + ":3"},
			phrases: []string{"nested more than 1000 levels deep at line 3"},
		},
		{
			name: "binary where a recipe was", base: map[string]string{target: good}, head: map[string]string{target: elf},
			want:    []string{"SH014 " + target + ":0"},
			phrases: []string{"This recipe is a binary file, not a shell script"},
		},
		{
			name: "new binary at a recipe path", base: map[string]string{}, head: map[string]string{target: elf},
			want:    []string{"SH014 " + target + ":0"},
			phrases: []string{"binary file"},
		},
		{
			name: "binary runner", base: map[string]string{"runners/launch_x.sh": good}, head: map[string]string{"runners/launch_x.sh": elf},
			want:    []string{"SH014 runners/launch_x.sh:0"},
			phrases: []string{"This runner is a binary file"},
		},
		{
			name: "too large", base: map[string]string{target: good}, head: map[string]string{target: big},
			want:    []string{"SH014 " + target + ":1"},
			phrases: []string{"the file is 1.0 MiB, larger than the 1 MiB the reviewer parses"},
		},
		{name: "binary outside the recipe paths", base: map[string]string{"docs/x.sh": good}, head: map[string]string{"docs/x.sh": elf}},
		{name: "binary recipe deleted", base: map[string]string{target: elf}, head: map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH014, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if len(fs) > 0 {
				mustContain(t, "message", fs[0].Body, tc.phrases...)
				if fs[0].Severity != checks.Blocking {
					t.Errorf("severity = %v", fs[0].Severity)
				}
			}
		})
	}
}

// The PR's other recipes are reviewed as usual next to one the reviewer
// could not parse, and so are the siblings' conventions: the deep file is
// left out of every group it would join.
func TestLimitFileDoesNotStopTheReview(t *testing.T) {
	deep := "#!/usr/bin/env bash\n" + strings.Repeat("$(", 100_000) + "true" + strings.Repeat(")", 100_000) + "\n"
	base := toolTree(toolRecipe)
	head := toolTree(toolRecipe)
	head[agenticDir+"n_b200_vllm.sh"] = edit(t, toolRecipe, "    --enable-auto-tool-choice\n", "")
	head[agenticDir+"z_b200_vllm.sh"] = deep
	fs := checktest.Review(t, testChange(t, base, head), Rules()...).Findings
	got := locs(fs)
	for _, want := range []string{"SH006 " + agenticDir + "n_b200_vllm.sh:3", "SH014 " + agenticDir + "z_b200_vllm.sh:2"} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %s in %v", want, got)
		}
	}
}
