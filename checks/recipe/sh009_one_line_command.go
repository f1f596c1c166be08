package recipe

// The case in point: a real B200 recipe PR lost two tool-calling flags
// inside a one-line rewrite of the command.

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// sh009MinFlags is the number of options above which a one-line command
// is reported.
const sh009MinFlags = 3

// SH009 reports a server command with all its options on one line.
var SH009 = &checks.Rule{
	ID:       "SH009",
	Severity: checks.Warning,
	Title:    "Server command written on one line",
	Doc: "Recipes write the server command (`vllm serve`, `python3 -m sglang.launch_server`, ...) one " +
		"option per line, as array elements or with `\\` continuations, so a review diff shows exactly " +
		"which option a PR adds, changes or drops. This rule reports a server command the PR adds with " +
		"more than three options on a single line while the sibling recipes put one option per line, " +
		"and suggests the same command reformatted.",
	Run: runSH009,
}

func runSH009(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		for _, srv := range s.Head.Servers {
			n := writtenFlags(srv)
			if !srv.OneLine || n <= sh009MinFlags || !s.File.IsAdded(srv.Line) {
				continue
			}
			sibs, err := Siblings(p.Ctx, p.Change, s.Path)
			if err != nil {
				return err
			}
			var cites []checks.Location
			perLine, oneLine := 0, 0
			for _, sib := range sibs {
				for _, c := range sib.Facts.Servers {
					if c.Engine != srv.Engine || writtenFlags(c) <= sh009MinFlags {
						continue
					}
					if !onePerLine(c) {
						oneLine++
						continue
					}
					perLine++
					if len(cites) < maxEvidence {
						cites = append(cites, sib.Loc(c.Line, c.EndLine, "one option per line"))
					}
				}
			}
			if perLine < 2 || oneLine > 0 {
				continue
			}
			p.Report(sh009Finding(s, srv, n, perLine, cites))
		}
	}
	return nil
}

// writtenFlags counts the options written in the command's defining
// statement.
func writtenFlags(c *script.Command) int {
	n := 0
	for _, f := range c.Flags {
		if f.Via == "" && f.Line >= c.Line && f.Line <= c.EndLine {
			n++
		}
	}
	return n
}

// onePerLine reports whether no two written options share a line.
func onePerLine(c *script.Command) bool {
	seen := map[int]bool{}
	for _, f := range c.Flags {
		if f.Via != "" || f.Line < c.Line || f.Line > c.EndLine {
			continue
		}
		if seen[f.Line] {
			return false
		}
		seen[f.Line] = true
	}
	return len(seen) > 1
}

func sh009Finding(s *target, srv *script.Command, n, perLine int, cites []checks.Location) checks.Finding {
	form := "with `\\` continuations"
	if srv.Array != "" {
		form = "as elements of the " + prose.Code(srv.Array+"=(") + " array"
	}
	msg := fmt.Sprintf("The %s command on line %d has all %d of its options on one line, while the %d sibling %s recipes in this directory write one option per line. Write it one option per line %s, so that a later change to a single option shows up as a one-line diff.",
		prose.Code(srv.Program), srv.Line, n, perLine, srv.Engine, form)
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("Line %d holds the whole %s command with %d options. Every sibling recipe of this engine in the directory that has a comparable command writes it one option per line.\n\n", srv.Line, prose.Code(srv.Program), n)
	ex.Why()
	w("Review of these recipes is review of their flags. When the command is one line, any change to it (a new option, a changed value, an option lost while rewriting) shows up as the whole line replaced, and the reviewer has to diff it by eye. Flags dropped in exactly such rewrites have broken agentic runs before (the tool-calling flags of a B200 recipe). The layout also differs from every sibling, so the recipes can no longer be compared side by side.\n\n")
	ex.Fix()
	w("Reformat the command one option per line")
	if srv.Array != "" {
		w(" (one array element group per line, as the siblings' `VLLM_CMD=(` arrays do).")
	} else {
		w(" with `\\` continuations, as the siblings do.")
	}
	f := checks.Finding{
		Path:    s.Path,
		Line:    srv.Line,
		Title:   prose.Code(srv.Program) + " command with all its options on one line",
		Body:    msg,
		Related: cites,
		Key:     "one-line-server:" + srv.Program,
		Facts:   []string{"server:" + srv.Program},
	}
	if repl, ok := splitCommandLine(s.Head.LineText(srv.Line)); ok {
		f.Suggestion = &checks.Suggestion{Line: srv.Line, Replacement: repl}
	}
	ex.Apply(&f)
	return f
}

