package convention

// CV001: a changed recipe breaks a convention its siblings agree on.
//
// "Bugs as deviant behavior": most recipe bugs in review are a new branch
// or a new recipe that does X without the Y every sibling does with it
// (builds a SimpleCPUOffloadConnector config without exporting
// VLLM_USE_SIMPLE_KV_OFFLOAD=1). The hand-written SH rules know the
// important pairs; this rule mines the rest from the base tree (mine.go)
// and reports a changed file that breaks one, unless a hand-written rule
// already reported the same fact there.
//
// Only what the PR does is judged: an X on a line it added or changed
// whose path no Y covers (and where the base version did not already
// deviate), or a Y the base version had and the head lost. Old deviations
// stay quiet.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

// CV001 reports a deviation from a mined sibling convention.
var CV001 = &checks.Rule{
	ID:       "CV001",
	Severity: checks.Warning,
	Title:    "Breaks a convention every sibling recipe follows",
	Doc: "Recipes in one directory that serve with the same engine mostly agree on how things are " +
		"done: a connector config comes with the env var it needs, one flag comes with its companion. " +
		"This rule learns such pairings from the base branch (\"every sibling that does X also does Y\", " +
		"held by at least 90% of at least 3 siblings, on the same branch where both sit in a case arm " +
		"or if branch) and reports a line this PR adds that does X without Y, or a Y this PR removes. " +
		"It is blocking when no sibling is an exception, a warning otherwise. The pairing is usually a " +
		"requirement nothing checks at run time, so the recipe still runs and reports numbers, possibly " +
		"for a different configuration. Add the missing part as the cited siblings do; if the deviation " +
		"is deliberate, explain it in a comment next to it. `reviewbot conventions` prints every " +
		"pairing the bot believes in.",
	Run: runCV001,
}

func init() { register(CV001) }

func runCV001(p *checks.Pass) error {
	cfg := recipeConfig(p.Ctx, p.Change)
	for _, fc := range p.Change.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || fc.Binary || !cfg.IsRecipe(fc.Path) {
			continue
		}
		if err := cv001File(p, fc); err != nil {
			return err
		}
	}
	return nil
}

// baseState says what the base version did where a violation is found.
type baseState int

const (
	stateAbsent   baseState = iota // no X there: the PR introduced it
	stateFollowed                  // X there with Y: the PR lost Y
	stateViolated                  // X there without Y already: not the PR's doing
)

// violation is one X ⇒ Y broken at one place of the changed file.
type violation struct {
	im    Implication
	x     occ
	scope string
	state baseState
	// baseY is the base line of the Y the PR lost (stateFollowed).
	baseY int
	// other is set when the head does Y's subject with another value on
	// that path ("lazy_offload": false where the siblings have true).
	other     string
	otherLine int
}

func cv001File(p *checks.Pass, fc *checks.FileChange) error {
	ctx, ch := p.Ctx, p.Change
	head, err := recipe.HeadFacts(ctx, ch, fc.Path)
	if err != nil {
		if recipe.IsParseError(err) {
			return nil // SH014's business
		}
		return err
	}
	if head == nil || head.Engine == recipe.EngineUnknown {
		return nil
	}
	base, err := recipe.BaseFacts(ctx, ch, fc.Path)
	if err != nil {
		if !recipe.IsParseError(err) {
			return err
		}
		base = nil
	}
	m, err := loadGroup(ctx, ch, fc.Path, head.Engine, DefaultThresholds)
	if err != nil {
		return err
	}
	ex := -1
	if base != nil {
		ex = m.index(base.Path)
	}
	ha := atomsOf(head, m.vocab)
	ba := atomsOf(base, m.vocab)

	best := map[string]violation{}
	var order []string
	for _, pr := range m.pairs {
		if len(ha[pr.x]) == 0 {
			continue
		}
		// The convention must hold among the other siblings (the evidence
		// cited) and in the base tree as a whole: a file's own old
		// deviation must not vanish from the statistics just because the
		// PR touches the file.
		im, ok, err := m.eval(ctx, ch, pr, ex)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if ex >= 0 {
			if _, ok, err := m.eval(ctx, ch, pr, -1); err != nil {
				return err
			} else if !ok {
				continue
			}
		}
		vs := violations(head, base, ha, ba, im, fc)
		if len(vs) == 0 {
			continue
		}
		m.witnesses(&im, pr, ex)
		for _, v := range vs {
			v.im = im
			k := subject(im.Y) + "\x00" + v.scope
			cur, seen := best[k]
			if !seen {
				order = append(order, k)
			}
			if !seen || stronger(v, cur) {
				best[k] = v
			}
		}
	}
	for _, k := range order {
		v := best[k]
		if reportedBefore(p, fc.Path, v.im) {
			continue
		}
		p.Report(cv001Finding(m, head, base, fc, v))
	}
	return nil
}

