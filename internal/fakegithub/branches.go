package fakegithub

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"
)

// A repository and its branches, as a replica that warms its caches reads
// them: which branch is the default one, and the commit (and root tree) it
// points to.

// Routes of this file.
const (
	RouteRepo   = "GET /repos/{owner}/{repo}"
	RouteBranch = "GET /repos/{owner}/{repo}/branches/{branch}"
)

func (s *Server) registerBranchRoutes() {
	handle := func(route string, h http.HandlerFunc) {
		method, pattern, _ := strings.Cut(route, " ")
		s.Handle(method, pattern, h)
	}
	handle(RouteRepo, s.getRepo)
	handle(RouteBranch, s.getBranch)
}

// SetBranch points a branch of repo ("owner/name") at commit sha; it
// reports false when the repository or the commit is unknown. Adding a PR
// points its base branch at the PR's base already.
func (s *Server) SetBranch(full, branch, sha string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := s.repos[strings.ToLower(full)]
	if repo == nil || repo.objects.commits[sha] == nil {
		return false
	}
	repo.branches[branch] = sha
	return true
}

// getRepo answers "Get a repository": the repository with its default
// branch (always main here).
func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	out := s.repoJSON(repo)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// getBranch answers "Get a branch": its name and its head commit, with the
// commit's root tree, as GitHub nests them (commit.commit.tree.sha).
func (s *Server) getBranch(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	name := chi.URLParam(r, "branch")
	s.mu.Lock()
	sha, found := repo.branches[name]
	var c *commit
	if found {
		c = s.findCommitLocked(sha)
	}
	s.mu.Unlock()
	if c == nil {
		writeError(w, http.StatusNotFound, "Branch not found")
		return
	}
	api := s.URL + "/repos/" + repo.FullName()
	parents := make([]*github.Commit, len(c.parents))
	for i, p := range c.parents {
		parents[i] = &github.Commit{SHA: github.String(p), URL: github.String(api + "/commits/" + p)}
	}
	writeJSON(w, http.StatusOK, &github.Branch{
		Name:      github.String(name),
		Protected: github.Bool(false),
		Commit: &github.RepositoryCommit{
			SHA: github.String(c.sha),
			URL: github.String(api + "/commits/" + c.sha),
			Commit: &github.Commit{
				Message: github.String(c.message),
				Tree:    &github.Tree{SHA: github.String(c.tree)},
			},
			Parents: parents,
		},
	})
}
