package ghapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
)

// CredentialsError is GitHub refusing the credentials at start-up.
type CredentialsError struct {
	// Refused is what GitHub refused: CredentialsApp (the App ID and its
	// private key, through the App JWT), CredentialsToken, or
	// CredentialsRepository (a token that cannot read the repository).
	Refused string
	Status  int    // GitHub's HTTP status
	Message string // GitHub's message
}

// What CredentialsError.Refused names.
const (
	CredentialsApp        = "app"
	CredentialsToken      = "token"
	CredentialsRepository = "repository"
)

func (e *CredentialsError) Error() string {
	return fmt.Sprintf("GitHub refused the %s credentials: %d %s", e.Refused, e.Status, e.Message)
}

// CheckCredentials asks GitHub once whether the credentials work, so that
// a wrong App ID, key or token stops the server at start-up with a message
// rather than failing every delivery afterwards. An App signs a JWT and
// reads GET /app; a token reads GET /repos/{repo} when repo ("owner/name")
// is given, otherwise GET /user (unless the bot login was given, which
// leaves nothing to ask). It returns a *CredentialsError when GitHub
// answered and refused; any other error means the check could not be made
// (GitHub unreachable, rate limited), which says nothing about the
// credentials.
func CheckCredentials(ctx context.Context, c Clients, repo string) error {
	switch c := c.(type) {
	case *appClients:
		_, _, err := c.auth.AppClient().Apps.Get(ctx, "")
		return refused(CredentialsApp, err)
	case *tokenClients:
		if repo != "" {
			owner, name, ok := strings.Cut(repo, "/")
			if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
				return fmt.Errorf("repository %q is not owner/name", repo)
			}
			_, _, err := c.client.Repositories.Get(ctx, owner, name)
			if IsStatus(err, 401) {
				return refused(CredentialsToken, err)
			}
			return refused(CredentialsRepository, err)
		}
		if c.login != "" {
			return nil
		}
		_, _, err := c.client.Users.Get(ctx, "")
		return refused(CredentialsToken, err)
	}
	return nil
}

// refused turns GitHub's refusal (401, 403 other than a rate limit, 404)
// into a *CredentialsError and leaves any other error as it is.
func refused(what string, err error) error {
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	var er *github.ErrorResponse
	if err == nil || errors.As(err, &rl) || errors.As(err, &abuse) || !errors.As(err, &er) || er.Response == nil {
		return err
	}
	switch s := er.Response.StatusCode; s {
	case 401, 403, 404:
		return &CredentialsError{Refused: what, Status: s, Message: er.Message}
	}
	return err
}
