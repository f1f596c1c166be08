//go:build !noserve

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
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// serveConfig is `reviewbot serve`'s configuration: environment variables,
// overridden by flags. Secrets come only from the environment (or a file),
// never from flags, which other users of the machine can read.
type serveConfig struct {
	addr, mention, apiURL string
	appID                 int64
	key                   *rsa.PrivateKey
	token, botLogin       string
	// keyName names the setting the App's key came from, for messages.
	keyName           string
	secret            []byte
	reviewDrafts      bool
	workers           int
	shutdownTimeout   time.Duration
	logFormat         string
	cacheBytes        int64
	warm              []string
	reuseAssociations []string
	sweepWorkflow     string
	// redisURL (a secret: it may hold a password) turns on the state
	// several replicas share.
	redisURL        string
	redisPrefix     string
	redisLeaseTTL   time.Duration
	redisBlobsBytes int64
	// repository is the owner/name a GITHUB_TOKEN serves, checked at
	// start-up when given.
	repository string
	// given names each setting (by its variable) as the user gave it: the
	// flag when the command line set it, else the variable.
	given map[string]string
}

// name is how messages name the setting of variable env.
func (c *serveConfig) name(env string) string {
	if n := c.given[env]; n != "" {
		return n
	}
	return env
}

// configError names the setting that is wrong; its value is never shown
// (it may be a secret).
type configError struct {
	name string
	msg  string
}

func (e *configError) Error() string { return e.name + ": " + e.msg }

// configErrors are every problem of a configuration, so that one start
// names them all.
type configErrors []*configError

func (e configErrors) Error() string {
	var lines []string
	for _, ce := range e {
		lines = append(lines, ce.Error())
	}
	return strings.Join(lines, "; ")
}

var loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

// workflowRE is a workflow file name under .github/workflows.
var workflowRE = regexp.MustCompile(`^[A-Za-z0-9._-]+\.ya?ml$`)

// knownAssociations are GitHub's author_association values.
var knownAssociations = map[string]bool{"OWNER": true, "MEMBER": true, "COLLABORATOR": true, "CONTRIBUTOR": true,
	"FIRST_TIME_CONTRIBUTOR": true, "FIRST_TIMER": true, "MANNEQUIN": true, "NONE": true}

// errUsageShown says loadServeConfig already answered the arguments: -h
// printed the usage (exit 0), or a bad flag its one-line error (exit 2).
type errUsageShown struct{ code int }

func (e errUsageShown) Error() string { return "usage shown" }

// serveFlags are the settings of serve as given (a flag, else its
// variable, else the default), before they are checked.
type serveFlags struct {
	addr, name, apiURL, appID, keyFile, drafts, workers, shutdown, logFormat, botLogin,
	cacheMB, assocs, workflow, redisPrefix, leaseTTL, redisBlobsMB, repository, warm *string
}

