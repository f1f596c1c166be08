package llmreplay

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Hunk is the new side of a diff hunk shown above a review thread.
type Hunk struct {
	// NewStart is the first new-side line number in the @@ header; 0 when
	// the hunk was shown without one.
	NewStart int
	// New are the new side's lines (the added and the context ones), in
	// order, without their marker.
	New []string
}

var hunkHeader = regexp.MustCompile(`^@@ -[0-9]+(?:,[0-9]+)? \+([0-9]+)(?:,[0-9]+)? @@`)

// ParseHunk reads a unified-diff hunk. A hunk with a line that is no diff
// line is unusable: its new side is empty, as for a hunk that only
// deletes.
func ParseHunk(s string) Hunk {
	var h Hunk
	if strings.TrimSpace(s) == "" {
		return h
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if m := hunkHeader.FindStringSubmatch(lines[0]); m != nil {
		h.NewStart, _ = strconv.Atoi(m[1])
		lines = lines[1:]
	}
	for _, l := range lines {
		switch {
		case l == "":
			// A blank context line whose marker space was trimmed away.
			h.New = append(h.New, "")
		case l[0] == '+' || l[0] == ' ':
			h.New = append(h.New, strings.TrimSuffix(l[1:], "\r"))
		case l[0] == '-' || l[0] == '\\':
			// A deleted line, or "\ No newline at end of file".
		default:
			return Hunk{NewStart: h.NewStart}
		}
	}
	return h
}

// Usable reports whether the hunk has new-side lines to look for.
func (h Hunk) Usable() bool { return len(h.New) > 0 }

// HeaderEnd is the line the @@ header puts the last new-side line on: the
// line the thread was made on, in the commit it was made on. 0 when the
// hunk has no header or no new-side lines.
func (h Hunk) HeaderEnd() int {
	if h.NewStart <= 0 || !h.Usable() {
		return 0
	}
	return h.NewStart + len(h.New) - 1
}

// Span is a range of head lines, both ends included.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// SpanOf is where a finding at line sits, under hunk h: the hunk's new
// side, which ends at line. The start is counted back from line, because
// a hunk shown with its first lines cut off still has the header of the
// whole hunk, and a header's numbers may belong to an earlier push than
// line's. A finding without a line has no span (nil).
func SpanOf(h Hunk, line int) *Span {
	if line <= 0 {
		return nil
	}
	start := line - len(h.New) + 1
	if start < 1 || start > line {
		start = line
	}
	return &Span{Start: start, End: line}
}

// Want is what the file of the reviewed commit must hold.
type Want struct {
	// Lines must appear in the file, one after the other; with none, the
	// file only has to exist.
	Lines []string
	// End is the line number the last of Lines must be on; 0 for
	// anywhere.
	End int
}

// WantOf is what a finding asks of the commit it is replayed on: the
// hunk's new side ending at line (anywhere when line is 0), or, with an
// unusable hunk, only the file.
func WantOf(h Hunk, line int) Want {
	if !h.Usable() {
		return Want{}
	}
	return Want{Lines: h.New, End: line}
}

// Find returns the line number the wanted lines end at in content, the
// first such place when End is 0; ok is false when content does not hold
// them there.
func (w Want) Find(content []byte) (end int, ok bool) {
	if len(w.Lines) == 0 {
		return 0, true
	}
	lines := splitLines(content)
	at := func(last int) bool { // last is 0-based
		first := last - len(w.Lines) + 1
		if first < 0 || last >= len(lines) {
			return false
		}
		for i, l := range w.Lines {
			if lines[first+i] != l {
				return false
			}
		}
		return true
	}
	if w.End > 0 {
		return w.End, at(w.End - 1)
	}
	for last := len(w.Lines) - 1; last < len(lines); last++ {
		if at(last) {
			return last + 1, true
		}
	}
	return 0, false
}

// splitLines splits a file into its lines, without their line endings.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(bytes.TrimSuffix(p, []byte("\r")))
	}
	return out
}
