package main

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reviewbot-dev/reviewbot/app"
)

// serveConfig is `reviewbot serve`'s configuration: environment variables,
// overridden by flags. Secrets come only from the environment (or a file),
// never from flags, which other users of the machine can read.
type serveConfig struct {
	addr, name, apiURL string
	appID              int64
	key                *rsa.PrivateKey
	token, botLogin    string
	// repository is the one repository served (required with a token).
	repository        string
	secret            []byte
	reviewDrafts      bool
	workers           int
	shutdownTimeout   time.Duration
	logFormat         string
	cacheBytes        int64
	reuseAssociations []string
	sweepWorkflow     string
	// redisURL (a secret: it may hold a password) turns on the state
	// several replicas share.
	redisURL        string
	redisPrefix     string
	redisLeaseTTL   time.Duration
	redisBlobsBytes int64
}

// configError names the setting that is wrong; its value is never shown
// (it may be a secret).
type configError struct {
	name string
	msg  string
}

func (e *configError) Error() string { return e.name + ": " + e.msg }

var loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

// repoRE is owner/name.
var repoRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// workflowRE is a workflow file name under .github/workflows.
var workflowRE = regexp.MustCompile(`^[A-Za-z0-9._-]+\.ya?ml$`)

// knownAssociations are GitHub's author_association values.
var knownAssociations = map[string]bool{"OWNER": true, "MEMBER": true, "COLLABORATOR": true, "CONTRIBUTOR": true,
	"FIRST_TIME_CONTRIBUTOR": true, "FIRST_TIMER": true, "MANNEQUIN": true, "NONE": true}

// errUsageShown says loadServeConfig already answered the arguments: -h
// printed the usage (exit 0), or a bad flag its one-line error (exit 2).
type errUsageShown struct{ code int }

func (e errUsageShown) Error() string { return "usage shown" }

