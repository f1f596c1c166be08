package pipeline

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
)

// parsedRow is one search-space row of a parsed master config with its key
// and scenario block.
type parsedRow struct {
	k *masterconfig.Key
	s *masterconfig.Scenario
	r *masterconfig.Row
}

// parseRows parses a master config and returns its rows in file order; the
// test stops when the file is broken.
func parseRows(t *testing.T, text string) []parsedRow {
	t.Helper()
	f, err := masterconfig.ParseMasterConfig([]byte(text))
	if err != nil || f.Broken() {
		t.Fatalf("master config does not parse: %v %+v", err, f.Err)
	}
	var out []parsedRow
	for _, k := range f.Keys {
		for _, s := range k.Scenarios {
			for _, r := range s.Rows {
				out = append(out, parsedRow{k, s, r})
			}
		}
	}
	return out
}

// key wraps search-space rows in a key of the given header and scenario
// block (the scenarios: layout).
func keyYAML(header, scenario string, rows ...string) string {
	var b strings.Builder
	b.WriteString("k:\n  image: img:1\n  model: org/m\n  model-prefix: m\n  runner: h100\n  precision: fp8\n  framework: sglang\n")
	b.WriteString(header)
	b.WriteString("  scenarios:\n    " + scenario + "\n      search-space:\n")
	for _, r := range rows {
		b.WriteString("      - " + r + "\n")
	}
	return b.String()
}

const (
	fixed1k1k = "fixed-seq-len:\n    - isl: 1024\n      osl: 1024"
	fixed8k1k = "fixed-seq-len:\n    - isl: 8192\n      osl: 1024"
	agenticUt = "agentic-coding:\n    - dram-utilization: 0.5"
)

var testHW = map[string]Hardware{"h100": {AvailableCPUDRAMMiB: 2_000_000, GPUsPerNode: 8}}

