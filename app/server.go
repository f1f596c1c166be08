package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/bodylimit"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/app/prtree"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
)

// GCPercent is the GC target `reviewbot serve` runs with (unless GOGC is
// set): it collects at half again its live heap, so that the caches
// (about 250 MiB when full) and a review's working set stay under a
// GOMEMLIMIT of 600 MiB without the runtime leaning on it.
// TestReplayLatency measures the App with it.
const GCPercent = 50

// Config configures the App server. Zero fields take the defaults noted.
type Config struct {
	// WebhookSecret verifies X-Hub-Signature-256. Required.
	WebhookSecret []byte
	// Clients authenticate to GitHub (an App, or one token). Required.
	Clients ghapi.Clients
	// Name is the mention name of `@<name> review` (default DefaultName).
	Name string
	// ReviewDrafts reviews draft PRs too (a repository can also opt in with
	// review-drafts in .github/reviewbot.yml).
	ReviewDrafts bool
	// MaxBodyBytes caps a webhook body (default 25 MiB, GitHub's own cap).
	MaxBodyBytes int64
	// UnverifiedBodyBytes bounds the memory all webhook bodies whose
	// signature is not yet checked may hold at once (default 64 MiB);
	// past it, deliveries get 503 with Retry-After.
	UnverifiedBodyBytes int64
	// Workers bounds the jobs running at once (default DefaultWorkers).
	Workers int
	// MaxQueued bounds the jobs waiting (default 1000); past it deliveries
	// get 503.
	MaxQueued int
	// JobTimeout bounds one job (default 10 minutes).
	JobTimeout time.Duration
	// BlobCacheBytes is the byte budget of the blob cache (default
	// DefaultBlobCacheBytes).
	BlobCacheBytes int64
	// TreeCacheBytes is the byte budget of the tree listings cache
	// (default 32 MiB: some 150 revisions of a repository of 2,000 files).
	TreeCacheBytes int64
	// ParseCacheBytes is the byte budget of parsed files and the pipeline
	// models (default 80 MiB: the models of the real repository's last
	// bases, which share the launches they did not change and are charged
	// for them once, and the launcher evaluations). With the other caches
	// and a review's working set it fits a GOMEMLIMIT of 600 MiB (the soak
	// test).
	ParseCacheBytes int64
	// FetchConcurrency bounds concurrent blob fetches per bulk read
	// (default 8).
	FetchConcurrency int
	// ArchiveBytes bounds the tarball of a merge base, uncompressed, that
	// a review reads in one piece (default prtree.DefaultArchiveBytes,
	// capped at half of BlobCacheBytes; negative: never, read by tree
	// and blob calls).
	ArchiveBytes int64
	// Deliveries, Locker and Ledger default to in-memory
	// implementations, or to Redis's when Redis is set.
	Deliveries state.DeliverySet
	Locker     state.Locker
	Ledger     state.Ledger
	// Repository, in single-repository (token) mode, is the one
	// repository served ("owner/name"): deliveries for any other are
	// refused. Empty serves every repository the credentials reach (an
	// App: its installations).
	Repository string
	// Redis, when set, is the state several replicas share: delivery
	// dedup, per-PR leases, the pending work of each PR (which another
	// replica resumes when this one dies) and, if its budget is set, a
	// second tier of the blob cache (redis_*.go).
	Redis *state.Redis
	// Metrics defaults to a fresh registry.
	Metrics *metrics.Metrics
	Logger  *slog.Logger
	// Now is the clock (review dates); default time.Now.
	Now func() time.Time
	// Registry is the rule set (default checks/all).
	Registry *checks.Registry

	// CommandAssociations are the author associations whose comment
	// commands count: /reuse-sweep-run, /use and `@<name> review`
	// (default OWNER, MEMBER, COLLABORATOR).
	CommandAssociations []string
	// SweepWorkflow is the file name of the sweep workflow whose runs
	// reuse commands name (default run-sweep.yml).
	SweepWorkflow string
	// SignoffTimeout bounds gathering the evidence of one sign-off and
	// verifying it (default 5 minutes); past it, the checks still waiting
	// fail.
	SignoffTimeout time.Duration
	// MaxArtifactBytes bounds an artifact archive download (default 64
	// MiB).
	MaxArtifactBytes int64
	// Download fetches artifact archives from the signed storage URLs
	// GitHub redirects to. It must not add GitHub credentials (default:
	// http.DefaultTransport).
	Download http.RoundTripper
	// Warm lists repositories ("owner/name") whose default branch the
	// replica reads and builds the pipeline model of before /readyz says
	// it is ready (warm.go); WarmTimeout bounds that (default
	// DefaultWarmTimeout).
	Warm        []string
	WarmTimeout time.Duration
}

