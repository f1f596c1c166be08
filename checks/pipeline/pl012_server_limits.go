package pipeline

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl012 = &checks.Rule{
	ID:       "PL012",
	Severity: checks.Blocking,
	Title:    "Server's context is shorter than the row's requests",
	Doc: "A fixed-sequence-length row sends prompts of `isl` tokens and asks for `osl` more, so the server it " +
		"benchmarks must hold `isl + osl` tokens per request. This rule evaluates the benchmark script each row's " +
		"job runs with the env the job hands it (as PL010 does), reads the server's command line on the paths the " +
		"job can take (vLLM and ATOM `--max-model-len`, SGLang `--context-length`, TensorRT-LLM `--max_seq_len`) and " +
		"reports a row whose server is started with a context shorter than `isl + osl` on every such path: the " +
		"longest requests are rejected or cut, so the point fails or measures shorter requests than it is published " +
		"as. Only what the PR brings is reported (a row it adds or changes, a script it changes) when the key's rows " +
		"did not already have it. Size the context from the row (`$((ISL + OSL + margin))`), or fix the row.",
	Run: runPL012,
}

var pl013 = &checks.Rule{
	ID:       "PL013",
	Severity: checks.Warning,
	Title:    "Server caps a row's concurrency below what the benchmark sends",
	Doc: "A row's concurrency is how many requests the benchmark keeps in flight. This rule evaluates the benchmark " +
		"script each fixed-sequence-length row's job runs at each of the row's concurrencies (where the PR changed the row, its script " +
		"or its launcher; otherwise at the first) and reads the server's command line on the paths the job can " +
		"take. It reports a server, without data parallelism, started with a running-request cap below the " +
		"concurrency (vLLM and ATOM `--max-num-seqs`, SGLang `--max-running-requests`, TensorRT-LLM " +
		"`--max_batch_size`): the excess requests wait in the queue, so the point measures the server at its cap " +
		"with queueing added, not at the published concurrency. It also reports a CUDA-graph bound below the " +
		"concurrency (SGLang `--cuda-graph-max-bs`, vLLM `--max-cudagraph-capture-size` without speculative " +
		"decoding): decode batches above it run without CUDA graphs, a throughput cliff inside the sweep. Only what " +
		"the PR brings is reported, as for PL012. Agentic rows are not judged: their concurrency counts sessions, most " +
		"of them idle between turns, not requests in flight. Size the limits from `$CONC`, or drop the concurrencies " +
		"the server cannot take.",
	Run: runPL013,
}

// limitKind is which of a server's limits a hit is about.
type limitKind string

const (
	limitContext limitKind = "context"
	limitSeqs    limitKind = "seqs"
	limitGraph   limitKind = "graph"
)

// limitHit is a run of a row whose server is started below what the run
// needs.
type limitHit struct {
	kind   limitKind
	script string
	server Server
	option string
	value  int
	// need is what the run needs (isl + osl, or the concurrency); conc
	// the run's concurrency.
	need, conc int
	isl, osl   int
}

// fp identifies the problem apart from the concurrency, which the
// finding lists (a context is judged against isl + osl, part of it).
func (h limitHit) fp() string {
	if h.kind == limitContext {
		return fmt.Sprintf("%s|%s|%s|%d|%d", h.kind, h.script, h.option, h.value, h.need)
	}
	return fmt.Sprintf("%s|%s|%s|%d", h.kind, h.script, h.option, h.value)
}

// maxLimitEvals bounds the script evaluations of one review for PL012 and
// PL013 together (rows times concurrencies), and maxLimitRuns those of one
// row.
const (
	maxLimitEvals = 1024
	maxLimitRuns  = 64
)

