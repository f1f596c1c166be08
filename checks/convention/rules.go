// Package convention mines the conventions a group of sibling recipes
// agrees on and reports a changed recipe that breaks one (CV rules): bugs
// as deviant behavior.
package convention

import (
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

// Rules returns the convention rules.
func Rules() []*checks.Rule { return []*checks.Rule{CV001} }

// afterRecipeRules is what CV001 runs after: every hand-written recipe
// rule, whose findings it does not repeat (the owners table names the
// beliefs they judge; their reported facts are a second guard).
func afterRecipeRules() []string {
	var ids []string
	for _, r := range recipe.Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}
