// Package prose holds the few wording helpers every finding, summary and
// verdict needs, so that "a, b and c" or "1 sibling" read the same
// everywhere and are written once.
package prose

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JoinAnd joins items as prose: "a", "a and b", "a, b and c".
func JoinAnd(items []string) string { return join(items, " and ") }

// JoinOr joins alternatives as prose: "a", "a or b", "a, b or c".
func JoinOr(items []string) string { return join(items, " or ") }

func join(items []string, last string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}

// ShortSHA is a commit SHA as comments, verdicts and listings show it:
// its first nine characters, enough to name one commit of a repository
// of this size.
func ShortSHA(sha string) string {
	if len(sha) > 9 {
		return sha[:9]
	}
	return sha
}

// Count returns "1 sibling" or "3 siblings".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, Pick(n, one, many))
}

// Pick returns one when n is 1, else many ("runs", "run").
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The bounds of a quoted value, in runes: a name (a config key, a path, a
// label, an image) and a line of code (a recipe or YAML line). Real names
// are far shorter than MaxName; a longer value is cut to the bound, its
// last rune an ellipsis inside the span.
const (
	MaxName = 160
	MaxLine = 400
)

// Empty is what Code shows for an empty value: an empty code span is not
// one in markdown (two backticks read as text).
const Empty = "(empty)"

// Code quotes s, a value that may come from the PR, as one markdown code
// span of at most MaxName runes (see CodeMax). Every PR-derived string a
// comment shows goes through it: inside a code span nothing is a mention,
// a link, an image or HTML, and nothing in s can end the span early.
func Code(s string) string { return CodeMax(s, MaxName) }

// CodeLine is Code for a line of code, bounded by MaxLine.
func CodeLine(s string) string { return CodeMax(s, MaxLine) }

// CodeAt quotes path:line (just the path when line is not positive), the
// way findings cite a place.
func CodeAt(path string, line int) string {
	if line <= 0 {
		return Code(path)
	}
	return Code(path + ":" + strconv.Itoa(line))
}

// CodeMax quotes s as one code span whose text is CodeText(s, limit): on
// one line, at most limit runes. The fence is one backtick longer than the
// longest run of backticks in the text, so no run inside closes it, and a
// space pads the text when CommonMark would otherwise strip or misread
// its ends (a backtick in the text, or a space at both ends). An empty s
// is Empty, outside any span.
func CodeMax(s string, limit int) string {
	t := CodeText(s, limit)
	if t == "" {
		return Empty
	}
	fence := strings.Repeat("`", longestRun(t, '`')+1)
	if strings.Contains(t, "`") || t[0] == ' ' && t[len(t)-1] == ' ' && strings.Trim(t, " ") != "" {
		return fence + " " + t + " " + fence
	}
	return fence + t + fence
}

// CodeText is the text the code span of CodeMax(s, limit) shows: every
// line break of s (LF, CR, CRLF, VT, FF, NEL, the Unicode line and
// paragraph separators) as a visible ⏎, NUL as U+FFFD (as CommonMark
// reads it), and past limit runes (at least 1) the first limit-1 runes
// and "…".
func CodeText(s string, limit int) string {
	limit = max(limit, 1)
	out := make([]rune, 0, min(len(s), limit+1))
	for i := 0; i < len(s) && len(out) <= limit; {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\r':
			if strings.HasPrefix(s[i:], "\n") {
				i++
			}
			r = '⏎'
		case '\n', '\v', '\f', '\u0085', '\u2028', '\u2029':
			r = '⏎'
		case 0:
			r = utf8.RuneError
		}
		out = append(out, r)
	}
	if len(out) > limit {
		out = append(out[:limit-1], '…')
	}
	return string(out)
}

// CodeBlock is content as a fenced code block with the info string info
// ("suggestion", "yaml", ""): content as it is, byte for byte (a
// suggestion must be exact), under a fence of backticks one longer than
// the longest run of backticks in content and info (at least three), so
// no line of content closes it. Content should not end with a newline;
// the block does not end with one.
func CodeBlock(info, content string) string {
	fence := strings.Repeat("`", max(3, longestRun(content+info, '`')+1))
	return fence + info + "\n" + content + "\n" + fence
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// OneLine collapses runs of whitespace, newlines included, to one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// EditDistance is the Levenshtein distance between a and b (bytes), or
// max+1 as soon as it is known to exceed max (a negative max: no bound).
// Strings over 256 bytes are not compared (max+1, or their length
// difference plus one when unbounded), which keeps a hostile input cheap.
func EditDistance(a, b string, max int) int {
	if a == b {
		return 0
	}
	if len(a) > 256 || len(b) > 256 {
		if max >= 0 {
			return max + 1
		}
		return abs(len(a)-len(b)) + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if max >= 0 && rowMin > max {
			return max + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
