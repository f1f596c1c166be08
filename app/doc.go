// Package app is the GitHub App: the webhook endpoint (server.go), event
// routing with one handler file per event, the jobs each PR's deliveries
// become and their dispatch (jobs.go, dispatch.go), and the flows those
// jobs run: the review (review.go, the one review function both a
// pull_request event and `@<name> review` run), the replies to the
// maintainers' reuse commands (commands.go, help.go), the sign-off deliveries
// handed to package gate, crash accounting (deadletter.go) and the
// metrics' cache figures (cachemetrics.go; package metrics holds the rest).
//
// Data flows one way: package prtree reads a checks.Change through the
// API, checks returns findings, reviewer turns them into a plan, and
// package post writes it. The rooms below do one thing each and never
// import app: ghapi (GitHub access), prtree (a PR as a checks.Change),
// comment (the comment parser and its authorization rule), post (every
// write to a PR), state (what is shared across deliveries and replicas,
// in memory or Redis; redis_server.go and redis_work.go are the App's side
// of it), standing (whether a comment or review is a sign-off that stands,
// and the commit it signs), gate (the sign-off flow: which commit is
// signed, its verification and the published verdict) and sweep (the
// evidence of a sign-off's checks 1-4).
package app
