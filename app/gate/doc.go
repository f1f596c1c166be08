// Package gate is the CODEOWNER sign-off flow of the App: it decides
// which commit a sign-off signs, verifies it (package checks/signoff,
// with the evidence package sweep reads) and publishes the verdict as
// the StatusContext commit status.
//
// The gate is a required status: every rule of this package is an attack
// someone will try (docs/signoff.md).
//   - A sign-off is the visible text its author wrote: an edit by someone
//     else, the bot's own comments, a CHANGES_REQUESTED or dismissed
//     review are not sign-offs.
//   - It covers the head that was current when it was written: the commit
//     GitHub records for a review or review comment; for a conversation
//     comment, the head by the App's own record (state.Ledger), never a
//     commit date.
//   - Only someone who passes check 0 (a CODEOWNER of every changed path,
//     by name or through a team whose members were read) moves the
//     status; anyone else gets one short reply, and nothing is
//     downloaded.
//   - A verdict rests on the sign-off it verified (its source marker):
//     only the withdrawal of that sign-off re-opens the head's status.
package gate