func loadServeConfig(args []string, getenv func(string) string, stdout, stderr io.Writer) (*serveConfig, error) {
	c := &serveConfig{}
	cmd := newCommand("serve", "reviewbot serve [flags]")
	cmd.about = "Runs the GitHub App. Secrets come from the environment: GITHUB_WEBHOOK_SECRET, and either\n" +
		"GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY_FILE or GITHUB_APP_PRIVATE_KEY (a GitHub App),\n" +
		"or GITHUB_TOKEN (single-repository mode). Each flag defaults to the variable it names."
	fs := cmd.fs
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	addr := fs.String("addr", env("REVIEWBOT_ADDR", ":8080"), "listen address `ADDR` (REVIEWBOT_ADDR)")
	name := fs.String("name", env("REVIEWBOT_NAME", "reviewbot"), "mention `NAME` of @NAME review (REVIEWBOT_NAME)")
	apiURL := fs.String("api-url", env("GITHUB_API_URL", app.DefaultAPIURL), "GitHub REST API `URL`; for GitHub Enterprise Server https://HOST/api/v3/ (GITHUB_API_URL)")
	appID := fs.String("app-id", env("GITHUB_APP_ID", ""), "GitHub App `ID` (GITHUB_APP_ID)")
	keyFile := fs.String("private-key-file", env("GITHUB_APP_PRIVATE_KEY_FILE", ""), "the App's private key, PEM, in `FILE` (GITHUB_APP_PRIVATE_KEY_FILE; or the PEM itself in GITHUB_APP_PRIVATE_KEY)")
	drafts := fs.String("review-drafts", env("REVIEWBOT_REVIEW_DRAFTS", "false"), "review draft PRs too: `BOOL` (REVIEWBOT_REVIEW_DRAFTS)")
	workers := fs.String("workers", env("REVIEWBOT_WORKERS", "4"), "`N` reviews run at once (REVIEWBOT_WORKERS)")
	shutdown := fs.String("shutdown-timeout", env("REVIEWBOT_SHUTDOWN_TIMEOUT", "30s"), "how long SIGTERM waits for running reviews: `DURATION` (REVIEWBOT_SHUTDOWN_TIMEOUT)")
	logFormat := fs.String("log-format", env("REVIEWBOT_LOG_FORMAT", "json"), "log `FORMAT`: json or text (REVIEWBOT_LOG_FORMAT)")
	repository := fs.String("repository", env("GITHUB_REPOSITORY", ""), "the one `OWNER/NAME` served; deliveries for other repositories are refused (required with GITHUB_TOKEN) (GITHUB_REPOSITORY)")
	botLogin := fs.String("bot-login", env("REVIEWBOT_BOT_LOGIN", ""), "with GITHUB_TOKEN: the `LOGIN` the token's comments appear under, when GitHub cannot say (e.g. github-actions[bot]) (REVIEWBOT_BOT_LOGIN)")
	cacheMB := fs.String("blob-cache-mb", env("REVIEWBOT_BLOB_CACHE_MB", "256"), "byte budget of the file cache, `MIB` (REVIEWBOT_BLOB_CACHE_MB)")
	assocs := fs.String("reuse-associations", env("REVIEWBOT_REUSE_ASSOCIATIONS", strings.Join(app.DefaultCommandAssociations, ",")),
		"author associations whose comment commands count (/reuse-sweep-run, /use, @NAME review), comma-separated `LIST` (REVIEWBOT_REUSE_ASSOCIATIONS)")
	workflow := fs.String("sweep-workflow", env("REVIEWBOT_SWEEP_WORKFLOW", app.DefaultSweepWorkflow), "file name `FILE` of the sweep workflow whose runs reuse commands name (REVIEWBOT_SWEEP_WORKFLOW)")
	redisPrefix := fs.String("redis-prefix", env("REVIEWBOT_REDIS_PREFIX", "reviewbot:"), "with REVIEWBOT_REDIS_URL: the `PREFIX` of every Redis key (REVIEWBOT_REDIS_PREFIX)")
	leaseTTL := fs.String("redis-lease-ttl", env("REVIEWBOT_REDIS_LEASE_TTL", "30s"), "with REVIEWBOT_REDIS_URL: how long a PR stays leased to a replica that stopped renewing, `DURATION` (REVIEWBOT_REDIS_LEASE_TTL)")
	redisBlobsMB := fs.String("redis-blob-cache-mb", env("REVIEWBOT_REDIS_BLOB_CACHE_MB", "0"), "with REVIEWBOT_REDIS_URL: byte budget of the file cache shared in Redis, `MIB`; 0 is off (REVIEWBOT_REDIS_BLOB_CACHE_MB)")
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return nil, errUsageShown{code}
	}
	if len(pos) > 0 {
		return nil, &configError{"serve", fmt.Sprintf("unexpected argument %q", pos[0])}
	}

	c.addr, c.name, c.logFormat = *addr, *name, *logFormat
	if c.addr == "" {
		return nil, &configError{"REVIEWBOT_ADDR", "empty listen address"}
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return nil, &configError{"REVIEWBOT_ADDR", fmt.Sprintf("%q is not host:port", c.addr)}
	}
	if !loginRE.MatchString(c.name) {
		return nil, &configError{"REVIEWBOT_NAME", fmt.Sprintf("%q is not a GitHub login", c.name)}
	}
	u, err := url.Parse(*apiURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, &configError{"GITHUB_API_URL", fmt.Sprintf("%q is not an http(s) URL", *apiURL)}
	}
	c.apiURL = u.String()
	if !strings.HasSuffix(c.apiURL, "/") {
		c.apiURL += "/"
	}
	if c.logFormat != "json" && c.logFormat != "text" {
		return nil, &configError{"REVIEWBOT_LOG_FORMAT", fmt.Sprintf("%q is neither json nor text", c.logFormat)}
	}
	if c.reviewDrafts, err = strconv.ParseBool(*drafts); err != nil {
		return nil, &configError{"REVIEWBOT_REVIEW_DRAFTS", fmt.Sprintf("%q is not true or false", *drafts)}
	}
	if c.workers, err = strconv.Atoi(*workers); err != nil || c.workers < 1 || c.workers > 256 {
		return nil, &configError{"REVIEWBOT_WORKERS", fmt.Sprintf("%q is not a number from 1 to 256", *workers)}
	}
	if c.shutdownTimeout, err = time.ParseDuration(*shutdown); err != nil || c.shutdownTimeout <= 0 {
		return nil, &configError{"REVIEWBOT_SHUTDOWN_TIMEOUT", fmt.Sprintf("%q is not a positive duration (e.g. 30s)", *shutdown)}
	}
	mb, err := strconv.ParseInt(*cacheMB, 10, 64)
	if err != nil || mb < 1 {
		return nil, &configError{"REVIEWBOT_BLOB_CACHE_MB", fmt.Sprintf("%q is not a positive number", *cacheMB)}
	}
	c.cacheBytes = mb << 20
	for _, a := range strings.Split(*assocs, ",") {
		a = strings.ToUpper(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		if !knownAssociations[a] {
			return nil, &configError{"REVIEWBOT_REUSE_ASSOCIATIONS", fmt.Sprintf("%q is not a GitHub author association (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE)", a)}
		}
		c.reuseAssociations = append(c.reuseAssociations, a)
	}
	if len(c.reuseAssociations) == 0 {
		return nil, &configError{"REVIEWBOT_REUSE_ASSOCIATIONS", "empty: nobody could issue a command"}
	}
	c.sweepWorkflow = *workflow
	if !workflowRE.MatchString(c.sweepWorkflow) {
		return nil, &configError{"REVIEWBOT_SWEEP_WORKFLOW", fmt.Sprintf("%q is not a workflow file name (like run-sweep.yml)", c.sweepWorkflow)}
	}

	c.redisURL, c.redisPrefix = getenv("REVIEWBOT_REDIS_URL"), *redisPrefix
	if c.redisURL != "" {
		if err := app.ValidateRedisURL(c.redisURL); err != nil {
			return nil, &configError{"REVIEWBOT_REDIS_URL", err.Error()}
		}
	}
	if c.redisPrefix == "" || strings.ContainsAny(c.redisPrefix, " \t\n") {
		return nil, &configError{"REVIEWBOT_REDIS_PREFIX", fmt.Sprintf("%q is empty or holds white space", c.redisPrefix)}
	}
	if c.redisLeaseTTL, err = time.ParseDuration(*leaseTTL); err != nil || c.redisLeaseTTL < time.Second || c.redisLeaseTTL > 10*time.Minute {
		return nil, &configError{"REVIEWBOT_REDIS_LEASE_TTL", fmt.Sprintf("%q is not a duration from 1s to 10m", *leaseTTL)}
	}
	rmb, err := strconv.ParseInt(*redisBlobsMB, 10, 64)
	if err != nil || rmb < 0 {
		return nil, &configError{"REVIEWBOT_REDIS_BLOB_CACHE_MB", fmt.Sprintf("%q is not a number (0 is off)", *redisBlobsMB)}
	}
	c.redisBlobsBytes = rmb << 20

	if s := getenv("GITHUB_WEBHOOK_SECRET"); s != "" {
		c.secret = []byte(s)
	} else {
		return nil, &configError{"GITHUB_WEBHOOK_SECRET", "not set (the webhook secret of the GitHub App)"}
	}

	c.token, c.botLogin, c.repository = getenv("GITHUB_TOKEN"), *botLogin, *repository
	if c.repository != "" && !repoRE.MatchString(c.repository) {
		return nil, &configError{"GITHUB_REPOSITORY", fmt.Sprintf("%q is not owner/name", c.repository)}
	}
	if c.botLogin != "" && c.token == "" {
		return nil, &configError{"REVIEWBOT_BOT_LOGIN", "only used with GITHUB_TOKEN (an App knows its own login)"}
	}
	pem := getenv("GITHUB_APP_PRIVATE_KEY")
	hasApp := *appID != "" || *keyFile != "" || pem != ""
	switch {
	case c.token != "" && hasApp:
		return nil, &configError{"GITHUB_TOKEN", "set together with GitHub App credentials; use one or the other"}
	case c.token != "" && c.repository == "":
		return nil, &configError{"GITHUB_REPOSITORY", "not set: with GITHUB_TOKEN the server serves one repository (owner/name), and refuses deliveries for any other"}
	case c.token != "":
		return c, nil
	case !hasApp:
		return nil, &configError{"GITHUB_APP_ID", "no GitHub credentials: set GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY), or GITHUB_TOKEN"}
	}
	if *appID == "" {
		return nil, &configError{"GITHUB_APP_ID", "not set"}
	}
	if c.appID, err = strconv.ParseInt(*appID, 10, 64); err != nil || c.appID <= 0 {
		return nil, &configError{"GITHUB_APP_ID", fmt.Sprintf("%q is not a positive number", *appID)}
	}
	keyVar := "GITHUB_APP_PRIVATE_KEY"
	switch {
	case *keyFile != "" && pem != "":
		return nil, &configError{"GITHUB_APP_PRIVATE_KEY_FILE", "set together with GITHUB_APP_PRIVATE_KEY; use one or the other"}
	case *keyFile != "":
		keyVar = "GITHUB_APP_PRIVATE_KEY_FILE"
		b, err := os.ReadFile(*keyFile)
		if err != nil {
			return nil, &configError{keyVar, fmt.Sprintf("cannot read %s: %v", *keyFile, errors.Unwrap(err))}
		}
		pem = string(b)
	case pem == "":
		return nil, &configError{"GITHUB_APP_PRIVATE_KEY_FILE", "not set (nor GITHUB_APP_PRIVATE_KEY)"}
	}
	if c.key, err = app.ParsePrivateKey([]byte(pem)); err != nil {
		return nil, &configError{keyVar, "not an RSA private key in PEM form"}
	}
	return c, nil
}

