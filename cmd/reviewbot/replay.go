package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	event := fs.String("event", "", "X-GitHub-Event `E` (default: the file name up to its first dot, e.g. pull_request.opened.json)")
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
	if *event == "" && file != "-" {
		*event, _, _ = strings.Cut(filepath.Base(file), ".")
	}
	if *event == "" {
		fmt.Fprintln(stderr, "reviewbot replay: give --event (e.g. pull_request)")
		return exitError
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
	if resp.StatusCode >= 300 {
		return exitBlocking
	}
	return exitOK
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
