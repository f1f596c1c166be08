package checks

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Budget bounds the work of one review, whatever the PR holds: a review
// past it reads nothing more, and what it did not read is named in
// Result.NotReviewed ("not reviewed: ..."), never dropped in silence or
// paid for with the process's memory. Real reviews of the InferenceX
// repository read about 5 MiB from 300 files and hold about 25 MiB of
// parsed files; the defaults are several times that. A zero field means
// no bound of that kind.
type Budget struct {
	// FileBytes is the largest file a review reads; a larger one is not
	// reviewed ("too large to review"), and the rest of the review goes
	// on.
	FileBytes int64
	// ReadBytes is what a review reads in all, from both trees.
	ReadBytes int64
	// Files is how many files it reads.
	Files int
	// ParsedBytes is the memory the files it parses may hold (what the
	// parse cache charges them: Sizer).
	ParsedBytes int64
	// Time is how long it may run before it stops reading.
	Time time.Duration
}

// DefaultBudget is the budget of a Change whose Budget is nil.
var DefaultBudget = Budget{FileBytes: 8 << 20, ReadBytes: 64 << 20, Files: 3000, ParsedBytes: 192 << 20, Time: 2 * time.Minute}

// String spells the budget as ParseBudget reads it.
func (b Budget) String() string {
	var parts []string
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	add("file", sizeText(b.FileBytes))
	add("read", sizeText(b.ReadBytes))
	add("files", strconv.Itoa(b.Files))
	add("parsed", sizeText(b.ParsedBytes))
	add("time", b.Time.String())
	return strings.Join(parts, ",")
}

// ParseBudget reads a budget written as comma-separated key=value pairs
// over DefaultBudget: file, read and parsed take sizes (8MiB, 512KiB,
// 1GiB, or bytes), files a count, time a duration (90s, 2m); 0 lifts a
// bound. "file=16MiB,time=5m" changes those two.
func ParseBudget(s string) (Budget, error) {
	b := DefaultBudget
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return b, fmt.Errorf("budget %q: want key=value", part)
		}
		var err error
		switch strings.TrimSpace(k) {
		case "file":
			b.FileBytes, err = parseSize(v)
		case "read":
			b.ReadBytes, err = parseSize(v)
		case "parsed":
			b.ParsedBytes, err = parseSize(v)
		case "files":
			b.Files, err = strconv.Atoi(strings.TrimSpace(v))
			if err == nil && b.Files < 0 {
				err = errors.New("negative")
			}
		case "time":
			b.Time, err = time.ParseDuration(strings.TrimSpace(v))
			if err == nil && b.Time < 0 {
				err = errors.New("negative")
			}
		default:
			return b, fmt.Errorf("budget %q: unknown key %q (want file, read, files, parsed or time)", part, k)
		}
		if err != nil {
			return b, fmt.Errorf("budget %q: %w", part, err)
		}
	}
	return b, nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(t), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