// violations lists the places where the head breaks im and the PR is to
// blame: one per branch for a branch-local convention, one per file
// otherwise.
func violations(head, base *recipe.Facts, ha, ba fileAtoms, im Implication, fc *checks.FileChange) []violation {
	var out []violation
	done := map[string]bool{}
	for _, xo := range ha[im.X] {
		if coveredIn(head, ha[im.Y], xo) {
			continue
		}
		scope := ""
		if im.Local {
			scope = xo.path.String()
		}
		if done[scope] {
			continue
		}
		st, baseY := stateOf(base, ba, im, scope)
		switch {
		case st == stateFollowed:
		case st == stateAbsent && fc.IsAdded(xo.line):
		default:
			continue
		}
		done[scope] = true
		v := violation{im: im, x: xo, scope: scope, state: st, baseY: baseY}
		v.other, v.otherLine = otherValue(head, ha, im.Y, xo)
		out = append(out, v)
	}
	return out
}

// otherValue finds the subject of a valued Y (json:K=v, env:N=v) done
// with a different value where it would cover xo.
func otherValue(f *recipe.Facts, a fileAtoms, y string, xo occ) (string, int) {
	kind, rest := split(y)
	name, _, valued := strings.Cut(rest, "=")
	if !valued || (kind != "json" && kind != "env") {
		return "", 0
	}
	prefix := kind + ":" + name + "="
	var ks []string
	for k := range a {
		if k != y && strings.HasPrefix(k, prefix) {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	for _, k := range ks {
		for _, o := range a[k] {
			if covers(f, o, xo) {
				return k[len(prefix):], o.line
			}
		}
	}
	return "", 0
}

func coveredIn(f *recipe.Facts, ys []occ, xo occ) bool {
	for _, yo := range ys {
		if covers(f, yo, xo) {
			return true
		}
	}
	return false
}

// stateOf judges the base version at a scope (a branch's path text, or
// "" for the whole file).
func stateOf(base *recipe.Facts, ba fileAtoms, im Implication, scope string) (baseState, int) {
	if base == nil {
		return stateAbsent, 0
	}
	found := false
	baseY := 0
	for _, xo := range ba[im.X] {
		if scope != "" && xo.path.String() != scope {
			continue
		}
		found = true
		covered := false
		for _, yo := range ba[im.Y] {
			if covers(base, yo, xo) {
				covered = true
				if baseY == 0 {
					baseY = yo.line
				}
				break
			}
		}
		if !covered {
			return stateViolated, 0
		}
	}
	if !found {
		return stateAbsent, 0
	}
	return stateFollowed, baseY
}

// stronger picks the implication to report when several X explain the
// same missing Y: the most confident, best supported, most specific.
func stronger(a, b violation) bool {
	if a.im.Confidence != b.im.Confidence {
		return a.im.Confidence > b.im.Confidence
	}
	if a.im.Support != b.im.Support {
		return a.im.Support > b.im.Support
	}
	if a.im.Local != b.im.Local {
		return a.im.Local
	}
	if ra, rb := kindRank(a.im.X), kindRank(b.im.X); ra != rb {
		return ra < rb
	}
	if pa, pb := proximity(a.im), proximity(b.im); pa != pb {
		return pa < pb
	}
	if a.x.line != b.x.line {
		return a.x.line < b.x.line
	}
	return a.im.X < b.im.X
}

// proximity is how far apart the followers write X and Y (total lines):
// the X written right next to Y is the one that explains it best.
func proximity(im Implication) int {
	d := 0
	for _, w := range im.Followers {
		if w.YLine > w.XLine {
			d += w.YLine - w.XLine
		} else {
			d += w.XLine - w.YLine
		}
	}
	return d
}

// kindRank orders antecedents by how well they read in a message: a
// connector name says more than a JSON key.
func kindRank(key string) int {
	kind, rest := split(key)
	switch kind {
	case "json":
		k, _, _ := strings.Cut(rest, "=")
		if k == "kv_connector" || strings.HasSuffix(k, ".kv_connector") {
			return 0
		}
		return 3
	case "flag":
		return 1
	case "env":
		return 2
	case "json-key":
		return 4
	case "unset":
		return 5
	}
	return 6
}

// reportedBefore reports whether a hand-written rule already judged the
// fact on this file: its finding lists Y (in any spelling of the same
// subject) or X (exactly, or by its bare name).
func reportedBefore(p *checks.Pass, file string, im Implication) bool {
	for _, f := range p.Prior() {
		if f.Path != file {
			continue
		}
		for _, k := range f.Facts {
			if k == im.X || k == im.Y || subject(k) == subject(im.Y) {
				return true
			}
			if !strings.Contains(strings.TrimPrefix(k, "json-key:"), "=") && subject(k) == subject(im.X) {
				return true
			}
		}
	}
	return false
}

// maxFollowers is how many siblings a finding cites.
const maxFollowers = 5

func cv001Finding(m *mined, head, base *recipe.Facts, fc *checks.FileChange, v violation) checks.Finding {
	im := v.im
	follow := citedFollowers(im, v.x)
	sev := checks.Warning
	if im.Followed == im.Support {
		sev = checks.Blocking
	}
	branch := branchText(v.x.path)
	dir := im.Group.Dir
	if dir == "" {
		dir = "."
	}
	where := ""
	if im.Local {
		where = " on the same path"
	}
	var exc string
	if len(im.Exceptions) > 0 {
		var parts []string
		for i, e := range im.Exceptions {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(im.Exceptions)-3))
				break
			}
			parts = append(parts, fmt.Sprintf("`%s:%d`", e.Path, e.XLine))
		}
		exc = "; exceptions: " + strings.Join(parts, ", ")
	}
	newFile := base == nil || fc.Status == checks.Added
	var subjectText string
	_, yval, _ := strings.Cut(strings.SplitN(im.Y, ":", 2)[1], "=")
	switch {
	case v.other != "" && v.state == stateFollowed:
		subjectText = fmt.Sprintf("this PR changes it to `%s` at line %d (base line %d had `%s`)", v.other, v.otherLine, v.baseY, yval)
	case v.other != "":
		subjectText = fmt.Sprintf("line %d, added by this PR, sets it to `%s` instead", v.otherLine, v.other)
	case v.state == stateFollowed && im.Local:
		subjectText = fmt.Sprintf("this PR removes it from the branch at line %d (under `%s`; base line %d had it)", v.x.line, branch, v.baseY)
	case v.state == stateFollowed:
		subjectText = fmt.Sprintf("this PR removes it (base line %d) while line %d still %s", v.baseY, v.x.line, phrase(im.X, singular))
	case im.Local && branch != "":
		subjectText = fmt.Sprintf("the code this PR adds at line %d (under `%s`) does not", v.x.line, branch)
	case newFile:
		subjectText = fmt.Sprintf("this new recipe does at line %d but does not", v.x.line)
	default:
		subjectText = fmt.Sprintf("line %d adds it to this recipe, which does not", v.x.line)
	}
	fix := fixText(m, follow, im, v, base)
	msg := fmt.Sprintf("Every %s sibling in `%s` that %s also %s%s (%d of %d%s); %s. %s",
		im.Group.Engine, dir, phrase(im.X, singular), phrase(im.Y, singular), where,
		im.Followed, im.Support, exc, subjectText, fix)

	var related []checks.Location
	for _, w := range follow {
		related = append(related,
			checks.Location{Path: w.Path, Line: w.XLine, Side: checks.Base, Note: phrase(im.X, note)},
			checks.Location{Path: w.Path, Line: w.YLine, Side: checks.Base, Note: phrase(im.Y, note)})
	}
	for i, e := range im.Exceptions {
		if i == 3 {
			break
		}
		related = append(related, checks.Location{Path: e.Path, Line: e.XLine, Side: checks.Base,
			Note: "exception: " + phrase(im.X, note) + " without " + short(im.Y)})
	}
	if v.state == stateFollowed && v.baseY > 0 && base != nil {
		related = append(related, checks.Location{Path: base.Path, Line: v.baseY, Side: checks.Base,
			Note: "the base version of this file: " + phrase(im.Y, note)})
	}

	f := checks.Finding{
		Severity: sev,
		Path:     fc.Path,
		Line:     v.x.line,
		Title:    fmt.Sprintf("Sibling convention broken: %s without %s", short(im.X), short(im.Y)),
		Message:  msg,
		Details:  details(im, v, follow, base, fc, fix),
		Related:  related,
		Key:      "CV001:" + im.X + "=>" + im.Y + "@" + v.scope,
		Facts:    []string{im.X, im.Y},
	}
	if v.x.end > v.x.line {
		f.EndLine = v.x.end
	}
	f.Suggestion = suggestion(im, v, follow, head, base, m)
	return f
}

