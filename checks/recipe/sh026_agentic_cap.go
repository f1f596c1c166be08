package recipe

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH026 reports an agentic recipe that caps its server's running requests
// at CONC where nearly every other agentic recipe of the directory leaves
// room for twice as many.
var SH026 = &checks.Rule{
	ID:       "SH026",
	Severity: checks.Warning,
	Title:    "Agentic recipe caps running requests at CONC where the others allow twice as many",
	Doc: "In an agentic run, CONC counts sessions, and a session can have more than one request in flight (the " +
		"client's sub-agents), so the agentic recipes size the server's running-request cap (vLLM and ATOM " +
		"`--max-num-seqs`, SGLang `--max-running-requests`) at twice CONC (`MAX_NUM_SEQS=$((2 * CONC))`, divided " +
		"by the DP size under DP attention). This rule reports an agentic recipe whose cap, on a line the PR " +
		"writes, follows CONC one to one (`--max-num-seqs \"$CONC\"`, `MAX_NUM_SEQS=${MAX_NUM_SEQS:-$CONC}`) on a path " +
		"without DP attention (under it, the cap is each rank's) when " +
		"at least five other agentic recipes of the engine in its directory size the cap from CONC and at least four " +
		"in five of them allow twice CONC. The excess requests then queue at the cap, and the curve is measured below what " +
		"the sibling recipes measure. A fixed cap and a cap the bot cannot compute are left alone. Size the cap as " +
		"the other recipes do, or say in a comment why this one stops at CONC.",
	Run: runSH026,
}

const (
	// sh026MinSiblings is how many other agentic recipes must size their
	// cap from CONC.
	sh026MinSiblings = 5
	// sh026Cited bounds the recipes a finding cites.
	sh026Cited = 3
	// sh026Depth bounds how many variables a cap is followed through.
	sh026Depth = 3
)

// runningCap is the server option that caps running requests, by engine.
var runningCap = map[script.Engine]string{
	script.VLLM:   "--max-num-seqs",
	script.ATOM:   "--max-num-seqs",
	script.SGLang: "--max-running-requests",
}

// capSize is one way a recipe sizes its cap: the line of the text that
// decides it and how many requests per CONC it allows (0: not from CONC).
type capSize struct {
	line int
	// text is the sizing text; src the statement it was found in (the
	// assignment or the option, as written).
	text, src string
	factor    float64
}

