package fakegithub

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func twoCommitPR(t *testing.T, s *Server) *PR {
	t.Helper()
	ctx := context.Background()
	pr, err := s.AddPR(ctx, PRSpec{Repo: "o/r", Number: 3, Base: checks.NewMemTree(map[string]string{"a": "1\n"}),
		Head: checks.NewMemTree(map[string]string{"a": "2\n"}), HeadDate: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PushAt(ctx, pr, checks.NewMemTree(map[string]string{"a": "3\n"}), "", time.Date(2026, 8, 2, 10, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return pr
}

func TestPullCommitsAndForcePush(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	pr := twoCommitPR(t, s)
	c := client(t, s)
	commits, _, err := c.PullRequests.ListCommits(ctx, "o", "r", 3, &github.ListOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 2 || commits[1].GetSHA() != pr.HeadSHA {
		t.Fatalf("commits %v, want two ending at the head %s", commits, pr.HeadSHA)
	}
	if d := commits[0].GetCommit().GetCommitter().GetDate().Time; !d.Equal(time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("first commit dated %v", d)
	}
	first := commits[0].GetSHA()
	if _, err := s.ForcePush(ctx, pr, checks.NewMemTree(map[string]string{"a": "4\n"}), "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	after := s.PRCommits(pr)
	if len(after) != 1 || after[0] == first {
		t.Fatalf("after a force push the PR has %v", after)
	}
	got, _, err := c.PullRequests.Get(ctx, "o", "r", 3)
	if err != nil || got.GetCommits() != 1 {
		t.Fatalf("PR commits count %d (%v)", got.GetCommits(), err)
	}
	// The compare API lists the files like the files API.
	cmp, _, err := c.Repositories.CompareCommits(ctx, "o", "r", pr.BaseSHA, first, nil)
	if err != nil || len(cmp.Files) != 1 || cmp.Files[0].GetPatch() != "@@ -1 +1 @@\n-1\n+2" {
		t.Fatalf("compare files %+v (%v)", cmp.Files, err)
	}
}

func TestCheckRunsPagesAndLatest(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	pr := twoCommitPR(t, s)
	var runs []CheckRunSpec
	for range 130 {
		runs = append(runs, CheckRunSpec{Name: "single-node 8k1k / x", Conclusion: "success", RunID: 77})
	}
	// Distinct names so that "latest" keeps them all, then one re-run.
	for i := range runs {
		runs[i].Name += strings.Repeat("i", i)
	}
	runs = append(runs, CheckRunSpec{Name: runs[0].Name, Conclusion: "failure", RunID: 78})
	s.AddCheckRuns(pr.Base, pr.HeadSHA, runs...)
	c := client(t, s)
	var all []*github.CheckRun
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		res, resp, err := c.Checks.ListCheckRunsForRef(ctx, "o", "r", pr.HeadSHA, opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, res.CheckRuns...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 130 {
		t.Fatalf("%d check runs, want 130 (the re-run replaces its first attempt)", len(all))
	}
	var rerun *github.CheckRun
	for _, r := range all {
		if r.GetName() == runs[0].Name {
			rerun = r
		}
	}
	if rerun.GetConclusion() != "failure" || !strings.Contains(rerun.GetDetailsURL(), "/actions/runs/78/job/") {
		t.Fatalf("re-run %+v", rerun)
	}
	if _, _, err := c.Checks.ListCheckRunsForRef(ctx, "o", "r", strings.Repeat("0", 40), nil); err == nil {
		t.Fatal("check runs of an unknown commit")
	}
}

func TestWorkflowRunsAndArtifacts(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	pr := twoCommitPR(t, s)
	repo := pr.Base
	t0 := time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC)
	old := s.AddWorkflowRun(repo, WorkflowRunSpec{Conclusion: "success", HeadSHA: pr.HeadSHA, HeadBranch: pr.HeadRef, Created: t0})
	newer := s.AddWorkflowRun(repo, WorkflowRunSpec{Conclusion: "failure", HeadSHA: pr.HeadSHA, HeadBranch: pr.HeadRef, Created: t0.Add(time.Hour)})
	s.AddWorkflowRun(repo, WorkflowRunSpec{Event: "push", Conclusion: "success", HeadBranch: "main", Created: t0.Add(2 * time.Hour)})
	s.AddWorkflowRun(repo, WorkflowRunSpec{Workflow: "other.yml", Conclusion: "success", HeadBranch: pr.HeadRef})
	zipData := []byte("PK\x05\x06" + strings.Repeat("\x00", 18))
	live := s.AddArtifact(repo, old, ArtifactSpec{Name: "eval_results_all", Data: zipData})
	gone := s.AddArtifact(repo, old, ArtifactSpec{Name: "results_bmk", Data: zipData, Expired: true})
	c := client(t, s)

	list, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "o", "r", "run-sweep.yml",
		&github.ListWorkflowRunsOptions{Event: "pull_request", Branch: pr.HeadRef, Status: "completed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.WorkflowRuns) != 2 || list.WorkflowRuns[0].GetID() != newer || list.WorkflowRuns[1].GetID() != old {
		t.Fatalf("runs %+v, want newest first, pull_request only", list.WorkflowRuns)
	}
	if only, _, _ := c.Actions.ListWorkflowRunsByFileName(ctx, "o", "r", "run-sweep.yml", &github.ListWorkflowRunsOptions{Status: "success"}); only.GetTotalCount() != 2 {
		t.Fatalf("status=success lists %d runs, want 2 (a conclusion filters too)", only.GetTotalCount())
	}
	wf, _, err := c.Actions.GetWorkflowByFileName(ctx, "o", "r", "run-sweep.yml")
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx, "o", "r", old)
	if err != nil || run.GetWorkflowID() != wf.GetID() || run.GetHeadSHA() != pr.HeadSHA || run.GetEvent() != "pull_request" {
		t.Fatalf("run %+v (%v)", run, err)
	}
	if _, _, err := c.Actions.GetWorkflowRunByID(ctx, "o", "r", 999); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown run: %v", err)
	}
	arts, _, err := c.Actions.ListWorkflowRunArtifacts(ctx, "o", "r", old, nil)
	if err != nil || len(arts.Artifacts) != 2 || arts.Artifacts[1].GetExpired() != true {
		t.Fatalf("artifacts %+v (%v)", arts, err)
	}

	// The archive: a redirect to storage that takes no token.
	u, _, err := c.Actions.DownloadArtifact(ctx, "o", "r", live, 0)
	if err != nil {
		t.Fatal(err)
	}
	get := func(auth string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, b := get(""); code != http.StatusOK || string(b) != string(zipData) {
		t.Fatalf("storage: %d %q", code, b)
	}
	if code, _ := get("token tok"); code != http.StatusBadRequest {
		t.Fatalf("storage with a token: %d, want 400", code)
	}
	if _, _, err := c.Actions.DownloadArtifact(ctx, "o", "r", gone, 0); err == nil || !strings.Contains(err.Error(), "410") {
		t.Fatalf("expired artifact: %v", err)
	}
	s.Inject(ServerError(RouteArtifactStorage, http.StatusServiceUnavailable, 1))
	if code, _ := get(""); code != http.StatusServiceUnavailable {
		t.Fatalf("injected storage fault: %d", code)
	}
}

func TestTeamsAndComments(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	pr := twoCommitPR(t, s)
	c := client(t, s)
	if _, _, err := c.Teams.ListTeamMembersBySlug(ctx, "org", "core", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unset team: %v", err)
	}
	s.SetTeam("Org", "core", "alice", "bob")
	users, _, err := c.Teams.ListTeamMembersBySlug(ctx, "org", "core", nil)
	if err != nil || len(users) != 2 || users[1].GetLogin() != "bob" {
		t.Fatalf("members %v (%v)", users, err)
	}
	at := time.Date(2026, 8, 7, 9, 0, 0, 0, time.UTC)
	cm := s.AddComment(pr.Base, pr.Number, CommentSpec{Login: "carol", Association: "COLLABORATOR", Body: "/use 1", Created: at})
	edited, err := s.EditComment(pr.Base, cm.GetID(), "/use 2", at.Add(time.Minute))
	if err != nil || edited.GetBody() != "/use 2" || !edited.GetCreatedAt().Time.Equal(at) || !edited.GetUpdatedAt().Time.Equal(at.Add(time.Minute)) {
		t.Fatalf("edited %+v (%v)", edited, err)
	}
	list, _, err := c.Issues.ListComments(ctx, "o", "r", pr.Number, nil)
	if err != nil || len(list) != 1 || list[0].GetAuthorAssociation() != "COLLABORATOR" {
		t.Fatalf("comments %+v (%v)", list, err)
	}
	s.DeleteComment(pr.Base, cm.GetID())
	if list, _, _ := c.Issues.ListComments(ctx, "o", "r", pr.Number, nil); len(list) != 0 {
		t.Fatal("deleted comment still listed")
	}
	s.SetState(pr, "closed", true)
	if got, _, _ := c.PullRequests.Get(ctx, "o", "r", pr.Number); !got.GetMerged() || got.GetState() != "closed" {
		t.Fatalf("merged PR: %v %v", got.GetMerged(), got.GetState())
	}
}
