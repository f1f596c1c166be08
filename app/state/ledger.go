package state

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// A sign-off is only as good as the App's knowledge of what it is about.
// GitHub does not say which commit was a PR's head when a conversation
// comment was written, nor who last edited a comment; commit dates say
// nothing (the author writes them). The App keeps its own record, from
// the deliveries GitHub signs and from what it reads itself:
//   - heads: each time the App learns a commit is the PR's head, with a
//     time no earlier than when it became the head (GitHub's updated_at
//     of the pull_request event, or the App's own clock plus a margin);
//   - edits: who edited a comment or review, and when, from the edited
//     deliveries' sender.
//
// A comment signs the newest recorded head whose time is not after the
// comment's: a push the App has not heard of, or heard of late, can only
// make a sign-off cover an older commit, never a newer one.

// Ledger is the App's record of heads and edits per pull request.
type Ledger interface {
	// RecordHead notes that sha was the head of pr (a job key) no later
	// than at.
	RecordHead(ctx context.Context, pr, sha string, at time.Time) error
	// HeadAt returns the newest recorded head of pr whose time is not
	// after at; ok is false when none is recorded.
	HeadAt(ctx context.Context, pr string, at time.Time) (sha string, ok bool, err error)
	// Newest returns the newest recorded head of pr: the head a push
	// delivery's "before" must name for its "after" to be recorded
	// without asking GitHub.
	Newest(ctx context.Context, pr string) (sha string, ok bool, err error)
	// RecordEdit notes that editor edited object (e.g. "comment:123") of
	// pr, leaving it as it reads at time at (its updated_at).
	RecordEdit(ctx context.Context, pr, object, editor string, at time.Time) error
	// LastEdit returns the newest recorded edit of object.
	LastEdit(ctx context.Context, pr, object string) (Edit, bool, error)
	// RecordVerdict notes which sign-off (an edit object, see
	// EditObject in package standing) the passing verdict on commit sha
	// of pr rests on; "" when sha's verdict passes on none. The verdict
	// comments say it too, but anyone with write access can delete or
	// edit a comment, so what a withdrawal re-decides comes from here.
	RecordVerdict(ctx context.Context, pr, sha, signoff string) error
	// Verdicts returns, by commit, the sign-off each recorded passing
	// verdict of pr rests on.
	Verdicts(ctx context.Context, pr string) (map[string]string, error)
}

// BaseObject is the ledger's edit object for a PR's base: a retarget is
// recorded as an edit of it, and sign-offs written before the newest one
// no longer stand.
const BaseObject = "pr_base"

// Edit is one recorded edit.
type Edit struct {
	Editor string
	At     time.Time
}

// maxHeadsPerPR bounds the record of one PR: older heads matter only to
// sign-offs that old.
const maxHeadsPerPR = 64

type headRecord struct {
	sha string
	at  time.Time
}

// insertHead adds a record in time order. A record of the head that the
// record before it already names keeps the earlier time (both are upper
// bounds of the same moment).
func insertHead(rs []headRecord, sha string, at time.Time) []headRecord {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].at.After(at) })
	if i > 0 && rs[i-1].sha == sha {
		return rs
	}
	if i < len(rs) && rs[i].sha == sha {
		rs[i].at = at
		return rs
	}
	rs = append(rs, headRecord{})
	copy(rs[i+1:], rs[i:])
	rs[i] = headRecord{sha: sha, at: at}
	if len(rs) > maxHeadsPerPR {
		rs = rs[len(rs)-maxHeadsPerPR:]
	}
	return rs
}

func headAt(rs []headRecord, at time.Time) (string, bool) {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].at.After(at) })
	if i == 0 {
		return "", false
	}
	return rs[i-1].sha, true
}

// MemoryLedger is the in-process Ledger: the most recently used PRs
// within a byte budget. A replica that restarts forgets it, which only
// costs a sign-off posted before the restart its head: the author of the
// sign-off is asked to sign again.
type MemoryLedger struct {
	mu     sync.Mutex
	prs    *simplelru.LRU[string, *prLedger]
	size   int64
	budget int64
}

