package recipe

// The comments of a script as rules read them: blocks, runs, the comment
// above a line.

import (
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// commentBlocks returns the script's runs of consecutive comment lines,
// each as one Comment spanning the run (Text joined with "\n").
func commentBlocks(f *script.Facts) []script.Comment {
	var out []script.Comment
	for _, run := range commentRuns(f) {
		out = append(out, joinRun(run))
	}
	return out
}

// commentBlocksWith returns the comment blocks that mention, for every
// group, at least one of the group's phrases (case-insensitive, runs of
// whitespace collapsed, so a phrase may wrap across comment lines).
// commentBlocksWith(f, []string{"lazy_offload", "eager"},
// []string{"popleft", "assert"}) finds a block that explains why eager
// mode fails.
func commentBlocksWith(f *script.Facts, groups ...[]string) []script.Comment {
	var out []script.Comment
	for _, run := range commentRuns(f) {
		// Cheap first pass, without allocating: a phrase's first word
		// cannot wrap across lines, so a run none of whose lines holds one
		// cannot match.
		if slices.ContainsFunc(groups, func(g []string) bool { return !anyFirstWord(run, g) }) {
			continue
		}
		if b := joinRun(run); mentionsAll(normSpace(b.Text), groups) {
			out = append(out, b)
		}
	}
	return out
}

// commentRuns splits the comments into runs of consecutive lines.
func commentRuns(f *script.Facts) [][]script.Comment {
	var out [][]script.Comment
	for i := 0; i < len(f.Comments); {
		j := i + 1
		for j < len(f.Comments) && f.Comments[j].Line == f.Comments[j-1].Line+1 {
			j++
		}
		out = append(out, f.Comments[i:j])
		i = j
	}
	return out
}

func joinRun(run []script.Comment) script.Comment {
	texts := make([]string, len(run))
	for k, c := range run {
		texts[k] = c.Text
	}
	return script.Comment{Line: run[0].Line, EndLine: run[len(run)-1].Line, Text: strings.Join(texts, "\n")}
}

// anyFirstWord reports whether a line of the run holds the first word of
// one of the phrases.
func anyFirstWord(run []script.Comment, phrases []string) bool {
	for _, p := range phrases {
		w, _, _ := strings.Cut(strings.TrimSpace(p), " ")
		for _, c := range run {
			if script.ContainsFold(c.Text, w) {
				return true
			}
		}
	}
	return false
}

// mentionsAll reports whether normalized text holds a phrase of every
// group.
func mentionsAll(text string, groups [][]string) bool {
	for _, g := range groups {
		if !slices.ContainsFunc(g, func(p string) bool { return strings.Contains(text, normSpace(p)) }) {
			return false
		}
	}
	return true
}

// commentAbove returns the comment block that ends on the line right
// above line n, or on an earlier line separated from n only by lines
// within maxGap (a comment that introduces a short run of statements).
func commentAbove(f *script.Facts, n, maxGap int) (script.Comment, bool) {
	var best script.Comment
	found := false
	for _, b := range commentBlocks(f) {
		if b.EndLine < n && n-b.EndLine <= maxGap+1 {
			best, found = b, true
		}
	}
	return best, found
}

func normSpace(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
