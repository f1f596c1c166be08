package ghapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
)

// MaxPages bounds any paginated list the App reads whole (10,000 items at
// 100 a page): a list longer than that is an error, not a hang.
const MaxPages = 100

// Pages is the one pagination loop: it reads a list 100 items a page and
// hands each page to each, until the list ends, each returns false, or
// maxPages pages are read. It reports whether the list ended or each
// stopped it (false: maxPages cut it short). A list whose options embed
// github.ListOptions copies the page it is given into its own options.
func Pages[T any](maxPages int, list func(opts *github.ListOptions) ([]T, *github.Response, error), each func(page []T) (more bool)) (bool, error) {
	opts := &github.ListOptions{PerPage: 100}
	for pages := 0; pages < maxPages; pages++ {
		items, resp, err := list(opts)
		if err != nil {
			return false, err
		}
		if !each(items) || resp == nil || resp.NextPage == 0 {
			return true, nil
		}
		opts.Page = resp.NextPage
	}
	return false, nil
}

// ListAll reads every item of a list (at most MaxPages pages).
func ListAll[T any](ctx context.Context, list func(opts *github.ListOptions) ([]T, *github.Response, error)) ([]T, error) {
	return ListUpTo(ctx, 0, list)
}

// ListUpTo is ListAll that stops after the page which brings the items to
// limit or more (0: no limit); the caller decides what a cut list means.
func ListUpTo[T any](ctx context.Context, limit int, list func(opts *github.ListOptions) ([]T, *github.Response, error)) ([]T, error) {
	var out []T
	ended, err := Pages(MaxPages, func(opts *github.ListOptions) ([]T, *github.Response, error) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		return list(opts)
	}, func(page []T) bool {
		out = append(out, page...)
		return limit <= 0 || len(out) < limit
	})
	if err != nil {
		return nil, err
	}
	if !ended {
		return nil, fmt.Errorf("more than %d pages", MaxPages)
	}
	return out, nil
}

// Repo is a client acting on one repository.
type Repo struct {
	Client      *github.Client
	Owner, Name string
}

// Slug is "owner/name".
func (r *Repo) Slug() string { return r.Owner + "/" + r.Name }

// PR reads pull request number of the repository.
func (r *Repo) PR(ctx context.Context, number int) (*github.PullRequest, error) {
	pr, _, err := r.Client.PullRequests.Get(ctx, r.Owner, r.Name, number)
	return pr, err
}

// IssueComments reads every conversation comment of issue or PR number.
func (r *Repo) IssueComments(ctx context.Context, number int) ([]*github.IssueComment, error) {
	opts := &github.IssueListCommentsOptions{}
	all, err := ListAll(ctx, func(lo *github.ListOptions) ([]*github.IssueComment, *github.Response, error) {
		opts.ListOptions = *lo
		return r.Client.Issues.ListComments(ctx, r.Owner, r.Name, number, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the comments of %s#%d: %w", r.Slug(), number, err)
	}
	return all, nil
}

// IsUser reports whether u is the account login (GitHub logins are
// case-insensitive).
func IsUser(u *github.User, login string) bool {
	return u != nil && strings.EqualFold(u.GetLogin(), login)
}
