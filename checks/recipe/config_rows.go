package recipe

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
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
	agentic := IsAgentic(recipePath)
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
	v, err := ch.Memo("recipe.changed-config-rows", func() (any, error) {
		cfg := config(ctx, ch)
		var out []changedRow
		for _, fc := range ch.Files {
			if fc.Status == checks.Deleted || !fc.Changed() || !cfg.IsMasterConfig(fc.Path) {
				continue
			}
			head, err := parseMaster(ctx, ch, ch.Head, fc.Path)
			if err != nil || head == nil {
				return nil, err
			}
			oldPath := fc.Path
			if fc.OldPath != "" {
				oldPath = fc.OldPath
			}
			base, err := parseMaster(ctx, ch, ch.Base, oldPath)
			if err != nil {
				return nil, err
			}
			for _, k := range head.Keys {
				var old *masterconfig.Key
				if base != nil {
					old = base.Key(k.Name)
				}
				for _, sc := range k.Scenarios {
					for _, row := range sc.Rows {
						if old != nil && hasRow(old, sc.ID(), row.Hash) {
							continue
						}
						out = append(out, changedRow{
							ConfigRow: ConfigRow{Path: fc.Path, Key: k.Name, Row: row},
							stem:      keyStem(k.Name),
							agentic:   sc.Kind == masterconfig.AgenticCoding,
						})
					}
				}
			}
		}
		return out, nil
	})
	rows, _ := v.([]changedRow)
	return rows, err
}

// parseMaster parses a master config of tree (nil when absent).
func parseMaster(ctx context.Context, ch *checks.Change, t checks.Tree, p string) (*masterconfig.File, error) {
	f, err := checks.Parsed(ctx, ch.Cache, t, "recipe.master-config", p, masterconfig.ParseMasterConfig)
	if checks.IsNotExist(err) {
		return nil, nil
	}
	return f, err
}

func hasRow(k *masterconfig.Key, scenario string, hash uint64) bool {
	for _, sc := range k.Scenarios {
		if sc.ID() != scenario {
			continue
		}
		if slices.ContainsFunc(sc.Rows, func(r *masterconfig.Row) bool { return r.Hash == hash }) {
			return true
		}
	}
	return false
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
