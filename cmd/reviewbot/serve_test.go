//go:build !noserve

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
)

func testKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestServeConfigErrors(t *testing.T) {
	key := testKeyPEM(t)
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "hunter2-webhook-secret"
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string // the variable the message must name; "" = valid
	}{
		{"no secret", map[string]string{"GITHUB_TOKEN": "ghp_x"}, nil, "GITHUB_WEBHOOK_SECRET"},
		{"no credentials", map[string]string{"GITHUB_WEBHOOK_SECRET": secret}, nil, "GITHUB_APP_ID"},
		{"token mode", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "ghp_x"}, nil, ""},
		{"token and app", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "ghp_x", "GITHUB_APP_ID": "1"}, nil, "GITHUB_TOKEN"},
		{"app id not a number", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "abc", "GITHUB_APP_PRIVATE_KEY": key}, nil, "GITHUB_APP_ID"},
		{"app without key", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12"}, nil, "GITHUB_APP_PRIVATE_KEY_FILE"},
		{"key without app id", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_PRIVATE_KEY": key}, nil, "GITHUB_APP_ID"},
		{"bad key", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n-----END RSA PRIVATE KEY-----"}, nil, "GITHUB_APP_PRIVATE_KEY"},
		{"missing key file", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY_FILE": "/nonexistent/key.pem"}, nil, "GITHUB_APP_PRIVATE_KEY_FILE"},
		{"key file and pem", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile, "GITHUB_APP_PRIVATE_KEY": key}, nil, "GITHUB_APP_PRIVATE_KEY_FILE"},
		{"app with key file", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile}, nil, ""},
		{"app with pem", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY": key}, nil, ""},
		{"flags override", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "nope"}, []string{"--app-id", "12", "--private-key-file", keyFile}, ""},
		{"bad api url", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "GITHUB_API_URL": "ftp://ghe"}, nil, "GITHUB_API_URL"},
		{"bad addr", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_ADDR": "8080"}, nil, "REVIEWBOT_ADDR"},
		{"bad name", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_NAME": "review bot"}, nil, "REVIEWBOT_NAME"},
		{"bad workers", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_WORKERS": "0"}, nil, "REVIEWBOT_WORKERS"},
		{"bad drafts", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REVIEW_DRAFTS": "maybe"}, nil, "REVIEWBOT_REVIEW_DRAFTS"},
		{"bad timeout", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_SHUTDOWN_TIMEOUT": "soon"}, nil, "REVIEWBOT_SHUTDOWN_TIMEOUT"},
		{"bad association", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REUSE_ASSOCIATIONS": "OWNER,ADMIN"}, nil, "REVIEWBOT_REUSE_ASSOCIATIONS"},
		{"no association", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x"}, []string{"--reuse-associations", " , "}, "--reuse-associations"},
		{"associations", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REUSE_ASSOCIATIONS": "owner, member"}, nil, ""},
		{"bad workflow", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_SWEEP_WORKFLOW": ".github/workflows/run-sweep.yml"}, nil, "REVIEWBOT_SWEEP_WORKFLOW"},
		{"workflow", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x"}, []string{"--sweep-workflow", "sweep.yaml"}, ""},
		{"redis", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REDIS_URL": "rediss://:hunter2-redis@redis.example:6380/1",
			"REVIEWBOT_REDIS_LEASE_TTL": "5s", "REVIEWBOT_REDIS_BLOB_CACHE_MB": "128", "REVIEWBOT_REDIS_PREFIX": "rb-prod:"}, nil, ""},
		{"bad redis url", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REDIS_URL": "http://:hunter2-redis@redis.example"}, nil, "REVIEWBOT_REDIS_URL"},
		{"bad redis db", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REDIS_URL": "redis://:hunter2-redis@redis.example/zero"}, nil, "REVIEWBOT_REDIS_URL"},
		{"bad lease ttl", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REDIS_LEASE_TTL": "100ms"}, nil, "REVIEWBOT_REDIS_LEASE_TTL"},
		{"lease ttl flag", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x"}, []string{"--redis-lease-ttl", "forever"}, "--redis-lease-ttl"},
		{"bad redis blob budget", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_REDIS_BLOB_CACHE_MB": "-1"}, nil, "REVIEWBOT_REDIS_BLOB_CACHE_MB"},
		{"workers by flag", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_WORKERS": "2"}, []string{"--workers", "0"}, "--workers"},
		{"key file by flag", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12"}, []string{"--private-key-file", "/nonexistent/key.pem"}, "--private-key-file"},
		{"repository", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "GITHUB_REPOSITORY": "SemiAnalysisAI/InferenceX"}, nil, ""},
		{"bad repository", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x"}, []string{"--repository", "InferenceX"}, "--repository"},
		{"repository for an App", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile}, []string{"--repository", "a/b"}, "--repository"},
		{"bad redis prefix", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x"}, []string{"--redis-prefix", "a b"}, "--redis-prefix"},
		{"warm", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_WARM": "SemiAnalysisAI/InferenceX, a/b"}, nil, ""},
		{"bad warm", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "REVIEWBOT_WARM": "SemiAnalysisAI/InferenceX,InferenceX"}, nil, "REVIEWBOT_WARM"},
		{"bad warm by flag", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x"}, []string{"--warm", "a/b/c"}, "--warm"},
		// A token serves one repository, named: deliveries for any other
		// are refused.
		{"token without repository", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "GITHUB_REPOSITORY": ""}, nil, "GITHUB_REPOSITORY"},
		{"repository by flag", map[string]string{"GITHUB_WEBHOOK_SECRET": secret, "GITHUB_TOKEN": "x", "GITHUB_REPOSITORY": ""}, []string{"--repository", "SemiAnalysisAI/InferenceX"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, set := tt.env["GITHUB_REPOSITORY"]; !set && tt.env["GITHUB_TOKEN"] != "" {
				tt.env["GITHUB_REPOSITORY"] = "SemiAnalysisAI/InferenceX"
			}
			var stderr bytes.Buffer
			cfg, err := loadServeConfig(tt.args, envOf(tt.env), io.Discard, &stderr)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid configuration rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", cfg)
			}
			// Through serve: exit 2, the variable named, no secret shown.
			stderr.Reset()
			code := serve(context.Background(), tt.args, envOf(tt.env), io.Discard, &stderr, nil)
			msg := stderr.String()
			if code != exitError || !strings.Contains(msg, tt.want+":") {
				t.Fatalf("exit %d, message %q; want 2 naming %s", code, msg, tt.want)
			}
			for _, s := range []string{secret, "ghp_x", "c2VjcmV0", "PRIVATE KEY", "hunter2-redis"} {
				if strings.Contains(msg, s) {
					t.Fatalf("message shows a secret: %q", msg)
				}
			}
		})
	}
}

// Every problem of a configuration is named in one start, each under the
// name it was given by.
func TestServeConfigNamesEveryProblem(t *testing.T) {
	var stderr bytes.Buffer
	code := serve(context.Background(), []string{"--workers", "none"}, envOf(map[string]string{"REVIEWBOT_LOG_FORMAT": "xml"}), io.Discard, &stderr, nil)
	want := "reviewbot serve: REVIEWBOT_LOG_FORMAT: \"xml\" is neither json nor text\n" +
		"reviewbot serve: --workers: \"none\" is not a number from 1 to 256\n" +
		"reviewbot serve: GITHUB_WEBHOOK_SECRET: not set (the webhook secret of the GitHub App)\n" +
		"reviewbot serve: GITHUB_APP_ID: no GitHub credentials: set GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY), or GITHUB_TOKEN\n"
	if code != exitError || stderr.String() != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, stderr.String(), want)
	}
	// An App with only its ID: the key is named too, with the secret.
	stderr.Reset()
	code = serve(context.Background(), nil, envOf(map[string]string{"GITHUB_APP_ID": "12"}), io.Discard, &stderr, nil)
	if code != exitError || !strings.Contains(stderr.String(), "GITHUB_WEBHOOK_SECRET: not set") || !strings.Contains(stderr.String(), "GITHUB_APP_PRIVATE_KEY_FILE: not set") {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
}

// A port another process holds is bad configuration: exit 2, naming the
// setting as it was given.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	env := map[string]string{"GITHUB_WEBHOOK_SECRET": "s3cret", "GITHUB_TOKEN": "ghp_test", "GITHUB_REPOSITORY": "SemiAnalysisAI/InferenceX", "GITHUB_API_URL": "http://127.0.0.1:1/"}
	for _, tc := range []struct {
		args []string
		env  string
		name string
	}{
		{nil, ln.Addr().String(), "REVIEWBOT_ADDR"},
		{[]string{"--addr", ln.Addr().String()}, "", "--addr"},
	} {
		env["REVIEWBOT_ADDR"] = tc.env
		var stderr bytes.Buffer
		code := serve(context.Background(), tc.args, envOf(env), io.Discard, &stderr, nil)
		want := "reviewbot serve: " + tc.name + ": cannot listen on " + ln.Addr().String() + ": "
		if code != exitError || !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "address already in use") {
			t.Errorf("exit %d, %q; want 2 and %q", code, stderr.String(), want)
		}
	}
}

// What a refusal of the credentials at start-up says: which setting, as
// it was given, and what to do.
func TestServeCredentialsRefusal(t *testing.T) {
	appCfg := &serveConfig{appID: 12, keyName: "--private-key-file", given: map[string]string{"GITHUB_APP_ID": "--app-id"}}
	tok := &serveConfig{token: "t", repository: "a/b", given: map[string]string{}}
	bare := &serveConfig{token: "t", given: map[string]string{}}
	for _, tc := range []struct {
		cfg  *serveConfig
		ce   appCredentials
		want string
	}{
		{appCfg, appCredentials{"app", 401, "A JSON web token could not be decoded"},
			"--app-id or --private-key-file: GitHub refused the App's JWT (401 A JSON web token could not be decoded): the private key is not the key of App 12, or the App ID is wrong"},
		{appCfg, appCredentials{"app", 404, "Not Found"}, "GITHUB_API_URL: GET /app answered 404 Not Found: is it the REST API"},
		{tok, appCredentials{"token", 401, "Bad credentials"}, "GITHUB_TOKEN: GitHub refused the token (401 Bad credentials)"},
		{tok, appCredentials{"repository", 404, "Not Found"}, "GITHUB_REPOSITORY: the token cannot read a/b (404 Not Found)"},
		{bare, appCredentials{"token", 403, "Resource not accessible by integration"}, "set REVIEWBOT_BOT_LOGIN to the login its comments appear under"},
	} {
		if got := refusal(tc.cfg, tc.ce.err()); !strings.HasPrefix(got, tc.want) && !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.ce, got, tc.want)
		}
	}
}

// TestServeAndReplay runs `reviewbot serve` (token mode; no GitHub call is
// needed for a ping) and drives it with `reviewbot replay`.
func TestServeAndReplay(t *testing.T) {
	env := map[string]string{"GITHUB_WEBHOOK_SECRET": "s3cret", "GITHUB_TOKEN": "ghp_test", "GITHUB_REPOSITORY": "SemiAnalysisAI/InferenceX",
		"GITHUB_API_URL": "http://127.0.0.1:1/", "REVIEWBOT_ADDR": "127.0.0.1:0", "REVIEWBOT_LOG_FORMAT": "text"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrCh := make(chan net.Addr, 1)
	var logs syncWriter
	done := make(chan int, 1)
	go func() { done <- serve(ctx, nil, envOf(env), io.Discard, &logs, func(a net.Addr) { addrCh <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrCh:
	case code := <-done:
		t.Fatalf("serve exited %d:\n%s", code, logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	url := "http://" + addr.String()
	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	resp.Body.Close()

	// The event comes from the payload's shape, not the file's name.
	payload := filepath.Join(t.TempDir(), "seed001.pull_request.opened.json")
	if err := os.WriteFile(payload, []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "replay", "--url", url+"/webhook", "--secret", "s3cret", payload)
	if code != exitOK || !strings.HasPrefix(out, "ping ") || !strings.Contains(out, "200 OK") || !strings.Contains(out, `"outcome":"pong"`) {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, stderr)
	}
	// An event the App does not act on was not accepted: exit 1, saying so.
	code, out, stderr = runCLI(t, "replay", "--url", url+"/webhook", "--secret", "s3cret", "--event", "check_run", payload)
	if code != exitBlocking || !strings.Contains(out, "202 Accepted") ||
		stderr != "reviewbot replay: the server did not accept the check_run delivery: unhandled_event (reviewbot does not act on this event)\n" {
		t.Fatalf("replay of an unhandled event: exit %d\n%s\n%q", code, out, stderr)
	}
	code, out, _ = runCLI(t, "replay", "--url", url+"/webhook", "--secret", "wrong", "--event", "ping", payload)
	if code != exitBlocking || !strings.Contains(out, "401") {
		t.Fatalf("replay with a wrong secret: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "replay", "--url", url+"/webhook", "--secret", "s3cret", "--delivery", "fixed", payload)
	if code != exitOK {
		t.Fatal(out)
	}
	_, out, _ = runCLI(t, "replay", "--url", url+"/webhook", "--secret", "s3cret", "--delivery", "fixed", payload)
	if !strings.Contains(out, `"outcome":"duplicate"`) {
		t.Fatalf("a replayed delivery id was not recognized:\n%s", out)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve exited %d after SIGTERM-equivalent:\n%s", code, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
	for _, want := range []string{"could not check the GitHub credentials at start-up; starting anyway", "reviewbot serving", "mode=token", "outcome=pong", "outcome=bad_signature", "stopped"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(logs.String(), "ghp_test") || strings.Contains(logs.String(), "s3cret") {
		t.Fatal("a secret reached the log")
	}
}

func TestReplayUsage(t *testing.T) {
	if code, _, _ := runCLI(t, "replay"); code != exitError {
		t.Errorf("no payload: exit %d", code)
	}
	t.Setenv("GITHUB_WEBHOOK_SECRET", "")
	if code, _, stderr := runCLI(t, "replay", "--url", "http://127.0.0.1:1/webhook", "main.go"); code != exitError || !strings.Contains(stderr, "secret") {
		t.Errorf("no secret: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "replay", "--secret", "x", "/nonexistent.json"); code != exitError || stderr == "" {
		t.Errorf("missing file: exit %d", code)
	}
	unknown := filepath.Join(t.TempDir(), "pull_request.opened.json")
	os.WriteFile(unknown, []byte(`{"action":"opened"}`), 0o644)
	if code, _, stderr := runCLI(t, "replay", "--secret", "x", unknown); code != exitError || !strings.Contains(stderr, "cannot tell the event from the payload's keys: give --event") {
		t.Errorf("a payload of no known shape: exit %d %q", code, stderr)
	}
	if id := newDeliveryID(); len(id) != 36 || id[14] != '4' {
		t.Errorf("delivery id %q is not a v4 UUID", id)
	}
}

type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestServeWithRedisDown starts serve pointed at a Redis that is not
// there: it starts (not ready), answers /healthz, and still acknowledges
// deliveries; the password never reaches the log.
func TestServeWithRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there now
	env := map[string]string{"GITHUB_WEBHOOK_SECRET": "s3cret", "GITHUB_TOKEN": "ghp_test", "GITHUB_REPOSITORY": "SemiAnalysisAI/InferenceX",
		"GITHUB_API_URL": "http://127.0.0.1:1/", "REVIEWBOT_ADDR": "127.0.0.1:0", "REVIEWBOT_LOG_FORMAT": "text",
		"REVIEWBOT_REDIS_URL": "redis://:redis-pa55@" + dead + "/0"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrCh := make(chan net.Addr, 1)
	var logs syncWriter
	done := make(chan int, 1)
	go func() { done <- serve(ctx, nil, envOf(env), io.Discard, &logs, func(a net.Addr) { addrCh <- a }) }()
	var url string
	select {
	case a := <-addrCh:
		url = "http://" + a.String()
	case code := <-done:
		t.Fatalf("serve exited %d:\n%s", code, logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	get := func(path string) int {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz %d", code)
	}
	if code := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d with Redis unreachable, want 503", code)
	}
	payload := filepath.Join(t.TempDir(), "ping.json")
	if err := os.WriteFile(payload, []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "replay", "--url", url+"/webhook", "--secret", "s3cret", payload)
	if code != exitOK || !strings.Contains(out, `"outcome":"pong"`) {
		t.Fatalf("a delivery with Redis down: exit %d\n%s\n%s", code, out, stderr)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d:\n%s", code, logs.String())
	}
	for _, want := range []string{"state=redis", "redis is unreachable at start", "dedup deferred"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "redis-pa55") {
		t.Fatal("the Redis password reached the log")
	}
}

// eventOf reads the event from the shape GitHub gives each payload; the
// shared real payloads are checked too when they are next to the
// repository.
func TestReplayEventOf(t *testing.T) {
	for _, tc := range []struct{ payload, want string }{
		{`{"zen":"z","hook_id":1,"hook":{}}`, "ping"},
		{`{"action":"created","issue":{},"comment":{},"repository":{}}`, "issue_comment"},
		{`{"action":"created","pull_request":{},"comment":{},"repository":{}}`, "pull_request_review_comment"},
		{`{"action":"submitted","pull_request":{},"review":{},"repository":{}}`, "pull_request_review"},
		{`{"action":"opened","number":1,"pull_request":{},"repository":{}}`, "pull_request"},
		{`{"action":"rerequested","check_run":{}}`, "check_run"},
		{`{"ref":"refs/heads/main","before":"a","after":"b","commits":[]}`, "push"},
		{`{"action":"added","installation":{},"repositories_added":[]}`, "installation_repositories"},
		{`{"action":"created","installation":{},"repositories":[]}`, "installation"},
		{`{"action":"opened"}`, ""},
		{`[1]`, ""},
	} {
		got, err := eventOf([]byte(tc.payload))
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("%s: %q, %v; want %q", tc.payload, got, err, tc.want)
		}
	}
	files, _ := filepath.Glob("../../../shared/webhooks/*.payload.json")
	for _, f := range files {
		want, _, _ := strings.Cut(filepath.Base(f), ".")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := eventOf(b); got != want {
			t.Errorf("%s: %q, %v", filepath.Base(f), got, err)
		}
	}
}

// appCredentials builds an ghapi.CredentialsError for a table.
type appCredentials struct {
	refused string
	status  int
	message string
}

func (a appCredentials) err() *ghapi.CredentialsError {
	return &ghapi.CredentialsError{Refused: a.refused, Status: a.status, Message: a.message}
}

// TestServeGCPercentIsTheApps: serve runs with the GC target the App's
// latency replay measures it with.
func TestServeGCPercentIsTheApps(t *testing.T) {
	if got := gcPercent([]string{"serve"}); got != app.GCPercent {
		t.Errorf("serve collects at GOGC=%d, the App's replay at %d", got, app.GCPercent)
	}
}
