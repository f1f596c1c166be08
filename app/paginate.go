package app

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// maxListPages bounds any paginated list the App reads (10,000 items at
// 100 a page): a list longer than that is an error, not a hang.
const maxListPages = 100

// listAll reads every page of a GitHub list, 100 items a page.
func listAll[T any](ctx context.Context, list func(opts *github.ListOptions) ([]T, *github.Response, error)) ([]T, error) {
	var out []T
	opts := &github.ListOptions{PerPage: 100}
	for pages := 0; pages < maxListPages; pages++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, resp, err := list(opts)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
	return nil, fmt.Errorf("more than %d pages", maxListPages)
}
