package convention

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// render writes one finding in the seeds' manner: what the siblings do,
// cited; what this PR does; why it likely matters; the fix.
func (j *judge) render(g group) checks.Finding {
	lead := g.vs[0]
	c := lead.c
	followers, _ := lead.st.witnesses()
	cited := citeFollowers(followers, j.fc.Path)
	ys := missing(g)
	xs := present(g)
	line := j.findingLine(g)

	f := checks.Finding{
		Path:     j.fc.Path,
		Line:     line,
		Severity: checks.Warning,
		Title:    title(c, xs, ys),
		Key:      key(g),
	}
	var ids []string
	for _, v := range g.vs {
		id := beliefID(j.head.Engine, v.c)
		ids = append(ids, id)
		if j.confirmed[normID(id)] || j.confirmed[normID(anyEngineID(id))] {
			f.Severity = checks.Blocking
		}
		f.Facts = append(f.Facts, factsOf(v.c)...)
	}

	fix := j.fixText(g, cited)
	var msg strings.Builder
	fmt.Fprintf(&msg, "%s (%s, e.g. %s); %s.", siblingsDo(j.head.Engine, c, xs, ys), famCount(lead.st),
		citeList(cited, 2), j.prDoes(g, xs, ys))
	if c.t.hasContrast() {
		fmt.Fprintf(&msg, " %s", contrastText(lead))
	}
	fmt.Fprintf(&msg, " %s If the difference is deliberate, a comment saying why will keep the next author from copying it.", fix)
	f.Body = msg.String()
	j.explain(g, cited, ids, fix).Apply(&f)

	for _, w := range cited {
		side := checks.Base
		if w.Changed {
			side = checks.Head
		}
		f.Related = append(f.Related, checks.Location{Path: w.Path, Line: w.Line, Side: side, Note: strings.ReplaceAll(xNote(c), "`", "")})
		if w.YLine > 0 && w.YLine != w.Line {
			f.Related = append(f.Related, checks.Location{Path: w.Path, Line: w.YLine, Side: side, Note: strings.ReplaceAll(yNote(c), "`", "")})
		}
	}
	if lead.state == stateRemoved && lead.removedLine > 0 {
		// The comment goes on the deleted line itself.
		f.Line, f.Side = lead.removedLine, checks.Base
	}
	f.Suggestion = j.suggestion(g, cited)
	return f
}

// missing lists the group's Ys, strongest belief first.
func missing(g group) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range g.vs {
		if !seen[v.c.y] {
			seen[v.c.y] = true
			out = append(out, v.c.y)
		}
	}
	return out
}

// present lists the Xs of a command group (the options the command has).
func present(g group) []string { return g.xs }

// findingLine is where the finding sits: the first X line the PR wrote,
// else the first X line.
func (j *judge) findingLine(g group) int {
	best := 0
	for _, v := range g.all {
		if j.fc.IsAdded(v.xLine) && (best == 0 || v.xLine < best) {
			best = v.xLine
		}
	}
	if best > 0 {
		return best
	}
	for _, v := range g.all {
		if best == 0 || v.xLine < best {
			best = v.xLine
		}
	}
	return best
}

func title(c cand, xs, ys []string) string {
	switch c.t {
	case tObject:
		return fmt.Sprintf("%s config without %s", prose.Code(c.val), codeList(ys))
	case tFlagJSON:
		return fmt.Sprintf("%s without %s", prose.Code(c.slot), codeList(ys))
	case tArmEnv:
		return fmt.Sprintf("%s branch without %s", prose.Code(c.val), codeList(ys))
	}
	return fmt.Sprintf("%s without %s", codeList(xs), codeList(ys))
}

// key identifies the finding for fingerprints: the beliefs and the scope,
// not line numbers.
func key(g group) string {
	var parts []string
	for _, v := range g.vs {
		parts = append(parts, fmt.Sprintf("%s|%s|%s|%s", v.c.t, v.c.slot, v.c.val, v.c.y))
	}
	sort.Strings(parts)
	if o := g.vs[0].obj; o != nil {
		parts = append(parts, branchOf(o.path))
	}
	return "CV001 " + strings.Join(parts, " ")
}

