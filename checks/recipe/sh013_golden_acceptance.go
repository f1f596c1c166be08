package recipe

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH013 reports agentic speculative decoding without simulated acceptance, or
// with an acceptance length off the golden curve.
var SH013 = &checks.Rule{
	ID:       "SH013",
	Severity: checks.Blocking,
	Title:    "Agentic speculative decoding not pinned to the golden acceptance length",
	Doc: "Agentic-coding results are published with speculative decoding on, and stay comparable only " +
		"because throughput runs do not verify drafts: every engine accepts drafts at the committed " +
		"golden acceptance length (AL) for the model, thinking mode and draft length, from " +
		"`golden_al_distribution/*.yaml`. vLLM: `--speculative-config` with `\"rejection_sample_method\": " +
		"\"synthetic\"` and `\"synthetic_acceptance_length\": <AL>`; SGLang: `export " +
		"SGLANG_SIMULATE_ACC_LEN=<AL>`; TRT-LLM: `export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=<AL - 1, " +
		"rounded>`. This rule reports an agentic recipe whose speculative decoding, as the PR adds or " +
		"changes it, has no simulated acceptance, or pins an AL that is not the golden value (it cites " +
		"the golden file's line). A recipe for a model that has no golden curve at all, which pins an AL, is " +
		"reported too: 🔴 when the value is a point of another model's curve (the finding names it), 🟡 when it " +
		"matches no committed curve (it may be a measurement not yet committed). The speculative config is followed through variables, including a default " +
		"a caller may override (`SPEC=\"${SPEC:-$DEFAULT_SPEC}\"`).",
	Run: runSH013,
}

