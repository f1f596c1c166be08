package recipe

// SH004: a kv_connector_extra_config key that no sibling uses for that
// connector. Connectors read their extra config as a plain dict with
// defaults, so a misspelt or invented key is not an error: it is ignored,
// and the setting it was meant to carry silently keeps its default. The
// vocabulary is learned per connector from the sibling recipes (the same
// key can be valid for one connector and meaningless for another), and
// only when at least two siblings configure that connector.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
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
		"sibling recipes pass to the same connector (at least two of them must configure it), and reports a " +
		"key none of them uses, with the closest known key. Use the key the siblings use, or confirm the " +
		"connector version you run really reads the new one.",
	Run: runSH004,
}

func init() { register(SH004) }

const extraConfigKey = "kv_connector_extra_config"

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
			if v.files < 2 || len(v.uses[name]) > 0 {
				continue
			}
			p.Report(sh004Finding(t, k, e, name, v))
		}
	}
	return nil
}

// passesExtraKey reports whether f passes key in some config of connector.
func passesExtraKey(f *Facts, connector, key string) bool {
	for _, k := range kvConfigsOf(f, connector) {
		for _, e := range k.extraConfig() {
			if e.Key == extraConfigKey+"."+key {
				return true
			}
		}
	}
	return false
}

func sh004Finding(t *target, k kvConfig, e JSONEntry, name string, v connectorVocabulary) checks.Finding {
	best, plausible := closest(name, v.keys)
	known := make([]string, len(v.keys))
	for i, key := range v.keys {
		known[i] = code(key)
	}

	msg := fmt.Sprintf("%s (line %d) is not a key any sibling passes to %s: the %d sibling recipes that configure it use %s. ",
		code(name), e.Line, code(k.Connector), v.files, joinAnd(known))
	msg += "The connector reads `kv_connector_extra_config` as a permissive dict, so an unknown key is silently ignored and the setting it was meant to carry keeps the connector's default."
	if plausible {
		msg += fmt.Sprintf(" Did you mean %s?", code(best))
	}

	// Evidence: where the siblings pass the closest key (else any key).
	show := best
	if !plausible {
		show = v.keys[0]
	}
	var related []checks.Location
	var refs []string
	cited := map[string]bool{}
	for _, u := range v.uses[show] {
		if cited[u.Path] || len(cited) >= maxEvidence {
			continue
		}
		cited[u.Path] = true
		related = append(related, t.sibLoc(u.Path, u.Line, 0, fmt.Sprintf("passes %s to %s", code(show), k.Connector)))
		refs = append(refs, code(ref(u.Path, u.Line, 0)))
	}

	var sug *checks.Suggestion
	if plausible {
		q := jsonQuote(k.JSON)
		sug = replaceOnce(t.Head, e.Line, q+name+q, q+best+q)
	}

	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("**The bug.** The %s config (line %d) passes %s in `kv_connector_extra_config`. ", code(k.Connector), k.Line, code(name))
	w("None of the %d sibling recipes that configure %s uses that key; between them they use %s.", v.files, code(k.Connector), joinAnd(known))
	if plausible {
		w(" The closest is %s, used by %s.", code(best), joinAnd(refs))
	}
	w(" The comparison is per connector: a key that another connector reads says nothing about this one.\n\n")
	w("**Why it matters.** The connector takes its extra config as a dict and looks up the keys it knows, each with a default. A key it does not know raises no error and leaves no trace in the log, so the value written here is never applied")
	if plausible {
		w(", and %s keeps its default", code(best))
	}
	w(". The run completes and reports numbers for a configuration other than the one the recipe describes.\n\n")
	w("**Step by step.**\n\n")
	w("1. The server starts with the transfer config from line %d.\n", k.Line)
	w("2. The connector reads its extra config and finds no key it recognizes under %s.\n", code(name))
	if plausible {
		w("3. It uses its default for %s, not the value this line meant to set.\n", code(best))
	} else {
		w("3. The value is dropped; whatever it was meant to control keeps its default.\n")
	}
	w("4. Nothing fails, so the difference only shows in the results.\n\n")
	w("**Fix.** ")
	if plausible {
		w("Rename the key to %s, as the siblings spell it — unless the connector version this recipe runs really reads %s, in which case say so in a comment.\n", code(best), code(name))
	} else {
		w("Use one of the keys the siblings pass to this connector (%s), or confirm in a comment that the connector version this recipe runs reads %s.\n", joinAnd(known), code(name))
	}

	// The finding judges the key it names and, when it proposes one, the
	// key the siblings use (whose absence convention mining would report).
	facts := []string{"json-key:" + extraConfigKey + "." + name}
	if plausible {
		facts = append(facts, "json-key:"+extraConfigKey+"."+best)
	}
	return checks.Finding{
		Path:       t.Path,
		Line:       e.Line,
		Title:      fmt.Sprintf("Unknown %s key %s for %s", extraConfigKey, name, k.Connector),
		Message:    msg,
		Details:    b.String(),
		Related:    related,
		Suggestion: sug,
		Key:        k.Connector + ":" + name,
		Facts:      facts,
	}
}
