package recipe

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH003 reports an out-of-tree connector without its module path.
var SH003 = &checks.Rule{
	ID:       "SH003",
	Severity: checks.Blocking,
	Title:    "Out-of-tree KV connector without kv_connector_module_path",
	Doc: "Connectors that do not ship with vLLM, such as `LMCacheMPConnector` from the lmcache package, " +
		"are only found when the `--kv-transfer-config` JSON names the module to import in " +
		"`kv_connector_module_path`; vLLM's own registry does not know them, so without the key `vllm serve` " +
		"fails while constructing the connector, on every point of the branch. This rule reports such a " +
		"connector named without the key (a connector counts as out-of-tree when it is in the known list or " +
		"when every sibling recipe that uses it sets the key), and proposes the module path the siblings use.",
	Run: runSH003,
}

// outOfTreeConnectors are connectors known to live outside vLLM, with the
// module that defines them (used when no sibling shows the value).
var outOfTreeConnectors = map[string]string{
	"LMCacheMPConnector": "lmcache.integration.vllm.lmcache_mp_connector",
}

const modulePathKey = "kv_connector_module_path"

func runSH003(p *checks.Pass) error { return eachChangedRecipe(p, sh003) }

// modulePathUse is a sibling config that sets the module path.
type modulePathUse struct {
	Path  string
	Line  int
	Value string
}

func sh003(p *checks.Pass, t *target) error {
	var todo []kvConfig
	for _, k := range kvConfigs(t.Head) {
		if k.JSON.Has(modulePathKey) || !t.touches(k.JSON.Line, max(k.JSON.EndLine, k.JSON.Line)) {
			continue
		}
		if t.Base != nil && lacksModulePath(t.Base, k) {
			continue // the same branch lacked it before this PR
		}
		todo = append(todo, k)
	}
	if len(todo) == 0 {
		return nil
	}
	sibs, err := Siblings(p.Ctx, p.Change, t.Path)
	if err != nil {
		return err
	}
	for _, k := range todo {
		var uses []modulePathUse
		without := 0
		for _, s := range sibs {
			for _, sk := range kvConfigsOf(s.Facts, k.Connector) {
				if e, ok := sk.JSON.Entry(modulePathKey); ok && !e.Dynamic && e.Value != "" {
					uses = append(uses, modulePathUse{s.Path, e.Line, e.Value})
				} else {
					without++
				}
			}
		}
		known, listed := outOfTreeConnectors[k.Connector]
		if !listed && len(uses)+without == 0 {
			p.Inconclusive(t.Path, fmt.Sprintf("line %d names %s without %s, and no sibling recipe names that connector, so whether it ships with vLLM is unknown",
				k.JSON.Line, k.Connector, modulePathKey))
		}
		switch {
		case listed && without > 0 && len(uses) == 0:
			continue // the siblings use it without the key: the list may be out of date
		case !listed && (len(uses) < 2 || without > 0):
			continue
		}
		value := mostCommonValue(uses)
		if value == "" {
			value = known
		}
		p.Report(sh003Finding(t, k, value, uses, listed))
	}
	return nil
}

// lacksModulePath reports whether f has a config for the same connector on
// the same branch without the module path.
func lacksModulePath(f *script.Facts, k kvConfig) bool {
	for _, b := range kvConfigsOf(f, k.Connector) {
		if !b.JSON.Has(modulePathKey) && b.JSON.Branch.String() == k.JSON.Branch.String() {
			return true
		}
	}
	return false
}

func mostCommonValue(uses []modulePathUse) string {
	count := map[string]int{}
	best := ""
	for _, u := range uses {
		count[u.Value]++
		if best == "" || count[u.Value] > count[best] {
			best = u.Value
		}
	}
	return best
}

// withModulePath returns line s with the module path inserted after the
// connector name, in the line's own quoting and spacing; ok is false when
// the line does not hold the whole `"kv_connector": "<name>"` member once.
func withModulePath(s string, j *script.JSONConfig, connector, value string) (string, bool) {
	q := jsonQuote(j)
	vs, ve, ok := jsonMember(s, q, "kv_connector")
	if !ok || s[vs:ve] != q+connector+q {
		return "", false
	}
	colon := ":"
	sep := ","
	if k := strings.Index(s, q+"kv_connector"+q); k >= 0 && strings.Contains(s[k:vs], " ") {
		colon, sep = ": ", ", "
	}
	ins := sep + q + modulePathKey + q + colon + q + value + q
	return s[:ve] + ins + s[ve:], true
}

