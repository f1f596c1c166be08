// Package recipe reviews the benchmark recipes and runner launchers: bash
// scripts that start an inference server with flags and environment from
// the sweep matrix, then run a benchmark client against it (the SH and RN
// rules, one file per rule, named by topic: sh002_simple_offload_env.go).
//
// The rules do not read shell source. They read the facts checks/recipe/
// script extracts from the syntax tree, loaded once per review and cached
// by blob ID.
//
// Where to start:
//   - HeadFacts / BaseFacts give the facts of a changed file, cached.
//   - Siblings gives the recipes the repository already agrees on: same
//     directory, same engine, as the base tree has them (or the PR, for
//     the ones it changes).
//   - What more than one rule needs is filed by concern: targets.go (the
//     scripts to judge), locations.go, comments.go, kvconfig.go,
//     values.go, branches.go, engines.go and suggestions.go.
package recipe

import (
	"github.com/reviewbot-dev/reviewbot/checks"
)

// Rules returns the recipe rules (SH*, RN*) in ID order. The list is the
// package's one declaration of its rules: a rule file defines its rule,
// and this list names it.
func Rules() []*checks.Rule {
	return []*checks.Rule{RN001, SH001, SH002, SH003, SH004, SH005, SH006, SH007, SH008, SH009, SH010, SH011, SH012, SH013, SH014, SH015, SH016, SH017, SH018, SH019, SH020, SH021, SH022, SH023, SH024, SH025, SH026, SH027, SH028, SH029, SH030, SH031, SH032, SH033, TX002}
}
