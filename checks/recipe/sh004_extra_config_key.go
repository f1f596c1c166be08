package recipe

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH004 reports an extra-config key the siblings never pass to the
// connector.
var SH004 = &checks.Rule{
	ID:       "SH004",
	Severity: checks.Warning,
	Title:    "Unknown kv_connector_extra_config key",
	Doc: "KV connectors read `kv_connector_extra_config` as a permissive dict: a key they do not know is " +
		"ignored without a warning, and the setting it was meant to carry keeps the connector's default. " +
		"This rule compares the extra-config keys a changed recipe passes to a connector with the keys the " +
		"sibling recipes pass to the same connector (at least two of them must configure it) and the keys " +
		"the engine is known to read, and reports a key none of them uses that is a variant of one of them: " +
		"the same key with a word added or dropped (`cpu_bytes_to_use_per_rank` for `cpu_bytes_to_use`) or " +
		"a typo. A key that resembles no known key may be a newer connector's knob and is not reported. Use " +
		"the known key, or confirm the connector version you run really reads the new one.",
	Run: runSH004,
}

// extraKeyUse is where a sibling passes an extra-config key to a connector.
type extraKeyUse struct {
	Path string
	Line int
}

// connectorVocabulary is what the siblings pass to one connector.
type connectorVocabulary struct {
	// files is the number of sibling recipes that configure the connector
	// with an extra config.
	files int
	// keys are the extra-config keys, most used first.
	keys []string
	uses map[string][]extraKeyUse
}

// vocabulary is learned per connector: the same key can be valid for one
// connector and meaningless for another.
func vocabulary(sibs []*Sibling, connector string) connectorVocabulary {
	v := connectorVocabulary{uses: map[string][]extraKeyUse{}}
	for _, s := range sibs {
		configured := false
		for _, k := range kvConfigsOf(s.Facts, connector) {
			for _, e := range k.extraConfig() {
				name := strings.TrimPrefix(e.Key, extraConfigKey+".")
				v.uses[name] = append(v.uses[name], extraKeyUse{s.Path, e.Line})
				configured = true
			}
		}
		if configured {
			v.files++
		}
	}
	for k := range v.uses {
		v.keys = append(v.keys, k)
	}
	sort.Slice(v.keys, func(i, j int) bool {
		a, b := v.keys[i], v.keys[j]
		if len(v.uses[a]) != len(v.uses[b]) {
			return len(v.uses[a]) > len(v.uses[b])
		}
		return a < b
	})
	return v
}

func runSH004(p *checks.Pass) error { return eachChangedRecipe(p, sh004) }

func sh004(p *checks.Pass, t *target) error {
	var sibs []*Sibling
	vocab := map[string]connectorVocabulary{}
	loaded := false
	for _, k := range kvConfigs(t.Head) {
		for _, e := range k.extraConfig() {
			name := strings.TrimPrefix(e.Key, extraConfigKey+".")
			if !t.added(e.Line) || (t.Base != nil && passesExtraKey(t.Base, k.Connector, name)) {
				continue
			}
			if !loaded {
				var err error
				if sibs, err = Siblings(p.Ctx, p.Change, t.Path); err != nil {
					return err
				}
				loaded = true
			}
			v, ok := vocab[k.Connector]
			if !ok {
				v = vocabulary(sibs, k.Connector)
				vocab[k.Connector] = v
			}
			if len(v.uses[name]) > 0 || slices.Contains(engineExtraKeys[k.Connector], name) {
				continue
			}
			best, ok := nearMiss(name, v, k.Connector)
			if !ok && v.files < 2 && len(engineExtraKeys[k.Connector]) == 0 {
				p.Inconclusive(t.Path, fmt.Sprintf("line %d passes %s key %s to %s, and %s that connector: too few to tell a typo from a newer connector's knob",
					e.Line, extraConfigKey, name, k.Connector, prose.Pick(v.files, "only one sibling recipe configures", fmt.Sprintf("%d sibling recipes configure", v.files))))
			}
			if !ok {
				// A key nobody else uses but that resembles none they do is
				// more likely a knob of a newer connector than a typo; the
				// bot cannot tell, so it says nothing.
				continue
			}
			p.Report(sh004Finding(t, k, e, name, best, v))
		}
	}
	return nil
}

