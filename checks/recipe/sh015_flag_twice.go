package recipe

import (
	"fmt"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH015 reports a server option given twice, with different values, on one
// path of the script.
var SH015 = &checks.Rule{
	ID:       "SH015",
	Severity: checks.Warning,
	Title:    "Server option passed twice with different values",
	Doc: "A server command that receives the same option twice on one path of the script (written twice, or " +
		"once in the command and once more through a variable or array spliced into it, such as an " +
		"`EVAL_CONTEXT_ARGS` that carries `--context-length` in eval-only runs) starts with the last value: " +
		"vLLM's and SGLang's argument parsers keep the last occurrence, so the other one is dead, and which one " +
		"wins depends on where the splice sits. This rule reports such an option when the PR adds or changes one " +
		"of the two occurrences and they can hold different values; occurrences on branches that exclude each " +
		"other (an if and its else, two arms of one case) are not reported, and neither are options meant to be " +
		"repeated, nor two occurrences that both come from one variable (a reassignment is not told from an append). Keep one: guard the explicit option with the same condition, or drop it where the variable " +
		"already sets it.",
	Run: runSH015,
}

// repeatable are server options that take one value per occurrence and
// are meant to be given several times.
var repeatable = map[string]bool{
	"--lora-modules": true, "--middleware": true, "--allowed-origins": true, "--allowed-methods": true,
	"--allowed-headers": true, "--api-key": true,
}

func runSH015(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		for _, srv := range s.Head.Servers {
			reported := map[string]bool{}
			for i, a := range srv.Flags {
				name := script.NormFlag(a.Name)
				if reported[name] || repeatable[name] || !a.HasValue {
					continue
				}
				for _, b := range srv.Flags[i+1:] {
					if script.NormFlag(b.Name) != name || !b.HasValue || a.Value == b.Value || !a.Branch.Compatible(b.Branch) {
						continue
					}
					if !s.File.IsAdded(a.Line) && !s.File.IsAdded(b.Line) {
						continue
					}
					if a.Via != "" && a.Via == b.Via {
						// Two assignments of one variable or array: the
						// facts do not tell a reassignment from an append,
						// so this is not judged.
						continue
					}
					reported[name] = true
					p.Report(sh015Finding(s, srv, a, b))
					break
				}
			}
		}
	}
	return nil
}

// origin says where an occurrence comes from.
func origin(f script.Flag) string {
	if f.Via != "" {
		return fmt.Sprintf("through %s (line %d)", prose.Code("$"+f.Via), f.Line)
	}
	return fmt.Sprintf("on line %d", f.Line)
}

func sh015Finding(s *target, srv *script.Command, a, b script.Flag) checks.Finding {
	// The finding sits on the occurrence the PR wrote, the written one
	// first.
	at := b
	if s.File.IsAdded(a.Line) && (a.Via == "" || !s.File.IsAdded(b.Line)) {
		at = a
	}
	when := ""
	for _, f := range []script.Flag{a, b} {
		if !f.Branch.Unconditional() {
			when = " when " + prose.Code(f.Branch.String())
			break
		}
	}
	msg := fmt.Sprintf("The %s command (line %d) gets %s twice%s: %s %s and %s %s. The server keeps the last one, so the other "+
		"value is never used. Keep one of them: guard the explicit option with the same condition, or drop it where the "+
		"variable already sets it.",
		prose.Code(srv.Program), srv.Line, prose.Code(a.Name), when, prose.Code(a.Name+" "+a.Value), origin(a), prose.Code(b.Name+" "+b.Value), origin(b))
	ex := &checks.Explain{}
	ex.Problem().Printf("On one path of the script the command line holds %s twice, with different values (%s and %s).",
		prose.Code(a.Name), prose.Code(a.Value), prose.Code(b.Value))
	ex.Why().Printf("vLLM and SGLang parse their options with argparse, which keeps the last occurrence of an option: " +
		"the earlier value is silently dropped, and a later reorder of the command changes which one the run uses.")
	ex.Fix().Printf("Pass the option once on every path.")
	f := checks.Finding{
		Path:  s.Path,
		Line:  at.Line,
		Title: fmt.Sprintf("%s passed twice to %s", prose.Code(a.Name), prose.Code(srv.Program)),
		Body:  msg,
		Related: []checks.Location{
			{Path: s.Path, Line: a.Line, Note: "first " + a.Name},
			{Path: s.Path, Line: b.Line, Note: "second " + b.Name},
		},
		Key:   "flag-twice:" + srv.Program + ":" + script.NormFlag(a.Name),
		Facts: []string{"server:" + srv.Program},
	}
	ex.Apply(&f)
	return f
}
