package comments

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

func TestRefsIn(t *testing.T) {
	for _, tc := range []struct {
		comment string
		want    []string
	}{
		{" copied from ../1k1k/disagg-gb200-1p1d.yaml", []string{"../1k1k/disagg-gb200-1p1d.yaml"}},
		{" see benchmarks/single_node/fixed_seq_len/x.sh and configs/nvidia-master.yaml.", []string{"benchmarks/single_node/fixed_seq_len/x.sh", "configs/nvidia-master.yaml"}},
		{" golden AL: golden_al_distribution/glm5.2_mtp.yaml", []string{"golden_al_distribution/glm5.2_mtp.yaml"}},
		// Not the repository's paths, or not paths as written.
		{" https://github.com/org/repo/blob/main/benchmarks/x.sh", nil},
		{" vllm/v1/core/kv_cache_utils.py asserts it", nil},
		{" recipes/vllm/deepseek-v4/agentic/x.yaml upstream", nil},
		{" $RESULT_DIR/configs/x.yaml", nil},
		{" --config=configs/x.yaml", nil},
		{" ./submit.sh in the clone", nil},
		{" configs/01-08 window", nil},
		{" .../benchmarks/multi_node/amd_utils", nil},
		{" benchmarks/*/x.sh", nil},
	} {
		if got := refsIn(tc.comment); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("refsIn(%q) = %q, want %q", tc.comment, got, tc.want)
		}
	}
}

func TestCommentOf(t *testing.T) {
	for _, tc := range []struct {
		line     string
		trailing bool
		want     string
		ok       bool
	}{
		{"# a comment", false, " a comment", true},
		{"    # indented", false, " indented", true},
		{"#!/usr/bin/env bash", false, "", false},
		{`echo "${X#prefix}" # trailing`, false, "", false},
		{"key: value # trailing", true, " trailing", true},
		{`key: "a # b"`, true, "", false},
	} {
		got, ok := commentOf(tc.line, tc.trailing)
		if got != tc.want || ok != tc.ok {
			t.Errorf("commentOf(%q) = %q, %v; want %q, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTX001(t *testing.T) {
	const dir = "benchmarks/multi_node/srt-slurm-recipes/sglang/m/8k1k/"
	base := map[string]string{
		dir + "a.yaml": "name: a\n",
		"benchmarks/multi_node/srt-slurm-recipes/sglang/m/1k1k/b.yaml": "name: b\n",
		"benchmarks/single_node/fixed_seq_len/q_fp8_h200.sh":           "#!/bin/bash\n",
		"benchmarks/multi_node/srt-slurm-recipes/configs/deps.sh":      "#!/bin/bash\n",
	}
	with := func(kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	recipe := func(comment string) string { return "name: c\n# " + comment + "\nresources: {}\n" }
	for _, tc := range []struct {
		name    string
		base    map[string]string
		head    map[string]string
		want    string
		phrases []string
	}{
		{"a relative path to a file that is not there", base, with(dir+"c.yaml", recipe("copied from ../1k1k/x.yaml")),
			"TX001 " + dir + "c.yaml:2", []string{"`../1k1k/x.yaml`", "Fix the path"}},
		{"a relative path that resolves", base, with(dir+"c.yaml", recipe("copied from ../1k1k/b.yaml")), "", nil},
		{"a moved recipe: its new place is offered", base,
			with("runners/launch_h200.sh", "#!/bin/bash\n# runs benchmarks/single_node/q_fp8_h200.sh\n"),
			"TX001 runners/launch_h200.sh:2", []string{"`benchmarks/single_node/fixed_seq_len/q_fp8_h200.sh`"}},
		{"a path another checkout holds under the same tail", base,
			with("runners/launch_gb300.sh", "#!/bin/bash\n# the clone runs configs/deps.sh\n"), "", nil},
		{"a comment the PR did not write", with(dir+"c.yaml", recipe("copied from ../1k1k/x.yaml")),
			with(dir+"c.yaml", recipe("copied from ../1k1k/x.yaml")+"extra: 1\n"), "", nil},
		{"deprecated directories keep their history", base,
			with("configs/deprecated/old.yaml", "# see benchmarks/gone.sh\nk: 1\n"), "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := checktest.Change(t, checks.NewMemTree(tc.base), checks.NewMemTree(tc.head))
			var got []string
			for _, f := range checktest.Review(t, ch, TX001).Findings {
				got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
				for _, p := range tc.phrases {
					if !strings.Contains(f.Body, p) {
						t.Errorf("finding lacks %q: %s", p, f.Body)
					}
				}
			}
			if strings.Join(got, ";") != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