// Server is the GitHub App: the webhook endpoint and the workers behind it.
type Server struct {
	cfg        Config
	log        *slog.Logger
	metrics    *metrics.Metrics
	reg        *checks.Registry
	git        *prtree.Caches
	mergeBases *state.LRU[string]
	parseCache *checks.ParseCache
	dispatch   *dispatcher
	shared     *sharedWork // nil without Redis
	ledger     state.Ledger
	// dead are the heads set aside after crashing the reviewer; memDead
	// also counts crashes when there is no Redis (deadletter.go).
	dead      state.DeadLetters
	memDead   *state.MemoryDeadLetters
	beforeRun func(*job) // tests: runs before each job
	now       func() time.Time
	// download fetches artifact archives (no GitHub credentials).
	download *http.Client
	// bodies is the budget of unauthenticated webhook bodies.
	bodies *bodylimit.Budget
	// warmed is closed once Config.Warm is warmed; stopWarm ends it.
	warmed   chan struct{}
	stopWarm context.CancelFunc
}

// The defaults of Config that `reviewbot serve` shows as its own.
const (
	DefaultName           = "reviewbot"
	DefaultWorkers        = 4
	DefaultBlobCacheBytes = 64 << 20
)

// setDefaults gives every zero field of c its default (see Config): the
// one place they are set.
func (c *Config) setDefaults() {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 25 << 20
	}
	if c.UnverifiedBodyBytes <= 0 {
		c.UnverifiedBodyBytes = 64 << 20
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = 1000
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = 10 * time.Minute
	}
	if c.BlobCacheBytes <= 0 {
		c.BlobCacheBytes = DefaultBlobCacheBytes
	}
	if c.TreeCacheBytes <= 0 {
		c.TreeCacheBytes = 32 << 20
	}
	if c.ParseCacheBytes <= 0 {
		c.ParseCacheBytes = 80 << 20
	}
	if c.FetchConcurrency <= 0 {
		c.FetchConcurrency = 8
	}
	if c.ArchiveBytes == 0 {
		c.ArchiveBytes = prtree.DefaultArchiveBytes
	}
	if c.WarmTimeout <= 0 {
		c.WarmTimeout = DefaultWarmTimeout
	}
	if c.Redis != nil && c.Deliveries == nil {
		c.Deliveries = c.Redis.Deliveries()
	}
	if c.Deliveries == nil {
		c.Deliveries = state.NewMemoryDeliveries(0)
	}
	if c.Redis != nil && c.Locker == nil {
		c.Locker = c.Redis.Locker()
	}
	if c.Locker == nil {
		c.Locker = state.NewMemoryLocker()
	}
	if c.Redis != nil && c.Ledger == nil {
		c.Ledger = c.Redis.Ledger()
	}
	if c.Ledger == nil {
		c.Ledger = state.NewMemoryLedger(0)
	}
	if c.Metrics == nil {
		c.Metrics = metrics.New()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if len(c.CommandAssociations) == 0 {
		c.CommandAssociations = DefaultCommandAssociations
	}
	assocs := make([]string, 0, len(c.CommandAssociations))
	for _, a := range c.CommandAssociations {
		if a = strings.ToUpper(strings.TrimSpace(a)); a != "" {
			assocs = append(assocs, a)
		}
	}
	c.CommandAssociations = assocs
	if c.SweepWorkflow == "" {
		c.SweepWorkflow = DefaultSweepWorkflow
	}
	if c.SignoffTimeout <= 0 {
		c.SignoffTimeout = 5 * time.Minute
	}
	if c.MaxArtifactBytes <= 0 {
		c.MaxArtifactBytes = 64 << 20
	}
	if c.Download == nil {
		c.Download = http.DefaultTransport
	}
}

