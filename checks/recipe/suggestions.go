package recipe

// Suggested edits: a line inserted above a statement, a value replaced
// in place. Every helper is read-only over Facts; none reads shell source
// beyond Facts.LineText.

import (
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// stmtLine returns the first line of the statement that holds line n: the
// assignment (OFFLOAD_ARGS=( ... ), X=$(cat <<EOF ...)) or the server
// command spanning it, innermost first; n itself when none does. Text
// inserted above that line runs before the statement and on its path.
func stmtLine(f *script.Facts, n int) int {
	best, span := n, -1
	consider := func(start, end int) {
		if start <= n && n <= end && (span < 0 || end-start < span) {
			best, span = start, end-start
		}
	}
	for _, v := range f.Vars {
		if v.Kind == script.Assign || v.Kind == script.Export {
			consider(v.Line, v.EndLine)
		}
	}
	for _, c := range f.Servers {
		consider(c.Line, c.EndLine)
	}
	return best
}

// indentOf returns the leading blanks of s.
func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// insertAbove returns a suggestion that puts lines above head line n,
// indented like line n: GitHub replaces line n with the new lines followed
// by line n unchanged.
func insertAbove(f *script.Facts, n int, lines ...string) *checks.Suggestion {
	cur := f.LineText(n)
	ind := indentOf(cur)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(ind + l + "\n")
	}
	b.WriteString(cur)
	return &checks.Suggestion{Line: n, EndLine: n, Replacement: b.String()}
}

// replaceOnce returns a suggestion that replaces old with repl in head
// line n, or nil unless old occurs exactly once in that line (an edit that
// could hit the wrong occurrence is not offered).
func replaceOnce(f *script.Facts, n int, old, repl string) *checks.Suggestion {
	cur := f.LineText(n)
	if old == "" || strings.Count(cur, old) != 1 {
		return nil
	}
	return &checks.Suggestion{Line: n, EndLine: n, Replacement: strings.Replace(cur, old, repl, 1)}
}

// jsonQuote is how a double quote of j's JSON text is spelled on the
// script line: `\"` inside a double-quoted shell string, `"` otherwise.
func jsonQuote(j *script.JSONConfig) string {
	if j.Escaped {
		return `\"`
	}
	return `"`
}

// jsonMember locates `<q>key<q> : value` on line s, where q is the line's
// spelling of a JSON quote (see jsonQuote). It returns the offsets of the
// value (a quoted string including its quotes, or a bare token), and ok
// only when the key occurs exactly once on the line.
func jsonMember(s, q, key string) (valStart, valEnd int, ok bool) {
	k := q + key + q
	if strings.Count(s, k) != 1 {
		return 0, 0, false
	}
	i := strings.Index(s, k) + len(k)
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] != ':' {
		return 0, 0, false
	}
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	if strings.HasPrefix(s[i:], q) {
		end := strings.Index(s[i+len(q):], q)
		if end < 0 {
			return 0, 0, false
		}
		return start, i + len(q) + end + len(q), true
	}
	for i < len(s) && !strings.ContainsRune(",}] \t'\"\\", rune(s[i])) {
		i++
	}
	if i == start {
		return 0, 0, false
	}
	return start, i, true
}

// replaceNumber replaces the one occurrence of the number old in line
// (not part of a longer number or a name) with repl; ok is false when old does not
// occur exactly once.
func replaceNumber(line, old, repl string) (string, bool) {
	// Part of a longer number or of a name (X2=2: the first 2 is not it).
	isNum := func(c byte) bool {
		return c >= '0' && c <= '9' || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	at := -1
	for i := 0; ; {
		j := strings.Index(line[i:], old)
		if j < 0 {
			break
		}
		j += i
		end := j + len(old)
		if (j == 0 || !isNum(line[j-1])) && (end >= len(line) || !isNum(line[end])) {
			if at >= 0 {
				return "", false
			}
			at = j
		}
		i = j + 1
	}
	if at < 0 {
		return "", false
	}
	return line[:at] + repl + line[at+len(old):], true
}