// citedFollowers picks the siblings to cite: those whose X sits in a
// branch like the violation's first, then by path.
func citedFollowers(im Implication, x occ) []Witness {
	ws := append([]Witness(nil), im.Followers...)
	want := lastCond(x.path)
	sort.SliceStable(ws, func(i, j int) bool {
		ai, aj := want != "" && strings.HasSuffix(ws[i].Branch, want), want != "" && strings.HasSuffix(ws[j].Branch, want)
		if ai != aj {
			return ai
		}
		return ws[i].Path < ws[j].Path
	})
	if len(ws) > maxFollowers {
		ws = ws[:maxFollowers]
	}
	return ws
}

// lastCond is the innermost condition's pattern part ("mooncake)") used
// to prefer siblings in the same kind of branch.
func lastCond(p recipe.Path) string {
	if len(p) == 0 {
		return ""
	}
	s := p[len(p)-1].String()
	if i := strings.LastIndex(s, " in "); i >= 0 && p[len(p)-1].Kind == recipe.CondCase {
		return s[i+4:]
	}
	return s
}

// form selects how phrase conjugates.
type form int

const (
	singular form = iota // "exports `X`" (every sibling that ...)
	plural               // "export `X`" (3 of them also ...)
	note                 // "exports X" (a Related note, no markdown)
)

