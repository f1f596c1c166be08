package fakegithub

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"
)

// A PR's commits, team membership, and human comments with the fields
// sign-off verification reads (author association, times).

// Routes of this file.
const (
	RoutePullCommits = "GET /repos/{owner}/{repo}/pulls/{number}/commits"
	RouteTeamMembers = "GET /orgs/{org}/teams/{team_slug}/members"
	maxListedCommits = 250 // GitHub's cap on the PR commits list
)

func (s *Server) registerCommitRoutes() {
	handle := func(route string, h http.HandlerFunc) {
		method, pattern, _ := strings.Cut(route, " ")
		s.Handle(method, pattern, h)
	}
	handle(RoutePullCommits, s.listPullCommits)
	handle(RouteTeamMembers, s.listTeamMembers)
}

// diffLocked is the diff between two commits (cached: both are immutable).
func (s *Server) diffLocked(ctx context.Context, base, head *commit) ([]*prFile, error) {
	key := base.sha + ".." + head.sha
	if f, ok := s.diffCache[key]; ok {
		return f, nil
	}
	files, err := diffCommits(ctx, base, head)
	if err != nil {
		return nil, err
	}
	s.diffCache[key] = files
	return files, nil
}

// prCommitsLocked lists the PR's commits oldest first: the head's first
// parents back to the merge base with the base branch.
func (s *Server) prCommitsLocked(pr *PR) []*commit {
	mb := s.mergeBaseLocked(pr, pr.HeadSHA)
	var out []*commit
	for c := s.findCommitLocked(pr.HeadSHA); c != nil && c.sha != mb; c = s.parentLocked(c) {
		out = append(out, c)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// PRCommits lists the SHAs of the PR's commits, oldest first.
func (s *Server) PRCommits(pr *PR) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.prCommitsLocked(pr) {
		out = append(out, c.sha)
	}
	return out
}

func (s *Server) listPullCommits(w http.ResponseWriter, r *http.Request) {
	repo, pr, ok := s.authorizedPull(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	commits := s.prCommitsLocked(pr)
	s.mu.Unlock()
	if len(commits) > maxListedCommits {
		commits = commits[:maxListedCommits]
	}
	out := make([]*github.RepositoryCommit, 0, len(commits))
	for _, c := range commits {
		when := &github.Timestamp{Time: c.date}
		rc := &github.RepositoryCommit{SHA: github.String(c.sha),
			HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/commit/%s", repo.FullName(), c.sha)),
			Commit: &github.Commit{SHA: github.String(c.sha), Message: github.String(c.message),
				Tree:      &github.Tree{SHA: github.String(c.tree)},
				Author:    &github.CommitAuthor{Name: github.String("Fake Author"), Email: github.String("author@example.com"), Date: when},
				Committer: &github.CommitAuthor{Name: github.String("Fake Author"), Email: github.String("author@example.com"), Date: when}}}
		for _, p := range c.parents {
			rc.Parents = append(rc.Parents, &github.Commit{SHA: github.String(p)})
		}
		out = append(out, rc)
	}
	writeJSON(w, http.StatusOK, page(w, r, out))
}

// SetTeam makes org/slug a team with members that tokens may read. A
// team never set answers 404, as GitHub answers for a team the token
// cannot see.
func (s *Server) SetTeam(org, slug string, members ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.teams[strings.ToLower(org+"/"+slug)] = append([]string(nil), members...)
}

func (s *Server) listTeamMembers(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.caller(r); !ok {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	s.mu.Lock()
	members, ok := s.teams[strings.ToLower(chi.URLParam(r, "org")+"/"+chi.URLParam(r, "team_slug"))]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	out := make([]*github.User, 0, len(members))
	for _, m := range members {
		out = append(out, user(m))
	}
	writeJSON(w, http.StatusOK, page(w, r, out))
}

// CommentSpec is a human's conversation comment.
type CommentSpec struct {
	Login string
	// Association is the author_association (default NONE).
	Association string
	Body        string
	// Created is the comment's time (default now).
	Created time.Time
}

// AddComment posts a conversation comment as someone other than the App.
func (s *Server) AddComment(repo *Repo, number int, spec CommentSpec) github.IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.addIssueCommentLocked(repo, number, spec.Login, spec.Body)
	if spec.Association != "" {
		c.AuthorAssociation = github.String(spec.Association)
	}
	if !spec.Created.IsZero() {
		at := github.Timestamp{Time: spec.Created.UTC().Truncate(time.Second)}
		c.CreatedAt, c.UpdatedAt = &at, &at
	}
	if pr := repo.pulls[number]; pr != nil {
		pr.touch(c.GetCreatedAt().Time)
	}
	return *c
}

// EditComment changes a conversation comment's body as its author would,
// at time at (zero: now), and returns it.
func (s *Server) EditComment(repo *Repo, id int64, body string, at time.Time) (github.IssueComment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at.IsZero() {
		at = s.now()
	}
	for _, c := range repo.issueComments {
		if c.GetID() == id {
			c.Body = github.String(body)
			c.UpdatedAt = &github.Timestamp{Time: at.UTC().Truncate(time.Second)}
			return *c, nil
		}
	}
	return github.IssueComment{}, fmt.Errorf("no comment %d in %s", id, repo.FullName())
}

// DeleteComment removes a conversation comment.
func (s *Server) DeleteComment(repo *Repo, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range repo.issueComments {
		if c.GetID() == id {
			repo.issueComments = append(repo.issueComments[:i], repo.issueComments[i+1:]...)
			return
		}
	}
}
