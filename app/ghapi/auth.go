package ghapi

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v62/github"
	"golang.org/x/sync/singleflight"
)

// GitHub App authentication, without ghinstallation: the App signs a
// short-lived RS256 JWT, exchanges it for an installation token
// (POST /app/installations/{id}/access_tokens), and uses that token until
// shortly before it expires.

const (
	// jwtBackdate moves iat into the past so a GitHub clock slightly behind
	// ours does not reject the JWT as issued in the future.
	jwtBackdate = 60 * time.Second
	// jwtLifetime keeps exp under GitHub's ten-minute maximum, with room
	// for a GitHub clock slightly ahead of ours.
	jwtLifetime = 9 * time.Minute
	// tokenMargin is how long before expires_at a cached installation
	// token is replaced, so a request never starts with a token about to
	// lapse.
	tokenMargin = time.Minute
)

// ParsePrivateKey reads the App's private key (PKCS#1 or PKCS#8 PEM).
func ParsePrivateKey(pem []byte) (*rsa.PrivateKey, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("parse GitHub App private key: %w", err)
	}
	return key, nil
}

// AppAuth holds a GitHub App's credentials and its cache of installation
// tokens. It is safe for concurrent use.
type AppAuth struct {
	appID int64
	key   *rsa.PrivateKey
	apps  *github.Client // authenticated with the App JWT
	now   func() time.Time

	mu     sync.Mutex
	jwt    string
	jwtExp time.Time
	tokens map[int64]installToken
	flight singleflight.Group
}

type installToken struct {
	token   string
	expires time.Time
}

// NewAppAuth returns the authenticator of App appID. apiURL is the REST
// base URL; next carries its requests (retries and metrics included); now
// is the clock (nil: time.Now).
func NewAppAuth(appID int64, key *rsa.PrivateKey, apiURL string, next http.RoundTripper, now func() time.Time) (*AppAuth, error) {
	if appID <= 0 {
		return nil, errors.New("GitHub App ID must be a positive number")
	}
	if key == nil {
		return nil, errors.New("GitHub App private key is missing")
	}
	if now == nil {
		now = time.Now
	}
	a := &AppAuth{appID: appID, key: key, now: now, tokens: map[int64]installToken{}}
	client, err := newClient(apiURL, &jwtTransport{auth: a, next: next})
	if err != nil {
		return nil, err
	}
	a.apps = client
	return a, nil
}

// AppClient is a client acting as the App itself (App endpoints only).
func (a *AppAuth) AppClient() *github.Client { return a.apps }

// JWT returns a signed App JWT, reusing one until a minute before it
// expires.
func (a *AppAuth) JWT() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if a.jwt != "" && now.Before(a.jwtExp.Add(-time.Minute)) {
		return a.jwt, nil
	}
	exp := now.Add(jwtLifetime)
	claims := jwt.RegisteredClaims{
		Issuer:    strconv.FormatInt(a.appID, 10),
		IssuedAt:  jwt.NewNumericDate(now.Add(-jwtBackdate)),
		ExpiresAt: jwt.NewNumericDate(exp),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(a.key)
	if err != nil {
		return "", fmt.Errorf("sign GitHub App JWT: %w", err)
	}
	a.jwt, a.jwtExp = signed, exp
	return signed, nil
}

// Token returns an installation token for id: the cached one while it has
// more than a minute left, otherwise a new one. Concurrent callers share
// one refresh.
func (a *AppAuth) Token(ctx context.Context, id int64) (string, error) {
	if tok, ok := a.cached(id); ok {
		return tok, nil
	}
	v, err, _ := a.flight.Do(strconv.FormatInt(id, 10), func() (any, error) {
		if tok, ok := a.cached(id); ok {
			return tok, nil // refreshed while this caller waited
		}
		// The refresh serves every waiting caller, so one caller giving up
		// must not fail the others.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		it, _, err := a.apps.Apps.CreateInstallationToken(ctx, id, nil)
		if err != nil {
			return "", fmt.Errorf("create installation token for installation %d: %w", id, err)
		}
		if it.GetToken() == "" {
			return "", fmt.Errorf("create installation token for installation %d: empty token", id)
		}
		exp := it.GetExpiresAt().Time
		if exp.IsZero() {
			exp = a.now().Add(time.Hour) // GitHub's documented lifetime
		}
		a.mu.Lock()
		a.tokens[id] = installToken{token: it.GetToken(), expires: exp}
		a.mu.Unlock()
		return it.GetToken(), nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func (a *AppAuth) cached(id int64) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tokens[id]
	if !ok || !a.now().Before(t.expires.Add(-tokenMargin)) {
		return "", false
	}
	return t.token, true
}

// Forget drops the cached token of an installation (uninstalled, or the
// token was rejected), if it is still tok ("" drops any).
func (a *AppAuth) Forget(id int64, tok string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.tokens[id]; ok && (tok == "" || t.token == tok) {
		delete(a.tokens, id)
	}
}

// Transport authenticates requests as installation id.
func (a *AppAuth) Transport(id int64, next http.RoundTripper) http.RoundTripper {
	return &installationTransport{auth: a, id: id, next: next}
}

// jwtTransport authenticates requests as the App.
type jwtTransport struct {
	auth *AppAuth
	next http.RoundTripper
}

func (t *jwtTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if uncredentialed(req) {
		return t.next.RoundTrip(req)
	}
	signed, err := t.auth.JWT()
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+signed)
	return t.next.RoundTrip(r)
}

type installationTransport struct {
	auth *AppAuth
	id   int64
	next http.RoundTripper
}

func (t *installationTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if uncredentialed(req) {
		return t.next.RoundTrip(req)
	}
	tok, err := t.auth.Token(req.Context(), t.id)
	if err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(withToken(req, tok))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || !replayable(req) {
		return resp, err
	}
	// GitHub revoked the token early (the App's key was rotated, or the
	// installation re-permissioned): get a new one and try once more.
	drain(resp)
	t.auth.Forget(t.id, tok)
	if tok, err = t.auth.Token(req.Context(), t.id); err != nil {
		return nil, err
	}
	r, err := rewind(req)
	if err != nil {
		return nil, err
	}
	return t.next.RoundTrip(withToken(r, tok))
}

// tokenTransport authenticates every request with one token (the
// single-repository mode of GITHUB_TOKEN).
type tokenTransport struct {
	token string
	next  http.RoundTripper
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.next.RoundTrip(withToken(req, t.token))
}

func withToken(req *http.Request, tok string) *http.Request {
	if uncredentialed(req) {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "token "+tok)
	return r
}

type uncredentialedKey struct{}

// Uncredentialed marks the requests of ctx to go out without GitHub's
// credentials, through the same retries and call counting: a download
// from a URL GitHub signed (codeload, artifact storage) on another host,
// which must never see the installation's token.
func Uncredentialed(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncredentialedKey{}, true)
}

func uncredentialed(req *http.Request) bool {
	v, _ := req.Context().Value(uncredentialedKey{}).(bool)
	return v
}
