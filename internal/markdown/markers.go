package markdown

import "strings"

// EndMarkers returns the hidden markers that end body: the HTML comments
// on its last lines, one whole line each, in order (trailing blank lines
// aside). That is where the bot writes the markers it finds its comments
// by; a marker anywhere else (quoted from the PR in a code span or a code
// block, or pasted by someone) is text, not a marker.
func EndMarkers(body string) []string {
	if len(body) > maxBody {
		body = body[len(body)-maxBody:]
	}
	lines := strings.Split(strings.TrimRight(body, " \t\r\n"), "\n")
	i := len(lines)
	for i > 0 {
		l := strings.TrimRight(lines[i-1], " \t\r")
		if len(l) < len("<!---->") || !strings.HasPrefix(l, "<!--") || !strings.HasSuffix(l, "-->") ||
			strings.Contains(l[len("<!--"):len(l)-len("-->")], "-->") {
			break
		}
		lines[i-1] = l
		i--
	}
	return lines[i:]
}
