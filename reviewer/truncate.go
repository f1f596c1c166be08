package reviewer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxBodyChars is GitHub's limit on the length of a comment body. GitHub
// counts characters, so lengths here are counted in runes.
const MaxBodyChars = 65536

// Truncate shortens body to at most limit characters. It cuts the middle: the
// start of the body and its structural tail (the closing </details> and the
// hidden markers the bot finds its comments by) are kept, and a note in
// place of the cut says how much is missing. A cut never leaves a fenced
// block open, and never keeps half a ```suggestion block, which GitHub would
// offer to apply.
func Truncate(body string, limit int) string {
	total := utf8.RuneCountInString(body)
	if total <= limit {
		return body
	}
	if limit <= 0 {
		return ""
	}
	rest, trailer := splitTrailer(body)
	for {
		tr := utf8.RuneCountInString(trailer)
		keep := limit - tr - utf8.RuneCountInString(truncationNote(total)) - 4
		// Each round removes at least the overflow, so this ends quickly.
		for keep >= 0 {
			head, kept := cutText(rest, keep)
			closers := strings.Count(head, "<details>") - strings.Count(head, "</details>") - strings.Count(trailer, "</details>")
			out := strings.TrimRight(head, "\n") + "\n\n" + truncationNote(total-kept-tr) + "\n" +
				strings.Repeat("</details>\n", max(closers, 0)) + trailer
			n := utf8.RuneCountInString(out)
			if n <= limit {
				return out
			}
			keep -= n - limit
		}
		if trailer == "" {
			break
		}
		// The tail alone does not fit: give up its oldest lines first, so
		// the last line (the marker that identifies the comment) survives.
		nl := strings.IndexByte(trailer, '\n')
		if nl < 0 {
			break
		}
		trailer = trailer[nl+1:]
	}
	return string([]rune(body)[:limit])
}

func truncationNote(omitted int) string {
	return fmt.Sprintf("… (truncated: %d characters omitted; run `reviewbot review` locally for the full text)", omitted)
}

// splitTrailer separates the trailing run of structural lines (blank lines,
// </details>, HTML comments) from the rest of body.
func splitTrailer(s string) (rest, trailer string) {
	cut, end := len(s), len(s)
	for {
		start := strings.LastIndexByte(s[:end], '\n') + 1
		line := strings.TrimSpace(s[start:end])
		structural := line == "" || line == "</details>" ||
			strings.HasPrefix(line, "<!--") && strings.HasSuffix(line, "-->")
		if !structural {
			break
		}
		cut = start
		if start == 0 {
			break
		}
		end = start - 1
	}
	return s[:cut], s[cut:]
}

// cutText returns a prefix of s of at most keep characters (plus a closing
// fence when needed) and how many characters of s it kept. It prefers to cut
// at a line end so markdown constructs are not split mid-line.
func cutText(s string, keep int) (head string, kept int) {
	if keep <= 0 {
		return "", 0
	}
	idx, n := 0, 0
	for idx < len(s) && n < keep {
		_, size := utf8.DecodeRuneInString(s[idx:])
		idx += size
		n++
	}
	prefix := s[:idx]
	if idx < len(s) {
		if nl := strings.LastIndexByte(prefix, '\n'); nl >= 0 && utf8.RuneCountInString(prefix[nl:]) <= 4096 {
			prefix = prefix[:nl]
		}
	}
	if fs, open := openFence(prefix); open {
		if strings.HasPrefix(fs.info, "suggestion") {
			prefix = strings.TrimRight(prefix[:fs.start], "\n")
		} else {
			kept = utf8.RuneCountInString(prefix)
			return prefix + "\n" + fs.indent + fs.closer, kept
		}
	}
	return prefix, utf8.RuneCountInString(prefix)
}

type fence struct {
	start  int    // byte offset of the opening line
	indent string // leading whitespace of the opening line
	info   string // info string, e.g. "suggestion"
	closer string
}

// openFence reports the fenced code block left open at the end of s, if any.
func openFence(s string) (fence, bool) {
	var cur fence
	var char byte
	var length int
	inside := false
	for pos := 0; pos < len(s); {
		end := strings.IndexByte(s[pos:], '\n')
		next := len(s)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(s)
		}
		line := s[pos:end]
		t := strings.TrimLeft(line, " \t")
		c, n := fenceRun(t)
		switch {
		case n < 3:
		case !inside:
			info := strings.TrimSpace(t[n:])
			if c == '`' && strings.ContainsRune(info, '`') {
				break // an inline code span, not a fence
			}
			inside, char, length = true, c, n
			cur = fence{start: pos, indent: line[:len(line)-len(t)], info: info, closer: strings.Repeat(string(c), n)}
		case c == char && n >= length && strings.TrimSpace(t[n:]) == "":
			inside = false
		}
		pos = next
	}
	return cur, inside
}

func fenceRun(t string) (byte, int) {
	if t == "" || t[0] != '`' && t[0] != '~' {
		return 0, 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	return t[0], n
}
