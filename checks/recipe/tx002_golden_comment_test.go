package recipe

import (
	"strings"
	"testing"
)

func TestTX002(t *testing.T) {
	const (
		glm  = agenticDir + "glm5.2_fp4_b200_sglang.sh"
		qwen = agenticDir + "qwen9_fp4_b200_sglang.sh"
	)
	recipe := func(comment string) string {
		return "#!/usr/bin/env bash\n# " + comment + "\nexport SGLANG_SIMULATE_ACC_LEN=2.93\n" +
			"python3 -m sglang.launch_server --model-path \"$MODEL\" --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
	}
	other := recipe("golden AL from golden_al_distribution/dsv4_mtp.yaml, thinking_on, 3 tokens")
	tests := []struct {
		name       string
		path       string
		base, head string
		want       []string
		phrases    []string
	}{
		{name: "another model's curve cited", path: glm, head: other,
			want:    []string{"TX002 " + glm + ":2"},
			phrases: []string{"cites `golden_al_distribution/dsv4_mtp.yaml`, the golden acceptance curve of `dsv4`", "serves `glm5.2`", "whose own curve is `golden_al_distribution/glm5.2_mtp.yaml`"}},
		{name: "its own curve cited", path: glm, head: recipe("golden AL from golden_al_distribution/glm5.2_mtp.yaml")},
		{name: "a model without a curve is SH013's", path: qwen, head: other},
		{name: "a path that does not exist is TX001's", path: glm, head: recipe("golden_al_distribution/nothing_mtp.yaml")},
		{name: "an old comment the PR does not touch", path: glm, base: other,
			head: strings.Replace(other, "--speculative-num-steps 3", "--speculative-num-steps 3 --port 1", 1)},
		{name: "the PR rewrites the comment", path: glm, base: recipe("golden AL 2.93"), head: other,
			want: []string{"TX002 " + glm + ":2"}},
		{name: "at most three per recipe", path: glm,
			head: strings.Repeat("# see golden_al_distribution/kimik3_dspark.yaml\n", 5) + other,
			want: []string{"TX002 " + glm + ":1", "TX002 " + glm + ":2", "TX002 " + glm + ":3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, TX002, withFile(goldenBase, tc.path, tc.base), withFile(goldenBase, tc.path, tc.head))
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
			}
		})
	}
}
