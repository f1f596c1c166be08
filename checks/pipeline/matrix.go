package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/schema"
)

// The matrix entries the sweep generator (utils/matrix_logic/
// generate_sweep_configs.py) makes of a master-config row, and the
// workflow inputs the sweep workflow passes from them. The generator is
// Python the bot must not run; what it does to a row is restated here:
// defaults (ep 1, dp-attn false, spec-decoding none, pp/dcp/pcp 1), the
// exp-name formulas, the KV-offload DRAM budget. The constants it uses
// are read from the file where it names them (Generator).

// Scenario kinds of a row.
const (
	FixedSeqLen   = masterconfig.FixedSeqLen
	AgenticCoding = masterconfig.AgenticCoding
)

// seqLenNames are the generator's short names of sequence lengths.
var seqLenNames = map[[2]int]string{{1024, 1024}: "1k1k", {8192, 1024}: "8k1k"}

// Generator is what the bot reads of the sweep generator as data: its
// module-level integer constants, which the restated logic below uses in
// place of its own defaults where the file names them.
type Generator struct {
	Path string
	// MaxAgenticDRAMMiB caps a node's available DRAM before utilization
	// (MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB).
	MaxAgenticDRAMMiB int
}

// defaultGenerator is the generator as of mid-2026, for a tree whose
// generator is absent or does not name a constant.
var defaultGenerator = Generator{Path: BuiltinTable, MaxAgenticDRAMMiB: 2_861_022}

var pyIntConst = regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]*)\s*(?::\s*int\s*)?=\s*([0-9][0-9_]*)\s*(?:#.*)?$`)

// ParseGenerator reads the generator's integer constants.
func ParseGenerator(p string, b []byte) *Generator {
	g := defaultGenerator
	g.Path = p
	if len(b) > maxTemplateBytes {
		return &g
	}
	for _, m := range pyIntConst.FindAllSubmatch(b, -1) {
		n, err := strconv.Atoi(strings.ReplaceAll(string(m[2]), "_", ""))
		if err != nil {
			continue
		}
		if string(m[1]) == "MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB" {
			g.MaxAgenticDRAMMiB = n
		}
	}
	return &g
}

// Point is one matrix entry: what the generator emits for a row at one
// concurrency (single-node) or one concurrency list (multi-node).
type Point map[string]any

// rowPoint builds the matrix entry of a row at its first concurrency;
// concs are all of them. runner is the key's runner label.
func rowPoint(k *masterconfig.Key, s *masterconfig.Scenario, r *masterconfig.Row, hw map[string]Hardware, gen *Generator) (Point, []int) {
	raw := r.Raw
	get := func(name string) any {
		if v, ok := raw[name]; ok {
			return v
		}
		return nil
	}
	prefix := fmt.Sprint(orDefault(k.Raw["model-prefix"], ""))
	pt := Point{}
	for _, f := range []string{"image", "model", "model-prefix", "precision", "framework", "runner"} {
		pt[f] = orDefault(k.Raw[f], "")
	}
	multinode := truthyValue(k.Raw["multinode"])
	disagg := truthyValue(k.Raw["disagg"])
	concs := r.Conc
	agentic := s.Kind == AgenticCoding
	spec := fmt.Sprint(orDefault(get("spec-decoding"), "none"))
	pt["spec-decoding"] = spec
	for _, f := range []string{"router", "kv-p2p-transfer"} {
		if v := get(f); v != nil {
			pt[f] = v
		} else if v := k.Raw[f]; v != nil {
			pt[f] = v
		}
	}
	// Fields of the row the generator does not name pass through, so a
	// template reading an older or newer input still finds it.
	for name, v := range raw {
		if _, ok := pt[name]; !ok && !strings.HasPrefix(name, "conc") && name != "prefill" && name != "decode" {
			pt[name] = v
		}
	}
	first := 0
	if len(concs) > 0 {
		first = concs[0]
	}
	if multinode {
		pre, dec := worker(get("prefill")), worker(get("decode"))
		pt["prefill"], pt["decode"] = pre, dec
		pt["disagg"] = disagg
		if agentic {
			kv := fmt.Sprint(orDefault(get("kv-offloading"), "none"))
			pt["kv-offloading"] = kv
			pt["conc"] = []any{first}
			pt["duration"] = 3600
			pt["scenario-type"] = AgenticCoding
			suffix := ""
			if kv != "none" {
				suffix = "_" + kvSuffix(kv, get("kv-offload-backend"))
			}
			pt["exp-name"] = fmt.Sprintf("%s_%s_%s_conc%d%s", prefix, workerTag(pre, "p"), workerTag(dec, "d"), first, suffix)
			pt["total-cpu-dram-gb"] = dramBudget(k, s, r, hw, gen)
		} else {
			list := make([]any, len(concs))
			for i, c := range concs {
				list[i] = c
			}
			pt["conc"] = list
			pt["isl"], pt["osl"] = s.ISL, s.OSL
			pt["max-model-len"] = s.ISL + s.OSL + 256
			pt["exp-name"] = prefix + "_" + seqLenName(s.ISL, s.OSL)
			pt["run-eval"] = false
		}
		return pt, concs
	}
	for f, d := range map[string]any{"tp": nil, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1, "dp-attn": false} {
		pt[f] = orDefault(get(f), d)
	}
	pt["conc"] = first
	if agentic {
		kv := fmt.Sprint(orDefault(get("kv-offloading"), "none"))
		pt["kv-offloading"] = kv
		pt["duration"] = 3600
		pt["scenario-type"] = AgenticCoding
		pt["exp-name"] = masterconfig.ExpName(prefix, r, first)
		pt["total-cpu-dram-gb"] = dramBudget(k, s, r, hw, gen)
		pt["isl"], pt["osl"], pt["max-model-len"] = 0, 0, 0
		pt["disagg"] = false
	} else {
		pt["isl"], pt["osl"] = s.ISL, s.OSL
		pt["max-model-len"] = s.ISL + s.OSL + 256
		pt["exp-name"] = prefix + "_" + seqLenName(s.ISL, s.OSL)
		pt["disagg"] = disagg
		pt["run-eval"] = false
	}
	return pt, concs
}

func orDefault(v, d any) any {
	if v == nil {
		return d
	}
	return v
}

func truthyValue(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(x, "true")
	}
	return false
}

