package convention

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

const agenticDir = "benchmarks/single_node/agentic"

// sglangRecipe is a synthetic SGLang recipe: top-level lines, then a
// server command with one option per line.
func sglangRecipe(top []string, flags ...string) string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n\n")
	b.WriteString("source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n\n")
	b.WriteString("check_env_vars MODEL TP CONC RESULT_DIR\n\n")
	for _, l := range top {
		b.WriteString(l + "\n")
	}
	b.WriteString("python3 -m sglang.launch_server \\\n    --model-path \"$MODEL\" \\\n    --port 8888 \\\n")
	for _, f := range flags {
		b.WriteString("    " + f + " \\\n")
	}
	b.WriteString("    --tp \"$TP\" > \"$RESULT_DIR/server.log\" 2>&1 &\nSERVER_PID=$!\n")
	return b.String()
}

// arm is one case arm of a synthetic vLLM recipe's KV_OFFLOAD_BACKEND
// switch.
type arm struct {
	name  string
	lines []string
}

// vllmRecipe is a synthetic vLLM agentic recipe: case arms on
// KV_OFFLOAD_BACKEND that fill OFFLOAD_ARGS, then a server command with
// one option per line.
func vllmRecipe(arms []arm, flags ...string) string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n\n")
	b.WriteString("source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n\n")
	b.WriteString("check_env_vars MODEL TP CONC RESULT_DIR\n\n")
	b.WriteString("OFFLOAD_ARGS=()\ncase \"${KV_OFFLOAD_BACKEND:-}\" in\n")
	for _, a := range arms {
		b.WriteString("    " + a.name + ")\n")
		for _, l := range a.lines {
			b.WriteString("        " + l + "\n")
		}
		b.WriteString("        ;;\n")
	}
	b.WriteString("    none|\"\")\n        ;;\nesac\n\nVLLM_CMD=(\n    vllm serve \"$MODEL\"\n    --port 8888\n")
	for _, f := range flags {
		b.WriteString("    " + f + "\n")
	}
	b.WriteString("    \"${OFFLOAD_ARGS[@]}\"\n)\n\"${VLLM_CMD[@]}\" > \"$RESULT_DIR/server.log\" 2>&1 &\nSERVER_PID=$!\n")
	return b.String()
}

// mooncakeArm builds a MooncakeStoreConnector arm, with or without the
// export of its config path.
func mooncakeArm(export bool) arm {
	a := arm{name: "mooncake", lines: []string{`MOONCAKE_CONFIG_PATH="$RESULT_DIR/mooncake.json"`}}
	if export {
		a.lines = append(a.lines, "export MOONCAKE_CONFIG_PATH")
	}
	a.lines = append(a.lines, `OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')`)
	return a
}

// nativeArm builds an OffloadingConnector arm (no Mooncake env).
func nativeArm() arm {
	return arm{name: "native", lines: []string{
		`OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both"}')`,
	}}
}

// specFlags are SGLang's speculative-decoding options, always together.
var specFlags = []string{
	"--speculative-algorithm EAGLE",
	"--speculative-num-steps 3",
	"--speculative-eagle-topk 1",
	"--speculative-num-draft-tokens 4",
}

func agentic(name string) string { return agenticDir + "/" + name + ".sh" }

func memTree(files map[string]string) *checks.MemTree { return checks.NewMemTree(files) }

// with returns a copy of files with p set to v ("" deletes it).
func with(files map[string]string, p, v string) map[string]string {
	out := map[string]string{}
	for k, x := range files {
		out[k] = x
	}
	if v == "" {
		delete(out, p)
	} else {
		out[p] = v
	}
	return out
}

// review runs the given rules, then CV001, over base → head.
func review(t *testing.T, base, head map[string]string, rules ...*checks.Rule) *checks.Result {
	t.Helper()
	ch := checktest.Change(t, memTree(base), memTree(head))
	ch.Cache = checks.NewParseCache(0)
	return checktest.Review(t, ch, append(rules, CV001)...)
}

func cv001Findings(res *checks.Result) []checks.Finding {
	var out []checks.Finding
	for _, f := range res.Findings {
		if f.Rule == "CV001" {
			out = append(out, f)
		}
	}
	return out
}

// parse reads a script's facts, failing the test on a parse error.
func parse(t *testing.T, p, src string) *script.Facts {
	t.Helper()
	f, err := script.Parse(p, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// corpusOf mines a tree's corpus for one engine.
func corpusOf(t *testing.T, files map[string]string, e script.Engine) *corpus {
	t.Helper()
	tr := memTree(files)
	ch := &checks.Change{Base: tr, Head: tr}
	c, err := loadCorpus(context.Background(), ch, e)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
