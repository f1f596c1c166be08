package recipe

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// epFlags lists, per engine, the server options that turn expert
// parallelism on or size it.
var epFlags = []struct {
	engine script.Engine
	flag   string
}{
	{script.VLLM, "--enable-expert-parallel"},
	{script.ATOM, "--enable-expert-parallel"},
	{script.SGLang, "--ep-size"},
	{script.SGLang, "--expert-parallel-size"},
	{script.TRTLLM, "--ep_size"},
}

// SH008 reports expert parallelism hard-coded instead of guarded by EP_SIZE.
var SH008 = &checks.Rule{
	ID:       "SH008",
	Severity: checks.Warning,
	Title:    "Expert parallelism hard-coded instead of following EP_SIZE",
	Doc: "The sweep matrix passes a row's `ep` to the recipe as `EP_SIZE`, and recipes enable expert " +
		"parallelism only when it is above 1 (vLLM: `--enable-expert-parallel` added under " +
		"`if [ \"${EP_SIZE:-1}\" -gt 1 ]`; SGLang: `EP_ARGS=(--ep-size \"$EP_SIZE\")` under the same " +
		"guard; TRT-LLM: `--ep_size \"${EP_SIZE:-1}\"`). This rule reports such a flag that the PR writes " +
		"into the server command unconditionally while the sibling recipes guard it: every row, including " +
		"`ep: 1` rows, would then run with expert parallelism and be published under the wrong layout. Put " +
		"the flag under the EP_SIZE guard.",
	Run: runSH008,
}

func runSH008(p *checks.Pass) error { return eachChangedRecipe(p, sh008File) }

// epGuarded reports whether a flag follows EP_SIZE: it sits under a test
// of EP_SIZE, or its value is EP_SIZE.
func epGuarded(fl script.Flag) bool {
	if strings.Contains(fl.Value, "EP_SIZE") {
		return true
	}
	for _, c := range fl.Branch {
		if c.Var == "EP_SIZE" || strings.Contains(c.Text, "EP_SIZE") {
			return true
		}
	}
	return false
}

func sh008File(p *checks.Pass, s *target) error {
	engine := s.Head.Engine
	var sibs []*Sibling
	loaded := false
	reported := map[int]bool{}
	for _, ef := range epFlags {
		if ef.engine != engine {
			continue
		}
		for _, srv := range serversOf(s.Head, engine) {
			for _, fl := range srv.FlagsNamed(ef.flag) {
				if reported[fl.Line] || !s.File.IsAdded(fl.Line) || epGuarded(fl) || !s.Head.Covers(fl.Branch, nil) {
					continue
				}
				if !loaded {
					var err error
					if sibs, err = Siblings(p.Ctx, p.Change, s.Path); err != nil {
						return err
					}
					loaded = true
				}
				var guarded []checks.Location
				unguarded, total := 0, 0
				for _, sib := range sibs {
					for _, c := range serversOf(sib.Facts, engine) {
						for _, sf := range c.FlagsNamed(ef.flag) {
							if !epGuarded(sf) {
								unguarded++
								continue
							}
							total++
							if len(guarded) < maxEvidence {
								guarded = append(guarded, sh008Cite(sib, sf))
							}
						}
					}
				}
				if len(guarded) < 2 || unguarded > 0 {
					continue
				}
				reported[fl.Line] = true
				p.Report(sh008Finding(s, srv, fl, guarded, total))
			}
		}
	}
	return nil
}

// sh008Cite cites a sibling's guarded flag: from the guard to the flag.
func sh008Cite(sib *Sibling, fl script.Flag) checks.Location {
	line := fl.Line
	note := "adds " + prose.Code(fl.Name) + " only when EP_SIZE > 1"
	for _, c := range fl.Branch {
		if c.Var == "EP_SIZE" || strings.Contains(c.Text, "EP_SIZE") {
			line = c.Line
			note = "adds " + prose.Code(fl.Name) + " under " + prose.Code("if "+c.Text)
			break
		}
	}
	if line == fl.Line && fl.HasValue {
		note = "passes " + prose.Code(fl.Name+" "+fl.Value)
	}
	if line > fl.Line {
		line = fl.Line
	}
	return sib.Loc(line, fl.Line, note)
}

