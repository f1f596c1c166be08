package recipe

import (
	"context"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline"
)

// A recipe line the PR does not touch can still become wrong through the
// PR: the master config rows that run the recipe change. A real B200 PR is
// the case: MAX_NUM_SEQS=$((2 * CONC)) was fine while no DP-attention row ran
// the B200 recipe, and the PR added one. These helpers find the rows the
// PR adds or changes for a recipe.

// ConfigRow is a search-space row of a master config that runs a recipe.
type ConfigRow struct {
	Path string // the master config file
	Key  string
	Row  *masterconfig.Row
}

// ChangedRows returns the master-config rows the PR adds or changes (no
// row of the same key at base has the same meaning) that run the recipe at
// recipePath, in file and line order. A row runs a recipe when the
// pipeline model (checks/pipeline) follows its job through the workflow
// template and its runners' launchers to that file on some path.
func ChangedRows(ctx context.Context, ch *checks.Change, recipePath string) ([]ConfigRow, error) {
	rows, err := pipeline.ChangedRowsReaching(ctx, ch, recipePath)
	if err != nil {
		return nil, err
	}
	out := make([]ConfigRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, ConfigRow{Path: r.File, Key: r.Key.Name, Row: r.Row})
	}
	return out, nil
}
