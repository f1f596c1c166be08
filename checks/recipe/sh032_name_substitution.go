package recipe

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH032 reports a command substitution that runs a variable's name as a
// program: `$(TOTAL_CPU_DRAM_GB)` where `$TOTAL_CPU_DRAM_GB` was meant,
// `$( ISL * 2 )` where `$(( ISL * 2 ))` was.
var SH032 = &checks.Rule{
	ID:       "SH032",
	Severity: checks.Blocking,
	Title:    "`$(NAME)` runs the variable's name as a command",
	Doc: "`$( )` runs a command and substitutes its output; `$(( ))` computes, and `$NAME` reads a variable. " +
		"`PARTITION_GB=\"$(TOTAL_CPU_DRAM_GB)\"` therefore runs a program called `TOTAL_CPU_DRAM_GB`, which does not " +
		"exist: bash prints `command not found` and the value is empty (under `set -e` the assignment stops the job), " +
		"and `$( ISL * 2 )` runs `ISL` with a glob and a number as its arguments. This rule reports a command " +
		"substitution, on a line the PR writes in a recipe or launcher, whose one command is a name in capitals " +
		"that the script does not define as a function, when its other words are arithmetic, or when the name is " +
		"a variable: the script sets or reads it, `benchmark_lib.sh` sets it, or a workflow or launcher names it. " +
		"Write `${NAME}` for the value, `$(( ... ))` for arithmetic, or `$($NAME ...)` to run the program the " +
		"variable names.",
	Run: runSH032,
}

// sh032MaxPerFile bounds the findings on one script.
const sh032MaxPerFile = 3

func runSH032(p *checks.Pass) error {
	scripts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	var env map[string]bool
	envRead := false
	for _, s := range scripts {
		lib := &scriptLib{p: p, s: s}
		n := 0
		seen := map[string]int{} // findings per name, for their keys
		for _, ns := range s.Head.NameSubsts {
			if n == sh032MaxPerFile {
				break
			}
			if !s.added(ns.Line) {
				continue
			}
			evidence := ""
			switch {
			case s.Head.Bound(ns.Name) || len(s.Head.VarsNamed(ns.Name)) > 0:
				evidence = "the script sets it"
			case len(s.Head.ReadsOf(ns.Name)) > 0:
				evidence = "the script reads it"
			default:
				sets, err := lib.sets(ns.Name)
				if err != nil {
					return err
				}
				if sets {
					evidence = "`benchmark_lib.sh` sets it"
					break
				}
				if !envRead {
					envRead = true
					if env, _, err = envWords(p.Ctx, p.Change); err != nil {
						return err
					}
				}
				if env[ns.Name] {
					evidence = "the workflows and launchers that start the job name it"
				}
			}
			if evidence == "" && !ns.Arith {
				continue
			}
			n++
			seen[ns.Name]++
			p.Report(sh032Finding(s, ns, evidence, seen[ns.Name]))
		}
	}
	return nil
}

func sh032Finding(s *target, ns script.NameSubst, evidence string, nth int) checks.Finding {
	name := prose.Code(ns.Name)
	var meant, fix, what string
	switch {
	case ns.Arith:
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(ns.Text, "$("), ")"))
		meant = "$(( " + inner + " ))"
		what = "arithmetic"
		fix = "Write " + prose.Code(meant) + " to compute it"
	case len(ns.Args) == 0:
		meant = "${" + ns.Name + "}"
		what = "the variable's value"
		fix = "Write " + prose.Code(meant) + " to read the variable"
	default:
		i := strings.Index(ns.Text, ns.Name)
		meant = ns.Text[:i] + "$" + ns.Text[i:]
		what = "running the program the variable names"
		fix = "Write " + prose.Code(meant) + " to run the program the variable names"
	}
	if ns.Backquoted {
		meant = ""
		if ns.Arith {
			fix = "Write `$(( ... ))` to compute it"
		} else if len(ns.Args) == 0 {
			fix = "Write " + prose.Code("${"+ns.Name+"}") + " to read the variable"
		}
	}
	known := ""
	if evidence != "" {
		known = fmt.Sprintf(" %s is a variable (%s), not a program.", name, evidence)
	}
	f := checks.Finding{
		Path:  s.Path,
		Line:  ns.Line,
		Title: fmt.Sprintf("%s runs %s as a command: %s was meant", prose.Code(ns.Text), name, what),
		Body: fmt.Sprintf("Line %d writes %s, a command substitution: bash runs a program called %s, finds none "+
			"(%s), and substitutes an empty string; under `set -e` an assignment from it stops the job.%s %s.",
			ns.Line, prose.Code(ns.Text), name, prose.Code(ns.Name+": command not found"), known, fix),
		Key: fmt.Sprintf("SH032 %s %d", ns.Name, nth),
	}
	if line := s.Head.LineText(ns.Line); meant != "" && strings.Count(line, ns.Text) == 1 {
		f.Suggestion = &checks.Suggestion{Line: ns.Line, EndLine: ns.Line, Replacement: strings.Replace(line, ns.Text, meant, 1)}
	}
	return f
}
