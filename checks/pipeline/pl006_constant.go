package pipeline

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

var pl006 = &checks.Rule{
	ID:       "PL006",
	Severity: checks.Warning,
	Title:    "Test on a matrix variable has the same outcome for every row",
	Doc: "The rows that run a script give each matrix variable a set of values (its domain: `DP_ATTENTION` is " +
		"`true` for the DEP rows and `false` for the TP rows, `SPEC_DECODING` is `mtp` or `none`, ...). This rule " +
		"reports a test in a script the PR changes (or a script a row the PR changes runs) that compares such a " +
		"variable with a value and comes out the same for every value of its domain, although the rows differ in " +
		"it, and that switches a feature (a server option, an export, a config): the feature is on for all rows or " +
		"for none, whatever they declare. It reports a boolean variable tested against anything but `true`/`false` " +
		"and a value that differs from a domain value only in spelling (case, `-`/`_`, one character). It also " +
		"reports a numeric test of a count (`tp`, `ep`, `pp`, `conc`: a whole number of at least 1 in every job; " +
		"worker counts can be 0) that has one outcome for every count, such as `[ \"$EP_SIZE\" -ge 1 ]` written for `-gt 1`: there the " +
		"rows need not differ, since no row can take the other branch. Compare with the value the workflow passes.",
	Run: runPL006,
}

// domain is the values a variable takes over the rows that run a script.
type domain struct {
	values []string
	rows   map[string]*Row // a row per value
	// count is the count input (countInputs) every job fills the
	// variable from, when each value is a whole number of at least 1.
	count string
	// notCount is set once a job fills it otherwise.
	notCount bool
}

// domains collects, for a script, the values of the job variables of the
// rows that reach it (from the env their runs hand it).
func domains(m *Model, scriptPath string, rows []*Row) map[string]*domain {
	out := map[string]*domain{}
	counts := map[*Template]map[string]string{}
	for _, r := range rows {
		m.eachRun(r, scriptPath, func(l *Launch, run Run) {
			c, ok := counts[l.Template]
			if !ok {
				c = l.Template.countVars()
				counts[l.Template] = c
			}
			addDomain(out, r, c, run.Env)
		})
	}
	for _, d := range out {
		sort.Strings(d.values)
		if d.notCount {
			d.count = ""
		}
	}
	return out
}

// addDomain adds the values of a run's env; counts are the count inputs
// of the template of its job, by variable.
func addDomain(out map[string]*domain, r *Row, counts map[string]string, env Env) {
	for name, v := range env {
		if !v.Set || !v.Known || v.IsList || !v.Input() {
			continue
		}
		d := out[name]
		if d == nil {
			d = &domain{rows: map[string]*Row{}}
			out[name] = d
		}
		if !slices.Contains(d.values, v.Str) {
			d.values = append(d.values, v.Str)
			d.rows[v.Str] = r
		}
		in := counts[name]
		if n, err := strconv.Atoi(v.Str); err != nil || n < 1 || in == "" || d.count != "" && d.count != in {
			d.notCount = true
		}
		d.count = in
	}
}

// countVars maps the job variables the template fills from a count input
// (`EP_SIZE: ${{ inputs.ep }}`) to that input.
func (t *Template) countVars() map[string]string {
	out := map[string]string{}
	if t == nil {
		return out
	}
	// A later definition of a variable wins, as in the job's env.
	for _, defs := range [][]EnvDef{t.Env, launchEnv(t)} {
		for _, d := range defs {
			delete(out, d.Var)
			if in := countInput(d.Expr); in != "" {
				out[d.Var] = in
			}
		}
	}
	return out
}

// countInput is the count input an env expression is exactly, "" when it
// is anything else.
func countInput(expr string) string {
	inner, ok := strings.CutPrefix(strings.TrimSpace(expr), "${{")
	if !ok {
		return ""
	}
	inner, ok = strings.CutSuffix(inner, "}}")
	if !ok {
		return ""
	}
	in, ok := strings.CutPrefix(strings.TrimSpace(inner), "inputs.")
	if !ok || !countInputs[in] {
		return ""
	}
	return in
}