// phrase renders an atom as what a recipe does ("exports
// `VLLM_USE_SIMPLE_KV_OFFLOAD=1`").
func phrase(key string, fm form) string {
	kind, rest := split(key)
	var verb, obj string
	switch kind {
	case "json":
		k, v, _ := strings.Cut(rest, "=")
		if k == "kv_connector" || strings.HasSuffix(k, ".kv_connector") {
			verb, obj = "build", fmt.Sprintf("a `%s` config", v)
		} else {
			verb, obj = "set", fmt.Sprintf("`%s` to `%s` in the JSON config", k, v)
		}
	case "json-key":
		verb, obj = "set", fmt.Sprintf("`%s` in the JSON config", rest)
	case "env":
		verb, obj = "export", fmt.Sprintf("`%s`", rest)
	case "unset":
		verb, obj = "run", fmt.Sprintf("`unset %s`", rest)
	case "flag":
		verb, obj = "pass", fmt.Sprintf("`%s`", rest)
	case "client-flag":
		verb, obj = "pass", fmt.Sprintf("`%s` to the benchmark client", rest)
	case "set":
		verb, obj = "turn on", fmt.Sprintf("`set -o %s`", rest)
	default:
		verb, obj = "have", fmt.Sprintf("`%s`", key)
	}
	if fm != plural {
		switch verb {
		case "pass":
			verb = "passes"
		case "have":
			verb = "has"
		case "turn on":
			verb = "turns on"
		default:
			verb += "s"
		}
	}
	s := verb + " " + obj
	if fm == note {
		return strings.ReplaceAll(s, "`", "")
	}
	return s
}

// short names an atom in a title.
func short(key string) string {
	kind, rest := split(key)
	switch kind {
	case "json":
		k, v, _ := strings.Cut(rest, "=")
		if k == "kv_connector" || strings.HasSuffix(k, ".kv_connector") {
			return v + " config"
		}
		return k + "=" + v
	case "unset":
		return "unset " + rest
	case "client-flag":
		return "client " + rest
	case "set":
		return "set -o " + rest
	}
	return rest
}

