package masterconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRawRowsAndLines(t *testing.T) {
	f, _ := ParseMasterConfig([]byte(`k-fp4-b200-sglang:
  image: img:1
  runner: cluster:b200-dgxc
  multinode: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      dram-utilization: 0.5
      search-space:
      - { tp: 8, ep: 1, dp-attn: yes, conc-list: [4, 8], ratio: 2_000 }
      - spec-decoding: "mtp"
        prefill:
          num-worker: 1
          tp: 4
          additional-settings:
          - "CONFIG_FILE=recipes/a.yaml"
          - "X=1"
        decode: { num-worker: 2, tp: 8 }
        conc-list: [16]
`))
	k := f.Key("k-fp4-b200-sglang")
	if k == nil || len(k.Scenarios) != 1 || len(k.Scenarios[0].Rows) != 2 {
		t.Fatalf("key: %+v", k)
	}
	if k.Raw["runner"] != "cluster:b200-dgxc" || k.Raw["multinode"] != true || k.LineOf("runner") != 3 || k.Raw["scenarios"] != nil {
		t.Errorf("key raw %v lines %v", k.Raw, k.Lines)
	}
	if s := k.Scenarios[0]; s.Raw["dram-utilization"] != 0.5 || s.Raw["isl"] != 1024 || s.Raw["search-space"] != nil {
		t.Errorf("scenario raw %v", s.Raw)
	}
	r := k.Scenarios[0].Rows[0]
	want := map[string]any{"tp": 8, "ep": 1, "dp-attn": true, "conc-list": []any{4, 8}, "ratio": 2000}
	if diff := cmp.Diff(want, r.Raw); diff != "" {
		t.Errorf("row raw (-want +got):\n%s", diff)
	}
	m := k.Scenarios[0].Rows[1]
	if m.Raw["spec-decoding"] != "mtp" || m.LineOf("conc-list") != 20 || m.LineOf("prefill") != 13 {
		t.Errorf("block row raw %v lines %v", m.Raw, m.Lines)
	}
	if p := m.Prefill; p == nil || len(p.Settings) != 2 || p.Settings[0].Value != "CONFIG_FILE=recipes/a.yaml" || m.Line+p.Settings[0].Off != 17 ||
		m.Line+p.Lines["tp"] != 15 {
		t.Errorf("prefill %+v", p)
	}
	// Moved down by a shift, the relative lines still hold.
	s := k.shifted(10)
	if got := s.Scenarios[0].Rows[1]; got.LineOf("conc-list") != 30 || got.Line+got.Prefill.Settings[1].Off != 28 {
		t.Errorf("shifted row lines: %d", got.LineOf("conc-list"))
	}
}
