package fakegithub

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v62/github"
)

// SetAppKey registers the App's public key: App JWTs must be signed with
// its private half.
func (s *Server) SetAppKey(pub *rsa.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appKey = pub
}

// Install installs the App on the repositories ("owner/name") as
// installation id.
func (s *Server) Install(id int64, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.installs[id]
	if in == nil {
		in = &installation{id: id, repos: map[string]bool{}}
		s.installs[id] = in
	}
	for _, r := range repos {
		in.repos[r] = true
	}
}

// AddToken accepts tok as a personal access token of login (the App's
// single-repository mode).
func (s *Server) AddToken(tok, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[tok] = login
}

// RevokeTokens invalidates every installation token issued so far.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = map[string]*token{}
}

// BotLogin is the login the App's installation tokens act as.
func (s *Server) BotLogin() string { return s.AppSlug + "[bot]" }

// identity is who a request acts as.
type identity struct {
	login        string
	bot          bool
	installation int64 // 0 for a personal token
}

// verifyJWT checks an App JWT as GitHub does: RS256 with the App's key, iss
// the App ID, issued in the past, expiring within ten minutes.
func (s *Server) verifyJWT(r *http.Request) error {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		//lint:ignore ST1005 GitHub's own wording, which clients may match on
		return errors.New("A JSON web token could not be decoded")
	}
	s.mu.Lock()
	key, now, appID := s.appKey, s.now, s.AppID
	s.mu.Unlock()
	if key == nil {
		return errors.New("no App key registered with the fake")
	}
	claims := jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) { return key, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(now), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
	if err != nil {
		return fmt.Errorf("'Expiration time' claim ('exp') or signature is invalid: %v", err)
	}
	if claims.Issuer != strconv.FormatInt(appID, 10) {
		return fmt.Errorf("'Issuer' claim ('iss') must be the App ID, got %q", claims.Issuer)
	}
	if claims.ExpiresAt.Sub(now()) > 10*time.Minute+30*time.Second {
		return errors.New("'Expiration time' claim ('exp') is too far in the future")
	}
	return nil
}

// caller resolves the token of a repository request.
func (s *Server) caller(r *http.Request) (identity, bool) {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "token ")
	if !ok {
		tok, ok = strings.CutPrefix(auth, "Bearer ")
	}
	if !ok {
		return identity{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tokens[tok]; t != nil && s.now().Before(t.expires) {
		return identity{login: s.AppSlug + "[bot]", bot: true, installation: t.installation}, true
	}
	if login, ok := s.users[tok]; ok {
		return identity{login: login}, true
	}
	return identity{}, false
}

// authorize answers 401/404 unless the caller may access repo (write:
// install or token needed; read: also any public repository).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, write bool) (identity, *Repo, bool) {
	who, ok := s.caller(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return identity{}, nil, false
	}
	full := chi.URLParam(r, "owner") + "/" + chi.URLParam(r, "repo")
	s.mu.Lock()
	repo := s.repos[strings.ToLower(full)]
	allowed := repo != nil
	if allowed && who.installation != 0 {
		in := s.installs[who.installation]
		installed := in != nil && in.repos[repo.FullName()]
		allowed = installed || (!write && !repo.Private)
	}
	s.mu.Unlock()
	if !allowed {
		writeError(w, http.StatusNotFound, "Not Found")
		return identity{}, nil, false
	}
	return who, repo, true
}

func (s *Server) registerAppRoutes() {
	s.Handle("GET", "/app", func(w http.ResponseWriter, r *http.Request) {
		if err := s.verifyJWT(r); err != nil {
			writeError(w, http.StatusUnauthorized, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, &github.App{ID: github.Int64(s.AppID), Slug: github.String(s.AppSlug),
			Name: github.String(s.AppSlug), HTMLURL: github.String("https://github.com/apps/" + s.AppSlug)})
	})
	s.Handle("POST", "/app/installations/{id}/access_tokens", func(w http.ResponseWriter, r *http.Request) {
		if err := s.verifyJWT(r); err != nil {
			writeError(w, http.StatusUnauthorized, err.Error())
			return
		}
		id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
		s.mu.Lock()
		in := s.installs[id]
		if in == nil {
			s.mu.Unlock()
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		buf := make([]byte, 20)
		_, _ = rand.Read(buf)
		tok := "ghs_" + hex.EncodeToString(buf)
		exp := s.now().Add(s.TokenTTL).UTC().Truncate(time.Second)
		s.tokens[tok] = &token{installation: id, expires: exp}
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, &github.InstallationToken{Token: github.String(tok),
			ExpiresAt: &github.Timestamp{Time: exp},
			Permissions: &github.InstallationPermissions{Contents: github.String("read"),
				PullRequests: github.String("write"), Issues: github.String("write"), Statuses: github.String("write")}})
	})
	s.Handle("GET", "/repos/{owner}/{repo}/installation", func(w http.ResponseWriter, r *http.Request) {
		if err := s.verifyJWT(r); err != nil {
			writeError(w, http.StatusUnauthorized, err.Error())
			return
		}
		full := strings.ToLower(chi.URLParam(r, "owner") + "/" + chi.URLParam(r, "repo"))
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, in := range s.installs {
			for name := range in.repos {
				if strings.ToLower(name) == full {
					writeJSON(w, http.StatusOK, &github.Installation{ID: github.Int64(in.id), AppID: github.Int64(s.AppID)})
					return
				}
			}
		}
		writeError(w, http.StatusNotFound, "Not Found")
	})
	s.Handle("GET", "/user", func(w http.ResponseWriter, r *http.Request) {
		who, ok := s.caller(r)
		if !ok {
			writeError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		if who.bot {
			writeError(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		writeJSON(w, http.StatusOK, &github.User{Login: github.String(who.login), Type: github.String("User")})
	})
}

// TokensIssued counts the installation tokens the fake has handed out.
func (s *Server) TokensIssued() int {
	n := 0
	for _, c := range s.CallsTo("POST /app/installations/{id}/access_tokens") {
		if c.Status == http.StatusCreated {
			n++
		}
	}
	return n
}
