package convention

import (
	"path"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// flagAliases maps the short spellings of server options to the long
// ones, after script.NormFlag (which turns "_" into "-"). The engines
// accept both (`--tp 8` and `--tensor-parallel-size 8` are one option to
// SGLang), so a recipe using the other spelling is not missing the
// option.
var flagAliases = map[string]string{
	"-tp":       "--tensor-parallel-size",
	"--tp":      "--tensor-parallel-size",
	"--tp-size": "--tensor-parallel-size",
	"-dp":       "--data-parallel-size",
	"--dp":      "--data-parallel-size",
	"--dp-size": "--data-parallel-size",
	"-pp":       "--pipeline-parallel-size",
	"--pp":      "--pipeline-parallel-size",
	"--pp-size": "--pipeline-parallel-size",
	"--ep":      "--expert-parallel-size",
	"--ep-size": "--expert-parallel-size",
	"-ep":       "--enable-expert-parallel",
	"-q":        "--quantization",
	"-dcp":      "--decode-context-parallel-size",
}

// canonFlag is the name an option is compared by: script.NormFlag, the
// long spelling of an alias, and without the `--no-` of a negated boolean
// (`--no-enable-prefix-caching` decides the same setting as
// `--enable-prefix-caching`: a recipe that passes either has made the
// choice). A dotted option (`--attention-config.backend`) is its base
// option; dottedKey returns the key.
func canonFlag(name string) string {
	n := script.NormFlag(name)
	if i := strings.IndexByte(n, '.'); i > 0 {
		n = n[:i]
	}
	if a, ok := flagAliases[n]; ok {
		n = a
	}
	if rest, ok := strings.CutPrefix(n, "--no-"); ok && len(rest) > 2 {
		n = "--" + rest
	}
	return n
}

// dottedKey splits `--F.key.sub` (vLLM's spelling of one key of a JSON
// option) into the option and the key, with dashes read as underscores
// as the engine does; ok is false for an ordinary option.
func dottedKey(name string) (flag, key string, ok bool) {
	n := strings.TrimSpace(name)
	if i := strings.IndexByte(n, '='); i >= 0 {
		n = n[:i]
	}
	i := strings.IndexByte(n, '.')
	if i <= 2 || i == len(n)-1 || !strings.HasPrefix(n, "--") {
		return "", "", false
	}
	return canonFlag(n[:i]), normKey(n[i+1:]), true
}

// normKey spells a JSON key for comparison: the engines parse
// `indexer-kv-dtype` and `indexer_kv_dtype` alike.
func normKey(k string) string { return strings.ReplaceAll(k, "-", "_") }

// genericTokens are words of option names that say what kind of setting
// an option is, not which feature it belongs to: `--max-num-seqs` and
// `--max-model-len` share "max" and nothing else. Two options are
// name-related only through a token that is not one of these.
var genericTokens = map[string]bool{
	"enable": true, "disable": true, "no": true, "use": true, "allow": true, "force": true, "skip": true,
	"max": true, "min": true, "num": true, "size": true, "sizes": true, "count": true, "len": true,
	"length": true, "limit": true, "ratio": true, "fraction": true, "threshold": true, "factor": true,
	"interval": true, "timeout": true, "level": true, "config": true, "cfg": true, "mode": true,
	"type": true, "dtype": true, "path": true, "dir": true, "file": true, "name": true, "id": true,
	"port": true, "host": true, "addr": true, "address": true, "url": true, "backend": true,
	"parser": true, "kwargs": true, "args": true, "extra": true, "policy": true, "layout": true,
	"io": true, "mem": true, "memory": true, "gpu": true, "gpus": true, "cpu": true, "server": true,
	"model": true, "log": true, "logs": true, "tokens": true, "token": true,
	"batch": true, "batched": true, "bs": true, "seqs": true, "seq": true, "requests": true,
	"running": true, "per": true, "rank": true, "local": true, "global": true, "static": true,
	"default": true, "auto": true, "all": true, "only": true, "on": true, "off": true, "kv": true,
	"cache": true, "caching": true, "parallel": true, "parallelism": true, "data": true,
	"tensor": true, "pipeline": true, "context": true, "world": true, "nodes": true, "node": true,
	"workers": true, "worker": true, "threads": true, "steps": true, "step": true, "algorithm": true,
	"method": true, "schedule": true, "scheduler": true, "served": true,
	"trust": true, "remote": true, "code": true, "dist": true, "init": true, "load": true,
	"format": true, "quantization": true, "quant": true, "dump": true, "stats": true,
	"metrics": true, "report": true, "uvicorn": true, "access": true, "enforce": true,
	"eager": true, "compile": true, "compilation": true, "graph": true, "graphs": true,
	"cuda": true, "capture": true, "cudagraph": true, "prefill": true,
	"decode": true, "attention": true, "moe": true, "runner": true, "kernel": true,
	"weight": true, "weights": true, "tokenizer": true, "chat": true, "template": true,
}

// tokenAliases spell a content token the way the rest of the option
// names do: SGLang's `--hicache-*` options configure the hierarchical
// cache that `--enable-hierarchical-cache` turns on.
var tokenAliases = map[string]string{
	"hicache": "hierarchical",
	"spec":    "speculative",
}

// contentTokens are the words of a canonical option name that name a
// feature.
func contentTokens(flag string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.TrimLeft(flag, "-"), func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
		if a, ok := tokenAliases[t]; ok {
			t = a
		}
		if genericTokens[t] || len(t) < 2 || isDecimal(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// nameRelated reports whether two canonical option names share a content
// token (`--tool-call-parser` and `--enable-auto-tool-choice` share
// "tool"): only such pairs can be a convention of the flag template.
func nameRelated(a, b string) bool {
	if a == b {
		return false
	}
	ta := contentTokens(a)
	for _, t := range contentTokens(b) {
		for _, u := range ta {
			if t == u {
				return true
			}
		}
	}
	return false
}

// family is the unit of evidence: recipes of one model for one vendor's
// hardware are written by copying one another, so they count once
// (dsv4_fp4_b200_vllm.sh and dsv4_fp4_b300_vllm_mtp.sh are one family;
// dsv4_fp4_mi355x_vllm.sh, written for ROCm, is another).
func family(p string) string {
	base := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
	toks := strings.Split(base, "_")
	model := strings.ReplaceAll(toks[0], ".", "")
	vendor := "nvidia"
	for _, t := range toks[1:] {
		if len(t) > 2 && strings.HasPrefix(t, "mi") && t[2] >= '0' && t[2] <= '9' {
			vendor = "amd"
		}
	}
	for _, seg := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if strings.Contains(seg, "amd") || strings.Contains(seg, "rocm") {
			vendor = "amd"
		}
	}
	return model + "/" + vendor
}

// isDecimal reports whether a name token is digits and dots only (a
// version or a size), which says nothing of the model.
func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}
