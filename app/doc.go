// Package app will hold the GitHub App: the webhook endpoint, event
// routing (one handler file per event), installation-token auth, slash
// commands, sign-off verification, and the execution of a reviewer plan
// against the GitHub API.
//
// It is the only package that talks to GitHub. Data flows one way: app
// builds a checks.Change from the API, checks returns findings, reviewer
// turns them into a plan, and app posts it. Until the App lands, the same
// pipeline runs locally through `reviewbot review` (cmd/reviewbot).
package app
