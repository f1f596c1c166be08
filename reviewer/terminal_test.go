package reviewer

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// On a terminal the markdown of a finding is rendered: no ** or fences
// are left, code keeps its backticks without colour and is coloured with
// it, and wrapping measures what is visible.
func TestTerminalRendering(t *testing.T) {
	f := checks.Finding{Rule: "SH001", Severity: checks.Warning, Path: "a.sh", Line: 2, Title: "t",
		Body:    "Line 2 runs `set -eo pipefail`, see [the docs](https://example.com/x).",
		Problem: "The **strict** line lost `-u`.",
		Fix:     "```bash\nset -euo pipefail\n```"}
	for _, tc := range []struct {
		name string
		o    TextOptions
		want []string
		not  []string
	}{
		{"raw for a pipe", TextOptions{Verbose: true},
			[]string{"`set -eo pipefail`", "[the docs](https://example.com/x)", "**The problem.**", "```bash"}, nil},
		{"terminal without colour", TextOptions{Verbose: true, Render: true, Width: 200},
			[]string{"Line 2 runs `set -eo pipefail`, see the docs (https://example.com/x).", "    The problem. The strict line lost `-u`.",
				"    Fix.\n\n        set -euo pipefail\n"},
			[]string{"**", "```", "\x1b["}},
		{"terminal with colour", TextOptions{Verbose: true, Render: true, Color: true, Width: 200},
			[]string{"runs \x1b[36mset -eo pipefail\x1b[0m, see", "\x1b[1mThe problem.\x1b[0m The \x1b[1mstrict\x1b[0m line lost \x1b[36m-u\x1b[0m."},
			[]string{"**", "```", "`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteFindingText(&b, f, tc.o); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("has %q:\n%s", n, b.String())
				}
			}
		})
	}
	// Colour codes take no columns: a coloured line wraps where a plain one does.
	plain := wrapLines("aaaa `bbbb` cccc dddd", 16, "", "")
	coloured := wrapLines(terminalInline("aaaa `bbbb` cccc dddd", TextOptions{Color: true}), 16, "", "")
	if len(plain) != len(coloured) {
		t.Errorf("plain %q, coloured %q", plain, coloured)
	}
}
