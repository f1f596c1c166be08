package app

import (
	"regexp"
	"strings"
)

// parseReviewCommand finds `@<name> review` or `@<name> re-review` on a line
// of its own in a comment. Quoted lines and fenced code do not count: a
// reply quoting someone's command, or docs showing it, must not trigger a
// review.
func parseReviewCommand(body, name string) (string, bool) {
	re := regexp.MustCompile(`(?i)^\s*@` + regexp.QuoteMeta(name) + `\s+(review|re-review)\s*$`)
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if strings.HasPrefix(t, ">") {
			continue
		}
		if m := re.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), true
		}
	}
	return "", false
}

// mayCommand reports whether a comment author's association with the
// repository lets them run commands (write access).
func mayCommand(association string) bool {
	switch association {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}
