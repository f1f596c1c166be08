package pipeline

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl015 = &checks.Rule{
	ID:       "PL015",
	Severity: checks.Blocking,
	Title:    "Config runs on other hardware than its key names",
	Doc: "A master config key is named `{model-prefix}-{precision}-{hardware}-{framework}[-suffix...]`, and the " +
		"results of its jobs are published under that hardware. The jobs run where the key's `runner:` label " +
		"sends them: the machines `configs/runners.yaml` lists for the label, whose names start with their GPU " +
		"(`b200-dgxc_00`, `mi355x-amds_1`). This rule reports a key the PR adds, renames or moves to another " +
		"runner whose label's machines carry another GPU than the key names (🔴: the sweep benchmarks one GPU and " +
		"files the numbers under another). It also reports a multi-node row the PR adds or changes whose " +
		"srt-slurm recipe (`CONFIG_FILE=`) names a GPU in its path and none of them is the key's (🟡: a recipe " +
		"written for another machine, usually copied from a sibling key and not switched over). Only GPU names " +
		"that runners.yaml has a label for and some config key names as its hardware count (a label named after " +
		"a host, such as a vendor's test machine, names none). Fix the runner label, the key name or the recipe path so " +
		"they agree.",
	Run: runPL015,
}

// gpuOfName is the GPU segment of a runner label or machine name: the
// part before the first dash or underscore, without a `cluster:` prefix.
// A name that is not a plain GPU name (letters and digits, a letter
// first) gives "": the rule quotes GPU names outside code spans.
func gpuOfName(name string) string {
	name = strings.TrimPrefix(name, "cluster:")
	if i := strings.IndexAny(name, "-_"); i >= 0 {
		name = name[:i]
	}
	name = strings.ToLower(name)
	if !plainGPUName(name) {
		return ""
	}
	return name
}

// plainGPUName reports whether s is letters and digits, a letter first.
func plainGPUName(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// labelGPU is the GPU a runner label's machines carry: the GPU segment
// their names share, else the label's own.
func labelGPU(rs *Runners, label string) string {
	g := ""
	for _, m := range rs.Labels[label] {
		mg := gpuOfName(m)
		if g != "" && mg != g {
			return gpuOfName(label)
		}
		g = mg
	}
	if g == "" {
		return gpuOfName(label)
	}
	return g
}

// gpuNames are the GPUs runners.yaml has labels for and config keys name
// as their hardware (a label named after a host, such as a vendor's test
// machine, names no GPU).
func gpuNames(rs *Runners, keyHW map[string]bool) map[string]bool {
	out := map[string]bool{}
	for l := range rs.Labels {
		if g := labelGPU(rs, l); g != "" && keyHW[g] {
			out[g] = true
		}
	}
	return out
}

// keyHardwares are the hardware segments of a model's config keys.
func keyHardwares(m *Model) map[string]bool {
	out := map[string]bool{}
	for _, r := range m.Rows {
		if hw := r.Key.Hardware(); plainGPUName(hw) {
			out[hw] = true
		}
	}
	return out
}

// pathGPUs are the GPU names among the segments of a recipe path.
func pathGPUs(p string, gpus map[string]bool) []string {
	var out []string
	for _, seg := range strings.FieldsFunc(strings.ToLower(p), func(r rune) bool {
		return r == '/' || r == '-' || r == '_' || r == '.'
	}) {
		if gpus[seg] && !slices.Contains(out, seg) {
			out = append(out, seg)
		}
	}
	return out
}

func upper(s string) string { return strings.ToUpper(s) }

// upperAll joins GPU names for prose: "GB200", "B200 and H200".
func upperAll(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = upper(x)
	}
	return prose.JoinAnd(out)
}

// recipeSetting is a CONFIG_FILE= item of a multi-node row.
type recipeSetting struct {
	path string
	line int
}

// recipeSettings are the row's CONFIG_FILE= items, in file order.
func recipeSettings(r *masterconfig.Row) []recipeSetting {
	var out []recipeSetting
	for _, w := range []*masterconfig.Worker{r.Prefill, r.Decode} {
		if w == nil {
			continue
		}
		for _, s := range w.Settings {
			v, ok := strings.CutPrefix(strings.TrimSpace(s.Value), "CONFIG_FILE=")
			if !ok || v == "" {
				continue
			}
			out = append(out, recipeSetting{path: strings.Trim(v, `"'`), line: r.Line + s.Off})
		}
	}
	return out
}

