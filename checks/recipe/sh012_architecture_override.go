package recipe

// The sign-off checklist forbids the same thing (no architecture hacks).

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH012 reports an architecture override.
var SH012 = &checks.Rule{
	ID:       "SH012",
	Severity: checks.Blocking,
	Title:    "Model architecture overridden",
	Doc: "Benchmarks run the model as published. This rule reports an architecture override a PR " +
		"adds to a recipe or runner: `--hf-overrides` / `hf_overrides`, SGLang's " +
		"`--json-model-override-args`, or a `sed`/`jq`/Python edit of the checkpoint's `config.json`, " +
		"that changes a key shaping the network: layers, experts and routing, attention heads and " +
		"dimensions, hidden sizes, the sparse-attention indexer and its top-k frequency, quantization " +
		"and the modules it skips, RoPE and context length, the architecture class. An edit of other " +
		"keys (a draft checkpoint's token alias such as `pard_token`) is metadata and is not reported; " +
		"a `config.json` write whose keys the bot cannot read is a warning. " +
		"An override changes what is being measured (layers, experts, context length, quantization, " +
		"attention variant) while the result is still published under the original model, so the " +
		"number is not comparable with any other submission. Remove it; if the model cannot run " +
		"without it, the fix belongs in the engine or the checkpoint upstream.",
	Run: runSH012,
}

// overrideWhat describes an override shape for the message.
var overrideWhat = map[script.OverrideKind]string{
	script.OverrideHFFlag:     "passes `--hf-overrides`, which rewrites the model's Hugging Face config at load time",
	script.OverrideMention:    "sets `hf_overrides`, which rewrites the model's Hugging Face config at load time",
	script.OverrideModelArgs:  "passes SGLang's `--json-model-override-args`, which rewrites the model's config at load time",
	script.OverrideConfigEdit: "edits the checkpoint's `config.json` before the server loads it",
}

// overrideRank orders kinds when one line has several: the most specific
// description wins.
var overrideRank = map[script.OverrideKind]int{script.OverrideHFFlag: 0, script.OverrideModelArgs: 1, script.OverrideConfigEdit: 2, script.OverrideMention: 3}

func runSH012(p *checks.Pass) error {
	scripts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, t := range scripts {
		byLine := map[int][]script.Override{}
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
			keys, known := overrideKeys(t.Head, ovs)
			if !known && completesEdit(t.Head, ovs[0]) {
				continue // `mv config.json.new config.json` after a jq edit
			}
			arch := script.ArchKeys(keys)
			if known && len(arch) == 0 {
				continue // metadata, not the network (pard_token, a chat template)
			}
			f := sh012Finding(t, ovs, arch, known)
			if !known && ovs[0].Kind == script.OverrideConfigEdit {
				// The edit was seen but not read (a redirect or copy onto
				// config.json): it may be metadata, so it is worth a look,
				// not a block.
				f.Severity = checks.Warning
			}
			p.Report(f)
		}
	}
	return nil
}

// completesEdit reports whether an unread config edit (a move or copy onto
// config.json) sits just below an edit the bot did read: the second half of
// "jq ... config.json > config.json.new; mv config.json.new config.json".
func completesEdit(f *script.Facts, o script.Override) bool {
	if o.Kind != script.OverrideConfigEdit {
		return false
	}
	for _, prev := range f.Overrides {
		if prev.Kind == script.OverrideConfigEdit && prev.KeysKnown && prev.Line < o.Line && o.Line-prev.Line <= 3 {
			return true
		}
	}
	return false
}

// overrideFlags are the server options whose value rewrites the model's
// config.
var overrideFlags = []string{"--hf-overrides", "--json-model-override-args"}

// overrideKeys returns the config keys the overrides on one line change,
// and whether they could all be read: a config edit's own keys, the JSON of
// an override option, or the hf_overrides object of a JSON config.
func overrideKeys(f *script.Facts, ovs []script.Override) ([]string, bool) {
	var keys []string
	for _, o := range ovs {
		switch o.Kind {
		case script.OverrideConfigEdit:
			if !o.KeysKnown {
				return nil, false
			}
			keys = append(keys, o.Keys...)
		case script.OverrideHFFlag, script.OverrideModelArgs:
			js := overrideFlagJSON(f, o.Line)
			if js == nil {
				return nil, false
			}
			keys = append(keys, jsonKeySegments(js, "")...)
		case script.OverrideMention:
			found := false
			for _, js := range f.JSON {
				if js.Parsed && js.Line <= o.Line && o.Line <= max(js.EndLine, js.Line) && js.Has("hf_overrides") {
					keys = append(keys, jsonKeySegments(js, "hf_overrides")...)
					found = true
				}
			}
			if !found {
				return nil, false
			}
		}
	}
	return unique(keys), true
}

