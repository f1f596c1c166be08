package ghapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"
)

// DefaultAPIURL is github.com's REST API.
const DefaultAPIURL = "https://api.github.com/"

// newClient returns a go-github client for the REST API at apiURL (a GitHub
// Enterprise Server URL ends in /api/v3/).
func newClient(apiURL string, rt http.RoundTripper) (*github.Client, error) {
	c := github.NewClient(&http.Client{Transport: rt})
	if apiURL == "" || apiURL == DefaultAPIURL {
		return c, nil
	}
	u, err := url.Parse(apiURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an absolute URL", apiURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	c.BaseURL = u
	c.UploadURL = u
	return c, nil
}

// Clients hands out GitHub clients: one per installation for an App, the
// same token everywhere in single-repository mode.
type Clients interface {
	// Installation returns a client acting for installation id on
	// owner/repo; id 0 means "look the installation up".
	Installation(ctx context.Context, id int64, owner, repo string) (*github.Client, error)
	// BotLogin is the login the App's comments are authored by, which is how
	// it recognizes its own comments.
	BotLogin(ctx context.Context) (string, error)
	// Forget drops cached credentials of an installation (uninstalled).
	Forget(id int64)
}

// TransportChain is what every client's requests go through below the
// authentication: retries, then the observer (per attempt; nil: none),
// then base (nil: http.DefaultTransport).
func TransportChain(base http.RoundTripper, policy RetryPolicy, o Observer, log *slog.Logger) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryTransport{policy: policy, log: log, next: &countingTransport{observer: o, next: base}}
}

// appClients are the clients of a GitHub App.
type appClients struct {
	auth   *AppAuth
	apiURL string
	chain  http.RoundTripper

	mu    sync.Mutex
	login string
}

// NewAppClients returns the clients of a GitHub App authenticated by auth.
func NewAppClients(auth *AppAuth, apiURL string, chain http.RoundTripper) Clients {
	return &appClients{auth: auth, apiURL: apiURL, chain: chain}
}

func (c *appClients) Installation(ctx context.Context, id int64, owner, repo string) (*github.Client, error) {
	if id == 0 {
		// Some deliveries (issue_comment from a repository webhook, the
		// examples GitHub documents) carry no installation.
		in, _, err := c.auth.AppClient().Apps.FindRepositoryInstallation(ctx, owner, repo)
		if err != nil {
			return nil, fmt.Errorf("find the App's installation on %s/%s: %w", owner, repo, err)
		}
		id = in.GetID()
	}
	return newClient(c.apiURL, c.auth.Transport(id, c.chain))
}

func (c *appClients) BotLogin(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.login != "" {
		return c.login, nil
	}
	app, _, err := c.auth.AppClient().Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("get the App (to learn its bot login): %w", err)
	}
	if app.GetSlug() == "" {
		return "", fmt.Errorf("get the App: GitHub returned no slug")
	}
	c.login = app.GetSlug() + "[bot]"
	return c.login, nil
}

func (c *appClients) Forget(id int64) { c.auth.Forget(id, "") }

// tokenClients use one token for everything (GITHUB_TOKEN).
type tokenClients struct {
	client *github.Client

	mu    sync.Mutex
	login string
}

// NewTokenClients returns clients that all use token. login is the
// account the token acts as; "" asks GitHub (GET /user), which works for a
// user's token but not for an installation's (an Actions GITHUB_TOKEN acts
// as github-actions[bot] and must say so).
func NewTokenClients(token, login, apiURL string, chain http.RoundTripper) (Clients, error) {
	c, err := newClient(apiURL, &tokenTransport{token: token, next: chain})
	if err != nil {
		return nil, err
	}
	return &tokenClients{client: c, login: login}, nil
}

func (c *tokenClients) Installation(context.Context, int64, string, string) (*github.Client, error) {
	return c.client, nil
}

func (c *tokenClients) BotLogin(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.login != "" {
		return c.login, nil
	}
	u, _, err := c.client.Users.Get(ctx, "")
	if err != nil {
		if IsStatus(err, http.StatusForbidden) {
			return "", fmt.Errorf("the token cannot tell whose it is (an installation token?): set REVIEWBOT_BOT_LOGIN to the login its comments appear under: %w", err)
		}
		return "", fmt.Errorf("get the token's user (to learn the bot login): %w", err)
	}
	c.login = u.GetLogin()
	return c.login, nil
}

func (c *tokenClients) Forget(int64) {}