// New returns a server ready to serve Handler.
func New(cfg Config) (*Server, error) {
	if len(cfg.WebhookSecret) == 0 {
		return nil, errors.New("a webhook secret is required")
	}
	if cfg.Clients == nil {
		return nil, errors.New("GitHub clients are required")
	}
	cfg.setDefaults()
	if cfg.Registry == nil {
		reg, err := all.Registry()
		if err != nil {
			return nil, err
		}
		cfg.Registry = reg
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger, metrics: cfg.Metrics, reg: cfg.Registry, now: cfg.Now, ledger: cfg.Ledger,
		bodies: bodylimit.New(cfg.UnverifiedBodyBytes),
		git: prtree.NewCaches(state.NewBlobCache(cfg.BlobCacheBytes, cfg.Metrics), state.NewBlobTier(cfg.Redis, cfg.Metrics),
			cfg.TreeCacheBytes, cfg.FetchConcurrency, cfg.Metrics),
		mergeBases: state.NewLRU("merge_base", 4<<20, state.StringEntryBytes, cfg.Metrics),
		parseCache: checks.NewParseCache(cfg.ParseCacheBytes),
		download: &http.Client{Transport: cfg.Download, Timeout: 2 * time.Minute,
			// Storage may redirect again, but never back to where a
			// credential would be sent: the client has none.
			CheckRedirect: func(_ *http.Request, via []*http.Request) error {
				if len(via) >= 3 {
					return errors.New("too many redirects")
				}
				return nil
			}},
	}
	s.git.SetArchiveBytes(cfg.ArchiveBytes)
	if err := s.registerCacheMetrics(); err != nil {
		return nil, err
	}
	s.memDead = state.NewMemoryDeadLetters()
	s.dead = s.memDead
	if cfg.Redis != nil {
		s.dead = cfg.Redis.DeadLetters()
		if err := s.useRedis(cfg.Redis); err != nil {
			return nil, err
		}
	} else {
		s.dispatch = newDispatcher(cfg.Workers, cfg.MaxQueued, cfg.Locker, cfg.Metrics, func(ctx context.Context, j *job, l state.Lease) { s.runJob(ctx, j, l) })
	}
	s.startWarm()
	return s, nil
}

// Handler serves POST /webhook, GET /healthz, GET /readyz and GET /metrics.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Post("/webhook", s.serveWebhook)
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "ok\n")
	})
	r.Get("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		// Not ready while draining (the load balancer stops sending) or
		// while the queue is full (another replica should take it).
		if s.dispatch.Draining() {
			http.Error(w, "draining", http.StatusServiceUnavailable)
			return
		}
		if s.warming() {
			// Deliveries are still taken; the load balancer should send
			// them to a replica whose caches are warm.
			http.Error(w, "warming", http.StatusServiceUnavailable)
			return
		}
		if s.dispatch.Backlog() >= s.cfg.MaxQueued {
			http.Error(w, "queue full", http.StatusServiceUnavailable)
			return
		}
		if s.cfg.Redis != nil && !s.cfg.Redis.Up() {
			// Deliveries are still acknowledged, but the load balancer
			// should prefer replicas that can share their work.
			http.Error(w, "redis unreachable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	return r
}

// Shutdown stops accepting deliveries and waits for the queued and running
// jobs until ctx ends; then it cancels what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.stopWarm != nil {
		s.stopWarm()
	}
	if s.shared != nil {
		s.shared.halt()
	}
	return s.dispatch.Shutdown(ctx)
}

