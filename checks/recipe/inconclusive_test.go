package recipe

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// A recipe rule that needs sibling evidence and has too little says so
// (Pass.Inconclusive) instead of staying silent; with the evidence it
// judges and says nothing of the kind.
func TestRecipeRulesInconclusive(t *testing.T) {
	newPath := agenticDir + "n_b300_vllm.sh"
	oneSibling := map[string]string{agenticDir + "a_b200_vllm.sh": kitRecipe}
	withTarget := func(files map[string]string, p, content string) map[string]string {
		return withFile(files, p, content)
	}
	for _, tc := range []struct {
		name       string
		rule       *checks.Rule
		base, head map[string]string
		want       string // "" for no note
	}{
		{"SH001 new recipe, one sibling", SH001, oneSibling,
			withTarget(oneSibling, newPath, strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1)),
			"SH001 " + newPath + ": runs without -u, and benchmarks/single_node/agentic/ has 1 other recipe, too few to tell whether the directory keeps it"},
		{"SH001 new recipe, three siblings", SH001, kitTree(),
			withTarget(kitTree(), newPath, strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1)), ""},
		{"SH003 connector no sibling names", SH003, kitTree(),
			withTarget(kitTree(), kitTarget, strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector"`, `"kv_connector":"FooStoreConnector"`, 1)),
			"SH003 " + kitTarget + ": line 29 names FooStoreConnector without kv_connector_module_path, and no sibling recipe names that connector, so whether it ships with vLLM is unknown"},
		{"SH003 connector the siblings name", SH003, kitTree(),
			withTarget(kitTree(), kitTarget, strings.Replace(kitRecipe, `"kv_role":"kv_both"}')`, `"kv_role":"kv_producer"}')`, 1)), ""},
		{"SH004 key of a connector no sibling configures", SH004, kitTree(),
			withTarget(kitTree(), kitTarget, strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`,
				`"kv_connector":"FooStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"store_bytes":1}`, 1)),
			"SH004 " + kitTarget + ": line 29 passes kv_connector_extra_config key store_bytes to FooStoreConnector, and 0 sibling recipes configure that connector: too few to tell a typo from a newer connector's knob"},
		{"SH006 new agentic recipe, one sibling", SH006, oneSibling, withTarget(oneSibling, newPath, kitRecipe),
			"SH006 " + newPath + ": the server command does not pass --tool-call-parser, and only one agentic sibling recipe starts a server of this engine: too few to tell whether it should|" +
				"SH006 " + newPath + ": the server command does not pass --enable-auto-tool-choice, and only one agentic sibling recipe starts a server of this engine: too few to tell whether it should"},
		{"SH006 new agentic recipe, three siblings", SH006, kitTree(), withTarget(kitTree(), newPath, kitRecipe), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := checktest.Change(t, checks.NewMemTree(tc.base), checks.NewMemTree(tc.head))
			ch.PR = checks.PRInfo{Number: 1}
			res := checktest.Review(t, ch, tc.rule)
			var got []string
			for _, n := range res.Stats.Inconclusive {
				got = append(got, n.Rule+" "+n.Path+": "+n.Reason)
			}
			if strings.Join(got, "|") != tc.want {
				t.Errorf("inconclusive\n got %q\nwant %q", strings.Join(got, "|"), tc.want)
			}
		})
	}
}
