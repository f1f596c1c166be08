package recipe

// The sign-off checklist has a check for the same thing (spec-decode chat
// templates); this rule is its static half.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// specServerFlags are the server options that turn speculative decoding
// on (compared after NormFlag).
var specServerFlags = []string{
	"--speculative-config", "--speculative-algorithm", "--speculative-model",
	"--speculative-draft-model-path", "--speculative-num-steps", "--speculative-num-draft-tokens",
}

// chatTemplateFlags are the client options that format prompts with the
// chat template (benchmark_lib.sh's run_benchmark_serving turns the first
// into the second).
var chatTemplateFlags = []string{"--use-chat-template", "--apply-chat-template"}

// servingClients are the fixed-sequence-length benchmark clients.
var servingClients = map[string]bool{
	"run_benchmark_serving": true, "benchmark_serving.py": true,
	"vllm bench serve": true, "sglang.bench_serving": true,
}

// SH010 reports a speculative-decoding fixed-sequence-length client without
// --use-chat-template.
var SH010 = &checks.Rule{
	ID:       "SH010",
	Severity: checks.Blocking,
	Title:    "Speculative-decoding benchmark without --use-chat-template",
	Doc: "Fixed-sequence-length recipes with speculative decoding (MTP, EAGLE, DSpark: " +
		"`--speculative-config`, `--speculative-algorithm`, a `_mtp` recipe) verify the drafts for " +
		"real, so the acceptance length they measure depends on the prompts. Draft heads are trained on " +
		"chat-formatted text: the benchmark client must pass `--use-chat-template` so the random prompts " +
		"are wrapped in the model's chat template, as in real traffic. Without it acceptance, and with it " +
		"the published throughput, is understated and not comparable with the other spec-decode points. " +
		"Clients that replay a real dataset (`--dataset-name speed_bench`, an acceptance-length collector) " +
		"already send chat text and are not judged. This rule reports a client call without the flag when the PR adds or changes the call or the " +
		"speculative config, or drops the flag. An option the client function of the sourced `benchmark_lib.sh` takes as the chat template too (its option parser sets what `--use-chat-template` sets, as `--dsv4` does) counts as the flag.",
	Run: runSH010,
}

func runSH010(p *checks.Pass) error { return eachChangedRecipe(p, sh010File) }

// specEvidence says how a recipe turns speculative decoding on.
type specEvidence struct {
	what  string // for the message
	lines []int  // head lines of the speculative settings
}

func specDecoding(f *script.Facts, trt []trtSpec) (specEvidence, bool) {
	var ev specEvidence
	var names []string
	for _, srv := range f.Servers {
		for _, fl := range srv.Flags {
			n := script.NormFlag(fl.Name)
			for _, sf := range specServerFlags {
				if n == sf || strings.HasPrefix(n, sf+".") {
					ev.lines = append(ev.lines, fl.Line)
					if len(names) == 0 || names[len(names)-1] != prose.Code(fl.Name) {
						names = append(names, prose.Code(fl.Name))
					}
				}
			}
		}
	}
	for _, t := range trt {
		ev.lines = append(ev.lines, t.Line)
		names = append(names, "`speculative_config`")
	}
	if len(names) > 0 {
		if len(names) > 2 {
			names = names[:2]
		}
		ev.what = prose.JoinAnd(names) + fmt.Sprintf(" on line %d", ev.lines[0])
		return ev, true
	}
	base := strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path))
	for _, w := range strings.FieldsFunc(strings.ToLower(base), func(r rune) bool { return r == '_' || r == '-' }) {
		for _, m := range goldenMethods {
			if w == m || w == "spec" {
				ev.what = "the " + prose.Code("_"+w) + " recipe name"
				return ev, true
			}
		}
	}
	return ev, false
}

// randomPrompts reports whether a benchmark client sends synthetic random
// prompts, the case the chat template matters for: no dataset option (the
// clients default to random tokens), or a literal "random". A client that
// replays a real dataset (SPEED-Bench, ShareGPT: an acceptance-length
// collector, not a throughput point) sends chat text already, and a
// dataset held in a variable is unknown, which is not the same as random.
func randomPrompts(c *script.Command) bool {
	for _, name := range []string{"--dataset-name", "--dataset"} {
		for _, fl := range c.FlagsNamed(name) {
			if !fl.Static || !strings.EqualFold(strings.Trim(fl.Value, `"'`), "random") {
				return false
			}
		}
	}
	return true
}

func hasChatTemplate(c *script.Command) bool { return hasChatTemplateOr(c, nil) }

