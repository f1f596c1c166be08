package app

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// The small text helpers of the App's comments and log lines.

// short is a commit SHA as the App's comments show it.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "NONE"
	}
	return s
}

func joinOr(items []string) string {
	if len(items) == 0 {
		return "nobody"
	}
	return prose.JoinOr(items)
}

func codeJoin(items []string) string { return strings.Join(codeQuote(items), ", ") }

func codeQuote(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return out
}

func limitStrings(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(append([]string(nil), items[:n]...), fmt.Sprintf("%d more", len(items)-n))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