// siblingsDo says what the siblings do, as the opening of the message.
func siblingsDo(e script.Engine, c cand, xs, ys []string) string {
	switch c.t {
	case tObject:
		flag, k := slotParts(c.slot)
		return fmt.Sprintf("The %s recipes whose %s JSON has %s set %s in the same object", e, prose.Code(flag), prose.Code(`"`+k+`": "`+c.val+`"`), codeList(ys))
	case tFlagJSON:
		return fmt.Sprintf("The %s recipes that pass %s set %s in its JSON", e, prose.Code(c.slot), codeList(ys))
	case tArmEnv:
		flag, k := slotParts(c.slot)
		return fmt.Sprintf("The %s recipes that select %s in a branch (as the %s %s) also %s in that branch", e, prose.Code(c.val), prose.Code(flag), prose.Code(k), envVerbs(ys))
	}
	return fmt.Sprintf("The %s server commands that pass %s also pass %s", e, codeList(xs), codeList(ys))
}

// envList renders bindings as a clause: "exports `A` and `B` and unsets
// `C`" (envVerbs: "export `A` ..." for a plural subject).
func envList(ys []string) string { return envClause(ys, "s") }

func envVerbs(ys []string) string { return envClause(ys, "") }

func envClause(ys []string, suffix string) string {
	by := map[string][]string{}
	var verbs []string
	for _, y := range ys {
		verb, name := envParts(y)
		if _, ok := by[verb]; !ok {
			verbs = append(verbs, verb)
		}
		by[verb] = append(by[verb], name)
	}
	var parts []string
	for _, v := range verbs {
		parts = append(parts, v+suffix+" "+codeList(by[v]))
	}
	return strings.Join(parts, " and ")
}

// famCount is "3 of 3 model families".
func famCount(st stat) string {
	return fmt.Sprintf("%s of %s", count(st.follow), families(st.families))
}

// prDoes says what this PR does, as a clause.
func (j *judge) prDoes(g group, xs, ys []string) string {
	v := g.vs[0]
	them := "it"
	if len(ys) > 1 {
		them = "them"
	}
	var what, lacks string
	switch v.c.t {
	case tObject, tFlagJSON:
		what = fmt.Sprintf("the %s JSON at line %d", prose.Code(jsonFlag(v)), v.xLine)
		lacks = "does not set " + them
	case tArmEnv:
		what = fmt.Sprintf("the branch at line %d", v.xLine)
		if b := branchOf(v.obj.path); b != "" {
			what = fmt.Sprintf("the %s branch (line %d)", prose.Code(b), v.xLine)
		}
		lacks = "does not"
	default:
		what = fmt.Sprintf("the command at line %d", v.xLine)
		lacks = fmt.Sprintf("passes %s without %s", codeList(xs), them)
	}
	if len(g.others) > 0 {
		var lines []string
		for _, o := range g.others {
			lines = append(lines, fmt.Sprint(o.vs[0].xLine))
		}
		what += fmt.Sprintf(" (and the same at line %s)", strings.Join(lines, ", "))
	}
	switch v.state {
	case stateRemoved:
		return fmt.Sprintf("this PR removes %s (base line %d had it), and %s no longer has it", codeList(ys[:1]), v.removedLine, what)
	case stateLost:
		return fmt.Sprintf("this PR rewrites %s, which no longer comes with %s (the base version had it at line %d)", what, codeList(ys), v.baseY)
	}
	if j.fc.Status == checks.Added {
		return fmt.Sprintf("in this new recipe, %s %s", what, lacks)
	}
	return fmt.Sprintf("%s, which this PR writes, %s", what, lacks)
}

func jsonFlag(v violation) string {
	if v.js != nil {
		return v.js.flag
	}
	flag, _ := slotParts(v.c.slot)
	return flag
}

// contrastText says why this is a pairing rather than something every
// recipe does.
func contrastText(v violation) string {
	st := v.st
	return fmt.Sprintf("Of the %s that %s, %s %s, so it goes with %s rather than with every recipe.",
		families(st.others), agree(st.others, others(v.c)), count(st.othersFollow), agreeCount(st.othersFollow, does(v.c)), xShort(v.c))
}

