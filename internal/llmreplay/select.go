package llmreplay

import (
	"sort"
	"time"
)

// Candidate is a commit a finding may be replayed on, with the blob ID of
// the finding's file in it ("" when it has no such file).
type Candidate struct {
	SHA  string
	Date time.Time
	Blob string
}

// EndOfDay is the last second of day's date (UTC): a commit committed then
// or earlier was there for a thread of that day.
func EndOfDay(day time.Time) time.Time {
	y, m, d := day.UTC().Date()
	return time.Date(y, m, d, 23, 59, 59, 0, time.UTC)
}

// Select returns the newest of cands (by committer date; ties in the
// given order) committed no later than cutoff whose file holds what
// holds asks, or -1. A zero cutoff admits every date. holds is asked at
// most once per blob; its error ends the search.
func Select(cands []Candidate, cutoff time.Time, holds func(blob string) (bool, error)) (int, error) {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cands[order[a]].Date.After(cands[order[b]].Date) })
	seen := map[string]bool{}
	for _, i := range order {
		c := cands[i]
		if c.Blob == "" || (!cutoff.IsZero() && c.Date.After(cutoff)) {
			continue
		}
		ok, asked := seen[c.Blob]
		if !asked {
			var err error
			if ok, err = holds(c.Blob); err != nil {
				return -1, err
			}
			seen[c.Blob] = ok
		}
		if ok {
			return i, nil
		}
	}
	return -1, nil
}
