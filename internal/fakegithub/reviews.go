package fakegithub

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"
)

// People's reviews and review comments, for the sign-off tests: added,
// edited and dismissed the way GitHub records them, and read back one by
// one.

// Routes of this file.
const (
	RouteGetReview        = "GET /repos/{owner}/{repo}/pulls/{number}/reviews/{id}"
	RouteGetReviewComment = "GET /repos/{owner}/{repo}/pulls/comments/{id}"
)

func (s *Server) registerReviewRoutes() {
	s.Handle(http.MethodGet, "/repos/{owner}/{repo}/pulls/{number}/reviews/{id}", s.getReview)
	s.Handle(http.MethodGet, "/repos/{owner}/{repo}/pulls/comments/{id}", s.getReviewComment)
}

// ReviewSpec is a person's review.
type ReviewSpec struct {
	Login string
	// State is APPROVED, COMMENTED (default) or CHANGES_REQUESTED.
	State string
	Body  string
	// CommitID is the commit reviewed (default the PR's head).
	CommitID    string
	Association string
	// Submitted is the review's time (default now).
	Submitted time.Time
}

// AddReview submits a review as a person and returns it.
func (s *Server) AddReview(repo *Repo, pr *PR, spec ReviewSpec) github.PullRequestReview {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spec.State == "" {
		spec.State = "COMMENTED"
	}
	if spec.CommitID == "" {
		spec.CommitID = pr.HeadSHA
	}
	if spec.Submitted.IsZero() {
		spec.Submitted = s.now()
	}
	at := github.Timestamp{Time: spec.Submitted.UTC().Truncate(time.Second)}
	id := s.newID()
	rv := &review{number: pr.Number, PullRequestReview: github.PullRequestReview{ID: github.Int64(id),
		User: user(spec.Login), Body: github.String(spec.Body), CommitID: github.String(spec.CommitID),
		State: github.String(spec.State), SubmittedAt: &at, AuthorAssociation: github.String(spec.Association),
		HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/pull/%d#pullrequestreview-%d", repo.FullName(), pr.Number, id))}}
	repo.reviews = append(repo.reviews, rv)
	return rv.PullRequestReview
}

// DismissReview dismisses a review, as a maintainer (or branch
// protection on a push) does: its state becomes DISMISSED.
func (s *Server) DismissReview(repo *Repo, id int64) (github.PullRequestReview, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range repo.reviews {
		if rv.GetID() == id {
			rv.State = github.String("DISMISSED")
			return rv.PullRequestReview, nil
		}
	}
	return github.PullRequestReview{}, fmt.Errorf("no review %d in %s", id, repo.FullName())
}

// EditReview changes a review's body (GitHub keeps no record of who did
// in the review itself: the edited delivery's sender says).
func (s *Server) EditReview(repo *Repo, id int64, body string) (github.PullRequestReview, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range repo.reviews {
		if rv.GetID() == id {
			rv.Body = github.String(body)
			return rv.PullRequestReview, nil
		}
	}
	return github.PullRequestReview{}, fmt.Errorf("no review %d in %s", id, repo.FullName())
}

// ReviewCommentSpec is a person's inline review comment.
type ReviewCommentSpec struct {
	Login, Body, Path string
	Line              int
	// CommitID is the commit commented on (default the PR's head).
	CommitID string
	Created  time.Time
}

// AddReviewComment adds an inline comment in a review of its own.
func (s *Server) AddReviewComment(repo *Repo, pr *PR, spec ReviewCommentSpec) github.PullRequestComment {
	rv := s.AddReview(repo, pr, ReviewSpec{Login: spec.Login, CommitID: spec.CommitID, Submitted: spec.Created})
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.newID()
	at := rv.SubmittedAt
	pc := &github.PullRequestComment{ID: github.Int64(id), PullRequestReviewID: rv.ID, Path: github.String(spec.Path),
		Line: github.Int(spec.Line), Side: github.String("RIGHT"), Body: github.String(spec.Body),
		CommitID: rv.CommitID, OriginalCommitID: rv.CommitID, User: user(spec.Login), CreatedAt: at, UpdatedAt: at,
		HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", repo.FullName(), pr.Number, id))}
	for _, r := range repo.reviews {
		if r.GetID() == rv.GetID() {
			r.comments = append(r.comments, pc)
		}
	}
	return *pc
}

func (s *Server) getReview(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	n, _ := strconv.Atoi(chi.URLParam(r, "number"))
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range repo.reviews {
		if rv.GetID() == id && rv.number == n && (rv.GetState() != "PENDING" || rv.GetUser().GetLogin() == who.login) {
			writeJSON(w, http.StatusOK, &rv.PullRequestReview)
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) getReviewComment(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range repo.reviews {
		for _, c := range rv.comments {
			if c.GetID() == id && rv.GetState() != "PENDING" {
				writeJSON(w, http.StatusOK, c)
				return
			}
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
}