// TestRowPointSingleNode: the matrix entry of a single-node row is what
// the sweep generator emits: the key's header fields, the generator's
// defaults for what the row leaves out, the exp-name formula of the
// scenario, the first concurrency, and every concurrency of the row.
func TestRowPointSingleNode(t *testing.T) {
	for _, c := range []struct {
		name   string
		text   string
		want   map[string]any // fields of the point that must have these values
		absent []string       // fields the point must not have
		concs  []int
	}{
		{"a conc range doubles up to its end, defaults filled in",
			keyYAML("", fixed1k1k, "{ tp: 8, conc-start: 4, conc-end: 64 }"),
			map[string]any{"tp": 8, "ep": 1, "pp": 1, "dcp-size": 1, "pcp-size": 1, "dp-attn": false, "spec-decoding": "none",
				"conc": 4, "isl": 1024, "osl": 1024, "max-model-len": 2304, "exp-name": "m_1k1k", "disagg": false, "run-eval": false,
				"image": "img:1", "model": "org/m", "model-prefix": "m", "runner": "h100", "precision": "fp8", "framework": "sglang"},
			[]string{"conc-start", "conc-end", "duration", "kv-offloading"},
			[]int{4, 8, 16, 32, 64}},
		{"a range whose end is not a doubling ends at the end",
			keyYAML("", fixed1k1k, "{ tp: 8, conc-start: 3, conc-end: 20 }"),
			map[string]any{"conc": 3}, nil, []int{3, 6, 12, 20}},
		{"a conc-list keeps its order and drops repeats; the point is at its first",
			keyYAML("", fixed8k1k, "{ tp: 4, conc-list: [8, 4, 8] }"),
			map[string]any{"conc": 8, "exp-name": "m_8k1k", "max-model-len": 9472}, []string{"conc-list"}, []int{8, 4}},
		{"a sequence length without a short name is isl_osl",
			keyYAML("", "fixed-seq-len:\n    - isl: 2048\n      osl: 512", "{ tp: 8, conc-list: [1] }"),
			map[string]any{"exp-name": "m_2048_512", "max-model-len": 2816}, nil, []int{1}},
		{"the row's own fields win over the defaults; unknown fields pass through",
			keyYAML("", fixed1k1k, "{ tp: 8, ep: 4, dp-attn: true, pp: 2, spec-decoding: mtp, my-flag: x, conc-list: [2] }"),
			map[string]any{"ep": 4, "dp-attn": true, "pp": 2, "spec-decoding": "mtp", "my-flag": "x"}, nil, []int{2}},
		{"a router on the key reaches rows that do not set one; a row's own wins",
			keyYAML("  router: { name: key-router }\n", fixed1k1k, "{ tp: 8, conc-list: [1] }", "{ tp: 8, router: { name: row-router }, conc-list: [1] }"),
			map[string]any{"router": map[string]any{"name": "key-router"}}, nil, []int{1}},
		{"disagg on a single-node key is passed on",
			keyYAML("  disagg: true\n", fixed1k1k, "{ tp: 8, conc-list: [1] }"),
			map[string]any{"disagg": true}, nil, []int{1}},
		{"a row without concurrencies gets conc 0 and no concurrencies",
			keyYAML("", fixed1k1k, "{ tp: 8 }"),
			map[string]any{"conc": 0}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := parseRows(t, c.text)
			pr := rows[0]
			pt, concs := rowPoint(pr.k, pr.s, pr.r, testHW, &defaultGenerator)
			for f, v := range c.want {
				if !reflect.DeepEqual(pt[f], v) {
					t.Errorf("%s = %#v, want %#v", f, pt[f], v)
				}
			}
			for _, f := range c.absent {
				if _, ok := pt[f]; ok {
					t.Errorf("the point has %s = %v; the generator does not emit it", f, pt[f])
				}
			}
			if !reflect.DeepEqual(concs, c.concs) {
				t.Errorf("concurrencies %v, want %v", concs, c.concs)
			}
		})
	}
	// The second row of the router case sets its own router.
	rows := parseRows(t, keyYAML("  router: { name: key-router }\n", fixed1k1k, "{ tp: 8, conc-list: [1] }", "{ tp: 8, router: { name: row-router }, conc-list: [1] }"))
	pt, _ := rowPoint(rows[1].k, rows[1].s, rows[1].r, nil, &defaultGenerator)
	if got := fmt.Sprint(pt["router"]); got != "map[name:row-router]" {
		t.Errorf("a row's router should win over the key's, got %s", got)
	}
}

// TestRowPointAgentic: an agentic-coding row gets the generator's agentic
// fields: its exp-name formula (tp, conc, KV offload, speculative
// decoding), a fixed duration, zero sequence lengths, and the DRAM budget
// of its runner when it offloads to DRAM.
func TestRowPointAgentic(t *testing.T) {
	for _, c := range []struct {
		name   string
		runner string
		row    string
		want   map[string]any
	}{
		{"offload to DRAM on a runner with hardware facts", "h100",
			"{ tp: 4, kv-offloading: dram, kv-offload-backend: { name: vllm-simple }, conc-list: [32, 64] }",
			map[string]any{"exp-name": "m_tp4_conc32_kvdram-vllm-simple", "conc": 32, "duration": 3600, "scenario-type": AgenticCoding,
				"kv-offloading": "dram", "isl": 0, "osl": 0, "max-model-len": 0, "disagg": false, "total-cpu-dram-gb": 524}},
		{"pp counts GPUs too", "h100",
			"{ tp: 4, pp: 2, kv-offloading: dram, kv-offload-backend: { name: lmcache }, conc-list: [1] }",
			map[string]any{"exp-name": "m_tp4_conc1_kvdram-lmcache", "total-cpu-dram-gb": 1048}},
		{"no offload: no DRAM budget, kvnone in the name", "h100",
			"{ tp: 8, conc-list: [1] }",
			map[string]any{"exp-name": "m_tp8_conc1_kvnone", "kv-offloading": "none", "total-cpu-dram-gb": 0}},
		{"speculative decoding is named", "h100",
			"{ tp: 8, spec-decoding: mtp, conc-list: [2] }",
			map[string]any{"exp-name": "m_tp8_conc2_kvnone_spec-mtp", "spec-decoding": "mtp"}},
		{"a runner without hardware facts leaves the budget unknown", "b300",
			"{ tp: 8, kv-offloading: dram, kv-offload-backend: { name: native }, conc-list: [1] }",
			map[string]any{"total-cpu-dram-gb": nil}},
		{"a tp that is not a number counts no GPUs", "h100",
			"{ tp: eight, kv-offloading: dram, kv-offload-backend: { name: native }, conc-list: [1] }",
			map[string]any{"total-cpu-dram-gb": 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(keyYAML("", agenticUt, c.row), "runner: h100", "runner: "+c.runner, 1)
			pr := parseRows(t, text)[0]
			pt, _ := rowPoint(pr.k, pr.s, pr.r, testHW, &defaultGenerator)
			for f, v := range c.want {
				if !reflect.DeepEqual(pt[f], v) {
					t.Errorf("%s = %#v, want %#v", f, pt[f], v)
				}
			}
		})
	}
}

