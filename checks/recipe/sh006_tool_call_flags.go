package recipe

// A real B200 recipe PR lost these flags in an array rewrite, and nothing
// fails at startup when they are gone.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// toolFlags lists, per engine, the server options tool calling needs.
// SGLang and ATOM have no --enable-auto-tool-choice: a parser is enough.
var toolFlags = []struct {
	engine script.Engine
	flags  []string
	// effect says what breaks without them.
	effect string
}{
	{script.VLLM, []string{"--tool-call-parser", "--enable-auto-tool-choice"},
		"vLLM rejects the trace's requests that carry `tools` with `tool_choice: \"auto\"` (auto tool choice needs `--enable-auto-tool-choice` and `--tool-call-parser`), or returns the model's tool calls as raw text instead of structured `tool_calls`"},
	{script.SGLang, []string{"--tool-call-parser"},
		"SGLang returns the model's tool calls as raw text instead of structured `tool_calls`"},
	{script.ATOM, []string{"--tool-call-parser"},
		"the ATOM server returns the model's tool calls as raw text instead of structured `tool_calls`"},
	{script.TRTLLM, []string{"--tool_parser"},
		"trtllm-serve returns the model's tool calls as raw text instead of structured `tool_calls`"},
}

// SH006 reports an agentic server command that lost its tool-calling flags.
var SH006 = &checks.Rule{
	ID:       "SH006",
	Severity: checks.Blocking,
	Title:    "Agentic server command lost its tool-calling flags",
	Doc: "Agentic-coding recipes replay tool-use traces: every request carries `tools` and " +
		"`tool_choice: \"auto\"`, and later turns depend on the structured `tool_calls` of earlier " +
		"ones. The server must be started with its tool-call parser (vLLM: `--tool-call-parser` and " +
		"`--enable-auto-tool-choice`; SGLang and ATOM: `--tool-call-parser`; TRT-LLM: `--tool_parser`). " +
		"This rule reports a server command that lost such a flag the base version of the file passed, " +
		"or a new agentic recipe without a flag every agentic sibling of its engine passes (siblings whose options sit in an array the bot cannot read do not count either way). Without it the " +
		"requests are rejected or the tool calls come back as unparsed text, so the replay fails or " +
		"measures a broken agent loop. Moving the flags into an array that the command splices is fine.",
	Run: runSH006,
}

func runSH006(p *checks.Pass) error { return eachChangedRecipe(p, sh006File) }

func sh006File(p *checks.Pass, s *target) error {
	if !script.IsAgentic(s.Path) {
		return nil
	}
	engine := s.Head.Engine
	var flags []string
	var effect string
	for _, t := range toolFlags {
		if t.engine == engine {
			flags, effect = t.flags, t.effect
		}
	}
	heads := serversOf(s.Head, engine)
	if len(flags) == 0 || len(heads) == 0 {
		return nil
	}
	for _, srv := range heads {
		if len(srv.Opaque) > 0 {
			return nil // the flags may come from an array defined elsewhere
		}
	}
	sibs, err := Siblings(p.Ctx, p.Change, s.Path)
	if err != nil {
		return err
	}
	var bases []*script.Command
	if s.Base != nil {
		bases = serversOf(s.Base, engine)
	}

	lost, withServer := sh006LostFlags(p, s, engine, flags, heads, bases, sibs)
	if len(lost) == 0 {
		return nil
	}
	c := &sh006Case{s: s, engine: engine, flags: flags, effect: effect, srv: heads[0], lost: lost, withServer: withServer}
	p.Report(c.finding(sibs, bases))
	return nil
}

// sh006Case is one SH006 finding in the making: the message, the
// explanation and the suggestion all read the lost flags as summed up by
// sumUp.
type sh006Case struct {
	s      *target
	engine script.Engine
	flags  []string
	effect string
	// srv is the head's first server command, where the finding points.
	srv        *script.Command
	lost       []sh006Lost
	withServer int
	// keepAll is how many siblings pass every lost flag.
	keepAll int
	// names are the lost flags, written the same with the base version's
	// static value; facts name them for the finding.
	names, written, facts []string
	// dropped says the base version passed a flag (else the recipe is new);
	// baseLo-baseHi are the base lines that passed them.
	dropped        bool
	baseLo, baseHi int
}

