package masterconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpandConc(t *testing.T) {
	for _, tc := range []struct {
		start, end int
		want       []int
		problem    bool
	}{
		{1, 32, []int{1, 2, 4, 8, 16, 32}, false},
		{4, 256, []int{4, 8, 16, 32, 64, 128, 256}, false},
		{3, 20, []int{3, 6, 12, 20}, false}, // capped at end, end included
		{64, 64, []int{64}, false},
		{96, 256, []int{96, 192, 256}, false},
		{0, 8, nil, true},
		{-4, 8, nil, true},
		{16, 8, nil, true},
		{1, 1 << 62, nil, false}, // absurd but bounded: checked by length below
	} {
		got, problem := ExpandConc(tc.start, tc.end)
		if (problem != "") != tc.problem {
			t.Errorf("ExpandConc(%d, %d) problem %q", tc.start, tc.end, problem)
		}
		if tc.want != nil && !cmp.Equal(got, tc.want) {
			t.Errorf("ExpandConc(%d, %d) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
		if len(got) > maxConcPoints {
			t.Errorf("ExpandConc(%d, %d) gave %d points", tc.start, tc.end, len(got))
		}
		if len(got) > 0 && got[len(got)-1] != tc.end {
			t.Errorf("ExpandConc(%d, %d) does not end at end: %v", tc.start, tc.end, got)
		}
	}
	maxInt := int(^uint(0) >> 1)
	if got, _ := ExpandConc(maxInt/2+1, maxInt); len(got) != 2 {
		t.Errorf("overflow guard: %v", got)
	}
}

func TestExpName(t *testing.T) {
	for _, tc := range []struct {
		row  Row
		conc int
		want string
	}{
		{Row{TP: "4", SpecDecoding: "mtp"}, 64, "dsv41flash_tp4_conc64_kvnone_spec-mtp"},
		{Row{TP: "4", EP: "4", DPAttn: "true", SpecDecoding: "mtp"}, 64, "dsv41flash_tp4_conc64_kvnone_spec-mtp"},
		{Row{TP: "8", KVOffloading: "dram", KVBackend: "mooncake"}, 16, "dsv41flash_tp8_conc16_kvdram-mooncake"},
		{Row{TP: "8", KVOffloading: "none", SpecDecoding: "none"}, 1, "dsv41flash_tp8_conc1_kvnone"},
	} {
		if got := ExpName("dsv41flash", &tc.row, tc.conc); got != tc.want {
			t.Errorf("ExpName(%+v, %d) = %q, want %q", tc.row, tc.conc, got, tc.want)
		}
	}
}

const modelSrc = `# header comment
dsv4-fp4-b300-vllm-agentic:
  image: vllm/vllm-openai:v0.25.0
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: cluster:b300-nv
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.85
      search-space:
      - { tp: 4, ep: 4, dp-attn: true, kv-offloading: dram, kv-offload-backend: { name: mooncake, version: "0.3" }, spec-decoding: mtp, conc-list: [32, 48, 32], router: { name: vllm-router } }
      - tp: 8
        kv-offloading: none
        conc-start: 96
        conc-end: 256
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 0, conc-end: 8 }
dsr1-fp4-b200-dynamo-trt:
  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1
  model-prefix: dsr1
  precision: fp4
  framework: dynamo-trt
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - spec-decoding: "mtp"
        conc-list: [90]
        prefill:
          num-worker: 1
          tp: 4
          ep: 4
          dp-attn: true
        decode:
          num-worker: 2
          tp: 8
          ep: 8
          dp-attn: true
broken-key: just a string
`

func TestParseMasterConfig(t *testing.T) {
	f, err := ParseMasterConfig([]byte(modelSrc))
	if err != nil || f.Broken() {
		t.Fatalf("parse: %v %+v", err, f)
	}
	if len(f.Keys) != 3 {
		t.Fatalf("%d keys", len(f.Keys))
	}
	k := f.Key("dsv4-fp4-b300-vllm-agentic")
	if k.Line != 2 || k.EndLine != 23 || k.Image.Line != 3 || k.ModelPrefix.Value != "dsv4" || k.Runner.Value != "cluster:b300-nv" ||
		k.Precision.Value != "fp4" || k.Framework.Value != "vllm" || k.Multinode || k.ScenariosLine != 10 {
		t.Errorf("key header: %+v", k)
	}
	if len(k.Scenarios) != 2 {
		t.Fatalf("%d scenarios", len(k.Scenarios))
	}
	ag, fx := k.Scenarios[0], k.Scenarios[1]
	if ag.Kind != AgenticCoding || ag.ID() != "agentic-coding" || ag.Line != 12 || len(ag.Rows) != 2 {
		t.Errorf("agentic block: %+v", ag)
	}
	r := ag.Rows[0]
	want := Row{Line: 14, EndLine: 14, TP: "4", EP: "4", DPAttn: "true", SpecDecoding: "mtp", KVOffloading: "dram",
		KVBackend: "mooncake", Router: "vllm-router", Conc: []int{32, 48}, Hash: r.Hash, Raw: r.Raw, Lines: r.Lines}
	if diff := cmp.Diff(want, *r); diff != "" {
		t.Errorf("flow row (-want +got):\n%s", diff)
	}
	r = ag.Rows[1]
	if r.Line != 15 || r.EndLine != 18 || r.TP != "8" || r.KVOffloading != "none" || !cmp.Equal(r.Conc, []int{96, 192, 256}) {
		t.Errorf("block row: %+v", r)
	}
	if fx.Kind != FixedSeqLen || fx.ISL != 8192 || fx.OSL != 1024 || fx.ID() != "fixed-seq-len:8192/1024" || len(fx.Rows) != 1 {
		t.Errorf("fixed block: %+v", fx)
	}
	if fx.Rows[0].ConcProblem == "" || fx.Rows[0].Conc != nil {
		t.Errorf("conc-start 0 accepted: %+v", fx.Rows[0])
	}

	mn := f.Key("dsr1-fp4-b200-dynamo-trt")
	if !mn.Multinode || !mn.Disagg || len(mn.Scenarios) != 1 || len(mn.Scenarios[0].Rows) != 1 {
		t.Fatalf("multinode key: %+v", mn)
	}
	mr := mn.Scenarios[0].Rows[0]
	worker := func(w *Worker) [4]string {
		if w == nil {
			return [4]string{}
		}
		return [4]string{w.NumWorker, w.TP, w.EP, w.DPAttn}
	}
	if worker(mr.Prefill) != [4]string{"1", "4", "4", "true"} || worker(mr.Decode) != [4]string{"2", "8", "8", "true"} ||
		mr.SpecDecoding != "mtp" || !cmp.Equal(mr.Conc, []int{90}) {
		t.Errorf("multinode row: %+v %+v %+v", mr, mr.Prefill, mr.Decode)
	}
	if b := f.Key("broken-key"); b == nil || !b.Malformed {
		t.Errorf("malformed key: %+v", b)
	}
	if got := f.KeyAt(20); got != k {
		t.Errorf("KeyAt(20) = %v", got)
	}

	// Same meaning, other style: canonical forms agree.
	g, _ := ParseMasterConfig([]byte(`dsv4-fp4-b300-vllm-agentic:
  scenarios:
    agentic-coding:
    - search-space:
      - tp: 4
        ep: 4
        dp-attn: true
        kv-offloading: dram
        kv-offload-backend:
          version: "0.3"
          name: mooncake
        spec-decoding: "mtp"
        conc-list: [32, 48, 32]
        router: {name: vllm-router}
`))
	if g.Keys[0].Scenarios[0].Rows[0].Hash != ag.Rows[0].Hash {
		t.Error("a reformatted row hashes differently")
	}
	if ag.Rows[0].Hash == ag.Rows[1].Hash {
		t.Error("different rows hash equally")
	}
}

func TestParseMasterConfigProblems(t *testing.T) {
	for _, tc := range []struct {
		src                string
		errLine            int
		dups               int
		notMapping, broken bool
	}{
		{"a:\n  image: x\n  b: [1, 2\n", 3, 0, false, true},
		{"a:\n  image: x\na:\n  image: y\n", 0, 1, false, true},
		{"- a\n- b\n", 0, 0, true, true},
		{"", 0, 0, false, false},
		{"# only a comment\n", 0, 0, false, false},
	} {
		f, err := ParseMasterConfig([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		gotLine := 0
		if f.Err != nil {
			gotLine = f.Err.Line
		}
		if gotLine != tc.errLine || len(f.Duplicates) != tc.dups || f.NotMapping != tc.notMapping || f.Broken() != tc.broken {
			t.Errorf("%q: err %+v dups %v notMapping %v", tc.src, f.Err, f.Duplicates, f.NotMapping)
		}
	}
}

// TestParseSeqLenConfigs: keys of the layout before `scenarios:` list
// fixed-seq-len blocks under `seq-len-configs:`.
func TestParseSeqLenConfigs(t *testing.T) {
	f, _ := ParseMasterConfig([]byte(`old-key:
  image: img
  seq-len-configs:
  - isl: 1024
    osl: 1024
    search-space:
    - { tp: 8, conc-start: 4, conc-end: 8 }
  - isl: 8192
    osl: 1024
    search-space:
    - { tp: 4, ep: 4, conc-start: 4, conc-end: 4 }
`))
	if len(f.Keys) != 1 {
		t.Fatalf("keys: %d", len(f.Keys))
	}
	k := f.Keys[0]
	if len(k.Scenarios) != 2 || k.Scenarios[0].Kind != FixedSeqLen || k.Scenarios[1].ISL != 8192 {
		t.Fatalf("scenarios: %+v", k.Scenarios)
	}
	if r := k.Scenarios[1].Rows[0]; r.EP != "4" || r.Line != 11 {
		t.Errorf("row: %+v", r)
	}
	if _, ok := k.Raw["seq-len-configs"]; ok {
		t.Error("seq-len-configs is the key's scenarios, not a setting")
	}
}
