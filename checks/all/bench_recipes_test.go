package all

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// The recipe benchmark: a PR that touches one recipe in a directory of 200
// synthetic recipes of realistic size (300-400 lines, mostly vLLM), reviewed
// with the full registry. "cold" starts every review with an empty parse
// cache (a fresh process); "warm" shares one cache across reviews (the App
// reviewing a second push). Run with
//
//	go test ./checks/all -run '^$' -bench BenchmarkReviewRecipePR -benchmem

const recipeBenchDir = "benchmarks/single_node/agentic/"

// recipeBenchEngines cycles through the engines: mostly vLLM, as in the real
// directory.
var recipeBenchEngines = []string{"vllm", "vllm", "sglang", "vllm", "trt", "vllm", "vllm", "atom", "vllm", "sglang"}

var recipeBenchModels = []string{"dsv4", "kimik3", "glm5.2", "qwen3.5", "minimaxm3", "dsv41flash", "llama4", "gptoss"}
var recipeBenchSKUs = []string{"b200", "b300", "h200", "gb200", "mi355x", "gb300", "h100"}

func recipeBenchName(i int) string {
	return fmt.Sprintf("%s_fp4_%s_v%03d_%s.sh", recipeBenchModels[i%len(recipeBenchModels)], recipeBenchSKUs[(i/len(recipeBenchModels))%len(recipeBenchSKUs)], i, recipeBenchEngines[i%len(recipeBenchEngines)])
}

