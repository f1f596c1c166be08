package ghapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// CheckCredentials against the fake GitHub: a right App or token passes, a
// wrong one is refused and says which credential GitHub refused, and an
// API that cannot be reached is not taken for a refusal.
func TestCheckCredentials(t *testing.T) {
	fake := fakegithub.New()
	defer fake.Close()
	fake.SetAppKey(&appKey(t).PublicKey)
	fake.AddToken("ghp_good", "maintainer")
	fake.AddRepo("SemiAnalysisAI/InferenceX")
	// The fake serves the repository routes the App uses; the start-up
	// check also reads the repository itself, as GitHub answers it.
	fake.Handle("GET", "/repos/{owner}/{repo}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "token ghp_good" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"Bad credentials"}`))
			return
		}
		repo := fake.Repo(chi.URLParam(r, "owner") + "/" + chi.URLParam(r, "repo"))
		if repo == nil {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"Not Found"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(fake.RepoJSON(repo))
	})
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	// One attempt, no waiting: what serve checks with.
	policy := DefaultRetryPolicy()
	policy.MaxRetries, policy.RateLimitBudget = 0, 0
	chain := TransportChain(nil, policy, &routeCounts{}, quietLogger())
	app := func(id int64, key *rsa.PrivateKey) Clients {
		auth, err := NewAppAuth(id, key, fake.APIURL(), chain, nil)
		if err != nil {
			t.Fatal(err)
		}
		return NewAppClients(auth, fake.APIURL(), chain)
	}
	token := func(tok, login, api string) Clients {
		c, err := NewTokenClients(tok, login, api, chain)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		clients Clients
		repo    string
		refused string // "" passes; "-" fails without a refusal
		status  int
	}{
		{"app", app(fake.AppID, appKey(t)), "", "", 0},
		{"app with another key", app(fake.AppID, otherKey), "", CredentialsApp, 401},
		{"app with another ID", app(fake.AppID+1, appKey(t)), "", CredentialsApp, 401},
		{"token reads the repository", token("ghp_good", "", fake.APIURL()), "SemiAnalysisAI/InferenceX", "", 0},
		{"wrong token", token("ghp_bad", "", fake.APIURL()), "SemiAnalysisAI/InferenceX", CredentialsToken, 401},
		{"repository the token cannot see", token("ghp_good", "", fake.APIURL()), "SemiAnalysisAI/Other", CredentialsRepository, 404},
		{"token without a repository: GET /user", token("ghp_good", "", fake.APIURL()), "", "", 0},
		{"wrong token without a repository", token("ghp_bad", "", fake.APIURL()), "", CredentialsToken, 401},
		{"token with its login: nothing to ask", token("ghp_bad", "someone", fake.APIURL()), "", "", 0},
		{"bad repository name", token("ghp_good", "", fake.APIURL()), "InferenceX", "-", 0},
		{"unreachable API", token("ghp_good", "", "http://127.0.0.1:1/"), "SemiAnalysisAI/InferenceX", "-", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCredentials(context.Background(), tc.clients, tc.repo)
			var ce *CredentialsError
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused == "-" && (err == nil || errors.As(err, &ce)):
				t.Fatalf("want an error that is not a refusal, got %v", err)
			case tc.refused != "" && tc.refused != "-" && (!errors.As(err, &ce) || ce.Refused != tc.refused || ce.Status != tc.status || ce.Message == ""):
				t.Fatalf("want %s refused with %d, got %#v (%v)", tc.refused, tc.status, ce, err)
			}
		})
	}
	if got := len(fake.CallsTo("GET /app")); got != 3 {
		t.Errorf("GET /app called %d times, want once per App check", got)
	}
	if !strings.Contains((&CredentialsError{Refused: CredentialsApp, Status: 401, Message: "m"}).Error(), "app credentials: 401 m") {
		t.Error("error text")
	}
}
