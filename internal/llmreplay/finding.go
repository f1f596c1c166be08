// Package llmreplay measures how many of another reviewer's inline
// findings reviewbot makes at the same place. The other reviewer's
// findings come from a JSONL file, one per line, each naming a pull
// request, the day of its review thread, a path and line, and the diff
// hunk the thread was shown under. Each finding is replayed on the commit
// of the pull request that thread was about (see Run), reviewed as
// `reviewbot review --base <merge base> --head <commit> --pr N --date D`
// would, and counted as flagged when one of reviewbot's findings on that
// review lies on the same path within a few lines of the hunk (see Match).
//
// The findings' text is read at run time and shown to the developer who
// runs the replay; nothing of it is kept in this repository.
package llmreplay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Finding is one finding of the other reviewer.
type Finding struct {
	// Index is the finding's line in the file, from 1.
	Index int `json:"index"`
	PR    int `json:"pr"`
	// ThreadDate is the day of the review thread, YYYY-MM-DD (UTC).
	ThreadDate string `json:"thread_date"`
	Path       string `json:"path"`
	// Line is the line of the head the thread is on; 0 when it named
	// none.
	Line int `json:"line"`
	// Severity is "red" or "yellow".
	Severity string `json:"severity"`
	// Text is what the reviewer wrote; it is only ever printed.
	Text string `json:"-"`
	// Hunk is the diff shown above the thread: a unified-diff hunk ending
	// at Line, its @@ header sometimes cut off with its first lines.
	Hunk string `json:"-"`
	// Class, Checkable and Real are labels given to the finding by hand:
	// what it is about, whether a static check could find it (yes,
	// partly, no) and whether it is a bug, a risk or a nit.
	Class     string `json:"class"`
	Checkable string `json:"checkable"`
	Real      string `json:"real"`

	day time.Time
}

// record is a line of the file.
type record struct {
	PR         int    `json:"pr"`
	ThreadDate string `json:"thread_date"`
	Path       string `json:"path"`
	Line       *int   `json:"line"`
	Severity   string `json:"severity"`
	Finding    string `json:"finding"`
	Hunk       string `json:"hunk"`
	Class      string `json:"class"`
	Checkable  string `json:"checkable"`
	Real       string `json:"real"`
}

// Day is the thread's day, midnight UTC: the review date of the replay.
func (f *Finding) Day() time.Time { return f.day }

// Load reads findings, one JSON object per line; blank lines are skipped.
// A line that is not a finding is an error naming the line: a figure
// over part of the file would pass for one over all of it.
func Load(r io.Reader) ([]*Finding, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []*Finding
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f, err := parseFinding([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		f.Index = n
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func parseFinding(b []byte) (*Finding, error) {
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	f := &Finding{PR: rec.PR, ThreadDate: rec.ThreadDate, Path: rec.Path, Severity: rec.Severity,
		Text: rec.Finding, Hunk: rec.Hunk, Class: rec.Class, Checkable: rec.Checkable, Real: rec.Real}
	if rec.Line != nil {
		f.Line = *rec.Line
	}
	var err error
	switch f.day, err = time.Parse(time.DateOnly, rec.ThreadDate); {
	case rec.PR <= 0:
		return nil, fmt.Errorf("pr %d: want a pull request number", rec.PR)
	case err != nil:
		return nil, fmt.Errorf("thread_date %q: want YYYY-MM-DD", rec.ThreadDate)
	case rec.Path == "":
		return nil, fmt.Errorf("no path")
	case rec.Line != nil && *rec.Line <= 0:
		return nil, fmt.Errorf("line %d: want a line number or null", *rec.Line)
	}
	return f, nil
}
