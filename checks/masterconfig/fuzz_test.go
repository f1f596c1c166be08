package masterconfig

import (
	"os"
	"testing"
)

func FuzzParseMasterConfig(f *testing.F) {
	f.Add([]byte(modelSrc))
	f.Add([]byte(baseNV))
	f.Add([]byte(baseAMD))
	for _, p := range []string{"../../testdata/trees/inferencex/configs/nvidia-master.yaml", "../../testdata/trees/inferencex/configs/amd-master.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a: {scenarios: {agentic-coding: [{search-space: [{tp: 4, conc-start: 1, conc-end: 9223372036854775807}]}]}}"))
	f.Add([]byte("a: &x {b: *x}\n"))
	f.Add([]byte("a:\n  scenarios:\n    agentic-coding:\n      search-space: 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		mf, err := ParseMasterConfig(b)
		if err != nil || mf == nil {
			t.Fatalf("ParseMasterConfig returned %v, %v", mf, err)
		}
		for _, k := range mf.Keys {
			if k.EndLine < k.Line {
				t.Errorf("key %q spans %d..%d", k.Name, k.Line, k.EndLine)
			}
			for _, s := range k.Scenarios {
				for _, r := range s.Rows {
					if r.EndLine < r.Line {
						t.Errorf("row spans %d..%d", r.Line, r.EndLine)
					}
					if len(r.Conc) > len(b)+maxConcPoints {
						t.Errorf("%d concurrency points from %d bytes", len(r.Conc), len(b))
					}
					for _, c := range r.Conc {
						_ = ExpName(k.ModelPrefix.Value, r, c)
					}
				}
			}
			_, _ = keyShapeProblem(k)
			_, _ = skuOf(k)
		}
		// The full rule set over the input as a PR's head must not fail.
		if len(b) < 1<<14 {
			reviewTrees(t, map[string]string{nv: baseNV}, map[string]string{nv: string(b)}, "2026-08-07", nil)
		}
	})
}

func FuzzParseModels(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/trees/inferencex/MODELS.md"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("### Monday, August 3, 2026\n\n| Model | Deprecated |\n|---|---|\n| `x` | Single-turn 8k1k (removed 2026-01-01 |\n"))
	f.Add([]byte("| Model | Prefix | Active scenarios | Deprecated scenarios |\n|-|-|-|-|\n| a | `a` | None (retired after) | ((( |\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseModels(b)
		if err != nil || p == nil {
			t.Fatalf("ParseModels returned %v, %v", p, err)
		}
		for _, d := range p.Deprecations {
			_ = p.Lookup(d.Model, d.Scenario, d.Precision)
		}
	})
}
