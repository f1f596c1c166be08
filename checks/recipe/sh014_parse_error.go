package recipe

// The other recipe rules skip a file that does not parse (their facts would
// be nonsense), so this rule is the only one to speak for it.

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
		"Run `bash -n` on the script to reproduce. The other recipe rules skip the file until it parses. " +
		"It also reports a recipe or runner the reviewer does not parse at all, so no rule reviewed it: " +
		"a binary file at a script's path (bash cannot run it either), a script larger than 1 MiB, or one " +
		"nested deeper than the reviewer's parser may recurse (the finding names the line where it stopped).",
	Run: runSH014,
}

func runSH014(p *checks.Pass) error {
	ch := p.Change
	cfg := ch.Settings(p.Ctx)
	for _, fc := range ch.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || !(cfg.IsRecipe(fc.Path) || cfg.IsRunner(fc.Path)) {
			continue
		}
		if fc.Binary {
			// The diff already says so; the content may not even reach
			// the parser's NUL check (git and GitHub look further).
			p.Report(sh014LimitFinding(p, fc, &script.ParseError{Path: fc.Path, Limit: script.Binary}))
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
		if pe.Limit != script.NoLimit {
			p.Report(sh014LimitFinding(p, fc, pe))
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

// scriptKind names what fc is to the reader: a recipe or a runner.
func scriptKind(p *checks.Pass, fc *checks.FileChange) string {
	if p.Change.Settings(p.Ctx).IsRunner(fc.Path) {
		return "runner"
	}
	return "recipe"
}

func sh014Finding(p *checks.Pass, fc *checks.FileChange, pe *script.ParseError) checks.Finding {
	kind := scriptKind(p, fc)
	hint := sh014Hint(pe)
	msg := fmt.Sprintf("This %s does not parse: line %d, column %d: %s. bash rejects the whole script, so every sweep point that runs it fails before the server starts.",
		kind, pe.Line, pe.Column, prose.Code(pe.Msg))
	if hint != "" {
		msg += " " + hint
	}
	msg += " Fix the syntax (" + prose.Code("bash -n "+fc.Path) + " reproduces the error)."
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

// sh014LimitFinding reports a script the reviewer did not parse: binary,
// too large or too deeply nested. A binary file has no line to comment
// on, so its finding names the file only (the summary lists it).
func sh014LimitFinding(p *checks.Pass, fc *checks.FileChange, pe *script.ParseError) checks.Finding {
	kind := scriptKind(p, fc)
	ex := &checks.Explain{}
	w := ex.Printf
	f := checks.Finding{Path: fc.Path, Key: "limit:" + pe.Limit.String()}
	switch pe.Limit {
	case script.Binary:
		f.Title = kind + " is a binary file"
		f.Body = fmt.Sprintf("This %s is a binary file, not a shell script: bash cannot run it, so every sweep point that uses it fails before the server starts. Restore the script, or move the file out of the %s path.", kind, kind)
		ex.Problem()
		w("The PR leaves binary content (NUL bytes, or a diff git and GitHub call binary) at %s, where the sweep runs a bash script.", prose.Code(fc.Path))
		ex.Why()
		w("The benchmark job runs the file with bash; bash stops at the first bytes it cannot read as shell, so every sweep point that uses this %s fails, and no rule could review what it would have done.", kind)
		ex.Fix()
		w("Commit the script as text (check the editor or tool that wrote it), or keep binary files out of the paths the sweep runs.")
	case script.TooLarge:
		f.Line = 1
		f.Title = kind + " too large to review"
		f.Body = fmt.Sprintf("This %s was not reviewed: %s. No recipe rule read it. Recipes are a few KiB; split generated content out of the script.", kind, pe.Msg)
		ex.Problem()
		w("%s.", strings.ToUpper(pe.Msg[:1])+pe.Msg[1:])
		ex.Why()
		w("Parsing and judging a script costs time and memory in proportion to its size, and the reviewer bounds both per review. Nothing in this file was checked, so a defect in it would pass unseen.")
		ex.Fix()
		w("Keep recipes to the commands they run; move data (configs, prompts, patches) to files the recipe reads.")
	default:
		f.Line = pe.Line
		f.Title = kind + " too deeply nested to review"
		f.Body = fmt.Sprintf("This %s was not reviewed: it is %s. No recipe rule read it. Real recipes nest a few levels; flatten the script.", kind, pe.Msg)
		ex.Problem()
		w("The script is %s.", pe.Msg)
		ex.Why()
		w("The reviewer's shell parser recurses once per level of nesting; past its bound it stops rather than exhaust its stack, so nothing in this file was checked. bash itself may refuse such a script or crash on it.")
		ex.Fix()
		w("Flatten the nesting: functions, early exits and arrays keep a recipe a few levels deep.")
	}
	ex.Note("Why the other rules are silent")
	w("The other recipe rules did not review this file either. Other files of this PR were reviewed normally.")
	ex.Apply(&f)
	return f
}
