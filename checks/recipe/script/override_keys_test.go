package script

import (
	"slices"
	"testing"
)

func TestConfigEditKeys(t *testing.T) {
	tests := []struct {
		name  string
		fn    func(string) ([]string, bool)
		code  string
		keys  []string
		known bool
	}{
		{"python subscript", pythonConfigKeys, `cfg["pard_token"] = cfg["mask_token_id"]`, []string{"pard_token"}, true},
		{"python nested", pythonConfigKeys, `c['text_config']['num_experts_per_tok'] = 6`, []string{"text_config", "num_experts_per_tok"}, true},
		{"python comparison only", pythonConfigKeys, `if cfg["model_type"] == "kimi": print(1)`, nil, false},
		{"python pop and update", pythonConfigKeys, `cfg.pop("quantization_config"); cfg.update({"rope_scaling": None}, max_position_embeddings=4096)`,
			[]string{"quantization_config", "rope_scaling", "max_position_embeddings"}, true},
		{"python del", pythonConfigKeys, `del cfg["index_topk"]`, []string{"index_topk"}, true},
		{"python rewrite without keys", pythonConfigKeys, `json.dump(new_cfg, open(p, "w"))`, nil, false},
		{"sed", sedConfigKeys, `s/"num_experts": 256/"num_experts": 128/`, []string{"num_experts"}, true},
		{"sed without a key", sedConfigKeys, `s/256/128/`, nil, false},
		{"jq path", jqConfigKeys, `.quantization_config.ignore += ["x"]`, []string{"quantization_config", "ignore"}, true},
		{"jq object", jqConfigKeys, `. + {"pard_token": 7}`, []string{"pard_token"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, known := tt.fn(tt.code)
			if known != tt.known || !slices.Equal(keys, tt.keys) {
				t.Errorf("got %q, %v; want %q, %v", keys, known, tt.keys, tt.known)
			}
		})
	}
}

func TestArchKeys(t *testing.T) {
	tests := []struct {
		key  string
		arch bool
	}{
		{"num_experts_per_tok", true}, {"n_routed_experts", true}, {"num_hidden_layers", true},
		{"index_topk_freq", true}, {"use_index_cache", true}, {"quantization_config", true},
		{"max_position_embeddings", true}, {"rope_scaling", true}, {"architectures", true},
		{"head_dim", true}, {"moe_intermediate_size", true}, {"modules_to_not_convert", true},
		{"pard_token", false}, {"mask_token_id", false}, {"text_config", false},
		{"chat_template", false}, {"eos_token_id", false}, {"bos_token_id", false},
	}
	for _, tt := range tests {
		if got := len(ArchKeys([]string{tt.key})) == 1; got != tt.arch {
			t.Errorf("ArchKeys(%q): arch=%v, want %v", tt.key, got, tt.arch)
		}
	}
}
