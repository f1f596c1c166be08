package recipe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH022 reports a server option a recipe lacks that every other recipe of
// its model family passes, where the PR adds the recipe, deletes the
// option or rewrites the very command that lacks it.
var SH022 = &checks.Rule{
	ID:       "SH022",
	Severity: checks.Warning,
	Title:    "Server option every recipe of the model family passes is missing",
	Doc: "The recipes of one model family (as SH018 groups them: same model prefix, directory and engine, " +
		"with or without speculative decoding alike) start the server the same way on every GPU; an option all " +
		"of them pass (`--cuda-graph-max-bs` next to `--max-running-requests` in every Qwen3.5 SGLang recipe) is " +
		"how the family sizes or shapes that server, and a recipe without it runs the engine's default there. " +
		"This rule reports a server option missing from a recipe when at least three other recipes of the " +
		"family pass it, on both NVIDIA and AMD GPUs, and the PR is the moment to notice: it adds the recipe, " +
		"deletes the option from it, or adds another option to the same server command. An option the PR deletes " +
		"is reported where it was, and also when the family runs on one vendor's GPUs only. It stays silent when " +
		"the recipe's command splices an array it cannot resolve, when a comment in the recipe names the " +
		"option, for the parallel layout (data parallelism, DP attention, expert parallelism: each recipe's own choice), for JSON-valued options (a choice CV001 weighs) unless the PR deletes one, and for the output " +
		"parsers: SH006 judges the tool-calling flags of agentic recipes, and elsewhere only the deletion of a parser " +
		"is reported. Pass the option as the siblings do, or say in a " +
		"comment why this recipe does not.",
	Run: runSH022,
}

// sh022Parsers are the output parsers of a server: SH006 judges the
// tool-calling ones in agentic recipes (agentic is set), and a benchmark of
// random prompts may not need any, so elsewhere only their deletion is
// reported.
var sh022Parsers = map[string]struct{ agentic bool }{
	"--tool-call-parser":        {agentic: true},
	"--enable-auto-tool-choice": {agentic: true},
	"--reasoning-parser":        {},
}

// optionAliases are the short spellings the engines accept for an option,
// by the long name they stand for.
var optionAliases = map[string]string{
	"--tp":      "--tensor-parallel-size",
	"--tp-size": "--tensor-parallel-size",
	"-tp":       "--tensor-parallel-size",
	"--dp":      "--data-parallel-size",
	"--dp-size": "--data-parallel-size",
	"-dp":       "--data-parallel-size",
	"--pp":      "--pipeline-parallel-size",
	"--pp-size": "--pipeline-parallel-size",
	"-pp":       "--pipeline-parallel-size",
	"--ep":      "--expert-parallel-size",
	"--ep-size": "--expert-parallel-size",
}

// plumbing are options that say where the server listens, what it calls
// the model and what it logs: how a recipe wires its client to its server,
// not how the engine serves, so a family's agreement on them is no
// convention of the engine's. The parallel layout (data parallelism, DP
// attention, expert parallelism) is each recipe's own choice too: a
// recipe without a DP-attention arm is not missing its options.
var plumbing = map[string]bool{
	"--host": true, "--port": true, "--served-model-name": true,
	"--disable-log-requests": true, "--disable-log-stats": true, "--enable-log-requests": true,
	"--log-level": true, "--uvicorn-log-level": true,
	"--data-parallel-size": true, "--enable-dp-attention": true, "--enable-expert-parallel": true,
	"--expert-parallel-size": true, "--enable-dp-lm-head": true, "--pipeline-parallel-size": true,
}

// serverOptions are the options a script's server commands pass, by
// normalized name (aliases by the long name, SGLang's --model as
// --model-path), with the first occurrence of each; opaque is set when a
// command splices an array the facts could not resolve.
func serverOptions(f *script.Facts) (opts map[string]script.Flag, opaque bool) {
	opts = map[string]script.Flag{}
	for _, c := range f.Servers {
		if len(c.Opaque) > 0 {
			opaque = true
		}
		for _, fl := range c.Flags {
			n := script.NormFlag(fl.Name)
			if long, ok := optionAliases[n]; ok {
				n = long
			} else if n == "--model" && f.Engine == script.SGLang {
				n = "--model-path"
			}
			if !strings.HasPrefix(n, "--") || plumbing[n] {
				continue
			}
			if _, ok := opts[n]; !ok {
				opts[n] = fl
			}
		}
	}
	return opts, opaque
}

