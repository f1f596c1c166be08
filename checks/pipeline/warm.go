package pipeline

import (
	"context"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Warm builds the model of tree with every row resolved and the reverse
// index of the files rows reach, and keeps it in cache: the first review
// of a PR whose merge base is tree finds it, and one whose merge base is
// near it (a few merges later) takes it as donor. It is what a replica
// does before it reports ready; without a cache it does nothing.
func Warm(ctx context.Context, tree checks.Tree, cfg *checks.Config, cache *checks.ParseCache) error {
	if cache == nil {
		return nil
	}
	m, err := Build(ctx, tree, cfg, cache)
	if err != nil {
		return err
	}
	m.Reachers("")
	return ctx.Err()
}