func runSH013(p *checks.Pass) error {
	recipes, err := changedRecipes(p)
	if err != nil {
		return err
	}
	var golden []*GoldenAL
	loaded := false
	for _, t := range recipes {
		if !script.IsAgentic(t.Path) {
			continue
		}
		if !loaded {
			if golden, err = GoldenALFiles(p.Ctx, p.Change); err != nil {
				return err
			}
			loaded = true
		}
		j := &alJudge{p: p, t: t, golden: golden}
		switch t.Head.Engine {
		case script.VLLM:
			err = j.vllm()
		case script.SGLang:
			err = j.sglang()
		case script.TRTLLM:
			err = j.trt()
		}
		if err == nil {
			err = j.err
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// alJudge judges one recipe, only the speculative settings the PR adds or
// changes. A value held in a variable is resolved through its literal
// assignment; when it cannot be, the rule stays silent.
type alJudge struct {
	p      *checks.Pass
	t      *target
	golden []*GoldenAL
	sibs   []*Sibling
	loaded bool
	// anyVariant is set while judging settings whose variant could not be
	// resolved (see hits): the finding then says every variant was
	// accepted.
	anyVariant bool
	// err is the first failure to read evidence.
	err error
}

// alHit is one golden value that applies to the recipe.
type alHit struct {
	g     *GoldenAL
	model string
	mode  string
	pt    GoldenPoint
}

func (h alHit) cite() string {
	return fmt.Sprintf("%s:%d", h.g.Path, h.pt.Line)
}

func (h alHit) describe() string {
	return fmt.Sprintf("%s, %s, %d draft %s", h.model, h.mode, h.pt.Draft, prose.Pick(h.pt.Draft, "token", "tokens"))
}

func (h alHit) loc() checks.Location {
	return baseLoc(h.g.Path, h.pt.Line, 0, fmt.Sprintf("golden AL %s for %s", h.pt.Text, h.describe()))
}

// thinkingModes returns the thinking modes a recipe runs with, from the
// chat-template kwargs in its JSON; thinking on when it sets none. Every
// real curve file has thinking_on and only some have thinking_off: the
// agentic traces are replayed with thinking enabled. A recipe that sets both
// modes (on different paths) may match either curve.
func thinkingModes(f *script.Facts) (on, off bool) {
	for _, j := range f.JSON {
		for _, e := range j.Entries {
			k := strings.ToLower(e.Key[strings.LastIndexAny(e.Key, ".]")+1:])
			v := strings.ToLower(e.Value)
			switch k {
			case "thinking", "enable_thinking":
				switch v {
				case "true":
					on = true
				case "false":
					off = true
				}
			case "thinking_mode":
				switch v {
				case "enabled", "on", "true":
					on = true
				case "disabled", "off", "false":
					off = true
				}
			}
		}
	}
	if !on && !off {
		on = true
	}
	return on, off
}

// hits returns the golden values that apply for a draft method, the words
// of the speculative settings and a draft length: the files SelectGolden
// picks by the recipe's model prefix (the first segment of its file name),
// its method (vLLM "method", SGLang --speculative-algorithm, TRT
// decoding_type, mapped through methodFamilies) and the words (variant files
// such as *_gqa.yaml); the curves of the thinking modes the recipe runs
// with; the points at the draft length (vLLM num_speculative_tokens, SGLang
// --speculative-num-steps or --speculative-num-draft-tokens - 1, TRT
// num_nextn_predict_layers / max_draft_len). A value matching any hit is
// accepted, since several files or curves may apply. When some of those
// settings could not be resolved (the draft model is "$DRAFT_MODEL" and
// the variable has no single literal value), the words cannot pick a
// variant file (minimaxm3_eagle3.yaml vs minimaxm3_eagle3_gqa.yaml), so
// every file of the model and method applies and a value matching any of
// them is accepted.
func (j *alJudge) hits(method string, words []string, draft int, unresolved bool) []alHit {
	var files []*GoldenAL
	j.anyVariant = unresolved
	if unresolved {
		files = SelectGoldenAny(j.golden, modelPrefix(j.t.Path), method)
	} else {
		files = SelectGolden(j.golden, modelPrefix(j.t.Path), method, append(words, path.Base(j.t.Path)))
	}
	return j.pointsAt(files, draft)
}

// pointsAt returns the points of files' curves at a draft length, for the
// thinking modes the recipe runs with.
func (j *alJudge) pointsAt(files []*GoldenAL, draft int) []alHit {
	on, off := thinkingModes(j.t.Head)
	var out []alHit
	for _, g := range files {
		for _, m := range g.Models {
			for _, c := range m.Curves {
				th, ok := c.Thinking()
				if !ok || (th && !on) || (!th && !off) {
					continue
				}
				if pt, ok := c.At(draft); ok {
					out = append(out, alHit{g: g, model: m.Name, mode: c.Mode, pt: pt})
				}
			}
		}
	}
	return out
}

// expected renders the acceptable values for a message: "2.39
// (golden_al_distribution/kimik3_dspark.yaml:12: kimi-k3, thinking_on, 2
// draft tokens)", joined with "or".
// alMatches reports whether v is the golden AL of one of the candidate
// curves (two decimals, as the curves are written).
func alMatches(hs []alHit, v float64) bool {
	return slices.ContainsFunc(hs, func(h alHit) bool { return math.Abs(v-h.pt.AL) < 0.005 })
}

func expected(hs []alHit, value func(alHit) string) string {
	var parts []string
	seen := map[string]bool{}
	for _, h := range hs {
		// A value may carry a note after "; " (TRT-LLM's arithmetic).
		v, note, _ := strings.Cut(value(h), "; ")
		if note != "" {
			note = ", " + note
		}
		s := fmt.Sprintf("%s (%s: %s%s)", v, h.cite(), h.describe(), note)
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " or ")
}

// uniqueValue returns the one value all hits agree on.
func uniqueValue(hs []alHit, value func(alHit) string) (string, bool) {
	if len(hs) == 0 {
		return "", false
	}
	v := value(hs[0])
	for _, h := range hs[1:] {
		if value(h) != v {
			return "", false
		}
	}
	return v, true
}

func alText(h alHit) string { return h.pt.Text }

// trtTokens is the TRT-LLM knob for a golden AL: AL - 1 rounded to the
// nearest integer (both neighbours at an exact half).
func trtTokens(al float64) []int {
	x := al - 1
	lo := int(math.Floor(x + 1e-9))
	if math.Abs(x-float64(lo)-0.5) < 1e-9 {
		return []int{lo, lo + 1}
	}
	return []int{int(math.Round(x))}
}

// trtPlain is the knob's value for a golden AL ("1 or 2" at a tie).
func trtPlain(h alHit) string {
	ts := trtTokens(h.pt.AL)
	if len(ts) == 2 {
		return fmt.Sprintf("%d or %d", ts[0], ts[1])
	}
	return strconv.Itoa(ts[0])
}

// trtText is trtPlain with the arithmetic shown.
func trtText(h alHit) string {
	return fmt.Sprintf("%s; golden AL %s minus the bonus token, rounded", trtPlain(h), h.pt.Text)
}

// evalOnly reports whether a path only runs for eval-only jobs, which
// verify drafts for real on purpose.
func evalOnly(p script.Branch) bool {
	for _, c := range p {
		if c.Var == "EVAL_ONLY" && c.Op == "=" && strings.EqualFold(c.Value, "true") && !c.Negated {
			return true
		}
	}
	return false
}

// siblings returns the recipe's siblings for evidence. A failure to read
// them is kept in j.err, which the rule returns once the recipe is judged:
// the evidence list is then short, and the review says why.
func (j *alJudge) siblings() []*Sibling {
	if !j.loaded {
		j.loaded = true
		sibs, err := Siblings(j.p.Ctx, j.p.Change, j.t.Path)
		if err != nil && j.err == nil {
			j.err = fmt.Errorf("siblings of %s: %w", j.t.Path, err)
		}
		j.sibs = sibs
	}
	return j.sibs
}

// draftInt parses a draft length.
func draftInt(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n > 0
}

const sh013Why = "Agentic-coding results are published with speculative decoding on. " +
	"To keep them comparable across submissions, throughput runs do not verify drafts against the target model: " +
	"each engine is told to accept drafts at the committed golden acceptance length (AL) for the model, thinking " +
	"mode and draft length. Real verification on replayed traces, or a different AL, changes tokens per step and " +
	"with it every throughput and latency number of the run, silently: nothing fails, and the point is published " +
	"next to recipes that use the golden value."

// ---- vLLM -----------------------------------------------------------

func (j *alJudge) vllm() error {
	f := j.t.Head
	seen := map[*script.JSONConfig]bool{}
	for _, srv := range serversOf(f, script.VLLM) {
		for _, fl := range srv.FlagsNamed("--speculative-config") {
			js := fl.JSON
			if js == nil || !js.Parsed || seen[js] || evalOnly(fl.Branch) {
				continue
			}
			seen[js] = true
			j.vllmConfig(fl, js)
		}
	}
	return nil
}

// jsonValue resolves a JSON entry's value, through a variable when it is
// an expansion; from is the variable's line (0 for a literal).
func (j *alJudge) jsonValue(js *script.JSONConfig, key string) (val string, line, from int, ok bool) {
	e, has := js.Entry(key)
	if !has {
		return "", 0, 0, false
	}
	v, from, ok := resolveValue(j.t.Head, e.Value, !e.Dynamic, js.Line, js.Branch)
	return v, e.Line, from, ok
}

func (j *alJudge) vllmConfig(fl script.Flag, js *script.JSONConfig) {
	t := j.t
	changed := t.isNew() || t.added(fl.Line) || t.touches(js.Line, max(js.EndLine, js.Line))
	method, _, _, _ := j.jsonValue(js, "method")
	draftS, _, draftFrom, draftOK := j.jsonValue(js, "num_speculative_tokens")
	draft, _ := draftInt(draftS)
	if draftFrom > 0 && t.added(draftFrom) {
		changed = true
	}
	// The string values name the variant (the draft model's name says
	// "GQA"); one held in a variable is resolved through it.
	var words []string
	unresolved := false
	for _, e := range js.Entries {
		if e.Kind != script.JSONString {
			continue
		}
		if !e.Dynamic {
			words = append(words, e.Value)
			continue
		}
		if v, _, ok := resolveValue(j.t.Head, e.Value, false, js.Line, js.Branch); ok {
			words = append(words, v)
		} else {
			unresolved = true
		}
	}
	_, hasRSM := js.Entry("rejection_sample_method")
	rsm, _, rsmFrom, rsmOK := j.jsonValue(js, "rejection_sample_method")
	salEntry, hasSAL := js.Entry("synthetic_acceptance_length")
	sal, salLine, salFrom, salOK := j.jsonValue(js, "synthetic_acceptance_length")
	for _, l := range []int{rsmFrom, salFrom} {
		if l > 0 && t.added(l) {
			changed = true
		}
	}
	if !changed {
		return
	}
	var hs []alHit
	if draftOK && draft > 0 {
		hs = j.hits(method, words, draft, unresolved)
	}
	if hasRSM && !rsmOK {
		return // the method comes from somewhere we cannot see
	}
	if !hasRSM || rsm != "synthetic" || !hasSAL {
		j.report(j.vllmMissing(fl, js, method, hasRSM, rsm, hasSAL, hs))
		return
	}
	if !salOK {
		return
	}
	v, ok := parseNumber(sal)
	if !ok {
		return
	}
	if len(hs) == 0 {
		if draftOK && draft > 0 {
			line := salLine
			if salFrom > 0 {
				line = salFrom
			}
			j.noCurve(line, "`synthetic_acceptance_length`", sal, v, method, draft, "json:synthetic_acceptance_length="+sal)
		}
		return
	}
	if alMatches(hs, v) {
		return
	}
	line := salLine
	if salFrom > 0 {
		line = salFrom
	}
	what := fmt.Sprintf("The `synthetic_acceptance_length` of the `--speculative-config` (line %d)", line)
	if salFrom > 0 {
		what = fmt.Sprintf("%s (line %d), the `synthetic_acceptance_length` of the `--speculative-config` built on line %d,", prose.Code(varRefName(salEntry.Value)), salFrom, js.Line)
	}
	j.report(j.wrongAL(line, what, sal, hs, alText, alText, "json:synthetic_acceptance_length="+sal, method, draft))
}

func (j *alJudge) vllmMissing(fl script.Flag, js *script.JSONConfig, method string, hasRSM bool, rsm string, hasSAL bool, hs []alHit) checks.Finding {
	var lacks []string
	switch {
	case !hasRSM:
		lacks = append(lacks, "`\"rejection_sample_method\": \"synthetic\"`")
	case rsm != "synthetic":
		lacks = append(lacks, fmt.Sprintf("`\"rejection_sample_method\": \"synthetic\"` (it sets %q)", rsm))
	}
	if !hasSAL {
		lacks = append(lacks, "`\"synthetic_acceptance_length\"`")
	}
	where := fmt.Sprintf("The `--speculative-config` on line %d", fl.Line)
	if js.Var != "" {
		where = fmt.Sprintf("The `--speculative-config` (%s, line %d)", prose.Code(js.Var), js.Line)
	}
	desc := "speculative decoding"
	if method != "" {
		desc = prose.Code(method) + " speculative decoding"
	}
	msg := fmt.Sprintf("%s turns on %s in an agentic recipe without simulated acceptance: it lacks %s, so the engine verifies drafts for real instead of accepting them at the golden acceptance length.",
		where, desc, prose.JoinAnd(lacks))
	fix := "Add `\"rejection_sample_method\": \"synthetic\"` and `\"synthetic_acceptance_length\": <golden AL>` from the model's curve in `golden_al_distribution/`."
	if v, ok := uniqueValue(hs, alText); ok {
		fix = fmt.Sprintf("Add `\"rejection_sample_method\": \"synthetic\", \"synthetic_acceptance_length\": %s`, the golden AL (%s: %s).", v, hs[0].cite(), hs[0].describe())
	} else if len(hs) > 0 {
		fix = "Add `\"rejection_sample_method\": \"synthetic\"` and `\"synthetic_acceptance_length\"` set to the golden AL: " + expected(hs, alText) + "."
	}
	msg += " " + fix
	var related []checks.Location
	for _, h := range hs {
		related = append(related, h.loc())
	}
	for _, sib := range j.siblings() {
		if len(related) >= maxEvidence {
			break
		}
		for _, c := range sib.Facts.JSON {
			if v, line, ok := c.Get("rejection_sample_method"); ok && v == "synthetic" && c.Has("synthetic_acceptance_length") {
				related = append(related, sib.Loc(line, 0, "sibling pins synthetic acceptance"))
				break
			}
		}
	}
	ex := &checks.Explain{}
	ex.Problem().Printf("%s lacks %s.", where, prose.JoinAnd(lacks))
	ex.Why().Printf("%s", sh013Why)
	ex.Step().Printf("The agentic trace replay drives the server with speculative decoding on.")
	ex.Step().Printf("Without `\"rejection_sample_method\": \"synthetic\"`, vLLM verifies every draft against the target model; without `\"synthetic_acceptance_length\"` it has no AL to simulate.")
	ex.Step().Printf("Tokens accepted per step then depend on the replayed traffic instead of the golden curve.")
	ex.Step().Printf("The published throughput is not comparable with the other agentic spec-decode points, which all pin the golden AL.")
	ex.Fix().Printf("%s", fix)
	f := checks.Finding{
		Path:    j.t.Path,
		Line:    js.Line,
		Title:   "Agentic speculative decoding without simulated acceptance",
		Body:    msg,
		Related: related,
		Key:     "spec-no-synthetic:vllm:" + method,
		Facts:   []string{"json-key:rejection_sample_method", "json-key:synthetic_acceptance_length"},
	}
	if v, ok := uniqueValue(hs, alText); ok && !hasRSM && !hasSAL {
		f.Suggestion = addSyntheticKeys(j.t.Head, js, v)
	}
	ex.Apply(&f)
	return f
}

// addSyntheticKeys suggests appending the two keys to a one-line JSON.
func addSyntheticKeys(f *script.Facts, js *script.JSONConfig, al string) *checks.Suggestion {
	if js.EndLine > js.Line {
		return nil
	}
	line := f.LineText(js.Line)
	i := strings.LastIndexByte(line, '}')
	if i < 0 || strings.Count(line, "{") != strings.Count(line, "}") {
		return nil
	}
	q := jsonQuote(js)
	sep, colon := ",", ":"
	if strings.Contains(js.Raw, "\": ") {
		sep, colon = ", ", ": "
	}
	ins := sep + q + "rejection_sample_method" + q + colon + q + "synthetic" + q + sep + q + "synthetic_acceptance_length" + q + colon + al
	return &checks.Suggestion{Line: js.Line, Replacement: line[:i] + ins + line[i:]}
}

// wrongAL reports a pinned value off the golden curve.
func (j *alJudge) wrongAL(line int, what, got string, hs []alHit, value, repl func(alHit) string, fact, method string, draft int) checks.Finding {
	want := expected(hs, value)
	setTo := "Set it to the golden value."
	if v, ok := uniqueValue(hs, repl); ok && !strings.Contains(v, " ") {
		setTo = "Set it to " + prose.Code(v) + "."
	}
	msg := fmt.Sprintf("%s pins %s, but the golden value for this recipe is %s. Agentic results are only comparable when every submission accepts drafts at the committed golden AL; a different value changes tokens per step and every throughput number of the run. %s",
		what, prose.Code(got), want, setTo)
	variants := ""
	if j.anyVariant && len(goldenFiles(hs)) > 1 {
		variants = "The draft model is set through a variable without one literal value, so the bot cannot tell which variant curve applies and accepts the value of any of them; this one matches none."
		msg += " " + variants
	}
	var related []checks.Location
	for _, h := range hs {
		related = append(related, h.loc())
	}
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("%s pins %s; the golden curve gives %s.", what, prose.Code(got), want)
	ex.Why()
	w("%s", sh013Why)
	ex.Note("How the golden value is chosen")
	w("The golden file is picked by the recipe's model prefix (%s)", prose.Code(modelPrefix(j.t.Path)))
	if method != "" {
		w(" and draft method (%s)", prose.Code(method))
	}
	w("; the curve by the thinking mode the recipe runs with (thinking_on unless its chat-template kwargs turn thinking off, since the agentic traces replay with thinking enabled); the point by the draft length")
	if draft > 0 {
		w(" (%d)", draft)
	}
	w(".")
	if variants != "" {
		w(" %s", variants)
	}
	ex.Step()
	w("The recipe speculates %d %s per step.", draft, prose.Pick(draft, "token", "tokens"))
	ex.Step()
	w("The golden curve fixes the value for that draft length: %s.", want)
	ex.Step()
	w("Line %d pins %s instead.", line, prose.Code(got))
	ex.Step()
	w("The engine accepts drafts at the wrong rate, so the run's throughput is higher or lower than a submission at the golden AL, and the point is not comparable.")
	ex.Fix()
	w("Use the golden value (and update the comment that names the golden file, if any).")
	f := checks.Finding{
		Path:    j.t.Path,
		Line:    line,
		Title:   "Agentic acceptance length differs from the golden curve",
		Body:    msg,
		Related: related,
		Key:     "al-off-golden:" + fact,
		Facts:   []string{fact},
	}
	if v, ok := uniqueValue(hs, repl); ok && v != "" && !strings.Contains(v, " ") {
		if text, ok := replaceNumber(j.t.Head.LineText(line), got, v); ok {
			f.Suggestion = &checks.Suggestion{Line: line, Replacement: text}
		}
	}
	ex.Apply(&f)
	return f
}

func (j *alJudge) report(f checks.Finding) { j.p.Report(f) }

// noCurve reports an acceptance length pinned for a model that has no
// golden curve at all: the value cannot be the model's golden AL, and when
// it equals a point of another model's curve it was taken from there. A
// tree without golden files has no such convention, and a model with a
// curve for another method or draft length is left to the checks above.
func (j *alJudge) noCurve(line int, setting, got string, v float64, method string, draft int, fact string) {
	prefix := modelPrefix(j.t.Path)
	if len(j.golden) == 0 || len(SelectGoldenAny(j.golden, prefix, "")) > 0 || !j.t.isNew() && !j.t.added(line) {
		return
	}
	var files []*GoldenAL
	for _, g := range j.golden {
		if method == "" || g.Method == "" || slices.Contains(goldenMethodsFor(method), g.Method) {
			files = append(files, g)
		}
	}
	var borrowed []alHit
	for _, h := range j.pointsAt(files, draft) {
		if alMatches([]alHit{h}, v) {
			borrowed = append(borrowed, h)
		}
	}
	dir := path.Dir(j.golden[0].Path)
	msg := fmt.Sprintf("Line %d pins %s to %s, but %s has no golden curve for %s, the model this recipe serves (by its file name), so the value is not the model's measured acceptance length.",
		line, setting, prose.Code(got), prose.Code(dir+"/"), prose.Code(prefix))
	if len(borrowed) > 0 {
		msg += fmt.Sprintf(" It is the golden AL of another model: %s.", expected(borrowed, alText))
	}
	msg += fmt.Sprintf(" Agentic results are compared at each model's own golden AL; a value measured for another model makes this run's tokens per step, and every throughput number, another model's. Commit the model's curve (measured with real verification, as the other files in %s were) and pin its point for %d draft %s.",
		prose.Code(dir+"/"), draft, prose.Pick(draft, "token", "tokens"))
	var related []checks.Location
	for _, h := range borrowed {
		if len(related) < maxEvidence {
			related = append(related, h.loc())
		}
	}
	ex := &checks.Explain{}
	ex.Problem().Printf("%s pins %s for %s, which has no golden curve.", setting, prose.Code(got), prose.Code(prefix))
	ex.Why().Printf("%s", sh013Why)
	ex.Note("How the golden file is found")
	ex.Printf("By the recipe's model prefix (%s, the first segment of its file name) against the golden files' names; none of the %d files in %s is named for it.",
		prose.Code(prefix), len(j.golden), prose.Code(dir+"/"))
	ex.Step().Printf("The recipe speculates %d %s per step and pins the acceptance length %s.", draft, prose.Pick(draft, "token", "tokens"), prose.Code(got))
	ex.Step().Printf("No file in %s holds a curve for %s, so no measured value backs it.", prose.Code(dir+"/"), prose.Code(prefix))
	if len(borrowed) > 0 {
		ex.Step().Printf("%s is the point another model's curve gives for that draft length: %s.", prose.Code(got), expected(borrowed, alText))
	}
	ex.Step().Printf("The run accepts drafts at a rate nobody measured for this model, and its throughput is published as if it had been.")
	ex.Fix().Printf("Add %s's golden curve to %s and pin its value.", prose.Code(prefix), prose.Code(dir+"/"))
	title := "Agentic acceptance length pinned for a model with no golden curve"
	if len(borrowed) > 0 {
		title = "Agentic acceptance length taken from another model's golden curve"
	}
	f := checks.Finding{
		Path:    j.t.Path,
		Line:    line,
		Title:   title,
		Body:    msg,
		Related: related,
		Key:     "al-no-curve:" + fact,
		Facts:   []string{fact},
	}
	if len(borrowed) == 0 {
		// The value may be the model's own measurement, not yet committed:
		// a warning, where a value taken from another model's curve blocks.
		f.Severity = checks.Warning
	}
	ex.Apply(&f)
	j.report(f)
}

// goldenFiles lists the distinct curve files of hs.
func goldenFiles(hs []alHit) []*GoldenAL {
	var out []*GoldenAL
	for _, h := range hs {
		if !slices.Contains(out, h.g) {
			out = append(out, h.g)
		}
	}
	return out
}

// ---- SGLang ---------------------------------------------------------

const sglangAccLen = "SGLANG_SIMULATE_ACC_LEN"

func (j *alJudge) sglang() error {
	t := j.t
	f := t.Head
	for _, srv := range serversOf(f, script.SGLang) {
		alg, ok := srv.Flag("--speculative-algorithm")
		if !ok {
			alg, ok = srv.Flag("--speculative-algo")
		}
		if !ok || evalOnly(alg.Branch) {
			continue
		}
		method, _, _ := resolveValue(f, alg.Value, alg.Static, alg.Line, alg.Branch)
		changed := t.isNew() || t.added(alg.Line)
		draft := 0
		if st, ok := srv.Flag("--speculative-num-steps"); ok {
			v, from, ok := resolveValue(f, st.Value, st.Static, st.Line, st.Branch)
			if ok {
				draft, _ = draftInt(v)
			}
			changed = changed || t.added(st.Line) || from > 0 && t.added(from)
		} else if nd, ok := srv.Flag("--speculative-num-draft-tokens"); ok {
			topk := "1"
			if tk, ok := srv.Flag("--speculative-eagle-topk"); ok {
				topk = tk.Value
			}
			if v, _, ok := resolveValue(f, nd.Value, nd.Static, nd.Line, nd.Branch); ok && topk == "1" {
				if n, ok := draftInt(v); ok && n > 1 {
					draft = n - 1
				}
			}
			changed = changed || t.added(nd.Line)
		}
		var exports []script.Var
		for _, v := range f.Exports(sglangAccLen) {
			if !v.Branch.Excludes(alg.Branch) {
				exports = append(exports, v)
				changed = changed || t.added(v.Line)
			}
		}
		if len(exports) == 0 && t.Base != nil && len(t.Base.Exports(sglangAccLen)) > 0 {
			changed = true // dropped by the PR
		}
		if !changed {
			continue
		}
		words := []string{method}
		unresolved := false
		if dm, ok := srv.Flag("--speculative-draft-model-path"); ok {
			if v, _, ok := resolveValue(f, dm.Value, dm.Static, dm.Line, dm.Branch); ok {
				words = append(words, v)
			} else {
				unresolved = true
			}
		}
		var hs []alHit
		if draft > 0 {
			hs = j.hits(method, words, draft, unresolved)
		}
		if len(exports) == 0 {
			j.report(j.envMissing(alg, sglangAccLen, hs, alText, stmtLine(f, alg.Line)))
			continue
		}
		for _, v := range exports {
			got, from, ok := exportValue(f, v)
			x, okNum := parseNumber(got)
			if !ok || !okNum {
				continue
			}
			if len(hs) == 0 {
				if draft > 0 {
					line := v.Line
					if from > 0 {
						line = from
					}
					j.noCurve(line, prose.Code(sglangAccLen), got, x, method, draft, "env:"+sglangAccLen+"="+got)
				}
				continue
			}
			if alMatches(hs, x) {
				continue
			}
			line := v.Line
			if from > 0 {
				line = from
			}
			j.report(j.wrongAL(line, envSubject(f, v, line), got, hs, alText, alText, "env:"+sglangAccLen+"="+got, method, draft))
		}
	}
	return nil
}

// envMissing reports SGLang or TRT-LLM speculative decoding without the
// environment variable that simulates acceptance.
func (j *alJudge) envMissing(alg script.Flag, env string, hs []alHit, value func(alHit) string, insertAt int) checks.Finding {
	f := j.t.Head
	engine := f.Engine
	val := "<golden AL>"
	if v, ok := uniqueValue(hs, value); ok {
		val = v
	}
	var exports []string
	exports = append(exports, "export "+env+"="+val)
	if engine == script.SGLang {
		exports = append(exports, "export SGLANG_SIMULATE_ACC_METHOD=match-expected")
	}
	what := fmt.Sprintf("line %d", alg.Line)
	msg := fmt.Sprintf("This agentic %s recipe turns on speculative decoding (%s, %s) but never exports `%s`, so the engine verifies drafts for real instead of accepting them at the golden acceptance length.",
		engine, prose.Code(strings.TrimSpace(alg.Name+" "+alg.Value)), what, env)
	switch {
	case val != "<golden AL>":
		msg += fmt.Sprintf(" Export `%s=%s` before the server starts (%s: %s).", env, val, hs[0].cite(), hs[0].describe())
	case len(hs) > 0:
		msg += " Export it before the server starts, set to " + expected(hs, value) + "."
	default:
		msg += " Export it before the server starts, set to the golden value for the model's curve in `golden_al_distribution/`."
	}
	if engine == script.TRTLLM {
		msg += " TRT-LLM counts accepted draft tokens per step without the bonus token: AL - 1, rounded to the nearest integer."
	}
	var related []checks.Location
	for _, h := range hs {
		related = append(related, h.loc())
	}
	for _, sib := range j.siblings() {
		if len(related) >= maxEvidence {
			break
		}
		if ex := sib.Facts.Exports(env); len(ex) > 0 {
			related = append(related, sib.Loc(ex[0].Line, 0, "sibling exports "+prose.Code(env)))
		}
	}
	fn := checks.Finding{
		Path:    j.t.Path,
		Line:    alg.Line,
		Title:   "Agentic speculative decoding without simulated acceptance",
		Body:    msg,
		Related: related,
		Key:     "spec-no-synthetic:" + string(engine) + ":" + env,
		Facts:   []string{"env:" + env},
	}
	if val != "<golden AL>" && !strings.Contains(val, " ") && insertAt > 0 {
		fn.Suggestion = insertAbove(f, insertAt, exports...)
	}
	ex := &checks.Explain{}
	ex.Problem().Printf("Speculative decoding is on (%s) and no export of `%s` reaches the server.", prose.Code(strings.TrimSpace(alg.Name+" "+alg.Value)), env)
	ex.Why().Printf("%s", sh013Why)
	ex.Step().Printf("The agentic trace replay drives the server with speculative decoding on.")
	ex.Step().Printf("`%s` is unset, so the engine verifies every draft against the target model.", env)
	ex.Step().Printf("Tokens accepted per step depend on the replayed traffic instead of the golden curve.")
	ex.Step().Printf("The published throughput is not comparable with the other agentic spec-decode points, which all pin the golden AL.")
	if fn.Suggestion != nil {
		names := []string{prose.Code(env)}
		if engine == script.SGLang {
			names = append(names, "`SGLANG_SIMULATE_ACC_METHOD`")
		}
		ex.Fix().Printf("Export %s before the server starts.", prose.JoinAnd(names))
	} else {
		ex.Fix().Printf("Before the server starts:\n\n```bash\n%s\n```", strings.Join(exports, "\n"))
	}
	ex.Apply(&fn)
	return fn
}

// ---- TRT-LLM --------------------------------------------------------

const trtForce = "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"

func (j *alJudge) trt() error {
	t := j.t
	f := t.Head
	hs, err := heredocsAt(j.p.Ctx, j.p.Change, j.p.Change.Head, "head", t.Path)
	if err != nil {
		return err
	}
	for _, sp := range trtSpecs(hs) {
		changed := t.isNew() || t.touches(sp.Line, sp.EndLine)
		draft := 0
		if sp.Draft != "" {
			static := varRefName(sp.Draft) == ""
			if v, from, ok := resolveValue(f, sp.Draft, static, sp.DraftLine, nil); ok {
				draft, _ = draftInt(v)
				changed = changed || from > 0 && t.added(from)
			}
		}
		exports := f.Exports(trtForce)
		for _, v := range exports {
			changed = changed || t.added(v.Line)
		}
		if len(exports) == 0 && t.Base != nil && len(t.Base.Exports(trtForce)) > 0 {
			changed = true
		}
		if !changed {
			continue
		}
		var hits []alHit
		if draft > 0 {
			hits = j.hits(sp.DecodingType, nil, draft, false)
		}
		if len(exports) == 0 {
			at := script.Flag{Name: "speculative_config", Line: sp.Line}
			if sp.DecodingType != "" {
				at.Name = "decoding_type:"
				at.Value = sp.DecodingType
			}
			j.report(j.envMissing(at, trtForce, hits, trtPlain, sp.StmtLine))
			continue
		}
		for _, v := range exports {
			got, from, ok := exportValue(f, v)
			n, err := strconv.Atoi(strings.TrimSpace(got))
			if !ok || len(hits) == 0 {
				continue
			}
			if err == nil && slices.ContainsFunc(hits, func(h alHit) bool { return slices.Contains(trtTokens(h.pt.AL), n) }) {
				continue
			}
			line := v.Line
			if from > 0 {
				line = from
			}
			j.report(j.wrongAL(line, envSubject(f, v, line), got, hits, trtText, trtPlain, "env:"+trtForce+"="+got, sp.DecodingType, draft))
		}
	}
	return nil
}

// exportValue resolves the value an export puts in the environment: its
// own (through a variable when it is one), or for a bare `export X` that
// of the assignment before it. from is the line the value was resolved
// from (0 when it is the export's own literal).
func exportValue(f *script.Facts, v script.Var) (val string, from int, ok bool) {
	if v.HasValue {
		return resolveValue(f, v.Value, v.Static, v.Line, v.Branch)
	}
	a, found := literalOf(f, v.Name, v.Line, v.Branch)
	if !found {
		return "", 0, false
	}
	return strings.Trim(a.Value, `"'`), a.Line, true
}

// envSubject names an export for a message: "`export X=2.50` (line 30)",
// or the assignment its value came from.
func envSubject(f *script.Facts, v script.Var, line int) string {
	if line != v.Line {
		return fmt.Sprintf("%s (exported on line %d, value from line %d)", prose.Code(v.Name), v.Line, line)
	}
	return fmt.Sprintf("%s (line %d)", prose.CodeLine(strings.TrimSpace(f.LineText(line))), line)
}