// limitOptions names, by engine, the options of each limit.
var limitOptions = map[string]map[limitKind][]string{
	"vllm":   {limitContext: {"--max-model-len"}, limitSeqs: {"--max-num-seqs"}, limitGraph: {"--max-cudagraph-capture-size"}},
	"atom":   {limitContext: {"--max-model-len"}, limitSeqs: {"--max-num-seqs"}},
	"sglang": {limitContext: {"--context-length"}, limitSeqs: {"--max-running-requests"}, limitGraph: {"--cuda-graph-max-bs"}},
	"trtllm": {limitContext: {"--max-seq-len"}, limitSeqs: {"--max-batch-size"}},
}

// dataParallel reports whether the server runs data-parallel ranks (each
// a scheduler of its own, so per-rank limits are not the whole server's).
func dataParallel(s Server) bool {
	if s.Has("--enable-dp-attention") {
		return true
	}
	for _, n := range []string{"--data-parallel-size", "-dp", "--dp", "--dp-size"} {
		if v, ok, known := s.Int(n); ok && (!known || v > 1) {
			return true
		}
	}
	return false
}

// check returns the limit of kind the server violates for a run needing
// need, or false.
func (s Server) check(kind limitKind, need int) (option string, value int, violated bool) {
	names := limitOptions[s.Engine][kind]
	if len(names) == 0 || need <= 0 {
		return "", 0, false
	}
	if kind != limitContext && dataParallel(s) {
		return "", 0, false
	}
	if kind == limitGraph && (s.Has("--enforce-eager", "--disable-cuda-graph") ||
		s.Engine == "vllm" && s.Has("--speculative-config")) {
		return "", 0, false
	}
	v, ok, known := s.Int(names...)
	if !ok || !known || v <= 0 {
		return "", 0, false
	}
	return names[0], v, v < need
}

// limitRuns is the run at each of a row's concurrencies (bounded), the
// first one only where wide does not say so.
func limitRuns(r *Row, run Run, wide bool) []Run {
	out := []Run{run}
	v, ok := run.Env["CONC"]
	if !wide || len(r.Concs) < 2 || !ok || !v.Set || !v.Known || v.IsList || v.Str != strconv.Itoa(r.Concs[0]) {
		return out
	}
	for _, c := range r.Concs[1:] {
		if len(out) >= maxLimitRuns {
			break
		}
		env := run.Env.Clone()
		w := v
		w.Str = strconv.Itoa(c)
		env["CONC"] = w
		other := run
		other.Env = env
		out = append(out, other)
	}
	return out
}

// serverLimits evaluates the scripts a row's jobs run (at each
// concurrency where wide says so) and returns the limits their servers
// break on every path that starts one.
func serverLimits(m *Model, r *Row, budget *int, wide concScope, kinds ...limitKind) []limitHit {
	if r.Agentic {
		// An agentic row's concurrency counts sessions, most of them idle
		// between turns, not requests in flight; nor has it fixed lengths.
		return nil
	}
	var out []limitHit
	seen := map[string]bool{}
	runs := 0
	for _, l := range m.Resolve(r).Groups {
		if l.Result == nil {
			continue
		}
		exists := map[string]bool{}
		for _, t := range m.Outcome(l).Targets {
			if t.Exists && t.Run.Kind == RunScript {
				exists[t.Run.Path] = true
			}
		}
		for _, path := range l.Result.Paths {
			for _, first := range path.Runs {
				if !exists[first.Path] || !first.Certain {
					continue
				}
				for _, run := range limitRuns(r, first, wide(r, l, first.Path)) {
					if runs >= maxLimitRuns || *budget <= 0 {
						return out
					}
					runs++
					*budget--
					res, err := m.ServerCalls(run)
					if err != nil || res == nil || len(res.Paths) == 0 {
						continue
					}
					for _, h := range runLimits(res, run, kinds) {
						h.script = run.Path
						if k := h.fp() + "|" + strconv.Itoa(h.conc); !seen[k] {
							seen[k] = true
							out = append(out, h)
						}
					}
				}
			}
		}
	}
	return out
}