// sumUp fills in the names, the base lines and the evidence of the lost
// flags, and returns the evidence's locations.
func (c *sh006Case) sumUp(sibs []*Sibling) []checks.Location {
	basePath := c.s.Path
	if c.s.File.OldPath != "" {
		basePath = c.s.File.OldPath
	}
	var related []checks.Location
	for _, lf := range c.lost {
		c.names = append(c.names, prose.Code(lf.name))
		c.facts = append(c.facts, "flag:"+script.NormFlag(lf.name))
		w := lf.name
		if len(lf.base) > 0 {
			c.dropped = true
			b := lf.base[0]
			if b.HasValue && b.Static {
				w += " " + b.Value
			}
			end := b.ValueLine
			related = append(related, baseLoc(basePath, b.Line, end, "the base version of this file passes "+prose.Code(w)))
			if c.baseLo == 0 || b.Line < c.baseLo {
				c.baseLo = b.Line
			}
			c.baseHi = max(c.baseHi, b.Line)
		}
		c.written = append(c.written, prose.Code(w))
	}
	kept, keepAll := sh006SiblingEvidence(c.lost, sibs, c.flags, c.engine)
	c.keepAll = keepAll
	return append(related, kept...)
}

func (c *sh006Case) finding(sibs []*Sibling, bases []*script.Command) checks.Finding {
	related := c.sumUp(sibs)
	title := fmt.Sprintf("%s server command lost %s", c.engine, prose.JoinAnd(c.names))
	if !c.dropped {
		title = fmt.Sprintf("New agentic %s recipe without %s", c.engine, prose.JoinAnd(c.names))
	}
	f := checks.Finding{
		Path:    c.s.Path,
		Line:    c.srv.Line,
		EndLine: c.srv.EndLine,
		Title:   title,
		Body:    c.message(),
		Related: related,
		Key:     "tool-flags-lost:" + strings.Join(c.names, ","),
		Facts:   c.facts,
	}
	if c.dropped {
		// Where the flags were, when the command is still there: a reader
		// of the diff sees the deletion at that line, and the command's
		// first line may be far above it. A command the PR moved or
		// rewrote is pointed at where it is now.
		if at := c.s.headLineOf(c.baseLo); at > c.srv.Line && at <= c.srv.EndLine+1 {
			f.Line, f.EndLine = at, 0
			if at < c.srv.EndLine {
				f.EndLine = c.srv.EndLine
			}
		}
		var flagsAt []script.Flag
		for _, lf := range c.lost {
			if len(lf.base) > 0 {
				flagsAt = append(flagsAt, lf.base[0])
			}
		}
		f.Suggestion = restoreFlags(c.s, c.srv, bases, flagsAt)
	}
	c.explain(sibs).Apply(&f)
	return f
}

func (c *sh006Case) message() string {
	engine, lost, withServer, keepAll := c.engine, c.lost, c.withServer, c.keepAll
	baseLines := fmt.Sprintf("line %d", c.baseLo)
	if c.baseHi > c.baseLo {
		baseLines = fmt.Sprintf("lines %d-%d", c.baseLo, c.baseHi)
	}
	var msg strings.Builder
	sibText := fmt.Sprintf("%d of the %d other agentic %s recipes in this directory still pass %s", keepAll, withServer, engine, prose.Pick(len(lost), "it", "them"))
	if keepAll == withServer && withServer > 0 {
		sibText = fmt.Sprintf("every other agentic %s recipe in this directory (%d of %d) passes %s", engine, keepAll, withServer, prose.Pick(len(lost), "it", "them"))
	}
	if c.dropped {
		fmt.Fprintf(&msg, "The %s server command (line %d) no longer passes %s: the base version of this file did (%s)",
			engine, c.srv.Line, prose.JoinAnd(c.written), baseLines)
		if withServer > 0 && keepAll > 0 {
			fmt.Fprintf(&msg, ", and %s", sibText)
		}
		msg.WriteString(". ")
	} else {
		fmt.Fprintf(&msg, "This new agentic recipe starts the %s server (line %d) without %s; %s. ",
			engine, c.srv.Line, prose.JoinAnd(c.written), sibText)
	}
	fix := "Restore " + prose.Pick(len(lost), "the flag", "the flags")
	if !c.dropped {
		fix = "Add " + prose.Pick(len(lost), "it", "them")
	}
	fmt.Fprintf(&msg, "Without %s, %s, so the agentic trace replay either fails its requests or measures a broken tool loop. %s.",
		prose.Pick(len(lost), "it", "them"), c.effect, fix)
	return msg.String()
}

