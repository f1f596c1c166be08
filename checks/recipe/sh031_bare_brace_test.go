package recipe

import "testing"

func TestSH031(t *testing.T) {
	const p = "benchmarks/multi_node/amd_utils/server.sh"
	const env = "benchmarks/multi_node/amd_utils/env.sh"
	const lib = "benchmarks/benchmark_lib.sh"
	pre := "#!/usr/bin/env bash\nset -euo pipefail\nsource \"$(dirname \"$0\")/env.sh\"\n"
	cmd := func(v string) string {
		return "PREFILL_CMD=\"SGLANG_MORI_COMBINE_DTYPE=" + v + " ${PREFILL_ENV} python3 -m sglang.launch_server --tp 8\"\neval \"$PREFILL_CMD\"\n"
	}
	tests := []struct {
		name       string
		base, head string
		envText    string
		want       []string
		phrases    []string
	}{
		{name: "the environment file exports it", envText: "export MORI_COMBINE_DTYPE_PREFILL=fp8_direct_cast\n",
			head: pre + cmd("{MORI_COMBINE_DTYPE_PREFILL}"), want: []string{"SH031 " + p + ":4"},
			phrases: []string{"`{MORI_COMBINE_DTYPE_PREFILL}`", "another file of `benchmarks/multi_node/amd_utils/` names it", "Write `${MORI_COMBINE_DTYPE_PREFILL}`"}},
		{name: "each line is reported", envText: "export MORI_COMBINE_DTYPE_PREFILL=fp8_direct_cast\n",
			head: pre + cmd("{MORI_COMBINE_DTYPE_PREFILL}") + cmd("{MORI_COMBINE_DTYPE_PREFILL}"), want: []string{"SH031 " + p + ":4", "SH031 " + p + ":6"}},
		{name: "the script sets it", head: pre + "DTYPE_PREFILL=fp8\n" + cmd("{DTYPE_PREFILL}"), want: []string{"SH031 " + p + ":5"},
			phrases: []string{"the script sets or reads it"}},
		{name: "written with its $", envText: "export MORI_COMBINE_DTYPE_PREFILL=fp8\n", head: pre + cmd("${MORI_COMBINE_DTYPE_PREFILL}")},
		{name: "a name nothing knows", head: pre + cmd("{SOME_PLACEHOLDER}")},
		{name: "a Python format string", head: pre + "DTYPE=fp8\npython3 -c \"print(f'{DTYPE}')\"\n"},
		{name: "a heredoc body", head: pre + "DTYPE=fp8\npython3 - <<PY\nx = \"{DTYPE}\"\nPY\n"},
		{name: "single quotes", head: pre + "DTYPE=fp8\necho '{DTYPE}'\n"},
		{name: "a template", head: pre + "DTYPE=fp8\necho \"{{DTYPE}}\"\n"},
		{name: "lines the PR does not touch", envText: "export MORI_COMBINE_DTYPE_PREFILL=fp8\n",
			base: pre + cmd("{MORI_COMBINE_DTYPE_PREFILL}"), head: pre + cmd("{MORI_COMBINE_DTYPE_PREFILL}") + "echo done\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			envText := tc.envText
			if envText == "" {
				envText = "export OTHER=1\n"
			}
			base := map[string]string{lib: "f() { :; }\n", env: envText}
			if tc.base != "" {
				base[p] = tc.base
			}
			fs := reviewRule(t, SH031, base, map[string]string{lib: "f() { :; }\n", env: envText, p: tc.head})
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
				if f.Suggestion == nil || f.Suggestion.Replacement == "" {
					t.Errorf("no suggestion")
				}
			}
		})
	}
}

func TestDollarBraces(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`A={X} ${X} {{X}} {X}`, `A=${X} ${X} {{X}} ${X}`},
		{`echo {X}`, `echo ${X}`},
		{`none`, `none`},
	} {
		if got := dollarBraces(tc.line, "X"); got != tc.want {
			t.Errorf("dollarBraces(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