// declareServeFlags declares serve's flags on cmd. Each flag defaults to
// its variable; the map it returns remembers which, so a message can name
// the one the user gave.
func declareServeFlags(cmd *command, getenv func(string) string) (*serveFlags, map[string]string) {
	fs := cmd.fs
	flagEnv := map[string]string{}
	setting := func(flagName, envName, def, usage string) *string {
		flagEnv[flagName] = envName
		if v := getenv(envName); v != "" {
			def = v
		}
		return fs.String(flagName, def, usage)
	}
	return &serveFlags{
		addr:         setting("addr", "REVIEWBOT_ADDR", ":8080", "listen address `ADDR` (REVIEWBOT_ADDR)"),
		name:         setting("name", "REVIEWBOT_NAME", app.DefaultName, "mention `NAME` of @NAME review (REVIEWBOT_NAME)"),
		apiURL:       setting("api-url", "GITHUB_API_URL", ghapi.DefaultAPIURL, "GitHub REST API `URL`; for GitHub Enterprise Server https://HOST/api/v3/ (GITHUB_API_URL)"),
		appID:        setting("app-id", "GITHUB_APP_ID", "", "GitHub App `ID` (GITHUB_APP_ID)"),
		keyFile:      setting("private-key-file", "GITHUB_APP_PRIVATE_KEY_FILE", "", "the App's private key, PEM, in `FILE` (GITHUB_APP_PRIVATE_KEY_FILE; or the PEM itself in GITHUB_APP_PRIVATE_KEY)"),
		drafts:       setting("review-drafts", "REVIEWBOT_REVIEW_DRAFTS", "false", "review draft PRs too: `BOOL` (REVIEWBOT_REVIEW_DRAFTS)"),
		workers:      setting("workers", "REVIEWBOT_WORKERS", strconv.Itoa(app.DefaultWorkers), "`N` reviews run at once (REVIEWBOT_WORKERS)"),
		shutdown:     setting("shutdown-timeout", "REVIEWBOT_SHUTDOWN_TIMEOUT", "30s", "how long SIGTERM waits for running reviews: `DURATION` (REVIEWBOT_SHUTDOWN_TIMEOUT)"),
		logFormat:    setting("log-format", "REVIEWBOT_LOG_FORMAT", "json", "log `FORMAT`: json or text (REVIEWBOT_LOG_FORMAT)"),
		botLogin:     setting("bot-login", "REVIEWBOT_BOT_LOGIN", "", "with GITHUB_TOKEN: the `LOGIN` the token's comments appear under, when GitHub cannot say (e.g. github-actions[bot]) (REVIEWBOT_BOT_LOGIN)"),
		cacheMB:      setting("blob-cache-mb", "REVIEWBOT_BLOB_CACHE_MB", strconv.Itoa(app.DefaultBlobCacheBytes>>20), "byte budget of the file cache, `MIB` (REVIEWBOT_BLOB_CACHE_MB)"),
		assocs:       setting("reuse-associations", "REVIEWBOT_REUSE_ASSOCIATIONS", strings.Join(app.DefaultCommandAssociations, ","), "author associations whose comment commands count (/reuse-sweep-run, /use, @NAME review), comma-separated `LIST` (REVIEWBOT_REUSE_ASSOCIATIONS)"),
		workflow:     setting("sweep-workflow", "REVIEWBOT_SWEEP_WORKFLOW", app.DefaultSweepWorkflow, "file name `FILE` of the sweep workflow whose runs reuse commands name (REVIEWBOT_SWEEP_WORKFLOW)"),
		redisPrefix:  setting("redis-prefix", "REVIEWBOT_REDIS_PREFIX", state.DefaultRedisPrefix, "with REVIEWBOT_REDIS_URL: the `PREFIX` of every Redis key (REVIEWBOT_REDIS_PREFIX)"),
		leaseTTL:     setting("redis-lease-ttl", "REVIEWBOT_REDIS_LEASE_TTL", state.DefaultLeaseTTL.String(), "with REVIEWBOT_REDIS_URL: how long a PR stays leased to a replica that stopped renewing, `DURATION` (REVIEWBOT_REDIS_LEASE_TTL)"),
		redisBlobsMB: setting("redis-blob-cache-mb", "REVIEWBOT_REDIS_BLOB_CACHE_MB", "0", "with REVIEWBOT_REDIS_URL: byte budget of the file cache shared in Redis, `MIB`; 0 is off (REVIEWBOT_REDIS_BLOB_CACHE_MB)"),
		warm:         setting("warm", "REVIEWBOT_WARM", "", "repositories whose default branch a replica reads, and builds the pipeline model of, before /readyz says it is ready: comma-separated `LIST` of OWNER/NAME (REVIEWBOT_WARM)"),
		repository:   setting("repository", "GITHUB_REPOSITORY", "", "with GITHUB_TOKEN: the one `OWNER/NAME` served, checked at start-up; deliveries for any other repository are refused (GITHUB_REPOSITORY)"),
	}, flagEnv
}

// badSetting reports a problem with the setting of variable env.
type badSetting func(env, format string, args ...any)

