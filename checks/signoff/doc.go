// Package signoff verifies a CODEOWNER's sign-off on a pull request, the
// way the repository's own verifier does, but deterministically: each of
// the checks 0-12 is decided from a named source (CODEOWNERS at base, the
// check runs of the PR's commits, the eval artifact, the upstream recipe
// PR, the reuse command, the base branch's checklist template, and the
// check library's rules on the change), and every verdict line cites it.
//
// The package does no I/O. Evidence that lives on GitHub (check runs,
// artifacts, upstream PR states, comments, team members) is gathered by
// the App, decided here by VerifySweep, VerifyEvals, VerifyRecipe and
// VerifyReuse, and handed back in as Input.GitHub; what the local
// repository has (CODEOWNERS, the checklist, the change itself) is read
// from the trees of a checks.Change. `reviewbot verify-signoff` runs the
// checks that need no GitHub on a local clone.
package signoff