// yText is what to add, quoted from the first cited sibling where it is a
// line of its own, else spelled from the atom.
func yText(im Implication, follow []Witness, m *mined) string {
	kind, rest := split(im.Y)
	for _, w := range follow {
		f := m.factsOf(w.Path)
		if f == nil || w.YLine == 0 {
			continue
		}
		line := strings.TrimSpace(f.LineText(w.YLine))
		line = strings.TrimSpace(strings.TrimSuffix(line, "\\"))
		switch kind {
		case "env", "unset", "set":
			name, _, _ := strings.Cut(rest, "=")
			if strings.Contains(line, name) && len(line) <= 100 && !strings.ContainsAny(line, ";&|") {
				return line
			}
		case "flag", "client-flag":
			if strings.HasPrefix(line, rest) && len(line) <= 100 {
				return line
			}
		case "json", "json-key":
			k, _, _ := strings.Cut(rest, "=")
			for _, j := range f.JSON {
				if e, ok := j.Entry(k); ok && e.Line == w.YLine && e.Kind != recipe.JSONObject && e.Kind != recipe.JSONArray {
					leaf := k[strings.LastIndexAny(k, ".]")+1:]
					val := e.Value
					if e.Kind == recipe.JSONString && !e.Dynamic {
						val = `"` + val + `"`
					}
					return fmt.Sprintf(`"%s": %s`, leaf, val)
				}
			}
		}
	}
	switch kind {
	case "env":
		return "export " + rest
	case "unset":
		return "unset " + rest
	case "json", "json-key":
		k, v, hasV := strings.Cut(rest, "=")
		if hasV {
			return fmt.Sprintf(`"%s": %s`, k, v)
		}
		return `"` + k + `"`
	}
	return rest
}

func (m *mined) factsOf(p string) *recipe.Facts {
	if i := m.index(p); i >= 0 {
		return m.members[i].facts
	}
	return nil
}

func fixText(m *mined, follow []Witness, im Implication, v violation, base *recipe.Facts) string {
	if v.other != "" && len(follow) > 0 {
		k, val, _ := strings.Cut(strings.SplitN(im.Y, ":", 2)[1], "=")
		return fmt.Sprintf("Set `%s` back to `%s`, as `%s:%d` does.", k, val, follow[0].Path, follow[0].YLine)
	}
	if v.state == stateFollowed && base != nil && v.baseY > 0 {
		if t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(base.LineText(v.baseY)), "\\")); t != "" && len(t) <= 120 {
			return fmt.Sprintf("Restore `%s` (base line %d).", t, v.baseY)
		}
	}
	if len(follow) == 0 {
		return ""
	}
	w := follow[0]
	where := "to this recipe"
	if im.Local && branchText(v.x.path) != "" {
		where = "on that branch"
	}
	text := yText(im, follow, m)
	kind, rest := split(im.Y)
	if (kind == "flag" || kind == "client-flag") && text != rest && strings.HasPrefix(text, rest+" ") {
		// The value is the sibling's (often a model-specific parser name).
		return fmt.Sprintf("Add `%s` with this recipe's value %s, as `%s:%d` does (`%s`).", rest, where, w.Path, w.YLine, text)
	}
	return fmt.Sprintf("Add `%s` %s, as `%s:%d` does.", text, where, w.Path, w.YLine)
}

// whyText says why a missing Y of this kind matters.
func whyText(y string) string {
	kind, rest := split(y)
	name, _, _ := strings.Cut(rest, "=")
	switch kind {
	case "env":
		return fmt.Sprintf("Environment variables change what the engine does at start-up without appearing on its command line, so a missing `%s` is invisible in the server log; where the siblings set it, the engine takes a code path this recipe does not.", name)
	case "unset":
		return fmt.Sprintf("An `unset` guards a branch against a value inherited from the job's environment or set earlier in the script; without it, whatever `%s` the job carries reaches the server on this path only.", name)
	case "flag":
		return "Server flags that every sibling passes together usually depend on each other: one enables what the other configures, or the workload needs both."
	case "client-flag":
		return "The benchmark client's flags decide what is measured; a client call without one the siblings always pass measures something else or falls back to a default."
	case "json", "json-key":
		return "The connector or engine reads these keys when it parses the config; a key every sibling sets is one it needs, or one whose default is wrong for this sweep."
	case "set":
		return "Strict-mode options make a typo or a failed command stop the run instead of producing a result from a half-configured server."
	}
	return ""
}