// recipeBenchRecipe writes a recipe in the shape of the real ones: strict mode,
// env checks, pre-flight helpers, a DP-attention branch, a case over the KV
// offload backends with JSON transfer configs, the server command built as
// an array (vLLM) or line-continued (others), then the client. The
// helper-function block is sized so files land between 300 and 400 lines.
func recipeBenchRecipe(i int) string {
	engine := recipeBenchEngines[i%len(recipeBenchEngines)]
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("#!/usr/bin/env bash")
	w("set -euo pipefail")
	w("")
	w("# Synthetic recipe %d: %s on %s with %s, agentic-coding trace replay.", i, recipeBenchModels[i%len(recipeBenchModels)], recipeBenchSKUs[i%len(recipeBenchSKUs)], engine)
	w("# TP, DEP and host-DRAM KV offload arms; see configs/nvidia-master.yaml.")
	w("")
	w(`source "$(dirname "$0")/../../benchmark_lib.sh"`)
	w("")
	w("check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR")
	w("require_agentic_kv_offload_backend vllm-simple mooncake lmcache none")
	w("")
	w(`PORT="${PORT:-8888}"`)
	w(`SERVER_LOG="$RESULT_DIR/server.log"`)
	w(`mkdir -p "$RESULT_DIR"`)
	w("")
	w(`if [[ -n "${SLURM_JOB_ID:-}" ]]; then`)
	w(`    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"`)
	w("fi")
	w("")
	// Pre-flight helpers: the bulk of a real recipe's length.
	helpers := 14 + i%5
	for h := 0; h < helpers; h++ {
		w("# Pre-flight step %d: check that the node is in the state the sweep", h)
		w("# expects before the server starts, and record it for the run log.")
		w("preflight_%d() {", h)
		w(`    local name="step_%d"`, h)
		w(`    local limit="${PREFLIGHT_LIMIT_%d:-%d}"`, h, 10+h)
		w(`    if [ "$limit" -gt %d ]; then`, 100+h)
		w(`        echo "$name: limit $limit above %d" >&2`, 100+h)
		w("        return 1")
		w("    fi")
		w(`    for gpu in $(seq 0 $((TP - 1))); do`)
		w(`        echo "$name gpu $gpu ok" >> "$RESULT_DIR/preflight.log"`)
		w("    done")
		w(`    grep -c "ok" "$RESULT_DIR/preflight.log" | tee -a "$RESULT_DIR/preflight.count" > /dev/null || true`)
		w("}")
		w("preflight_%d", h)
		w("")
	}
	w("export VLLM_ENGINE_READY_TIMEOUT_S=3600")
	w("")
	w(`if [ "$DP_ATTENTION" = "true" ]; then`)
	w(`    if (( (2 * CONC) %% TP != 0 )); then`)
	w(`        echo "2*CONC must be divisible by TP under DP attention" >&2`)
	w("        exit 1")
	w("    fi")
	if engine == "sglang" {
		w(`    DP_ARGS=(--enable-dp-attention --dp-size "$TP")`)
		w(`    CUDA_GRAPH_MAX_BS=$(( (2 * CONC + TP - 1) / TP ))`)
	} else {
		w(`    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")`)
		w(`    MAX_NUM_SEQS=$((2 * CONC / TP))`)
	}
	w(`    OFFLOAD_RANKS="$TP"`)
	w("else")
	if engine == "sglang" {
		w(`    DP_ARGS=()`)
		w(`    CUDA_GRAPH_MAX_BS=$((2 * CONC))`)
	} else {
		w(`    PARALLEL_ARGS=(--tensor-parallel-size "$TP")`)
		w(`    MAX_NUM_SEQS=$((2 * CONC))`)
	}
	w("    OFFLOAD_RANKS=1")
	w("fi")
	w("")
	w("OFFLOAD_ARGS=()")
	w(`case "${KV_OFFLOAD_BACKEND:-}" in`)
	w("    vllm-simple)")
	w("        check_env_vars TOTAL_CPU_DRAM_GB")
	w("        # Each engine gets its share of the host budget.")
	if i%10 == 3 {
		w("        # JSON form so that lazy_offload=true can be passed: eager mode hits")
		w("        # a popleft_n AssertionError at low concurrency with this connector.")
	}
	w(`        CPU_BYTES=$(( $(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB") / OFFLOAD_RANKS ))`)
	w("        export VLLM_USE_SIMPLE_KV_OFFLOAD=1")
	w(`        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":${CPU_BYTES},\"lazy_offload\":true}}")`)
	w("        ;;")
	w("    mooncake)")
	w("        # Without the switch the backend resolves to OffloadingConnector;")
	w("        # VLLM_USE_SIMPLE_KV_OFFLOAD=1 would swap in SimpleCPUOffloadConnector.")
	w("        unset VLLM_USE_SIMPLE_KV_OFFLOAD")
	w(`        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')`)
	w("        ;;")
	w("    lmcache)")
	w("        unset VLLM_USE_SIMPLE_KV_OFFLOAD")
	w(`        LMCACHE_PORT="${LMCACHE_PORT:-6555}"`)
	w(`        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":${LMCACHE_PORT}}}")`)
	w("        ;;")
	w(`    none|"")`)
	w("        ;;")
	w("esac")
	w("")
	switch engine {
	case "vllm":
		w("VLLM_CMD=(")
		w(`    vllm serve "$MODEL"`)
		w(`    --host 0.0.0.0`)
		w(`    --port "$PORT"`)
		w(`    "${PARALLEL_ARGS[@]}"`)
		w(`    --kv-cache-dtype fp8`)
		w(`    --gpu-memory-utilization 0.9%d`, i%5)
		w(`    --max-model-len 262144`)
		w(`    --max-num-batched-tokens 16384`)
		w(`    --max-num-seqs "$MAX_NUM_SEQS"`)
		w(`    --max-cudagraph-capture-size "$MAX_NUM_SEQS"`)
		w(`    --enable-prefix-caching`)
		w(`    --tool-call-parser deepseek_v4`)
		w(`    --enable-auto-tool-choice`)
		w(`    --reasoning-parser deepseek_v4`)
		w(`    "${OFFLOAD_ARGS[@]}"`)
		w(")")
		w(`if [ "${EP_SIZE:-1}" -gt 1 ]; then`)
		w(`    VLLM_CMD+=(--enable-expert-parallel)`)
		w("fi")
		w(`"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &`)
	case "sglang":
		w(`python3 -m sglang.launch_server \`)
		w(`    --model-path "$MODEL" \`)
		w(`    --port "$PORT" \`)
		w(`    --tp-size "$TP" \`)
		w(`    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \`)
		w(`    --tool-call-parser deepseekv4 \`)
		w(`    --reasoning-parser deepseek-v4 \`)
		w(`    "${DP_ARGS[@]}" > "$SERVER_LOG" 2>&1 &`)
	case "trt":
		w(`trtllm-serve "$MODEL" \`)
		w(`    --port "$PORT" \`)
		w(`    --tp_size "$TP" \`)
		w(`    --ep_size "${EP_SIZE:-1}" \`)
		w(`    --tool_parser deepseek_v4 \`)
		w(`    --reasoning_parser deepseek_v4 > "$SERVER_LOG" 2>&1 &`)
	default:
		w(`python3 -m atom.entrypoints.openai_server \`)
		w(`    --model "$MODEL" \`)
		w(`    --port "$PORT" \`)
		w(`    "${PARALLEL_ARGS[@]}" \`)
		w(`    --max-num-seqs "$MAX_NUM_SEQS" \`)
		w(`    --tool-call-parser deepseek_v4 \`)
		w(`    --reasoning-parser deepseek_v4 > "$SERVER_LOG" 2>&1 &`)
	}
	w("SERVER_PID=$!")
	w("")
	w(`wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"`)
	w("")
	w(`run_agentic_benchmark \`)
	w(`    --model "$MODEL" \`)
	w(`    --port "$PORT" \`)
	w(`    --concurrency "$CONC" \`)
	w(`    --result-dir "$RESULT_DIR"`)
	w("")
	w("# The client writes its per-request records and the aggregate summary to")
	w("# $RESULT_DIR; the sweep collects both after the job ends.")
	w(`echo "done: $(date -u +%%FT%%TZ)"`)
	return b.String()
}

// recipeBenchPR builds the base tree and the PR's head: recipe 0 gains an
// LMCache-style arm without its module path, an eager SimpleCPU config and
// an undivided batch cap, so the recipe rules walk their sibling evidence.
func recipeBenchPR(tb testing.TB) (base, head map[string]string, target string) {
	base = map[string]string{
		"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\ncheck_env_vars() { :; }\n",
	}
	for i := 0; i < 200; i++ {
		base[recipeBenchDir+recipeBenchName(i)] = recipeBenchRecipe(i)
	}
	target = recipeBenchDir + recipeBenchName(0)
	src := base[target]
	for _, r := range [][2]string{
		{`\"lazy_offload\":true`, `\"lazy_offload\":false`},
		{`\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",`, ""},
		{"    MAX_NUM_SEQS=$((2 * CONC / TP))\n", "    MAX_NUM_SEQS=$((2 * CONC))\n"},
	} {
		if !strings.Contains(src, r[0]) {
			tb.Fatalf("benchmark PR: %q not in the target", r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	head = make(map[string]string, len(base))
	for k, v := range base {
		head[k] = v
	}
	head[target] = src
	return base, head, target
}

// recipeBenchTree is a tree whose listings and blob IDs are known up front,
// as they are for a git tree or the GitHub API; MemTree would hash every
// file on each Stat and ReadDir, which no real backend does.
type recipeBenchTree struct {
	*checks.MemTree
	stats map[string]checks.Entry
	dirs  map[string][]checks.Entry
}

func newRecipeBenchTree(files map[string]string) *recipeBenchTree {
	ctx := context.Background()
	t := &recipeBenchTree{MemTree: checks.NewMemTree(files), stats: map[string]checks.Entry{}, dirs: map[string][]checks.Entry{}}
	all, _ := checks.Walk(ctx, t.MemTree, "")
	for _, e := range all {
		t.stats[e.Path] = e
	}
	for _, dir := range []string{"", "benchmarks", strings.TrimSuffix(recipeBenchDir, "/")} {
		es, _ := t.MemTree.ReadDir(ctx, dir)
		t.dirs[dir] = es
		for _, e := range es {
			if e.IsDir {
				t.stats[e.Path] = e
			}
		}
	}
	return t
}

// Stat and ReadDir are read-only after construction, so safe for
// concurrent use.
func (t *recipeBenchTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	if e, ok := t.stats[checks.CleanPath(p)]; ok {
		return e, nil
	}
	return t.MemTree.Stat(ctx, p)
}

func (t *recipeBenchTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	if es, ok := t.dirs[checks.CleanPath(dir)]; ok {
		return append([]checks.Entry(nil), es...), nil
	}
	return t.MemTree.ReadDir(ctx, dir)
}

func BenchmarkReviewRecipePR(b *testing.B) {
	ctx := context.Background()
	base, head, target := recipeBenchPR(b)
	bt, ht := newRecipeBenchTree(base), newRecipeBenchTree(head)
	files, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		b.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != target {
		b.Fatalf("the PR should touch only %s, got %d files", target, len(files))
	}
	reg, err := Registry()
	if err != nil {
		b.Fatal(err)
	}
	review := func(cache *checks.ParseCache) *checks.Result {
		res, err := checks.Review(ctx, reg, &checks.Change{Base: bt, Head: ht, Files: files, PR: checks.PRInfo{Number: 1}, Date: fixtureDate, Cache: cache})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
		return res
	}
	// The PR is built to trip the recipe rules: make sure they ran on it.
	got := map[string]bool{}
	for _, f := range review(nil).Findings {
		got[f.Rule] = true
	}
	for _, id := range []string{"SH003", "SH005", "SH007"} {
		if !got[id] {
			b.Fatalf("the benchmark PR should produce %s; got %v", id, got)
		}
	}
	benchColdWarm(b, review)
}

// benchColdWarm benchmarks review as cold, from an empty parse cache each
// time (a first review), and warm, sharing one cache (a re-review after a
// comment or a re-run). cpu-ms/op is the budget's measure: ns/op hides
// garbage collection running on other cores.
func benchColdWarm(b *testing.B, review func(*checks.ParseCache) *checks.Result) {
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			review(checks.NewParseCache(0))
		}
		cpu.report(b)
	})
	b.Run("warm", func(b *testing.B) {
		cache := checks.NewParseCache(0)
		review(cache)
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			review(cache)
		}
		cpu.report(b)
	})
}

// cpuClock measures the CPU time the process spends (all threads, GC
// included), which is what the cold review's budget is about: wall time
// hides work spread over several cores. It reads /proc/self/stat, so the
// cpu-ms/op metric is reported on Linux only.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuClock {
	d, ok := processCPU()
	return cpuClock{start: d, ok: ok}
}

