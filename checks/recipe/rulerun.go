package recipe

import (
	"fmt"
	"slices"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// eachChangedRecipe runs check on every recipe the PR adds or changes, in
// path order, and stops at the first error: the Run of a rule that judges
// one recipe at a time.
func eachChangedRecipe(p *checks.Pass, check func(*checks.Pass, *target) error) error {
	ts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := check(p, t); err != nil {
			return err
		}
	}
	return nil
}

// changedRecipesAndRunners returns the recipes, then the runner
// launchers, that the PR adds or changes: the scripts that run inside the
// benchmark container either way.
func changedRecipesAndRunners(p *checks.Pass) ([]*target, error) {
	recipes, err := changedRecipes(p)
	if err != nil {
		return nil, err
	}
	runners, err := changedRunners(p)
	if err != nil {
		return nil, err
	}
	return slices.Concat(recipes, runners), nil
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
