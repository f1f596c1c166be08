package recipe

import (
	"fmt"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

const (
	evalSetup = "setup_eval_context"
	evalLen   = "EVAL_MAX_MODEL_LEN"
	// sh016MinSiblings is how many sibling recipes must show the
	// convention, and nine in ten of those that call the helper, before a
	// break of it is reported.
	sh016MinSiblings = 3
)

// SH016 reports an eval context length computed and never passed on.
var SH016 = &checks.Rule{
	ID:       "SH016",
	Severity: checks.Warning,
	Title:    "Eval context length computed but never passed to the server",
	Doc: "For eval-only runs a recipe calls `setup_eval_context` (from `benchmark_lib.sh`), which computes the " +
		"context length the eval needs into `EVAL_MAX_MODEL_LEN`; the recipe then starts the server with it " +
		"(`--max-model-len`, `--context-length`, or an `EVAL_CONTEXT_ARGS` the command splices). This rule reports a " +
		"recipe the PR adds or changes that calls `setup_eval_context` but never reads `EVAL_MAX_MODEL_LEN`, while " +
		"at least nine in ten of the sibling recipes of its directory and engine that call it (and three or more) pass it on: the eval then runs with the " +
		"model's native context window (more KV-cache memory, a different setup than the one it vouches for). " +
		"Pass the value to the server as the siblings do, or drop the call.",
	Run: runSH016,
}

func runSH016(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		call, ok := s.Head.LibCall(evalSetup)
		if !ok || len(s.Head.ReadsOf(evalLen)) > 0 || len(s.Head.Servers) == 0 {
			continue
		}
		if s.Base != nil {
			if _, had := s.Base.LibCall(evalSetup); had && len(s.Base.ReadsOf(evalLen)) == 0 {
				continue // so before this PR
			}
		}
		sibs, err := Siblings(p.Ctx, p.Change, s.Path)
		if err != nil {
			return err
		}
		var cites []checks.Location
		calling, passing := 0, 0
		for _, sib := range sibs {
			if _, ok := sib.Facts.LibCall(evalSetup); !ok {
				continue
			}
			calling++
			reads := sib.Facts.ReadsOf(evalLen)
			if len(reads) == 0 {
				continue
			}
			passing++
			if len(cites) < maxEvidence {
				cites = append(cites, sib.Loc(reads[0].Line, 0, "passes "+evalLen+" on"))
			}
		}
		if passing < sh016MinSiblings || passing*10 < calling*9 {
			continue
		}
		p.Report(sh016Finding(s, call, s.Head.Servers[0], passing, calling, cites))
	}
	return nil
}

func sh016Finding(s *target, call script.Call, srv *script.Command, siblings, calling int, cites []checks.Location) checks.Finding {
	msg := fmt.Sprintf("This recipe calls %s (line %d), which computes the eval's context length into %s, but never "+
		"reads it: the %s command (line %d) starts without it, so eval-only runs use the model's native context "+
		"window. %s of the sibling recipes in this directory that call %s pass it to their server. Pass %s on (as "+
		"%s or %s), or drop the call.",
		prose.Code(evalSetup), call.Line, prose.Code(evalLen), prose.Code(srv.Program), srv.Line,
		fmt.Sprintf("%d of %d", siblings, calling), prose.Code(evalSetup), prose.Code("$"+evalLen),
		prose.Code("--max-model-len"), prose.Code("--context-length"))
	ex := &checks.Explain{}
	ex.Problem().Printf("%s sets %s and nothing reads it.", prose.Code(evalSetup), prose.Code(evalLen))
	ex.Why().Printf("The value is the context the eval prompts need; without it the server sizes its KV cache for the " +
		"model's full window, which can fail to start or run the eval with another memory setup than the benchmark.")
	ex.Fix().Printf("Start the server with the value on the eval-only path, as the siblings do.")
	f := checks.Finding{
		Path:    s.Path,
		Line:    srv.Line,
		Title:   fmt.Sprintf("%s computed by %s but never used", prose.Code(evalLen), prose.Code(evalSetup)),
		Body:    msg,
		Related: append([]checks.Location{{Path: s.Path, Line: call.Line, Note: "calls " + evalSetup}}, cites...),
		Key:     "eval-context-unused",
		Facts:   []string{"server:" + srv.Program},
	}
	ex.Apply(&f)
	return f
}
