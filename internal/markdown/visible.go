// Package markdown reads GitHub-flavoured markdown the way a reader sees
// it on GitHub: the one reading of a comment behind every comment command
// (app/comment) and every sign-off (checks/signoff).
//
// Only visible, ordinary text counts. Code (fenced blocks of any length,
// indented blocks, inline code spans), block quotes and their lazy
// continuation lines, HTML comments (including one opened in the middle of
// a line), raw HTML blocks whose content GitHub does not show, and link
// reference definitions are not what the author says: a reply quoting a
// command, documentation showing one, or text hidden from the page
// authorizes nothing. Pure: no I/O.
package markdown

import (
	"regexp"
	"strings"
)

// maxBody bounds the text read: GitHub caps a comment at 65,536
// characters, so anything longer was not written through GitHub, and is
// cut rather than scanned.
const maxBody = 1 << 20

// Line is a line of visible text and its 1-based line number in the body.
type Line struct {
	N    int
	Text string
}

// Visible returns the lines of body a reader sees as ordinary text, with
// inline code spans and HTML comments removed from them. Blank lines are
// left out.
func Visible(body string) []Line {
	var out []Line
	for i, t := range visibleLines(body, false) {
		if strings.TrimSpace(t) != "" {
			out = append(out, Line{N: i + 1, Text: t})
		}
	}
	return out
}

// VisibleText is body as a reader sees it: code blocks, quotes and HTML
// comments removed (hidden lines become empty lines, so line numbers are
// kept). Inline code spans stay, backticks and all: a login or a file
// name written as code is still what the author says.
func VisibleText(body string) string {
	return strings.Join(visibleLines(body, true), "\n")
}

// htmlHiddenBlock opens a raw HTML block whose content GitHub does not
// render as text (CommonMark's type 1 blocks, which run to their closing
// tag, and which GitHub's sanitizer removes or shows as code).
var htmlHiddenBlock = regexp.MustCompile(`(?i)^\s{0,3}<(script|style|textarea|pre)(\s|>|$)`)

// linkRefDef is a link reference definition: `[label]: destination
// "title"` renders as nothing.
var linkRefDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*\S`)

var listItemRe = regexp.MustCompile(`^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)`)

// visibleLines returns one entry per line of body: its visible text, or ""
// for a hidden line. keepCode keeps inline code spans.
func visibleLines(body string, keepCode bool) []string {
	if len(body) > maxBody {
		body = body[:maxBody]
	}
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	out := make([]string, len(lines))
	var (
		fenceChar     byte // the fence character while inside a fenced block
		fenceLen      int
		htmlEnd       string // the closing tag of a hidden raw HTML block
		inComment     bool   // inside an HTML comment that started earlier
		inQuote       bool   // a block quote's paragraph, until a blank line
		inList        bool
		inIndented    bool
		prevBlank     = true
		paragraphOpen bool // a paragraph is open (an indented line continues it)
	)
	for i, line := range lines {
		line = strings.ReplaceAll(line, "\r", "")
		t := strings.TrimSpace(line)
		switch {
		case fenceChar != 0:
			if closesFence(line, fenceChar, fenceLen) {
				fenceChar = 0
			}
			continue
		case htmlEnd != "":
			if strings.Contains(strings.ToLower(line), htmlEnd) {
				htmlEnd = ""
			}
			continue
		case inComment:
			end := strings.Index(line, "-->")
			if end < 0 {
				continue
			}
			inComment = false
			line = line[end+3:]
			t = strings.TrimSpace(line)
		}
		if t == "" {
			prevBlank, inQuote, inIndented, paragraphOpen = true, false, false, false
			continue
		}
		indented := indentWidth(line) >= 4
		if indented && (inIndented || (prevBlank && !inList) || (!paragraphOpen && !inList && !inQuote)) {
			// An indented code block: after a blank line or at the start,
			// outside a list (inside one, indentation continues the item).
			inIndented, prevBlank = true, false
			continue
		}
		inIndented = false
		wasBlank := prevBlank
		prevBlank = false
		if !indented {
			if c, n := openingFence(line); n > 0 {
				fenceChar, fenceLen, paragraphOpen = c, n, false
				continue
			}
			if m := htmlHiddenBlock.FindStringSubmatch(line); m != nil {
				end := "</" + strings.ToLower(m[1]) + ">"
				if !strings.Contains(strings.ToLower(line), end) {
					htmlEnd = end
				}
				paragraphOpen = false
				continue
			}
			if strings.HasPrefix(strings.TrimLeft(line, " "), ">") {
				// A block quote; the lines that follow without a blank
				// line continue its paragraph (lazy continuation).
				inQuote, paragraphOpen = true, true
				continue
			}
			if !paragraphOpen && linkRefDef.MatchString(line) {
				continue
			}
		}
		if inQuote {
			continue
		}
		if listItemRe.MatchString(line) {
			inList = true
		} else if wasBlank && !indented {
			inList = false
		}
		text, open := stripInline(line, keepCode)
		inComment = open
		out[i] = text
		paragraphOpen = true
	}
	return out
}

// stripInline removes HTML comments, and inline code spans unless
// keepCode, from a line. open reports an HTML comment that the line opens
// and does not close: it hides the following lines up to its `-->`.
func stripInline(line string, keepCode bool) (text string, open bool) {
	var b strings.Builder
	for i := 0; i < len(line); {
		switch {
		case strings.HasPrefix(line[i:], "<!--"):
			end := strings.Index(line[i+4:], "-->")
			if end < 0 {
				return b.String(), true
			}
			i += 4 + end + 3
		case line[i] == '`':
			n := run(line[i:], '`')
			// A code span closes at the next run of exactly n backticks;
			// without one the backticks are literal.
			if end := closingRun(line[i+n:], n); end >= 0 {
				if keepCode {
					b.WriteString(line[i : i+n+end+n])
				}
				i += n + end + n
				continue
			}
			b.WriteString(line[i : i+n])
			i += n
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	return b.String(), false
}

// closingRun returns the offset of the first run of exactly n backticks in
// s, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := run(s[i:], '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// indentWidth is the width of a line's leading white space (a tab counts
// to the next multiple of four).
func indentWidth(line string) int {
	w := 0
	for _, c := range line {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}

// openingFence returns the fence character and length a line opens (three
// or more backticks or tildes after at most three spaces), or 0. A
// backtick fence's info string may not contain a backtick.
func openingFence(line string) (byte, int) {
	if indentWidth(line) > 3 {
		return 0, 0
	}
	t := strings.TrimLeft(line, " \t")
	for _, c := range []byte{'`', '~'} {
		n := run(t, c)
		if n < 3 {
			continue
		}
		if c == '`' && strings.Contains(t[n:], "`") {
			return 0, 0
		}
		return c, n
	}
	return 0, 0
}

// closesFence reports whether line closes a fence of n characters c: at
// most three spaces, at least n of the same character, nothing after.
func closesFence(line string, c byte, n int) bool {
	if indentWidth(line) > 3 {
		return false
	}
	t := strings.TrimLeft(line, " \t")
	m := run(t, c)
	return m >= n && strings.TrimSpace(t[m:]) == ""
}
