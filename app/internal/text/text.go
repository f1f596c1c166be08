// Package text holds the small phrasing helpers of the App's comments and
// log lines.
package text

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// CodeQuote puts each item in backticks.
func CodeQuote(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prose.Code(s)
	}
	return out
}

// CodeJoin is the items in backticks, comma-separated.
func CodeJoin(items []string) string { return strings.Join(CodeQuote(items), ", ") }

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Limit keeps the first n items and says how many more there were.
func Limit(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(append([]string(nil), items[:n]...), fmt.Sprintf("%d more", len(items)-n))
}