func loadServeConfig(args []string, getenv func(string) string, stdout, stderr io.Writer) (*serveConfig, error) {
	c := &serveConfig{}
	cmd := newCommand("serve", "reviewbot serve [flags]")
	cmd.about = "Runs the GitHub App. Secrets come from the environment: GITHUB_WEBHOOK_SECRET, and either\n" +
		"GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY_FILE or GITHUB_APP_PRIVATE_KEY (a GitHub App),\n" +
		"or GITHUB_TOKEN (single-repository mode). Each flag defaults to the variable it names.\n" +
		"The credentials are checked with GitHub once at start-up."
	f, flagEnv := declareServeFlags(cmd, getenv)
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return nil, errUsageShown{code}
	}
	var problems configErrors
	if len(pos) > 0 {
		problems = append(problems, &configError{"serve", fmt.Sprintf("unexpected argument %q", pos[0])})
	}
	// A value is reported under the name it was given by: the flag when
	// the command line set it.
	c.given = map[string]string{}
	for f := range cmd.set() {
		if env := flagEnv[f]; env != "" {
			c.given[env] = "--" + f
		}
	}
	bad := func(env, format string, args ...any) {
		problems = append(problems, &configError{c.name(env), fmt.Sprintf(format, args...)})
	}
	c.readServer(f, bad)
	c.readCommands(f, bad)
	c.readRedis(f, getenv, bad)
	if s := getenv("GITHUB_WEBHOOK_SECRET"); s != "" {
		c.secret = []byte(s)
	} else {
		bad("GITHUB_WEBHOOK_SECRET", "not set (the webhook secret of the GitHub App)")
	}
	c.loadCredentials(getenv, *f.appID, *f.keyFile, *f.botLogin, *f.repository, bad)
	if len(problems) > 0 {
		return nil, problems
	}
	return c, nil
}

// readServer checks the settings of the server itself: where it listens,
// its name, GitHub's URL, logs, drafts, workers and the file cache.
func (c *serveConfig) readServer(f *serveFlags, bad badSetting) {
	c.addr, c.mention, c.logFormat = *f.addr, *f.name, *f.logFormat
	if c.addr == "" {
		bad("REVIEWBOT_ADDR", "empty listen address")
	} else if _, _, err := net.SplitHostPort(c.addr); err != nil {
		bad("REVIEWBOT_ADDR", "%q is not host:port", c.addr)
	}
	if !loginRE.MatchString(c.mention) {
		bad("REVIEWBOT_NAME", "%q is not a GitHub login", c.mention)
	}
	if u, err := url.Parse(*f.apiURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("GITHUB_API_URL", "%q is not an http(s) URL", *f.apiURL)
	} else {
		c.apiURL = u.String()
		if !strings.HasSuffix(c.apiURL, "/") {
			c.apiURL += "/"
		}
	}
	if c.logFormat != "json" && c.logFormat != "text" {
		bad("REVIEWBOT_LOG_FORMAT", "%q is neither json nor text", c.logFormat)
	}
	var err error
	if c.reviewDrafts, err = strconv.ParseBool(*f.drafts); err != nil {
		bad("REVIEWBOT_REVIEW_DRAFTS", "%q is not true or false", *f.drafts)
	}
	if c.workers, err = strconv.Atoi(*f.workers); err != nil || c.workers < 1 || c.workers > 256 {
		bad("REVIEWBOT_WORKERS", "%q is not a number from 1 to 256", *f.workers)
	}
	if c.shutdownTimeout, err = time.ParseDuration(*f.shutdown); err != nil || c.shutdownTimeout <= 0 {
		bad("REVIEWBOT_SHUTDOWN_TIMEOUT", "%q is not a positive duration (e.g. 30s)", *f.shutdown)
	}
	if mb, err := strconv.ParseInt(*f.cacheMB, 10, 64); err != nil || mb < 1 {
		bad("REVIEWBOT_BLOB_CACHE_MB", "%q is not a positive number", *f.cacheMB)
	} else {
		c.cacheBytes = mb << 20
	}
	for _, r := range strings.Split(*f.warm, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		if owner, name, ok := strings.Cut(r, "/"); !ok || !loginRE.MatchString(owner) || name == "" || strings.ContainsAny(name, "/ ") {
			bad("REVIEWBOT_WARM", "%q is not OWNER/NAME", r)
			continue
		}
		c.warm = append(c.warm, r)
	}
}