func (c cpuClock) report(b *testing.B) {
	end, ok := processCPU()
	if !c.ok || !ok || b.N == 0 {
		return
	}
	b.ReportMetric(float64(end-c.start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// processCPU returns user+system time from /proc/self/stat (fields 14
// and 15, in clock ticks of 10 ms: USER_HZ is 100 on every Linux
// platform Go supports). Runs of at least a few hundred milliseconds
// keep the tick rounding small.
func processCPU() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	// The command name (field 2) may hold spaces; fields resume after ")".
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so utime (14) and stime (15) are f[11], f[12].
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * 10 * time.Millisecond, true
}

// TestRecipeBenchShape keeps the benchmark honest: the synthetic recipes
// parse, have the advertised size, and mostly serve with vLLM.
func TestRecipeBenchShape(t *testing.T) {
	base, _, _ := recipeBenchPR(t)
	vllm := 0
	for p, src := range base {
		if !strings.HasPrefix(p, recipeBenchDir) {
			continue
		}
		n := strings.Count(src, "\n")
		if n < 300 || n > 400 {
			t.Errorf("%s: %d lines, want 300-400", p, n)
		}
		if strings.HasSuffix(p, "_vllm.sh") {
			vllm++
		}
	}
	if vllm < 100 {
		t.Errorf("%d vLLM recipes of 200, want most", vllm)
	}
}