// agree conjugates a phrase's first verb for a subject of n.
func agree(n int, phrase string) string {
	if n != 1 {
		return phrase
	}
	verb, rest, _ := strings.Cut(phrase, " ")
	return thirdPerson(verb) + " " + rest
}

func thirdPerson(verb string) string {
	switch {
	case strings.HasSuffix(verb, "s"), strings.HasSuffix(verb, "sh"):
		return verb + "es"
	}
	return verb + "s"
}

func xNote(c cand) string {
	switch c.t {
	case tObject, tArmEnv:
		_, k := slotParts(c.slot)
		return fmt.Sprintf("%s %s", k, c.val)
	}
	return c.slot
}

func yNote(c cand) string {
	switch c.t {
	case tObject, tFlagJSON:
		return "sets " + c.y
	case tArmEnv:
		return c.y
	}
	return "passes " + c.y
}

// citeFollowers picks the siblings to cite: one per family, the file's
// own directory first.
func citeFollowers(ws []Witness, file string) []Witness {
	dir := path.Dir(file)
	sorted := append([]Witness(nil), ws...)
	sort.SliceStable(sorted, func(a, b int) bool {
		da, db := path.Dir(sorted[a].Path) == dir, path.Dir(sorted[b].Path) == dir
		if da != db {
			return da
		}
		if sorted[a].Changed != sorted[b].Changed {
			return sorted[a].Changed
		}
		return sorted[a].Path < sorted[b].Path
	})
	var out []Witness
	seen := map[string]bool{}
	for _, w := range sorted {
		if seen[w.Family] {
			continue
		}
		seen[w.Family] = true
		out = append(out, w)
		if len(out) == maxCited {
			break
		}
	}
	return out
}

func cite(w Witness) string {
	s := fmt.Sprintf("`%s:%d`", w.Path, citeLine(w))
	if w.Changed {
		s += " (changed in this PR)"
	}
	return s
}

// citeLine is the line that shows Y (X's, when Y shares it).
func citeLine(w Witness) int {
	if w.YLine > 0 {
		return w.YLine
	}
	return w.Line
}

func citeList(ws []Witness, n int) string {
	var parts []string
	for i, w := range ws {
		if i == n {
			break
		}
		parts = append(parts, cite(w))
	}
	return strings.Join(parts, ", ")
}

// lineOf returns a cited sibling's line text, trimmed of indentation and
// a continuation backslash.
func (j *judge) lineOf(w Witness, n int) string {
	if p := j.ev.find(w.Path); p != nil {
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p.facts.LineText(n)), "\\"))
	}
	return ""
}

// memberText spells a JSON member to add: with the siblings' value when
// they all agree on it (`"kv_role": "kv_both"`), else with a placeholder
// (a draft model's name is this recipe's own).
func (j *judge) memberText(y string, cited []Witness) string {
	vals := map[string]bool{}
	for _, w := range cited {
		if p := j.ev.find(w.Path); p != nil {
			for _, js := range p.jsons {
				if js.cfg == nil || js.line != w.Line && js.cfg.Line != w.Line && !objAt(p, js.cfg, w.Line) {
					continue
				}
				for _, e := range js.cfg.Entries {
					if normKey(e.Key) != y && !strings.HasSuffix(normKey(e.Key), "."+y) {
						continue
					}
					switch {
					case e.Kind == script.JSONObject || e.Kind == script.JSONArray || e.Dynamic:
						vals["…"] = true
					case e.Kind == script.JSONString:
						vals[`"`+e.Value+`"`] = true
					default:
						vals[e.Value] = true
					}
					break
				}
			}
		}
	}
	if len(vals) == 1 {
		for v := range vals {
			return fmt.Sprintf(`"%s": %s`, y, v)
		}
	}
	return fmt.Sprintf(`"%s": …`, y)
}

func objAt(p *profile, cfg *script.JSONConfig, line int) bool {
	for _, o := range p.objs {
		if o.cfg == cfg && o.line == line {
			return true
		}
	}
	return false
}

