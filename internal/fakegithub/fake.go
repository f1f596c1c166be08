// Package fakegithub is an in-process fake of the parts of GitHub's REST API
// the App uses, for tests and for running the App end to end by hand. It
// serves repositories built from fixture trees with real git object IDs,
// answers in GitHub's JSON shapes (go-github's types, which marshal to
// them), authenticates Apps and installation tokens like GitHub, records
// every request, and injects faults per route.
//
// Routes are a table (Handle), so a test can add or replace one route
// without touching the rest.
package fakegithub

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// Call is one recorded request and the status it got.
type Call struct {
	Method string
	Path   string
	// Route is the matched route, e.g. "GET /repos/{owner}/{repo}/pulls/{number}".
	Route  string
	Query  url.Values
	Header http.Header
	Body   []byte
	Status int
	// Fault is set when an injected fault answered instead of the handler.
	Fault bool
	Start time.Time
	End   time.Time
}

// Fault changes how a route answers. The zero Times means every matching
// request; otherwise the fault fires on that many requests, then stops.
type Fault struct {
	// Route is a route of the table ("GET /repos/{owner}/{repo}/pulls/{number}/files");
	// empty matches every route.
	Route string
	// Match narrows the fault to some requests (nil: all of the route).
	Match func(r *http.Request, body []byte) bool
	Times int
	// Delay holds the request before answering (a slow endpoint).
	Delay time.Duration
	// Before runs before the request is answered (e.g. push a new head).
	Before func()
	// Status, Header and Body, when Status is set, answer instead of the
	// handler.
	Status int
	Header map[string]string
	Body   string
	// AfterHandler runs the handler first and then answers with Status
	// anyway: GitHub did the write but the answer was lost (a 502 from a
	// proxy, a timeout).
	AfterHandler bool

	fired int
}

// Server is the fake. Its zero value is not usable; use New.
type Server struct {
	*httptest.Server

	// AppID and AppSlug describe the one GitHub App the fake knows.
	AppID   int64
	AppSlug string
	// TokenTTL is the lifetime of installation tokens (GitHub's is an hour).
	TokenTTL time.Duration
	// MaxFiles caps a PR's files list as GitHub does (3,000).
	MaxFiles int
	// TruncateTreesOver, when positive, truncates recursive tree listings
	// with more entries, as GitHub does past its limit.
	TruncateTreesOver int
	// CodeloadURL is where tarballs redirect to: "" is the fake itself,
	// as on GitHub Enterprise Server; another server on Handler plays
	// github.com's codeload host.
	CodeloadURL string
	// OmitPatchOver, when positive, leaves out the patch of files whose
	// patch is longer, as GitHub does for large diffs.
	OmitPatchOver int

	mu       sync.Mutex
	now      func() time.Time
	router   chi.Router
	routes   map[string]bool
	repos    map[string]*Repo
	appKey   *rsa.PublicKey
	tokens   map[string]*token
	users    map[string]string // static token → login
	installs map[int64]*installation
	nextID   int64
	// callsMu guards calls and callsGen on its own: a handler may write
	// its answer (and so have its call recorded) while it holds mu.
	callsMu   sync.Mutex
	calls     []Call
	callsGen  int // counts ResetCalls: a call recorded before one is not updated after it
	faults    []*Fault
	rejectors []func(path string, line int) bool
	// diffCache holds the diff of a merge base and a head, by both SHAs
	// (the files API and compare list the same files).
	diffCache map[string][]*prFile
	// teams are org/slug (lower case) → member logins.
	teams map[string][]string
	// archives are the last tarballs served, by repository and commit.
	archives     map[string][]byte
	archiveOrder []string
	// storageSig signs the artifact download URLs the fake hands out.
	storageSig string
}

type token struct {
	installation int64
	expires      time.Time
}

type installation struct {
	id    int64
	repos map[string]bool
}

// New starts a fake on a loopback port. Close it when done.
func New() *Server {
	s := NewUnstarted()
	s.Start()
	return s
}

// NewUnstarted returns a fake whose HTTP server is not started yet (set
// Listener or Config first, then Start).
func NewUnstarted() *Server {
	s := &Server{
		AppID:    4242,
		AppSlug:  "reviewbot-test",
		TokenTTL: time.Hour,
		MaxFiles: 3000,
		now:      time.Now,
		router:   chi.NewRouter(),
		routes:   map[string]bool{},
		repos:    map[string]*Repo{},
		tokens:   map[string]*token{},
		users:    map[string]string{},
		installs: map[int64]*installation{},
		nextID:   1000,

		diffCache:  map[string][]*prFile{},
		teams:      map[string][]string{},
		storageSig: randomHex(16),
	}
	s.router.NotFound(func(w http.ResponseWriter, r *http.Request) {
		(&recording{s: s, r: r, start: time.Now()}).finish(http.StatusNotFound)
		writeError(w, http.StatusNotFound, "Not Found")
	})
	s.registerRoutes()
	s.Server = httptest.NewUnstartedServer(s.router)
	return s
}

// SetClock makes the fake's token expiry follow now (tests advance it).
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// APIURL is the base URL the App's GITHUB_API_URL points at.
func (s *Server) APIURL() string { return s.URL + "/" }

