package pipeline

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// Runners is configs/runners.yaml: the runner machines of each label a
// config's `runner:` names, and the hardware facts of some labels.
type Runners struct {
	Path   string
	Labels map[string][]string
	// LabelLines gives where each label is defined.
	LabelLines map[string]int
	Hardware   map[string]Hardware
}

// Hardware is a label's entry under `hardware:`.
type Hardware struct {
	AvailableCPUDRAMMiB int
	GPUsPerNode         int
}

// ParseRunners reads runners.yaml in either of its layouts: `labels:` and
// `hardware:` mappings, or (before mid-2026) the labels at the top level.
func ParseRunners(p string, b []byte) (*Runners, error) {
	if len(b) > maxTemplateBytes {
		return nil, fmt.Errorf("%s: too large", p)
	}
	doc, err := yamlx.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	root := yamlx.Root(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping", p)
	}
	r := &Runners{Path: p, Labels: map[string][]string{}, LabelLines: map[string]int{}, Hardware: map[string]Hardware{}}
	labels := root
	if l := yamlx.Get(root, "labels"); l != nil && l.Kind == yaml.MappingNode {
		labels = l
		for _, kv := range yamlx.Pairs(yamlx.Get(root, "hardware")) {
			mib, _ := yamlx.Int(yamlx.Get(kv.Value, "available-cpu-dram-mib"))
			if mib == 0 {
				mib, _ = yamlx.DecimalInt(yamlx.Scalar(yamlx.Get(kv.Value, "available-cpu-dram-mib")))
			}
			gpn, _ := yamlx.Int(yamlx.Get(kv.Value, "gpus-per-node"))
			r.Hardware[kv.Key.Value] = Hardware{AvailableCPUDRAMMiB: mib, GPUsPerNode: gpn}
		}
	}
	for _, kv := range yamlx.Pairs(labels) {
		if kv.Value.Kind != yaml.SequenceNode {
			continue
		}
		r.Labels[kv.Key.Value] = yamlx.Strings(kv.Value)
		r.LabelLines[kv.Key.Value] = kv.Key.Line
	}
	return r, nil
}

// RunnerGroup is the runner machines of a label that share a launcher:
// the launch step picks the launcher from the machine name up to its first
// underscore (b200-dgxc_03 → runners/launch_b200-dgxc.sh).
type RunnerGroup struct {
	Label string
	// Names are the machines; Name is the one the group is evaluated with.
	Names []string
	Name  string
	// Guessed is set when runners.yaml does not list the label and the
	// group was found from the launchers' file names.
	Guessed bool
}

// Groups returns the machine groups of a label. launchers lists the
// runners/launch_*.sh names of the tree (without directory) for labels
// runners.yaml does not know.
func (r *Runners) Groups(label string, launchers []string) []RunnerGroup {
	var names []string
	guessed := false
	if r != nil {
		names = r.Labels[label]
	}
	if len(names) == 0 {
		guessed = true
		bare := strings.TrimPrefix(label, "cluster:")
		for _, l := range launchers {
			stem := strings.TrimSuffix(strings.TrimPrefix(l, "launch_"), ".sh")
			if stem == bare || strings.HasPrefix(stem, bare+"-") {
				names = append(names, stem+"_0")
			}
		}
	}
	byPrefix := map[string]*RunnerGroup{}
	var order []string
	for _, n := range names {
		prefix, _, _ := strings.Cut(n, "_")
		g, ok := byPrefix[prefix]
		if !ok {
			g = &RunnerGroup{Label: label, Name: n, Guessed: guessed}
			byPrefix[prefix] = g
			order = append(order, prefix)
		}
		g.Names = append(g.Names, n)
	}
	sort.Strings(order)
	out := make([]RunnerGroup, 0, len(order))
	for _, p := range order {
		out = append(out, *byPrefix[p])
	}
	return out
}

// launcherNames lists the launch_*.sh files of a runners directory.
func launcherNames(entries []string) []string {
	var out []string
	for _, e := range entries {
		b := path.Base(e)
		if strings.HasPrefix(b, "launch_") && strings.HasSuffix(b, ".sh") {
			out = append(out, b)
		}
	}
	sort.Strings(out)
	return out
}
