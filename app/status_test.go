package app

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// TestRepeatedReviewSetsStatusOnce: a head reviewed again (a second
// delivery for it, a replica repeating a run) keeps its one status; a
// status someone else set in the context since is replaced.
func TestRepeatedReviewSetsStatusOnce(t *testing.T) {
	h, pr, payload := serveSeed001(t)
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	for range 2 {
		h.deliver("pull_request", withAction(t, payload, "synchronize"), http.StatusAccepted)
		h.wait()
	}
	sts := h.fake.Statuses(pr.Base, pr.HeadSHA)
	if len(sts) != 1 {
		t.Fatalf("%d statuses after three reviews of one head, want 1", len(sts))
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteListStatuses)); n != 3 {
		t.Fatalf("%d status lookups, want one per review", n)
	}

	// A maintainer's workflow overwrites the context: the next review
	// sets the bot's status again.
	h.fake.AddToken("maintainer-token", "maintainer")
	gh := github.NewClient(nil).WithAuthToken("maintainer-token")
	gh.BaseURL, _ = gh.BaseURL.Parse(h.fake.APIURL())
	if _, _, err := gh.Repositories.CreateStatus(context.Background(), pr.Base.Owner, pr.Base.Name, pr.HeadSHA,
		&github.RepoStatus{State: github.String("success"), Context: github.String(post.StatusContext)}); err != nil {
		t.Fatal(err)
	}
	h.deliver("pull_request", withAction(t, payload, "synchronize"), http.StatusAccepted)
	h.wait()
	sts = h.fake.Statuses(pr.Base, pr.HeadSHA)
	if len(sts) != 3 || sts[2].GetState() != sts[0].GetState() || sts[2].GetCreator().GetLogin() != sts[0].GetCreator().GetLogin() {
		t.Fatalf("statuses %+v: want the bot's set again over the other one", sts)
	}
}
