package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// An srt-slurm recipe (benchmarks/multi_node/srt-slurm-recipes/**.yaml) is
// what a multi-node row actually runs: its own parallelism per worker
// role, worker counts, speculative decoding, KV-cache offload, model,
// container and concurrencies. The row's declared values label the
// results; the recipe's are what is measured.

// Setting is a value a recipe sets, with its line ("" and 0 when absent).
type Setting struct {
	Value string
	Line  int
}

// Set reports whether the recipe sets it.
func (s Setting) Set() bool { return s.Line > 0 }

// SrtRole is a worker role's settings (prefill, decode, or aggregated).
type SrtRole struct {
	Workers Setting
	TP, EP  Setting
	// EPSwitch is vLLM's expert-parallel switch (enable-expert-parallel):
	// on, the experts are spread over the worker's TP × DP GPUs.
	EPSwitch Setting
	// DPAttn is the explicit DP-attention switch (enable-dp-attention,
	// enable_attention_dp); DP the data-parallel size.
	DPAttn, DP Setting
	// PP is the pipeline-parallel size; CP a context-parallel size.
	PP, CP Setting
	// Spec is where speculative decoding is configured ("" when not).
	Spec Setting
	// Offload is where KV-cache offload to host memory is configured.
	Offload Setting
}

// SrtRecipe is what the bot reads of an srt-slurm recipe.
type SrtRecipe struct {
	Path    string
	Backend string
	Roles   map[string]*SrtRole
	// ModelPath and Container are model.path and model.container;
	// Repo and Image their identity block's counterparts.
	ModelPath, Container, Repo, Image Setting
	// Concurrencies is benchmark.concurrencies ("16x512", a list, one
	// number); Concs its values (nil when it does not parse).
	Concurrencies Setting
	Concs         []int
	BenchType     Setting
	// BenchEnv is benchmark.env.
	BenchEnv map[string]Setting
	// OffloadHint is set when the recipe mentions KV offload in any
	// spelling (a store, a connector, a cache size), recognised or not.
	OffloadHint bool
}

// offloadHints are spellings of KV-cache offload in recipes.
var offloadHints = []string{"offload", "hicache", "host_cache", "mooncakestore", "mooncake_kv_store", "lmcache", "kvbm", "cpu_bytes", "swap-space", "swap_space"}

// maxRecipeBytes bounds a recipe the bot reads.
const maxRecipeBytes = 512 << 10

// ParseSrtRecipe reads an srt-slurm recipe.
func ParseSrtRecipe(p string, b []byte) (*SrtRecipe, error) {
	if len(b) > maxRecipeBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a recipe may have", p, len(b), maxRecipeBytes)
	}
	doc, err := yamlx.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	root := yamlx.Root(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping", p)
	}
	r := &SrtRecipe{Path: p, Roles: map[string]*SrtRole{}, BenchEnv: map[string]Setting{}}
	lower := strings.ToLower(string(b))
	for _, h := range offloadHints {
		if strings.Contains(lower, h) {
			r.OffloadHint = true
			break
		}
	}
	model := yamlx.Get(root, "model")
	r.ModelPath = setting(yamlx.Get(model, "path"))
	r.Container = setting(yamlx.Get(model, "container"))
	id := yamlx.Get(root, "identity")
	r.Repo = setting(yamlx.Get(yamlx.Get(id, "model"), "repo"))
	r.Image = setting(yamlx.Get(yamlx.Get(id, "container"), "image"))
	backend := yamlx.Get(root, "backend")
	r.Backend = yamlx.Scalar(yamlx.Get(backend, "type"))
	res := yamlx.Get(root, "resources")
	for _, role := range []string{"prefill", "decode", "agg"} {
		if w := setting(yamlx.Get(res, role+"_workers")); w.Set() {
			r.role(role).Workers = w
		}
	}
	for _, cfgName := range []string{"sglang_config", "trtllm_config", "vllm_config"} {
		cfg := yamlx.Get(backend, cfgName)
		for _, kv := range yamlx.Pairs(cfg) {
			role := kv.Key.Value
			if role == "aggregated" {
				role = "agg"
			}
			readRole(r.role(role), kv.Value)
		}
	}
	bench := yamlx.Get(root, "benchmark")
	r.BenchType = setting(yamlx.Get(bench, "type"))
	if c := yamlx.Get(bench, "concurrencies"); c != nil {
		r.Concurrencies = Setting{Value: flowText(c), Line: c.Line}
		r.Concs = parseConcs(c)
	}
	for _, kv := range yamlx.Pairs(yamlx.Get(bench, "env")) {
		r.BenchEnv[kv.Key.Value] = setting(kv.Value)
	}
	return r, nil
}

func (r *SrtRecipe) role(name string) *SrtRole {
	if r.Roles[name] == nil {
		r.Roles[name] = &SrtRole{}
	}
	return r.Roles[name]
}

