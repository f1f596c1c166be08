// Package masterconfig checks the master configs (configs/*-master.yaml,
// also under inferencex-e2e/): the MC rules.
//
// Every rule judges only what the PR adds or changes. A config key is
// changed when it is new or its lines are touched and its meaning differs
// from base; a search-space row is changed when no row of the same key and
// scenario at base means the same thing, so a moved or reformatted row is
// unchanged. An untouched old row never produces a finding.
//
// The rules share one parsed model per review (checks.Shared), and
// parsed files are cached by blob ID (checks.Parsed), so a warm review of
// the ~320 KB NVIDIA master config does not parse it again. A file is
// parsed one top-level key at a time and each key is cached by its text,
// so a cold review parses the base and then only the keys the PR changed.
//
// Rows, blocks and headers are compared by their typed YAML data
// (yamlx.Canon): aliases and merge keys are expanded and style, key order
// and comments ignored, but `tp: 8` and `tp: "8"` differ, as they do for
// the sweep generator loading the file.
package masterconfig

import "github.com/reviewbot-dev/reviewbot/checks"

// Rules returns the master-config rules in run order. A file MC006
// reports (it does not parse, or repeats a key) is skipped by the others.
func Rules() []*checks.Rule {
	return []*checks.Rule{mc001, mc002, mc003, mc004, mc005, mc006, mc007, mc008, mc009, mc010, mc011}
}