// passesEither reports whether the options hold the option or its
// negation ("--no-enable-prefix-caching" answers "--enable-prefix-caching"
// and the other way round): either way the recipe made its choice.
func passesEither(opts map[string]script.Flag, name string) bool {
	if _, ok := opts[name]; ok {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "--no-"); ok {
		_, ok = opts["--"+rest]
		return ok
	}
	_, ok := opts["--no-"+strings.TrimPrefix(name, "--")]
	return ok
}

// familyOption is an option the family passes and the recipe lacks.
type familyOption struct {
	name    string
	passers []familyPasser
	// was is the line the PR deleted it from (0 otherwise).
	was int
}

// familyPasser is a recipe of the family and where it passes the option.
type familyPasser struct {
	sib *Sibling
	fl  script.Flag
	gpu string
}

func runSH022(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		fam, err := modelFamily(p, s)
		if err != nil {
			return err
		}
		if fam == nil {
			continue
		}
		// What one vendor's recipes agree on may be that vendor's tuning:
		// it is held against a recipe only when the PR deletes it.
		oneVendor := vendors(fam.members) < 2
		head, opaque := serverOptions(s.Head)
		if opaque {
			continue // options we cannot see may be there
		}
		var base map[string]script.Flag
		if s.Base != nil {
			base, _ = serverOptions(s.Base)
		}
		// What the PR did to the server command: the options it adds.
		var added []script.Flag
		for n, fl := range head {
			if _, was := base[n]; !was && s.Base != nil && s.added(fl.Line) {
				added = append(added, fl)
			}
		}
		sort.Slice(added, func(i, j int) bool { return added[i].Line < added[j].Line })
		opts := make([]map[string]script.Flag, len(fam.members))
		for i, sib := range fam.members {
			opts[i], _ = serverOptions(sib.Facts)
		}
		var missing []familyOption
		for n := range opts[0] { // an option every member passes is in the first one's
			_, deleted := base[n]
			if ps, ok := sh022Parsers[n]; ok {
				if agentic := script.IsAgentic(s.Path); agentic && ps.agentic || !agentic && !deleted {
					continue
				}
			}
			if passesEither(head, n) || len(s.Head.CommentsMentioning(n)) > 0 {
				continue
			}
			fo := familyOption{name: n}
			every := true
			for i, sib := range fam.members {
				fl, ok := opts[i][n]
				if !ok || fl.JSON != nil && !deleted {
					// Missing somewhere, or a JSON-valued option: that selects
					// a component, a choice CV001 weighs, not a setting (but
					// deleting it drops the choice altogether).
					every = false
					break
				}
				_, g, _ := familyOf(sib.Path)
				fo.passers = append(fo.passers, familyPasser{sib, fl, g})
			}
			if !every {
				continue
			}
			if fl, ok := base[n]; ok {
				fo.was = fl.Line
			} else if oneVendor || s.Base != nil && len(added) == 0 {
				continue // an old absence the PR does not touch
			}
			missing = append(missing, fo)
		}
		if len(missing) == 0 {
			continue
		}
		sort.Slice(missing, func(i, j int) bool { return missing[i].name < missing[j].name })
		p.Report(sh022Finding(s, fam, missing, added))
	}
	return nil
}

// agreedFlag is the option as every passer writes it ("--cuda-graph-max-bs
// $CONC"), when they all write the same value (or none).
func agreedFlag(fo familyOption) (string, bool) {
	first := fo.passers[0].fl
	for _, ps := range fo.passers[1:] {
		if ps.fl.HasValue != first.HasValue || ps.fl.Value != first.Value {
			return "", false
		}
	}
	if !first.HasValue {
		return fo.name, true
	}
	return fo.name + " " + first.Value, true
}

