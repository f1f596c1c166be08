package pipeline

import (
	"strings"
	"testing"
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
