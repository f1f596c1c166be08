// Package convention mines the conventions a group of sibling recipes
// agrees on and reports a changed recipe that breaks one (CV rules): bugs
// as deviant behavior.
package convention

import (
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// registered collects the convention rules; each rule file registers its
// rule in an init function.
var registered []*checks.Rule

func register(r *checks.Rule) { registered = append(registered, r) }

// Rules returns the convention rules in ID order.
func Rules() []*checks.Rule {
	out := append([]*checks.Rule(nil), registered...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