// engineExtraKeys are extra-config keys the engines are known to read for
// a connector, beyond what the siblings happen to pass: a key here is never
// "unknown", and a near miss of one is reported even when no sibling
// passes it.
var engineExtraKeys = map[string][]string{
	"SimpleCPUOffloadConnector": {"cpu_bytes_to_use", "lazy_offload"},
	"OffloadingConnector":       {"cpu_bytes_to_use", "num_cpu_blocks", "block_size", "spec_name", "spec_module_path"},
	"MooncakeStoreConnector":    {"load_async", "lookup_async"},
}

// nearMiss returns the known key of the connector that name is a variant
// of, when there is one: the same key with a word added or dropped at an
// end (cpu_bytes_to_use_per_rank for cpu_bytes_to_use), or a typo of it (at
// most two edits on a key of six letters or more). Keys that merely share
// a word (lookup_async and load_async) are different keys. A sibling key
// needs two siblings configuring the connector to count as its vocabulary.
func nearMiss(name string, v connectorVocabulary, connector string) (string, bool) {
	var cands []string
	if v.files >= 2 {
		cands = append(cands, v.keys...)
	}
	for _, k := range engineExtraKeys[connector] {
		if !slices.Contains(cands, k) {
			cands = append(cands, k)
		}
	}
	best, bestScore := "", 0
	for _, k := range cands {
		score := 0
		switch {
		case wordExtension(name, k):
			score = 2
		case min(len(name), len(k)) >= 6 && prose.EditDistance(name, k, -1) <= 2:
			score = 1
		}
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	return best, bestScore > 0
}

// wordExtension reports whether one snake_case key is the other with
// words added at its start or end, the two sharing at least two words.
func wordExtension(a, b string) bool {
	wa, wb := strings.Split(a, "_"), strings.Split(b, "_")
	if len(wa) == len(wb) {
		return false
	}
	if len(wa) < len(wb) {
		wa, wb = wb, wa
	}
	if len(wb) < 2 {
		return false
	}
	return slices.Equal(wa[:len(wb)], wb) || slices.Equal(wa[len(wa)-len(wb):], wb)
}

// variantOf says how name differs from the known key best, for prose:
// "`cpu_bytes_to_use` with `_per_rank` added".
func variantOf(name, best string) string {
	switch {
	case strings.HasPrefix(name, best+"_"):
		return prose.Code(best) + " with " + prose.Code(strings.TrimPrefix(name, best)) + " added"
	case strings.HasSuffix(name, "_"+best):
		return prose.Code(best) + " with " + prose.Code(strings.TrimSuffix(name, best)) + " added in front"
	case strings.HasPrefix(best, name+"_"):
		return prose.Code(best) + " without its " + prose.Code(strings.TrimPrefix(best, name))
	case strings.HasSuffix(best, "_"+name):
		return prose.Code(best) + " without its leading " + prose.Code(strings.TrimSuffix(best, name))
	}
	return "one or two letters away from " + prose.Code(best)
}

// passesExtraKey reports whether f passes key in some config of connector.
func passesExtraKey(f *script.Facts, connector, key string) bool {
	for _, k := range kvConfigsOf(f, connector) {
		for _, e := range k.extraConfig() {
			if e.Key == extraConfigKey+"."+key {
				return true
			}
		}
	}
	return false
}

func sh004Finding(t *target, k kvConfig, e script.JSONEntry, name, best string, v connectorVocabulary) checks.Finding {
	plausible := true
	known := make([]string, len(v.keys))
	for i, key := range v.keys {
		known[i] = prose.Code(key)
	}

	var msg string
	if len(v.uses[best]) > 0 {
		msg = fmt.Sprintf("%s (line %d) is not a key any sibling passes to %s: the %d sibling recipes that configure it use %s. ",
			prose.Code(name), e.Line, prose.Code(k.Connector), v.files, prose.JoinAnd(known))
	} else {
		msg = fmt.Sprintf("%s (line %d) is not a key %s reads; it reads %s. ", prose.Code(name), e.Line, prose.Code(k.Connector), prose.Code(best))
	}
	msg += "The connector reads `kv_connector_extra_config` as a permissive dict, so an unknown key is silently ignored and the setting it was meant to carry keeps the connector's default."
	msg += fmt.Sprintf(" Did you mean %s?", prose.Code(best))

	// Evidence: where the siblings pass the key it resembles.
	show := best
	var related []checks.Location
	var refs []string
	cited := map[string]bool{}
	for _, u := range v.uses[show] {
		if cited[u.Path] || len(cited) >= maxEvidence {
			continue
		}
		cited[u.Path] = true
		related = append(related, t.sibLoc(u.Path, u.Line, 0, fmt.Sprintf("passes %s to %s", prose.Code(show), k.Connector)))
		refs = append(refs, prose.Code(ref(u.Path, u.Line, 0)))
	}

	var sug *checks.Suggestion
	if plausible {
		q := jsonQuote(k.JSON)
		sug = replaceOnce(t.Head, e.Line, q+name+q, q+best+q)
	}

	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("The %s config (line %d) passes %s in `kv_connector_extra_config`. ", prose.Code(k.Connector), k.Line, prose.Code(name))
	if len(refs) > 0 {
		w("None of the %d sibling recipes that configure %s uses that key; between them they use %s.", v.files, prose.Code(k.Connector), prose.JoinAnd(known))
		w(" %s is %s, and %s is what %s pass.", prose.Code(name), variantOf(name, best), prose.Code(best), prose.JoinAnd(refs))
	} else {
		w("%s reads %s; %s is %s.", prose.Code(k.Connector), prose.Code(best), prose.Code(name), variantOf(name, best))
	}
	w(" The comparison is per connector: a key that another connector reads says nothing about this one.\n\n")
	ex.Why()
	w("The connector takes its extra config as a dict and looks up the keys it knows, each with a default. A key it does not know raises no error and leaves no trace in the log, so the value written here is never applied")
	if plausible {
		w(", and %s keeps its default", prose.Code(best))
	}
	w(". The run completes and reports numbers for a configuration other than the one the recipe describes.\n\n")
	ex.Step()
	w("The server starts with the transfer config from line %d.\n", k.Line)
	ex.Step()
	w("The connector reads its extra config and finds no key it recognizes under %s.\n", prose.Code(name))
	ex.Step()
	if plausible {
		w("It uses its default for %s, not the value this line meant to set.\n", prose.Code(best))
	} else {
		w("The value is dropped; whatever it was meant to control keeps its default.\n")
	}
	ex.Step()
	w("Nothing fails, so the difference only shows in the results.\n\n")
	ex.Fix()
	if plausible {
		w("Rename the key to %s, as the siblings spell it — unless the connector version this recipe runs really reads %s, in which case say so in a comment.\n", prose.Code(best), prose.Code(name))
	} else {
		w("Use one of the keys the siblings pass to this connector (%s), or confirm in a comment that the connector version this recipe runs reads %s.\n", prose.JoinAnd(known), prose.Code(name))
	}

	// The finding judges the key it names and, when it proposes one, the
	// key the siblings use (whose absence convention mining would report).
	facts := []string{"json-key:" + extraConfigKey + "." + name}
	if plausible {
		facts = append(facts, "json-key:"+extraConfigKey+"."+best)
	}
	f := checks.Finding{
		Path:       t.Path,
		Line:       e.Line,
		Title:      fmt.Sprintf("Unknown %s key %s for %s", extraConfigKey, prose.Code(name), prose.Code(k.Connector)),
		Body:       msg,
		Related:    related,
		Suggestion: sug,
		Key:        k.Connector + ":" + name,
		Facts:      facts,
	}
	ex.Apply(&f)
	return f
}