// Handle adds a route to the table. The handler runs with the fake
// unlocked; use Locked to read or change state.
func (s *Server) Handle(method, pattern string, h http.HandlerFunc) {
	route := method + " " + pattern
	s.mu.Lock()
	s.routes[route] = true
	s.mu.Unlock()
	s.router.Method(method, pattern, s.wrap(route, h))
}

// Locked runs fn with the fake's state locked.
func (s *Server) Locked(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
}

// Inject adds a fault. Faults are consulted in the order they were added;
// the first matching one with a Status answers.
func (s *Server) Inject(f *Fault) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Route != "" && !s.routes[f.Route] {
		panic(fmt.Sprintf("fakegithub: fault for unknown route %q", f.Route))
	}
	s.faults = append(s.faults, f)
	return f
}

// Fired reports how often the fault fired.
func (f *Fault) Fired() int { return f.fired }

// Calls returns every request so far, in arrival order.
func (s *Server) Calls() []Call {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsTo returns the calls of one route.
func (s *Server) CallsTo(route string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Route == route {
			out = append(out, c)
		}
	}
	return out
}

// ResetCalls forgets the recorded calls (to count one review's calls).
func (s *Server) ResetCalls() {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	s.calls = nil
	s.callsGen++
}

// statusWriter remembers the status a handler wrote, and has the call
// recorded before the first byte of the answer leaves: a client that
// reads a body of known length to its end may go on before the handler
// returns, and its next step must find this call already recorded.
type statusWriter struct {
	http.ResponseWriter
	status int
	rec    *recording
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.rec.record(code, false)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// recording is one request's entry in the calls: made once its status is
// known, its end time set when the handler returns.
type recording struct {
	s        *Server
	r        *http.Request
	body     []byte
	route    string
	start    time.Time
	done     bool
	gen, idx int
}

func (c *recording) record(status int, fault bool) {
	if c.done {
		return
	}
	c.done = true
	s := c.s
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	c.gen, c.idx = s.callsGen, len(s.calls)
	s.calls = append(s.calls, Call{
		Method: c.r.Method, Path: c.r.URL.Path, Route: c.route, Query: c.r.URL.Query(),
		Header: c.r.Header.Clone(), Body: c.body, Status: status, Fault: fault,
		Start: c.start, End: time.Now(),
	})
}

// finish records the call if nothing was written, and its end time.
func (c *recording) finish(status int) {
	c.record(status, false)
	s := c.s
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if c.gen == s.callsGen && c.idx < len(s.calls) {
		s.calls[c.idx].End = time.Now()
	}
}

func (s *Server) wrap(route string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))

		rec := &recording{s: s, r: r, body: body, route: route, start: start}
		var delay time.Duration
		var before []func()
		var answer *Fault
		s.mu.Lock()
		for _, f := range s.faults {
			if f.Route != "" && f.Route != route {
				continue
			}
			if f.Times > 0 && f.fired >= f.Times {
				continue
			}
			if f.Match != nil && !f.Match(r, body) {
				continue
			}
			if f.Status != 0 && answer != nil {
				continue // one answer per request
			}
			f.fired++
			delay += f.Delay
			if f.Before != nil {
				before = append(before, f.Before)
			}
			if f.Status != 0 {
				answer = f
			}
		}
		s.mu.Unlock()

		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				rec.record(499, true)
				return
			}
		}
		for _, fn := range before {
			fn()
		}
		if answer != nil {
			if answer.AfterHandler {
				h(httptest.NewRecorder(), r)
			}
			for k, v := range answer.Header {
				w.Header().Set(k, v)
			}
			if answer.Body != "" {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
			}
			rec.record(answer.Status, true)
			w.WriteHeader(answer.Status)
			io.WriteString(w, answer.Body)
			rec.finish(answer.Status)
			return
		}
		sw := &statusWriter{ResponseWriter: w, rec: rec}
		h(sw, r)
		rec.finish(http.StatusOK) // a handler that wrote nothing answered 200
	}
}

// errorBody is GitHub's error shape.
type errorBody struct {
	Message          string   `json:"message"`
	Errors           []string `json:"errors,omitempty"`
	DocumentationURL string   `json:"documentation_url,omitempty"`
	Status           string   `json:"status,omitempty"`
}

func writeError(w http.ResponseWriter, status int, msg string, details ...string) {
	writeJSON(w, status, errorBody{Message: msg, Errors: details,
		DocumentationURL: "https://docs.github.com/rest", Status: strconv.Itoa(status)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// page cuts items to the page the request asks for (page, per_page; at
// most 100 per page, 30 by default) and sets GitHub's Link header.
func page[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	p, _ := strconv.Atoi(q.Get("page"))
	if p <= 0 {
		p = 1
	}
	last := (len(items) + per - 1) / per
	if last == 0 {
		last = 1
	}
	link := func(n int, rel string) string {
		u := *r.URL
		v := u.Query()
		v.Set("page", strconv.Itoa(n))
		v.Set("per_page", strconv.Itoa(per))
		u.RawQuery = v.Encode()
		return fmt.Sprintf(`<%s%s>; rel="%s"`, "http://"+r.Host, u.RequestURI(), rel)
	}
	var links []string
	if p < last {
		links = append(links, link(p+1, "next"), link(last, "last"))
	}
	if p > 1 {
		links = append(links, link(1, "first"), link(p-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := (p - 1) * per
	if lo >= len(items) {
		return []T{}
	}
	hi := min(lo+per, len(items))
	return items[lo:hi]
}

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}