// fixText says what to add, quoting the first cited sibling.
func (j *judge) fixText(g group, cited []Witness) string {
	v := g.vs[0]
	ys := missing(g)
	if v.state == stateRemoved && j.base != nil {
		if t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(j.base.LineText(v.removedLine)), "\\")); t != "" && len(t) <= 120 {
			return fmt.Sprintf("Restore %s (base line %d).", prose.Code(t), v.removedLine)
		}
	}
	var w Witness
	if len(cited) > 0 {
		w = cited[0]
	}
	as := ""
	if w.Path != "" {
		as = fmt.Sprintf(", as `%s:%d` does", w.Path, citeLine(w))
	}
	switch v.c.t {
	case tObject, tFlagJSON:
		var ms []string
		for _, y := range ys {
			ms = append(ms, prose.Code(j.memberText(y, cited)))
		}
		if strings.Contains(strings.Join(ms, ""), "…") {
			return fmt.Sprintf("Add %s (with this recipe's value) to the JSON%s.", strings.Join(ms, " and "), as)
		}
		return fmt.Sprintf("Add %s to the JSON%s.", strings.Join(ms, " and "), as)
	case tArmEnv:
		var ms []string
		for _, y := range ys {
			ms = append(ms, prose.Code(j.envLine(y, cited)))
		}
		return fmt.Sprintf("Add %s to the branch%s.", strings.Join(ms, " and "), as)
	}
	if len(ys) == 1 && w.Path != "" {
		t := j.lineOf(w, citeLine(w))
		if t != "" && t != ys[0] && strings.HasPrefix(canonFlag(firstWord(t)), ys[0]) && len(t) <= 100 {
			return fmt.Sprintf("Add %s with this recipe's value to the command%s (%s).", prose.Code(ys[0]), as, prose.Code(t))
		}
	}
	return fmt.Sprintf("Add %s to the command%s.", codeList(ys), as)
}

// envLine is the binding to add: the cited sibling's line when it is a
// plain export or unset of the variable.
func (j *judge) envLine(y string, cited []Witness) string {
	verb, name := envParts(y)
	for _, w := range cited {
		t := j.lineOf(w, citeLine(w))
		if strings.HasPrefix(t, verb+" "+name) && !strings.ContainsAny(t, ";&|$`") && len(t) <= 100 {
			return t
		}
	}
	return verb + " " + name
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t="); i >= 0 {
		return s[:i]
	}
	return s
}

// whyText says why a missing Y of this shape likely matters.
func whyText(t tmpl) string {
	switch t {
	case tObject:
		return "A component reads its settings from its own object, and the engine does not check that a key it needs is there: a missing key takes the component's default (or fails when the component is constructed), and a key that the recipes configuring this component set while the others do not is most likely one it needs."
	case tFlagJSON:
		return "The engine fills a key missing from an option's JSON with its own default, without a warning, so the server starts and the run measures that default rather than what the siblings measure."
	case tArmEnv:
		return "Environment variables change what the engine and its connectors do without appearing on the command line: a branch that does not set one runs with whatever the job's environment holds, and nothing in the server log shows it. The siblings set this one in the branch that selects the component."
	}
	return "Options named after the same feature usually work together: one turns the feature on and the other configures it, so one without the other is ignored, falls back to a default, or fails at start-up."
}

