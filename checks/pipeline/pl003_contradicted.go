package pipeline

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
)

var pl003 = &checks.Rule{
	ID:       "PL003",
	Severity: checks.Blocking,
	Title:    "The job runs something other than its config row declares",
	Doc: "A row's declared settings label its published results: `tp`, `ep`, `dp-attn`, the worker counts of a " +
		"multi-node row, `spec-decoding`, `kv-offloading`, the model and the image. This rule follows the row to what " +
		"actually runs and reports a contradiction: the sweep workflow passes the job another value than the row " +
		"declares (an input hard-coded in a `with:` block), or the srt-slurm recipe a multi-node row names in " +
		"`CONFIG_FILE=` sets another worker count, tensor- or expert-parallel size (a row's `tp` is the GPUs of one " +
		"worker: the recipe's tensor-parallel size, or that times its data- or pipeline-parallel size; a vLLM worker " +
		"that turns `enable-expert-parallel` on without a size spreads its experts over its tensor- times " +
		"data-parallel GPUs, which is its `ep`), DP attention, " +
		"speculative decoding, KV-cache offload to host memory (an offloading connector, LMCache, SGLang's " +
		"hierarchical cache, TensorRT-LLM's `host_cache_size`), model or container. The run then measures a " +
		"different configuration than the one it is published as. Correct the row or the recipe so they agree. Not " +
		"judged: recipes selected with an `:override` suffix (the override is not read), the parallel sizes of " +
		"workers with context parallelism, a row that declares offload against a recipe that mentions offload in a " +
		"form the bot does not read (a Mooncake store), and concurrencies (PL011 compares them).",
	Run: runPL003,
}

// contradiction is one declared value that differs from what runs.
type contradiction struct {
	field         string // the row's field, dotted for a worker pool
	declared, got string
	rowLine       int
	// at is where the other value is set (recipe or workflow line).
	at   Loc
	what string // "the recipe" / "the sweep workflow"
	// says is what the other side does, as a phrase ("sets
	// `tensor-parallel-size: 8`", "offloads ... to host memory").
	says string
	// recipe is the recipe's path for a recipe contradiction.
	recipe string
}

func (c contradiction) fp() string {
	return c.field + "|" + c.declared + "|" + c.got + "|" + path.Base(c.recipe)
}

