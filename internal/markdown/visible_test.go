package markdown

import "testing"

// VisibleText keeps line numbers: hidden lines become empty; inline code
// stays in VisibleText and leaves Visible.
func TestVisibleTextKeepsLines(t *testing.T) {
	body := "a\n```\nb\n```\nc <!-- d -->\n> e\n\nf `g` h"
	if got, want := VisibleText(body), "a\n\n\n\nc \n\n\nf `g` h"; got != want {
		t.Fatalf("VisibleText = %q, want %q", got, want)
	}
	lines := Visible(body)
	if len(lines) != 3 || lines[2].N != 8 || lines[2].Text != "f  h" {
		t.Fatalf("Visible = %+v", lines)
	}
}
