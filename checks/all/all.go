// Package all assembles every rule of the check library into the registry
// the CLI and the App run.
package all

import (
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/changelog"
	"github.com/reviewbot-dev/reviewbot/checks/comments"
	"github.com/reviewbot-dev/reviewbot/checks/convention"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/multinode"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

var (
	once sync.Once
	reg  *checks.Registry
	err  error
)

// Registry returns the registry of every rule. The order does not matter:
// a rule that reads others' findings (CV001, RB003) declares it in After,
// and the registry runs it after them. The error can only be a duplicate,
// incomplete or cyclic rule, a programming error every test run catches.
func Registry() (*checks.Registry, error) {
	once.Do(func() {
		var rules []*checks.Rule
		rules = append(rules, changelog.Rules()...)
		rules = append(rules, masterconfig.Rules()...)
		rules = append(rules, recipe.Rules()...)
		rules = append(rules, pipeline.Rules()...)
		rules = append(rules, multinode.Rules()...)
		rules = append(rules, convention.Rules()...)
		rules = append(rules, comments.Rules()...)
		rules = append(rules, checks.Rules()...)
		reg, err = checks.NewRegistry(rules...)
	})
	return reg, err
}