// norm makes declared and configured values comparable.
func norm(v any) string {
	s := strings.TrimSpace(fmt.Sprint(v))
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return "true"
	case "false", "no", "off", "<nil>", "null", "":
		return "false"
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// inputChecks are the row fields whose value must reach the job as the
// input of the same name (single-node) or prefill-/decode- prefixed
// (multi-node pools).
var inputChecks = []string{"spec-decoding", "tp", "ep", "dp-attn", "kv-offloading"}

func contradictions(m *Model, r *Row) []contradiction {
	var out []contradiction
	// The inputs the sweep passes.
	check := func(field, input string, declared any, line int) {
		got, ok := r.Inputs[input]
		if !ok || ghexpr.IsUnknown(got) || declared == nil {
			return
		}
		if norm(declared) == norm(got) {
			return
		}
		at := Loc{File: BuiltinTable}
		if r.Job != nil {
			at = Loc{File: SweepPath, Line: r.Job.Lines[input]}
		}
		out = append(out, contradiction{field: field, declared: fmt.Sprint(declared), got: fmt.Sprint(got), rowLine: line, at: at, what: "the sweep workflow",
			says: fmt.Sprintf("passes the job %s", code(input+": "+fmt.Sprint(got)))})
	}
	if r.Kind == SingleNode {
		for _, f := range inputChecks {
			if v, ok := r.Row.Raw[f]; ok {
				check(f, f, v, r.Row.LineOf(f))
			}
		}
	} else {
		if v, ok := r.Row.Raw["spec-decoding"]; ok {
			check("spec-decoding", "spec-decoding", v, r.Row.LineOf("spec-decoding"))
		}
		for _, pool := range []string{"prefill", "decode"} {
			w, _ := r.Row.Raw[pool].(map[string]any)
			for _, f := range []string{"tp", "ep", "dp-attn", "num-worker"} {
				if v, ok := w[f]; ok {
					check(pool+"."+f, pool+"-"+f, v, r.Row.LineOf(pool))
				}
			}
		}
	}
	out = append(out, recipeContradictions(m, r)...)
	return out
}

// recipeContradictions compares a multi-node row with the srt-slurm
// recipes its launches hand to srtctl.
func recipeContradictions(m *Model, r *Row) []contradiction {
	if r.Kind != MultiNode {
		return nil
	}
	var out []contradiction
	seen := map[string]bool{}
	for _, l := range m.Resolve(r).Groups {
		o := m.Outcome(l)
		for _, t := range o.Targets {
			if t.Run.Kind != RunRecipe || !t.Exists || seen[t.Run.Path] || strings.Contains(t.Run.Text, ":") {
				continue
			}
			seen[t.Run.Path] = true
			rec, err := m.Recipe(t.Run.Path)
			if err != nil || rec == nil {
				continue
			}
			out = append(out, compareRecipe(r, rec)...)
		}
	}
	return out
}

// Recipe reads an srt-slurm recipe of the tree.
func (m *Model) Recipe(p string) (*SrtRecipe, error) {
	return checks.Parsed(m.ctx, m.files.Cache(), m.tree, "pipeline/srt/v5", p, func(b []byte) (*SrtRecipe, error) { return ParseSrtRecipe(p, b) })
}

// tpAgrees reports whether a row's tp is the recipe role's: its tensor-
// parallel size, or the GPUs of one worker when the role also splits by
// data (DEP: tp 1 × dp 4 is the row's tp 4) or pipeline parallelism.
func tpAgrees(w map[string]any, role *SrtRole) bool {
	declared := w["tp"]
	if declared == nil || !role.TP.Set() || role.CP.Set() {
		return true
	}
	// Context parallelism multiplies the GPUs in engine-specific ways
	// (sglang's tp-size counts them, the row's tp does not).
	for _, k := range []string{"pcp-size", "dcp-size"} {
		if v, ok := w[k]; ok && norm(v) != "1" {
			return true
		}
	}
	want, err := strconv.Atoi(norm(declared))
	if err != nil {
		return norm(declared) == norm(role.TP.Value)
	}
	size := func(s Setting) int {
		if v, err := strconv.Atoi(strings.TrimSpace(s.Value)); err == nil && s.Set() && v > 0 {
			return v
		}
		return 1
	}
	tp, dp, pp := size(role.TP), size(role.DP), size(role.PP)
	return slices.Contains([]int{tp, tp * dp, tp * pp, tp * dp * pp}, want)
}

// switchedEP compares a worker pool's declared ep with a role that turns
// vLLM's expert parallelism on with a switch and no size: the experts
// then spread over the worker's TP × DP GPUs.
func switchedEP(w map[string]any, role *SrtRole, rec *SrtRecipe, rowLine int) (contradiction, bool) {
	if !role.EPSwitch.Set() || !truthyValue(role.EPSwitch.Value) || role.CP.Set() {
		return contradiction{}, false
	}
	size := func(s Setting) int {
		if v, err := strconv.Atoi(strings.TrimSpace(s.Value)); err == nil && s.Set() && v > 0 {
			return v
		}
		return 1
	}
	ep := size(role.TP) * size(role.DP)
	declared := orDefault(w["ep"], 1)
	if d, err := strconv.Atoi(norm(declared)); err != nil || d == ep || ep == 1 {
		return contradiction{}, false
	}
	return contradiction{declared: fmt.Sprint(declared), got: strconv.Itoa(ep), rowLine: rowLine,
		at: Loc{File: rec.Path, Line: role.EPSwitch.Line}, what: "the recipe", recipe: rec.Path,
		says: fmt.Sprintf("turns expert parallelism on (%s) over the worker's %d GPUs (tensor-parallel %d × data-parallel %d)",
			code("enable-expert-parallel: "+role.EPSwitch.Value), ep, size(role.TP), size(role.DP))}, true
}

func compareRecipe(r *Row, rec *SrtRecipe) []contradiction {
	var out []contradiction
	add := func(field string, declared any, s Setting, rowLine int) {
		if !s.Set() || declared == nil {
			return
		}
		if norm(declared) == norm(s.Value) {
			return
		}
		out = append(out, contradiction{field: field, declared: fmt.Sprint(declared), got: s.Value, rowLine: rowLine,
			at: Loc{File: rec.Path, Line: s.Line}, what: "the recipe", recipe: rec.Path,
			says: fmt.Sprintf("sets %s for %s", code(s.Value), field)})
	}
	// An aggregated recipe runs one kind of worker; the row describes it
	// in the pools it gives workers (the other is written with
	// num-worker 0), and counts its data-parallel ranks as workers, so
	// the counts are not compared.
	agg := rec.Roles["agg"]
	aggregated := agg != nil && rec.Roles["prefill"] == nil && rec.Roles["decode"] == nil
	for _, pool := range []string{"prefill", "decode"} {
		role := rec.Roles[pool]
		w, _ := r.Row.Raw[pool].(map[string]any)
		if aggregated {
			if n, ok := w["num-worker"]; ok && norm(n) == "0" {
				continue
			}
			role = agg
		}
		if role == nil || w == nil {
			continue
		}
		line := r.Row.LineOf(pool)
		if !aggregated {
			add(pool+".num-worker", w["num-worker"], role.Workers, line)
		}
		if !tpAgrees(w, role) {
			add(pool+".tp", w["tp"], role.TP, line)
		}
		if role.EP.Set() {
			add(pool+".ep", orDefault(w["ep"], 1), role.EP, line)
		} else if c, ok := switchedEP(w, role, rec, line); ok {
			c.field = pool + ".ep"
			out = append(out, c)
		}
		if role.DPAttn.Set() {
			add(pool+".dp-attn", orDefault(w["dp-attn"], false), role.DPAttn, line)
		}
	}
	// Speculative decoding and KV offload: declared on or off, configured
	// in any role.
	spec := norm(orDefault(r.Row.Raw["spec-decoding"], "none")) != "none"
	var specAt Setting
	for _, role := range sortedRoles(rec) {
		if role.Spec.Set() {
			specAt = role.Spec
			break
		}
	}
	if spec != specAt.Set() && hasRoleConfig(rec) {
		got, says := "none", "configures no speculative decoding in any worker"
		at := Loc{File: rec.Path, Line: firstRoleLine(rec)}
		if specAt.Set() {
			got, at = "speculative", Loc{File: rec.Path, Line: specAt.Line}
			says = fmt.Sprintf("configures speculative decoding (%s)", code(specAt.Value))
		}
		out = append(out, contradiction{field: "spec-decoding", declared: fmt.Sprint(orDefault(r.Row.Raw["spec-decoding"], "none")), got: got,
			rowLine: lineOr(r.Row.LineOf("spec-decoding"), r.Row.Line), at: at, what: "the recipe", recipe: rec.Path, says: says})
	}
	if r.Agentic {
		kv := fmt.Sprint(orDefault(r.Row.Raw["kv-offloading"], "none"))
		var offAt Setting
		for _, role := range sortedRoles(rec) {
			if role.Offload.Set() {
				offAt = role.Offload
				break
			}
		}
		// A row that declares offload against a recipe that mentions it in
		// a spelling the reader does not know is left alone.
		if (kv != "none") != offAt.Set() && hasRoleConfig(rec) && !(kv != "none" && rec.OffloadHint) {
			got, says := "none", "offloads the KV cache in no worker"
			at := Loc{File: rec.Path, Line: firstRoleLine(rec)}
			if offAt.Set() {
				got, at = "host", Loc{File: rec.Path, Line: offAt.Line}
				says = fmt.Sprintf("offloads the KV cache to host memory (%s)", code(offAt.Value))
			}
			out = append(out, contradiction{field: "kv-offloading", declared: kv, got: got, rowLine: lineOr(r.Row.LineOf("kv-offloading"), r.Row.Line),
				at: at, what: "the recipe", recipe: rec.Path, says: says})
		}
	}
	model := fmt.Sprint(r.Key.Raw["model"])
	for _, s := range []Setting{rec.Repo, rec.ModelPath} {
		if s.Set() && strings.Contains(s.Value, "/") && !strings.HasPrefix(s.Value, "/") && r.Key.Raw["model"] != nil {
			if !strings.EqualFold(strings.TrimPrefix(s.Value, "hf:"), model) {
				out = append(out, contradiction{field: "model", declared: model, got: s.Value, rowLine: r.Key.LineOf("model"),
					at: Loc{File: rec.Path, Line: s.Line}, what: "the recipe", recipe: rec.Path, says: "serves the model " + code(s.Value)})
			}
			break
		}
	}
	image := fmt.Sprint(r.Key.Raw["image"])
	for _, s := range []Setting{rec.Image, rec.Container} {
		if s.Set() && looksLikeImage(s.Value) && r.Key.Raw["image"] != nil {
			if strings.ReplaceAll(s.Value, "#", "/") != strings.ReplaceAll(image, "#", "/") {
				out = append(out, contradiction{field: "image", declared: image, got: s.Value, rowLine: r.Key.LineOf("image"),
					at: Loc{File: rec.Path, Line: s.Line}, what: "the recipe", recipe: rec.Path, says: "runs the container " + code(s.Value)})
			}
			break
		}
	}
	return out
}

// looksLikeImage tells an image reference from a container alias the
// launcher maps to the row's image (dynamo-sglang).
func looksLikeImage(s string) bool {
	return strings.Contains(s, ":") && (strings.Contains(s, "/") || strings.Contains(s, "."))
}

func sortedRoles(rec *SrtRecipe) []*SrtRole {
	var names []string
	for n := range rec.Roles {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*SrtRole, len(names))
	for i, n := range names {
		out[i] = rec.Roles[n]
	}
	return out
}

// hasRoleConfig reports whether the recipe configures its engines (so the
// absence of a setting is an absence, not a recipe the bot cannot read).
func hasRoleConfig(rec *SrtRecipe) bool {
	for _, r := range rec.Roles {
		if r.TP.Set() || r.EP.Set() || r.DP.Set() {
			return true
		}
	}
	return false
}

func firstRoleLine(rec *SrtRecipe) int {
	line := 0
	for _, r := range rec.Roles {
		for _, s := range []Setting{r.TP, r.EP, r.DP} {
			if s.Set() && (line == 0 || s.Line < line) {
				line = s.Line
			}
		}
	}
	return line
}

func lineOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

func pl003FPs(m *Model, r *Row) []string {
	var out []string
	for _, c := range contradictions(m, r) {
		out = append(out, c.fp())
	}
	return out
}

func runPL003(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	type item struct {
		cs   []contradiction
		hits []rowHit
	}
	var items []*item
	idx := map[string]*item{}
	for _, r := range rows {
		for _, c := range contradictions(head, r) {
			fp := c.fp()
			if baseHas(a, r, pl003FPs, fp) {
				continue
			}
			// One finding per key and kind of contradiction, whatever
			// recipe each row names.
			k := r.Key.Name + "\x00" + c.groupKey()
			it, ok := idx[k]
			if !ok {
				it = &item{}
				idx[k] = it
				items = append(items, it)
			}
			it.cs = append(it.cs, c)
			it.hits = append(it.hits, rowHit{row: r, fp: fp})
		}
	}
	for _, it := range items {
		p.Report(pl003Finding(p.Change, changed, it.cs, it.hits))
	}
	return nil
}

// groupKey is the contradiction without the recipe it is in.
func (c contradiction) groupKey() string {
	return c.field + "|" + c.declared + "|" + c.got + "|" + c.what
}

func pl003Finding(ch *checks.Change, changed map[*Row]bool, cs []contradiction, hits []rowHit) checks.Finding {
	c := cs[0]
	r := hits[0].row
	file, line := r.File, lineOr(c.rowLine, r.Row.Line)
	if !changed[r] {
		if fc := changedFile(ch, c.at.File); fc != nil && c.at.Line > 0 && fc.IsAdded(c.at.Line) {
			file, line = c.at.File, c.at.Line
		}
	}
	where := c.what
	if c.recipe != "" {
		where = "the recipe " + code(c.recipe)
	}
	declared := code(c.field + ": " + c.declared)
	var related []checks.Location
	recipes := map[string]bool{}
	for i, h := range hits {
		if i == maxRowsCited {
			break
		}
		ci := cs[i]
		related = append(related, checks.Location{Path: h.row.File, Line: lineOr(ci.rowLine, h.row.Row.Line), Note: "the row declares " + ci.field + ": " + ci.declared})
		if ci.at.Line > 0 {
			related = append(related, loc(ci.at, ci.what+" "+strings.ReplaceAll(ci.says, "`", "")))
		}
		if ci.recipe != "" {
			recipes[ci.recipe] = true
		}
	}
	subject := code(r.Key.Name) + " declares " + declared
	if len(hits) > 1 {
		subject = fmt.Sprintf("%s of %s declare %s", rowNames(hits), code(r.Key.Name), declared)
		if len(recipes) > 1 {
			where = fmt.Sprintf("the recipes they run (%d, such as %s)", len(recipes), code(c.recipe))
		}
	}
	body := fmt.Sprintf("%s, but %s %s: the job runs that, and its results are published as %s. Make the row and %s agree.",
		subject, where, c.says, declared, c.what)
	ex := &checks.Explain{}
	ex.Problem()
	ex.Printf("For %s of %s, the row declares %s while %s %s.", rowNames(hits), code(r.Key.Name), declared, where, c.says)
	ex.Why()
	ex.Printf("The row's fields are the labels of the published points (the job name, the result file, the dashboards); what the job runs is what is measured. A difference silently publishes one configuration's numbers as another's.")
	ex.Evidence()
	ex.Printf("The row and the line that sets the other value:")
	ex.Fix()
	if c.recipe != "" {
		ex.Printf("Change the row to what the recipe runs, or the recipe to what the row declares (a recipe per topology).")
	} else {
		ex.Printf("Pass the row's value through: the sweep workflow's `with:` should read the matrix field rather than a fixed value.")
	}
	f := checks.Finding{
		Path:    file,
		Line:    line,
		Title:   fmt.Sprintf("%s declares %s, %s differs", code(r.Key.Name), code(c.field+": "+c.declared), c.what),
		Body:    body,
		Related: sortedLocs(related),
		Key:     "PL003 " + r.Key.Name + " " + c.groupKey(),
	}
	ex.Apply(&f)
	return f
}