// TestDRAMBudget: the budget is floor(min(node DRAM, generator cap) MiB ×
// utilization × GPUs used / GPUs per node) in GB, and unknown (nil) when the
// facts it needs are missing.
func TestDRAMBudget(t *testing.T) {
	hw := map[string]Hardware{
		"h100":   {AvailableCPUDRAMMiB: 2_000_000, GPUsPerNode: 8},
		"zero":   {AvailableCPUDRAMMiB: 2_000_000, GPUsPerNode: 0},
		"nodram": {GPUsPerNode: 8},
	}
	low := Generator{MaxAgenticDRAMMiB: 1_000_000}
	for _, c := range []struct {
		name   string
		runner string
		util   string
		row    string
		gen    *Generator
		want   any
	}{
		{"half the DRAM, half the GPUs", "h100", "0.5", "{ tp: 4, kv-offloading: dram }", &defaultGenerator, 524},
		{"the generator's cap is below the node's DRAM", "h100", "0.5", "{ tp: 4, kv-offloading: dram }", &low, 262},
		{"all GPUs, all DRAM", "h100", "1.0", "{ tp: 8, kv-offloading: dram }", &defaultGenerator, 2097},
		{"no dram offload", "h100", "0.5", "{ tp: 4, kv-offloading: none }", &defaultGenerator, 0},
		{"unknown runner", "nope", "0.5", "{ tp: 4, kv-offloading: dram }", &defaultGenerator, nil},
		{"runner with no GPU count", "zero", "0.5", "{ tp: 4, kv-offloading: dram }", &defaultGenerator, nil},
		{"runner whose DRAM is not a number", "nodram", "0.5", "{ tp: 4, kv-offloading: dram }", &defaultGenerator, nil},
		{"utilization that is not a number", "h100", "high", "{ tp: 4, kv-offloading: dram }", &defaultGenerator, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(keyYAML("", "agentic-coding:\n    - dram-utilization: "+c.util, c.row), "runner: h100", "runner: "+c.runner, 1)
			pr := parseRows(t, text)[0]
			if got := dramBudget(pr.k, pr.s, pr.r, hw, c.gen); !reflect.DeepEqual(got, c.want) {
				t.Errorf("budget %#v, want %#v", got, c.want)
			}
		})
	}
}

// multiKey is a multi-node key around one row with prefill and decode
// pools.
func multiKey(scenario, row string) string {
	return "mn:\n  image: img:2\n  model: org/m\n  model-prefix: dsr1\n  runner: h100\n  precision: fp4\n  framework: dynamo-sglang\n" +
		"  multinode: true\n  disagg: true\n  scenarios:\n    " + scenario + "\n      search-space:\n" + row
}

const poolsRow = `      - conc-list: [64, 256]
        kv-offloading: dram
        kv-offload-backend: { name: native }
        prefill:
          num-worker: 1
          tp: 4
          ep: 4
          dp-attn: true
          additional-settings:
          - "CONFIG_FILE=recipes/a.yaml"
        decode:
          num-worker: 2
          tp: 8
          ep: 1
          dp-attn: false
`

