package app

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
)

// The App finds its own earlier comments (summary, replies, verdicts) among
// a PR's by author and hidden marker; these read them.

// botComments returns the login the bot's comments appear under and the
// PR's conversation comments: what every job reads to find its own earlier
// comments by their markers.
func (s *Server) botComments(ctx context.Context, rc *ghapi.Repo, number int) (string, []*github.IssueComment, error) {
	login, err := s.cfg.Clients.BotLogin(ctx)
	if err != nil {
		return "", nil, err
	}
	comments, err := rc.IssueComments(ctx, number)
	if err != nil {
		return "", nil, err
	}
	return login, comments, nil
}