func sh008Finding(s *target, srv *script.Command, fl script.Flag, guarded []checks.Location, total int) checks.Finding {
	written := fl.Name
	if fl.HasValue {
		written += " " + fl.Value
	}
	guard := `if [ "${EP_SIZE:-1}" -gt 1 ]; then`
	var fix string
	switch srv.Engine {
	case script.SGLang:
		fix = "EP_ARGS=()\n" + guard + "\n    EP_ARGS=(--ep-size \"$EP_SIZE\")\nfi\n# ... and splice \"${EP_ARGS[@]}\" into the server command"
	case script.TRTLLM:
		fix = `--ep_size "${EP_SIZE:-1}"`
	default:
		arr := srv.Array
		if arr == "" {
			arr = "EXTRA_ARGS"
		}
		fix = guard + "\n    " + arr + "+=(" + fl.Name + ")\nfi"
		if srv.Array == "" {
			fix = "EXTRA_ARGS=()\n" + fix + "\n# ... and splice \"${EXTRA_ARGS[@]}\" into the server command"
		}
	}
	msg := fmt.Sprintf("%s is written into the %s server command unconditionally (line %d), so every sweep point runs with expert parallelism, including rows whose `ep` is 1 (EP_SIZE=1). All %d uses in the sibling %s recipes follow `EP_SIZE` instead. Move it under the EP_SIZE guard.",
		prose.Code(written), srv.Engine, fl.Line, total, srv.Engine)
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("Line %d adds %s to the server command on every run: it is not under a test of `EP_SIZE`", fl.Line, prose.Code(written))
	if fl.HasValue {
		w(" and its value does not come from `EP_SIZE`")
	}
	w(".")
	ex.Why()
	w("The master config's `ep` field reaches the recipe as `EP_SIZE`; a row with `ep: 1` (or none) is a tensor-parallel point and is published as one. With the flag hard-coded, those rows run the MoE layers expert-parallel instead, so their numbers describe a different configuration than the row's label, and TP and EP rows of the same key can no longer be compared.")
	ex.Evidence()
	w("The sibling recipes of this engine that use the flag all derive it from `EP_SIZE`; none hard-codes it.")
	ex.Step()
	w("A row with `ep: 1` starts the recipe with `EP_SIZE=1`.")
	ex.Step()
	w("Line %d still adds %s, because nothing on its path tests `EP_SIZE`.", fl.Line, prose.Code(written))
	ex.Step()
	w("The server shards the experts across the GPUs, which is the EP configuration, not the TP one the row describes.")
	ex.Step()
	w("The published point mislabels its parallelism; a sibling recipe on the same row would not.")

	f := checks.Finding{
		Path:    s.Path,
		Line:    fl.Line,
		Title:   prose.Code(fl.Name) + " hard-coded instead of guarded by EP_SIZE",
		Body:    msg,
		Related: guarded,
		Key:     "ep-unguarded:" + script.NormFlag(fl.Name),
		Facts:   []string{"flag:" + script.NormFlag(fl.Name)},
	}
	f.Suggestion = sh008Suggestion(s, srv, fl)
	ex.Fix()
	w("Remove the flag from the command and add it only when EP_SIZE asks for it")
	if f.Suggestion != nil {
		w(".")
	} else {
		w(":\n\n```bash\n%s\n```", fix)
	}
	ex.Apply(&f)
	return f
}

// sh008Suggestion moves a boolean flag written alone on the last line of
// an array literal below the array, under the guard; or deletes it when
// the command already adds it under the guard.
func sh008Suggestion(s *target, srv *script.Command, fl script.Flag) *checks.Suggestion {
	if fl.HasValue || fl.Via != "" || strings.TrimSpace(s.Head.LineText(fl.Line)) != fl.Name {
		return nil
	}
	for _, o := range srv.FlagsNamed(fl.Name) {
		if epGuarded(o) {
			return &checks.Suggestion{Line: fl.Line, Replacement: ""}
		}
	}
	if srv.Array == "" || fl.Line+1 != srv.EndLine {
		return nil
	}
	closing := s.Head.LineText(srv.EndLine)
	if strings.TrimSpace(closing) != ")" {
		return nil
	}
	in := indentOf(closing)
	repl := closing + "\n\n" + in + `if [ "${EP_SIZE:-1}" -gt 1 ]; then` + "\n" + in + "    " + srv.Array + "+=(" + fl.Name + ")\n" + in + "fi"
	return &checks.Suggestion{Line: fl.Line, EndLine: srv.EndLine, Replacement: repl}
}
