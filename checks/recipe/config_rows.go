package recipe

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// A recipe line the PR does not touch can still become wrong through the
// PR: the master config rows that run the recipe change. Seed 003 is the
// case: MAX_NUM_SEQS=$((2 * CONC)) was fine while no DP-attention row ran
// the B200 recipe, and the PR added one. These helpers find the rows the
// PR adds or changes for a recipe.

// ConfigRow is a search-space row of a master config that runs a recipe.
type ConfigRow struct {
	Path string // the master config file
	Key  string
	Row  *masterconfig.Row
}

// ChangedRows returns the master-config rows the PR adds or changes (no
// row of the same key at base has the same meaning) whose key runs the
// recipe at recipePath, in file and line order.
//
// A key runs a recipe when its name, without the scenario words that only
// select the directory ("agentic", "agentx"), spells the recipe's file name
// (dsv4-fp4-b200-vllm-agentic runs agentic/dsv4_fp4_b200_vllm.sh), and the
// key's scenario is the recipe's (agentic keys run agentic recipes). The
// launchers compute the file name the same way; a name that does not match
// exactly is left alone rather than guessed.
func ChangedRows(ctx context.Context, ch *checks.Change, recipePath string) ([]ConfigRow, error) {
	all, err := changedConfigRows(ctx, ch)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(path.Base(recipePath), path.Ext(recipePath))
	agentic := script.IsAgentic(recipePath)
	var out []ConfigRow
	for _, r := range all {
		if r.agentic == agentic && r.stem == stem {
			out = append(out, r.ConfigRow)
		}
	}
	return out, nil
}

type changedRow struct {
	ConfigRow
	stem    string
	agentic bool
}

func changedConfigRows(ctx context.Context, ch *checks.Change) ([]changedRow, error) {
	if ch.Config == nil {
		return nil, nil // outside checks.Review: no layout to find the configs by
	}
	keys, err := masterconfig.ChangedKeys(ctx, ch)
	if err != nil {
		return nil, err
	}
	var out []changedRow
	for _, k := range keys {
		for _, row := range k.Rows {
			out = append(out, changedRow{
				ConfigRow: ConfigRow{Path: k.Path, Key: k.Key.Name, Row: row},
				stem:      keyStem(k.Key.Name),
				agentic:   k.RowScenarios[row].Kind == masterconfig.AgenticCoding,
			})
		}
	}
	return out, nil
}

// scenarioWords are key segments that select a scenario, not a recipe.
var scenarioWords = []string{"agentic", "agentx"}

// keyStem is the recipe file stem a config key names.
func keyStem(key string) string {
	var parts []string
	for _, p := range strings.Split(key, "-") {
		if !slices.Contains(scenarioWords, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "_")
}