// TestRowPointMultiNode: a multi-node row's entry carries its whole
// concurrency list and its pools with the generator's pool defaults; the
// agentic exp-name names the pools.
func TestRowPointMultiNode(t *testing.T) {
	pr := parseRows(t, multiKey(fixed8k1k, poolsRow))[0]
	pt, concs := rowPoint(pr.k, pr.s, pr.r, testHW, &defaultGenerator)
	if !reflect.DeepEqual(pt["conc"], []any{64, 256}) || !reflect.DeepEqual(concs, []int{64, 256}) {
		t.Errorf("conc %#v, concs %v: want the whole list", pt["conc"], concs)
	}
	wantPre := map[string]any{"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": true, "pp": 1, "dcp-size": 1, "pcp-size": 1,
		"additional-settings": []any{"CONFIG_FILE=recipes/a.yaml"}}
	if !reflect.DeepEqual(pt["prefill"], wantPre) {
		t.Errorf("prefill %#v, want %#v", pt["prefill"], wantPre)
	}
	for f, v := range map[string]any{"exp-name": "dsr1_8k1k", "disagg": true, "isl": 8192, "max-model-len": 9472, "run-eval": false} {
		if !reflect.DeepEqual(pt[f], v) {
			t.Errorf("%s = %#v, want %#v", f, pt[f], v)
		}
	}
	for _, f := range []string{"tp", "ep", "dp-attn", "pp"} {
		if _, ok := pt[f]; ok {
			t.Errorf("a multi-node point has no single-node %s, got %v", f, pt[f])
		}
	}

	pr = parseRows(t, multiKey("agentic-coding:\n    - dram-utilization: 0.5", poolsRow))[0]
	pt, _ = rowPoint(pr.k, pr.s, pr.r, testHW, &defaultGenerator)
	for f, v := range map[string]any{
		"exp-name": "dsr1_p1x4ep4dpa_d2x8_conc64_kvdram-native", "conc": []any{64}, "duration": 3600,
		"scenario-type": AgenticCoding, "kv-offloading": "dram",
		// GPUs are the prefill pool's tp, at most a node's.
		"total-cpu-dram-gb": 524,
	} {
		if !reflect.DeepEqual(pt[f], v) {
			t.Errorf("agentic %s = %#v, want %#v", f, pt[f], v)
		}
	}
}