// readCommands checks who may give comment commands and which workflow's
// runs the reuse commands name.
func (c *serveConfig) readCommands(f *serveFlags, bad badSetting) {
	assocs := *f.assocs
	for _, a := range strings.Split(assocs, ",") {
		a = strings.ToUpper(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		if !knownAssociations[a] {
			bad("REVIEWBOT_REUSE_ASSOCIATIONS", "%q is not a GitHub author association (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE)", a)
			continue
		}
		c.reuseAssociations = append(c.reuseAssociations, a)
	}
	if len(c.reuseAssociations) == 0 && !strings.ContainsFunc(assocs, func(r rune) bool { return r != ',' && r != ' ' }) {
		bad("REVIEWBOT_REUSE_ASSOCIATIONS", "empty: nobody could issue a command")
	}
	c.sweepWorkflow = *f.workflow
	if !workflowRE.MatchString(c.sweepWorkflow) {
		bad("REVIEWBOT_SWEEP_WORKFLOW", "%q is not a workflow file name (like run-sweep.yml)", c.sweepWorkflow)
	}
}

// readRedis checks the settings of the shared state (REVIEWBOT_REDIS_URL
// and what goes with it).
func (c *serveConfig) readRedis(f *serveFlags, getenv func(string) string, bad badSetting) {
	c.redisURL, c.redisPrefix = getenv("REVIEWBOT_REDIS_URL"), *f.redisPrefix
	if c.redisURL != "" {
		if err := state.ValidateRedisURL(c.redisURL); err != nil {
			bad("REVIEWBOT_REDIS_URL", "%s", err.Error())
		}
	}
	if c.redisPrefix == "" || strings.ContainsAny(c.redisPrefix, " \t\n") {
		bad("REVIEWBOT_REDIS_PREFIX", "%q is empty or holds white space", c.redisPrefix)
	}
	var err error
	if c.redisLeaseTTL, err = time.ParseDuration(*f.leaseTTL); err != nil || c.redisLeaseTTL < time.Second || c.redisLeaseTTL > 10*time.Minute {
		bad("REVIEWBOT_REDIS_LEASE_TTL", "%q is not a duration from 1s to 10m", *f.leaseTTL)
	}
	if rmb, err := strconv.ParseInt(*f.redisBlobsMB, 10, 64); err != nil || rmb < 0 {
		bad("REVIEWBOT_REDIS_BLOB_CACHE_MB", "%q is not a number (0 is off)", *f.redisBlobsMB)
	} else {
		c.redisBlobsBytes = rmb << 20
	}
}

// loadCredentials reads the App's or the token's credentials, reporting
// every problem through bad.
func (c *serveConfig) loadCredentials(getenv func(string) string, appID, keyFile, botLogin, repository string, bad badSetting) {
	c.token, c.botLogin, c.repository = getenv("GITHUB_TOKEN"), botLogin, repository
	if c.botLogin != "" && c.token == "" {
		bad("REVIEWBOT_BOT_LOGIN", "only used with GITHUB_TOKEN (an App knows its own login)")
	}
	if c.repository != "" {
		if owner, name, ok := strings.Cut(c.repository, "/"); !ok || !loginRE.MatchString(owner) || name == "" || strings.ContainsAny(name, "/ ") {
			bad("GITHUB_REPOSITORY", "%q is not OWNER/NAME", c.repository)
		}
	}
	pem := getenv("GITHUB_APP_PRIVATE_KEY")
	hasApp := appID != "" || keyFile != "" || pem != ""
	switch {
	case c.token != "" && hasApp:
		bad("GITHUB_TOKEN", "set together with GitHub App credentials; use one or the other")
		return
	case c.token != "" && c.repository == "":
		bad("GITHUB_REPOSITORY", "not set: with GITHUB_TOKEN the server serves one repository (OWNER/NAME), and refuses deliveries for any other")
		return
	case c.token != "":
		return
	case !hasApp:
		bad("GITHUB_APP_ID", "no GitHub credentials: set GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY), or GITHUB_TOKEN")
		return
	}
	if c.repository != "" && c.given["GITHUB_REPOSITORY"] != "" {
		bad("GITHUB_REPOSITORY", "only used with GITHUB_TOKEN (an App serves the repositories it is installed on)")
	}
	var err error
	switch {
	case appID == "":
		bad("GITHUB_APP_ID", "not set")
	default:
		if c.appID, err = strconv.ParseInt(appID, 10, 64); err != nil || c.appID <= 0 {
			bad("GITHUB_APP_ID", "%q is not a positive number", appID)
		}
	}
	c.keyName = "GITHUB_APP_PRIVATE_KEY"
	switch {
	case keyFile != "" && pem != "":
		bad("GITHUB_APP_PRIVATE_KEY_FILE", "set together with GITHUB_APP_PRIVATE_KEY; use one or the other")
		return
	case keyFile != "":
		c.keyName = c.name("GITHUB_APP_PRIVATE_KEY_FILE")
		b, err := os.ReadFile(keyFile)
		if err != nil {
			bad("GITHUB_APP_PRIVATE_KEY_FILE", "cannot read %s: %v", keyFile, errors.Unwrap(err))
			return
		}
		pem = string(b)
	case pem == "":
		bad("GITHUB_APP_PRIVATE_KEY_FILE", "not set (nor GITHUB_APP_PRIVATE_KEY)")
		return
	}
	if c.key, err = ghapi.ParsePrivateKey([]byte(pem)); err != nil {
		problemName := "GITHUB_APP_PRIVATE_KEY"
		if keyFile != "" {
			problemName = "GITHUB_APP_PRIVATE_KEY_FILE"
		}
		bad(problemName, "not an RSA private key in PEM form")
	}
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
		return configFailure(err, stderr)
	}
	var handler slog.Handler = slog.NewJSONHandler(stderr, nil)
	if cfg.logFormat == "text" {
		handler = slog.NewTextHandler(stderr, nil)
	}
	log := slog.New(handler)

	// The address first: a port another process holds is a configuration
	// to change, reported before anything else is asked of GitHub.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "reviewbot serve: %s: cannot listen on %s: %v\n", cfg.name("REVIEWBOT_ADDR"), cfg.addr, errors.Unwrap(err))
		return exitError
	}
	defer ln.Close()

	mets := metrics.New()
	chain := ghapi.TransportChain(nil, ghapi.DefaultRetryPolicy(), mets, log)
	clients, err := cfg.clients(chain)
	if err != nil {
		fmt.Fprintf(stderr, "reviewbot serve: %s: %v\n", cfg.name("GITHUB_API_URL"), err)
		return exitError
	}
	if !checkCredentials(ctx, cfg, mets, log, stderr) {
		return exitError
	}
	mode := "app"
	if cfg.token != "" {
		mode = "token"
	}
	var shared *state.Redis
	if cfg.redisURL != "" {
		if shared, err = state.NewRedis(state.RedisOptions{URL: cfg.redisURL, Prefix: cfg.redisPrefix,
			LeaseTTL: cfg.redisLeaseTTL, BlobCacheBytes: cfg.redisBlobsBytes, Logger: log}); err != nil {
			fmt.Fprintln(stderr, "reviewbot serve: REVIEWBOT_REDIS_URL:", err)
			return exitError
		}
		defer shared.Close()
	}
	srv, err := app.New(app.Config{WebhookSecret: cfg.secret, Clients: clients, Name: cfg.mention,
		ReviewDrafts: cfg.reviewDrafts, Workers: cfg.workers, BlobCacheBytes: cfg.cacheBytes, Warm: cfg.warm,
		CommandAssociations: cfg.reuseAssociations, SweepWorkflow: cfg.sweepWorkflow, Repository: cfg.repository,
		// Artifact archives are fetched from signed storage URLs: retried
		// and counted like API calls, but never with GitHub credentials.
		Download: chain,
		Metrics:  mets, Logger: log, Redis: shared})
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot serve:", err)
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
	log.Info("reviewbot serving", "addr", ln.Addr().String(), "mode", mode, "api", cfg.apiURL, "name", cfg.mention,
		"state", state, "version", version())
	if listening != nil {
		listening(ln.Addr())
	}
	return waitAndDrain(ctx, served, hs, srv, cfg.shutdownTimeout, log)
}

