// Package app is the GitHub App: the webhook endpoint, event routing (one
// handler file per event), installation-token auth, reading pull requests
// through the REST API, and the execution of a reviewer plan against it.
//
// It is the only package that talks to GitHub. Data flows one way: app
// builds a checks.Change from the API (tree.go, change.go), checks returns
// findings, reviewer turns them into a plan, and app posts it
// (execute.go). review.go holds the one review function both a
// pull_request event and `@<name> review` run.
//
// The maintainers' reuse commands (slash.go parses them, reuse.go resolves
// their runs, commands.go replies) and CODEOWNER sign-offs (signoff.go
// decides the signed commit and publishes the verdict, evidence.go reads
// the evidence of checks 1-4; the signoff package decides every check)
// run in the same per-PR jobs.
//
// Deliveries are verified and acknowledged on the request path
// (server.go); the work runs on a dispatcher that serializes each PR's jobs
// (dispatch.go). The state shared across deliveries (seen delivery ids,
// per-PR leases) sits behind the DeliverySet and Locker interfaces
// (store.go), in memory by default; several replicas share it, with each
// PR's pending work, in Redis (redis*.go).
package app
