package gfmtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/internal/gfmtest"
)

// Every hostile value quoted by prose.Code is one code span of exactly
// the value (line breaks shown as ⏎), whatever surrounds it.
func TestGFMCode(t *testing.T) {
	long := strings.Repeat("@evil-user ", 40)
	for _, v := range append(gfmtest.Hostile, long, " evil both ", "``evil``", "evil\r\nline") {
		for _, body := range []string{
			"The key " + prose.Code(v) + " is unknown.",
			prose.Code(v) + " starts the line",
			"- " + prose.Code(v) + "\n- " + prose.CodeLine(v),
			"| a |\n|---|\n| " + prose.Code(v) + " |",
		} {
			d := gfmtest.Check(t, fmt.Sprintf("Code(%q)", v), body, gfmtest.Allow{})
			if !d.Shows(v) {
				t.Errorf("Code(%q) in %q: code spans %q, want %q", v, body, d.Spans, prose.CodeText(v, prose.MaxName))
			}
		}
	}
}