func details(im Implication, v violation, follow []Witness, base *recipe.Facts, fc *checks.FileChange, fix string) string {
	var b strings.Builder
	dir := im.Group.Dir
	if dir == "" {
		dir = "."
	}
	same := ""
	if im.Local {
		same = " in the same branch (case arm or if branch)"
	}
	fmt.Fprintf(&b, "**The convention.** In the base tree, %d of the other %d %s recipes in `%s` %s; %d of them also %s%s. "+
		"Mined implication `%s ⇒ %s`: support %d, confidence %d/%d (%s).",
		im.Support, im.Group.Size, im.Group.Engine, dir, phrase(im.X, plural), im.Followed, phrase(im.Y, plural), same,
		im.X, im.Y, im.Support, im.Followed, im.Support, Percent(im.Confidence))
	if len(im.Exceptions) == 0 {
		b.WriteString(" No sibling is an exception.")
	} else {
		var parts []string
		for _, e := range im.Exceptions {
			s := fmt.Sprintf("`%s:%d`", e.Path, e.XLine)
			if e.Branch != "" {
				s += fmt.Sprintf(" (under `%s`)", e.Branch)
			}
			parts = append(parts, s)
		}
		fmt.Fprintf(&b, " Exceptions (%s without %s): %s.", short(im.X), short(im.Y), strings.Join(parts, ", "))
	}
	switch {
	case im.Local:
	case im.Background:
		fmt.Fprintf(&b, " Every sibling here does both; %d %s recipes in other directories do neither, and the two go together there too, so this is a pairing rather than something every recipe does.", im.Contrast, im.Group.Engine)
	default:
		fmt.Fprintf(&b, " %d other %s recipes here do neither, so this is a pairing rather than something every recipe does.", im.Contrast, im.Group.Engine)
	}
	b.WriteString("\n\n")

	b.WriteString("**What this PR does.** ")
	branch := branchText(v.x.path)
	under := ""
	if branch != "" {
		under = fmt.Sprintf(" under `%s`", branch)
	}
	scopeText := "anywhere"
	if im.Local {
		scopeText = "on that path"
	}
	switch {
	case v.other != "":
		k, val, _ := strings.Cut(strings.SplitN(im.Y, ":", 2)[1], "=")
		fmt.Fprintf(&b, "Line %d %s%s, and line %d sets `%s` to `%s` where every follower has `%s`",
			v.x.line, phrase(im.X, singular), under, v.otherLine, k, v.other, val)
		if v.state == stateFollowed {
			fmt.Fprintf(&b, " (so did the base version, `%s:%d`)", base.Path, v.baseY)
		}
		b.WriteString(".")
	case v.state == stateFollowed:
		fmt.Fprintf(&b, "Line %d still %s%s, but the head version no longer %s %s: the base version did at `%s:%d`.",
			v.x.line, phrase(im.X, singular), under, phrase(im.Y, singular), scopeText, base.Path, v.baseY)
	default:
		fmt.Fprintf(&b, "Line %d, added by this PR, %s%s; the head version does not %s %s.",
			v.x.line, phrase(im.X, singular), under, phrase(im.Y, plural), scopeText)
	}
	b.WriteString("\n\n")

	b.WriteString("**Why it matters.** ")
	if w := whyText(im.Y); w != "" {
		b.WriteString(w + " ")
	}
	b.WriteString("More generally, a pairing that the siblings keep without being told to usually encodes a requirement " +
		"that nothing checks at run time: an environment variable a connector reads, a flag that only works together " +
		"with another, a key a config must carry. A recipe that drops it still starts and reports numbers, possibly for a " +
		"different configuration than the one its sweep row names. The bot does not know why the siblings do this; their " +
		"agreement is the evidence, and a deviation from it is more often an oversight (a branch copied without its " +
		"companion line) than a decision.")
	if len(im.Exceptions) > 0 {
		b.WriteString(" Some siblings deviate too, which is why this is only a warning.")
	}
	b.WriteString("\n\n**Step by step.**\n")
	step := 1
	for _, w := range follow {
		sameB := ""
		if im.Local && w.Branch != "" {
			sameB = fmt.Sprintf(", both under `%s`", w.Branch)
		}
		fmt.Fprintf(&b, "%d. `%s:%d` %s and line %d %s%s.\n", step, w.Path, w.XLine, phrase(im.X, singular), w.YLine, phrase(im.Y, singular), sameB)
		step++
	}
	if rest := im.Followed - len(follow); rest > 0 {
		more := fmt.Sprintf("%d more siblings do", rest)
		if rest == 1 {
			more = "1 more sibling does"
		}
		fmt.Fprintf(&b, "%d. %s the same (`reviewbot conventions --dir %s` lists them all).\n", step, more, dir)
		step++
	}
	fmt.Fprintf(&b, "%d. This PR's `%s:%d` %s%s.\n", step, fc.Path, v.x.line, phrase(im.X, singular), under)
	step++
	if v.other != "" {
		k, _, _ := strings.Cut(strings.SplitN(im.Y, ":", 2)[1], "=")
		fmt.Fprintf(&b, "%d. Line %d sets `%s` to `%s` on that path instead.\n", step, v.otherLine, k, v.other)
	} else if v.state == stateFollowed {
		fmt.Fprintf(&b, "%d. The base version covered it with line %d; the head version does not %s %s.\n", step, v.baseY, phrase(im.Y, plural), scopeText)
	} else {
		fmt.Fprintf(&b, "%d. The head version does not %s %s.\n", step, phrase(im.Y, plural), scopeText)
	}
	step++
	fmt.Fprintf(&b, "%d. So this change breaks a convention that %d of %d siblings follow.\n\n", step, im.Followed, im.Support)
	b.WriteString("**Fix.** ")
	if fix != "" {
		b.WriteString(fix + " ")
	}
	b.WriteString("If the deviation is deliberate, say why in a comment next to it, so the next author copying this recipe knows.")
	return b.String()
}

