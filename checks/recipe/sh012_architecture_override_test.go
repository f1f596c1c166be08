package recipe

import "testing"

func TestSH012(t *testing.T) {
	const target = "benchmarks/single_node/t_vllm.sh"
	base := "#!/usr/bin/env bash\nvllm serve \"$MODEL\" \\\n    --port 8000 \\\n    --max-num-seqs 8 &\n"
	tests := []struct {
		name       string
		base, head string
		want       []string
		title      string
		deletes    bool
	}{
		{
			name: "--hf-overrides", base: base,
			head:  edit(t, base, "    --port 8000 \\\n", "    --port 8000 \\\n    --hf-overrides '{\"num_experts_per_tok\": 6}' \\\n"),
			want:  []string{"SH012 " + target + ":4"},
			title: "Architecture override (hf-overrides)", deletes: true,
		},
		{
			name: "hf_overrides in a JSON config", base: base,
			head:  edit(t, base, "    --max-num-seqs 8 &", "    --max-num-seqs 8 \\\n    --model-loader-extra-config '{\"hf_overrides\": {\"rope_scaling\": null}}' &"),
			want:  []string{"SH012 " + target + ":5"},
			title: "Architecture override (hf_overrides)",
		},
		{
			name: "jq on config.json", base: base,
			head:  edit(t, base, "vllm serve", "jq '.num_hidden_layers = 30' \"$MODEL_PATH/config.json\" > /tmp/c.json && mv /tmp/c.json \"$MODEL_PATH/config.json\"\nvllm serve"),
			want:  []string{"SH012 " + target + ":2"},
			title: "Architecture override (config-edit)",
		},
		{
			name: "sed on config.json", base: base,
			head:  edit(t, base, "vllm serve", "sed -i 's/\"num_experts_per_tok\": 8/\"num_experts_per_tok\": 6/' \"$MODEL_PATH/config.json\"\nvllm serve"),
			want:  []string{"SH012 " + target + ":2"},
			title: "Architecture override (config-edit)",
		},
		{
			name: "sampling defaults are not the architecture", base: base,
			head: edit(t, base, "    --port 8000 \\\n", "    --port 8000 \\\n    --override-generation-config '{\"temperature\": 1.0}' \\\n"),
		},
		{
			name: "override the PR did not add",
			base: edit(t, base, "    --port 8000 \\\n", "    --port 8000 \\\n    --hf-overrides '{}' \\\n"),
			head: edit(t, base, "    --port 8000 \\\n", "    --port 8001 \\\n    --hf-overrides '{}' \\\n"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH012, map[string]string{target: tc.base}, map[string]string{target: tc.head})
			wantLocs(t, fs, tc.want)
			if len(fs) == 0 {
				return
			}
			if fs[0].Title != tc.title {
				t.Errorf("title %q", fs[0].Title)
			}
			mustContain(t, "message", fs[0].Body, "as published", "Remove the override")
			if got := fs[0].Suggestion != nil && fs[0].Suggestion.Replacement == ""; got != tc.deletes {
				t.Errorf("suggestion %+v", fs[0].Suggestion)
			}
		})
	}
}