// runLimits returns the limits a run's server breaks on every path that
// starts a server (a path the job's values leave undecided may start it
// otherwise; all of them must agree).
func runLimits(res *Result, run Run, kinds []limitKind) []limitHit {
	var servers []Server
	for _, p := range res.Paths {
		for _, c := range p.Calls {
			if s, ok := AsServer(c); ok {
				servers = append(servers, s)
			}
		}
	}
	if len(servers) == 0 {
		return nil
	}
	conc, _ := envInt(run.Env, "CONC")
	isl, okI := envInt(run.Env, "ISL")
	osl, okO := envInt(run.Env, "OSL")
	var out []limitHit
	for _, kind := range kinds {
		need := conc
		if kind == limitContext {
			if !okI || !okO {
				continue
			}
			need = isl + osl
		}
		var first limitHit
		all := true
		for i, s := range servers {
			opt, v, bad := s.check(kind, need)
			if !bad {
				all = false
				break
			}
			if i == 0 {
				first = limitHit{kind: kind, server: s, option: opt, value: v, need: need, conc: conc, isl: isl, osl: osl}
			}
		}
		if all {
			out = append(out, first)
		}
	}
	return out
}

// limitFPs returns the fingerprints of a row's limit hits at every
// concurrency, spending budget.
func limitFPs(budget *int, kinds ...limitKind) func(m *Model, r *Row) []string {
	return func(m *Model, r *Row) []string {
		var out []string
		for _, h := range serverLimits(m, r, budget, allConcs, kinds...) {
			out = append(out, h.fp())
		}
		return out
	}
}

func runPL012(p *checks.Pass) error { return runLimitRule(p, limitContext) }

func runPL013(p *checks.Pass) error { return runLimitRule(p, limitSeqs, limitGraph) }

func runLimitRule(p *checks.Pass, kinds ...limitKind) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	budget := maxLimitEvals
	wide := everyConc(p.Change, a, changed)
	baseFPs := limitFPs(&budget, kinds...)
	var hits []rowHit
	detail := map[string][]limitHit{}
	for _, r := range rows {
		byFP := map[string][]limitHit{}
		var order []string
		for _, h := range serverLimits(head, r, &budget, wide, kinds...) {
			if _, ok := byFP[h.fp()]; !ok {
				order = append(order, h.fp())
			}
			byFP[h.fp()] = append(byFP[h.fp()], h)
		}
		for _, fp := range order {
			if baseHas(a, r, baseFPs, fp) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: fp})
			detail[r.Key.Name+"\x00"+fp] = append(detail[r.Key.Name+"\x00"+fp], byFP[fp]...)
		}
	}
	if budget <= 0 {
		return nil // the base's runs were not all evaluated: what is new is not known
	}
	for _, g := range groupByKey(hits) {
		p.Report(limitFinding(p.Change, head, changed, g, detail[g.key+"\x00"+g.fp]))
	}
	return nil
}

// optionLine finds the line of a server option in the script (the first
// server command that passes it), 0 when the facts do not show it.
func optionLine(m *Model, script, option string) int {
	f, err := m.Facts(script)
	if err != nil || f == nil {
		return 0
	}
	for _, c := range f.Servers {
		for _, fl := range c.Flags {
			if normOpt(fl.Name) == option || normOpt(fl.Name) == option+"=" {
				return fl.Line
			}
		}
	}
	return 0
}

