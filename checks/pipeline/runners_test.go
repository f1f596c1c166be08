package pipeline

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseRunners: runners.yaml in both of its layouts: `labels:` with
// `hardware:` facts (YAML 1.1 integers with underscores), and the older
// file with the labels at the top level. Entries that are not lists of
// machines are not labels.
func TestParseRunners(t *testing.T) {
	for _, c := range []struct {
		name   string
		text   string
		labels map[string][]string
		lines  map[string]int
		hw     map[string]Hardware
	}{
		{"labels and hardware", `labels:
  h100:
    - h100-cr_0
    - h100-cr_1
  cluster:b200-dgxc: [b200-dgxc_00, b200-dgxc_01]
  broken: not-a-list
hardware:
  cluster:b200-dgxc:
    available-cpu-dram-mib: 3_095_781
    gpus-per-node: 8
  h100:
    available-cpu-dram-mib: 1000000
    gpus-per-node: 8
  odd:
    gpus-per-node: four
  unit:
    available-cpu-dram-mib: 2TiB
    gpus-per-node: 4
`,
			map[string][]string{"h100": {"h100-cr_0", "h100-cr_1"}, "cluster:b200-dgxc": {"b200-dgxc_00", "b200-dgxc_01"}},
			map[string]int{"h100": 2, "cluster:b200-dgxc": 5},
			map[string]Hardware{"cluster:b200-dgxc": {AvailableCPUDRAMMiB: 3_095_781, GPUsPerNode: 8}, "h100": {AvailableCPUDRAMMiB: 1000000, GPUsPerNode: 8}, "odd": {}, "unit": {GPUsPerNode: 4}}},
		{"older layout: labels at the top level", `h100:
- h100-cr_0
mi300x:
- mi300x-amd_0
- mi300x-amd_1
`,
			map[string][]string{"h100": {"h100-cr_0"}, "mi300x": {"mi300x-amd_0", "mi300x-amd_1"}},
			map[string]int{"h100": 1, "mi300x": 3},
			map[string]Hardware{}},
		{"labels that is not a mapping is read as the older layout", "labels: [a, b]\nh100: [h100-cr_0]\n",
			map[string][]string{"labels": {"a", "b"}, "h100": {"h100-cr_0"}}, map[string]int{"labels": 1, "h100": 2}, map[string]Hardware{}},
		{"an empty mapping", "{}\n", map[string][]string{}, map[string]int{}, map[string]Hardware{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseRunners("configs/runners.yaml", []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if r.Path != "configs/runners.yaml" {
				t.Errorf("path %q", r.Path)
			}
			if !reflect.DeepEqual(r.Labels, c.labels) {
				t.Errorf("labels %v, want %v", r.Labels, c.labels)
			}
			if !reflect.DeepEqual(r.LabelLines, c.lines) {
				t.Errorf("lines %v, want %v", r.LabelLines, c.lines)
			}
			if !reflect.DeepEqual(r.Hardware, c.hw) {
				t.Errorf("hardware %+v, want %+v", r.Hardware, c.hw)
			}
		})
	}
}

// TestParseRunnersRejects: a runners.yaml the bot cannot read is an error
// naming the file, never a panic.
func TestParseRunnersRejects(t *testing.T) {
	for name, text := range map[string]string{
		"bad YAML":  "labels: {h100: [\n",
		"a list":    "- h100-cr_0\n",
		"a scalar":  "h100\n",
		"empty":     "",
		"too large": "h100: [" + strings.Repeat("h100-cr_0, ", maxTemplateBytes/10) + "]\n",
	} {
		t.Run(name, func(t *testing.T) {
			r, err := ParseRunners("configs/runners.yaml", []byte(text))
			if err == nil || r != nil {
				t.Fatalf("got %+v, %v; want an error", r, err)
			}
			if !strings.Contains(err.Error(), "configs/runners.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestRunnerGroups: a label's machines are grouped by the launcher their
// name picks (up to the first underscore), groups in name order, each
// evaluated with its first machine. A label runners.yaml does not list is
// guessed from the launchers' names (the `cluster:` prefix dropped).
func TestRunnerGroups(t *testing.T) {
	r := &Runners{Labels: map[string][]string{
		"h100":      {"h100-dgx_1", "h100-cr_0", "h100-dgx_0", "h100-cr_1"},
		"plain":     {"nounderscore"},
		"emptylist": {},
	}}
	launchers := []string{"launch_b200-dgxc.sh", "launch_b200-nb.sh", "launch_b2000.sh", "launch_h100-cr.sh", "launch_gb200-nv.sh"}
	type g struct {
		name    string
		names   []string
		guessed bool
	}
	for _, c := range []struct {
		r     *Runners
		label string
		want  []g
	}{
		{r, "h100", []g{{"h100-cr_0", []string{"h100-cr_0", "h100-cr_1"}, false}, {"h100-dgx_1", []string{"h100-dgx_1", "h100-dgx_0"}, false}}},
		{r, "plain", []g{{"nounderscore", []string{"nounderscore"}, false}}},
		// Not listed: every launcher whose stem is the label or starts
		// with it and a dash (b2000 is another machine).
		{r, "b200", []g{{"b200-dgxc_0", []string{"b200-dgxc_0"}, true}, {"b200-nb_0", []string{"b200-nb_0"}, true}}},
		{r, "cluster:b200-dgxc", []g{{"b200-dgxc_0", []string{"b200-dgxc_0"}, true}}},
		{r, "emptylist", nil},
		{r, "mi300x", nil},
		// Without a runners.yaml every label is guessed.
		{nil, "gb200", []g{{"gb200-nv_0", []string{"gb200-nv_0"}, true}}},
		{nil, "", nil},
	} {
		got := c.r.Groups(c.label, launchers)
		var flat []g
		for _, x := range got {
			if x.Label != c.label {
				t.Errorf("%s: group labelled %q", c.label, x.Label)
			}
			flat = append(flat, g{x.Name, x.Names, x.Guessed})
		}
		if !reflect.DeepEqual(flat, c.want) {
			t.Errorf("Groups(%q) = %+v, want %+v", c.label, flat, c.want)
		}
	}
}

// TestLauncherNames: only launch_*.sh files count as launchers, by base
// name, sorted.
func TestLauncherNames(t *testing.T) {
	got := launcherNames([]string{"runners/launch_z.sh", "runners/helper.sh", "inferencex-e2e/runners/launch_a.sh", "runners/launch_b.py", "runners/launch_.sh"})
	if want := []string{"launch_.sh", "launch_a.sh", "launch_z.sh"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := launcherNames(nil); got != nil {
		t.Errorf("no entries: %v", got)
	}
}

// TestRunnerScriptsAndBenchmarks: which tree paths are launch helpers the
// model follows, and which are benchmark files, in both layouts.
func TestRunnerScriptsAndBenchmarks(t *testing.T) {
	for p, want := range map[string]bool{
		"runners/launch_a.sh":                true,
		"runners/lib/common.sh":              true,
		"inferencex-e2e/runners/launch_a.sh": true,
		"runners/launch_a.py":                false,
		"benchmarks/runners/x.sh":            false,
		"other/runners/x.sh":                 false,
	} {
		if got := isRunnerScript(p); got != want {
			t.Errorf("isRunnerScript(%q) = %v", p, got)
		}
	}
	for p, want := range map[string]bool{
		"benchmarks/single_node/a.sh":                    true,
		"benchmarks/multi_node/srt-slurm-recipes/x.yaml": true,
		"inferencex-e2e/benchmarks/a.sh":                 true,
		"runners/benchmarks/a.sh":                        false,
		"benchmarks":                                     false,
	} {
		if got := IsBenchmark(p); got != want {
			t.Errorf("IsBenchmark(%q) = %v", p, got)
		}
	}
}
