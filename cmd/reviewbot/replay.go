//go:build !noserve

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/reviewbot-dev/reviewbot/app"
)

// runReplay sends a payload file to a running server as GitHub would: with
// a correct X-Hub-Signature-256 and a fresh X-GitHub-Delivery (like Prow's
// phony), for testing a deployment by hand.
func runReplay(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("replay", "reviewbot replay [--url URL] [--secret S] [--event E] [--delivery ID] payload.json|-")
	cmd.about = "Sends a webhook payload to a running server as GitHub would, signed and with a fresh delivery id."
	fs := cmd.fs
	target := fs.String("url", "http://localhost:8080/webhook", "the server's webhook `URL`")
	secret := fs.String("secret", "", "webhook secret `S` (default: $GITHUB_WEBHOOK_SECRET)")
	event := fs.String("event", "", "X-GitHub-Event `E` (default: the event the payload's shape says it is)")
	delivery := fs.String("delivery", "", "X-GitHub-Delivery `ID` (default: a fresh random id; reuse one to test redelivery)")
	timeout := fs.Duration("timeout", 15*time.Second, "how long to wait for the answer: `DURATION`")
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "reviewbot replay: give exactly one payload file (or - for standard input); see reviewbot replay -h")
		return exitError
	}
	file := pos[0]
	var body []byte
	var err error
	if file == "-" {
		body, err = io.ReadAll(os.Stdin)
	} else {
		body, err = os.ReadFile(file)
	}
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot replay:", err)
		return exitError
	}
	if *secret == "" {
		*secret = os.Getenv("GITHUB_WEBHOOK_SECRET")
	}
	if *secret == "" {
		fmt.Fprintln(stderr, "reviewbot replay: no secret: give --secret or set GITHUB_WEBHOOK_SECRET")
		return exitError
	}
	if *event == "" {
		if *event, err = eventOf(body); err != nil {
			fmt.Fprintf(stderr, "reviewbot replay: %s: %v\n", file, err)
			return exitError
		}
	}
	if *delivery == "" {
		*delivery = newDeliveryID()
	}
	req, err := http.NewRequest(http.MethodPost, *target, bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot replay: --url:", err)
		return exitError
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/reviewbot-replay")
	req.Header.Set("X-GitHub-Event", *event)
	req.Header.Set("X-GitHub-Delivery", *delivery)
	req.Header.Set("X-Hub-Signature-256", app.Sign(body, []byte(*secret)))
	resp, err := (&http.Client{Timeout: *timeout}).Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot replay:", err)
		return exitBlocking
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	fmt.Fprintf(stdout, "%s %s delivery %s: %s\n%s", *event, file, *delivery, resp.Status, answer)
	if why := notAccepted(resp.StatusCode, answer); why != "" {
		fmt.Fprintf(stderr, "reviewbot replay: the server did not accept the %s delivery: %s\n", *event, why)
		return exitBlocking
	}
	return exitOK
}

// notAccepted says why an answer is not an acceptance of the delivery, or
// "" when it is: a 2xx whose outcome is not unhandled_event (the App's
// answer to an event it does not act on, which a replay means as a
// mistake: the wrong event name or payload).
func notAccepted(status int, body []byte) string {
	var a struct {
		Outcome string `json:"outcome"`
		Detail  string `json:"detail"`
	}
	_ = json.Unmarshal(body, &a)
	why := a.Outcome
	if a.Detail != "" {
		why += " (" + a.Detail + ")"
	}
	switch {
	case status < 200 || status >= 300:
		if why == "" {
			return fmt.Sprintf("HTTP %d", status)
		}
		return fmt.Sprintf("HTTP %d, %s", status, why)
	case a.Outcome == "unhandled_event":
		return why
	}
	return ""
}

// eventOf tells a webhook payload's event from its shape, the keys GitHub
// puts at its top level, as a replay of a saved payload needs it.
func eventOf(body []byte) (string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return "", fmt.Errorf("not a JSON object: %w", err)
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := top[k]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("zen", "hook_id"):
		return "ping", nil
	case has("comment", "issue"):
		return "issue_comment", nil
	case has("comment", "pull_request"):
		return "pull_request_review_comment", nil
	case has("review", "pull_request"):
		return "pull_request_review", nil
	case has("pull_request", "number"):
		return "pull_request", nil
	case has("check_run"):
		return "check_run", nil
	case has("check_suite"):
		return "check_suite", nil
	case has("workflow_run"):
		return "workflow_run", nil
	case has("ref", "before", "after", "commits"):
		return "push", nil
	case has("installation", "repositories_added") || has("installation", "repositories_removed"):
		return "installation_repositories", nil
	case has("installation", "action") && !has("repository"):
		return "installation", nil
	}
	return "", errors.New("cannot tell the event from the payload's keys: give --event (e.g. --event pull_request)")
}

// newDeliveryID is a random UUID, the form GitHub's delivery ids take.
func newDeliveryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
