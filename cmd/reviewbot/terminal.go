package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// terminalWidth returns the width of w when it is a terminal.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		return 80, true // a terminal that will not say: the classic width
	}
	return width, true
}

// textOptions decides how text output looks: wrapped to the terminal,
// its markdown rendered and coloured when stdout is one, plain for pipes
// and files. --color always
// and never override; NO_COLOR (https://no-color.org) and TERM=dumb turn
// the automatic colour off.
func textOptions(stdout io.Writer, color string, verbose bool, getenv func(string) string) reviewer.TextOptions {
	o := reviewer.TextOptions{Verbose: verbose}
	width, tty := terminalWidth(stdout)
	if tty {
		// One column spare: some terminals wrap a line that fills the
		// last column.
		o.Width = max(width-1, 40)
		o.Render = true
	}
	switch color {
	case "always":
		o.Color = true
	case "never":
		o.Color = false
	default:
		o.Color = tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	}
	return o
}
