package recipe

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH024 reports a pipeline in a `bash -c` script the PR writes that runs
// without pipefail, where another embedded script of the same file sets it.
var SH024 = &checks.Rule{
	ID:       "SH024",
	Severity: checks.Warning,
	Title:    "Pipeline in an embedded bash -c script runs without pipefail",
	Doc: "Launchers and multi-node recipes run scripts on other nodes as strings (`srun ... bash -c \"...\"`, " +
		"`ssh host bash -c '...'`). The child bash starts with none of the calling script's options: its " +
		"`set -euo pipefail` does not reach it, so a pipeline inside returns the status of its last command " +
		"(`tar ... | base64` succeeds when `tar` fails, and the caller captures an empty or truncated payload). " +
		"This rule reports a pipeline in a `bash -c` script on a line the PR writes, when that script does not " +
		"turn pipefail on (`set -o pipefail`, `set -euo pipefail`, `bash -o pipefail -c`) and another embedded " +
		"script of the same file, or of a batch script the file writes in a heredoc, does: the file's own convention. A `bash -c` whose failure is waved through " +
		"(`|| true`) is not reported. Start the script with `set -euo pipefail` as the other one does.",
	Run: runSH024,
}

// maxEmbeddedScripts bounds the bash -c scripts read from one file.
const maxEmbeddedScripts = 64

// embedded is a bash -c script of a file.
type embedded struct {
	line     int // the outer line the script starts on
	pipefail bool
	pipe     *syntax.BinaryCmd // the first pipeline, nil when none
	pipeLine int               // its outer line
	ignored  bool              // its failure is waved through (|| true)
	prog     string            // bash, sh
}

func runSH024(p *checks.Pass) error {
	ts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, t := range ts {
		src, err := p.Change.Head.ReadFile(p.Ctx, t.Path)
		if err != nil {
			if checks.IsNotExist(err) {
				continue
			}
			return err
		}
		if !bytes.Contains(src, []byte(" -c")) {
			continue
		}
		file, err := script.ParseScript(t.Path, src, false)
		if err != nil {
			continue // SH014 reports a script that does not parse
		}
		scripts := embeddedScripts(t.Path, file)
		var evidence *embedded
		for _, e := range scripts {
			if e.pipefail {
				evidence = e
				break
			}
		}
		if evidence == nil {
			continue
		}
		for _, e := range scripts {
			if e.pipe == nil || e.pipefail || e.ignored || !t.added(e.pipeLine) {
				continue
			}
			p.Report(sh024Finding(t, e, evidence))
		}
	}
	return nil
}

// embeddedScripts finds the bash -c scripts of a file, at most
// maxEmbeddedScripts, in source order; also those of a script the file
// writes in a heredoc (a batch script), one level down.
func embeddedScripts(p string, file *syntax.File) []*embedded {
	return embeddedIn(p, file, 0, 0)
}

// embeddedIn is embeddedScripts for a script whose line 1 is the file's
// line off+1, depth heredocs down.
func embeddedIn(p string, file *syntax.File, off, depth int) []*embedded {
	var out []*embedded
	// Calls whose failure an `|| true` (or `|| :`) waves through.
	waved := map[*syntax.CallExpr]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		if len(out) >= maxEmbeddedScripts {
			return false
		}
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.OrStmt && isNoop(n.Y) {
				syntax.Walk(n.X, func(m syntax.Node) bool {
					if c, ok := m.(*syntax.CallExpr); ok {
						waved[c] = true
					}
					return true
				})
			}
		case *syntax.CallExpr:
			if e := embeddedOf(p, n); e != nil {
				e.ignored = waved[n]
				e.line += off
				e.pipeLine += off
				out = append(out, e)
			}
		case *syntax.Redirect:
			if depth > 0 || n.Hdoc == nil || (n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc) {
				break
			}
			text, ok := wordScript(n.Hdoc)
			if !ok || !strings.Contains(text, " -c") {
				break
			}
			// An unquoted heredoc undoes the same escapes double quotes do.
			if inner, err := script.ParseScript(p+" (heredoc)", []byte(unescapeDouble(text)), false); err == nil {
				start := off + int(n.Hdoc.Pos().Line()) - 1
				for _, e := range embeddedIn(p, inner, start, depth+1) {
					if len(out) < maxEmbeddedScripts {
						out = append(out, e)
					}
				}
			}
		}
		return true
	})
	return out
}

// isNoop reports whether a statement is `true` or `:`.
func isNoop(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) != 1 {
		return false
	}
	w := c.Args[0].Lit()
	return w == "true" || w == ":"
}