func runServe(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return serve(ctx, args, os.Getenv, stdout, stderr, nil)
}

// serve runs the App until ctx ends, then drains. listening, when set,
// learns the bound address (tests listen on port 0).
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, listening func(net.Addr)) int {
	cfg, err := loadServeConfig(args, getenv, stdout, stderr)
	if err != nil {
		var shown errUsageShown
		if errors.As(err, &shown) {
			return shown.code
		}
		var ce *configError
		if errors.As(err, &ce) {
			fmt.Fprintln(stderr, "reviewbot serve:", ce)
		}
		return exitError
	}
	var handler slog.Handler = slog.NewJSONHandler(stderr, nil)
	if cfg.logFormat == "text" {
		handler = slog.NewTextHandler(stderr, nil)
	}
	log := slog.New(handler)

	metrics := app.NewMetrics()
	chain := app.TransportChain(nil, app.DefaultRetryPolicy(), metrics, log)
	var clients app.Clients
	mode := "app"
	if cfg.token != "" {
		mode = "token"
		if clients, err = app.NewTokenClients(cfg.token, cfg.botLogin, cfg.apiURL, chain); err != nil {
			fmt.Fprintln(stderr, "reviewbot serve: GITHUB_API_URL:", err)
			return exitError
		}
	} else {
		auth, err := app.NewAppAuth(cfg.appID, cfg.key, cfg.apiURL, chain, nil)
		if err != nil {
			fmt.Fprintln(stderr, "reviewbot serve:", err)
			return exitError
		}
		clients = app.NewAppClients(auth, cfg.apiURL, chain)
	}
	var shared *app.Redis
	if cfg.redisURL != "" {
		if shared, err = app.NewRedis(app.RedisOptions{URL: cfg.redisURL, Prefix: cfg.redisPrefix,
			LeaseTTL: cfg.redisLeaseTTL, BlobCacheBytes: cfg.redisBlobsBytes, Logger: log}); err != nil {
			fmt.Fprintln(stderr, "reviewbot serve: REVIEWBOT_REDIS_URL:", err)
			return exitError
		}
		defer shared.Close()
	}
	srv, err := app.New(app.Config{WebhookSecret: cfg.secret, Clients: clients, Name: cfg.name,
		ReviewDrafts: cfg.reviewDrafts, Workers: cfg.workers, BlobCacheBytes: cfg.cacheBytes,
		CommandAssociations: cfg.reuseAssociations, SweepWorkflow: cfg.sweepWorkflow, Repository: cfg.repository,
		// Artifact archives are fetched from signed storage URLs: retried
		// and counted like API calls, but never with GitHub credentials.
		Download: chain,
		Metrics:  metrics, Logger: log, Redis: shared})
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot serve:", err)
		return exitError
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "reviewbot serve: REVIEWBOT_ADDR: listen on %s: %v\n", cfg.addr, err)
		return exitError
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(handler, slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	state := "memory"
	if shared != nil {
		state = "redis"
	}
	log.Info("reviewbot serving", "addr", ln.Addr().String(), "mode", mode, "api", cfg.apiURL, "name", cfg.name,
		"state", state, "version", version())
	if listening != nil {
		listening(ln.Addr())
	}

	select {
	case err := <-served:
		log.Error("HTTP server stopped", "error", err)
		return exitBlocking
	case <-ctx.Done():
	}
	log.Info("shutting down: draining running reviews", "timeout", cfg.shutdownTimeout.String())
	drainCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	// Stop taking deliveries first (answering the in-flight ones), then let
	// the queued reviews finish.
	code := exitOK
	if err := hs.Shutdown(drainCtx); err != nil {
		log.Error("HTTP shutdown", "error", err)
		code = exitBlocking
	}
	if err := srv.Shutdown(drainCtx); err != nil {
		log.Error("drain", "error", err)
		code = exitBlocking
	}
	log.Info("stopped")
	return code
}
