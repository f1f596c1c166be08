package convention

import (
	"sort"
	"strings"
	"testing"
)

func keysOf(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name   string
		script string
		// objs are "slot=value{keys}[binds]", jsons "flag{keys}" with a
		// trailing "?" when open, cmds the canonical options of each
		// command (with "?" when open).
		objs, jsons, cmds []string
	}{
		{
			name: "inline JSON in an array, aliases",
			script: vllmRecipe([]arm{mooncakeArm(true)}, "--tp 8", "--no-enable-prefix-caching",
				`--speculative-config '{"method":"eagle3","model":"d","num_speculative_tokens":3}'`),
			objs: []string{
				"--kv-transfer-config kv_connector=MooncakeStoreConnector{kv_role}[export MOONCAKE_CONFIG_PATH]",
				"--speculative-config method=eagle3{model,num_speculative_tokens}[]",
			},
			jsons: []string{"--speculative-config{method,model,num_speculative_tokens}", "--kv-transfer-config{kv_connector,kv_role}"},
			cmds:  []string{"--enable-prefix-caching,--kv-transfer-config,--port,--speculative-config,--tensor-parallel-size"},
		},
		{
			name: "JSON in a variable from a heredoc",
			script: "#!/bin/bash\nCFG=$(cat <<EOF\n{\n  \"kv_connector\": \"LMCacheMPConnector\",\n  \"kv_role\": \"kv_both\"\n}\nEOF\n)\n" +
				"vllm serve \"$MODEL\" --kv-transfer-config \"$CFG\" &\n",
			objs:  []string{"--kv-transfer-config kv_connector=LMCacheMPConnector{kv_role}[]"},
			jsons: []string{"--kv-transfer-config{kv_connector,kv_role}"},
			cmds:  []string{"--kv-transfer-config"},
		},
		{
			name:   "printf-built JSON is not seen",
			script: "#!/bin/bash\nSPEC=$(printf '{\"method\":\"%s\"}' \"$M\")\nvllm serve \"$MODEL\" --speculative-config \"$SPEC\" &\n",
			cmds:   []string{"--speculative-config"},
		},
		{
			name:   "a spliced member makes the JSON unreadable",
			script: "#!/bin/bash\nvllm serve \"$MODEL\" --speculative-config \"{\\\"method\\\":\\\"eagle3\\\",$EXTRA}\" &\n",
			cmds:   []string{"--speculative-config"},
		},
		{
			name:   "dotted keys join their option's JSON",
			script: "#!/bin/bash\nvllm serve \"$MODEL\" --speculative-config '{\"method\":\"eagle3\"}' --speculative-config.model d --attention-config.indexer-kv-dtype fp8 &\n",
			objs:   []string{"--speculative-config method=eagle3{model}[]"},
			jsons:  []string{"--speculative-config{method,model}", "--attention-config{indexer_kv_dtype}"},
			cmds:   []string{"--attention-config,--speculative-config"},
		},
		{
			name:   "an unresolved splice opens the command",
			script: "#!/bin/bash\nvllm serve \"$MODEL\" --speculative-config '{\"method\":\"mtp\"}' \"${EXTRA_ARGS[@]}\" &\n",
			objs:   []string{"--speculative-config method=mtp{}[]?"},
			jsons:  []string{"--speculative-config{method}?"},
			cmds:   []string{"--speculative-config?"},
		},
		{
			name:   "client JSON is the benchmark's",
			script: "#!/bin/bash\nvllm serve \"$MODEL\" --port 8888 &\nrun_benchmark_serving --model \"$MODEL\" --extra-request-body '{\"method\":\"x\"}'\n",
			cmds:   []string{"--port"},
		},
		{
			name:   "SGLang options",
			script: sglangRecipe(nil, specFlags...),
			cmds:   []string{"--model-path,--port,--speculative-algorithm,--speculative-eagle-topk,--speculative-num-draft-tokens,--speculative-num-steps,--tensor-parallel-size"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := extract(parse(t, agentic("x_fp4_b200_vllm"), tc.script), false)
			var objs, jsons, cmds []string
			for _, o := range p.objs {
				s := o.slot + "=" + o.value + "{" + keysOf(o.keys) + "}[" + keysOf(o.binds) + "]"
				if o.open {
					s += "?"
				}
				objs = append(objs, s)
			}
			for _, j := range p.jsons {
				s := j.flag + "{" + keysOf(j.keys) + "}"
				if j.open {
					s += "?"
				}
				jsons = append(jsons, s)
			}
			for _, c := range p.cmds {
				s := keysOf(c.flags)
				if c.open {
					s += "?"
				}
				cmds = append(cmds, s)
			}
			check := func(what string, got, want []string) {
				sort.Strings(got)
				sort.Strings(want)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s:\n got %q\nwant %q", what, got, want)
				}
			}
			check("objects", objs, tc.objs)
			check("JSON values", jsons, tc.jsons)
			check("commands", cmds, tc.cmds)
		})
	}
}

func TestBranchBinds(t *testing.T) {
	src := vllmRecipe([]arm{mooncakeArm(true), nativeArm(), {name: "simple", lines: []string{
		"export VLLM_USE_SIMPLE_KV_OFFLOAD=1",
		`OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both"}')`,
	}}}, "--port 8888")
	src = strings.Replace(src, "OFFLOAD_ARGS=()\n", "OFFLOAD_ARGS=()\nexport PYTHONHASHSEED=0\n", 1)
	p := extract(parse(t, agentic("x_fp4_b200_vllm"), src), false)
	got := map[string]string{}
	for _, o := range p.objs {
		if !o.arm {
			t.Errorf("%s not in a branch", o.value)
		}
		got[o.value] = keysOf(o.binds)
	}
	want := map[string]string{
		"MooncakeStoreConnector":    "export MOONCAKE_CONFIG_PATH",
		"OffloadingConnector":       "",
		"SimpleCPUOffloadConnector": "export VLLM_USE_SIMPLE_KV_OFFLOAD",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s binds %q, want %q (a top-level export is no branch's)", k, got[k], v)
		}
	}
}