func setting(n *yaml.Node) Setting {
	if n == nil {
		return Setting{}
	}
	if n.Kind != yaml.ScalarNode {
		return Setting{Value: flowText(n), Line: n.Line}
	}
	return Setting{Value: strings.TrimSpace(n.Value), Line: n.Line}
}

// flowText renders a node on one line, cut short past a bound (aliases
// can make a small document expand without end).
func flowText(n *yaml.Node) string {
	budget := 400
	return flowTextB(n, &budget, 0)
}

func flowTextB(n *yaml.Node, budget *int, depth int) string {
	if *budget <= 0 || depth > 32 {
		return "…"
	}
	*budget--
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, n.Content[i].Value+": "+flowTextB(n.Content[i+1], budget, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case yaml.AliasNode:
		if n.Alias != nil {
			return flowTextB(n.Alias, budget, depth+1)
		}
	}
	var parts []string
	for _, c := range n.Content {
		parts = append(parts, flowTextB(c, budget, depth+1))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// roleKeys names each setting in the three engines' config spellings.
var roleKeys = map[string][]string{
	"tp":       {"tensor-parallel-size", "tensor_parallel_size", "tp-size", "tp_size"},
	"ep":       {"expert-parallel-size", "moe_expert_parallel_size", "ep-size", "ep_size"},
	"dpattn":   {"enable-dp-attention", "enable_attention_dp", "enable_dp_attention"},
	"epswitch": {"enable-expert-parallel", "enable_expert_parallel"},
	"dp":       {"data-parallel-size", "data_parallel_size", "dp-size", "dp_size"},
	"pp":       {"pipeline-parallel-size", "pipeline_parallel_size", "pp-size", "pp_size"},
	"cp": {"attn-cp-size", "context-parallel-size", "context_parallel_size", "prefill-context-parallel-size",
		"decode-context-parallel-size", "cp-size", "cp_size", "dcp-size", "pcp-size"},
	"spec":    {"speculative-algorithm", "speculative_config", "speculative-config", "speculative_algorithm", "speculative-num-steps"},
	"offload": {"enable-hierarchical-cache", "hicache-size", "hicache-ratio"},
}

func readRole(role *SrtRole, m *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	first := func(keys []string) Setting {
		for _, k := range keys {
			if n := yamlx.Get(m, k); n != nil {
				s := setting(n)
				if s.Value == "" && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
					s.Value = "null"
				}
				return s
			}
		}
		return Setting{}
	}
	role.TP = first(roleKeys["tp"])
	role.EP = first(roleKeys["ep"])
	role.EPSwitch = first(roleKeys["epswitch"])
	role.DPAttn = first(roleKeys["dpattn"])
	role.DP = first(roleKeys["dp"])
	role.PP = first(roleKeys["pp"])
	if c := first(roleKeys["cp"]); c.Set() && strings.TrimSpace(c.Value) != "1" {
		role.CP = c
	}
	if s := first(roleKeys["spec"]); s.Set() && s.Value != "null" && s.Value != "false" {
		role.Spec = s
	}
	if s := first(roleKeys["offload"]); s.Set() && s.Value != "false" && s.Value != "0" {
		role.Offload = s
	}
	// TensorRT-LLM offloads through kv_cache_config.host_cache_size.
	if h := yamlx.Get(yamlx.Get(m, "kv_cache_config"), "host_cache_size"); h != nil {
		if v, err := strconv.ParseFloat(h.Value, 64); err == nil && v > 0 {
			role.Offload = Setting{Value: "host_cache_size: " + h.Value, Line: h.Line}
		}
	}
	// vLLM's own offloading: --kv-offloading-size (GiB of host memory).
	if s := first([]string{"kv-offloading-size", "kv_offloading_size"}); s.Set() {
		if v, err := strconv.ParseFloat(s.Value, 64); err == nil && v > 0 {
			role.Offload = s
		}
	}
	// vLLM offloads through a KV connector that moves blocks to the CPU.
	for _, k := range []string{"kv-transfer-config", "kv_transfer_config"} {
		if n := yamlx.Get(m, k); n != nil {
			text := flowText(n)
			if n.Kind == yaml.MappingNode {
				text = yamlx.Scalar(yamlx.Get(n, "kv_connector"))
			}
			// A Mooncake store also carries P/D transfers and prefix
			// lookups; it counts only as a hint (OffloadHint).
			if strings.Contains(text, "Offload") || strings.Contains(text, "LMCache") {
				role.Offload = Setting{Value: strings.TrimSpace(text), Line: n.Line}
			}
		}
	}
}

// parseConcs reads benchmark.concurrencies: "16x512", "4", [4, 8].
func parseConcs(n *yaml.Node) []int {
	var parts []string
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			parts = append(parts, c.Value)
		}
	} else {
		parts = strings.Split(n.Value, "x")
	}
	var out []int
	for _, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}
