package recipe

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

const (
	evalRun   = "run_eval"
	evalStage = "append_lm_eval_summary"
	// sh020MinSiblings is how many sibling recipes must stage every eval
	// they run, and nine in ten of those that run one, before a break of
	// it is reported.
	sh020MinSiblings = 3
)

// SH020 reports an eval whose results are never staged.
var SH020 = &checks.Rule{
	ID:       "SH020",
	Severity: checks.Warning,
	Title:    "Eval run without staging its results",
	Doc: "`run_eval` (from `benchmark_lib.sh`) runs the accuracy eval against the server; " +
		"`append_lm_eval_summary` then writes the summary and metadata the workflow collects as the eval's " +
		"result. This rule reports a `run_eval` call the PR adds (or one whose `append_lm_eval_summary` it " +
		"deletes) that no `append_lm_eval_summary` follows on the same path, while at least nine in ten of the " +
		"sibling recipes of its directory and engine that run evals (and three or more) follow every call " +
		"with it: an eval-only run then finishes with no result to upload. Call `append_lm_eval_summary` after " +
		"the eval on every path that runs it, as the siblings do.",
	Run: runSH020,
}

// maxEvalCalls bounds the run_eval and append_lm_eval_summary calls of one
// script that are paired: real recipes have one or two of each, and a
// hostile one with thousands must not cost their product.
const maxEvalCalls = 32

// unstaged returns the run_eval calls of f that no later
// append_lm_eval_summary covers.
func unstaged(f *script.Facts) []script.Call {
	var runs, stages []script.Call
	for _, c := range f.LibCalls {
		switch {
		case c.Name == evalRun && len(runs) < maxEvalCalls:
			runs = append(runs, c)
		case c.Name == evalStage && len(stages) < maxEvalCalls:
			stages = append(stages, c)
		}
	}
	var out []script.Call
	for _, c := range runs {
		staged := false
		for _, a := range stages {
			if a.Line > c.Line && f.Covers(a.Branch, c.Branch) {
				staged = true
				break
			}
		}
		if !staged {
			out = append(out, c)
		}
	}
	return out
}

func runsEval(f *script.Facts) bool {
	_, ok := f.LibCall(evalRun)
	return ok
}

func runSH020(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		if len(s.Head.Servers) == 0 {
			continue
		}
		var mine []script.Call
		for _, c := range unstaged(s.Head) {
			// The PR introduces it: the call is a line it wrote, or the
			// base staged every eval it ran.
			if s.File.IsAdded(c.Line) || (s.Base != nil && runsEval(s.Base) && len(unstaged(s.Base)) == 0) {
				mine = append(mine, c)
			}
		}
		if len(mine) == 0 {
			continue
		}
		sibs, err := Siblings(p.Ctx, p.Change, s.Path)
		if err != nil {
			return err
		}
		var cites []checks.Location
		running, staging := 0, 0
		for _, sib := range sibs {
			if !runsEval(sib.Facts) {
				continue
			}
			running++
			if len(unstaged(sib.Facts)) > 0 {
				continue
			}
			staging++
			if a, ok := sib.Facts.LibCall(evalStage); ok && len(cites) < maxEvidence {
				cites = append(cites, sib.Loc(a.Line, 0, "stages its eval results"))
			}
		}
		if staging < sh020MinSiblings || staging*10 < running*9 {
			continue
		}
		for _, c := range mine {
			p.Report(sh020Finding(s, c, staging, running, cites))
		}
	}
	return nil
}

func sh020Finding(s *target, c script.Call, staging, running int, cites []checks.Location) checks.Finding {
	msg := fmt.Sprintf("The %s call on line %d is not followed by %s on its path, so the eval runs and its "+
		"results are never written where the workflow collects them: an eval-only run of this recipe ends with "+
		"nothing to upload. %d of %d sibling recipes in this directory that run evals stage the results after "+
		"every call. Call %s after %s here, as they do.",
		prose.Code(evalRun), c.Line, prose.Code(evalStage), staging, running, prose.Code(evalStage), prose.Code(evalRun))
	ex := &checks.Explain{}
	ex.Problem().Printf("%s runs without %s after it.", prose.Code(evalRun), prose.Code(evalStage))
	ex.Why().Printf("The summary %s writes is what the workflow uploads as the eval's result; without it the eval's "+
		"work is lost and the job reports no accuracy.", prose.Code(evalStage))
	ex.Fix().Printf("Add %s on the line after the eval.", prose.Code(evalStage))
	f := checks.Finding{
		Path:    s.Path,
		Line:    c.Line,
		Title:   fmt.Sprintf("%s results never staged with %s", prose.Code(evalRun), prose.Code(evalStage)),
		Body:    msg,
		Related: cites,
		Key:     "eval-not-staged",
		Facts:   []string{"call:" + evalStage},
	}
	if line := s.Head.LineText(c.Line); line != "" && !strings.HasSuffix(strings.TrimSpace(line), "\\") {
		f.Suggestion = &checks.Suggestion{Line: c.Line, EndLine: c.Line, Replacement: line + "\n" + indentOf(line) + evalStage}
	}
	ex.Apply(&f)
	return f
}
