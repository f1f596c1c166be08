package pipeline

import (
	"fmt"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// TestConstantOverCounts judges numeric tests of a count (EP_SIZE from
// `ep`) over every whole number from 1 up, whichever way they are
// written, and reads the outcome of the test's own text from the then
// and the else branch alike.
func TestConstantOverCounts(t *testing.T) {
	tests := []struct {
		test     string
		count    string
		constant bool
		outcome  bool
	}{
		{`[ "$EP_SIZE" -ge 1 ]`, "ep", true, true},
		{`[ "$EP_SIZE" -gt 0 ]`, "ep", true, true},
		{`[[ $EP_SIZE -ge 1 ]]`, "ep", true, true},
		{`(( EP_SIZE >= 1 ))`, "ep", true, true},
		{`(( EP_SIZE ))`, "ep", true, true},
		{`[ "$EP_SIZE" -ne 0 ]`, "ep", true, true},
		{`[ 1 -le "$EP_SIZE" ]`, "ep", true, true},
		{`[ "$EP_SIZE" -lt 1 ]`, "ep", true, false},
		{`[ "$EP_SIZE" -le 0 ]`, "ep", true, false},
		{`[ "$EP_SIZE" -eq 0 ]`, "ep", true, false},
		{`[ ! "$EP_SIZE" -ge 1 ]`, "ep", true, false},
		{`[ 1 -gt "$EP_SIZE" ]`, "ep", true, false},
		// The usual switches: they tell 1 from more.
		{`[ "$EP_SIZE" -gt 1 ]`, "ep", false, false},
		{`[ "${EP_SIZE:-1}" -gt 1 ]`, "ep", false, false},
		{`[ "$EP_SIZE" -ge 2 ]`, "ep", false, false},
		{`[ 2 -le "$EP_SIZE" ]`, "ep", false, false},
		{`[ "$EP_SIZE" -eq 1 ]`, "ep", false, false},
		{`[ "$EP_SIZE" = 8 ]`, "ep", false, false},
		{`(( EP_SIZE > 1 ))`, "ep", false, false},
		// Not a count: nothing is known beyond the rows.
		{`[ "$EP_SIZE" -ge 1 ]`, "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.test+"/"+tc.count, func(t *testing.T) {
			src := fmt.Sprintf("if %s; then\n  EP=on\nelse\n  EP=off\nfi\n", tc.test)
			f, err := script.Parse("t.sh", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			d := &domain{values: []string{"1"}, count: tc.count}
			conds := allConds(f)
			if len(conds) != 2 {
				t.Fatalf("want the then and the else condition, got %d: %v", len(conds), conds)
			}
			for _, c := range conds {
				ct, ok := constantOverCounts(c, d)
				if ok != tc.constant {
					t.Fatalf("%s (else %v): constant = %v, want %v", c, c.Else(), ok, tc.constant)
				}
				if ok && ct.outcome != tc.outcome {
					t.Errorf("%s (else %v): outcome = %v, want %v", c, c.Else(), ct.outcome, tc.outcome)
				}
			}
		})
	}
}

// TestCountVars finds the count input a template fills a variable from,
// and nothing for a variable filled otherwise (the last definition wins).
func TestCountVars(t *testing.T) {
	tm := &Template{Env: []EnvDef{
		{Var: "EP_SIZE", Expr: "${{ inputs.ep }}"},
		{Var: "TP", Expr: "${{inputs.tp}}"},
		{Var: "DP_ATTENTION", Expr: "${{ inputs.dp-attn }}"},
		{Var: "ISL", Expr: "${{ inputs.isl }}"},
		{Var: "PP_SIZE", Expr: "${{ inputs.pp }}"},
		{Var: "PP_SIZE", Expr: "2"},
	}, Launch: &LaunchStep{Env: []EnvDef{{Var: "CONC", Expr: "${{ inputs.conc }}"}}}}
	got := tm.countVars()
	for name, want := range map[string]string{"EP_SIZE": "ep", "TP": "tp", "CONC": "conc", "DP_ATTENTION": "", "ISL": "", "PP_SIZE": "", "NONE": ""} {
		if got[name] != want {
			t.Errorf("countVars()[%s] = %q, want %q", name, got[name], want)
		}
	}
	var none *Template
	if got := none.countVars(); len(got) != 0 {
		t.Errorf("nil template: %v", got)
	}
}
