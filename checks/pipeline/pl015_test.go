package pipeline

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// TestPL015 holds a key's runner label and its multi-node recipes to the
// hardware the key names: a key put on a label of another GPU's machines
// is 🔴 at its runner line, a row's CONFIG_FILE naming only another GPU
// 🟡 at that line; silent for a label of the same GPU, an unchanged
// runner, a GPU runners.yaml has no label for, a recipe path that also
// names the key's GPU, and a recipe the base row already ran.
func TestPL015(t *testing.T) {
	const (
		cfg     = "configs/nvidia-master.yaml"
		runners = "configs/runners.yaml"
		b200Key = "dsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.16-cu130\n  model: nvidia/DeepSeek-R1-0528-FP4\n  model-prefix: dsr1\n  runner: b200\n"
		recipe  = `          - "CONFIG_FILE=recipes/sglang/dsr1/gb200-fp4/8k1k/p1-dep4-d2-tep8.yaml"` + "\n"
		gb300   = "  gb300:\n    - gb300-nv_0\n"
	)
	files := treeFiles(t, "../../testdata/trees/inferencex-pipeline")
	for _, s := range []string{b200Key, recipe} {
		if strings.Count(files[cfg], s) != 1 {
			t.Fatalf("fixture tree's %s lacks %q (or has it twice)", cfg, s)
		}
	}
	if !strings.Contains(files[runners], "  gb200:\n") {
		t.Fatalf("fixture tree's %s has no gb200 label", runners)
	}
	replace := func(p, old, new string) func(map[string]string) {
		return func(f map[string]string) { f[p] = strings.Replace(f[p], old, new, 1) }
	}
	both := func(fs ...func(map[string]string)) func(map[string]string) {
		return func(f map[string]string) {
			for _, fn := range fs {
				fn(f)
			}
		}
	}
	runner := func(label string) func(map[string]string) {
		return replace(cfg, b200Key, strings.Replace(b200Key, "runner: b200", "runner: "+label, 1))
	}
	// A GB300 label, and a key that names GB300 as its hardware.
	withGB300 := both(replace(runners, "  gb200:\n", gb300+"  gb200:\n"), func(f map[string]string) {
		f[cfg] += "\n" + strings.Replace(strings.Replace(b200Key, "b200-sglang:", "gb300-sglang:", 1), "runner: b200", "runner: gb300", 1) +
			"  precision: fp4\n  framework: sglang\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n" +
			"      search-space:\n      - { tp: 4, conc-list: [4, 8] }\n"
	})
	configFile := func(p string) func(map[string]string) {
		return replace(cfg, recipe, `          - "CONFIG_FILE=`+p+`"`+"\n")
	}
	tests := []struct {
		name       string
		base, head func(map[string]string)
		want       string
	}{
		{"key moved to another GPU's label", nil, runner("h100"), "PL015 blocking " + cfg + ":9"},
		{"key moved to a cluster label of another GPU", nil, runner("cluster:gb200-nv"), "PL015 blocking " + cfg + ":9"},
		{"key moved to another label of its GPU", nil, runner("cluster:b200-dgxc"), ""},
		{"key moved to a label named after a host", replace(runners, "  gb200:\n", "  cluster:gbt350docker:\n    - gbt350docker_00\n  gb200:\n"),
			both(replace(runners, "  gb200:\n", "  cluster:gbt350docker:\n    - gbt350docker_00\n  gb200:\n"), runner("cluster:gbt350docker")), ""},
		{"key renamed after other hardware", nil, replace(cfg, "dsr1-fp4-b200-sglang:\n", "dsr1-fp4-h100-sglang:\n"),
			"PL015 blocking " + cfg + ":9"},
		{"a label and a key naming hardware with markup", replace(runners, "  gb200:\n", "  \"@evil\":\n    - \"@evil_0\"\n  gb200:\n"),
			both(replace(runners, "  gb200:\n", "  \"@evil\":\n    - \"@evil_0\"\n  gb200:\n"), replace(cfg, "dsr1-fp4-b200-sglang:\n", "\"dsr1-fp4-@evil-sglang\":\n")), ""},
		{"key renamed to hardware runners.yaml does not know", nil, replace(cfg, "dsr1-fp4-b200-sglang:\n", "dsr1-fp4-rtx6000-sglang:\n"), ""},
		{"the base ran the key on that label", runner("h100"), both(runner("h100"), replace(cfg, "conc-list: [4, 8, 16, 32]", "conc-list: [4, 8, 16]")), ""},
		{"recipe written for another GPU", withGB300, both(withGB300, configFile("recipes/sglang/dsr1/gb300-fp4/8k1k/p1-dep4-d2-tep8.yaml")),
			"PL015 warning " + cfg + ":90"},
		{"recipe names a GPU without a runner label or key", nil, configFile("recipes/sglang/dsr1/gb300-fp4/8k1k/p1-dep4-d2-tep8.yaml"), ""},
		{"recipe names the key's GPU too", withGB300, both(withGB300, configFile("recipes/sglang/dsr1/gb200-gb300-fp4/8k1k/p1-dep4-d2-tep8.yaml")), ""},
		{"recipe names no GPU", withGB300, both(withGB300, configFile("recipes/sglang/dsr1/fp4/8k1k/p1-dep4-d2-tep8.yaml")), ""},
		{"the base row ran the recipe", both(withGB300, configFile("recipes/sglang/dsr1/gb300-fp4/8k1k/p1-dep4-d2-tep8.yaml")),
			both(withGB300, configFile("recipes/sglang/dsr1/gb300-fp4/8k1k/p1-dep4-d2-tep8.yaml"), replace(cfg, "conc-list: [64, 256, 512]", "conc-list: [64, 256]")), ""},
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
			res := checktest.Review(t, configuredChange(t, b, h), pl015)
			var got []string
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%s %s %s:%d", f.Rule, f.Severity, f.Path, f.Line))
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

// TestHardwareNames: the GPU of a label, a key and a recipe path.
func TestHardwareNames(t *testing.T) {
	rs := &Runners{Labels: map[string][]string{
		"b200":            {"b200-dgxc_00", "b200-nb_1"},
		"cluster:b300-nv": {"b300-nv_0"},
		"h200-multinode":  {"h200-dgxc-slurm_11"},
		"mixed":           {"b200-dgxc_00", "h200-nb_0"},
		"mi355x-disagg":   {"mi355x-amds_02"},
		"cluster:gb200":   nil,
	}}
	for label, want := range map[string]string{
		"b200": "b200", "cluster:b300-nv": "b300", "h200-multinode": "h200", "mixed": "mixed",
		"mi355x-disagg": "mi355x", "cluster:gb200": "gb200", "cluster:mi325x-tw": "mi325x",
	} {
		if got := labelGPU(rs, label); got != want {
			t.Errorf("labelGPU(%q) = %q, want %q", label, got, want)
		}
	}
	// Names the rule would quote outside code spans must be plain.
	for _, name := range []string{"@evil-x", "cluster:[x](http://e)", "b200`", "<img", "9b"} {
		if g := gpuOfName(name); g != "" {
			t.Errorf("gpuOfName(%q) = %q, want none", name, g)
		}
	}
	gpus := gpuNames(rs, map[string]bool{"b200": true, "b300": true, "h200": true, "mi355x": true, "gb200": true})
	if gpus["mixed"] {
		t.Error("a label no key names as its hardware counts as a GPU")
	}
	for _, tc := range []struct{ path, want string }{
		{"recipes/sglang/deepseek-v4/8k1k/disagg-gb200-2p1d-dep4-dep8.yaml", "gb200"},
		{"recipes/trtllm/b200-fp4/8k1k/mtp/ctx1_gen1_dep8.yaml", "b200"},
		{"recipes/vllm/minimax-m3/b300-fp8/8k1k/4p2d.yaml", "b300"},
		{"recipes/vllm/qwen3-0.6b/MI355X/agg.yaml", "mi355x"},
		{"recipes/vllm/kimi-k3/agentic/agg-gb200-b200-shared.yaml", "gb200 b200"},
		{"recipes/vllm/kimi-k3/agentic/agg-tp8.yaml", ""},
	} {
		if got := strings.Join(pathGPUs(tc.path, gpus), " "); got != tc.want {
			t.Errorf("pathGPUs(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