func sh022Finding(s *target, fam *family, missing []familyOption, added []script.Flag) checks.Finding {
	srv := s.Head.Servers[0]
	kind := "recipe"
	if fam.spec {
		kind = "speculative-decoding recipe"
	}
	first := missing[0]
	var gpus []string
	seen := map[string]bool{}
	for _, ps := range first.passers {
		if !seen[ps.gpu] {
			seen[ps.gpu] = true
			gpus = append(gpus, prose.Code(ps.gpu))
		}
	}
	var names, writes, deleted []string
	var cites []checks.Location
	for _, fo := range missing {
		names = append(names, prose.Code(fo.name))
		if w, ok := agreedFlag(fo); ok {
			writes = append(writes, prose.Code(w))
		}
		if fo.was > 0 {
			deleted = append(deleted, fmt.Sprintf("%s (line %d before it)", prose.Code(fo.name), fo.was))
		}
	}
	// Evidence for every option before more of the same one.
	for i := 0; len(cites) < maxEvidence; i++ {
		more := false
		for _, fo := range missing {
			if i < len(fo.passers) && len(cites) < maxEvidence {
				ps := fo.passers[i]
				cites = append(cites, ps.sib.Loc(ps.fl.Line, 0, "passes "+fo.name))
				more = true
			}
		}
		if !more {
			break
		}
	}
	line := srv.Line
	var what string
	switch {
	case len(deleted) > 0:
		// Where the option was, when the command is still there: a reader
		// of the diff sees the deletion at that line, and the command's
		// first line may be far above it. A command the PR moved or
		// rewrote is pointed at where it is now.
		was := 0
		for _, fo := range missing {
			if fo.was > 0 && (was == 0 || fo.was < was) {
				was = fo.was
			}
		}
		if at := s.headLineOf(was); at > srv.Line && at <= srv.EndLine+1 {
			line = at
		}
		what = "This PR deletes " + prose.JoinAnd(deleted) + " from the server command"
	case s.Base == nil || len(added) == 0:
		what = fmt.Sprintf("The %s command this recipe adds (line %d) never passes %s", prose.Code(srv.Program), srv.Line, prose.JoinAnd(names))
	default:
		var adds []string
		for _, fl := range added {
			adds = append(adds, prose.Code(fl.Name))
		}
		line = added[0].Line
		what = fmt.Sprintf("This PR adds %s to the %s command (line %d), which still does not pass %s",
			prose.JoinAnd(adds), prose.Code(srv.Program), added[0].Line, prose.JoinAnd(names))
	}
	them := "it"
	if len(missing) > 1 {
		them = "them"
	}
	fix := "Pass " + them
	if len(writes) == len(missing) {
		fix = "Add " + prose.JoinAnd(writes)
	}
	msg := fmt.Sprintf("%s, although every other %s %s of the %s family in this directory passes %s (%s, on %s), "+
		"e.g. %s:%d. Without %s this %s recipe runs the engine's default where its siblings set the value, so "+
		"its results are not comparable with theirs. %s to the server command, as they do; if this GPU needs "+
		"otherwise, say so in a comment that names the option.",
		what, s.Head.Engine, kind, prose.Code(fam.model), them, prose.Count(len(first.passers), "recipe", "recipes"),
		prose.JoinAnd(gpus), first.passers[0].sib.Path, first.passers[0].fl.Line, them, prose.Code(fam.gpu), fix)
	title := fmt.Sprintf("%s, which every %s %s of %s passes, is missing", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(fam.model))
	if len(missing) > 1 {
		title = fmt.Sprintf("%s, which every %s %s of %s passes, are missing", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(fam.model))
	}
	ex := &checks.Explain{}
	ex.Problem().Printf("%s missing from a server command where every %s %s of %s passes %s.", prose.JoinAnd(names), s.Head.Engine, kind, prose.Code(fam.model), them)
	if vendors(fam.members) < 2 {
		ex.Why().Printf("An option every other recipe of the family passes is part of how the engine serves the model " +
			"on these GPUs; without it the run measures the engine's default instead of the family's setting.")
	} else {
		ex.Why().Printf("An option the whole family passes on NVIDIA and AMD GPUs alike is part of how the engine serves " +
			"the model; without it the run measures the engine's default instead of the family's setting.")
	}
	ex.Fix().Printf("%s, or a comment that names the option and says why not.", fix)
	var facts []string
	for _, fo := range missing {
		facts = append(facts, "option:"+fo.name)
	}
	end := 0
	if line == srv.Line && srv.EndLine > srv.Line {
		end = srv.EndLine // the whole command that lacks them
	}
	f := checks.Finding{
		Path:    s.Path,
		Line:    line,
		EndLine: end,
		Title:   title,
		Body:    msg,
		Related: cites,
		Key:     "family-option",
		Facts:   facts,
	}
	ex.Apply(&f)
	return f
}
