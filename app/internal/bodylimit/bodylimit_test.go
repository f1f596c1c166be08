package bodylimit

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A body is reserved before it is read: within the budget it is read
// whole; past the size limit it is refused by its claimed length or as it
// grows; past the shared budget it is refused and nothing stays held.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name          string
		body          string
		unknownLength bool
		limit, budget int64
		held          int64 // already taken by other bodies
		err           error
	}{
		{name: "fits", body: "hello", limit: 100, budget: 1000},
		{name: "fits, unknown length", body: strings.Repeat("x", 200<<10), unknownLength: true, limit: 1 << 20, budget: 4 << 20},
		{name: "claims too much", body: strings.Repeat("x", 101), limit: 100, budget: 1000, err: &http.MaxBytesError{}},
		{name: "grows too much", body: strings.Repeat("x", 101), unknownLength: true, limit: 100, budget: 1000, err: &http.MaxBytesError{}},
		{name: "budget spent", body: "hello", limit: 100, budget: 1000, held: 998, err: ErrBudget},
		{name: "budget spent as it grows", body: strings.Repeat("x", 300<<10), unknownLength: true, limit: 1 << 20, budget: 256 << 10, err: ErrBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.budget)
			if tc.held > 0 && !b.tryAcquire(tc.held) {
				t.Fatal("could not take the held bytes")
			}
			r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			if tc.unknownLength {
				r.Body = io.NopCloser(strings.NewReader(tc.body))
				r.ContentLength = -1
			}
			got, reserved, err := b.Read(httptest.NewRecorder(), r, tc.limit)
			switch want := tc.err; {
			case want == nil && err != nil:
				t.Fatal(err)
			case want != nil:
				var mbe *http.MaxBytesError
				if !(errors.Is(err, want) || (errors.As(want, &mbe) && errors.As(err, &mbe))) {
					t.Fatalf("err = %v, want %v", err, want)
				}
				if b.InUse() != tc.held {
					t.Fatalf("a refused body still holds %d bytes", b.InUse()-tc.held)
				}
				return
			}
			if string(got) != tc.body || reserved < int64(len(got)) || b.InUse() != reserved {
				t.Fatalf("read %d bytes, reserved %d, in use %d", len(got), reserved, b.InUse())
			}
			b.Release(reserved)
			if b.InUse() != 0 || b.Peak() > tc.budget {
				t.Fatalf("in use %d after release, peak %d", b.InUse(), b.Peak())
			}
		})
	}
}
