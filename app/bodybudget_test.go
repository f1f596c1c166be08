package app

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// zeros is a body of n bytes that is never held by the sender.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// Sixteen concurrent unsigned 24 MB bodies: the ones that fit the budget
// are read and refused (401), the others get 503 with Retry-After, and
// the memory all of them hold at once never passes the budget. A signed
// delivery still gets through afterwards.
func TestUnverifiedBodiesShareABudget(t *testing.T) {
	const budget = 48 << 20
	h := newHarness(t, func(c *Config) { c.UnverifiedBodyBytes = budget })
	var wg sync.WaitGroup
	codes := make(chan int, 32)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, h.http.URL+"/webhook", &zeros{n: 24 << 20})
			req.ContentLength = 24 << 20
			if i%2 == 1 {
				req.ContentLength = -1 // chunked: the length is not known up front
			}
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("big-%d", i))
			req.Header.Set("X-Hub-Signature-256", "sha256=00")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				codes <- 0
				return
			}
			if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	seen := map[int]int{}
	for c := range codes {
		seen[c]++
	}
	if seen[http.StatusUnauthorized] == 0 || seen[http.StatusServiceUnavailable] == 0 || seen[http.StatusUnauthorized]+seen[http.StatusServiceUnavailable] != 16 {
		t.Fatalf("answers %v", seen)
	}
	if p := h.srv.bodies.Peak(); p > budget {
		t.Fatalf("%d bytes held at once, budget %d", p, budget)
	}
	if u := h.srv.bodies.InUse(); u != 0 {
		t.Fatalf("%d bytes still held", u)
	}
	if resp := h.post("ping", []byte(`{"zen":"ok","hook_id":1}`), "after-flood", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("a signed delivery after the flood: %d", resp.StatusCode)
	}
	// A body that claims more than the limit is refused before it is read.
	req, _ := http.NewRequest(http.MethodPost, h.http.URL+"/webhook", bytes.NewReader(nil))
	req.ContentLength = 26 << 20
	req.Body = io.NopCloser(&zeros{n: 26 << 20})
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("an oversized body: %d", resp.StatusCode)
		}
	}
}
