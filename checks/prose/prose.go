// Package prose holds the few wording helpers every finding, summary and
// verdict needs, so that "a, b and c" or "1 sibling" read the same
// everywhere and are written once.
package prose

import (
	"fmt"
	"strings"
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

// Code wraps s in a markdown code span that survives backticks in s.
func Code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return "`` " + s + " ``"
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
