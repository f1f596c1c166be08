// Package ghapi is the App's access to GitHub's REST API: who it is (App
// JWT and installation tokens in auth.go, a single token in client.go,
// checked at start-up in credentials.go), how each call is sent (retries
// and rate limits in retry.go, counted per route in calls.go), how an
// answer is classified (errors.go) and how lists and pull requests are read
// (list.go). Nothing here knows what the App does with the answers.
package ghapi
