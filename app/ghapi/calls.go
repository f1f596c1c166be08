package ghapi

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
)

// CallCounter counts the GitHub calls of one job.
type CallCounter struct{ n atomic.Int64 }

type callCounterKey struct{}

// WithCallCounter counts the GitHub calls made with the context it returns.
func WithCallCounter(ctx context.Context) (context.Context, *CallCounter) {
	c := &CallCounter{}
	return context.WithValue(ctx, callCounterKey{}, c), c
}

// Total is the number of calls so far.
func (c *CallCounter) Total() int { return int(c.n.Load()) }

// Observer is told of every GitHub call, by route template
// (RouteOf) and HTTP status (0: no response).
type Observer interface {
	APICall(route string, status int)
}

// countingTransport counts every attempt, retries included, so the
// metrics show what GitHub saw.
type countingTransport struct {
	observer Observer
	next     http.RoundTripper
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	route := RouteOf(req.Method, req.URL.Path)
	if c, ok := req.Context().Value(callCounterKey{}).(*CallCounter); ok {
		c.n.Add(1)
	}
	resp, err := t.next.RoundTrip(req)
	if t.observer != nil {
		t.observer.APICall(route, statusOf(resp))
	}
	return resp, err
}

// routeWords are the literal path segments of the GitHub routes; any other
// segment is an identifier, so the route label has bounded cardinality.
var routeWords = map[string]bool{
	"app": true, "installations": true, "access_tokens": true, "installation": true, "user": true,
	"repos": true, "pulls": true, "issues": true, "comments": true, "reviews": true, "files": true,
	"compare": true, "git": true, "trees": true, "blobs": true, "statuses": true, "status": true,
	"commits": true, "reactions": true, "labels": true, "events": true, "check-runs": true,
	"check-suites": true, "actions": true, "runs": true, "artifacts": true, "zip": true, "jobs": true,
	"workflows": true, "merge": true, "requested_reviewers": true, "collaborators": true,
	"permission": true, "teams": true, "orgs": true, "members": true, "memberships": true, "contents": true,
}

// RouteOf turns a request path into its route template,
// "GET /repos/{owner}/{repo}/pulls/{id}/files". A GitHub Enterprise
// prefix (/api/v3) is dropped.
func RouteOf(method, path string) string {
	path = strings.TrimPrefix(path, "/api/v3")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		switch {
		case i == 1 && segs[0] == "repos":
			segs[i] = "{owner}"
		case i == 2 && segs[0] == "repos":
			segs[i] = "{repo}"
		case !routeWords[s]:
			segs[i] = "{id}"
		}
	}
	return method + " /" + strings.Join(segs, "/")
}
