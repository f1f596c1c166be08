package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// rule_examples.json holds, for every rule, one finding from the fixture
// PRs' expected.json goldens, so that `reviewbot rules ID` can show an
// example wherever the binary runs (no checkout needed). It is generated:
// go test ./cmd/reviewbot -run TestRuleExamples -update.
//
//go:embed rule_examples.json
var ruleExamplesJSON []byte

// ruleExample is a finding a rule reports on one of its fixture PRs.
type ruleExample struct {
	Fixture string         `json:"fixture"`
	Finding checks.Finding `json:"finding"`
}

var (
	examplesOnce sync.Once
	examples     map[string]*ruleExample
	examplesErr  error
)

func ruleExamples() (map[string]*ruleExample, error) {
	examplesOnce.Do(func() {
		if err := json.Unmarshal(ruleExamplesJSON, &examples); err != nil {
			examplesErr = fmt.Errorf("embedded rule examples: %w", err)
		}
	})
	return examples, examplesErr
}
