package script

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Runners often run their steps on the allocated node as one string:
// srun --jobid="$JOB_ID" bash -c "... enroot import -o \"$SQSH\" docker://$IMAGE ...".
// The string is shell code the outer shell hands over; what it does is as
// much the runner's as a top-level command. Its container-image facts are
// read by parsing the string (with the outer expansions kept as written,
// which the inner shell sees as its own), one level deep.

// maxNestedScript bounds the string parsed as a nested script.
const maxNestedScript = 64 << 10

// nestedScript returns the script of a `bash -c SCRIPT` / `sh -c SCRIPT`
// in argv (after wrappers such as srun), and the index of its word.
func nestedScript(argv []string) (string, int, bool) {
	for i := 0; i+2 < len(argv); i++ {
		switch baseName(argv[i]) {
		case "bash", "sh", "dash", "zsh":
		default:
			continue
		}
		for j := i + 1; j < len(argv); j++ {
			a := argv[j]
			if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
				break
			}
			// -c, -lc, -ec, -xc, -euxc: a short-option cluster holding c.
			if strings.ContainsRune(a[1:], 'c') && j+1 < len(argv) {
				return argv[j+1], j + 1, true
			}
		}
	}
	return "", 0, false
}

// nestedImages records the container-image uses of a nested script whose
// first line is line of the outer script.
func (x *extractor) nestedImages(script string, line int, p Branch, rec *callRec) {
	if len(script) > maxNestedScript {
		return
	}
	if !strings.Contains(script, "enroot") && !strings.Contains(script, "--container-image") &&
		!strings.Contains(script, "docker") && !strings.Contains(script, "podman") {
		return
	}
	file, err := parseFile("", []byte(script), syntax.Variant(syntax.LangBash))
	if err != nil {
		return // not shell the bot can read; unknown, so no facts
	}
	printer := syntax.NewPrinter()
	var buf bytes.Buffer
	syntax.Walk(file, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		argv := make([]string, len(c.Args))
		for i, w := range c.Args {
			if lit := w.Lit(); lit != "" {
				argv[i] = lit
				continue
			}
			buf.Reset()
			if err := printer.Print(&buf, w); err != nil {
				return true
			}
			argv[i] = unquoteWord(buf.String())
		}
		inner := *rec
		inner.line = line + int(c.Pos().Line()) - 1
		x.imageFacts(argv, p, &inner, false)
		return true
	})
}

// unquoteWord drops the quotes of a printed word ("$SQSH" → $SQSH), as the
// outer script's words are compared unquoted.
func unquoteWord(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			continue
		case '\\':
			if i+1 < len(s) {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
