// Command fakegithub serves the fake GitHub API on a local port, with one
// fixture PR, so `reviewbot serve` can be run end to end by hand:
//
//	go run ./internal/fakegithub/cmd/fakegithub \
//	    --fixture testdata/prs/sh003-seed001-lmcache-arm \
//	    --payload ../shared/webhooks/pull_request.opened.payload.json \
//	    --out /tmp/reviewbot-e2e
//
// It writes the App's private key and the payload, rewritten to point at
// the fixture PR, into --out, and prints the commands that start the App,
// replay the payload and read back what the App posted. It is a test
// helper, not part of the product.
//
// For sign-off verification by hand, --sweep-run gives the PR's head a
// green sweep (check runs, the workflow run, a results_bmk artifact and,
// with --eval-json, an eval_results_all artifact holding that file as
// agg_eval_all.json), and --signoff FILE posts the sign-off comment (by
// --signer, with a /reuse-sweep-run of the sweep run before it) and writes
// its issue_comment payload next to the others.
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-chi/chi/v5"

	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

const (
	installation = 1
	humanToken   = "fake-maintainer-token"
)

var opts struct {
	sweepRun        int64
	evalJSON        string
	signoff, signer string
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9999", "listen address (loopback)")
	fixture := flag.String("fixture", "testdata/prs/sh003-seed001-lmcache-arm", "fixture PR directory to serve")
	payload := flag.String("payload", "", "a pull_request payload to rewrite so it points at the fixture PR (e.g. ../shared/webhooks/pull_request.opened.payload.json)")
	out := flag.String("out", filepath.Join(os.TempDir(), "reviewbot-e2e"), "directory for the App key and the rewritten payload")
	flag.Int64Var(&opts.sweepRun, "sweep-run", 0, "give the head a green sweep: check runs, workflow run ID and its artifacts")
	flag.StringVar(&opts.evalJSON, "eval-json", "", "agg_eval_all.json to serve as the sweep run's eval_results_all artifact")
	flag.StringVar(&opts.signoff, "signoff", "", "post this sign-off comment and write its issue_comment payload")
	flag.StringVar(&opts.signer, "signer", "", "login of the sign-off's author (COLLABORATOR)")
	flag.Parse()
	if err := run(*addr, *fixture, *payload, *out); err != nil {
		fmt.Fprintln(os.Stderr, "fakegithub:", err)
		os.Exit(1)
	}
}

func run(addr, fixture, payloadFile, out string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(out, 0o700); err != nil {
		return err
	}
	fake := fakegithub.NewUnstarted()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fake.Listener.Close()
	fake.Listener = ln

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	keyFile := filepath.Join(out, "app-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	fake.SetAppKey(&key.PublicKey)
	fake.AddToken(humanToken, "maintainer")
	fake.Handle("GET", "/_fake/calls", func(w http.ResponseWriter, r *http.Request) { writeCalls(w, fake) })
	fake.Handle("GET", "/_fake/posted/{owner}/{repo}/{number}", func(w http.ResponseWriter, r *http.Request) {
		writePosted(w, fake, chi.URLParam(r, "owner")+"/"+chi.URLParam(r, "repo"), chi.URLParam(r, "number"))
	})
	fake.Start()
	defer fake.Close()

	pr, err := fake.AddFixturePR(ctx, fixture, fakegithub.PRSpec{})
	if err != nil {
		return err
	}
	fake.Install(installation, pr.Base.FullName())
	raw := []byte(`{"action":"opened","sender":{"login":"` + pr.Author + `","type":"User"}}`)
	name := "pull_request.opened.json"
	if payloadFile != "" {
		if raw, err = os.ReadFile(payloadFile); err != nil {
			return err
		}
		name = filepath.Base(payloadFile)
	}
	rewritten, err := fake.RewritePayload(ctx, raw, pr, installation)
	if err != nil {
		return err
	}
	payloadOut := filepath.Join(out, name)
	if err := os.WriteFile(payloadOut, rewritten, 0o644); err != nil {
		return err
	}
	if err := addSweep(fake, pr); err != nil {
		return err
	}
	signoffPayload := ""
	if opts.signoff != "" {
		if signoffPayload, err = addSignoff(fake, pr, out); err != nil {
			return err
		}
	}

	base := fake.URL
	fmt.Printf(`fake GitHub API on %s serving %s#%d (head %.12s) from %s

1. Start the App against it (another terminal, in the repository):

   GITHUB_API_URL=%s/ GITHUB_APP_ID=%d GITHUB_APP_PRIVATE_KEY_FILE=%s \
   GITHUB_WEBHOOK_SECRET=local-secret REVIEWBOT_ADDR=127.0.0.1:8080 REVIEWBOT_LOG_FORMAT=text \
   go run ./cmd/reviewbot serve

2. Replay the payload (rewritten to point at the fixture PR):

   go run ./cmd/reviewbot replay --url http://127.0.0.1:8080/webhook --secret local-secret %s

3. Read back what the App posted:

   curl -s %s/_fake/posted/%s/%d
   curl -s -H 'Authorization: token %s' %s/repos/%s/pulls/%d/comments
   curl -s %s/_fake/calls

Ctrl-C stops the fake.
`, base, pr.Base.FullName(), pr.Number, pr.HeadSHA, fixture,
		base, fake.AppID, keyFile, payloadOut,
		base, pr.Base.FullName(), pr.Number, humanToken, base, pr.Base.FullName(), pr.Number, base)
	if signoffPayload != "" {
		fmt.Printf("4. After the App has seen the PR (step 2), post the sign-off and replay its delivery (the verdict and the %s status follow):\n\n"+
			"   curl -s -X POST %s/_fake/signoff > %s\n"+
			"   go run ./cmd/reviewbot replay --url http://127.0.0.1:8080/webhook --secret local-secret %s\n\n", "codeowner-signoff-verify", base, signoffPayload, signoffPayload)
	}
	<-ctx.Done()
	return nil
}

// writeCalls lists every request the fake has answered, one per line.
func writeCalls(w http.ResponseWriter, fake *fakegithub.Server) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	for _, c := range fake.Calls() {
		if strings.HasPrefix(c.Path, "/_fake/") {
			continue
		}
		q := ""
		if len(c.Query) > 0 {
			q = "?" + c.Query.Encode()
		}
		fault := ""
		if c.Fault {
			fault = " (injected)"
		}
		fmt.Fprintf(w, "%d %s %s%s%s\n", c.Status, c.Method, c.Path, q, fault)
	}
}

