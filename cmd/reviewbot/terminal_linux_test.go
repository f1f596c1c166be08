package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of the given width; the review writes to
// its terminal side as it would to a user's terminal.
func openPTY(t *testing.T, cols int) (tty *os.File, read func() string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: uint16(cols)}); err != nil {
		t.Skipf("set window size: %v", err)
	}
	// No echo or newline translation: read back exactly what was written.
	termios, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err == nil {
		termios.Oflag &^= unix.OPOST
		termios.Lflag &^= unix.ECHO | unix.ICANON
		_ = unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, termios)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				close(done)
				return
			}
		}
	}()
	return tty, func() string {
		tty.Close()
		<-done
		return out.String()
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// TestTextOnTerminal: on a terminal the text report is wrapped to its
// width and coloured; NO_COLOR and --color never turn the colour off.
func TestTextOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noColor string
		args    []string
		colour  bool
	}{
		{"auto", "", nil, true},
		{"NO_COLOR", "1", nil, false},
		{"never", "", []string{"--color", "never"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tc.noColor)
			t.Setenv("TERM", "xterm")
			tty, read := openPTY(t, 60)
			var stderr bytes.Buffer
			code := run(append([]string{"review", "--fixture", seed000}, tc.args...), tty, &stderr)
			out := read()
			if code != exitBlocking {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if strings.Contains(out, "\x1b[") != tc.colour {
				t.Errorf("colour %v, want %v:\n%q", !tc.colour, tc.colour, out)
			}
			plain := stripANSI(out)
			wrapped := 0
			for _, l := range strings.Split(plain, "\n") {
				// The header, the count line, the suggested replacement (code)
				// and a single word longer than the width stay whole.
				if columns(l) > 60 && !strings.HasPrefix(l, "perf-changelog.yaml:") && !strings.HasPrefix(l, "reviewbot:") &&
					!strings.HasPrefix(l, "          ") && len(strings.Fields(l)) > 1 {
					t.Errorf("line wider than the 60-column terminal: %q", l)
				}
				if strings.HasPrefix(l, "    ") {
					wrapped++
				}
			}
			if wrapped < 4 {
				t.Errorf("statement not wrapped:\n%s", plain)
			}
		})
	}
	// --verbose renders the reasoning's markdown on a terminal, colour or
	// not; a pipe gets it as written.
	for _, colour := range []string{"always", "never"} {
		tty, read := openPTY(t, 100)
		var stderr bytes.Buffer
		run([]string{"review", "--fixture", seed000, "--verbose", "--color", colour}, tty, &stderr)
		out := read()
		if !strings.Contains(out, "Why it matters.") || strings.Contains(out, "**") || strings.Contains(out, "```") {
			t.Errorf("--verbose --color %s on a terminal:\n%s", colour, out)
		}
	}
	if _, out, _ := runCLI(t, "review", "--fixture", seed000, "--verbose"); !strings.Contains(out, "**Why it matters.**") {
		t.Errorf("--verbose to a pipe:\n%s", out)
	}
	// A pipe gets neither wrapping nor colour.
	_, out, _ := runCLI(t, "review", "--fixture", seed000)
	if lines := strings.Split(out, "\n"); strings.Contains(out, "\x1b[") || len(lines) < 2 || len(lines[1]) < 100 {
		t.Errorf("piped output:\n%s", out)
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < '@' || s[j] > '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// columns is the display width of a line (the severity emoji take two).
func columns(s string) int {
	n := len([]rune(s))
	return n + strings.Count(s, "🔴") + strings.Count(s, "🟡")
}
