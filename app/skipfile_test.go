package app

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// garbledFiles serves the PR's files list with one file's patch replaced
// by text no diff parser reads.
func garbledFiles(t *testing.T, h *harness, pr *fakegithub.PR) *github.CommitFile {
	t.Helper()
	h.fake.AddToken("inspect", "inspector")
	clients, err := ghapi.NewTokenClients("inspect", "inspector", h.fake.APIURL(), ghapi.TransportChain(nil, testPolicy(h.sleeper), nil, quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := clients.Installation(context.Background(), 0, pr.Base.Owner, pr.Base.Name)
	files, _, err := gh.PullRequests.ListFiles(context.Background(), pr.Base.Owner, pr.Base.Name, pr.Number, &github.ListOptions{PerPage: 100})
	if err != nil || len(files) == 0 {
		t.Fatalf("files: %v %d", err, len(files))
	}
	victim := files[0]
	victim.Patch = github.String("@@ this is -not +a @@ hunk\n\x00\x01")
	body, err := json.Marshal(files)
	if err != nil {
		t.Fatal(err)
	}
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteFiles, Status: http.StatusOK, Body: string(body),
		Header: map[string]string{"Content-Type": "application/json"}})
	// The comparison that names the merge base lists the same files.
	cmp, _, err := gh.Repositories.CompareCommits(context.Background(), pr.Base.Owner, pr.Base.Name, pr.BaseSHA, pr.HeadSHA, &github.ListOptions{PerPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cmp.Files {
		if f.GetFilename() == victim.GetFilename() {
			f.Patch = victim.Patch
		}
	}
	if body, err = json.Marshal(cmp); err != nil {
		t.Fatal(err)
	}
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteCompare, Status: http.StatusOK, Body: string(body),
		Header: map[string]string{"Content-Type": "application/json"}})
	return victim
}

// One file the App cannot read must not cost the review of the others.
func TestUnreadableFileIsNamedNotFatal(t *testing.T) {
	t.Run("patch garbled, contents readable", func(t *testing.T) {
		h, pr, payload := serveSeed001(t)
		garbledFiles(t, h, pr)
		h.deliver("pull_request", payload, http.StatusAccepted)
		h.wait()
		golden(t, "seed001.posted.md", h.posted(pr)) // as if the patch had been read
	})
	t.Run("patch garbled, contents unreadable", func(t *testing.T) {
		h, pr, payload := serveSeed001(t)
		victim := garbledFiles(t, h, pr)
		h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteBlob, Status: http.StatusNotFound, Body: `{"message":"Not Found"}`,
			Match: func(r *http.Request, _ []byte) bool { return strings.HasSuffix(r.URL.Path, victim.GetSHA()) }})
		h.deliver("pull_request", payload, http.StatusAccepted)
		h.wait()
		summary := summaryOf(t, h, pr)
		if !strings.Contains(summary, "Not reviewed") || !strings.Contains(summary, "`"+victim.GetFilename()+"`") {
			t.Fatalf("summary:\n%s", summary)
		}
		var status bool
		for _, st := range h.fake.Statuses(pr.Base, pr.HeadSHA) {
			status = status || st.GetContext() == post.StatusContext
		}
		if !status {
			t.Fatalf("no review status:\n%s", h.posted(pr))
		}
	})
}
