package script

import (
	"regexp"
	"slices"
	"strings"
)

// Which keys an override changes decides whether it changes the model.
// Rewriting `pard_token` in a draft checkpoint's config.json renames
// metadata; rewriting `num_experts_per_tok` or `index_topk_freq` serves a
// different network. These helpers read the keys an edit sets from the
// edit's own language (a Python heredoc, a sed script, a jq filter, the
// JSON of --hf-overrides); the shell around them comes from the AST.

var (
	// config["key"] = ..., cfg['a']['b'] += ..., but not ==.
	pySubscriptSet = regexp.MustCompile(`((?:\[\s*["'][A-Za-z_][A-Za-z0-9_]*["']\s*\])+)\s*(?:[-+*/|&]?=)[^=]`)
	pySubscriptKey = regexp.MustCompile(`["']([A-Za-z_][A-Za-z0-9_]*)["']`)
	// del config["key"], config.pop("key"), config.setdefault("key", ...),
	// setattr(config, "key", ...).
	pyKeyCall = regexp.MustCompile(`(?:\bdel\s+[A-Za-z_][A-Za-z0-9_.]*\s*\[\s*|\.(?:pop|setdefault)\(\s*|\bsetattr\(\s*[A-Za-z_][A-Za-z0-9_.]*\s*,\s*)["']([A-Za-z_][A-Za-z0-9_]*)["']`)
	// config.update({"key": ...}) and config.update(key=...).
	pyUpdate     = regexp.MustCompile(`\.update\(([^)]*)\)`)
	pyDictKey    = regexp.MustCompile(`["']([A-Za-z_][A-Za-z0-9_]*)["']\s*:`)
	pyKwarg      = regexp.MustCompile(`(?:^|[(,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]`)
	quotedKey    = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"`)
	jqPathKey    = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)`)
	jqObjectKey  = regexp.MustCompile(`"?([A-Za-z_][A-Za-z0-9_]*)"?\s*:`)
	keyTokenSepa = func(r rune) bool { return r == '_' || r == '-' || r == '.' }
)

// pythonConfigKeys returns the keys Python code sets or removes on a
// mapping, and whether it found any way the code changes one.
func pythonConfigKeys(code string) ([]string, bool) {
	var keys []string
	for _, m := range pySubscriptSet.FindAllStringSubmatch(code, -1) {
		for _, k := range pySubscriptKey.FindAllStringSubmatch(m[1], -1) {
			keys = append(keys, k[1])
		}
	}
	for _, m := range pyKeyCall.FindAllStringSubmatch(code, -1) {
		keys = append(keys, m[1])
	}
	for _, m := range pyUpdate.FindAllStringSubmatch(code, -1) {
		for _, k := range pyDictKey.FindAllStringSubmatch(m[1], -1) {
			keys = append(keys, k[1])
		}
		for _, k := range pyKwarg.FindAllStringSubmatch(m[1], -1) {
			keys = append(keys, k[1])
		}
	}
	return uniqueKeys(keys), len(keys) > 0
}

// sedConfigKeys returns the JSON keys a sed script on config.json names
// ("num_experts" in s/"num_experts": 256/"num_experts": 128/).
func sedConfigKeys(script string) ([]string, bool) {
	var keys []string
	for _, m := range quotedKey.FindAllStringSubmatch(script, -1) {
		keys = append(keys, m[1])
	}
	return uniqueKeys(keys), len(keys) > 0
}

// jqConfigKeys returns the keys a jq filter touches (.a.b = 1, del(.c),
// . + {"d": 2}).
func jqConfigKeys(filter string) ([]string, bool) {
	var keys []string
	for _, m := range jqPathKey.FindAllStringSubmatch(filter, -1) {
		keys = append(keys, m[1])
	}
	for _, m := range jqObjectKey.FindAllStringSubmatch(filter, -1) {
		keys = append(keys, m[1])
	}
	return uniqueKeys(keys), len(keys) > 0
}

func uniqueKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// archWords are the parts of config key names that size or shape the
// network, its numerics or its context: layers, experts and routing,
// attention heads and their dimensions, hidden sizes, the sparse-attention
// indexer and its top-k, quantization and the modules it skips, RoPE and
// context length, the architecture class itself.
var archWords = []string{
	"layer", "layers", "expert", "experts", "moe", "dense", "head", "heads", "dim", "hidden",
	"intermediate", "vocab", "topk", "index", "indexer", "sparse", "quant", "quantization",
	"quantize", "convert", "ignore", "ignored", "exclude", "skip", "modules", "position",
	"positions", "rope", "window", "architecture", "architectures", "type", "dtype",
	"attention", "attn", "mla", "lora", "rank", "group", "groups", "routed", "shared",
	"scaling", "freq", "nextn", "mtp", "tie", "embeddings", "kv", "compress", "ratio",
}

// ArchKeys returns the keys among keys whose name marks them as changing
// the model (num_experts_per_tok, index_topk_freq, quantization_config,
// max_position_embeddings); "text_config.index_topk_freq" is judged by
// each of its segments.
func ArchKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if isArchKey(k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func isArchKey(k string) bool {
	low := strings.ToLower(k)
	if strings.HasPrefix(low, "top_k") || strings.Contains(low, "top_k") {
		return true
	}
	for _, w := range strings.FieldsFunc(low, keyTokenSepa) {
		if slices.Contains(archWords, w) || strings.HasPrefix(w, "n") && slices.Contains(archWords, w[1:]) {
			return true
		}
	}
	return false
}