// hasChatTemplateOr is hasChatTemplate with the options the client's
// library takes as the chat template too (see libChatTemplateFlags).
func hasChatTemplateOr(c *script.Command, also []string) bool {
	for _, n := range chatTemplateFlags {
		if c.HasFlag(n) {
			return true
		}
	}
	for _, n := range also {
		if c.HasFlag(n) {
			return true
		}
	}
	return false
}

// libChatTemplateFlags returns the other options of the library's client
// functions that turn the chat template on: the case arms of an option
// parser that set the variable the `--use-chat-template` arm sets, to the
// same value (`--dsv4) dsv4=true; use_chat_template=true`).
func libChatTemplateFlags(lib *script.Facts) []string {
	if lib == nil {
		return nil
	}
	type setting struct{ name, value string }
	var set []setting
	for _, v := range lib.Vars {
		if v.Kind != script.Assign || !v.Static || !v.HasValue {
			continue
		}
		for _, c := range v.Branch {
			if c.Kind == script.CondCase && !c.Negated && slices.Contains(c.Patterns, chatTemplateFlags[0]) {
				set = append(set, setting{v.Name, v.Value})
			}
		}
	}
	var out []string
	for _, v := range lib.Vars {
		if v.Kind != script.Assign || !v.Static || !slices.Contains(set, setting{v.Name, v.Value}) {
			continue
		}
		for _, c := range v.Branch {
			if c.Kind != script.CondCase || c.Negated {
				continue
			}
			for _, pat := range c.Patterns {
				if strings.HasPrefix(pat, "--") && !strings.ContainsAny(pat, "*?[|") && !slices.Contains(chatTemplateFlags, pat) && !slices.Contains(out, pat) {
					out = append(out, pat)
				}
			}
		}
	}
	return out
}

func sh010File(p *checks.Pass, s *target) error {
	if script.IsAgentic(s.Path) {
		return nil // SH013 judges the agentic recipes
	}
	var trt []trtSpec
	if s.Head.Engine == script.TRTLLM {
		hs, err := heredocsAt(p.Ctx, p.Change, p.Change.Head, "head", s.Path)
		if err != nil {
			return err
		}
		trt = trtSpecs(hs)
	}
	ev, ok := specDecoding(s.Head, trt)
	if !ok {
		return nil
	}
	specChanged := s.File.Status == checks.Added
	for _, l := range ev.lines {
		specChanged = specChanged || s.File.IsAdded(l)
	}
	for _, j := range s.Head.JSON {
		if strings.Contains(j.Flag, "speculative") && s.File.Touches(j.Line, max(j.EndLine, j.Line)) {
			specChanged = true
		}
	}
	lib, _, err := libOf(p, s.Head, s.Path, HeadFacts)
	if err != nil {
		return err
	}
	also := libChatTemplateFlags(lib)
	baseHad := false
	if s.Base != nil {
		for _, c := range s.Base.Clients {
			if servingClients[c.Program] && hasChatTemplateOr(c, also) {
				baseHad = true
			}
		}
	}
	for _, c := range s.Head.Clients {
		if !servingClients[c.Program] || hasChatTemplateOr(c, also) || len(c.Opaque) > 0 || !randomPrompts(c) {
			continue
		}
		if !specChanged && !baseHad && !s.File.Touches(c.Line, c.EndLine) {
			continue
		}
		wit, err := chatTemplateWitnesses(p, s.Path)
		if err != nil {
			return err
		}
		p.Report(sh010Finding(s, c, ev, baseHad, wit))
	}
	return nil
}

// chatTemplateWitnesses cites the spec-decode recipes of the directory
// whose client passes the flag (and the comment that says why, when one
// sits just above the call).
func chatTemplateWitnesses(p *checks.Pass, file string) ([]checks.Location, error) {
	recipes, err := dirRecipes(p.Ctx, p.Change, file)
	if err != nil {
		return nil, err
	}
	var out []checks.Location
	for _, r := range recipes {
		if _, spec := specDecoding(r.Facts, nil); !spec {
			continue
		}
		for _, c := range r.Facts.Clients {
			if !servingClients[c.Program] || !hasChatTemplate(c) || len(out) >= maxEvidence {
				continue
			}
			fl, _ := c.Flag(chatTemplateFlags[0])
			if fl.Line == 0 {
				fl, _ = c.Flag(chatTemplateFlags[1])
			}
			out = append(out, r.Loc(fl.Line, 0, "spec-decode recipe passes "+prose.Code(fl.Name)))
			if b, ok := commentAbove(r.Facts, c.Line, 2); ok && strings.Contains(normSpace(b.Text), "chat template") {
				out = append(out, r.Loc(b.Line, b.EndLine, "says why: \""+strings.Join(strings.Fields(b.Text), " ")+"\""))
			}
		}
	}
	return out, nil
}