// splitCommandLine reformats a one-line command (a simple command, or an
// array assignment holding one) one option per line. ok is false for
// anything it does not fully understand: several statements, comments,
// redirections between the words.
func splitCommandLine(line string) (string, bool) {
	file, err := script.ParseLine(line + "\n")
	if err != nil || len(file.Stmts) != 1 || len(file.Last) > 0 {
		return "", false
	}
	st := file.Stmts[0]
	if len(st.Comments) > 0 {
		return "", false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return "", false
	}
	src := func(n syntax.Node) string {
		a, b := int(n.Pos().Offset()), int(n.End().Offset())
		if a < 0 || b > len(line) || a > b {
			return ""
		}
		return line[a:b]
	}
	indent := indentOf(line)
	inner := indent + "    "
	// An array assignment holding the command: VLLM_CMD=(vllm serve ...).
	if len(call.Args) == 0 && len(call.Assigns) == 1 && call.Assigns[0].Array != nil {
		as := call.Assigns[0]
		if len(st.Redirs) > 0 || st.Background || as.Name == nil {
			return "", false
		}
		var words []string
		for _, el := range as.Array.Elems {
			if el.Index != nil || el.Value == nil || len(el.Comments) > 0 {
				return "", false
			}
			words = append(words, src(el.Value))
		}
		op := "="
		if as.Append {
			op = "+="
		}
		groups := groupOptions(words)
		out := []string{indent + as.Name.Value + op + "("}
		for _, g := range groups {
			out = append(out, inner+g)
		}
		out = append(out, indent+")")
		return strings.Join(out, "\n"), true
	}
	if len(call.Args) == 0 {
		return "", false
	}
	lastEnd := int(call.Args[len(call.Args)-1].End().Offset())
	for _, r := range st.Redirs {
		if int(r.Pos().Offset()) < lastEnd {
			return "", false
		}
	}
	first := int(call.Pos().Offset())
	var words []string
	for _, w := range call.Args {
		words = append(words, src(w))
	}
	groups := groupOptions(words)
	if len(groups) < 2 {
		return "", false
	}
	// Environment prefixes stay in front of the program.
	prefix := ""
	if len(call.Assigns) > 0 {
		prefix = strings.TrimSpace(line[first:int(call.Args[0].Pos().Offset())]) + " "
	}
	tail := strings.TrimSpace(line[lastEnd:])
	out := []string{indent + prefix + groups[0] + ` \`}
	for i, g := range groups[1:] {
		l := inner + g
		if i < len(groups)-2 {
			l += ` \`
		} else if tail != "" {
			l += " " + tail
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), true
}

// groupOptions groups command words: the program and its positional
// arguments first, then each long option with the words up to the next
// one.
func groupOptions(words []string) []string {
	var groups []string
	var cur []string
	for _, w := range words {
		if strings.Contains(w, "[@]}") || strings.Contains(w, "[*]}") {
			// A spliced array goes on a line of its own.
			if len(cur) > 0 {
				groups = append(groups, strings.Join(cur, " "))
			}
			groups = append(groups, w)
			cur = nil
			continue
		}
		if strings.HasPrefix(w, "--") && len(cur) > 0 {
			groups = append(groups, strings.Join(cur, " "))
			cur = nil
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		groups = append(groups, strings.Join(cur, " "))
	}
	return groups
}