// delivery is one webhook delivery, for its log line.
type delivery struct {
	id       string
	event    string
	action   string
	repo     string
	number   int
	received time.Time
	// nonce, unverified and stored are the delivery's state in Redis: the
	// value of its dedup claim, whether that claim is still to be made
	// (Redis did not answer in time), whether its work is stored.
	nonce      string
	unverified bool
	stored     bool
}

func (d *delivery) attrs() []any {
	a := []any{"delivery", d.id, "event", d.event}
	if d.action != "" {
		a = append(a, "action", d.action)
	}
	if d.repo != "" {
		a = append(a, "repo", d.repo)
	}
	if d.number != 0 {
		a = append(a, "pr", d.number)
	}
	return a
}

// verifySignature checks X-Hub-Signature-256 against the raw body in
// constant time.
func verifySignature(header string, body, secret []byte) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign returns the X-Hub-Signature-256 value of body (for replay and tests).
func Sign(body, secret []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// ack answers a delivery and, when the delivery ends here, writes its log
// line.
func (s *Server) ack(w http.ResponseWriter, d *delivery, status int, outcome, detail string, final bool) {
	s.metrics.Delivery(metricEvent(d.event), outcome)
	if final {
		attrs := append(d.attrs(), "outcome", outcome, "duration", time.Since(d.received).String())
		if detail != "" {
			attrs = append(attrs, "detail", detail)
		}
		level := slog.LevelInfo
		if status >= 400 {
			level = slog.LevelWarn
		}
		s.log.Log(context.Background(), level, "webhook delivery", attrs...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"delivery": d.id, "outcome": outcome, "detail": detail})
}

// metricEvent names the events the App handles; the others share one
// label, which keeps the metric bounded.
func metricEvent(e string) string {
	switch e {
	case "pull_request", "issue_comment", "pull_request_review", "pull_request_review_comment",
		"ping", "installation", "installation_repositories":
		return e
	}
	return "other"
}

func (s *Server) serveWebhook(w http.ResponseWriter, r *http.Request) {
	d := &delivery{id: r.Header.Get("X-GitHub-Delivery"), event: r.Header.Get("X-GitHub-Event"), received: time.Now()}
	body, held, err := s.bodies.Read(w, r, s.cfg.MaxBodyBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			s.ack(w, d, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over %d bytes", s.cfg.MaxBodyBytes), true)
		case errors.Is(err, bodylimit.ErrBudget):
			w.Header().Set("Retry-After", "5")
			s.ack(w, d, http.StatusServiceUnavailable, "busy", "too many webhook bodies in flight; retry later", true)
		default:
			s.ack(w, d, http.StatusBadRequest, "unreadable", err.Error(), true)
		}
		return
	}
	defer s.bodies.Release(held)
	// Nothing is parsed before the signature is checked.
	if !verifySignature(r.Header.Get("X-Hub-Signature-256"), body, s.cfg.WebhookSecret) {
		s.ack(w, d, http.StatusUnauthorized, "bad_signature", "missing or wrong X-Hub-Signature-256", true)
		return
	}
	if d.id == "" || d.event == "" {
		s.ack(w, d, http.StatusBadRequest, "bad_request", "X-GitHub-Delivery and X-GitHub-Event are required", true)
		return
	}
	ctx := r.Context()
	first, err := s.firstSeen(ctx, d)
	switch {
	case errors.Is(err, state.ErrClaimPending):
		w.Header().Set("Retry-After", "2")
		s.ack(w, d, http.StatusServiceUnavailable, "claimed_elsewhere", err.Error()+"; retry shortly", true)
		return
	case err != nil && s.shared != nil:
		s.deferDedup(d, err)
	case err != nil:
		s.log.Error("delivery store failed", append(d.attrs(), "error", err)...)
		s.ack(w, d, http.StatusServiceUnavailable, "store_error", "cannot tell whether this delivery was seen", true)
		return
	case !first:
		s.ack(w, d, http.StatusOK, "duplicate", "delivery already received", true)
		return
	}
	forget := func() {
		if d.unverified {
			return // never recorded
		}
		if err := s.cfg.Deliveries.Forget(context.WithoutCancel(ctx), d.id); err != nil {
			s.log.Error("delivery store failed to forget", append(d.attrs(), "error", err)...)
		}
	}

	if metricEvent(d.event) == "other" {
		// Not parsed at all: the App has nothing to do with it, and
		// go-github cannot read every event's payload.
		s.ack(w, d, http.StatusAccepted, "unhandled_event", "reviewbot does not act on this event", true)
		return
	}
	payload, err := github.ParseWebHook(d.event, body)
	if err != nil {
		forget()
		s.ack(w, d, http.StatusBadRequest, "bad_payload", err.Error(), true)
		return
	}
	rt := s.routeSafely(ctx, d, payload)
	if rt.status >= 400 && rt.status != http.StatusForbidden {
		forget() // a redelivery after the cause is fixed must be taken
	}
	if rt.job == nil {
		status := rt.status
		if status == 0 {
			status = http.StatusOK
		}
		s.ack(w, d, status, rt.outcome, rt.detail, true)
		return
	}
	rt.job.deliveries = []*delivery{d}
	rt.job.enqueued = time.Now()
	if err := s.enqueue(ctx, rt.job); err != nil {
		forget()
		s.ack(w, d, http.StatusServiceUnavailable, "refused", err.Error(), true)
		return
	}
	s.ack(w, d, http.StatusAccepted, "queued", rt.detail, false)
}

// routed is a handler's decision about a delivery: a job to queue, or an
// outcome to answer with right away.
type routed struct {
	job     *job
	outcome string
	detail  string
	status  int
}

func ignored(why string) routed { return routed{outcome: "ignored", detail: why} }

// routeSafely routes a delivery; a handler that panics on a payload
// nobody anticipated costs that delivery a 400, never the process or the
// delivery id.
func (s *Server) routeSafely(ctx context.Context, d *delivery, payload any) (rt routed) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked on a delivery", append(d.attrs(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))...)
			rt = routed{outcome: "bad_payload", detail: "the payload could not be handled", status: http.StatusBadRequest}
		}
	}()
	if s.cfg.Repository != "" {
		if full := payloadRepo(payload); full != "" && !strings.EqualFold(full, s.cfg.Repository) {
			return routed{outcome: "foreign_repository", status: http.StatusForbidden,
				detail: fmt.Sprintf("this server serves %s only, not %s", s.cfg.Repository, full)}
		}
	}
	return s.route(ctx, d, payload)
}

