// Package checks is reviewbot's check library: pure analysis of a pull
// request's change, with no network access and no GitHub types.
//
// A Rule is a value with a stable ID, a default severity, a title, a doc
// paragraph written for the PR author, and a Run function. Run receives a
// Pass, which hands it exactly what it may read: the base and head trees
// (read lazily through the Tree interface), the per-file diff, the PR
// metadata and the repository configuration. Rules report Findings; a
// finding's related locations are the evidence (sibling files, base
// versions, policy rows) that explain it.
//
// The domain packages (checks/changelog, checks/masterconfig,
// checks/recipe, checks/convention) define the rules; checks/all
// assembles them into the registry the CLI and the App use.
package checks
