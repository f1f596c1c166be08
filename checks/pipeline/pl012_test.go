package pipeline

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

func TestAsServer(t *testing.T) {
	call := func(args ...string) sheval.Call {
		var c sheval.Call
		for _, a := range args {
			known := !strings.HasPrefix(a, "?")
			c.Args = append(c.Args, sheval.Arg{Text: strings.TrimPrefix(a, "?"), Known: known})
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		call   sheval.Call
		engine string
		opt    string
		want   string // value, "unknown", or "" when absent
	}{
		{"vllm serve", call("vllm", "serve", "m", "--max-model-len", "9472", "--max-num-seqs", "64"), "vllm", "--max-num-seqs", "64"},
		{"option=value", call("vllm", "serve", "m", "--max-model-len=9472"), "vllm", "--max-model-len", "9472"},
		{"underscores", call("trtllm-serve", "m", "--max_batch_size", "32"), "trtllm", "--max-batch-size", "32"},
		{"SGLang module", call("python3", "-m", "sglang.launch_server", "--cuda-graph-max-bs", "?$BS"), "sglang", "--cuda-graph-max-bs", "unknown"},
		{"the last occurrence wins", call("vllm", "serve", "m", "--max-num-seqs", "8", "--max-num-seqs", "16"), "vllm", "--max-num-seqs", "16"},
		{"a switch", call("vllm", "serve", "m", "--enforce-eager", "--max-num-seqs", "8"), "vllm", "--enforce-eager", "switch"},
		{"absent", call("vllm", "serve", "m"), "vllm", "--max-num-seqs", ""},
		{"vllm bench is no server", call("vllm", "bench", "serve"), "", "", ""},
		{"a python script is no server", call("python3", "utils/x.py"), "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := AsServer(tc.call)
			if tc.engine == "" {
				if ok {
					t.Fatalf("read as a %s server", s.Engine)
				}
				return
			}
			if !ok || s.Engine != tc.engine {
				t.Fatalf("AsServer = %+v, %v", s, ok)
			}
			got := ""
			switch v, has, known := s.Int(tc.opt); {
			case tc.want == "switch":
				if s.Has(tc.opt) {
					got = "switch"
				}
			case has && !known:
				got = "unknown"
			case has:
				got = fmt.Sprint(v)
			}
			if got != tc.want {
				t.Errorf("%s = %q, want %q", tc.opt, got, tc.want)
			}
		})
	}
}

// TestServerLimits: the server's limits against the rows that run the
// script (dsr1-fp4-b200-sglang: isl 8192, osl 1024; a TP8 row at conc 4-32
// and a DEP4 row with attention DP at 64 and 128).
func TestServerLimits(t *testing.T) {
	const script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_sglang.sh"
	const ctx = "    --context-length $((ISL + OSL + 256)) > \"$SERVER_LOG\" 2>&1 &"
	base := fixtureFiles(t)
	if !strings.Contains(base[script], ctx) {
		t.Fatalf("fixture script lacks %q", ctx)
	}
	with := func(lines string) func(map[string]string) {
		return func(f map[string]string) {
			f[script] = strings.Replace(f[script], ctx, lines+ctx, 1)
		}
	}
	pre := func(lines string) func(map[string]string) {
		return func(f map[string]string) {
			f[script] = strings.Replace(f[script], "python3 -m sglang.launch_server", lines+"python3 -m sglang.launch_server", 1)
		}
	}
	setCtx := func(v string) func(map[string]string) {
		return func(f map[string]string) {
			f[script] = strings.Replace(f[script], "$((ISL + OSL + 256))", v, 1)
		}
	}
	tests := []struct {
		name       string
		base, head func(map[string]string)
		rules      []*checks.Rule
		want       []string
		phrases    []string
	}{
		{name: "a context shorter than isl + osl", head: setCtx("8192"), rules: []*checks.Rule{pl012},
			want:    []string{"PL012 " + script},
			phrases: []string{"`--context-length 8192`", "needs 9216"}},
		{name: "a context that holds them", head: setCtx("9216"), rules: []*checks.Rule{pl012}},
		{name: "a context the base had already", base: setCtx("8192"),
			head: func(f map[string]string) { setCtx("8192")(f); f[script] += "# tuned\n" }, rules: []*checks.Rule{pl012}},
		{name: "a running-request cap below the concurrency", head: with("    --max-running-requests 16 \\\n"),
			rules: []*checks.Rule{pl013}, want: []string{"PL013 " + script},
			phrases: []string{"`--max-running-requests 16`", "`CONC=32`"}},
		{name: "a cap from the concurrency", head: with("    --max-running-requests \"$CONC\" \\\n"), rules: []*checks.Rule{pl013}},
		{name: "a CUDA-graph bound below the concurrency", head: with("    --cuda-graph-max-bs 8 \\\n"),
			rules: []*checks.Rule{pl013}, want: []string{"PL013 " + script},
			phrases: []string{"`--cuda-graph-max-bs 8`", "`CONC=16` and `CONC=32`", "without CUDA graphs"}},
		{name: "eager decoding has no graphs to bound", head: with("    --cuda-graph-max-bs 8 --disable-cuda-graph \\\n"),
			rules: []*checks.Rule{pl013}},
		// The DEP4 row's ranks schedule apart: their caps are per rank.
		{name: "data-parallel ranks are not judged", head: with("    --cuda-graph-max-bs 48 \\\n"), rules: []*checks.Rule{pl013}},
		{name: "a branch on the concurrency that covers it", head: func(f map[string]string) {
			pre("if [ \"$CONC\" -ge 16 ]; then BS=$CONC; else BS=16; fi\n")(f)
			with("    --cuda-graph-max-bs \"$BS\" \\\n")(f)
		}, rules: []*checks.Rule{pl013}},
		{name: "a branch on the concurrency that falls short", head: func(f map[string]string) {
			pre("if [ \"$CONC\" -ge 32 ]; then BS=24; else BS=$CONC; fi\n")(f)
			with("    --cuda-graph-max-bs \"$BS\" \\\n")(f)
		}, rules: []*checks.Rule{pl013}, want: []string{"PL013 " + script}, phrases: []string{"`--cuda-graph-max-bs 24`", "`CONC=32`"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := maps.Clone(base)
			if tc.base != nil {
				tc.base(b)
			}
			h := maps.Clone(base)
			tc.head(h)
			res := checktest.Review(t, configuredChange(t, b, h), tc.rules...)
			var got []string
			for _, f := range res.Findings {
				got = append(got, f.Rule+" "+f.Path)
				for _, p := range tc.phrases {
					if !strings.Contains(f.Body+f.Title, p) {
						t.Errorf("finding lacks %q:\n%s\n%s", p, f.Title, f.Body)
					}
				}
			}
			if strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