// explain gives the reasoning: the convention and how this PR departs from
// it, why that likely matters, the figures and the siblings (the cited ones
// are the finding's Related locations), how sure the bot is, the fix.
func (j *judge) explain(g group, cited []Witness, ids []string, fix string) *checks.Explain {
	e := &checks.Explain{}
	w := e.Printf
	lead := g.vs[0]
	// The statement of the convention opens the problem: what this PR
	// does is phrased against it ("..., which this PR writes, does not").
	e.Problem()
	if xs := present(g); len(xs) > 1 {
		w("A server command that passes %s also passes %s. ", codeList(xs), codeList(missing(g)))
	} else {
		w("%s ", statementMany(lead.c, missing(g)))
	}
	w("%s.", upper(j.prDoes(g, present(g), missing(g))))

	e.Why()
	w("%s The bot does not know why the siblings do this; their agreement is the evidence, and a copy that lost a line is a more common reason to differ than a decision.", whyText(lead.c.t))

	e.Evidence()
	w("%s", evidenceText(lead.c, lead.st))
	if len(g.vs) > 1 {
		w(" (The figures are those of the strongest of these beliefs; `reviewbot conventions` lists each.)")
	}
	followers, exceptions := lead.st.witnesses()
	if len(exceptions) > 0 {
		w("\n\nSiblings that do not:")
		for i, x := range exceptions {
			if i == 3 {
				w("\n- and %d more", len(exceptions)-3)
				break
			}
			w("\n- `%s:%d` (%s)", x.Path, x.Line, x.Family)
		}
	}
	// The cited siblings themselves are the Related locations, listed
	// after this prose; the prose adds what the list cannot say.
	if len(cited) > 0 {
		fams := make([]string, len(cited))
		for i, c := range cited {
			fams[i] = c.Family
			if c.Changed {
				fams[i] += " (changed in this PR)"
			}
		}
		w("\n\nSiblings that do it, one recipe per model family: %s", prose.JoinAnd(fams))
		if rest := len(followers) - len(cited); rest > 0 {
			more := fmt.Sprintf("%d more recipes", rest)
			if rest == 1 {
				more = "1 more recipe"
			}
			w(", and %s (`reviewbot conventions --engine %s` lists them)", more, string(j.head.Engine))
		}
		w(".")
	}

	e.Note("How sure the bot is")
	w("This is a convention mined from the sibling recipes, so it is a warning. ")
	if len(ids) > 0 {
		w("If it is a rule of this repository, confirm it in `.github/reviewbot.yml` to make it blocking:\n\n```yaml\nconventions:\n  confirmed:\n")
		for _, id := range ids {
			w("    - %q\n", id)
		}
		w("```")
	}

	e.Fix()
	w("%s", fix)
	return e
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// suggestion offers the missing line where inserting it is plainly safe:
// a deleted line put back after the context line it followed, a boolean
// option after the line of the option it goes with, or an export/unset
// above the statement that builds the component's config.
func (j *judge) suggestion(g group, cited []Witness) *checks.Suggestion {
	v := g.vs[0]
	if len(missing(g)) != 1 {
		return nil
	}
	if v.state == stateRemoved {
		return j.restore(v.removedLine)
	}
	if v.state != stateNew {
		return nil
	}
	switch v.c.t {
	case tFlagPair:
		xt := j.head.LineText(v.xLine)
		trimmed := strings.TrimSpace(xt)
		if canonFlag(firstWord(trimmed)) != v.c.slot {
			return nil
		}
		if len(cited) == 0 {
			return nil
		}
		for _, w := range cited {
			if w.YLine == 0 || canonFlag(j.lineOf(w, w.YLine)) != v.c.y || strings.ContainsAny(j.lineOf(w, w.YLine), " \t") {
				return nil
			}
		}
		add := indentOf(xt) + v.c.y
		if strings.HasSuffix(trimmed, "\\") {
			add += " \\"
		}
		return &checks.Suggestion{Line: v.xLine, Replacement: xt + "\n" + add}
	case tArmEnv:
		if v.obj == nil {
			return nil
		}
		stmt := 0
		for _, vr := range j.head.Vars {
			if vr.Kind == script.Assign && vr.Line <= v.obj.cfg.Line && v.obj.cfg.Line <= max(vr.EndLine, vr.Line) &&
				vr.Branch.String() == v.obj.path.String() {
				stmt = vr.Line
			}
		}
		if stmt == 0 || !j.fc.IsAdded(stmt) {
			return nil
		}
		t := j.head.LineText(stmt)
		return &checks.Suggestion{Line: stmt, Replacement: indentOf(t) + j.envLine(v.c.y, cited) + "\n" + t}
	}
	return nil
}

// restore puts a deleted base line back after the unchanged line it
// followed.
func (j *judge) restore(old int) *checks.Suggestion {
	for _, h := range j.fc.Hunks {
		for i, l := range h.Lines {
			if l.Op != checks.OpDelete || l.Old != old {
				continue
			}
			if i == 0 || h.Lines[i-1].Op != checks.OpContext {
				return nil
			}
			prev := h.Lines[i-1]
			return &checks.Suggestion{Line: prev.New, Replacement: prev.Text + "\n" + l.Text}
		}
	}
	return nil
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

func codeList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = prose.Code(s)
	}
	return prose.JoinAnd(q)
}
