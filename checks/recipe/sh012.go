package recipe

// SH012: architecture overrides.
//
// A benchmark must run the model as published. Overriding its
// architecture config (--hf-overrides, hf_overrides in a config,
// SGLang's --json-model-override-args, sed/jq/Python edits of the
// checkpoint's config.json) benchmarks a different model under the
// published model's name — a fewer-experts, shorter-context or
// differently-quantized variant can be much faster. The sign-off
// checklist forbids it (no architecture hacks).

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// SH012 reports an architecture override.
var SH012 = &checks.Rule{
	ID:       "SH012",
	Severity: checks.Blocking,
	Title:    "Model architecture overridden",
	Doc: "Benchmarks run the model as published. This rule reports an architecture override a PR " +
		"adds to a recipe or runner: `--hf-overrides` / `hf_overrides`, SGLang's " +
		"`--json-model-override-args`, or a `sed`/`jq`/Python edit of the checkpoint's `config.json`. " +
		"An override changes what is being measured (layers, experts, context length, quantization, " +
		"attention variant) while the result is still published under the original model, so the " +
		"number is not comparable with any other submission. Remove it; if the model cannot run " +
		"without it, the fix belongs in the engine or the checkpoint upstream.",
	Run: runSH012,
}

func init() { register(SH012) }

// overrideWhat describes an override shape for the message.
var overrideWhat = map[OverrideKind]string{
	OverrideHFFlag:     "passes `--hf-overrides`, which rewrites the model's Hugging Face config at load time",
	OverrideMention:    "sets `hf_overrides`, which rewrites the model's Hugging Face config at load time",
	OverrideModelArgs:  "passes SGLang's `--json-model-override-args`, which rewrites the model's config at load time",
	OverrideConfigEdit: "edits the checkpoint's `config.json` before the server loads it",
}

// overrideRank orders kinds when one line has several: the most specific
// description wins.
var overrideRank = map[OverrideKind]int{OverrideHFFlag: 0, OverrideModelArgs: 1, OverrideConfigEdit: 2, OverrideMention: 3}

func runSH012(p *checks.Pass) error {
	scripts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, t := range scripts {
		byLine := map[int][]Override{}
		for _, o := range t.Head.Overrides {
			if t.added(o.Line) {
				byLine[o.Line] = append(byLine[o.Line], o)
			}
		}
		lines := make([]int, 0, len(byLine))
		for l := range byLine {
			lines = append(lines, l)
		}
		sort.Ints(lines)
		for _, l := range lines {
			ovs := byLine[l]
			sort.SliceStable(ovs, func(i, j int) bool { return overrideRank[ovs[i].Kind] < overrideRank[ovs[j].Kind] })
			p.Report(sh012Finding(t, ovs))
		}
	}
	return nil
}

func sh012Finding(t *target, ovs []Override) checks.Finding {
	o := ovs[0]
	what := overrideWhat[o.Kind]
	if what == "" {
		what = "overrides the model's architecture config"
	}
	var facts []string
	for _, x := range ovs {
		facts = append(facts, "override:"+string(x.Kind))
	}
	msg := fmt.Sprintf("Line %d %s. Benchmarks must run the model as published: an override changes what is measured (layers, experts, context length, quantization or attention variant) while the result is still published under the original model, so it is not comparable with any other submission. Remove the override; if the model cannot run without it, the fix belongs in the engine or the checkpoint upstream.",
		o.Line, what)
	var d strings.Builder
	fmt.Fprintf(&d, "**The problem.** Line %d (`%s`) %s.\n\n", o.Line, strings.TrimSpace(o.Text), what)
	d.WriteString("**Why it matters.** The master config names a public model and the published point is read as that model's performance on this hardware. An architecture override serves a different model: fewer active experts, a shorter context, a different RoPE scaling or quantization can each change throughput far more than any serving flag. Nothing fails, and the number cannot be reproduced from the checkpoint named in the config. The sign-off checklist rejects such hacks (no architecture hacks).\n\n")
	d.WriteString("**Step by step.**\n")
	d.WriteString("1. The server loads the checkpoint's configuration.\n")
	fmt.Fprintf(&d, "2. Line %d changes it before or while the model is built.\n", o.Line)
	d.WriteString("3. The engine instantiates a model that differs from the published one.\n")
	d.WriteString("4. The run is reported under the original model and config key.\n\n")
	d.WriteString("**Fix.** Remove the override. If the model does not load or run correctly without it, fix it upstream (an engine PR or a corrected checkpoint) and benchmark the image that carries the fix.")
	f := checks.Finding{
		Path:    t.Path,
		Line:    o.Line,
		Title:   "Architecture override (" + string(o.Kind) + ")",
		Message: msg,
		Details: d.String(),
		Key:     "arch-override:" + string(o.Kind) + ":" + checks.NormalizeKey(o.Text),
		Facts:   facts,
	}
	// An option on a continuation line of its own can simply go.
	line := strings.TrimSpace(t.Head.LineText(o.Line))
	if (o.Kind == OverrideHFFlag || o.Kind == OverrideModelArgs) && strings.HasSuffix(line, `\`) &&
		(strings.HasPrefix(line, "--hf-overrides") || strings.HasPrefix(line, "--hf_overrides") || strings.HasPrefix(line, "--json-model-override-args")) {
		f.Suggestion = &checks.Suggestion{Line: o.Line, Replacement: ""}
	}
	return f
}
