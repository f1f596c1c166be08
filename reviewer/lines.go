package reviewer

import "github.com/reviewbot-dev/reviewbot/checks"

// headLine maps line n of path's base version to the same line in head,
// for formats that can only point into the head checkout (SARIF, Actions
// annotations). ok is false when the PR deleted or changed that line, or
// deleted the file. A file the PR does not touch maps every line to itself.
func headLine(files []*checks.FileChange, path string, n int) (int, bool) {
	if n <= 0 {
		return 0, false
	}
	var fc *checks.FileChange
	for _, f := range files {
		if f.Status != checks.Added && (f.OldPath == path || (f.OldPath == "" && f.Path == path)) {
			fc = f
			break
		}
	}
	if fc == nil {
		return n, true
	}
	if fc.Status == checks.Deleted || fc.Binary {
		return 0, false
	}
	shift := 0
	for _, h := range fc.Hunks {
		if h.OldLines == 0 {
			// A pure insertion after line OldStart.
			if n <= h.OldStart {
				break
			}
			shift += h.NewLines
			continue
		}
		if n < h.OldStart {
			break
		}
		if n >= h.OldStart+h.OldLines {
			shift += h.NewLines - h.OldLines
			continue
		}
		for _, l := range h.Lines {
			if l.Old == n {
				if l.Op == checks.OpContext {
					return l.New, true
				}
				return 0, false
			}
		}
		return 0, false
	}
	return n + shift, true
}

// headPath is where a base-side location's file lives in head (a renamed
// file moved).
func headPath(files []*checks.FileChange, path string) string {
	for _, f := range files {
		if f.Status == checks.Renamed && f.OldPath == path {
			return f.Path
		}
	}
	return path
}