// suggestion offers the missing line where inserting it is safe: a
// removed line put back beside the unchanged line it sat next to, an
// export or unset before a statement that builds X on the same branch,
// or a boolean flag after X's own flag line.
func suggestion(im Implication, v violation, follow []Witness, head, base *recipe.Facts, m *mined) *checks.Suggestion {
	if v.other != "" {
		// Fix the value in place where the line is a plain export of it.
		kind, rest := split(im.Y)
		name, val, _ := strings.Cut(rest, "=")
		t := head.LineText(v.otherLine)
		ind := t[:len(t)-len(strings.TrimLeft(t, " \t"))]
		if kind == "env" && strings.TrimSpace(t) == "export "+name+"="+v.other {
			return &checks.Suggestion{Line: v.otherLine, Replacement: ind + "export " + name + "=" + val}
		}
		return nil
	}
	xText := head.LineText(v.x.line)
	if v.state == stateFollowed {
		// Put the removed line back where it was: next to X's line when
		// that line is unchanged beside it.
		if base == nil || v.baseY <= 0 {
			return nil
		}
		lost := base.LineText(v.baseY)
		switch {
		case base.LineText(v.baseY-1) == xText:
			return &checks.Suggestion{Line: v.x.line, Replacement: xText + "\n" + lost}
		case base.LineText(v.baseY+1) == xText:
			return &checks.Suggestion{Line: v.x.line, Replacement: lost + "\n" + xText}
		}
		return nil
	}
	if v.state != stateAbsent {
		return nil
	}
	indent := xText[:len(xText)-len(strings.TrimLeft(xText, " \t"))]
	ykind, yrest := split(im.Y)
	xkind, xrest := split(im.X)
	switch ykind {
	case "env", "unset":
		if !im.Local || len(v.x.path) == 0 {
			return nil
		}
		// Only before a statement that starts on X's line, on X's path.
		ok := false
		for _, vr := range head.Vars {
			if vr.Line == v.x.line && vr.Kind == recipe.Assign && vr.Path.String() == v.x.path.String() {
				ok = true
			}
		}
		if !ok {
			return nil
		}
		line := "unset " + yrest
		if ykind == "env" {
			name, val, hasV := strings.Cut(yrest, "=")
			if !hasV {
				return nil
			}
			line = "export " + name + "=" + val
		}
		return &checks.Suggestion{Line: v.x.line, Replacement: indent + line + "\n" + xText}
	case "flag":
		if xkind != "flag" {
			return nil
		}
		trimmed := strings.TrimSpace(xText)
		if !strings.HasPrefix(recipe.NormFlag(firstWord(trimmed)), xrest) {
			return nil
		}
		// A boolean flag in every cited sibling: its line is the name.
		for _, w := range follow {
			f := m.factsOf(w.Path)
			if f == nil {
				return nil
			}
			t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f.LineText(w.YLine)), "\\"))
			if recipe.NormFlag(t) != yrest {
				return nil
			}
		}
		add := indent + yrest
		if strings.HasSuffix(trimmed, "\\") {
			add += " \\"
		}
		return &checks.Suggestion{Line: v.x.line, Replacement: xText + "\n" + add}
	}
	return nil
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}
