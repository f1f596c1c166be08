package pipeline

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// TestPL014 holds a DP-attention row without ep to the master config's
// other DP-attention rows, where its script hands EP_SIZE to the server:
// reported when at least five other rows all declare ep and the PR writes
// the row; silent for a row that writes ep (1 included), when another
// key's row leaves it out too, below five rows, for a script that never
// passes EP_SIZE, and when the base already had the row.
func TestPL014(t *testing.T) {
	const (
		cfg     = "configs/nvidia-master.yaml"
		recipe  = "benchmarks/single_node/dsr1_fp4_b200_sglang.sh"
		anchor  = "      - { tp: 4, ep: 4, dp-attn: true, conc-start: 64, conc-end: 256 }\n"
		h200row = "      - { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }\n"
		vllmRow = "      - { tp: 8, ep: 8, dp-attn: true, conc-start: 128, conc-end: 512 }\n"
		epArgs  = `    EP_ARGS=(--ep-size "$EP_SIZE")`
	)
	files := treeFiles(t, "../../testdata/trees/inferencex")
	for _, s := range []string{anchor, h200row, vllmRow} {
		if strings.Count(files[cfg], s) != 1 {
			t.Fatalf("fixture tree's %s lacks the row %q (or has it twice)", cfg, s)
		}
	}
	if !strings.Contains(files[recipe], epArgs) {
		t.Fatalf("%s no longer passes EP_SIZE", recipe)
	}
	// addRow appends a row after one of the file's rows.
	addRow := func(after, row string) func(map[string]string) {
		return func(f map[string]string) { f[cfg] = strings.Replace(f[cfg], after, after+"      - "+row+"\n", 1) }
	}
	both := func(fs ...func(map[string]string)) func(map[string]string) {
		return func(f map[string]string) {
			for _, fn := range fs {
				fn(f)
			}
		}
	}
	// The fixture tree has three DP-attention rows with ep in other keys
	// than dsr1-fp4-b200-sglang; fourth makes them four, fifth five.
	fourth := addRow(h200row, "{ tp: 8, ep: 8, dp-attn: true, conc-start: 128, conc-end: 256 }")
	fifth := both(fourth, addRow(vllmRow, "{ tp: 4, ep: 4, dp-attn: true, conc-start: 64, conc-end: 256 }"))
	newRow := addRow(anchor, "{ tp: 8, dp-attn: true, conc-start: 256, conc-end: 512 }")
	tests := []struct {
		name       string
		base, head func(map[string]string)
		want       string
	}{
		{"new DP-attention row without ep, five siblings declare it", fifth, both(fifth, newRow),
			"PL014 warning " + cfg + ":20"},
		{"the row writes ep: 1", fifth, both(fifth, addRow(anchor, "{ tp: 8, ep: 1, dp-attn: true, conc-start: 256, conc-end: 512 }")), ""},
		{"the row writes ep: 8", fifth, both(fifth, addRow(anchor, "{ tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 512 }")), ""},
		{"only four sibling rows", fourth, both(fourth, newRow), ""},
		{"another key's DP-attention row leaves ep out too", both(fifth, addRow(vllmRow, "{ tp: 4, dp-attn: true, conc-start: 64, conc-end: 128 }")),
			both(fifth, addRow(vllmRow, "{ tp: 4, dp-attn: true, conc-start: 64, conc-end: 128 }"), newRow), ""},
		{"the script never passes EP_SIZE", fifth, both(fifth, newRow, func(f map[string]string) {
			f[recipe] = strings.Replace(f[recipe], epArgs, "    EP_ARGS=()", 1)
		}), ""},
		{"one GPU of DP attention", fifth, both(fifth, addRow(anchor, "{ tp: 1, dp-attn: true, conc-start: 256, conc-end: 512 }")), ""},
		{"the base already had the row", both(fifth, newRow), both(fifth, addRow(anchor, "{ tp: 8, dp-attn: true, conc-start: 256, conc-end: 1024 }")), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := maps.Clone(files)
			if tc.base != nil {
				tc.base(b)
			}
			h := maps.Clone(files)
			tc.head(h)
			if maps.Equal(b, h) {
				t.Fatal("the edit changed nothing")
			}
			res := checktest.Review(t, configuredChange(t, b, h), pl014)
			var got []string
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%s %s %s:%d", f.Rule, f.Severity, f.Path, f.Line))
				if !strings.Contains(f.Body, "dsr1_fp4_b200_sglang.sh") || !strings.Contains(f.Body, "Add `ep: 8`") {
					t.Errorf("body names neither the script nor the fix: %s", f.Body)
				}
			}
			want := []string{}
			if tc.want != "" {
				want = []string{tc.want}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings %q, want %q", got, want)
			}
		})
	}
}

// TestEPFollowsEnv: the options by which a script hands EP_SIZE to its
// server.
func TestEPFollowsEnv(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // the option found, "" none
	}{
		{"sglang ep-size from EP_SIZE", "python3 -m sglang.launch_server --model-path m --tp-size 8 --ep-size \"$EP_SIZE\"\n", "--ep-size"},
		{"sglang ep-size in a guarded array", "A=()\nif [ \"${EP_SIZE:-1}\" -gt 1 ]; then\n  A=(--ep-size \"$EP_SIZE\")\nfi\npython3 -m sglang.launch_server --model-path m \"${A[@]}\"\n", "--ep-size"},
		{"vllm expert parallel under an EP_SIZE test", "A=()\nif [ \"$EP_SIZE\" -gt 1 ]; then\n  A+=(--enable-expert-parallel)\nfi\nvllm serve m -tp 8 \"${A[@]}\"\n", "--enable-expert-parallel"},
		{"vllm expert parallel always", "vllm serve m -tp 8 --enable-expert-parallel\n", ""},
		{"a fixed ep size", "python3 -m sglang.launch_server --model-path m --ep-size 8\n", ""},
		{"no expert parallelism at all", "python3 -m sglang.launch_server --model-path m --tp-size 8\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := script.Parse("r.sh", []byte("#!/usr/bin/env bash\n"+tc.src))
			if err != nil {
				t.Fatal(err)
			}
			fl, ok := epFollowsEnv(f)
			got := ""
			if ok {
				got = fl.Name
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
