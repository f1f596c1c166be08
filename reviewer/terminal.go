package reviewer

import (
	"regexp"
	"strings"
)

// A finding's prose is markdown, written for GitHub. On a terminal it is
// rendered instead: emphasis becomes bold (or plain text without colour),
// code spans are coloured (or keep their backticks, which still mark code
// in plain text), links show their target, fences are dropped and their
// code indented.

var (
	ansiSeq      = regexp.MustCompile("\x1b\\[[0-9;]*m")
	strongSpanRE = regexp.MustCompile(`\*\*([^*\n]+?)\*\*`)
	codeSpanRE   = regexp.MustCompile("(`+)([^`\n]+?)(`+)")
	linkSpanRE   = regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s]+)\)`)
)

// terminalInline renders the inline markdown of one line for a terminal.
func terminalInline(s string, o TextOptions) string {
	// Code first: nothing inside a code span is markup.
	var codes []string
	s = codeSpanRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := codeSpanRE.FindStringSubmatch(m)
		if len(sub[1]) != len(sub[3]) {
			return m
		}
		code := strings.TrimSpace(sub[2])
		if o.Color {
			code = o.paint(ansiCyan, code)
		} else {
			code = "`" + code + "`"
		}
		codes = append(codes, code)
		return "\x00" + string(rune('a'+len(codes)-1)) + "\x00"
	})
	s = strongSpanRE.ReplaceAllStringFunc(s, func(m string) string {
		return o.paint(ansiBold, strongSpanRE.FindStringSubmatch(m)[1])
	})
	s = linkSpanRE.ReplaceAllString(s, "$1 ($2)")
	for i, c := range codes {
		s = strings.Replace(s, "\x00"+string(rune('a'+i))+"\x00", c, 1)
	}
	return s
}

// visible drops ANSI colour sequences, for measuring text.
func visible(s string) string { return ansiSeq.ReplaceAllString(s, "") }