// sizeText spells a byte count: "8 MiB", "1.5 MiB", "300 KiB".
func sizeText(n int64) string {
	unit, div := "bytes", int64(1)
	switch {
	case n >= 1<<30:
		unit, div = "GiB", 1<<30
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	if n%div == 0 {
		return fmt.Sprintf("%d %s", n/div, unit)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(div), unit)
}

// BudgetError is a read the review's budget refused.
type BudgetError struct {
	Path string
	// TooLarge is set when the file alone is over Budget.FileBytes (the
	// review goes on without it); otherwise the review's budget is spent.
	TooLarge bool
	Size     int64
	Reason   string
}

func (e *BudgetError) Error() string { return e.Path + ": not reviewed: " + e.Reason }

// AsBudgetError returns the *BudgetError err is or wraps, or nil.
func AsBudgetError(err error) *BudgetError {
	var be *BudgetError
	if errors.As(err, &be) {
		return be
	}
	return nil
}

// meter is a review's account of its budget. Reads are charged by the
// review's CachedTrees (a file once, however often rules read it), parses
// by Parsed.
type meter struct {
	b     Budget
	start time.Time
	skip  func(path, reason string)

	mu     sync.Mutex
	read   int64
	files  int
	parsed int64
	// spent says why the budget is spent ("" while it is not).
	spent string
}

func newMeter(b Budget, skip func(path, reason string)) *meter {
	return &meter{b: b, start: time.Now(), skip: skip}
}

// allowRead charges reading p (size bytes, -1 when unknown) or refuses it.
func (m *meter) allowRead(p string, size int64) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b.FileBytes > 0 && size > m.b.FileBytes {
		reason := fmt.Sprintf("too large to review (%s, over the %s a review reads of one file)", sizeText(size), sizeText(m.b.FileBytes))
		m.skip(p, reason)
		return &BudgetError{Path: p, TooLarge: true, Size: size, Reason: reason}
	}
	if m.spent == "" {
		switch {
		case m.b.Time > 0 && time.Since(m.start) > m.b.Time:
			m.spent = fmt.Sprintf("the review ran for its %s budget before reading it", m.b.Time)
		case m.b.Files > 0 && m.files >= m.b.Files:
			m.spent = fmt.Sprintf("the review had read its budget of %d files before it", m.b.Files)
		case m.b.ReadBytes > 0 && m.read+max(size, 0) > m.b.ReadBytes:
			m.spent = fmt.Sprintf("the review had read %s of its %s budget before it", sizeText(m.read), sizeText(m.b.ReadBytes))
		case m.b.ParsedBytes > 0 && m.parsed > m.b.ParsedBytes:
			m.spent = fmt.Sprintf("the files it had parsed held %s, over its %s budget", sizeText(m.parsed), sizeText(m.b.ParsedBytes))
		}
	}
	if m.spent != "" {
		m.skip(p, m.spent)
		return &BudgetError{Path: p, Size: size, Reason: m.spent}
	}
	m.files++
	m.read += max(size, 0)
	return nil
}

// readDone corrects the charge of a read whose size was not known before.
func (m *meter) readDone(size, charged int64) {
	if m == nil || charged >= 0 {
		return
	}
	m.mu.Lock()
	m.read += size
	m.mu.Unlock()
}

// chargeParsed charges the memory a parse holds.
func (m *meter) chargeParsed(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.parsed += n
	m.mu.Unlock()
}

// spentReason says why the budget is spent, "" when it is not.
func (m *meter) spentReason() string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// NotReviewed is a file (or a part of the change: a directory, whose Path
// ends in "/", or "" for the review as a whole) that the review did not
// judge, or judged only in part, and why. The App's summary lists them under "Not reviewed"; the CLI prints
// them.
type NotReviewed struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Skip records that path was not reviewed, and why: the builder of a
// change calls it for a file it could not diff (a patch that does not
// parse, a file it could not read) and leaves the file out of Files; the
// review calls it for what its budget refused. The first reason given for
// a path is kept. Safe for concurrent use.
func (c *Change) Skip(path, reason string) {
	c.skipMu.Lock()
	defer c.skipMu.Unlock()
	if c.skipped == nil {
		c.skipped = map[string]string{}
	}
	if path != "" {
		// A directory keeps its slash, so a reader can tell it from a file.
		dir := strings.HasSuffix(path, "/")
		if path = CleanPath(path); dir && path != "" {
			path += "/"
		}
	}
	if _, ok := c.skipped[path]; !ok {
		c.skipped[path] = reason
	}
}

// NotReviewed returns what Skip recorded, by path.
func (c *Change) NotReviewed() []NotReviewed {
	c.skipMu.Lock()
	defer c.skipMu.Unlock()
	out := make([]NotReviewed, 0, len(c.skipped))
	for p, r := range c.skipped {
		out = append(out, NotReviewed{Path: p, Reason: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