func sh003Finding(t *target, k kvConfig, value string, uses []modulePathUse, listed bool) checks.Finding {
	head := t.Head
	branch := branchName(k.JSON.Branch)
	line := k.Line

	var related []checks.Location
	var refs []string
	files := map[string]bool{}
	for _, u := range uses {
		files[u.Path] = true
	}
	cited := map[string]bool{}
	for _, u := range uses {
		if cited[u.Path] || len(cited) >= maxEvidence {
			continue
		}
		cited[u.Path] = true
		related = append(related, t.sibLoc(u.Path, u.Line, 0, fmt.Sprintf("%s with %s", k.Connector, prose.Code(`"`+modulePathKey+`":"`+u.Value+`"`))))
		refs = append(refs, prose.Code(ref(u.Path, u.Line, 0)))
	}

	pkg := value
	if i := strings.IndexByte(pkg, '.'); i > 0 {
		pkg = pkg[:i]
	}
	member := `"` + modulePathKey + `":"` + value + `"`
	msg := fmt.Sprintf("%s names %s in its `--kv-transfer-config` (line %d) without `%s`. ", capitalize(branch), prose.Code(k.Connector), line, modulePathKey)
	if listed {
		msg += fmt.Sprintf("The connector ships with the %s package, not with vLLM, so vLLM cannot find the class and `vllm serve` fails while building the connector — on every point of this branch. ", prose.Code(pkg))
	} else {
		msg += "Every sibling that uses this connector sets the key, which is how vLLM imports a connector that is not in its built-in registry; without it `vllm serve` fails while building the connector. "
	}
	switch len(files) {
	case 0:
		msg += fmt.Sprintf("Add %s after the connector name.", prose.Code(member))
	case 1:
		msg += fmt.Sprintf("The sibling that uses it sets %s (%s); add it after the connector name.", prose.Code(member), prose.JoinAnd(refs))
	case 2:
		msg += fmt.Sprintf("Both siblings that use it set %s (%s); add it after the connector name.", prose.Code(member), prose.JoinAnd(refs))
	default:
		msg += fmt.Sprintf("All %d siblings that use it set %s (%s); add it after the connector name.", len(files), prose.Code(member), prose.JoinAnd(refs))
	}

	var sug *checks.Suggestion
	if k.JSON.EndLine <= k.JSON.Line {
		if fixed, ok := withModulePath(head.LineText(k.Line), k.JSON, k.Connector, value); ok {
			sug = &checks.Suggestion{Line: k.Line, EndLine: k.Line, Replacement: fixed}
		}
	}

	arm := k.JSON.Branch.String()
	if c, ok := caseArm(k.JSON.Branch); ok {
		arm = strings.Join(c.Patterns, "|")
	}
	f := checks.Finding{
		Path:       t.Path,
		Line:       line,
		Title:      k.Connector + " without " + modulePathKey,
		Body:       msg,
		Related:    related,
		Suggestion: sug,
		Key:        arm + ":" + k.Connector + ":" + modulePathKey,
		Facts:      []string{"json-key:" + modulePathKey, "json:" + modulePathKey + "=" + value},
	}
	sh003Explain(k, value, pkg, listed, len(files), sug != nil).Apply(&f)
	return f
}

// sh003Explain walks a point of the branch into the failed connector
// lookup. files is how many siblings set the key; suggested says the
// finding carries the one-line fix (else the fix shows the JSON).
func sh003Explain(k kvConfig, value, pkg string, listed bool, files int, suggested bool) *checks.Explain {
	branch := branchName(k.JSON.Branch)
	member := `"` + modulePathKey + `":"` + value + `"`
	e := &checks.Explain{}
	w := e.Printf
	e.Problem()
	w("%s sets %s but no `%s`.\n\n", capitalize(branch), prose.Code(`"kv_connector": "`+k.Connector+`"`), modulePathKey)
	e.Why()
	w("vLLM resolves the connector named in the transfer config through its built-in connector registry, unless `%s` names a module to import first. ", modulePathKey)
	if listed {
		w("%s is not in that registry: it is defined in %s, which the %s package provides. ", prose.Code(k.Connector), prose.Code(value), prose.Code(pkg))
	} else {
		w("Every sibling recipe that uses %s passes the key, so the connector is evidently not one vLLM knows by name. ", prose.Code(k.Connector))
	}
	w("Without the key the lookup fails and the server exits during start-up, before it serves a single request.\n\n")
	if files > 0 {
		who, verb := "The sibling recipe that uses", "sets"
		switch n := files; {
		case n == 2:
			who, verb = "Both sibling recipes that use", "set"
		case n > 2:
			who, verb = fmt.Sprintf("All %d sibling recipes that use", n), "set"
		}
		e.Evidence()
		w("%s %s %s the key to %s.", who, prose.Code(k.Connector), verb, prose.Code(value))
	}
	e.Note("Why nothing else catches it")
	w("`bash -n`, the sweep-config generator and the matrix tests do not look inside the JSON, and importing the module in the launcher (a `python3 -c \"import ...\"` check) does not tell vLLM where the class is.\n\n")
	e.Step()
	w("%s", enterStep(k.JSON.Branch))
	e.Step()
	w("The transfer config names %s (line %d) and no module path.\n", prose.Code(k.Connector), k.Line)
	e.Step()
	w("`vllm serve` parses the config, finds no `%s`, and looks the name up in its own registry.\n", modulePathKey)
	e.Step()
	w("The name is not there, so building the KV connector raises and the server exits; every concurrency point of the branch fails at start-up.\n\n")
	e.Fix()
	w("Add `%s` right after the connector name, as the siblings do", member)
	if !suggested {
		w(":\n\n```json\n\"kv_connector\": \"%s\",\n\"%s\": \"%s\",\n```\n", k.Connector, modulePathKey, value)
	} else {
		w(".\n")
	}

	return e
}