func limitFinding(ch *checks.Change, m *Model, changed map[*Row]bool, g *keyGroup, hs []limitHit) checks.Finding {
	h := hs[0]
	var concs []int
	for _, x := range hs {
		concs = append(concs, x.conc)
	}
	sort.Ints(concs)
	concs = compactInts(concs)
	optAt := Loc{File: h.script, Line: optionLine(m, h.script, h.option)}
	if optAt.Line == 0 {
		optAt = h.server.At
	}
	written := code(fmt.Sprintf("%s %d", h.option, h.value))
	related := []checks.Location{loc(optAt, "the server is started with "+written)}
	for _, x := range g.hits {
		if len(related) <= maxRowsCited {
			related = append(related, rowLoc(x.row, "row of "+code(g.key)+" whose job runs "+code(h.script)))
		}
	}
	file, line := primary(ch, changed, g.hits, []Loc{optAt})
	if fc := ch.File(h.script); fc != nil && optAt.Line > 0 && fc.IsAdded(optAt.Line) {
		file, line = optAt.File, optAt.Line // the PR wrote the limit
	}
	var title, body string
	ex := &checks.Explain{}
	switch h.kind {
	case limitContext:
		title = fmt.Sprintf("%s is shorter than %s's requests (%d tokens)", written, code(g.key), h.need)
		body = fmt.Sprintf("For %s of %s (isl %d, osl %d), the job runs %s, which starts the %s server with %s "+
			"(line %d): a request of %d prompt tokens and %d generated ones needs %d, more than the server holds, so "+
			"the longest requests are rejected or cut and the point does not measure the lengths it is published as. "+
			"Size the context from the row (`$((ISL + OSL))` and a margin), or fix the row.",
			rowNames(g.hits), code(g.key), h.isl, h.osl, code(h.script), h.server.Engine, written, optAt.Line,
			h.isl, h.osl, h.need)
		ex.Problem().Printf("The server's context (%d tokens) is shorter than isl + osl (%d) of the rows that run it.", h.value, h.need)
		ex.Why().Printf("Requests longer than the context fail or are truncated: the sweep reports failures, or numbers for shorter requests than it claims.")
	case limitSeqs:
		title = fmt.Sprintf("%s is below %s's concurrency %d", written, code(g.key), concs[len(concs)-1])
		body = fmt.Sprintf("For %s of %s, the job runs %s, which starts the %s server with %s (line %d), below the "+
			"concurrency the benchmark sends (%s): the server runs at most %d requests at once and queues the rest, so "+
			"these points measure the server at %d with queueing added, not at the concurrency they are published "+
			"as. Size the cap from `$CONC`, or drop these concurrencies from the row.",
			rowNames(g.hits), code(g.key), code(h.script), h.server.Engine, written, optAt.Line,
			prose.JoinAnd(concTexts(concs)), h.value, h.value)
		ex.Problem().Printf("The server's running-request cap (%d) is below the row's concurrency.", h.value)
		ex.Why().Printf("Requests beyond the cap wait in the queue: throughput stays at the cap's and latency grows with the wait, so the curve flattens for a reason the sweep does not publish.")
	case limitGraph:
		title = fmt.Sprintf("%s is below %s's concurrency %d", written, code(g.key), concs[len(concs)-1])
		body = fmt.Sprintf("For %s of %s, the job runs %s, which starts the %s server with %s (line %d), below the "+
			"concurrency the benchmark sends (%s): decode batches larger than %d run without CUDA graphs, so these "+
			"points measure eager decoding, a cliff in the curve the other points do not have. Size the bound from "+
			"`$CONC`, or say in a comment why these points run eager.",
			rowNames(g.hits), code(g.key), code(h.script), h.server.Engine, written, optAt.Line,
			prose.JoinAnd(concTexts(concs)), h.value)
		ex.Problem().Printf("The server's CUDA-graph bound (%d) is below the row's concurrency.", h.value)
		ex.Why().Printf("Batches above the bound are not captured: each decode step of those points pays the kernel launches the graphs save.")
	}
	ex.Fix().Printf("Compute the option from the row's values (`$CONC`, `$ISL`, `$OSL`) in the script, or change the row.")
	f := checks.Finding{
		Path:    file,
		Line:    line,
		Title:   title,
		Body:    body,
		Related: sortedLocs(related),
		Key:     "PL012 " + g.key + " " + g.fp,
	}
	ex.Apply(&f)
	return f
}

func compactInts(xs []int) []int {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func concTexts(cs []int) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = code("CONC=" + strconv.Itoa(c))
	}
	return out
}
