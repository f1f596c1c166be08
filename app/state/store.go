package state

import (
	"context"
	"errors"
	"sync"
)

// The state the App shares across deliveries sits behind two small
// interfaces, so several replicas behind one load balancer can share a
// store (Redis) instead of the in-memory defaults, without the handlers
// knowing.

// DeliverySet remembers the webhook deliveries already accepted, so a
// redelivery (same X-GitHub-Delivery) is acknowledged and ignored.
type DeliverySet interface {
	// FirstSeen records id and reports whether this is its first sighting.
	// A shared implementation must make it atomic (SET NX with a TTL).
	FirstSeen(ctx context.Context, id string) (bool, error)
	// Forget removes id again, for a delivery the App could not take on:
	// its redelivery must then be processed.
	Forget(ctx context.Context, id string) error
}

// Locker grants exclusive leases on keys (one PR each), so the work on one
// PR never runs twice at once.
type Locker interface {
	// Lock blocks until the lease on key is granted or ctx ends.
	Lock(ctx context.Context, key string) (Lease, error)
}

// Lease is one holder's exclusive right to a key. A shared implementation
// gives leases a TTL (renewed while held) and a fencing token, so a holder
// that stalled past its TTL finds out before writing.
type Lease interface {
	// Token is the fencing token: strictly larger for every later grant
	// of the same key.
	Token() int64
	// Check returns ErrLeaseLost once the lease is no longer held; the
	// executor calls it before every write to GitHub.
	Check(ctx context.Context) error
	// Release gives the key up.
	Release(ctx context.Context) error
}

// ErrLeaseLost says another holder took over the key.
var ErrLeaseLost = errors.New("lease on the pull request lost to another worker")

// MemoryDeliveries is the in-process DeliverySet: the most recent ids,
// within a byte budget (GitHub redelivers within hours, not after a
// hundred thousand other deliveries).
type MemoryDeliveries struct {
	ids *LRU[struct{}]
}

// deliveryIDBytes is what one remembered id costs beyond its text.
const deliveryIDBytes = 120

// NewMemoryDeliveries remembers delivery ids within budget bytes (default
// 8 MiB, some 50,000 ids).
func NewMemoryDeliveries(budget int64) *MemoryDeliveries {
	if budget <= 0 {
		budget = 8 << 20
	}
	return &MemoryDeliveries{ids: NewLRU("deliveries", budget, func(id string, _ struct{}) int64 { return int64(len(id)) + deliveryIDBytes }, nil)}
}

// FirstSeen implements DeliverySet.
func (m *MemoryDeliveries) FirstSeen(_ context.Context, id string) (bool, error) {
	m.ids.mu.Lock()
	defer m.ids.mu.Unlock()
	if _, ok := m.ids.lru.Get(id); ok {
		return false, nil // and a redelivered id stays remembered longer
	}
	n := int64(len(id)) + deliveryIDBytes
	m.ids.lru.Add(id, struct{}{})
	m.ids.sizes[id] = n
	m.ids.size += n
	for m.ids.size > m.ids.budget && m.ids.lru.Len() > 0 {
		m.ids.lru.RemoveOldest()
	}
	return true, nil
}

// Forget implements DeliverySet.
func (m *MemoryDeliveries) Forget(_ context.Context, id string) error {
	m.ids.mu.Lock()
	defer m.ids.mu.Unlock()
	m.ids.lru.Remove(id)
	return nil
}

// Stats are the bytes and ids held.
func (m *MemoryDeliveries) Stats() (int64, int) { return m.ids.Stats() }

// Budget is the most bytes the ids take.
func (m *MemoryDeliveries) Budget() int64 { return m.ids.budget }

// MemoryLocker is the in-process Locker. Its leases never expire.
type MemoryLocker struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed on release
	// next is one counter for all keys: increasing overall, so increasing
	// per key, without remembering every key ever locked.
	next int64
}

// NewMemoryLocker returns an empty locker.
func NewMemoryLocker() *MemoryLocker {
	return &MemoryLocker{held: map[string]chan struct{}{}}
}

// Lock implements Locker.
func (m *MemoryLocker) Lock(ctx context.Context, key string) (Lease, error) {
	for {
		m.mu.Lock()
		ch, busy := m.held[key]
		if !busy {
			m.next++
			l := &memoryLease{locker: m, key: key, token: m.next, done: make(chan struct{})}
			m.held[key] = l.done
			m.mu.Unlock()
			return l, nil
		}
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

type memoryLease struct {
	locker *MemoryLocker
	key    string
	token  int64
	once   sync.Once
	done   chan struct{}
}

func (l *memoryLease) Token() int64 { return l.token }

func (l *memoryLease) Check(context.Context) error {
	select {
	case <-l.done:
		return ErrLeaseLost
	default:
		return nil
	}
}

func (l *memoryLease) Release(context.Context) error {
	l.once.Do(func() {
		l.locker.mu.Lock()
		if l.locker.held[l.key] == l.done {
			delete(l.locker.held, l.key)
		}
		l.locker.mu.Unlock()
		close(l.done)
	})
	return nil
}
