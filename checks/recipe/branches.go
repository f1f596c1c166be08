package recipe

// The branches of a script (case arms on sweep variables) as findings
// name them.

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// branchName describes where code at p runs, for messages: "the
// `vllm-simple)` arm", "the `if [ "$DP_ATTENTION" = "true" ]` branch", "the
// top level".
func branchName(p script.Branch) string {
	if len(p) == 0 {
		return "the top level"
	}
	c := p[len(p)-1]
	switch c.Kind {
	case script.CondCase:
		return "the " + prose.Code(strings.Join(c.Patterns, "|")+")") + " arm"
	case script.CondFunc:
		return "function " + prose.Code(c.Name+"()")
	case script.CondLoop:
		return "the loop " + prose.Code(c.Text)
	}
	if c.Else() {
		return "the else branch of " + prose.Code(c.Text)
	}
	return "the " + prose.Code("if "+c.Text) + " branch"
}

// caseArm returns the innermost case arm on p.
func caseArm(p script.Branch) (script.Cond, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Kind == script.CondCase {
			return p[i], true
		}
	}
	return script.Cond{}, false
}

// enterStep is the first step of a finding's step-by-step account: how a
// sweep point reaches the branch at path (a case arm on a matrix variable
// names the value that selects it).
func enterStep(path script.Branch) string {
	branch := branchName(path)
	if arm, ok := caseArm(path); ok && len(arm.Patterns) > 0 && !script.IsPattern(arm.Patterns[0]) {
		return fmt.Sprintf("A sweep point runs with `%s=%s` and enters %s (line %d).", arm.Var, arm.Patterns[0], branch, arm.Line)
	}
	return fmt.Sprintf("The script reaches %s.", branch)
}
