package ghapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/backoff"
)

// RetryPolicy says how GitHub calls are retried. GitHub answers a burst of
// writes with secondary rate limits (403 or 429 with Retry-After), an
// exhausted quota with 403 and X-RateLimit-Reset, and sometimes a 5xx or a
// timeout under load; each gets its own treatment.
type RetryPolicy struct {
	// MaxRetries bounds the retries of a 5xx or a timed-out request.
	MaxRetries int
	// BaseDelay is the first backoff after a 5xx; it doubles per retry
	// (with jitter) up to MaxDelay.
	BaseDelay, MaxDelay time.Duration
	// RateLimitBudget is the longest one request may spend waiting for
	// rate limits to lift; a longer wait fails the request instead.
	RateLimitBudget time.Duration
	// AttemptTimeout bounds each attempt, response body included.
	AttemptTimeout time.Duration
	// Sleep waits d or until ctx ends (tests substitute a recorder).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock X-RateLimit-Reset is measured against.
	Now func() time.Time
}

// DefaultRetryPolicy is the production policy.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxRetries:      3,
		BaseDelay:       500 * time.Millisecond,
		MaxDelay:        10 * time.Second,
		RateLimitBudget: 3 * time.Minute,
		AttemptTimeout:  30 * time.Second,
		Sleep:           backoff.Sleep,
		Now:             time.Now,
	}
}

type idempotentKey struct{}

// Idempotent marks the POSTs of ctx as safe to repeat after a 5xx or a
// timeout (a commit status, a reaction). Other POSTs create something, and
// GitHub may have created it before failing, so the caller decides.
func Idempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// retryTransport retries GitHub calls per its policy.
type retryTransport struct {
	policy RetryPolicy
	next   http.RoundTripper
	log    *slog.Logger
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.policy
	ctx := req.Context()
	retryable := req.Method != http.MethodPost || ctx.Value(idempotentKey{}) != nil
	var waited time.Duration
	failures := 0
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			var err error
			if r, err = rewind(req); err != nil {
				return nil, err
			}
		}
		resp, err := t.attempt(r)
		if ctx.Err() != nil {
			if resp != nil {
				drain(resp)
			}
			return nil, ctx.Err()
		}

		if err == nil {
			if wait, limited := rateLimitWait(resp, p.Now()); limited {
				if !replayable(req) || waited+wait > p.RateLimitBudget {
					return resp, nil // go-github turns it into a RateLimitError
				}
				drain(resp)
				t.log.Info("github rate limit, waiting", "method", req.Method, "path", req.URL.Path,
					"status", resp.StatusCode, "wait", wait.String())
				waited += wait
				if err := p.Sleep(ctx, wait); err != nil {
					return nil, err
				}
				continue
			}
			if resp.StatusCode < 500 || !retryable || failures >= p.MaxRetries || !replayable(req) {
				return resp, nil
			}
			drain(resp)
		} else if !retryable || failures >= p.MaxRetries || !replayable(req) || !transient(err) {
			return nil, err
		}
		failures++
		wait := p.wait(failures)
		t.log.Info("github call failed, retrying", "method", req.Method, "path", req.URL.Path,
			"status", statusOf(resp), "error", errString(err), "retry", failures, "wait", wait.String())
		if err := p.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends one try under the per-attempt timeout. The timeout stays
// in force while the caller reads the body and is released by Close.
func (t *retryTransport) attempt(req *http.Request) (*http.Response, error) {
	if t.policy.AttemptTimeout <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.policy.AttemptTimeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil {
			return nil, &timeoutError{err}
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type timeoutError struct{ err error }

func (e *timeoutError) Error() string { return "github call timed out: " + e.err.Error() }
func (e *timeoutError) Unwrap() error { return e.err }
func (e *timeoutError) Timeout() bool { return true }

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// rateLimitWait reports whether resp is a rate-limit answer and how long
// to wait before trying again.
func rateLimitWait(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, true
		}
		if at, err := http.ParseTime(s); err == nil {
			return max(at.Sub(now), 0), true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			// One second past the reset: GitHub's clock and ours differ.
			return max(time.Unix(reset, 0).Sub(now)+time.Second, 0), true
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return time.Minute, true
	}
	// A secondary limit without Retry-After: GitHub asks for at least a
	// minute. A plain 403 (no permission) is not a rate limit.
	if body := peekBody(resp, 64<<10); bytes.Contains(bytes.ToLower(body), []byte("rate limit")) {
		return time.Minute, true
	}
	return 0, false
}

// peekBody reads up to n bytes of the body and puts them back.
func peekBody(resp *http.Response, n int64) []byte {
	if resp.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, n))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	return b
}

// wait is the backoff before retry n (1-based).
func (p RetryPolicy) wait(n int) time.Duration {
	return backoff.Jittered(p.BaseDelay, p.MaxDelay, n-1)
}

func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op)
}

// replayable reports whether req can be sent again (its body can be
// recreated).
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// rewind returns a copy of req with a fresh body.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r.Body = body
	return r, nil
}

// drain discards a response we will not hand on, so the connection can be
// reused.
func drain(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
}

func statusOf(resp *http.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
