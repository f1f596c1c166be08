package recipe

// The rule needs the repository's own written warning: how the connector
// behaves in eager mode is not something a static check can know.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH005 reports eager SimpleCPU offload against the repository's own
// warning.
var SH005 = &checks.Rule{
	ID:       "SH005",
	Severity: checks.Blocking,
	Title:    "lazy_offload false with SimpleCPUOffloadConnector",
	Doc: "A sibling recipe documents that `SimpleCPUOffloadConnector` in eager mode (`lazy_offload: false`) " +
		"crashes with an assertion at the low and mid concurrencies agentic sweeps run, which is why the " +
		"siblings pass `\"lazy_offload\": true` in the JSON form of the transfer config. This rule reports a " +
		"change that sets `lazy_offload` to false for that connector while such a comment exists and covers " +
		"the recipe's model (a comment that names the models it was seen on applies to those models only), " +
		"cites the comment, and proposes `true`. When siblings of the same model run eager mode themselves, " +
		"the comment may be stale and the finding is a warning.",
	Run: runSH005,
}

const lazyKey = extraConfigKey + ".lazy_offload"

// eagerWarningTerms are the phrases of a comment that documents the eager
// mode failure: one of the first group and one of the second.
var eagerWarningTerms = [][]string{
	{"lazy_offload", "lazy offload", "eager"},
	{"popleft", "assert"},
}

func runSH005(p *checks.Pass) error { return eachChangedRecipe(p, sh005) }

// eagerOff reports whether the config turns lazy offload off, and where.
func eagerOff(k kvConfig) (script.JSONEntry, bool) {
	e, ok := k.JSON.Entry(lazyKey)
	return e, ok && !e.Dynamic && e.Kind == script.JSONBool && e.Value == "false"
}

// warningComment is a comment that documents the eager-mode failure.
type warningComment struct {
	Path    string
	Head    bool
	Comment script.Comment
}

