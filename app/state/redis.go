package state

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/reviewbot-dev/reviewbot/app/internal/backoff"
)

// Several replicas behind one load balancer share their state in Redis:
// the delivery ids already accepted (redis_dedup.go), one lease per PR
// (redis_lease.go), the work waiting for each PR (redis_work.go) and,
// optionally, raw blobs by SHA (redis_blobs.go). What the bot posted is
// not among them: that stays on GitHub (the markers in the bot's
// comments), so losing Redis can cost a repeated review run, never a
// repeated post.

// The defaults of RedisOptions that `reviewbot serve` shows as its own.
const (
	DefaultRedisPrefix = "reviewbot:"
	DefaultLeaseTTL    = 30 * time.Second
)

// RedisOptions configures the state the replicas share. Zero fields take
// the defaults noted.
type RedisOptions struct {
	// URL is redis://[user:password@]host:port/db, or rediss:// for TLS.
	// Query parameters go-redis knows (dial_timeout, read_timeout,
	// pool_size, ...) override the App's defaults.
	URL string
	// Prefix starts every key (default DefaultRedisPrefix), so several
	// deployments can share one Redis.
	Prefix string
	// LeaseTTL is how long a PR's lease lives without renewal (default
	// DefaultLeaseTTL). A replica that dies holds its PRs this long at most; then
	// another replica resumes their work.
	LeaseTTL time.Duration
	// DeliveryTTL is how long a delivery id is remembered (default 72h:
	// GitHub redelivers deliveries of the past three days).
	DeliveryTTL time.Duration
	// ClaimTimeout is how long a delivery's claim may stay unconfirmed
	// (claimed, its work not yet stored) before a redelivery is taken on
	// in its place (default 1s: an acknowledgement stores its work within
	// AckTimeout, so an older unconfirmed claim's replica died or lost
	// Redis).
	ClaimTimeout time.Duration
	// WorkTTL is how long the pending work of a PR is kept when no
	// replica gets to it (default 72h).
	WorkTTL time.Duration
	// BlobCacheBytes is the byte budget of the shared blob tier; 0 turns
	// it off.
	BlobCacheBytes int64
	// AckTimeout bounds the Redis calls a webhook delivery waits for
	// before it is answered (default 250ms); a delivery whose calls fail
	// or take longer is acknowledged anyway and finished from the local
	// queue once Redis answers again.
	AckTimeout time.Duration
	// OpTimeout bounds every other Redis call (default 2s).
	OpTimeout time.Duration
	// HealthInterval is how often Redis is pinged for /readyz (default 1s).
	HealthInterval time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Redis is the shared state of a set of replicas, on one Redis server
// (a primary; Redis Cluster is not supported: the scripts touch keys of
// one PR together). Its zero value is not usable; use NewRedis.
type Redis struct {
	opts   RedisOptions
	client *redis.Client
	// owner names this process in the leases it holds: host, pid and a
	// random part, so a restarted process never mistakes an old lease for
	// its own.
	owner string
	log   *slog.Logger

	up      atomic.Bool
	metrics redisMetrics

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

type redisMetrics struct {
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	up       prometheus.Gauge
	events   *prometheus.CounterVec
}

func newRedisMetrics() redisMetrics {
	return redisMetrics{
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "reviewbot_redis_errors_total",
			Help: "Redis calls that failed or timed out, by operation (dedup, work, lease, sweep, blob, ping).",
		}, []string{"op"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "reviewbot_redis_op_duration_seconds",
			Help:    "Duration of Redis calls, by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"op"}),
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "reviewbot_redis_up", Help: "1 while the last Redis ping succeeded."}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "reviewbot_redis_events_total",
			Help: "Shared-state events: deferred (a delivery acknowledged while Redis was unavailable), " +
				"duplicate_late (found a duplicate once Redis answered), lease_lost, resumed (work another replica left), " +
				"busy (work handed to the replica holding the PR), claim_taken_over (a redelivery taken on because its first claim was never confirmed by stored work).",
		}, []string{"event"}),
	}
}

