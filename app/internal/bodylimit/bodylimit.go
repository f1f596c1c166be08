// Package bodylimit reads webhook bodies whose signature is not yet
// checked. Until then a body is anyone's: it is read into memory (the HMAC
// covers the whole body) from a budget all unauthenticated bodies share,
// whatever their number. A body that does not fit now gets 503 with
// Retry-After, never an out-of-memory; a body that claims more than the
// size limit gets 413 before a byte is read.
package bodylimit

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// ErrBudget says the shared budget for unauthenticated bodies is spent.
var ErrBudget = errors.New("too many webhook bodies in flight")

// Budget is a byte budget shared by the bodies being read.
type Budget struct {
	mu    sync.Mutex
	total int64
	used  int64
	peak  int64
}

func (b *Budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

// Release gives back a reservation Read returned.
func (b *Budget) Release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// InUse is the number of bytes held now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// New returns a budget of total bytes.
func New(total int64) *Budget { return &Budget{total: total} }

// Total is the budget in bytes.
func (b *Budget) Total() int64 { return b.total }

// Peak is the most bytes held at once so far.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// bodyChunk is the first reservation of a body of unknown length; it
// doubles as the body grows.
const bodyChunk = 64 << 10

// Read reads r's body within limit, reserving its bytes in the budget
// before they are read (a body of known length at once, one of unknown
// length as it grows). The caller releases the returned reservation.
func (b *Budget) Read(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, int64, error) {
	if r.ContentLength > limit {
		return nil, 0, &http.MaxBytesError{Limit: limit}
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	var buf []byte
	var held int64
	for {
		if len(buf) == cap(buf) {
			grow := int64(max(2*cap(buf), bodyChunk))
			if cap(buf) == 0 && r.ContentLength > 0 {
				grow = r.ContentLength + 1 // room to read the end of the body
			}
			grow = min(grow, limit+1-int64(cap(buf)))
			if grow <= 0 || !b.tryAcquire(grow) {
				b.Release(held)
				if grow <= 0 {
					return nil, 0, &http.MaxBytesError{Limit: limit}
				}
				return nil, 0, ErrBudget
			}
			held += grow
			grown := make([]byte, len(buf), cap(buf)+int(grow))
			copy(grown, buf)
			buf = grown
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			b.Release(held)
			return nil, 0, err
		}
	}
}