var (
	plainRef   = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)
	defaultRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*):?-(.*)\}$`)
	arithRef   = regexp.MustCompile(`^\$\(\((.*)\)\)$`)
)

// capSizes follows the cap option's value of a recipe's servers through
// variables and defaults to the texts that size it.
func capSizes(f *script.Facts) []capSize {
	name, ok := runningCap[f.Engine]
	if !ok {
		return nil
	}
	var out []capSize
	seen := map[string]bool{}
	// A size on a path that runs only under DP attention is per engine
	// (one per rank), not the server's: it is not judged (factor 0).
	add := func(c capSize, dp bool) {
		if dp {
			c.factor = 0
		}
		out = append(out, c)
	}
	var follow func(text, src string, line, depth int, dp bool)
	follow = func(text, src string, line, depth int, dp bool) {
		text = strings.Trim(strings.TrimSpace(text), `"`)
		key := fmt.Sprint(line, "\x00", text)
		if seen[key] || depth > sh026Depth {
			return
		}
		seen[key] = true
		if m := arithRef.FindStringSubmatch(text); m != nil {
			add(capSize{line: line, text: text, src: src, factor: concFactor(m[1])}, dp)
			return
		}
		if m := defaultRef.FindStringSubmatch(text); m != nil {
			follow(m[2], src, line, depth+1, dp)
			follow("$"+m[1], src, line, depth+1, dp)
			return
		}
		m := plainRef.FindStringSubmatch(text)
		if m == nil {
			return // a number, or a text the bot does not compute
		}
		v := m[1] + m[2]
		if v == "CONC" {
			add(capSize{line: line, text: text, src: src, factor: 1}, dp)
			return
		}
		for _, a := range f.VarsNamed(v) {
			if a.HasValue && !a.Array {
				_, underDP := dpCond(a.Branch)
				follow(a.Value, a.Name+"="+a.Value, a.Line, depth+1, dp || underDP)
			}
		}
	}
	for _, srv := range f.Servers {
		for _, fl := range srv.Flags {
			if fl.HasValue && script.NormFlag(fl.Name) == name {
				_, underDP := dpCond(fl.Branch)
				follow(fl.Value, fl.Name+" "+fl.Value, fl.Line, 0, underDP)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

// concFactor is how many requests per CONC an arithmetic expression
// allows, with one GPU (TP=1): 0 when it does not grow with CONC.
func concFactor(expr string) float64 {
	env := func(conc int) map[string]int { return map[string]int{"CONC": conc, "TP": 1, "DP_SIZE": 1, "DP": 1} }
	a, ok1 := evalArith(expr, env(120))
	b, ok2 := evalArith(expr, env(240))
	if !ok1 || !ok2 || a <= 0 || b != 2*a {
		return 0
	}
	return float64(a) / 120
}

// capClass sums up a recipe's cap sizes: whether it follows CONC at all,
// allows twice CONC on every path that does, or caps at CONC somewhere.
func capClass(sizes []capSize) (follows, double, single bool) {
	double = true
	for _, s := range sizes {
		if s.factor == 0 {
			continue
		}
		follows = true
		if s.factor != 2 {
			double = false
		}
		if s.factor == 1 {
			single = true
		}
	}
	return follows, follows && double, single
}

// capOf is a recipe's cap, as capSizes and capClass read it.
type capOf struct {
	sib             *Sibling
	sizes           []capSize
	follows, double bool
}

func runSH026(p *checks.Pass) error {
	// Each directory's recipes are read once per review and engine, not
	// once per recipe the PR changes there.
	groups := map[string][]capOf{}
	return eachChangedRecipe(p, func(p *checks.Pass, s *target) error {
		if !script.IsAgentic(s.Path) || len(s.Head.Servers) == 0 {
			return nil
		}
		var ones []capSize
		for _, c := range capSizes(s.Head) {
			if c.factor == 1 && s.added(c.line) {
				ones = append(ones, c)
			}
		}
		if len(ones) == 0 {
			return nil
		}
		dir, engine := dirOf(s.Path), s.Head.Engine
		gk := string(engine) + "\x00" + dir
		caps, ok := groups[gk]
		if !ok {
			cfg := p.Change.Settings(p.Ctx)
			group, err := scriptGroup(p.Ctx, p.Change, "agentic-caps\x00"+string(engine), dir, func(sp string) bool {
				return cfg.IsRecipe(sp) && !OtherEngineByName(sp, engine)
			}, func(sib *Sibling) bool { return sib.Facts.Engine == engine && len(sib.Facts.Servers) > 0 })
			if err != nil {
				return err
			}
			for _, sib := range groupWithout(p.Change, dir, group, "") {
				cs := capSizes(sib.Facts)
				follows, double, _ := capClass(cs)
				caps = append(caps, capOf{sib, cs, follows, double})
			}
			groups[gk] = caps
		}
		var doubles []*Sibling
		sizes := map[string][]capSize{}
		following := 0
		for _, c := range caps {
			if !c.follows || s.is(c.sib.Path) {
				continue
			}
			following++
			if c.double {
				doubles = append(doubles, c.sib)
				sizes[c.sib.Path] = c.sizes
			}
		}
		if len(doubles) < sh026MinSiblings || 5*len(doubles) < 4*following {
			return nil
		}
		p.Report(sh026Finding(s, ones[0], doubles, sizes, following))
		return nil
	})
}

func sh026Finding(s *target, one capSize, doubles []*Sibling, sizes map[string][]capSize, following int) checks.Finding {
	// The same model's recipes first.
	model, _, _ := familyOf(s.Path)
	rank := func(sib *Sibling) int {
		if m, _, _ := familyOf(sib.Path); m == model {
			return 0
		}
		return 1
	}
	sort.SliceStable(doubles, func(i, j int) bool { return rank(doubles[i]) < rank(doubles[j]) })
	var cites []checks.Location
	var named []string
	for _, sib := range doubles {
		if len(cites) == sh026Cited {
			break
		}
		for _, c := range sizes[sib.Path] {
			if c.factor == 2 {
				cites = append(cites, sib.Loc(c.line, 0, "sizes the cap at twice CONC"))
				named = append(named, fmt.Sprintf("%s %s", prose.Code(fmt.Sprintf("%s:%d", path.Base(sib.Path), c.line)), prose.Code(c.src)))
				break
			}
		}
	}
	opt := runningCap[s.Head.Engine]
	body := fmt.Sprintf("%s (line %d) sizes the %s server's %s at CONC, one running request per session, while %d of the %d other agentic "+
		"%s recipes in this directory that size it from CONC allow twice CONC (e.g. %s). A session can have more than one request in "+
		"flight, so at the higher concurrencies the excess queues at the cap and this curve is measured below theirs. Size it "+
		"as they do (divided by the DP size under DP attention), or say in a comment why this recipe stops at CONC.",
		prose.Code(one.src), one.line, s.Head.Engine, prose.Code(opt), len(doubles), following, s.Head.Engine, strings.Join(named, ", "))
	return checks.Finding{
		Path:    s.Path,
		Line:    one.line,
		Title:   fmt.Sprintf("%s caps running requests at CONC; the other agentic recipes allow twice CONC", prose.Code(opt)),
		Body:    body,
		Related: cites,
		Key:     "agentic-cap:" + opt,
	}
}