// NewRedis connects to the Redis at opts.URL. It does not wait for Redis
// to answer: a replica starts (not ready) while Redis is down.
func NewRedis(opts RedisOptions) (*Redis, error) {
	u, ro, err := parseRedisURL(opts.URL)
	if err != nil {
		return nil, err
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultRedisPrefix
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.DeliveryTTL <= 0 {
		opts.DeliveryTTL = 72 * time.Hour
	}
	if opts.WorkTTL <= 0 {
		opts.WorkTTL = 72 * time.Hour
	}
	if opts.AckTimeout <= 0 {
		opts.AckTimeout = 250 * time.Millisecond
	}
	if opts.ClaimTimeout <= 0 {
		opts.ClaimTimeout = max(time.Second, 4*opts.AckTimeout)
	}
	if opts.OpTimeout <= 0 {
		opts.OpTimeout = 2 * time.Second
	}
	if opts.HealthInterval <= 0 {
		opts.HealthInterval = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	// Fail fast and let the App's own backoff retry: go-redis's retries
	// and dial retries would hold a webhook past its budget.
	q := u.Query()
	if !q.Has("dial_timeout") {
		ro.DialTimeout = time.Second
	}
	if !q.Has("read_timeout") {
		ro.ReadTimeout = time.Second
	}
	if !q.Has("write_timeout") {
		ro.WriteTimeout = time.Second
	}
	if !q.Has("pool_timeout") {
		ro.PoolTimeout = time.Second
	}
	if !q.Has("max_retries") {
		ro.MaxRetries = -1
	}
	ro.DialerRetries = 1
	ro.ContextTimeoutEnabled = true
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if ro.ClientName == "" {
		ro.ClientName = "reviewbot"
	}

	redisLogOnce.Do(func() { redis.SetLogger(redisLog{opts.Logger}) })
	host, _ := os.Hostname()
	var nonce [6]byte
	_, _ = crand.Read(nonce[:])
	r := &Redis{opts: opts, client: redis.NewClient(ro), log: opts.Logger, metrics: newRedisMetrics(),
		owner: fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(nonce[:])),
		stop:  make(chan struct{}), done: make(chan struct{})}
	if r.ping(context.Background()); !r.Up() {
		r.log.Error("redis is unreachable at start; not ready until it answers")
	}
	go r.monitor()
	return r, nil
}

// ValidateRedisURL reports what is wrong with a Redis URL, without
// quoting it (it may hold a password).
func ValidateRedisURL(s string) error {
	_, _, err := parseRedisURL(s)
	return err
}

func parseRedisURL(s string) (*url.URL, *redis.Options, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") {
		return nil, nil, errors.New("not a redis://, rediss:// or unix:// URL")
	}
	ro, err := redis.ParseURL(s)
	if err != nil {
		// go-redis names the part that is wrong (the database, an option),
		// never the password.
		return nil, nil, fmt.Errorf("not a valid Redis URL (redis://[user:password@]host:port/db): %w", err)
	}
	return u, ro, nil
}

// redisLog sends go-redis's own messages (a failed dial, once per attempt)
// to the App's log at debug level: the App logs and counts the failures
// that matter itself, once per operation, as structured lines.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.Log(ctx, slog.LevelDebug, "go-redis: "+fmt.Sprintf(format, v...))
}

// go-redis has one logger per process.
var redisLogOnce sync.Once

// Close stops the health checks and closes the connections.
func (r *Redis) Close() error {
	var err error
	r.closeOnce.Do(func() {
		close(r.stop)
		<-r.done
		err = r.client.Close()
	})
	return err
}

// Up reports whether the last ping succeeded.
func (r *Redis) Up() bool { return r.up.Load() }

// Collectors are the Redis metrics, for the server's registry.
func (r *Redis) Collectors() []prometheus.Collector {
	return []prometheus.Collector{r.metrics.errors, r.metrics.duration, r.metrics.up, r.metrics.events}
}

func (r *Redis) monitor() {
	defer close(r.done)
	t := time.NewTicker(r.opts.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.ping(context.Background())
		}
	}
}

func (r *Redis) ping(ctx context.Context) {
	err := r.do(ctx, "ping", r.opts.OpTimeout, func(ctx context.Context) error {
		return r.client.Ping(ctx).Err()
	})
	was := r.up.Swap(err == nil)
	if err == nil {
		r.metrics.up.Set(1)
		if !was {
			r.log.Info("redis is reachable")
		}
		return
	}
	r.metrics.up.Set(0)
	if was {
		r.log.Error("redis is unreachable; not ready until it answers", "error", err)
	}
}

// do runs one Redis operation under a timeout, timing it and counting its
// failure. redis.Nil (no such key) is an answer, not a failure.
func (r *Redis) do(ctx context.Context, op string, timeout time.Duration, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	err := fn(ctx)
	r.metrics.duration.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil && !errors.Is(err, redis.Nil) {
		r.metrics.errors.WithLabelValues(op).Inc()
		return fmt.Errorf("redis %s: %w", op, err)
	}
	return err
}

// Event counts a shared-state event (reviewbot_redis_events_total).
func (r *Redis) Event(name string) { r.metrics.events.WithLabelValues(name).Inc() }

// Options are the options r was made with, defaults filled in.
func (r *Redis) Options() RedisOptions { return r.opts }

func (r *Redis) key(parts ...string) string { return r.opts.Prefix + strings.Join(parts, "") }

// redisBackoff is the wait before retry n (0-based) of a Redis operation:
// doubling from 100ms to 5s, jittered so replicas spread out when Redis
// comes back.
func redisBackoff(n int) time.Duration {
	return backoff.Jittered(100*time.Millisecond, 5*time.Second, n)
}

// Retry runs fn until it succeeds, fails for good (permanent) or ctx
// ends, backing off between failures.
func Retry(ctx context.Context, fn func() error) error {
	for n := 0; ; n++ {
		err := fn()
		if err == nil {
			return nil
		}
		var p permanent
		if errors.As(err, &p) {
			return p.err
		}
		if serr := backoff.Sleep(ctx, redisBackoff(n)); serr != nil {
			return fmt.Errorf("%w (last error: %v)", serr, err)
		}
	}
}

// permanent stops Retry: retrying cannot help.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }
