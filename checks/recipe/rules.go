package recipe

import (
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// registered collects the recipe rules; each rule file registers its rule
// in an init function, so adding a rule touches one file.
var registered []*checks.Rule

func register(r *checks.Rule) { registered = append(registered, r) }

// Rules returns the recipe rules (SH*, RN*) in ID order.
func Rules() []*checks.Rule {
	out := append([]*checks.Rule(nil), registered...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// UsesSpecDecoding reports whether a recipe turns speculative decoding on
// (a speculative server option, a TRT-LLM speculative_config is not seen
// here, or a draft-method word in its file name such as _mtp).
func UsesSpecDecoding(f *Facts) bool {
	if f == nil {
		return false
	}
	_, ok := specDecoding(f, nil)
	return ok
}