// explain walks a trace replay against the server started without the
// flags; the fix names a same-model sibling's parser when it can.
func (c *sh006Case) explain(sibs []*Sibling) *checks.Explain {
	engine, names, withServer, keepAll := c.engine, c.names, c.withServer, c.keepAll
	what := prose.Pick(len(c.lost), "flag", "flags")
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("The server command at line %d is started without %s. ", c.srv.Line, prose.JoinAnd(names))
	if c.dropped {
		it := prose.Pick(len(c.lost), "it", "them")
		w("The base version of the file passed %s; nothing in the head version adds %s back (neither the command itself nor any array or variable it splices).", it, it)
	} else {
		w("The file is new and nothing it splices into the command adds %s.", prose.Pick(len(c.lost), "it", "them"))
	}
	ex.Why()
	w("Agentic-coding runs replay multi-turn tool-use sessions: each request carries `tools` and `tool_choice: \"auto\"`, and later turns depend on the structured `tool_calls` of earlier ones. Without the %s, %s. Nothing fails at startup: the damage shows up as failed requests (which can trip the client's failure threshold) or as a replay whose later turns no longer match the trace.\n\n", what, c.effect)
	ex.Evidence()
	if c.dropped {
		w("The base version passed %s. ", prose.JoinAnd(c.written))
	}
	switch {
	case keepAll > 0 && keepAll == withServer:
		w("All %d other agentic %s recipes in this directory pass %s.", withServer, engine, prose.JoinAnd(names))
	case keepAll > 0:
		w("Of the %d other agentic %s recipes in this directory, %d pass %s.", withServer, engine, keepAll, prose.JoinAnd(names))
	}
	ex.Step()
	w("The recipe starts %s from line %d; its options (including every array it splices) contain no %s.\n", prose.Code(c.srv.Program), c.srv.Line, prose.JoinAnd(names))
	ex.Step()
	w("The agentic client replays the trace against `/v1/chat/completions` with `tools` and `tool_choice: \"auto\"`.\n")
	ex.Step()
	w("Without the %s, %s.\n", what, c.effect)
	ex.Step()
	w("The run either fails requests or records throughput for an agent loop that no longer follows the trace, while the sibling recipes measure the real workload.\n\n")
	ex.Fix()
	if c.dropped {
		w("Put %s back into the server command", prose.JoinAnd(c.written))
	} else {
		w("Add %s to the server command", prose.JoinAnd(c.written))
		if hint := sameModelParser(sibs, engine, c.flags, c.s.Path); hint != "" {
			w(" (%s)", hint)
		}
	}
	w(".")
	return ex
}

// sh006Lost is a tool-call flag the head's server command does not pass.
type sh006Lost struct {
	name string
	base []script.Flag // where the base version passed it
	keep []*Sibling
}

// sh006LostFlags returns the flags of engine the head's server commands
// lost: dropped from the base version of the file, or, in a new recipe,
// missing where every sibling that starts a server (withServer of them)
// passes them.
func sh006LostFlags(p *checks.Pass, s *target, engine script.Engine, flags []string, heads, bases []*script.Command, sibs []*Sibling) (lost []sh006Lost, withServer int) {
	// visible counts the siblings whose every server command shows its
	// options: one that splices an array the facts cannot resolve may
	// pass the flags there, so it neither keeps nor lacks them.
	visible := 0
	for _, sib := range sibs {
		srvs := serversOf(sib.Facts, engine)
		if len(srvs) == 0 {
			continue
		}
		withServer++
		if !slices.ContainsFunc(srvs, func(c *script.Command) bool { return len(c.Opaque) > 0 }) {
			visible++
		}
	}
	for _, name := range flags {
		if anyFlag(heads, name) || mentions(s.Head, name) {
			continue
		}
		lf := sh006Lost{name: name}
		for _, b := range bases {
			lf.base = append(lf.base, b.FlagsNamed(name)...)
		}
		for _, sib := range sibs {
			if anyFlag(serversOf(sib.Facts, engine), name) {
				lf.keep = append(lf.keep, sib)
			}
		}
		if len(lf.base) == 0 && len(bases) == 0 && withServer < 2 {
			p.Inconclusive(s.Path, fmt.Sprintf("the server command does not pass %s, and %s of this engine: too few to tell whether it should",
				name, prose.Pick(withServer, "only one agentic sibling recipe starts a server", fmt.Sprintf("%d agentic sibling recipes start a server", withServer))))
		}
		switch {
		case len(lf.base) > 0:
			// Dropped relative to the base version of this file.
		case len(bases) == 0 && len(lf.keep) >= 2 && len(lf.keep) >= visible && 2*visible >= withServer:
			// A new recipe without a flag every sibling that shows its
			// options passes (and they are most of the siblings).
		default:
			continue
		}
		lost = append(lost, lf)
	}
	return lost, withServer
}

