package app

import (
	"bufio"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// TestSoak streams pull requests, one after another, through one
// `reviewbot serve` process (the real binary, with GOMEMLIMIT as the
// Kubernetes manifest sets it) in front of the fake GitHub, and reports
// over time the process's RSS, its live heap, the bytes its caches hold,
// and the review latency. It fails when RSS passes GOMEMLIMIT or the
// first 100 PRs, reviewed again after the whole stream, take more than 1.5
// times what they took at the start.
//
// By default it streams a short run of fixture variants (so it cannot rot
// unnoticed). To soak on the real repository's history:
//
//	REVIEWBOT_SOAK_REPO=/path/to/InferenceX.git REVIEWBOT_SOAK_N=700 \
//	  go test ./app -run TestSoak -v -timeout 3h
//
// REVIEWBOT_SOAK_GOMEMLIMIT (default 600MiB) and REVIEWBOT_SOAK_OUT (a
// file for the table) are optional.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak run")
	}
	ctx := context.Background()
	limit := os.Getenv("REVIEWBOT_SOAK_GOMEMLIMIT")
	if limit == "" {
		limit = "600MiB"
	}
	limitBytes, err := parseMiB(limit)
	if err != nil {
		t.Fatal(err)
	}
	stream := soakFixtures(t, 60)
	if repo := os.Getenv("REVIEWBOT_SOAK_REPO"); repo != "" {
		n, _ := strconv.Atoi(os.Getenv("REVIEWBOT_SOAK_N"))
		if n <= 0 {
			n = 700
		}
		stream = soakHistory(t, repo, n)
	}

	dir := t.TempDir()
	bin := buildReviewbot(t, dir)
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	key := appKey(t)
	fake.SetAppKey(&key.PublicKey)
	keyFile := filepath.Join(dir, "app-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	fake.Install(installID, "SemiAnalysisAI/InferenceX")
	sp := startServe(t, "serve", bin, []string{
		"GITHUB_APP_ID=" + strconv.FormatInt(fake.AppID, 10), "GITHUB_APP_PRIVATE_KEY_FILE=" + keyFile,
		"GITHUB_WEBHOOK_SECRET=" + testSecret, "GITHUB_API_URL=" + fake.APIURL(), "GITHUB_TOKEN=",
		"REVIEWBOT_ADDR=127.0.0.1:0", "REVIEWBOT_LOG_FORMAT=json", "GOMEMLIMIT=" + limit,
	})

	type sample struct {
		n                int
		rss, heap, cache float64
		p50              time.Duration
	}
	var samples []sample
	var lat []time.Duration
	every := max(len(stream)/14, 10)
	// review delivers a PR as opened and waits for its status.
	review := func(spec fakegithub.PRSpec, delivery string) time.Duration {
		pr, err := fake.AddPR(ctx, spec)
		if err != nil {
			t.Fatalf("PR %d: %v", spec.Number, err)
		}
		body, err := fake.RewritePayload(ctx, mustJSON(t, map[string]any{"action": "opened", "number": pr.Number}), pr, installID)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if code, err := send(sp.url, "pull_request", delivery, body); err != nil || code != http.StatusAccepted {
			t.Fatalf("PR %d: delivery %d %v", pr.Number, code, err)
		}
		// A PR whose head another PR had already has its status: the
		// summary on this PR is what says it was reviewed.
		for !hasStatus(fake, pr) || !hasSummary(fake, pr) {
			if time.Since(start) > 2*time.Minute {
				t.Fatalf("PR %d: no review after 2 minutes", pr.Number)
			}
			time.Sleep(2 * time.Millisecond)
		}
		return time.Since(start)
	}
	for i, next := range stream {
		lat = append(lat, review(next(i+1), fmt.Sprintf("soak-%d", i)))
		if (i+1)%every == 0 || i+1 == len(stream) {
			rss := procRSS(t, sp.pid())
			s := sample{n: i + 1, rss: rss, p50: median(lat[max(0, len(lat)-every):])}
			s.heap, _ = sp.metric("go_memstats_heap_inuse_bytes")
			s.cache = sumMetric(t, sp.url, "reviewbot_cache_bytes")
			samples = append(samples, s)
			if rss > float64(limitBytes) {
				t.Errorf("after %d PRs RSS is %.0f MiB, over GOMEMLIMIT %s", i+1, rss/(1<<20), limit)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d PRs through one serve (GOMEMLIMIT %s)\n| PRs | RSS MiB | live heap MiB | caches MiB | median review ms (last %d) |\n|---|---|---|---|---|\n", len(stream), limit, every)
	for _, s := range samples {
		fmt.Fprintf(&b, "| %d | %.0f | %.0f | %.1f | %.1f |\n", s.n, s.rss/(1<<20), s.heap/(1<<20), s.cache/(1<<20), float64(s.p50.Microseconds())/1000)
	}
	k := min(100, len(lat)/2)
	first, last := median(lat[:k]), median(lat[len(lat)-k:])
	// The last PRs of a real stream are other work than the first (a
	// larger repository, other kinds of change), so uptime is measured on
	// the same work: the first k PRs again, under new numbers, after the
	// whole stream.
	var again []time.Duration
	for i, next := range stream[:k] {
		spec := next(i + 1)
		spec.Number += 100000
		again = append(again, review(spec, fmt.Sprintf("soak-again-%d", i)))
	}
	if rss := procRSS(t, sp.pid()); rss > float64(limitBytes) {
		t.Errorf("after the repeat RSS is %.0f MiB, over GOMEMLIMIT %s", rss/(1<<20), limit)
	}
	repeat := median(again)
	fmt.Fprintf(&b, "median of the first %d: %v; of the last %d: %v (%.2fx, other PRs)\n", k, first, k, last, float64(last)/float64(first))
	fmt.Fprintf(&b, "the first %d again after the stream: %v (%.2fx the same PRs at the start)\n", k, repeat, float64(repeat)/float64(first))
	t.Log("\n" + b.String())
	if out := os.Getenv("REVIEWBOT_SOAK_OUT"); out != "" {
		_ = os.WriteFile(out, []byte(b.String()), 0o644)
	}
	if float64(repeat) > 1.5*float64(first) && repeat > 50*time.Millisecond {
		t.Errorf("the first %d PRs took %v (median) at the start and %v after the stream: latency grows with uptime", k, first, repeat)
	}
}

// soakFixtures is a stream of n PRs of the fixture repository, each with
// a head of its own.
func soakFixtures(t *testing.T, n int) []func(int) fakegithub.PRSpec {
	fx, err := trees.LoadFixture(context.Background(), fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]func(int) fakegithub.PRSpec, n)
	for i := range out {
		out[i] = func(number int) fakegithub.PRSpec {
			return fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: number, Base: fx.Base, Head: headVariant(fx.Head, number),
				Title: fx.PR.Title, Labels: fx.PR.Labels}
		}
	}
	return out
}

// soakHistory is the last n merged PRs of a clone of the real repository,
// oldest first: each PR's last head (refs/pull/N/head) against the merge
// commit's parent, or the merge commit itself.
func soakHistory(t *testing.T, dir string, n int) []func(int) fakegithub.PRSpec {
	ctx := context.Background()
	repo, err := trees.OpenRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	prs, err := repo.MergedPRs(ctx, "main", n)
	if err != nil {
		t.Fatal(err)
	}
	var out []func(int) fakegithub.PRSpec
	for i := len(prs) - 1; i >= 0; i-- {
		m := prs[i]
		parent, err := repo.Resolve(ctx, m.SHA+"^")
		if err != nil {
			continue
		}
		head := m.SHA
		if ref := fmt.Sprintf("refs/pull/%d/head", m.Number); repo.HasRevision(ctx, ref) {
			if h, err := repo.Resolve(ctx, ref); err == nil {
				head = h
			}
		}
		base := parent
		if mb, ok, err := repo.MergeBase(ctx, parent, head); err == nil && ok {
			base = mb
		}
		out = append(out, func(int) fakegithub.PRSpec {
			bt, err := repo.Tree(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			ht, err := repo.Tree(ctx, head)
			if err != nil {
				t.Fatal(err)
			}
			return fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: m.Number, Base: checks.Tree(bt), Head: checks.Tree(ht),
				Title: m.Subject, Labels: []string{"full-sweep-fail-fast"}}
		})
	}
	return out
}

func hasSummary(fake *fakegithub.Server, pr *fakegithub.PR) bool {
	for _, c := range fake.IssueComments(pr.Base, pr.Number) {
		if reviewer.ParseSummaryMarker(c.GetBody()) {
			return true
		}
	}
	return false
}

func hasStatus(fake *fakegithub.Server, pr *fakegithub.PR) bool {
	for _, st := range fake.Statuses(pr.Base, pr.HeadSHA) {
		if st.GetContext() == post.StatusContext {
			return true
		}
	}
	return false
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// procRSS is a process's resident set, in bytes.
func procRSS(t *testing.T, pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

// sumMetric adds up every sample of a metric family.
func sumMetric(t *testing.T, url, name string) float64 {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var sum float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}

func parseMiB(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSuffix(s, "MiB"), 10, 64)
	if err != nil || !strings.HasSuffix(s, "MiB") {
		return 0, fmt.Errorf("GOMEMLIMIT %q: want a number of MiB (600MiB)", s)
	}
	return n << 20, nil
}