func sh005(p *checks.Pass, t *target) error {
	var todo []kvConfig
	for _, k := range kvConfigsOf(t.Head, simpleConnector) {
		e, off := eagerOff(k)
		if !off || !t.added(e.Line) {
			continue
		}
		if t.Base != nil && baseEager(t.Base, k) {
			continue
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
	model := modelPrefix(t.Path)
	warnings := eagerWarnings(t, sibs, model)
	if len(warnings) == 0 {
		return nil // nothing in the repository says eager mode fails here
	}
	lazy, eager := lazyOffloadUses(sibs, model)
	for _, k := range todo {
		p.Report(sh005Finding(t, k, warnings[0], lazy, eager))
	}
	return nil
}

// eagerWarnings returns the comments that document the eager-mode failure
// for the recipe's model. The first sibling comment (in path order) whose
// scope covers this recipe is the one cited; this file's own untouched
// comment counts when no sibling has one. A comment that names the models
// it was seen on ("on DSv4 + SimpleCPUOffloadConnector") documents those
// models only.
func eagerWarnings(t *target, sibs []*Sibling, model string) []warningComment {
	var warnings []warningComment
	for _, s := range sibs {
		for _, c := range commentBlocksWith(s.Facts, eagerWarningTerms...) {
			if commentCovers(c.Text, model, sibs) {
				warnings = append(warnings, warningComment{s.Path, false, c})
				break
			}
		}
		if len(warnings) > 0 {
			break
		}
	}
	for _, c := range commentBlocksWith(t.Head, eagerWarningTerms...) {
		if !t.touches(c.Line, c.EndLine) && commentCovers(c.Text, model, sibs) {
			warnings = append(warnings, warningComment{t.Path, true, c})
		}
	}
	return warnings
}

// lazyUse is where a sibling sets lazy_offload.
type lazyUse struct {
	path string
	line int
}

// lazyOffloadUses is what the siblings really do: the ones that pass true
// back the fix; siblings of the same model that run eager mode contradict
// the comment, which may be stale.
func lazyOffloadUses(sibs []*Sibling, model string) (lazy, eager []lazyUse) {
	for _, s := range sibs {
		for _, k := range kvConfigsOf(s.Facts, simpleConnector) {
			e, ok := k.JSON.Entry(lazyKey)
			if !ok || e.Dynamic || e.Kind != script.JSONBool {
				continue
			}
			if e.Value == "true" {
				lazy = append(lazy, lazyUse{s.Path, e.Line})
			} else if modelPrefix(s.Path) == model {
				eager = append(eager, lazyUse{s.Path, e.Line})
			}
			break
		}
	}
	return lazy, eager
}

// sh005Finding reports k's `lazy_offload: false` against the warning w0.
func sh005Finding(t *target, k kvConfig, w0 warningComment, lazy, eager []lazyUse) checks.Finding {
	e, _ := eagerOff(k)
	var related []checks.Location
	if w0.Head {
		related = append(related, headLoc(w0.Path, w0.Comment.Line, w0.Comment.EndLine, "documents the eager-mode failure"))
	} else {
		related = append(related, t.sibLoc(w0.Path, w0.Comment.Line, w0.Comment.EndLine, "documents the eager-mode failure"))
	}
	var refs []string
	for _, u := range lazy {
		if len(refs) >= maxEvidence {
			break
		}
		related = append(related, t.sibLoc(u.path, u.line, 0, "passes lazy_offload: true to "+simpleConnector))
		refs = append(refs, prose.Code(ref(u.path, u.line, 0)))
	}

	where := prose.Code(ref(w0.Path, w0.Comment.Line, w0.Comment.EndLine))
	if w0.Head {
		where = "this file's comment at lines " + fmt.Sprintf("%d-%d", w0.Comment.Line, w0.Comment.EndLine)
	}
	var eagerRefs []string
	for _, u := range eager {
		if len(eagerRefs) >= maxEvidence {
			break
		}
		related = append(related, t.sibLoc(u.path, u.line, 0, "same model, runs "+simpleConnector+" with lazy_offload: false"))
		eagerRefs = append(eagerRefs, prose.Code(ref(u.path, u.line, 0)))
	}
	msg := fmt.Sprintf("%s (line %d) runs %s in eager mode, which %s documents as failing: %s",
		prose.Code(`"lazy_offload": false`), e.Line, prose.Code(simpleConnector), where, quoteSentence(w0.Comment.Text))
	switch {
	case len(lazy) > 0 && len(eager) == 0:
		msg += fmt.Sprintf(" The siblings that set it pass `lazy_offload: true` (%s).", prose.JoinAnd(refs))
	case len(eager) > 0:
		msg += fmt.Sprintf(" But %s, for the same model, %s eager mode too, so the comment may be out of date: check which is current before changing either.",
			prose.JoinAnd(eagerRefs), prose.Pick(len(eager), "runs", "run"))
	}
	if len(eager) == 0 {
		msg += " Set it to `true`."
	}

	var sug *checks.Suggestion
	line := t.Head.LineText(e.Line)
	if vs, ve, ok := jsonMember(line, jsonQuote(k.JSON), "lazy_offload"); ok && line[vs:ve] == "false" {
		sug = &checks.Suggestion{Line: e.Line, EndLine: e.Line, Replacement: line[:vs] + "true" + line[ve:]}
	}

	f := checks.Finding{
		Path:       t.Path,
		Line:       e.Line,
		Title:      "lazy_offload false with " + simpleConnector,
		Body:       msg,
		Related:    related,
		Suggestion: sug,
		Key:        simpleConnector + ":lazy_offload=false",
		Facts:      []string{"json-key:" + lazyKey, "json:" + lazyKey + "=true", "json:" + lazyKey + "=false"},
	}
	if len(eager) > 0 {
		// The repository's own recipes contradict the comment: worth
		// a look, not a block.
		f.Severity = checks.Warning
		f.Suggestion = nil
	}
	sh005Explain(k, e, w0, len(lazy), len(eager)).Apply(&f)
	return f
}

// sh005Explain walks a point of the branch into the documented assertion.
func sh005Explain(k kvConfig, e script.JSONEntry, w0 warningComment, lazy, eager int) *checks.Explain {
	ex := &checks.Explain{}
	wr := ex.Printf
	ex.Problem()
	wr("The %s config (line %d) sets `lazy_offload` to false, so the connector offloads eagerly. ", prose.Code(simpleConnector), k.Line)
	wr("The repository has already written down what that does, in %s:\n\n", prose.Code(ref(w0.Path, w0.Comment.Line, w0.Comment.EndLine)))
	for _, l := range strings.Split(w0.Comment.Text, "\n") {
		wr("> %s\n", l)
	}
	wr("\n")
	switch {
	case lazy > 0 && eager == 0:
		ex.Evidence()
		wr("The sibling recipes that set `lazy_offload` for %s pass `\"lazy_offload\": true`; that is why they use the JSON form instead of the `--kv_offloading_backend` shortcut, which cannot pass the flag.", prose.Code(simpleConnector))
	case eager > 0:
		ex.Evidence()
		wr("The repository disagrees with itself: %s for the same model %s `\"lazy_offload\": false`. Either the failure is fixed in the image those recipes use and the comment is stale, or they share this problem.", prose.Count(eager, "sibling recipe", "sibling recipes"), prose.Pick(eager, "sets", "set"))
	}
	ex.Why()
	wr("The assertion takes the server process down: the points of this branch that hit it fail instead of producing a measurement, and the sweep comes back partial or empty. Nothing before the run checks the value.\n\n")
	ex.Step()
	wr("%s", enterStep(k.JSON.Branch))
	ex.Step()
	wr("The server starts with %s and `lazy_offload: false` (line %d).\n", prose.Code(simpleConnector), e.Line)
	ex.Step()
	wr("Under load, the eager path hits the assertion the comment describes, and the server process exits.\n")
	ex.Step()
	wr("The benchmark client loses its server; the point fails instead of producing a measurement.\n\n")
	ex.Fix()
	if lazy > 0 && eager == 0 {
		wr("Set `\"lazy_offload\": true`, as the siblings that set it do.\n")
	} else {
		wr("Set `\"lazy_offload\": true`, or, if eager mode works with this image, say so in a comment and update the one cited.\n")
	}
	return ex
}

// commentCovers reports whether a comment about the eager-mode failure
// applies to a recipe of model prefix model: it names no model of the
// directory (a general statement), or it names this one.
func commentCovers(text, model string, sibs []*Sibling) bool {
	named := modelsNamed(text, sibs, model)
	return len(named) == 0 || slices.Contains(named, model)
}

// modelsNamed returns the model prefixes of the directory (the siblings'
// and the recipe's own) that a comment mentions, by prefix ("dsv4",
// "kimik2.5") or by the spelled-out name the prefix abbreviates
// ("DeepSeek-V4" for dsv4, "Kimi-K2.5" for kimik2.5).
func modelsNamed(text string, sibs []*Sibling, own string) []string {
	norm := normModelText(text)
	prefixes := []string{own}
	for _, s := range sibs {
		if p := modelPrefix(s.Path); !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	var out []string
	for _, p := range prefixes {
		for _, alias := range modelAliases(p) {
			if alias != "" && containsWord(norm, alias) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// normModelText lowercases text and drops the separators model names are
// written with ("DeepSeek-V4", "Kimi K2.5", "glm_5.2"), keeping word breaks.
func normModelText(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	prevSpace := true
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.':
			b.WriteRune(r)
			prevSpace = false
		case r == '-' || r == '_':
			// joined: "deepseek-v4" reads as "deepseekv4"
		default:
			if !prevSpace {
				b.WriteByte(' ')
				prevSpace = true
			}
		}
	}
	b.WriteByte(' ')
	return b.String()
}

// containsWord reports whether norm (from normModelText) holds w as the
// start of a word ("dsv4" in "dsv4 + simple", "dsv4pro"), so that "dsv4"
// is not found inside "dsv41flash" only by accident of its digits.
func containsWord(norm, w string) bool {
	for i := 0; ; {
		j := strings.Index(norm[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if norm[j-1] == ' ' && (end >= len(norm) || !(norm[end] >= '0' && norm[end] <= '9')) {
			return true
		}
		i = j + 1
	}
}

// modelAliases are the spellings of a model prefix in prose: the prefix,
// without its dots, and with the vendor abbreviation spelled out (ds →
// deepseek).
func modelAliases(prefix string) []string {
	p := strings.ToLower(prefix)
	out := []string{p, strings.ReplaceAll(p, ".", "")}
	if rest, ok := strings.CutPrefix(p, "ds"); ok {
		out = append(out, "deepseek"+rest)
	}
	return out
}

// baseEager reports whether the base version already ran the same branch's
// config with lazy offload off.
func baseEager(f *script.Facts, k kvConfig) bool {
	for _, b := range kvConfigsOf(f, simpleConnector) {
		if _, off := eagerOff(b); off && b.JSON.Branch.String() == k.JSON.Branch.String() {
			return true
		}
	}
	return false
}

// quoteSentence quotes the sentence of a comment that names the failure
// (the first one mentioning an assertion or popleft), or the whole comment
// when it has no such sentence.
func quoteSentence(text string) string {
	flat := strings.Join(strings.Fields(text), " ")
	sentences := splitSentences(flat)
	for _, s := range sentences {
		l := strings.ToLower(s)
		if strings.Contains(l, "assert") || strings.Contains(l, "popleft") {
			return "“" + strings.TrimSpace(s) + "”"
		}
	}
	return "“" + flat + "”"
}

// splitSentences splits prose after ". ", keeping the periods.
func splitSentences(s string) []string {
	var out []string
	for {
		i := strings.Index(s, ". ")
		if i < 0 {
			if strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
			return out
		}
		out = append(out, s[:i+1])
		s = s[i+2:]
	}
}