// overrideFlagJSON returns the parsed JSON value of an override option
// written on line n, or nil when there is none or it could not be read.
func overrideFlagJSON(f *script.Facts, n int) *script.JSONConfig {
	for _, srv := range f.Servers {
		for _, fl := range srv.Flags {
			if !slices.Contains(overrideFlags, script.NormFlag(fl.Name)) || (fl.Line != n && fl.ValueLine != n) {
				continue
			}
			if fl.JSON != nil && fl.JSON.Parsed {
				return fl.JSON
			}
			return nil
		}
	}
	return nil
}

// jsonKeySegments lists the key names of the entries under prefix (all of
// them when prefix is ""), each segment of a nested key separately:
// {"text_config": {"index_topk_freq": 4}} gives text_config and
// index_topk_freq.
func jsonKeySegments(js *script.JSONConfig, prefix string) []string {
	var out []string
	for _, e := range js.Entries {
		k := e.Key
		if prefix != "" {
			if !strings.HasPrefix(k, prefix+".") {
				continue
			}
			k = strings.TrimPrefix(k, prefix+".")
		}
		for _, seg := range strings.Split(k, ".") {
			if i := strings.IndexByte(seg, '['); i >= 0 {
				seg = seg[:i]
			}
			if seg != "" {
				out = append(out, seg)
			}
		}
	}
	return unique(out)
}

func sh012Finding(t *target, ovs []script.Override, arch []string, known bool) checks.Finding {
	o := ovs[0]
	what := overrideWhat[o.Kind]
	if what == "" {
		what = "overrides the model's architecture config"
	}
	if len(arch) > 0 {
		var names []string
		for _, k := range arch {
			names = append(names, prose.Code(k))
		}
		what += fmt.Sprintf(" (it changes %s)", prose.JoinAnd(names))
	} else if !known && o.Kind == script.OverrideConfigEdit {
		what += "; the bot cannot tell which keys it changes, so check that none of them shapes the model (layers, experts, heads, hidden sizes, the indexer, quantization, context length)"
	}
	var facts []string
	for _, x := range ovs {
		facts = append(facts, "override:"+string(x.Kind))
	}
	msg := fmt.Sprintf("Line %d %s. Benchmarks must run the model as published: an override changes what is measured (layers, experts, context length, quantization or attention variant) while the result is still published under the original model, so it is not comparable with any other submission. Remove the override; if the model cannot run without it, the fix belongs in the engine or the checkpoint upstream.",
		o.Line, what)
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("Line %d (%s) %s.", o.Line, prose.CodeLine(strings.TrimSpace(o.Text)), what)
	ex.Why()
	w("The master config names a public model and the published point is read as that model's performance on this hardware. An architecture override serves a different model: fewer active experts, a shorter context, a different RoPE scaling or quantization can each change throughput far more than any serving flag. Nothing fails, and the number cannot be reproduced from the checkpoint named in the config. The sign-off checklist rejects such hacks (no architecture hacks).")
	ex.Step()
	w("The server loads the checkpoint's configuration.")
	ex.Step()
	w("Line %d changes it before or while the model is built.", o.Line)
	ex.Step()
	w("The engine instantiates a model that differs from the published one.")
	ex.Step()
	w("The run is reported under the original model and config key.")
	ex.Fix()
	w("Remove the override. If the model does not load or run correctly without it, fix it upstream (an engine PR or a corrected checkpoint) and benchmark the image that carries the fix.")
	f := checks.Finding{
		Path:  t.Path,
		Line:  o.Line,
		Title: "Architecture override (" + string(o.Kind) + ")",
		Body:  msg,
		Key:   "arch-override:" + string(o.Kind) + ":" + checks.NormalizeKey(o.Text),
		Facts: facts,
	}
	// An option on a continuation line of its own can simply go.
	line := strings.TrimSpace(t.Head.LineText(o.Line))
	if (o.Kind == script.OverrideHFFlag || o.Kind == script.OverrideModelArgs) && strings.HasSuffix(line, `\`) &&
		(strings.HasPrefix(line, "--hf-overrides") || strings.HasPrefix(line, "--hf_overrides") || strings.HasPrefix(line, "--json-model-override-args")) {
		f.Suggestion = &checks.Suggestion{Line: o.Line, Replacement: ""}
	}
	ex.Apply(&f)
	return f
}

// unique drops repeated keys, keeping the first of each.
func unique(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