// writePosted renders the reviews, comments and statuses on a PR.
func writePosted(w http.ResponseWriter, fake *fakegithub.Server, repo, number string) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	r := fake.Repo(repo)
	n, err := strconv.Atoi(number)
	if r == nil || err != nil {
		http.Error(w, "no such PR", http.StatusNotFound)
		return
	}
	for _, rv := range fake.Reviews(r, n) {
		fmt.Fprintf(w, "## review (%s on %.12s)\n\n%s\n\n", rv.Review.GetState(), rv.Review.GetCommitID(), rv.Review.GetBody())
		for _, c := range rv.Comments {
			fmt.Fprintf(w, "### %s:%d (%s)\n\n%s\n\n", c.GetPath(), c.GetLine(), c.GetSide(), c.GetBody())
		}
	}
	for _, c := range fake.IssueComments(r, n) {
		fmt.Fprintf(w, "## comment by %s\n\n%s\n\n", c.GetUser().GetLogin(), c.GetBody())
	}
	shas := fake.CommitsWithStatuses(r)
	sort.Strings(shas)
	for _, sha := range shas {
		for _, st := range fake.Statuses(r, sha) {
			fmt.Fprintf(w, "## status %s on %.12s: %s — %s\n", st.GetContext(), sha, st.GetState(), st.GetDescription())
		}
	}
}

// addSweep serves a green sweep on the PR's head (--sweep-run).
func addSweep(fake *fakegithub.Server, pr *fakegithub.PR) error {
	if opts.sweepRun == 0 {
		return nil
	}
	fake.AddCheckRuns(pr.Base, pr.HeadSHA,
		fakegithub.CheckRunSpec{Name: "single-node 8k1k / sweep", Conclusion: "success", RunID: opts.sweepRun},
		fakegithub.CheckRunSpec{Name: "eval / gsm8k", Conclusion: "success", RunID: opts.sweepRun})
	fake.AddWorkflowRun(pr.Base, fakegithub.WorkflowRunSpec{ID: opts.sweepRun, Conclusion: "success", HeadSHA: pr.HeadSHA, HeadBranch: pr.HeadRef})
	fake.AddArtifact(pr.Base, opts.sweepRun, fakegithub.ArtifactSpec{Name: "results_bmk", Data: zipOf(map[string][]byte{"results.json": []byte("[]")})})
	if opts.evalJSON != "" {
		rows, err := os.ReadFile(opts.evalJSON)
		if err != nil {
			return err
		}
		fake.AddArtifact(pr.Base, opts.sweepRun, fakegithub.ArtifactSpec{Name: "eval_results_all", Data: zipOf(map[string][]byte{"agg_eval_all.json": rows})})
	}
	return nil
}

// addSignoff serves POST /_fake/signoff, which posts the sign-off comment
// (after a pinned reuse command when a sweep run is served) at the moment
// it is asked and answers with its issue_comment payload, also written to
// out: a sign-off signs the head the App knew of when it was written, so
// it is posted after the App has seen the PR, as an owner would.
func addSignoff(fake *fakegithub.Server, pr *fakegithub.PR, out string) (string, error) {
	body, err := os.ReadFile(opts.signoff)
	if err != nil {
		return "", err
	}
	signer := opts.signer
	if signer == "" {
		signer = "maintainer"
	}
	if opts.sweepRun != 0 {
		fake.AddComment(pr.Base, pr.Number, fakegithub.CommentSpec{Login: signer, Association: "COLLABORATOR",
			Body: fmt.Sprintf("/reuse-sweep-run %d", opts.sweepRun)})
	}
	p := filepath.Join(out, "issue_comment.signoff.json")
	fake.Handle("POST", "/_fake/signoff", func(w http.ResponseWriter, r *http.Request) {
		c := fake.AddComment(pr.Base, pr.Number, fakegithub.CommentSpec{Login: signer, Association: "COLLABORATOR", Body: string(body)})
		ev := map[string]any{
			"action": "created",
			"issue": map[string]any{"number": pr.Number, "state": "open",
				"pull_request": map[string]any{"url": fmt.Sprintf("%s/repos/%s/pulls/%d", fake.URL, pr.Base.FullName(), pr.Number)}},
			"comment":      c,
			"repository":   fake.RepoJSON(pr.Base),
			"installation": map[string]any{"id": installation},
			"sender":       c.User,
		}
		b, err := json.MarshalIndent(ev, "", "  ")
		if err == nil {
			err = os.WriteFile(p, b, 0o644)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
	return p, nil
}

func zipOf(files map[string][]byte) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for name, content := range files {
		f, _ := w.Create(name)
		_, _ = f.Write(content)
	}
	_ = w.Close()
	return b.Bytes()
}