// TestMalformedRows: rows the generator would reject still give a point,
// never a panic; the concurrency problem is said in plain words and the
// row has no concurrencies.
func TestMalformedRows(t *testing.T) {
	for _, c := range []struct {
		row     string
		problem string
		concs   []int
	}{
		{"{ tp: 8, conc-start: 0, conc-end: 8 }", "conc-start must be positive", nil},
		{"{ tp: 8, conc-start: -4, conc-end: 8 }", "conc-start must be positive", nil},
		{"{ tp: 8, conc-start: 16, conc-end: 8 }", "conc-end is below conc-start", nil},
		{"{ tp: 8, conc-start: four, conc-end: 8 }", "conc-start and conc-end must be integers", nil},
		{"{ tp: 8, conc-start: 4 }", "conc-start and conc-end must be given together", nil},
		{"{ tp: 8, conc-end: 4 }", "conc-start and conc-end must be given together", nil},
		{"{ tp: 8, conc-start: 1, conc-end: 99999999999999999999999 }", "conc-start and conc-end must be integers", nil},
		{"{ tp: 8, conc-list: [4, lots, 8] }", "conc-list holds a value that is not an integer", []int{4, 8}},
		{"{ tp: 8, conc-list: 16 }", "", []int{16}},
		{"{ tp: [1, 2], conc-list: [1] }", "", []int{1}},
		{"{ tp: 8, conc-list: [] }", "", nil},
	} {
		t.Run(c.row, func(t *testing.T) {
			pr := parseRows(t, keyYAML("", fixed1k1k, c.row))[0]
			if pr.r.ConcProblem != c.problem {
				t.Errorf("problem %q, want %q", pr.r.ConcProblem, c.problem)
			}
			pt, concs := rowPoint(pr.k, pr.s, pr.r, testHW, &defaultGenerator)
			if !reflect.DeepEqual(concs, c.concs) {
				t.Errorf("concs %v, want %v", concs, c.concs)
			}
			first := 0
			if len(c.concs) > 0 {
				first = c.concs[0]
			}
			if pt["conc"] != first {
				t.Errorf("conc %v, want %d", pt["conc"], first)
			}
		})
	}
	// A range to the largest int stays a short list that ends at its end.
	pr := parseRows(t, keyYAML("", fixed1k1k, "{ tp: 8, conc-start: 1, conc-end: 9223372036854775807 }"))[0]
	if n := len(pr.r.Conc); n == 0 || n > 64 || pr.r.Conc[n-1] != 9223372036854775807 {
		t.Errorf("a huge range expanded to %d points ending at %v", n, pr.r.Conc[max(n-1, 0):])
	}
	// Pools that are not mappings get the defaults alone.
	bad := "      - conc-list: [1]\n        prefill: lots\n        decode: [1, 2]\n"
	pr = parseRows(t, multiKey(fixed1k1k, bad))[0]
	pt, _ := rowPoint(pr.k, pr.s, pr.r, testHW, &defaultGenerator)
	want := map[string]any{"pp": 1, "dcp-size": 1, "pcp-size": 1}
	if !reflect.DeepEqual(pt["prefill"], want) || !reflect.DeepEqual(pt["decode"], want) {
		t.Errorf("pools %v / %v, want the defaults %v", pt["prefill"], pt["decode"], want)
	}
	if in := pointInputs(pt, MultiNode); in["prefill-additional-settings"] != "[]" || in["conc-list"] != "[1]" {
		t.Errorf("inputs of defaulted pools: %v", in)
	}
}

// TestPointInputs: without a sweep workflow, a job's inputs are the
// point's fields of the same names, except the pools (flattened with a
// prefix, additional-settings as JSON), the KV backend (its name, and its
// metadata as JSON), the router (JSON) and a multi-node conc (also as a
// JSON conc-list).
func TestPointInputs(t *testing.T) {
	for _, c := range []struct {
		name string
		pt   Point
		kind JobKind
		want map[string]any
	}{
		{"plain fields pass as they are", Point{"tp": 8, "conc": 4, "model": "m"}, SingleNode,
			map[string]any{"tp": 8, "conc": 4, "model": "m"}},
		{"pools are flattened", Point{"prefill": map[string]any{"tp": 4, "additional-settings": []any{"A=1", "B=2"}}, "decode": map[string]any{"tp": 8}},
			MultiNode, map[string]any{"prefill-tp": 4, "prefill-additional-settings": `["A=1","B=2"]`, "decode-tp": 8, "decode-additional-settings": "[]"}},
		{"the KV backend is its name and its metadata", Point{"kv-offload-backend": map[string]any{"name": "lmcache", "size": 2}}, SingleNode,
			map[string]any{"kv-offload-backend": "lmcache", "kv-offload-backend-metadata": `{"name":"lmcache","size":2}`}},
		{"a KV backend written as a string has only metadata", Point{"kv-offload-backend": "lmcache"}, SingleNode,
			map[string]any{"kv-offload-backend-metadata": `"lmcache"`}},
		{"the router is JSON", Point{"router": map[string]any{"name": "r"}}, SingleNode, map[string]any{"router": `{"name":"r"}`}},
		{"a multi-node conc is also a conc-list", Point{"conc": []any{1, 2}}, MultiNode, map[string]any{"conc": []any{1, 2}, "conc-list": "[1,2]"}},
		{"a single-node conc is not", Point{"conc": 4}, SingleNode, map[string]any{"conc": 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := pointInputs(c.pt, c.kind); !reflect.DeepEqual(got, c.want) {
				t.Errorf("inputs %#v, want %#v", got, c.want)
			}
		})
	}
	if s := jsonText(func() {}); s != "" {
		t.Errorf("a value JSON cannot encode gives %q, want empty", s)
	}
}

