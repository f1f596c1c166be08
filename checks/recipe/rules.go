package recipe

import (
	"github.com/reviewbot-dev/reviewbot/checks"
)

// Rules returns the recipe rules (SH*, RN*) in ID order. The list is the
// package's one declaration of its rules: a rule file defines its rule,
// and this list names it.
func Rules() []*checks.Rule {
	return []*checks.Rule{RN001, SH001, SH002, SH003, SH004, SH005, SH006, SH007, SH008, SH009, SH010, SH011, SH012, SH013, SH014}
}