func seqLenName(isl, osl int) string {
	if n, ok := seqLenNames[[2]int{isl, osl}]; ok {
		return n
	}
	return fmt.Sprintf("%d_%d", isl, osl)
}

// worker is a prefill or decode pool with the generator's defaults.
func worker(v any) map[string]any {
	m, _ := v.(map[string]any)
	out := map[string]any{"pp": 1, "dcp-size": 1, "pcp-size": 1}
	for k, x := range m {
		out[k] = x
	}
	return out
}

func workerTag(w map[string]any, role string) string {
	tag := fmt.Sprintf("%s%vx%v", role, w["num-worker"], w["tp"])
	if ep := fmt.Sprint(orDefault(w["ep"], 1)); ep != "1" {
		tag += "ep" + ep
	}
	if truthyValue(w["dp-attn"]) {
		tag += "dpa"
	}
	return tag
}

func kvSuffix(kv string, backend any) string {
	if kv == "none" {
		return "kvnone"
	}
	name := ""
	if m, ok := backend.(map[string]any); ok {
		name = fmt.Sprint(m["name"])
	}
	return "kv" + kv + "-" + name
}

// dramBudget is the generator's KV-offload DRAM budget in GB for an
// agentic row, or nil when the runner's hardware facts are unknown.
func dramBudget(k *masterconfig.Key, s *masterconfig.Scenario, r *masterconfig.Row, hw map[string]Hardware, gen *Generator) any {
	if fmt.Sprint(orDefault(r.Raw["kv-offloading"], "none")) != "dram" {
		return 0
	}
	h, ok := hw[fmt.Sprint(k.Raw["runner"])]
	util, uok := schema.ToFloat(s.Raw["dram-utilization"])
	if !ok || !uok || h.GPUsPerNode == 0 || h.AvailableCPUDRAMMiB <= 0 {
		return nil
	}
	gpus := 0
	if r.Prefill != nil {
		tp, _ := strconv.Atoi(r.Prefill.TP)
		gpus = min(tp, h.GPUsPerNode)
	} else {
		tp, _ := schema.ToFloat(r.Raw["tp"])
		pp, ok := schema.ToFloat(r.Raw["pp"])
		if !ok {
			pp = 1
		}
		gpus = int(tp * pp)
	}
	mib := float64(min(h.AvailableCPUDRAMMiB, gen.MaxAgenticDRAMMiB))
	return int(math.Floor(mib * 1024 * 1024 * util * float64(gpus) / float64(h.GPUsPerNode) / 1e9))
}

// pointInputs are the workflow inputs the sweep workflow passes a job of
// this point: each input is the matrix field of the same name, except the
// ones listed here (run-sweep.yml's `with:` blocks).
func pointInputs(pt Point, kind JobKind) map[string]any {
	in := map[string]any{}
	for k, v := range pt {
		switch k {
		case "prefill", "decode":
			m, _ := v.(map[string]any)
			for f, x := range m {
				if f == "additional-settings" {
					in[k+"-"+f] = jsonText(x)
					continue
				}
				in[k+"-"+f] = x
			}
			if _, ok := m["additional-settings"]; !ok {
				in[k+"-additional-settings"] = "[]"
			}
		case "kv-offload-backend":
			if m, ok := v.(map[string]any); ok {
				in[k] = m["name"]
			}
			in["kv-offload-backend-metadata"] = jsonText(v)
		case "router":
			in[k] = jsonText(v)
		case "conc":
			in[k] = v
			if kind == MultiNode {
				in["conc-list"] = jsonText(v)
			}
		default:
			in[k] = v
		}
	}
	return in
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