// configFailure reports a configuration serve cannot run with and returns
// its exit code: the usage was already shown, or each bad setting is
// named on stderr here.
func configFailure(err error, stderr io.Writer) int {
	var shown errUsageShown
	if errors.As(err, &shown) {
		return shown.code
	}
	var ces configErrors
	if errors.As(err, &ces) {
		for _, ce := range ces {
			fmt.Fprintln(stderr, "reviewbot serve:", ce)
		}
	}
	return exitError
}

// waitAndDrain runs until the HTTP server stops on its own (a failure:
// exitBlocking) or ctx is cancelled, then drains within timeout. It is
// apart from serve because the shutdown order is the part to get right:
// stop taking deliveries before the reviews they queued are drained.
func waitAndDrain(ctx context.Context, served <-chan error, hs *http.Server, srv *app.Server, timeout time.Duration, log *slog.Logger) int {
	select {
	case err := <-served:
		log.Error("HTTP server stopped", "error", err)
		return exitBlocking
	case <-ctx.Done():
	}
	log.Info("shutting down: draining running reviews", "timeout", timeout.String())
	drainCtx, cancel := context.WithTimeout(context.Background(), timeout)
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

// clients are the App's or the token's GitHub clients, their calls going
// through chain.
func (c *serveConfig) clients(chain http.RoundTripper) (ghapi.Clients, error) {
	if c.token != "" {
		return ghapi.NewTokenClients(c.token, c.botLogin, c.apiURL, chain)
	}
	auth, err := ghapi.NewAppAuth(c.appID, c.key, c.apiURL, chain, nil)
	if err != nil {
		return nil, err
	}
	return ghapi.NewAppClients(auth, c.apiURL, chain), nil
}

// checkCredentials asks GitHub once whether the credentials work, and
// reports false after saying which one is wrong. A check that cannot be
// made (GitHub unreachable or rate limited) is logged and the server
// starts: it says nothing about the credentials.
func checkCredentials(ctx context.Context, cfg *serveConfig, mets *metrics.Metrics, log *slog.Logger, stderr io.Writer) bool {
	// One attempt, no waiting on rate limits: a start-up should not hang.
	policy := ghapi.DefaultRetryPolicy()
	policy.MaxRetries, policy.RateLimitBudget, policy.AttemptTimeout = 0, 0, 10*time.Second
	clients, err := cfg.clients(ghapi.TransportChain(nil, policy, mets, log))
	if err != nil {
		fmt.Fprintf(stderr, "reviewbot serve: %s: %v\n", cfg.name("GITHUB_API_URL"), err)
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err = ghapi.CheckCredentials(ctx, clients, cfg.repository)
	var ce *ghapi.CredentialsError
	switch {
	case err == nil:
		return true
	case !errors.As(err, &ce):
		log.Warn("could not check the GitHub credentials at start-up; starting anyway", "error", err.Error())
		return true
	}
	fmt.Fprintln(stderr, "reviewbot serve:", refusal(cfg, ce))
	return false
}

// refusal says which setting GitHub's refusal of the credentials points
// at, and what to do.
func refusal(cfg *serveConfig, ce *ghapi.CredentialsError) string {
	answer := fmt.Sprintf("%d %s", ce.Status, ce.Message)
	var msg string
	switch {
	case ce.Refused == ghapi.CredentialsApp && ce.Status == http.StatusNotFound:
		msg = fmt.Sprintf("%s: GET /app answered %s: is it the REST API (https://HOST/api/v3/ for GitHub Enterprise Server)?", cfg.name("GITHUB_API_URL"), answer)
	case ce.Refused == ghapi.CredentialsApp:
		msg = fmt.Sprintf("%s or %s: GitHub refused the App's JWT (%s): the private key is not the key of App %d, or the App ID is wrong",
			cfg.name("GITHUB_APP_ID"), cfg.keyName, answer, cfg.appID)
	case ce.Refused == ghapi.CredentialsRepository:
		msg = fmt.Sprintf("%s: the token cannot read %s (%s): a typo, or a token without access to it", cfg.name("GITHUB_REPOSITORY"), cfg.repository, answer)
	case ce.Status == http.StatusForbidden && cfg.repository == "":
		msg = fmt.Sprintf("GITHUB_TOKEN: GitHub will not say whose token it is (%s), as for an installation or Actions token: set %s to the login its comments appear under (github-actions[bot] for an Actions token)",
			answer, cfg.name("REVIEWBOT_BOT_LOGIN"))
	default:
		msg = fmt.Sprintf("GITHUB_TOKEN: GitHub refused the token (%s)", answer)
	}
	return msg
}
