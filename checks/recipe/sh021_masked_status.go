package recipe

import (
	"fmt"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH021 reports a function whose trailing `set +x` hides the status of the
// program it ran.
var SH021 = &checks.Rule{
	ID:       "SH021",
	Severity: checks.Warning,
	Title:    "Function's exit status hidden by a trailing set +x",
	Doc: "A shell function returns the exit status of its last command. When a recipe, launcher or " +
		"`benchmark_lib.sh` function ends with `set +x` (or `{ set +x; } 2>/dev/null`) right after the program it " +
		"exists to run, that status is always 0: `set +x` cannot fail. A benchmark client or eval that crashed " +
		"then reads as a success to every caller that checks the result (`if f; then`, `f || exit 1`, `$?`, or a " +
		"call in a condition, where `set -e` does not apply), and the next steps run against a broken server or " +
		"upload partial results. This rule reports such a function the PR adds or changes. Keep " +
		"the status before turning tracing off: `local rc=$?`, then `set +x`, then `return $rc`.",
	Run: runSH021,
}

func runSH021(p *checks.Pass) error {
	ts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, s := range ts {
		for _, m := range s.Head.Masked {
			if s.touches(m.FuncLine, m.FuncEnd) {
				p.Report(sh021Finding(s, m))
			}
		}
	}
	return nil
}

func sh021Finding(s *target, m script.MaskedStatus) checks.Finding {
	msg := fmt.Sprintf("%s ends with %s right after the %s command of line %d, so it always returns 0: a function "+
		"returns the status of its last command, and %s cannot fail. If that command fails, a caller that checks "+
		"the result (%s, %s) sees a success and the job goes on as if it had worked. Keep the status: %s before "+
		"%s, then %s.",
		prose.Code(m.Func+"()"), prose.Code("set +x"), prose.Code(m.Cmd), m.CmdLine, prose.Code("set +x"),
		prose.Code("|| exit 1"), prose.Code("$?"), prose.Code("local rc=$?"), prose.Code("set +x"), prose.Code("return $rc"))
	ex := &checks.Explain{}
	ex.Problem().Printf("%s (lines %d-%d) ends with %s at line %d, after %s at line %d.", prose.Code(m.Func+"()"),
		m.FuncLine, m.FuncEnd, prose.Code("set +x"), m.Line, prose.Code(m.Cmd), m.CmdLine)
	ex.Why().Printf("A failed benchmark or eval must stop the job or be reported by its caller; with its status " +
		"replaced by that of `set +x`, the failure only shows in the log.")
	ex.Fix().Printf("Capture the status before turning tracing off:\n%s", prose.CodeBlock("bash",
		"    local rc=$?\n    set +x\n    return $rc"))
	f := checks.Finding{
		Path:    s.Path,
		Line:    m.Line,
		Title:   fmt.Sprintf("%s hides the exit status of %s", prose.Code(m.Func+"()"), prose.Code(m.Cmd)),
		Body:    msg,
		Related: []checks.Location{{Path: s.Path, Line: m.CmdLine, Note: "the command whose status is lost"}},
		Key:     "masked-status:" + m.Func,
		Facts:   []string{"set:+x"},
	}
	ex.Apply(&f)
	return f
}
