package masterconfig

import (
	"context"
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// ChangedKey is a master-config key the PR adds or changes in meaning
// (formatting, comments and moved rows do not count), as the MC rules see
// it. Other domains (recipe rules that depend on the rows that run a
// recipe, sign-off verification) read the PR's config changes through it
// rather than deciding them again.
type ChangedKey struct {
	// Path is the master config file.
	Path string
	Key  *Key
	// Base is the key at base; nil when the PR adds it (or base could not
	// be read).
	Base *Key
	New  bool
	// HeaderChanged says a setting outside scenarios changed (image,
	// model, framework, ...).
	HeaderChanged bool
	// Rows are the head rows no base row of the key means the same as,
	// in file order.
	Rows []*Row
	// RowScenarios gives each of Rows its scenario block.
	RowScenarios map[*Row]*Scenario
	// BlocksChanged says a scenario block's own settings (isl, osl, ...)
	// are new or changed.
	BlocksChanged bool
	// RemovedRows and RemovedBlocks count the base rows and scenario
	// blocks that no head row or block of the key means the same as: the
	// points the PR drops (or rewrites, with the new row in Rows).
	RemovedRows, RemovedBlocks int
}

// Changed reports whether the PR changed the key's meaning in any way:
// added it, changed a setting, added, changed or removed a row or block.
func (k ChangedKey) Changed() bool {
	return k.New || k.HeaderChanged || k.BlocksChanged || len(k.Rows) > 0 || k.RemovedRows > 0 || k.RemovedBlocks > 0
}

// ChangedKeys returns the keys the PR adds or changes in meaning, including
// those it only removes rows or blocks from, in file and line order: the one
// answer to "which master-config keys did this PR change" for every rule
// (the MC rules, CL003) and the sign-off. ch.Config must be resolved
// (checks.Review does it).
func ChangedKeys(ctx context.Context, ch *checks.Change) ([]ChangedKey, error) {
	a, err := checks.Shared(ch, memoKey, "", func() (*analysis, error) { return analyze(&checks.Pass{Ctx: ctx, Change: ch}) })
	if err != nil {
		return nil, err
	}
	var out []ChangedKey
	for _, fs := range a.files {
		for _, ks := range fs.keys {
			if !ks.altered() {
				continue
			}
			ck := ChangedKey{Path: fs.path, Key: ks.key, Base: ks.base, New: ks.isNew, HeaderChanged: ks.headerChanged,
				RowScenarios: map[*Row]*Scenario{}, RemovedRows: ks.removedRows, RemovedBlocks: ks.removedBlocks}
			for _, c := range ks.blocks {
				ck.BlocksChanged = ck.BlocksChanged || c
			}
			for _, s := range ks.key.Scenarios {
				for _, r := range s.Rows {
					if ks.rows[r] {
						ck.Rows = append(ck.Rows, r)
						ck.RowScenarios[r] = s
					}
				}
			}
			sort.Slice(ck.Rows, func(i, j int) bool { return ck.Rows[i].Line < ck.Rows[j].Line })
			out = append(out, ck)
		}
	}
	return out, nil
}
