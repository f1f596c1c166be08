package markdown

import (
	"slices"
	"testing"
)

// Only the whole-line comments that end a body are its markers: the same
// text in a code span, an indented code block, a fenced block followed by
// more text, or above the body's last text is not.
func TestEndMarkers(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"text\n\n<!-- a -->\n", []string{"<!-- a -->"}},
		{"text\n<!-- a -->\n<!-- b -->\r\n\n", []string{"<!-- a -->", "<!-- b -->"}},
		{"<!-- a -->", []string{"<!-- a -->"}},
		{"text `<!-- a -->`", nil},
		{"text\n  <!-- a -->\n", nil},
		{"```\n<!-- a -->\n```\n", nil},
		{"<!-- spoof -->\ntext\n\n<!-- real -->", []string{"<!-- real -->"}},
		{"text\n<!-- a --> <!-- b -->", nil},
		{"text\n<!-->", nil},
		{"", nil},
	} {
		if got := EndMarkers(tc.body); !slices.Equal(got, tc.want) {
			t.Errorf("EndMarkers(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}