func sh010Finding(s *target, c *script.Command, ev specEvidence, dropped bool, wit []checks.Location) checks.Finding {
	verb := "runs"
	if dropped {
		verb = "no longer passes `--use-chat-template` to"
	}
	var msg string
	if dropped {
		msg = fmt.Sprintf("This speculative-decoding fixed-sequence-length recipe (%s) %s its benchmark client (%s, line %d), which the base version of the file did.",
			ev.what, verb, prose.Code(c.Program), c.Line)
	} else {
		msg = fmt.Sprintf("This speculative-decoding fixed-sequence-length recipe (%s) %s its benchmark client (%s, line %d) without `--use-chat-template`.",
			ev.what, verb, prose.Code(c.Program), c.Line)
	}
	msg += " Drafts are verified for real here, and draft heads are trained on chat-formatted text: without the chat template the random prompts understate the acceptance length, so the published throughput is too low and not comparable with the other spec-decode points"
	if len(wit) > 0 {
		msg += fmt.Sprintf(" (the other spec-decode recipes in this directory pass the flag, e.g. %s)", ref(wit[0].Path, wit[0].Line, 0))
	}
	msg += ". Add `--use-chat-template` to the client call."

	ex := &checks.Explain{}
	wr := ex.Printf
	ex.Problem()
	wr("The recipe enables speculative decoding (%s) but its %s call (lines %d-%d) does not pass `--use-chat-template`.", ev.what, prose.Code(c.Program), c.Line, c.EndLine)
	ex.Why()
	wr("Fixed-sequence-length points are measured with real draft verification, so throughput scales with the acceptance length (AL) the prompts produce. MTP/EAGLE/DSpark heads are trained on chat-formatted conversations; random token prompts without the chat template look nothing like them, so acceptance drops and the run under-reports what the configuration does on real traffic. The sign-off checklist requires spec-decode recipes to apply the chat template for exactly this reason; a reviewer cannot see the effect in the numbers, because nothing fails.")
	if len(wit) > 0 {
		n := map[string]bool{}
		for _, w := range wit {
			n[w.Path] = true
		}
		ex.Evidence()
		wr("The other spec-decode %s in this directory (%d) pass the flag to the same client.", prose.Pick(len(n), "recipe", "recipes"), len(n))
	}
	ex.Step()
	wr("The server starts with speculative decoding (%s).", ev.what)
	ex.Step()
	wr("%s sends random-token prompts of the configured input length; without `--use-chat-template` they are not wrapped in the chat template.", prose.Code(c.Program))
	ex.Step()
	wr("The draft head sees text unlike its training distribution and fewer drafted tokens are accepted per step.")
	ex.Step()
	wr("Output throughput and per-user speed are recorded lower than the configuration delivers on chat traffic, under a config key that claims MTP/EAGLE performance.")
	ex.Fix()
	wr("Pass `--use-chat-template` as the last option of the client call.")

	f := checks.Finding{
		Path:    s.Path,
		Line:    c.Line,
		EndLine: c.EndLine,
		Title:   "Spec-decode benchmark client without `--use-chat-template`",
		Body:    msg,
		Related: wit,
		Key:     "spec-no-chat-template:" + c.Program,
		Facts:   []string{"client-flag:--use-chat-template"},
	}
	f.Suggestion = appendClientFlag(s.Head, c, "--use-chat-template")
	ex.Apply(&f)
	return f
}

// appendClientFlag suggests adding an option after the last line of a
// line-continued call whose last line is a plain option.
func appendClientFlag(f *script.Facts, c *script.Command, flag string) *checks.Suggestion {
	if c.OneLine || c.Array != "" {
		return nil
	}
	last := f.LineText(c.EndLine)
	t := strings.TrimSpace(last)
	if !strings.HasPrefix(t, "--") || strings.ContainsAny(t, "#;&|><") || strings.HasSuffix(t, `\`) {
		return nil
	}
	return &checks.Suggestion{Line: c.EndLine, Replacement: last + " \\\n" + indentOf(last) + flag}
}

// UsesSpecDecoding reports whether a recipe turns speculative decoding on
// (a speculative server option, a TRT-LLM speculative_config is not seen
// here, or a draft-method word in its file name such as _mtp).
func UsesSpecDecoding(f *script.Facts) bool {
	if f == nil {
		return false
	}
	_, ok := specDecoding(f, nil)
	return ok
}
