package fakegithub

import "github.com/google/go-github/v62/github"

// What the App posted, for assertions. Each accessor returns copies, in
// the order the App posted them.

// PostedReview is one pull-request review with its inline comments.
type PostedReview struct {
	Review   github.PullRequestReview
	Comments []github.PullRequestComment
}

// Reviews lists the reviews on PR number of repo, pending ones included.
func (s *Server) Reviews(repo *Repo, number int) []PostedReview {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PostedReview
	for _, rv := range repo.reviews {
		if rv.number != number {
			continue
		}
		p := PostedReview{Review: rv.PullRequestReview}
		for _, c := range rv.comments {
			p.Comments = append(p.Comments, *c)
		}
		out = append(out, p)
	}
	return out
}

// IssueComments lists the conversation comments of PR number.
func (s *Server) IssueComments(repo *Repo, number int) []github.IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []github.IssueComment
	for _, c := range repo.issueComments {
		if issueNumber(c) == number {
			out = append(out, *c)
		}
	}
	return out
}

// Statuses lists the commit statuses set on sha, oldest first.
func (s *Server) Statuses(repo *Repo, sha string) []github.RepoStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []github.RepoStatus
	for _, st := range repo.statuses[sha] {
		out = append(out, *st)
	}
	return out
}

// Reactions lists the reactions on a conversation comment.
func (s *Server) Reactions(repo *Repo, commentID int64) []github.Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []github.Reaction
	for _, re := range repo.reactions[commentID] {
		out = append(out, *re)
	}
	return out
}

// CommitsWithStatuses lists the SHAs that carry commit statuses.
func (s *Server) CommitsWithStatuses(repo *Repo) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for sha := range repo.statuses {
		out = append(out, sha)
	}
	return out
}