type prLedger struct {
	heads    []headRecord
	edits    map[string]Edit
	verdicts map[string]string // commit → the sign-off its passing verdict rests on
	size     int64
}

// Rough per-entry costs, for the byte budget.
const (
	ledgerHeadBytes = 96
	ledgerEditBytes = 128
	ledgerPRBytes   = 256
)

// NewMemoryLedger returns a ledger holding about budget bytes (default 16
// MiB, some 50,000 PRs).
func NewMemoryLedger(budget int64) *MemoryLedger {
	if budget <= 0 {
		budget = 16 << 20
	}
	m := &MemoryLedger{budget: budget}
	m.prs, _ = simplelru.NewLRU[string, *prLedger](1<<30, func(_ string, p *prLedger) { m.size -= p.size })
	return m
}

func (m *MemoryLedger) pr(key string) *prLedger {
	p, ok := m.prs.Get(key)
	if !ok {
		p = &prLedger{edits: map[string]Edit{}, size: ledgerPRBytes}
		m.prs.Add(key, p)
		m.size += p.size
	}
	return p
}

func (m *MemoryLedger) resize(p *prLedger) {
	n := ledgerPRBytes + int64(len(p.heads))*ledgerHeadBytes + int64(len(p.edits)+len(p.verdicts))*ledgerEditBytes
	m.size += n - p.size
	p.size = n
	for m.size > m.budget && m.prs.Len() > 1 {
		m.prs.RemoveOldest()
	}
}

// RecordHead implements Ledger.
func (m *MemoryLedger) RecordHead(_ context.Context, pr, sha string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pr(pr)
	p.heads = insertHead(p.heads, sha, at)
	m.resize(p)
	return nil
}

// HeadAt implements Ledger.
func (m *MemoryLedger) HeadAt(_ context.Context, pr string, at time.Time) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prs.Get(pr)
	if !ok {
		return "", false, nil
	}
	sha, ok := headAt(p.heads, at)
	return sha, ok, nil
}

// Newest implements Ledger.
func (m *MemoryLedger) Newest(_ context.Context, pr string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prs.Get(pr)
	if !ok || len(p.heads) == 0 {
		return "", false, nil
	}
	return p.heads[len(p.heads)-1].sha, true, nil
}

// RecordEdit implements Ledger.
func (m *MemoryLedger) RecordEdit(_ context.Context, pr, object, editor string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pr(pr)
	if old, ok := p.edits[object]; ok && old.At.After(at) {
		return nil // a delayed delivery of an older edit
	}
	p.edits[object] = Edit{Editor: editor, At: at}
	m.resize(p)
	return nil
}

// LastEdit implements Ledger.
func (m *MemoryLedger) LastEdit(_ context.Context, pr, object string) (Edit, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prs.Get(pr)
	if !ok {
		return Edit{}, false, nil
	}
	e, ok := p.edits[object]
	return e, ok, nil
}

// RecordVerdict implements Ledger.
func (m *MemoryLedger) RecordVerdict(_ context.Context, pr, sha, signoff string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pr(pr)
	if p.verdicts == nil {
		p.verdicts = map[string]string{}
	}
	if signoff == "" {
		delete(p.verdicts, sha)
	} else if _, ok := p.verdicts[sha]; ok || len(p.verdicts) < maxHeadsPerPR {
		// A PR's record is bounded like its heads: past the bound a new
		// verdict is kept only in its comment.
		p.verdicts[sha] = signoff
	}
	m.resize(p)
	return nil
}

// Verdicts implements Ledger.
func (m *MemoryLedger) Verdicts(_ context.Context, pr string) (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prs.Get(pr)
	if !ok {
		return nil, nil
	}
	out := make(map[string]string, len(p.verdicts))
	for k, v := range p.verdicts {
		out[k] = v
	}
	return out, nil
}

// Budget is the most bytes the ledger holds.
func (m *MemoryLedger) Budget() int64 { return m.budget }

// Size is the estimated number of bytes held.
func (m *MemoryLedger) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}

var _ Ledger = (*MemoryLedger)(nil)