func launchEnv(t *Template) []EnvDef {
	if t.Launch == nil {
		return nil
	}
	return t.Launch.Env
}

// constantTest is a test found constant over its variable's domain.
type constantTest struct {
	cond script.Cond
	// outcome is the test's own (its text's) outcome, for the then
	// branch and an else branch alike.
	outcome bool
	values  []string
	rows    map[string]*Row
	// count is set when the test is constant over every count, not only
	// over the rows' values: the count input the variable comes from.
	count string
}

func isBoolDomain(vals []string) bool {
	for _, v := range vals {
		if v != "true" && v != "false" {
			return false
		}
	}
	return true
}

// nearMiss reports whether a tested value is another spelling of a
// domain value.
func nearMiss(lit string, vals []string) bool {
	if slices.Contains(vals, lit) {
		return false
	}
	canonical := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(s))
	}
	for _, v := range vals {
		if canonical(v) == canonical(lit) || len(v) >= 4 && editDistance1(v, lit) {
			return true
		}
	}
	return false
}

// editDistance1 reports whether a and b differ by one edit.
func editDistance1(a, b string) bool {
	if a == b || len(a)-len(b) > 1 || len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) == len(b):
		return a[i+1:] == b[i+1:]
	case len(a) > len(b):
		return a[i+1:] == b[i:]
	}
	return a[i:] == b[i+1:]
}

// switches reports whether a condition guards something that configures
// the run: a server or client option, an export, a JSON config.
func switches(f *script.Facts, c script.Cond) bool {
	under := func(b script.Branch) bool {
		return slices.ContainsFunc(b, func(x script.Cond) bool { return x.Line == c.Line && x.Text == c.Text })
	}
	for _, cmd := range append(append([]*script.Command{}, f.Servers...), f.Clients...) {
		for _, fl := range cmd.Flags {
			if under(fl.Branch) {
				return true
			}
		}
	}
	for _, v := range f.Vars {
		if (v.Kind == script.Export || v.Kind == script.Assign) && v.HasValue && under(v.Branch) {
			return true
		}
	}
	for _, j := range f.JSON {
		if under(j.Branch) {
			return true
		}
	}
	return false
}

