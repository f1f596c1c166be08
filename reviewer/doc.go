// Package reviewer turns the findings of the check library into what gets
// posted or printed: inline comment bodies, the summary comment, the commit
// status, and the local output formats of `reviewbot review` (text, JSON,
// markdown, SARIF, GitHub Actions annotations).
//
// It decides where each finding goes (an inline comment on a diff line, or
// the summary's "outside current diff" list), fingerprints findings so a
// re-review never posts the same one twice, and keeps every body within
// GitHub's size limit. It does no HTTP and knows nothing about go-github:
// the app executes the Plan this package builds.
package reviewer