func runPL015(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil || head.Runners == nil || len(head.Runners.Labels) == 0 {
		return err
	}
	gpus := gpuNames(head.Runners, keyHardwares(head))
	base, _ := a.Base()
	baseRunner := func(key string) (string, bool) {
		if base == nil {
			return "", false
		}
		for _, br := range base.Key(key) {
			return br.Key.Runner.Value, true
		}
		return "", false
	}
	baseRecipes := func(key string) map[string]bool {
		out := map[string]bool{}
		if base == nil {
			return out
		}
		for _, br := range base.Key(key) {
			for _, s := range recipeSettings(br.Row) {
				out[s.path] = true
			}
		}
		return out
	}
	keysDone := map[string]bool{}
	for _, r := range rows {
		k := r.Key
		hw := k.Hardware()
		if hw == "" || !gpus[hw] {
			continue
		}
		if !keysDone[r.File+"\x00"+k.Name] {
			keysDone[r.File+"\x00"+k.Name] = true
			judgeRunnerGPU(p, head.Runners, gpus, r, hw, baseRunner)
		}
		if r.Kind != MultiNode {
			continue
		}
		old := baseRecipes(k.Name)
		for _, s := range recipeSettings(r.Row) {
			if old[s.path] {
				continue
			}
			named := pathGPUs(s.path, gpus)
			if len(named) == 0 || slices.Contains(named, hw) {
				continue
			}
			sort.Strings(named)
			p.Report(checks.Finding{
				Severity: checks.Warning,
				Path:     r.File, Line: s.line,
				Title: fmt.Sprintf("%s (%s) runs a recipe written for %s", code(k.Name), upper(hw), upperAll(named)),
				Body: fmt.Sprintf("%s names %s, but the recipe this row hands to srtctl, %s, names %s in its path: "+
					"a recipe written for other machines (its GPU count per node, memory settings and parallel layout are "+
					"that hardware's), usually copied from a sibling key and not switched over. The job benchmarks that "+
					"recipe and publishes it as %s. Point `CONFIG_FILE=` at the %s recipe, or rename the key if the row is "+
					"meant for %s.",
					code(k.Name), upper(hw), code(s.path), upperAll(named), upper(hw), upper(hw), upperAll(named)),
				Related: []checks.Location{{Path: r.File, Line: k.Line, Note: "the key names " + upper(hw)}},
				Key:     "PL015 recipe " + k.Name + " " + s.path,
			})
		}
	}
	return nil
}

// judgeRunnerGPU reports a key the PR put on a runner label whose machines
// carry another GPU than the key names.
func judgeRunnerGPU(p *checks.Pass, rs *Runners, gpus map[string]bool, r *Row, hw string, baseRunner func(string) (string, bool)) {
	k := r.Key
	label := k.Runner.Value
	if label == "" {
		return
	}
	if old, ok := baseRunner(k.Name); ok && old == label {
		return // the PR did not put the key on this label
	}
	g := labelGPU(rs, label)
	if g == "" || g == hw || !gpus[g] {
		return
	}
	line := k.Runner.Line
	if line == 0 {
		line = k.Line
	}
	var related []checks.Location
	if at := rs.LabelLines[label]; at > 0 {
		note := "the label's machines"
		if ms := rs.Labels[label]; len(ms) > 0 {
			note = fmt.Sprintf("%s: %s, ...", code(label), code(ms[0]))
		}
		related = append(related, checks.Location{Path: rs.Path, Line: at, Note: note})
	}
	p.Report(checks.Finding{
		Path: r.File, Line: line,
		Title: fmt.Sprintf("%s names %s but runs on %s machines (%s)", code(k.Name), upper(hw), upper(g), code("runner: "+label)),
		Body: fmt.Sprintf("The key %s names %s, but its %s sends the jobs to %s machines: the sweep "+
			"benchmarks %s and publishes the numbers as %s. Put the key on a runner label of %s machines, or rename it "+
			"after the hardware it runs on.",
			code(k.Name), upper(hw), code("runner: "+label), upper(g), upper(g), upper(hw), upper(hw)),
		Related: related,
		Key:     "PL015 runner " + k.Name + " " + label,
	})
}