// embeddedOf reads the bash -c script of a call, nil when the call runs
// none (or one the bot cannot read as text).
func embeddedOf(p string, c *syntax.CallExpr) *embedded {
	for i, a := range c.Args {
		prog := path.Base(a.Lit())
		if prog != "bash" && prog != "sh" {
			continue
		}
		e := &embedded{prog: prog}
		for j := i + 1; j < len(c.Args); j++ {
			opt := c.Args[j].Lit()
			switch {
			case opt == "-o" && j+1 < len(c.Args) && c.Args[j+1].Lit() == "pipefail":
				e.pipefail = true
				j++
			case strings.HasPrefix(opt, "-") && !strings.HasPrefix(opt, "--") && strings.Contains(opt, "c"):
				if j+1 >= len(c.Args) {
					return nil
				}
				w := c.Args[j+1]
				text, ok := wordScript(w)
				if !ok {
					return nil
				}
				e.line = int(w.Pos().Line())
				inner, err := script.ParseScript(p+" (bash -c)", []byte(text), false)
				if err != nil {
					return nil
				}
				readEmbedded(e, inner)
				return e
			case strings.HasPrefix(opt, "-"):
			default:
				return nil // a script file, not a string
			}
		}
		return nil
	}
	return nil
}

// readEmbedded records whether an embedded script turns pipefail on and
// its first pipeline.
func readEmbedded(e *embedded, inner *syntax.File) {
	syntax.Walk(inner, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 1 && n.Args[0].Lit() == "set" {
				for _, a := range n.Args[1:] {
					if a.Lit() == "pipefail" {
						e.pipefail = true
					}
				}
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && e.pipe == nil {
				e.pipe = n
				e.pipeLine = e.line + int(n.OpPos.Line()) - 1
			}
		}
		return true
	})
}

// wordScript is the text a word passes as a script: single-quoted text as
// written, double-quoted text unescaped with its expansions as written.
func wordScript(w *syntax.Word) (string, bool) {
	var b strings.Builder
	pr := syntax.NewPrinter()
	for _, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.SglQuoted:
			if part.Dollar {
				return "", false
			}
			b.WriteString(part.Value)
		case *syntax.DblQuoted:
			for _, q := range part.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
					continue
				}
				if err := pr.Print(&b, q); err != nil {
					return "", false
				}
			}
		case *syntax.Lit:
			b.WriteString(part.Value)
		default:
			if err := pr.Print(&b, part); err != nil {
				return "", false
			}
		}
	}
	return b.String(), true
}

// unescapeDouble undoes the backslash escapes of double-quoted text.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '$', '`':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sideName is the program a side of a pipeline runs ("" when unknown).
func sideName(s *syntax.Stmt) string {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			return path.Base(c.Args[0].Lit())
		}
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return sideName(c.Y)
		}
	}
	return ""
}

func sh024Finding(t *target, e, evidence *embedded) checks.Finding {
	left, right := sideName(e.pipe.X), sideName(e.pipe.Y)
	what := "a pipeline"
	if left != "" && right != "" {
		what = fmt.Sprintf("%s into %s", prose.Code(left), prose.Code(right))
	}
	msg := fmt.Sprintf("The `%s -c` script on line %d pipes %s without pipefail. The child %s starts with none of "+
		"this script's options, so the pipeline's status is that of its last command: when %s fails, the "+
		"script still succeeds and its caller goes on with empty or partial output. The embedded script on line %d "+
		"turns pipefail on; start this one with `set -euo pipefail` as well.",
		e.prog, e.pipeLine, what, e.prog, orName(left, "an earlier command"), evidence.line)
	ex := &checks.Explain{}
	ex.Problem().Printf("A pipeline in the `%s -c` script on line %d runs without pipefail.", e.prog, e.pipeLine)
	ex.Why().Printf("Options such as `set -o pipefail` are not inherited by a new shell; only the embedded script itself can turn them on, as the one on line %d does.", evidence.line)
	ex.Fix().Printf("Begin the embedded script with `set -euo pipefail;`.")
	f := checks.Finding{
		Path:    t.Path,
		Line:    e.pipeLine,
		Title:   fmt.Sprintf("`%s -c` script pipes %s without pipefail", e.prog, what),
		Body:    msg,
		Related: []checks.Location{headLoc(t.Path, evidence.line, 0, "this embedded script sets pipefail")},
		Key:     fmt.Sprintf("embedded-pipefail:%s:%s", left, right),
	}
	ex.Apply(&f)
	return f
}

// orName is s, or else when s is empty, with s in code.
func orName(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return prose.Code(s)
}
