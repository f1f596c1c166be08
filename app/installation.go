package app

import (
	"context"
	"strings"

	"github.com/google/go-github/v62/github"
)

// onInstallation handles installation events: logged, and an uninstalled
// or suspended installation's cached token is dropped.
func (s *Server) onInstallation(_ context.Context, d *delivery, ev *github.InstallationEvent) routed {
	in := ev.GetInstallation()
	d.action = ev.GetAction()
	var repos []string
	for _, r := range ev.Repositories {
		repos = append(repos, r.GetFullName())
	}
	s.log.Info("installation event", append(d.attrs(), "installation", in.GetID(),
		"account", in.GetAccount().GetLogin(), "repositories", strings.Join(repos, ","))...)
	switch ev.GetAction() {
	case "deleted", "suspend":
		s.cfg.Clients.Forget(in.GetID())
	}
	return routed{outcome: "acknowledged", detail: "installation " + ev.GetAction()}
}

// onInstallationRepositories handles installation_repositories (the App
// added to or removed from repositories): logged.
func (s *Server) onInstallationRepositories(_ context.Context, d *delivery, ev *github.InstallationRepositoriesEvent) routed {
	d.action = ev.GetAction()
	var added, removed []string
	for _, r := range ev.RepositoriesAdded {
		added = append(added, r.GetFullName())
	}
	for _, r := range ev.RepositoriesRemoved {
		removed = append(removed, r.GetFullName())
	}
	s.log.Info("installation repositories changed", append(d.attrs(), "installation", ev.GetInstallation().GetID(),
		"added", strings.Join(added, ","), "removed", strings.Join(removed, ","))...)
	return routed{outcome: "acknowledged", detail: "installation_repositories " + ev.GetAction()}
}
