package convention

import (
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// owner declares a fact a hand-written rule judges. CV001 mines the same
// fact (it is a convention too, and `reviewbot conventions` shows it) but
// never reports it: the hand-written rule knows why the pair matters and
// says so better, and two findings for one line are noise. The table is
// the declaration; it does not depend on the order the rules run in.
type owner struct {
	rule string
	t    tmpl
	// match reports whether the rule judges the candidate in recipe p
	// ("" when asked about the belief in general).
	match func(c cand, p string) bool
}

// The keys inside kv_connector_extra_config (SH004, SH005) need no entry:
// the object template mines a component's direct members only.
var owners = []owner{
	// SH002: a SimpleCPUOffloadConnector branch exports
	// VLLM_USE_SIMPLE_KV_OFFLOAD=1.
	{rule: "SH002", t: tArmEnv, match: func(c cand, _ string) bool {
		return c.val == "SimpleCPUOffloadConnector" && strings.HasSuffix(c.y, " VLLM_USE_SIMPLE_KV_OFFLOAD")
	}},
	// SH003: an out-of-tree connector names its module.
	{rule: "SH003", t: tObject, match: func(c cand, _ string) bool {
		return c.y == "kv_connector_module_path"
	}},
	// SH006: a server keeps its tool-calling options. It decides where
	// they matter (agentic traces call tools; fixed-length benchmarks do
	// not), so CV001 leaves them alone everywhere.
	{rule: "SH006", t: tFlagPair, match: func(c cand, _ string) bool {
		return toolFlag(c.slot) && toolFlag(c.y)
	}},
	// SH013: agentic speculative decoding pins the acceptance length.
	{rule: "SH013", t: tFlagJSON, match: func(c cand, p string) bool {
		return c.slot == "--speculative-config" && simKey(c.y) && (p == "" || script.IsAgentic(p))
	}},
	{rule: "SH013", t: tObject, match: func(c cand, p string) bool {
		return strings.HasPrefix(c.slot, "--speculative-config ") && simKey(c.y) && (p == "" || script.IsAgentic(p))
	}},
}

func toolFlag(f string) bool {
	return f == "--tool-call-parser" || f == "--enable-auto-tool-choice" || f == "--tool-parser"
}

func simKey(k string) bool {
	return k == "rejection_sample_method" || k == "synthetic_acceptance_length"
}

// judgedBy returns the hand-written rule that judges candidate c in
// recipe p (p "": in general), or "".
func judgedBy(c cand, p string) string {
	for _, o := range owners {
		if o.t == c.t && o.match(c, p) {
			return o.rule
		}
	}
	return ""
}