// allConds lists a script's conditions once each.
func allConds(f *script.Facts) []script.Cond {
	var out []script.Cond
	seen := map[string]bool{}
	add := func(b script.Branch) {
		for _, c := range b {
			k := fmt.Sprint(c.Line, "\x00", c.Text, "\x00", c.Patterns, c.Negated)
			if !seen[k] && c.Var != "" && (c.Kind == script.CondIf || c.Kind == script.CondCase) {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	for _, v := range f.Vars {
		add(v.Branch)
	}
	for _, cmd := range append(append([]*script.Command{}, f.Servers...), f.Clients...) {
		add(cmd.Branch)
		for _, fl := range cmd.Flags {
			add(fl.Branch)
		}
	}
	for _, j := range f.JSON {
		add(j.Branch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// Facts parses a benchmark script's facts (cached by blob).
func (m *Model) Facts(p string) (*script.Facts, error) {
	return checks.Parsed(m.ctx, m.files.Cache(), m.tree, "pipeline/facts/v1\x00"+p, p, func(b []byte) (*script.Facts, error) {
		if len(b) > sheval.MaxScriptBytes || sheval.NestingDepth(b) > sheval.MaxNesting {
			return nil, fmt.Errorf("%s: too large or too deep to read", p)
		}
		return script.Parse(p, b)
	})
}

func constantTests(m *Model, p string, rows []*Row) []constantTest {
	f, err := m.Facts(p)
	if err != nil || f == nil {
		return nil
	}
	doms := domains(m, p, rows)
	var out []constantTest
	seen := map[string]bool{}
	for _, c := range allConds(f) {
		d := doms[c.Var]
		if d == nil || c.Negated && c.Kind == script.CondCase {
			continue
		}
		ct, ok := constantOverCounts(c, d)
		if !ok {
			ct, ok = constantOverRows(c, d)
		}
		// A test guarding both an if and an else branch is one finding.
		k := fmt.Sprint(c.Line, "\x00", c.Text)
		if ok && !seen[k] && switches(f, c) {
			seen[k] = true
			out = append(out, ct)
		}
	}
	return out
}

// constantOverRows reports a test that cannot tell the rows' values apart
// because its value is another spelling of one of them.
func constantOverRows(c script.Cond, d *domain) (constantTest, bool) {
	if len(d.values) < 2 {
		return constantTest{}, false
	}
	var lits []string
	switch {
	case c.Kind == script.CondCase:
		lits = c.Patterns
	case c.Op == "=":
		lits = []string{c.Value}
	default:
		return constantTest{}, false
	}
	outcome, constant := false, true
	for i, v := range d.values {
		h, known := c.Holds(v)
		if !known {
			return constantTest{}, false
		}
		if i == 0 {
			outcome = h
		} else if h != outcome {
			constant = false
		}
	}
	if !constant {
		return constantTest{}, false
	}
	suspicious := false
	for _, l := range lits {
		if script.IsPattern(l) {
			continue
		}
		if isBoolDomain(d.values) && l != "true" && l != "false" || nearMiss(l, d.values) {
			suspicious = true
		}
	}
	if !suspicious {
		return constantTest{}, false
	}
	return constantTest{cond: c, outcome: outcome != c.Else(), values: d.values, rows: d.rows}, true
}

// constantOverCounts reports a numeric test of a count that has one
// outcome for every whole number from 1 up (`-ge 1`, `-gt 0`, `-lt 1`,
// `-eq 0`): whatever a row declares, the branch is always or never taken.
func constantOverCounts(c script.Cond, d *domain) (constantTest, bool) {
	if d.count == "" || c.Kind != script.CondIf {
		return constantTest{}, false
	}
	k, err := strconv.Atoi(c.Value)
	if err != nil {
		return constantTest{}, false
	}
	op := c.Op
	var outcome bool
	switch {
	case op == "=" && k < 1:
		outcome = false
	case (op == "-gt" || op == ">") && k < 1, (op == "-ge" || op == ">=") && k <= 1:
		outcome = true
	case (op == "-lt" || op == "<") && k <= 1, (op == "-le" || op == "<=") && k < 1:
		outcome = false
	default:
		return constantTest{}, false
	}
	// Negated holds the test's own negation (`!`, `-ne`) and the else
	// branch's: the text's outcome undoes only the first.
	if c.Negated != c.Else() {
		outcome = !outcome
	}
	return constantTest{cond: c, outcome: outcome, values: d.values, rows: d.rows, count: d.count}, true
}

func runPL006(p *checks.Pass) error {
	if p.Change.Config == nil {
		return nil
	}
	a, err := Load(p.Ctx, p.Change)
	if err != nil || !a.Relevant {
		return err
	}
	// The scripts to judge: those the PR changes, and those its changed
	// rows run.
	scripts := map[string]bool{}
	for _, fc := range a.Benchmarks {
		if fc.Status != checks.Deleted && strings.HasSuffix(fc.Path, ".sh") {
			scripts[fc.Path] = true
		}
	}
	changed, err := a.ChangedRows()
	if err != nil {
		return err
	}
	if len(scripts) == 0 && len(changed) == 0 {
		return nil
	}
	head, err := a.Head()
	if err != nil {
		return err
	}
	for r := range changed {
		for _, l := range head.Resolve(r).Groups {
			for _, t := range head.Outcome(l).Targets {
				if t.Exists && t.Run.Kind == RunScript {
					scripts[t.Run.Path] = true
				}
			}
		}
	}
	var paths []string
	for s := range scripts {
		paths = append(paths, s)
	}
	sort.Strings(paths)
	for _, s := range paths {
		rows := head.Reachers(s)
		if len(rows) == 0 {
			continue
		}
		fc := p.Change.File(s)
		for _, ct := range constantTests(head, s, rows) {
			// Judge a test the PR wrote, or one whose domain a changed
			// row widened.
			if !(fc != nil && fc.IsAdded(ct.cond.Line)) && !domainChanged(ct, changed) {
				continue
			}
			p.Report(pl006Finding(s, ct))
		}
	}
	return nil
}

func domainChanged(ct constantTest, changed map[*Row]bool) bool {
	for _, r := range ct.rows {
		if changed[r] {
			return true
		}
	}
	return false
}

func pl006Finding(s string, ct constantTest) checks.Finding {
	c := ct.cond
	state := "never true"
	if ct.outcome {
		state = "always true"
	}
	vals := make([]string, len(ct.values))
	var related []checks.Location
	for i, v := range ct.values {
		vals[i] = code(v)
		if r := ct.rows[v]; r != nil {
			related = append(related, rowLoc(r, fmt.Sprintf("runs %s with %s", code(s), code(c.Var+"="+fmt.Sprint(v)))))
		}
	}
	ex := &checks.Explain{}
	var body string
	if ct.count != "" {
		taken := "never taken"
		if ct.outcome {
			taken = "taken"
		}
		body = fmt.Sprintf("%s (line %d) is %s: `%s` comes from the row's `%s`, a count that is at least 1 (1 when the row leaves it out), so the branch it guards is %s for every row, whatever `%s` it declares (the rows that run this script give it %s). Compare with the first value that needs the feature (`-gt 1` for a parallel size).",
			code(c.Text), c.Line, state, c.Var, ct.count, taken, ct.count, valuesPhrase(vals))
		ex.Problem()
		ex.Printf("%s tests `%s`, which the workflow fills from the row's `%s`: a whole number of at least 1 (1 when the row leaves it out). The test is %s for every such number, not only for %s.", code(c.Text), c.Var, ct.count, state, prose.JoinAnd(vals))
		ex.Why()
		ex.Printf("The branch configures the run (a server option, an export or a config), so no value of `%s` changes what runs: the rows that declare the smallest one get the same setting as the others, and are published as something they are not.", ct.count)
		ex.Evidence()
		ex.Printf("The rows that run %s:", code(s))
		ex.Fix()
		ex.Printf("Compare with the first value that needs the feature (`[ \"$%s\" -gt 1 ]` turns it on from 2).", c.Var)
	} else {
		body = fmt.Sprintf("%s (line %d) is %s for the rows that run this script: they give `%s` the values %s, and the test cannot tell them apart. The branch it guards is on for all of them or none, whatever the row declares. Compare with the value the workflow passes.",
			code(c.Text), c.Line, state, c.Var, prose.JoinAnd(vals))
		ex.Problem()
		ex.Printf("%s tests `%s`, whose values over the rows that run %s are %s; the test is %s for each of them.", code(c.Text), c.Var, code(s), prose.JoinAnd(vals), state)
		ex.Why()
		ex.Printf("The branch configures the run (a server option, an export or a config), so the rows that differ in `%s` run the same configuration, and half of them are published as something they are not.", c.Var)
		ex.Evidence()
		ex.Printf("A row for each value:")
		ex.Fix()
		ex.Printf("Test for the value the workflow passes (%s).", prose.JoinAnd(vals))
	}
	f := checks.Finding{
		Path:    s,
		Line:    c.Line,
		Title:   fmt.Sprintf("%s is %s for every row that runs the script", code(c.Text), state),
		Body:    body,
		Related: sortedLocs(related),
		Key:     "PL006 " + s + " " + c.Text,
	}
	ex.Apply(&f)
	return f
}

func valuesPhrase(vals []string) string {
	if len(vals) == 1 {
		return "the value " + vals[0]
	}
	return "the values " + prose.JoinAnd(vals)
}