// payloadRepo is the full name of the repository a delivery is about, or
// "" when it names none (ping, installation).
func payloadRepo(payload any) string {
	if p, ok := payload.(interface{ GetRepo() *github.Repository }); ok {
		r := p.GetRepo()
		if r.GetFullName() != "" {
			return r.GetFullName()
		}
		if r.GetOwner().GetLogin() != "" || r.GetName() != "" {
			return r.GetOwner().GetLogin() + "/" + r.GetName()
		}
	}
	return ""
}

// route hands the payload to its event's handler (one file per event).
func (s *Server) route(ctx context.Context, d *delivery, payload any) routed {
	switch ev := payload.(type) {
	case *github.PullRequestEvent:
		return s.onPullRequest(ctx, d, ev)
	case *github.IssueCommentEvent:
		return s.onIssueComment(ctx, d, ev)
	case *github.PullRequestReviewEvent:
		return s.onPullRequestReview(ctx, d, ev)
	case *github.PullRequestReviewCommentEvent:
		return s.onPullRequestReviewComment(ctx, d, ev)
	case *github.PingEvent:
		return s.onPing(ctx, d, ev)
	case *github.InstallationEvent:
		return s.onInstallation(ctx, d, ev)
	case *github.InstallationRepositoriesEvent:
		return s.onInstallationRepositories(ctx, d, ev)
	}
	return routed{outcome: "unhandled_event", detail: "reviewbot does not act on this event", status: http.StatusAccepted}
}