// sh006SiblingEvidence cites the siblings that keep the lost flags (at
// most maxEvidence) and counts how many keep all of them.
func sh006SiblingEvidence(lost []sh006Lost, sibs []*Sibling, flags []string, engine script.Engine) ([]checks.Location, int) {
	cited := map[string]bool{}
	var related []checks.Location
	keepAll := len(sibs)
	for _, lf := range lost {
		keepAll = min(keepAll, len(lf.keep))
		for _, sib := range lf.keep {
			if cited[sib.Path] || len(cited) >= maxEvidence {
				continue
			}
			cited[sib.Path] = true
			var lines []int
			var shown []string
			for _, name := range flags {
				for _, c := range serversOf(sib.Facts, engine) {
					if fl, ok := c.Flag(name); ok {
						lines = append(lines, fl.Line)
						t := fl.Name
						if fl.HasValue && fl.Static {
							t += " " + fl.Value
						}
						shown = append(shown, prose.Code(t))
						break
					}
				}
			}
			if len(lines) == 0 {
				continue
			}
			lo, hi := lines[0], lines[0]
			for _, l := range lines {
				lo, hi = min(lo, l), max(hi, l)
			}
			related = append(related, sib.Loc(lo, hi, "sibling keeps "+prose.JoinAnd(shown)))
		}
	}
	return related, keepAll
}

// anyFlag reports whether a command passes name. A flag moved into an
// array or variable counts: facts resolve splices into the command.
func anyFlag(cmds []*script.Command, name string) bool {
	for _, c := range cmds {
		if c.HasFlag(name) {
			return true
		}
	}
	return false
}

// mentions reports whether a variable's value names the option, a way of
// passing it that facts may not resolve (eval, a helper function).
func mentions(f *script.Facts, name string) bool {
	n := script.NormFlag(name)
	for _, v := range f.Vars {
		for _, w := range strings.Fields(v.Value) {
			if strings.HasPrefix(w, "-") && script.NormFlag(strings.Trim(w, `"'()`)) == n {
				return true
			}
		}
	}
	return false
}

// sameModelParser suggests the parser a sibling of the same model uses.
func sameModelParser(sibs []*Sibling, e script.Engine, flags []string, p string) string {
	prefix := modelPrefix(p)
	for _, sib := range sibs {
		if modelPrefix(sib.Path) != prefix {
			continue
		}
		for _, c := range serversOf(sib.Facts, e) {
			if fl, ok := c.Flag(flags[0]); ok && fl.HasValue && fl.Static {
				return fmt.Sprintf("%s, the same model, uses %s", ref(sib.Path, fl.Line, 0), prose.Code(fl.Name+" "+fl.Value))
			}
		}
	}
	return ""
}

// restoreFlags suggests re-inserting the base version's flag lines
// before the flag that followed them in the base version, in the head
// command's style (array element or `\` continuation). Nil when the flags
// did not sit on lines of their own or no later flag survived.
func restoreFlags(s *target, srv *script.Command, bases []*script.Command, lost []script.Flag) *checks.Suggestion {
	if s.Base == nil || len(lost) == 0 {
		return nil
	}
	last := 0
	for _, fl := range lost {
		last = max(last, fl.Line)
	}
	// The first base flag after the lost ones that the head command still
	// writes marks the place.
	at := 0
	for _, b := range bases {
		for _, o := range b.Flags {
			if o.Line <= last || o.Via != "" || at != 0 {
				continue
			}
			for _, h := range srv.Flags {
				if h.Via == "" && script.NormFlag(h.Name) == script.NormFlag(o.Name) && h.Line > srv.Line && h.Line <= srv.EndLine {
					at = h.Line
					break
				}
			}
		}
	}
	if at == 0 {
		return nil
	}
	anchor := s.Head.LineText(at)
	if !strings.HasPrefix(strings.TrimSpace(anchor), "--") {
		return nil
	}
	cont := strings.HasSuffix(strings.TrimSpace(anchor), `\`)
	indent := indentOf(anchor)
	var lines []string
	for _, fl := range lost {
		n := 0
		for _, b := range bases {
			for _, o := range b.Flags {
				if o.Line == fl.Line || o.ValueLine == fl.Line {
					n++
				}
			}
		}
		text := strings.TrimSpace(s.Base.LineText(fl.Line))
		text = strings.TrimSpace(strings.TrimSuffix(text, `\`))
		if n != 1 || (fl.ValueLine != 0 && fl.ValueLine != fl.Line) || !strings.HasPrefix(text, fl.Name) {
			return nil
		}
		if cont {
			text += ` \`
		}
		lines = append(lines, indent+text)
	}
	return &checks.Suggestion{Line: at, Replacement: strings.Join(append(lines, anchor), "\n")}
}
