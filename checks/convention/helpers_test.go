package convention

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

const agenticDir = "benchmarks/single_node/agentic"

// recipeSpec describes a synthetic vLLM agentic recipe: top-level lines,
// case arms on KV_OFFLOAD_BACKEND, and server flags (one per line).
type recipeSpec struct {
	top   []string
	arms  []armSpec
	flags []string
}

type armSpec struct {
	name  string
	lines []string
}

// script renders a spec as a recipe that the facts extractor reads like
// the real ones.
func (r recipeSpec) script() string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n\n")
	b.WriteString("source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n\n")
	b.WriteString("check_env_vars MODEL TP CONC RESULT_DIR\n\n")
	for _, l := range r.top {
		b.WriteString(l + "\n")
	}
	b.WriteString("OFFLOAD_ARGS=()\ncase \"${KV_OFFLOAD_BACKEND:-}\" in\n")
	for _, a := range r.arms {
		b.WriteString("    " + a.name + ")\n")
		for _, l := range a.lines {
			b.WriteString("        " + l + "\n")
		}
		b.WriteString("        ;;\n")
	}
	b.WriteString("    none|\"\")\n        ;;\nesac\n\nVLLM_CMD=(\n    vllm serve \"$MODEL\"\n    --port 8888\n")
	for _, f := range r.flags {
		b.WriteString("    " + f + "\n")
	}
	b.WriteString("    \"${OFFLOAD_ARGS[@]}\"\n)\n\"${VLLM_CMD[@]}\" > \"$RESULT_DIR/server.log\" 2>&1 &\nSERVER_PID=$!\n")
	return b.String()
}

func alphaArm(withExport bool) armSpec {
	a := armSpec{name: "alpha"}
	if withExport {
		a.lines = append(a.lines, "export ALPHA_MODE=1")
	}
	a.lines = append(a.lines, `OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"AlphaConnector","kv_role":"kv_both"}')`)
	return a
}

func betaArm() armSpec {
	return armSpec{name: "beta", lines: []string{
		"unset ALPHA_MODE",
		`OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"BetaConnector","kv_role":"kv_both"}')`,
	}}
}

var toolFlags = []string{"--tool-call-parser x", "--enable-auto-tool-choice"}

// tree builds an in-memory repository from path → spec (or raw text).
func tree(files map[string]any) *checks.MemTree {
	m := map[string]string{}
	for p, v := range files {
		switch x := v.(type) {
		case recipeSpec:
			m[p] = x.script()
		case string:
			m[p] = x
		default:
			panic(fmt.Sprintf("unsupported file %T", v))
		}
	}
	return checks.NewMemTree(m)
}

func agentic(name string) string { return agenticDir + "/" + name + "_vllm.sh" }

// group returns the implications of the vLLM agentic group of t.
func mineGroup(t *testing.T, tr checks.Tree, th Thresholds) []Implication {
	t.Helper()
	ims, err := Mine(context.Background(), tr, nil, agenticDir, th)
	if err != nil {
		t.Fatal(err)
	}
	return ims
}

func find(ims []Implication, x, y string) (Implication, bool) {
	for _, im := range ims {
		if im.X == x && im.Y == y {
			return im, true
		}
	}
	return Implication{}, false
}

// review runs the given rules (CV001 last) over base → head.
func review(t *testing.T, base, head checks.Tree, rules ...*checks.Rule) *checks.Result {
	t.Helper()
	ch := checktest.Change(t, base, head)
	ch.Cache = checks.NewParseCache(0)
	return checktest.Review(t, ch, append(rules, CV001)...)
}

// with returns a copy of files with p replaced.
func with(files map[string]any, p string, v any) map[string]any {
	out := map[string]any{}
	for k, x := range files {
		out[k] = x
	}
	if v == nil {
		delete(out, p)
	} else {
		out[p] = v
	}
	return out
}
