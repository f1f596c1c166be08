package pipeline

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
)

func TestSwitchedEP(t *testing.T) {
	recipe := func(decode string) string {
		return "backend:\n  type: vllm\n  vllm_config:\n    decode:\n" + decode + "benchmark:\n  concurrencies: \"64\"\n"
	}
	tests := []struct {
		name     string
		decode   string
		declared any
		want     string // the EP the recipe runs; "" for no contradiction
	}{
		{name: "TEP8 declared ep 1", decode: "      tensor-parallel-size: 8\n      enable-expert-parallel: true\n", declared: 1, want: "8"},
		{name: "DEP16 with no ep declared", decode: "      tensor-parallel-size: 1\n      data-parallel-size: 16\n      enable-expert-parallel: true\n", declared: nil, want: "16"},
		{name: "declared to match", decode: "      tensor-parallel-size: 1\n      data-parallel-size: 8\n      enable-expert-parallel: true\n", declared: 8},
		{name: "the switch off", decode: "      tensor-parallel-size: 8\n      enable-expert-parallel: false\n", declared: 1},
		{name: "no switch", decode: "      tensor-parallel-size: 8\n", declared: 1},
		{name: "one GPU", decode: "      enable-expert-parallel: true\n", declared: 1},
		{name: "context parallelism changes the count", decode: "      tensor-parallel-size: 8\n      decode-context-parallel-size: 2\n      enable-expert-parallel: true\n", declared: 1},
		{name: "a declared value that is not a number", decode: "      tensor-parallel-size: 8\n      enable-expert-parallel: true\n", declared: "${EP}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := ParseSrtRecipe("r.yaml", []byte(recipe(tc.decode)))
			if err != nil {
				t.Fatal(err)
			}
			w := map[string]any{"tp": 8}
			if tc.declared != nil {
				w["ep"] = tc.declared
			}
			c, ok := switchedEP(w, rec.Roles["decode"], rec, 10)
			if got := map[bool]string{true: c.got}[ok]; got != tc.want {
				t.Fatalf("switchedEP = %q (%v), want %q", got, ok, tc.want)
			}
			if ok && (!strings.Contains(c.says, "enable-expert-parallel: true") || c.at.Line == 0) {
				t.Errorf("says %q at %v", c.says, c.at)
			}
		})
	}
}

// TestCompareRecipeAggregated: a row's pool that has workers is held to an
// aggregated recipe's one worker role (its tp, ep and dp-attn), while the
// pool written with num-worker 0 and the worker counts are not compared.
func TestCompareRecipeAggregated(t *testing.T) {
	recipe := func(agg string) string {
		return "resources:\n  agg_workers: 1\nbackend:\n  type: vllm\n  vllm_config:\n    aggregated:\n" + agg + "benchmark:\n  concurrencies: \"64\"\n"
	}
	pool := func(workers, tp, ep int) map[string]any {
		return map[string]any{"num-worker": workers, "tp": tp, "ep": ep, "dp-attn": false}
	}
	tests := []struct {
		name            string
		agg             string
		prefill, decode map[string]any
		want            string // fields contradicted, "" none
	}{
		{"TP16 with expert parallelism declared ep 1", "      tensor-parallel-size: 16\n      enable-expert-parallel: true\n",
			pool(1, 16, 1), pool(0, 16, 1), "prefill.ep"},
		{"TP16 with expert parallelism declared ep 16", "      tensor-parallel-size: 16\n      enable-expert-parallel: true\n",
			pool(1, 16, 16), pool(0, 16, 16), ""},
		{"TP16 without expert parallelism declared ep 1", "      tensor-parallel-size: 16\n",
			pool(1, 16, 1), pool(0, 16, 1), ""},
		{"declared tp 8, the recipe runs 4", "      tensor-parallel-size: 4\n",
			pool(1, 8, 1), pool(0, 8, 1), "prefill.tp"},
		{"data-parallel ranks counted as workers", "      tensor-parallel-size: 8\n      data-parallel-size: 4\n      enable-expert-parallel: true\n",
			pool(4, 8, 32), pool(0, 8, 32), ""},
		{"the empty pool is not compared", "      tensor-parallel-size: 16\n      enable-expert-parallel: true\n",
			pool(1, 16, 16), pool(0, 16, 1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := ParseSrtRecipe("r.yaml", []byte(recipe(tc.agg)))
			if err != nil {
				t.Fatal(err)
			}
			r := &Row{Kind: MultiNode, Key: &masterconfig.Key{Name: "k", Line: 1, Raw: map[string]any{}},
				Row: &masterconfig.Row{Line: 10, Raw: map[string]any{"prefill": tc.prefill, "decode": tc.decode}}}
			var got []string
			for _, c := range compareRecipe(r, rec) {
				got = append(got, c.field)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("contradicted %q, want %q", got, tc.want)
			}
		})
	}
}
