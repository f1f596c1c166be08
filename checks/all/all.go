// Package all assembles every rule of the check library into the registry
// the CLI and the App run.
package all

import (
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/changelog"
	"github.com/reviewbot-dev/reviewbot/checks/convention"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

var (
	once sync.Once
	reg  *checks.Registry
	err  error
)

// Registry returns the registry of every rule, in run order: changelog,
// master configs, recipes, then convention mining (which needs to see the
// hand-written rules' findings first). The error can only be a duplicate
// or incomplete rule, a programming error every test run catches.
func Registry() (*checks.Registry, error) {
	once.Do(func() {
		var rules []*checks.Rule
		rules = append(rules, changelog.Rules()...)
		rules = append(rules, masterconfig.Rules()...)
		rules = append(rules, recipe.Rules()...)
		// Last: CV001 reads the findings of the hand-written rules.
		rules = append(rules, convention.Rules()...)
		// reviewbot's own rules; RB003 reads every other rule's findings.
		rules = append(rules, checks.Rules()...)
		reg, err = checks.NewRegistry(rules...)
	})
	return reg, err
}
