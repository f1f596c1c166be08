package recipe

// SH014: a recipe or runner that does not parse.
//
// A script bash cannot parse fails every sweep point before anything
// starts. The other recipe rules skip such a file (their facts would be
// nonsense); every other file of the PR is still reviewed.

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH014 reports a recipe or runner that does not parse.
var SH014 = &checks.Rule{
	ID:       "SH014",
	Severity: checks.Blocking,
	Title:    "Script does not parse",
	Doc: "A recipe or runner that bash cannot parse fails every sweep point that uses it, before the " +
		"server starts. This rule reports the position and message of the shell parser for a recipe or " +
		"runner the PR adds or changes (an unclosed `case`, `if`, quote or heredoc, a stray `fi`, ...). " +
		"Run `bash -n` on the script to reproduce. The other recipe rules skip the file until it parses.",
	Run: runSH014,
}

func runSH014(p *checks.Pass) error {
	ch := p.Change
	cfg := config(p.Ctx, ch)
	for _, fc := range ch.Files {
		if fc.Status == checks.Deleted || fc.Binary || !fc.Changed() || !(cfg.IsRecipe(fc.Path) || cfg.IsRunner(fc.Path)) {
			continue
		}
		_, err := HeadFacts(p.Ctx, ch, fc.Path)
		if err == nil {
			continue
		}
		pe, ok := err.(*script.ParseError)
		if !ok {
			return err
		}
		// A parse error the base version already had, away from the lines
		// the PR changed, is not this PR's doing.
		if _, berr := BaseFacts(p.Ctx, ch, fc.Path); script.IsParseError(berr) && !fc.IsAdded(pe.Line) {
			continue
		}
		p.Report(sh014Finding(p, fc, pe))
	}
	return nil
}

// sh014Hint explains common parser messages.
func sh014Hint(pe *script.ParseError) string {
	m := strings.ToLower(pe.Msg)
	switch {
	case strings.Contains(m, "case pattern"):
		return "This usually means a `case` statement above is missing its `esac`, so the lines after its last arm are read as more case patterns."
	case strings.Contains(m, "esac"):
		return "A `case` statement is never closed: every arm needs its `;;` and the statement its `esac`."
	case strings.Contains(m, `"fi"`) || strings.Contains(m, "fi"+`"`):
		return "An `if` is never closed with `fi`."
	case strings.Contains(m, `"done"`):
		return "A loop is never closed with `done`."
	case strings.Contains(m, "quote"):
		return "A quote is opened and never closed; everything after it is read as one string."
	case strings.Contains(m, "heredoc") || strings.Contains(m, "here-document"):
		return "A heredoc's closing delimiter is missing or indented (only `<<-` allows leading tabs)."
	case pe.Incomplete:
		return "The script ends in the middle of a construct that was opened earlier."
	}
	return ""
}

func sh014Finding(p *checks.Pass, fc *checks.FileChange, pe *script.ParseError) checks.Finding {
	kind := "recipe"
	if config(p.Ctx, p.Change).IsRunner(fc.Path) {
		kind = "runner"
	}
	hint := sh014Hint(pe)
	msg := fmt.Sprintf("This %s does not parse: line %d, column %d: %s. bash rejects the whole script, so every sweep point that runs it fails before the server starts.",
		kind, pe.Line, pe.Column, pe.Msg)
	if hint != "" {
		msg += " " + hint
	}
	msg += " Fix the syntax (`bash -n " + fc.Path + "` reproduces the error)."
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("The shell parser stops at line %d, column %d: %s.", pe.Line, pe.Column, prose.Code(pe.Msg))
	if hint != "" {
		w(" %s", hint)
	}
	if pe.Incomplete {
		w(" The script ends before the construct is closed, so the position is where that construct starts or where the file ends.")
	}
	ex.Why()
	w("bash reads and runs a script one complete command at a time; when it reaches the broken construct it stops with a syntax error. Everything from there on — in a recipe usually the server launch and the benchmark client — never runs, so every sweep point that uses the script fails. Nothing in CI runs `bash -n` on recipes.")
	ex.Note("Why the other rules are silent")
	w("The other recipe rules skipped this file because its facts cannot be trusted until it parses; they will review it on the next push. Other files of this PR were reviewed normally.")
	ex.Fix()
	w("Close or remove the construct the parser points at and check with `bash -n`.")
	f := checks.Finding{
		Path:  fc.Path,
		Line:  pe.Line,
		Title: kind + " does not parse",
		Body:  msg,
		Key:   "parse-error:" + pe.Msg,
	}
	ex.Apply(&f)
	return f
}