// TestMatrixHelpers: the small formulas the exp-names are built from.
func TestMatrixHelpers(t *testing.T) {
	for _, c := range []struct {
		isl, osl int
		want     string
	}{{1024, 1024, "1k1k"}, {8192, 1024, "8k1k"}, {1024, 8192, "1024_8192"}, {0, 0, "0_0"}} {
		if got := seqLenName(c.isl, c.osl); got != c.want {
			t.Errorf("seqLenName(%d, %d) = %q, want %q", c.isl, c.osl, got, c.want)
		}
	}
	for _, c := range []struct {
		w    map[string]any
		want string
	}{
		{map[string]any{"num-worker": 1, "tp": 4}, "p1x4"},
		{map[string]any{"num-worker": 1, "tp": 4, "ep": 1}, "p1x4"},
		{map[string]any{"num-worker": 2, "tp": 8, "ep": 8, "dp-attn": true}, "p2x8ep8dpa"},
		{map[string]any{"num-worker": 2, "tp": 8, "dp-attn": "true"}, "p2x8dpa"},
		{map[string]any{"num-worker": 2, "tp": 8, "dp-attn": false}, "p2x8"},
	} {
		if got := workerTag(c.w, "p"); got != c.want {
			t.Errorf("workerTag(%v) = %q, want %q", c.w, got, c.want)
		}
	}
	for _, c := range []struct {
		kv      string
		backend any
		want    string
	}{
		{"none", nil, "kvnone"},
		{"dram", map[string]any{"name": "native"}, "kvdram-native"},
		{"dram", "native", "kvdram-"},
	} {
		if got := kvSuffix(c.kv, c.backend); got != c.want {
			t.Errorf("kvSuffix(%q, %v) = %q, want %q", c.kv, c.backend, got, c.want)
		}
	}
	for v, want := range map[any]bool{true: true, false: false, "true": true, "TRUE": true, "false": false, "yes": false, 1: false, nil: false} {
		if got := truthyValue(v); got != want {
			t.Errorf("truthyValue(%#v) = %v, want %v", v, got, want)
		}
	}
	if got := orDefault(nil, 3); got != 3 {
		t.Errorf("orDefault(nil, 3) = %v", got)
	}
	if got := orDefault(false, true); got != false {
		t.Errorf("orDefault keeps a false value, got %v", got)
	}
}

// TestParseGeneratorConstants: the generator's DRAM cap is read where the
// file names it at module level (plain or annotated, underscores allowed),
// and the default stays for anything else.
func TestParseGeneratorConstants(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 1_500_000\n", 1_500_000},
		{"MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB: int = 700000  # MiB\n", 700000},
		{"    MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 5\n", defaultGenerator.MaxAgenticDRAMMiB},
		{"MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = compute()\n", defaultGenerator.MaxAgenticDRAMMiB},
		{"MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 99999999999999999999999999\n", defaultGenerator.MaxAgenticDRAMMiB},
		{"OTHER = 5\n", defaultGenerator.MaxAgenticDRAMMiB},
		{"", defaultGenerator.MaxAgenticDRAMMiB},
	} {
		g := ParseGenerator("gen.py", []byte(c.src))
		if g.MaxAgenticDRAMMiB != c.want || g.Path != "gen.py" {
			t.Errorf("%q: got %+v, want cap %d", c.src, g, c.want)
		}
	}
	huge := strings.Repeat("# pad\n", maxTemplateBytes/6+1) + "MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 5\n"
	if g := ParseGenerator("gen.py", []byte(huge)); g.MaxAgenticDRAMMiB != defaultGenerator.MaxAgenticDRAMMiB {
		t.Errorf("a generator past the size bound is not read, got %+v", g)
	}
	if defaultGenerator.Path != BuiltinTable {
		t.Error("ParseGenerator must not change the default generator")
	}
}
