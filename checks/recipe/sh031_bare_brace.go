package recipe

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH031 reports `{NAME}` written where `${NAME}` reads a variable.
var SH031 = &checks.Rule{
	ID:       "SH031",
	Severity: checks.Blocking,
	Title:    "`{NAME}` without its `$`: the text, not the variable's value",
	Doc: "Bash expands `${NAME}`; without the `$`, `{NAME}` is plain text (a brace expansion needs a comma or a " +
		"range), so `SGLANG_MORI_COMBINE_DTYPE={MORI_COMBINE_DTYPE_PREFILL}` hands the engine the string " +
		"`{MORI_COMBINE_DTYPE_PREFILL}` instead of the dtype. This rule reports a `{NAME}` group in capitals that no " +
		"`$` opens, on a line the PR writes, in a recipe or launcher, when NAME is a variable: the script assigns " +
		"or reads it, `benchmark_lib.sh` assigns it, or another file of the script's directory names it (the " +
		"environment file it sources). Left alone: heredoc bodies and single-quoted text (another program's " +
		"code), Python format strings, `{{NAME}}` templates, `\\${NAME}` escapes and brace expansions. Write " +
		"`${NAME}`.",
	Run: runSH031,
}

// sh031MaxPerFile bounds the findings on one script.
const sh031MaxPerFile = 3

// foreignFormat marks lines whose braces belong to another language's
// format strings.
var foreignFormat = []string{"print(", "f\"", "f'", ".format(", "python3 -c", "python -c", "jq ", "awk "}

func runSH031(p *checks.Pass) error {
	scripts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		var dirWords map[string]bool
		lib := &scriptLib{p: p, s: s}
		n := 0
		reported := map[string]bool{}
		seen := map[string]int{} // findings per name, for their keys
		for _, b := range s.Head.BareBraces {
			if n == sh031MaxPerFile {
				break
			}
			at := fmt.Sprintf("%s:%d", b.Name, b.Line)
			if reported[at] || !s.added(b.Line) {
				continue
			}
			text := s.Head.LineText(b.Line)
			if !strings.Contains(text, "{"+b.Name+"}") || containsAny(text, foreignFormat) {
				continue
			}
			evidence := ""
			switch {
			case s.Head.Bound(b.Name) || len(s.Head.VarsNamed(b.Name)) > 0 || len(s.Head.ReadsOf(b.Name)) > 0:
				evidence = "the script sets or reads it"
			default:
				sets, err := lib.sets(b.Name)
				if err != nil {
					return err
				}
				if sets {
					evidence = "`benchmark_lib.sh` sets it"
					break
				}
				if dirWords == nil {
					if dirWords, err = dirFileWords(p.Ctx, p.Change, s.Path); err != nil {
						return err
					}
				}
				if dirWords[b.Name] {
					evidence = "another file of " + prose.Code(path.Dir(s.Path)+"/") + " names it"
				}
			}
			if evidence == "" {
				continue
			}
			reported[at] = true
			seen[b.Name]++
			n++
			f := checks.Finding{
				Path:  s.Path,
				Line:  b.Line,
				Title: fmt.Sprintf("%s has no `$`: it passes the text, not the value", prose.Code("{"+b.Name+"}")),
				Body: fmt.Sprintf("Line %d writes %s, which bash leaves as written: without the `$` it is not an expansion "+
					"(and not a brace expansion, which needs a comma or a range), so the command gets the text %s instead of "+
					"the value of the variable %s (%s). Write %s.",
					b.Line, prose.Code("{"+b.Name+"}"), prose.Code("{"+b.Name+"}"), prose.Code(b.Name), evidence, prose.Code("${"+b.Name+"}")),
				Key: fmt.Sprintf("SH031 %s %d", b.Name, seen[b.Name]),
			}
			if !strings.Contains(text, "'") {
				f.Suggestion = &checks.Suggestion{Line: b.Line, EndLine: b.Line, Replacement: dollarBraces(text, b.Name)}
			}
			p.Report(f)
		}
	}
	return nil
}

// dollarBraces puts the missing $ before every {name} of line that no $
// or { opens.
func dollarBraces(line, name string) string {
	group := "{" + name + "}"
	var b strings.Builder
	for {
		i := strings.Index(line, group)
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		if i == 0 || line[i-1] != '$' && line[i-1] != '{' {
			b.WriteByte('$')
		}
		b.WriteString(group)
		line = line[i+len(group):]
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// scriptLib is the benchmark_lib.sh a script under review sources, read
// on first use (most scripts never need it).
type scriptLib struct {
	p    *checks.Pass
	s    *target
	read bool
	lib  *script.Facts
}

// sets reports whether the library assigns name.
func (l *scriptLib) sets(name string) (bool, error) {
	if !l.read {
		l.read = true
		lib, ok, err := libOf(l.p, l.s.Head, l.s.Path, HeadFacts)
		if err != nil {
			return false, err
		}
		if ok {
			l.lib = lib
		}
	}
	return l.lib != nil && (l.lib.Bound(name) || len(l.lib.VarsNamed(name)) > 0), nil
}

// dirFileWords are the identifier words of the other files of p's
// directory in the head tree (an environment file the script sources, a
// sibling that exports the variable); nil when the directory cannot be
// listed.
func dirFileWords(ctx context.Context, ch *checks.Change, p string) (map[string]bool, error) {
	dir := path.Dir(p)
	entries, err := checks.GlobFiles(ctx, ch.Head, []string{dir + "/*"})
	if err != nil {
		return nil, err
	}
	// An unreadable sibling only takes evidence away.
	words, _ := fileWords(ctx, ch, entries, p)
	return words, nil
}
