package post

import (
	"context"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// statusIsSet reports whether the head already carries this status from
// the bot: its newest status in the reviewbot context, with the same
// state, description and link (or the PR's page, where a first review's
// status links before the summary exists). A head is reviewed again when
// a run is repeated (a replica died after posting, Redis lost the record
// of a delivery, a push landed while the previous review ran); GitHub is
// the record of what was posted, so the repeat posts nothing new. When
// the statuses cannot be read, the status is set again: a repeat is
// harmless, a missing status is not.
func (e *Executor) statusIsSet(ctx context.Context, want *github.RepoStatus) bool {
	login := e.Login
	if login == "" {
		var err error
		if login, err = e.Clients.BotLogin(ctx); err != nil {
			return false
		}
	}
	sts := e.Statuses
	var err error
	if sts == nil {
		sts, _, err = e.Repo.Client.Repositories.ListStatuses(ctx, e.Repo.Owner, e.Repo.Name, e.Head, &github.ListOptions{PerPage: 100})
	}
	if err != nil {
		e.Log.Warn("could not read the head's statuses; setting the status", "repo", e.Repo.Slug(), "pr", e.Number,
			"head", prose.ShortSHA(e.Head), "error", text.FirstLine(err.Error()))
		return false
	}
	for _, st := range sts { // newest first
		if st.GetContext() != StatusContext {
			continue
		}
		got := strings.TrimSpace(st.GetTargetURL())
		return ghapi.IsUser(st.GetCreator(), login) && st.GetState() == want.GetState() &&
			st.GetDescription() == want.GetDescription() && (got == strings.TrimSpace(want.GetTargetURL()) || e.PRURL != "" && got == e.PRURL)
	}
	return false
}
