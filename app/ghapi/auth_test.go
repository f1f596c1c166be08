package ghapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

func newAuthFake(t *testing.T) (*fakegithub.Server, *AppAuth, *fakeClock) {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	clock := newFakeClock()
	fake.SetClock(clock.Now)
	fake.SetAppKey(&appKey(t).PublicKey)
	fake.Install(77, "octo/repo")
	fake.AddRepo("octo/repo")
	chain := TransportChain(nil, testPolicy(&sleeper{}), nil, quietLogger())
	auth, err := NewAppAuth(fake.AppID, appKey(t), fake.APIURL(), chain, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return fake, auth, clock
}

func TestAppJWTClaims(t *testing.T) {
	_, auth, clock := newAuthFake(t)
	signed, err := auth.JWT()
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.RegisteredClaims
	if _, err := jwt.ParseWithClaims(signed, &claims, func(*jwt.Token) (any, error) { return &appKey(t).PublicKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(clock.Now)); err != nil {
		t.Fatal(err)
	}
	now := clock.Now()
	if got := now.Sub(claims.IssuedAt.Time); got < 59*time.Second || got > 61*time.Second {
		t.Errorf("iat is %v before now, want 60s", got)
	}
	if got := claims.ExpiresAt.Sub(now); got <= 0 || got > 10*time.Minute {
		t.Errorf("exp is %v after now, want at most 10m", got)
	}
	if claims.Issuer != "4242" {
		t.Errorf("iss = %q, want the App ID", claims.Issuer)
	}
	again, _ := auth.JWT()
	if again != signed {
		t.Error("a fresh JWT was signed although the last one is still valid")
	}
	clock.Advance(8*time.Minute + time.Second)
	if renewed, _ := auth.JWT(); renewed == signed {
		t.Error("a JWT within a minute of expiry was reused")
	}
}

func TestInstallationTokenCachedUntilAMinuteBeforeExpiry(t *testing.T) {
	fake, auth, clock := newAuthFake(t)
	ctx := context.Background()
	first, err := auth.Token(ctx, 77)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, "ghs_") {
		t.Fatalf("token %q does not look like an installation token", first)
	}
	clock.Advance(58 * time.Minute) // the fake's tokens live an hour
	if tok, _ := auth.Token(ctx, 77); tok != first {
		t.Error("token replaced while more than a minute was left")
	}
	if n := fake.TokensIssued(); n != 1 {
		t.Fatalf("%d tokens issued, want 1", n)
	}
	clock.Advance(90 * time.Second)
	second, err := auth.Token(ctx, 77)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || fake.TokensIssued() != 2 {
		t.Errorf("token not refreshed inside the last minute (issued %d)", fake.TokensIssued())
	}
}

func TestInstallationTokenRefreshedOnceUnderConcurrency(t *testing.T) {
	fake, auth, _ := newAuthFake(t)
	fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteAccessToken, Delay: 50 * time.Millisecond})
	var wg sync.WaitGroup
	tokens := make([]string, 32)
	errs := make([]error, len(tokens))
	for i := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tokens[i], errs[i] = auth.Token(context.Background(), 77)
		}()
	}
	wg.Wait()
	for i := range tokens {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if tokens[i] != tokens[0] {
			t.Fatal("concurrent callers got different tokens")
		}
	}
	if n := fake.TokensIssued(); n != 1 {
		t.Fatalf("%d tokens issued for 32 concurrent callers, want 1", n)
	}
}

func TestInstallationTransportAuthenticatesAndRecoversFromRevocation(t *testing.T) {
	fake, auth, _ := newAuthFake(t)
	chain := TransportChain(nil, testPolicy(&sleeper{}), nil, quietLogger())
	client, err := newClient(fake.APIURL(), auth.Transport(77, chain))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := client.Repositories.ListStatuses(ctx, "octo", "repo", "main", nil); err != nil {
		t.Fatal(err)
	}
	fake.RevokeTokens()
	if _, _, err := client.Repositories.ListStatuses(ctx, "octo", "repo", "main", nil); err != nil {
		t.Fatalf("a revoked token was not replaced: %v", err)
	}
	if n := fake.TokensIssued(); n != 2 {
		t.Fatalf("%d tokens issued, want 2 (one after the revocation)", n)
	}
	for _, c := range fake.Calls() {
		if c.Route == fakegithub.RouteAccessToken {
			if !strings.HasPrefix(c.Header.Get("Authorization"), "Bearer ") {
				t.Error("token exchange not authenticated with the App JWT")
			}
		} else if !strings.HasPrefix(c.Header.Get("Authorization"), "token ghs_") {
			t.Errorf("%s %s not authenticated with the installation token", c.Method, c.Path)
		}
	}
}

func TestAppAuthWrongKeyIsRejected(t *testing.T) {
	fake, _, clock := newAuthFake(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	chain := TransportChain(nil, testPolicy(&sleeper{}), nil, quietLogger())
	auth, err := NewAppAuth(fake.AppID, other, fake.APIURL(), chain, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	_, err = auth.Token(context.Background(), 77)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("token with a foreign key: err = %v, want a 401", err)
	}
	if _, err := auth.Token(context.Background(), 99); err == nil {
		t.Fatal("token for an unknown installation succeeded")
	}
}

func TestParsePrivateKey(t *testing.T) {
	k := appKey(t)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	for name, b := range map[string][]byte{"pkcs1": pkcs1, "pkcs8": pkcs8} {
		got, err := ParsePrivateKey(b)
		if err != nil || !got.Equal(k) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, b := range map[string][]byte{"empty": nil, "garbage": []byte("-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----\n")} {
		if _, err := ParsePrivateKey(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestNewAppAuthValidates(t *testing.T) {
	if _, err := NewAppAuth(0, appKey(t), DefaultAPIURL, nil, nil); err == nil {
		t.Error("app id 0 accepted")
	}
	if _, err := NewAppAuth(1, nil, DefaultAPIURL, nil, nil); err == nil {
		t.Error("nil key accepted")
	}
	if _, err := NewAppAuth(1, appKey(t), "not a url", nil, nil); err == nil {
		t.Error("relative API URL accepted")
	}
}

// TestUncredentialedRequestsCarryNoToken: a download from a signed URL
// goes through the chain (counted) but without the installation's token,
// with an installation client and with a single-token client alike.
func TestUncredentialedRequestsCarryNoToken(t *testing.T) {
	fake, auth, _ := newAuthFake(t)
	chain := TransportChain(nil, testPolicy(&sleeper{}), nil, quietLogger())
	app, err := newClient(fake.APIURL(), auth.Transport(77, chain))
	if err != nil {
		t.Fatal(err)
	}
	tc, err := NewTokenClients("tok", "alice", fake.APIURL(), chain)
	if err != nil {
		t.Fatal(err)
	}
	single, _ := tc.Installation(context.Background(), 0, "", "")
	for _, gh := range []*http.Client{app.Client(), single.Client()} {
		fake.ResetCalls()
		ctx, counter := WithCallCounter(Uncredentialed(context.Background()))
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fake.URL+"/repos/octo/repo/commits/main/statuses", nil)
		resp, err := gh.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("uncredentialed request answered %s, want 401 (no token sent)", resp.Status)
		}
		if counter.Total() != 1 {
			t.Errorf("%d calls counted, want 1", counter.Total())
		}
		for _, c := range fake.Calls() {
			if a := c.Header.Get("Authorization"); a != "" {
				t.Errorf("%s sent Authorization %q", c.Path, a)
			}
		}
	}
}
