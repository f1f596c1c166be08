package multinode

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

const dir = "benchmarks/multi_node/srt-slurm-recipes/sglang/m/8k1k/"

// recipe is a small disaggregated recipe: decode workers of gpus GPUs at
// tensor-parallel size tp, with extra lines appended to decode's settings.
func recipe(key string, gpus, tp int, extra string) string {
	return fmt.Sprintf(`name: r
resources:
  gpus_per_node: 4
  gpus_per_prefill: 4
  gpus_per_decode: %d
backend:
  type: sglang
  sglang_config:
    prefill:
      tensor-parallel-size: 4
    decode:
      %s: %d
%s`, gpus, key, tp, extra)
}

func review(t *testing.T, base, head map[string]string, rule *checks.Rule) []string {
	t.Helper()
	ch := checktest.Change(t, checks.NewMemTree(base), checks.NewMemTree(head))
	ch.Cache = checks.NewParseCache(0)
	var out []string
	for _, f := range checktest.Review(t, ch, rule).Findings {
		out = append(out, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
	}
	return out
}

func TestMN001(t *testing.T) {
	p := dir + "a.yaml"
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		want       string
	}{
		{"decode below its TP", nil, map[string]string{p: recipe("tensor-parallel-size", 4, 8, "")}, "MN001 " + p + ":5"},
		{"TensorRT-LLM spelling", nil, map[string]string{p: recipe("tensor_parallel_size", 2, 4, "")}, "MN001 " + p + ":5"},
		{"GPUs cover the TP", nil, map[string]string{p: recipe("tensor-parallel-size", 8, 8, "")}, ""},
		{"more GPUs than the TP (DP ranks)", nil, map[string]string{p: recipe("tensor-parallel-size", 8, 4, "")}, ""},
		{"the base had it already", map[string]string{p: recipe("tensor-parallel-size", 4, 8, "")},
			map[string]string{p: recipe("tensor-parallel-size", 4, 8, "      mem-fraction-static: 0.9\n")}, ""},
		{"not a recipe path", nil, map[string]string{"configs/x.yaml": recipe("tensor-parallel-size", 4, 8, "")}, ""},
		{"unparsable recipe", nil, map[string]string{p: "resources: [\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.base == nil {
				tc.base = map[string]string{"README.md": "x\n"}
			}
			if got := strings.Join(review(t, tc.base, tc.head, MN001), ";"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMN002(t *testing.T) {
	p := dir + "a.yaml"
	base := map[string]string{"README.md": "x\n"}
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"two values", "      moe-runner-backend: a\n      moe-runner-backend: b\n", "MN002 " + p + ":14"},
		{"the same value twice", "      moe-runner-backend: a\n      moe-runner-backend: a\n", ""},
		{"same value, other quoting", "      moe-runner-backend: \"a\"\n      moe-runner-backend: a\n", ""},
		{"once", "      moe-runner-backend: a\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := map[string]string{p: recipe("tensor-parallel-size", 8, 8, tc.extra)}
			if got := strings.Join(review(t, base, head, MN002), ";"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNearPow2(t *testing.T) {
	for v, want := range map[int]int{8196: 8192, 8192: 0, 1025: 1024, 2049: 2048, 4000: 0, 6000: 0, 48: 0, 516: 512, 384: 0} {
		if got := nearPow2(v); got != want {
			t.Errorf("nearPow2(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestMN003(t *testing.T) {
	siblings := func(vals ...int) map[string]string {
		m := map[string]string{}
		for i, v := range vals {
			m[fmt.Sprintf("%ss%d.yaml", dir, i)] = recipe("tensor-parallel-size", 8, 8, fmt.Sprintf("      max-cudagraph-capture-size: %d\n", v))
		}
		return m
	}
	with := func(m map[string]string, v int) map[string]string {
		out := map[string]string{dir + "new.yaml": recipe("tensor-parallel-size", 8, 8, fmt.Sprintf("      max-cudagraph-capture-size: %d\n", v))}
		for k, c := range m {
			out[k] = c
		}
		return out
	}
	for _, tc := range []struct {
		name string
		base map[string]string
		v    int
		want string
	}{
		{"a typo of the common power", siblings(8192, 8192, 8192, 2048, 2048), 8196, "MN003 " + dir + "new.yaml:13"},
		{"too few siblings", siblings(8192, 8192, 8192, 2048), 8196, ""},
		{"the power meant is rare", siblings(8192, 2048, 2048, 2048, 2048), 8196, ""},
		{"values vary", siblings(8192, 8192, 8192, 2048, 6000), 8196, ""},
		{"the value is used elsewhere", siblings(8192, 8192, 8192, 2048, 2048, 8196), 8196, ""},
		{"a power of two", siblings(8192, 8192, 8192, 2048, 2048), 4096, ""},
		{"far from any power", siblings(8192, 8192, 8192, 2048, 2048), 6144, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(review(t, tc.base, with(tc.base, tc.v), MN003), ";"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// resources is a recipe's resources block: prefill and decode nodes,
// workers and GPUs per worker, on nodes of 4 GPUs.
func resources(pn, pw, pg, dn, dw, dg int) string {
	return fmt.Sprintf(`name: r
resources:
  gpu_type: gb200
  gpus_per_node: 4
  prefill_nodes: %d
  prefill_workers: %d
  gpus_per_prefill: %d
  decode_nodes: %d
  decode_workers: %d
  gpus_per_decode: %d
backend:
  type: sglang
`, pn, pw, pg, dn, dw, dg)
}

func TestMN004(t *testing.T) {
	p := dir + "a.yaml"
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		want       string
	}{
		// 1×4 + 3×8 = 28 GPUs on 1+4 nodes of 4 = 20: decode is over.
		{"a decode worker added without its nodes", nil, map[string]string{p: resources(1, 1, 4, 4, 3, 8)}, "MN004 " + p + ":9"},
		{"the nodes hold the workers", nil, map[string]string{p: resources(1, 1, 4, 6, 3, 8)}, ""},
		// 2×2 + 1×4 = 8 on 1+1 nodes: the decode worker shares the
		// prefill node's free GPUs.
		{"roles share a node", nil, map[string]string{p: resources(1, 1, 2, 1, 1, 4)}, ""},
		{"prefill over its nodes", nil, map[string]string{p: resources(1, 3, 4, 2, 2, 4)}, "MN004 " + p + ":6"},
		{"a node count is not a number", nil, map[string]string{p: strings.Replace(resources(1, 1, 4, 4, 3, 8), "decode_nodes: 4", "decode_nodes: ${N}", 1)}, ""},
		{"a role without its node count", nil, map[string]string{p: strings.Replace(resources(1, 1, 4, 4, 3, 8), "  decode_nodes: 4\n", "", 1)}, ""},
		{"the base had it already", map[string]string{p: resources(1, 1, 4, 4, 3, 8)},
			map[string]string{p: resources(1, 1, 4, 4, 3, 8) + "# tuned\n"}, ""},
		{"unparsable recipe", nil, map[string]string{p: "resources: [\n"}, ""},
		{"huge counts", nil, map[string]string{p: resources(1, 1, 4, 1, 1<<40, 1<<40)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.base == nil {
				tc.base = map[string]string{"README.md": "x\n"}
			}
			if got := strings.Join(review(t, tc.base, tc.head, MN004), ";"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// sibling is a disaggregated vLLM recipe on B200 whose decode worker gets
// the extra settings (indented under decode:) and environment lines.
func sibling(decodeExtra, envExtra string) string {
	return `name: r
resources:
  gpu_type: b200
  gpus_per_node: 8
backend:
  type: vllm
  decode_environment:
    UCX_TLS: cuda_copy,cuda_ipc,rc
` + envExtra + `  vllm_config:
    prefill:
      tensor-parallel-size: 4
    decode:
      tensor-parallel-size: 4
      block-size: 128
` + decodeExtra
}

func TestMN005(t *testing.T) {
	const d = "benchmarks/multi_node/srt-slurm-recipes/vllm/m/8k1k/"
	graph := "      compilation-config: '{\"cudagraph_mode\":\"FULL_DECODE_ONLY\"}'\n"
	env := "    VLLM_DECODE_BACKEND: triton\n"
	full := sibling(graph, env)
	sibs := map[string]string{d + "a.yaml": full, d + "b.yaml": full, d + "c.yaml": full}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
			} else {
				out[kv[i]] = kv[i+1]
			}
		}
		return out
	}
	p := d + "new.yaml"
	streams := strings.Replace(full, "      tensor-parallel-size: 4\n    decode:", "      tensor-parallel-size: 4\n      stream-interval: 32\n    decode:", 1)
	dep := strings.Replace(full, "      block-size: 128\n", "      block-size: 128\n      data-parallel-size: 4\n", 1)
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		want       string
	}{
		{"a new recipe lost a setting and a variable", sibs, with(sibs, p, sibling("", "")), "MN005 " + p + ":13"},
		{"a new recipe with them", sibs, with(sibs, p, full), ""},
		{"a new recipe lost a variable only: the finding is on its environment", sibs, with(sibs, p, sibling(graph, "")), "MN005 " + p + ":8"},
		{"the PR deletes one from a recipe", with(sibs, p, full), with(sibs, p, sibling("", env)), "MN005 " + p + ":15"},
		{"an old absence the PR does not touch", with(sibs, p, sibling("", env)),
			with(sibs, p, strings.Replace(sibling("", env), "block-size: 128", "block-size: 64", 1)), ""},
		{"two siblings are too few", with(sibs, d+"c.yaml", ""), with(sibs, d+"c.yaml", "", p, sibling("", "")), ""},
		{"a worker of another shape (DP attention) is no sibling", sibs,
			with(sibs, p, strings.Replace(sibling("", ""), "      block-size: 128\n", "      block-size: 128\n      data-parallel-size: 4\n", 1)), ""},
		{"another GPU type is no sibling", sibs, with(sibs, p, strings.Replace(sibling("", ""), "gpu_type: b200", "gpu_type: gb200", 1)), ""},
		{"the siblings the PR changes count as it leaves them", sibs,
			with(sibs, d+"a.yaml", sibling("", ""), p, sibling("", "")), ""},
		{"parallel sizes are the recipe's own", map[string]string{d + "a.yaml": dep, d + "b.yaml": dep, d + "c.yaml": dep},
			map[string]string{d + "a.yaml": dep, d + "b.yaml": dep, d + "c.yaml": dep,
				p: strings.Replace(dep, "      data-parallel-size: 4\n", "      data-parallel-size: 2\n", 1)}, ""},
		{"a prefill worker streams nothing", map[string]string{d + "a.yaml": streams, d + "b.yaml": streams, d + "c.yaml": streams},
			map[string]string{d + "a.yaml": streams, d + "b.yaml": streams, d + "c.yaml": streams, p: full}, ""},
		{"a comment names it", sibs, with(sibs, p, strings.Replace(full, graph, "      # compilation-config: eager on this point\n", 1)), ""},
		{"a copy from another template lacks too much", sibs,
			with(sibs, p, strings.NewReplacer("      block-size: 128\n", "", "    UCX_TLS: cuda_copy,cuda_ipc,rc\n", "").Replace(sibling("", ""))+"      max-num-seqs: 8\n"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(review(t, tc.base, tc.head, MN005), ";")
			if got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNamedConcs(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []int
	}{
		{"conc256.yaml", []int{256}},
		{"disagg-gb300-4p1d-dep4-dep8-24-c4096.yaml", []int{4096}},
		{"disagg-b200-low-latency-c32-c128.yaml", []int{32, 128}},
		{"1p1d-dep2-tp4-c1-c16-8k1k.yaml", []int{1, 16}},
		{"ctx1_gen5_tep4_batch4_eplb0_mtp0.yaml", nil},
		{"disagg-gb200-1p1d-dep8-tep8.yaml", nil},
		{"cached-c.yaml", nil},
	} {
		if got := namedConcs("benchmarks/multi_node/srt-slurm-recipes/x/" + tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("namedConcs(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMN006(t *testing.T) {
	const d = "benchmarks/multi_node/srt-slurm-recipes/sglang/m/8k1k/"
	r := func(concs string) string {
		return "name: r\nbenchmark:\n  type: sa-bench\n  concurrencies: " + concs + "\n"
	}
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		want       string
	}{
		{"a copy that kept its source's point", nil, map[string]string{d + "conc256.yaml": r(`"16"`)}, "MN006 " + d + "conc256.yaml:4"},
		{"the named point among others", nil, map[string]string{d + "x-c32-c128.yaml": r(`"32x64x128"`)}, ""},
		{"one of two named points missing", nil, map[string]string{d + "x-c32-c128.yaml": r(`"32x64"`)}, "MN006 " + d + "x-c32-c128.yaml:4"},
		{"a list", nil, map[string]string{d + "x-c8.yaml": r("[4, 8]")}, ""},
		{"no concurrency in the name", nil, map[string]string{d + "x-dep8.yaml": r(`"16"`)}, ""},
		{"the base ran the same", map[string]string{d + "conc256.yaml": r(`"16"`)},
			map[string]string{d + "conc256.yaml": r(`"16"`) + "# tuned\n"}, ""},
		{"renamed to a name it does not run", map[string]string{d + "conc16.yaml": r(`"16"`)},
			map[string]string{d + "conc256.yaml": r(`"16"`)}, "MN006 " + d + "conc256.yaml:4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(review(t, tc.base, tc.head, MN006), ";"); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMN007(t *testing.T) {
	p := dir + "a.yaml"
	base := map[string]string{"README.md": "x\n"}
	vllm := func(prefillRole, decodeRole string) string {
		return fmt.Sprintf(`name: v
backend:
  type: vllm
  vllm_config:
    prefill:
      kv-transfer-config: '{"kv_connector":"NixlConnector","kv_role":"%s"}'
    decode:
      kv-transfer-config: '{"kv_connector":"MultiConnector","kv_role":"%s","kv_connector_extra_config":{"connectors":[{"kv_connector":"NixlConnector","kv_role":"%s"}]}}'
`, prefillRole, decodeRole, decodeRole)
	}
	for _, tc := range []struct {
		name string
		base map[string]string
		head string
		want string
	}{
		{"SGLang decode set to prefill", nil, recipe("tensor-parallel-size", 8, 8, "      disaggregation-mode: prefill\n"), "MN007 " + p + ":13"},
		{"SGLang decode set to decode", nil, recipe("tensor-parallel-size", 8, 8, "      disaggregation-mode: decode\n"), ""},
		{"mode in another case", nil, recipe("tensor-parallel-size", 8, 8, "      disaggregation-mode: Prefill\n"), "MN007 " + p + ":13"},
		{"vLLM roles in place", nil, vllm("kv_both", "kv_consumer"), ""},
		{"vLLM decode producing", nil, vllm("kv_both", "kv_producer"), "MN007 " + p + ":8"},
		{"vLLM prefill consuming", nil, vllm("kv_consumer", "kv_consumer"), "MN007 " + p + ":6"},
		{"the base had it already", map[string]string{p: vllm("kv_both", "kv_producer")}, vllm("kv_both", "kv_producer") + "benchmark:\n  type: sa-bench\n", ""},
		{"not a role section", nil, "backend:\n  sglang_config:\n    aggregated:\n      disaggregation-mode: prefill\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.base
			if b == nil {
				b = base
			}
			if got := strings.Join(review(t, b, map[string]string{p: tc.head}, MN007), ";"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNamedInComment(t *testing.T) {
	runs := []int{4, 16}
	for _, tc := range []struct {
		text          string
		said, missing string
	}{
		{"# Only the smallest concurrencies (1,4,8)", "1 4 8", "1 8"},
		{"# 8k1k concurrency 4/16.", "4 16", ""},
		{"# concurrency: 4 and 32", "4 32", "32"},
		{"# concurrencies = 16", "16", ""},
		{"# high concurrency, 2 nodes", "", ""},
		{"# tuned for concurrency 256 on GB300", "256", "256"},
		{"# conc 8 is the knee", "", ""},
	} {
		said, missing := namedInComment(tc.text, runs)
		if got := strings.Join(ints(said), " "); got != tc.said {
			t.Errorf("%q: said %q, want %q", tc.text, got, tc.said)
		}
		if got := strings.Join(ints(missing), " "); got != tc.missing {
			t.Errorf("%q: missing %q, want %q", tc.text, got, tc.missing)
		}
	}
}

func TestMN008(t *testing.T) {
	const p = dir + "tp8-1p1d.yaml"
	r := func(comment, concs string) string {
		return comment + "name: r\nbenchmark:\n  type: sa-bench\n  concurrencies: " + concs + "\n"
	}
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		want       string
	}{
		{"a copied header naming other points", nil, map[string]string{p: r("# Smallest concurrencies only (1,4,8)\n", `"4"`)}, "MN008 " + p + ":1"},
		{"a header that matches", nil, map[string]string{p: r("# Smallest concurrencies only (1,4,8)\n", `"1x4x8"`)}, ""},
		{"an old header the PR does not touch", map[string]string{p: r("# concurrency 8\n", `"4"`)},
			map[string]string{p: r("# concurrency 8\n", `"4"`) + "# tuned\n"}, ""},
		{"no benchmark concurrencies", nil, map[string]string{p: "# concurrency 8\nname: r\n"}, ""},
		{"not a comment", nil, map[string]string{p: r("", `"4"`) + "  note: concurrency 8\n"}, ""},
		{"the PR changes the concurrencies under an old header", map[string]string{p: r("# concurrency 8\n", `"8"`)},
			map[string]string{p: r("# concurrency 8\n", `"4"`)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(review(t, tc.base, tc.head, MN008), ";"); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
