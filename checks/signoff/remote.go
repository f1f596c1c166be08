package signoff

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// Checks 1-4 judge evidence only GitHub has. The App gathers it (check
// runs, the eval artifact, upstream PR states, the reuse commands) and
// these functions decide; they do no I/O, so every decision is tested here.

// CheckRun is one job of a run of the sweep workflow (an Actions job is a
// check run; only the sweep workflow's own runs are evidence).
type CheckRun struct {
	Name       string
	Status     string // queued, in_progress, completed
	Conclusion string // success, failure, skipped, cancelled, ...
	// RunID is the workflow run the job belongs to (from its details URL).
	RunID int64
}

// CommitRuns are the jobs of one sweep run on a commit of the PR.
type CommitRuns struct {
	SHA  string
	Runs []CheckRun
}

// SweepPatterns name the check runs that are the benchmark sweep and the
// evals (path.Match patterns on the check run name). Aggregators such as
// collect-evals are not among them: they succeed when their inputs were
// skipped.
var (
	SweepPatterns = []string{"single-node */*", "single-node * / *"}
	EvalPatterns  = []string{"eval /*", "eval / *"}
)

func matchAnyName(name string, pats []string) bool {
	for _, p := range pats {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// SweepResult is what check 1 found: the commit whose sweep counts, and
// the workflow run its evals came from (check 2 downloads from it).
type SweepResult struct {
	Commit string
	RunID  int64
}

// VerifySweep is check 1: some commit still in the PR (commits oldest
// first) has sweep and eval check runs, all concluded success (skipped
// is not success). The newest such commit counts.
func VerifySweep(repo string, commits []CommitRuns, err error) (Check, *SweepResult) {
	c := Check{N: CheckSweep}
	if err != nil {
		c.Status, c.Reason = Fail, "could not read the sweep runs of the PR's commits: "+err.Error()
		return c, nil
	}
	var near string
	for i := len(commits) - 1; i >= 0; i-- {
		cm := commits[i]
		var sweep, evals, bad []CheckRun
		for _, r := range cm.Runs {
			isSweep, isEval := matchAnyName(r.Name, SweepPatterns), matchAnyName(r.Name, EvalPatterns)
			if !isSweep && !isEval {
				continue
			}
			if isSweep {
				sweep = append(sweep, r)
			} else {
				evals = append(evals, r)
			}
			if r.Status != "completed" || r.Conclusion != "success" {
				bad = append(bad, r)
			}
		}
		if len(sweep) == 0 && len(evals) == 0 {
			continue
		}
		if len(bad) == 0 && len(sweep) > 0 && len(evals) > 0 {
			res := &SweepResult{Commit: cm.SHA, RunID: majorityRun(evals)}
			c.Status = Pass
			c.Reason = fmt.Sprintf("in-PR commit %s has a sweep run whose %d/%d `single-node */…` and %d/%d `eval /…` jobs concluded success", prose.ShortSHA(cm.SHA), len(sweep), len(sweep), len(evals), len(evals))
			if res.RunID != 0 {
				c.Reason += fmt.Sprintf(" (run https://github.com/%s/actions/runs/%d)", repo, res.RunID)
			}
			return c, res
		}
		if near == "" {
			switch {
			case len(bad) > 0:
				r := bad[0]
				state := r.Conclusion
				if r.Status != "completed" {
					state = r.Status
				}
				near = fmt.Sprintf("the newest sweep run, on %s, has %d of %d jobs not concluded success (e.g. %s: %s)", prose.ShortSHA(cm.SHA), len(bad), len(sweep)+len(evals), prose.Code(r.Name), state)
			case len(evals) == 0:
				near = fmt.Sprintf("the sweep run of commit %s has %d sweep jobs but no `eval /…` job", prose.ShortSHA(cm.SHA), len(sweep))
			default:
				near = fmt.Sprintf("the sweep run of commit %s has eval jobs but no `single-node */…` job", prose.ShortSHA(cm.SHA))
			}
		}
	}
	c.Status = Fail
	if near != "" {
		c.Reason = near + "; a skipped job is not a pass"
	} else {
		c.Reason = "no commit still in the PR has a run of the sweep workflow with `single-node */…` and `eval /…` jobs; run the sweep (a full-sweep label) on a commit of this PR"
	}
	return c, nil
}

func majorityRun(rs []CheckRun) int64 {
	n := map[int64]int{}
	var best int64
	for _, r := range rs {
		if r.RunID == 0 {
			continue
		}
		n[r.RunID]++
		if n[r.RunID] > n[best] {
			best = r.RunID
		}
	}
	return best
}

// EvalArtifactName is the artifact check 2 reads, and EvalFile the file
// in it.
const (
	EvalArtifactName = "eval_results_all"
	EvalFile         = "agg_eval_all.json"
)

// Bounds on the artifact: a zip bomb or a giant file is an error, never a
// hang or an out-of-memory.
const (
	maxZipFiles   = 10000
	maxEvalBytes  = 64 << 20
	maxZipArchive = 512 << 20
)

// EvalRow is one row of agg_eval_all.json. The identifying fields are
// read as the repository's collector writes them (hw is the runner label
// upper-cased; tp and ep numbers; dp_attention "true"/"false"); a field
// of another type or left empty identifies nothing.
type EvalRow struct {
	ModelPrefix  string   `json:"model_prefix"`
	Model        string   `json:"model"`
	HW           string   `json:"hw"`
	Framework    string   `json:"framework"`
	Precision    string   `json:"precision"`
	SpecDecoding string   `json:"spec_decoding"`
	Task         string   `json:"task"`
	Score        *float64 `json:"score"`
	ScoreName    string   `json:"score_name"`
	TP           any      `json:"tp"`
	EP           any      `json:"ep"`
	Conc         any      `json:"conc"`
	DPAttention  any      `json:"dp_attention"`
	// Multi-node rows describe both worker pools.
	PrefillTP          any `json:"prefill_tp"`
	PrefillEP          any `json:"prefill_ep"`
	PrefillDPAttention any `json:"prefill_dp_attention"`
	DecodeTP           any `json:"decode_tp"`
	DecodeEP           any `json:"decode_ep"`
	DecodeDPAttention  any `json:"decode_dp_attention"`
}

// ReadEvalArtifact extracts and parses agg_eval_all.json from the
// artifact's zip archive.
func ReadEvalArtifact(archive []byte) ([]EvalRow, error) {
	if len(archive) > maxZipArchive {
		return nil, fmt.Errorf("the artifact archive is %d bytes, over the %d-byte limit", len(archive), maxZipArchive)
	}
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, fmt.Errorf("the artifact is not a readable zip archive: %w", err)
	}
	if len(zr.File) > maxZipFiles {
		return nil, fmt.Errorf("the artifact holds %d files, over the %d-file limit", len(zr.File), maxZipFiles)
	}
	for _, f := range zr.File {
		if path.Base(f.Name) != EvalFile || f.FileInfo().IsDir() {
			continue
		}
		if f.UncompressedSize64 > maxEvalBytes {
			return nil, fmt.Errorf("%s claims %d bytes uncompressed, over the %d-byte limit", f.Name, f.UncompressedSize64, maxEvalBytes)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("open %s in the artifact: %w", f.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxEvalBytes+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s in the artifact: %w", f.Name, err)
		}
		if len(b) > maxEvalBytes {
			return nil, fmt.Errorf("%s inflates past %d bytes (the size in the archive's directory is wrong)", f.Name, maxEvalBytes)
		}
		var rows []EvalRow
		if err := json.Unmarshal(b, &rows); err != nil {
			return nil, fmt.Errorf("%s is not a JSON list of eval rows: %w", f.Name, err)
		}
		return rows, nil
	}
	return nil, fmt.Errorf("the artifact has no %s", EvalFile)
}

// Thresholds are the minimum scores per task: Default overridden per
// model prefix.
type Thresholds struct {
	Default map[string]float64            `yaml:"default"`
	Models  map[string]map[string]float64 `yaml:"models"`
}

// ParseThresholds reads utils/evals/thresholds.yaml.
func ParseThresholds(b []byte) (*Thresholds, error) {
	var t Thresholds
	if err := yaml.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Min returns the threshold for a task of a model prefix.
func (t *Thresholds) Min(prefix, task string) (float64, bool) {
	if m, ok := t.Models[prefix]; ok {
		if v, ok := m[task]; ok {
			return v, true
		}
	}
	v, ok := t.Default[task]
	return v, ok
}

// EvalInput is what check 2 reads.
type EvalInput struct {
	Repo  string
	RunID int64
	// Rows are the parsed artifact; Err says why they could not be read
	// (no run, no artifact, expired, a bad archive).
	Rows []EvalRow
	Err  error
	// Thresholds is the base tree's thresholds file, ThresholdsPath its
	// path.
	Thresholds     []byte
	ThresholdsPath string
	// Keys are the configs the PR changes.
	Keys []masterconfig.ChangedKey
}

// VerifyEvals is check 2: for every config the PR changes (fixed
// sequence length and agentic alike: the repository's eval selection runs
// both), the eval artifact has a row that is that config's own, matching
// it on every identifying field, and each such row scores at or above the
// base tree's threshold.
func VerifyEvals(in EvalInput) Check {
	c := Check{N: CheckEvals}
	run := fmt.Sprintf("run https://github.com/%s/actions/runs/%d", in.Repo, in.RunID)
	if in.RunID == 0 {
		run = "the sweep run"
	}
	// Whether evals apply does not depend on the artifact: a PR that
	// changes no benchmark config needs none.
	if len(in.Keys) == 0 {
		c.Status, c.Reason = NA, "the PR changes no benchmark config, so there is nothing for the evals to cover"
		return c
	}
	if in.Err != nil {
		c.Status, c.Reason = Fail, fmt.Sprintf("could not read `%s` of %s: %v", EvalArtifactName, run, in.Err)
		return c
	}
	if len(in.Thresholds) == 0 {
		c.Status, c.Reason = Fail, fmt.Sprintf("the base branch has no eval thresholds file %s to compare the scores with", orDefault(in.ThresholdsPath, "thresholds.yaml"))
		return c
	}
	th, err := ParseThresholds(in.Thresholds)
	if err != nil || th == nil {
		c.Status, c.Reason = Fail, fmt.Sprintf("could not read the eval thresholds %s at base: %v", orDefault(in.ThresholdsPath, "thresholds.yaml"), err)
		return c
	}
	var missing, low []string
	matched, tasks := 0, map[string]bool{}
	lo, hi := 2.0, -1.0
	for _, k := range in.Keys {
		rows := EvalRowsFor(in.Rows, k)
		if len(rows) == 0 {
			missing = append(missing, prose.Code(k.Key.Name))
			continue
		}
		for _, r := range rows {
			floor, ok := th.Min(r.ModelPrefix, r.Task)
			switch {
			case r.Score == nil:
				low = append(low, fmt.Sprintf("%s %s has no score", prose.Code(k.Key.Name), r.Task))
			case !ok:
				low = append(low, fmt.Sprintf("%s %s has no threshold in %s", prose.Code(k.Key.Name), prose.Code(r.Task), orDefault(in.ThresholdsPath, "thresholds.yaml")))
			case *r.Score < floor:
				low = append(low, fmt.Sprintf("%s %s %.3f < %.2f", prose.Code(k.Key.Name), prose.Code(r.Task), *r.Score, floor))
			default:
				matched++
				tasks[r.Task] = true
				lo, hi = min(lo, *r.Score), max(hi, *r.Score)
			}
		}
	}
	switch {
	case len(missing) > 0:
		c.Status = Fail
		c.Reason = fmt.Sprintf("`%s` of %s has no eval row of %s (a row counts for a config only when its model prefix, hardware, framework, precision, spec decoding, tp, ep and dp-attention are that config's)",
			EvalFile, run, limitList(missing, 3))
	case len(low) > 0:
		c.Status = Fail
		c.Reason = fmt.Sprintf("`%s` of %s: %s", EvalFile, run, limitList(low, 3))
	default:
		var ts []string
		for t := range tasks {
			ts = append(ts, t)
		}
		sort.Strings(ts)
		c.Status = Pass
		c.Reason = fmt.Sprintf("`%s` of %s: %d %s results for the changed configs, scoring %.3f–%.3f, each at or above its threshold in %s",
			EvalFile, run, matched, strings.Join(ts, "/"), lo, hi, orDefault(in.ThresholdsPath, "thresholds.yaml"))
	}
	return c
}

// EvalRowsFor returns the eval rows that are a changed config's own: the
// key's model prefix, hardware (its runner label, or the hardware segment
// of its name), framework and precision, and the spec decoding,
// parallelism and dp-attention of one of the rows the PR changed (all of
// the key's rows when its settings outside the search space changed).
// Every field must be present and equal: an empty field, or a hardware
// that only starts like the key's, identifies nothing.
func EvalRowsFor(rows []EvalRow, ck masterconfig.ChangedKey) []EvalRow {
	k := ck.Key
	if k == nil {
		return nil
	}
	var ids []rowIdentity
	scope := ck.Rows
	if ck.New || ck.HeaderChanged || len(scope) == 0 {
		scope = nil
		for _, sc := range k.Scenarios {
			scope = append(scope, sc.Rows...)
		}
	}
	for _, r := range scope {
		ids = append(ids, identityOf(r))
	}
	hw := []string{k.Runner.Value, keySegment(k.Name, 2)}
	var out []EvalRow
	for _, r := range rows {
		if !same(r.ModelPrefix, k.ModelPrefix.Value) || !same(r.Framework, k.Framework.Value) ||
			!same(r.Precision, k.Precision.Value) || !(same(r.HW, hw[0]) || same(r.HW, hw[1])) {
			continue
		}
		for _, id := range ids {
			if id.matches(r) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// rowIdentity is what tells the eval rows of one search-space row from
// another's.
type rowIdentity struct {
	spec          string
	tp, ep, dp    string
	multinode     bool
	ptp, pep, pdp string
	dtp, dep, ddp string
}

// identityOf reads a row with the sweep generator's defaults (ep 1, no
// dp-attention, spec decoding none).
func identityOf(r *masterconfig.Row) rowIdentity {
	id := rowIdentity{spec: orDefault(r.SpecDecoding, "none"), tp: r.TP, ep: orDefault(r.EP, "1"), dp: boolText(r.DPAttn)}
	if r.Prefill != nil && r.Decode != nil {
		id.multinode = true
		id.ptp, id.pep, id.pdp = r.Prefill.TP, orDefault(r.Prefill.EP, "1"), boolText(r.Prefill.DPAttn)
		id.dtp, id.dep, id.ddp = r.Decode.TP, orDefault(r.Decode.EP, "1"), boolText(r.Decode.DPAttn)
	}
	return id
}

func (id rowIdentity) matches(r EvalRow) bool {
	if !same(r.SpecDecoding, id.spec) {
		return false
	}
	if id.multinode {
		return same(numText(r.PrefillTP), id.ptp) && same(numText(r.PrefillEP), id.pep) && same(boolOf(r.PrefillDPAttention), id.pdp) &&
			same(numText(r.DecodeTP), id.dtp) && same(numText(r.DecodeEP), id.dep) && same(boolOf(r.DecodeDPAttention), id.ddp)
	}
	return same(numText(r.TP), id.tp) && same(numText(r.EP), id.ep) && same(boolOf(r.DPAttention), id.dp)
}

// same compares two identifying values; an empty one equals nothing.
func same(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	return a != "" && b != "" && strings.EqualFold(a, b)
}

// numText is a JSON number (or a string holding one) as an integer's
// text; "" for anything else.
func numText(v any) string {
	switch x := v.(type) {
	case float64:
		if x != float64(int64(x)) {
			return ""
		}
		return strconv.FormatInt(int64(x), 10)
	case string:
		if _, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return strings.TrimSpace(x)
		}
	}
	return ""
}

// boolOf is a JSON boolean (or "true"/"false") as text; "" for anything
// else.
func boolOf(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return strconv.FormatBool(b)
		}
	}
	return ""
}

// boolText reads a config's boolean setting; unset is false.
func boolText(s string) string {
	if s == "" {
		return "false"
	}
	if b, err := strconv.ParseBool(s); err == nil {
		return strconv.FormatBool(b)
	}
	return s
}

// UpstreamPR is the state of an upstream recipe PR the sign-off links.
type UpstreamPR struct {
	State string // MERGED, OPEN, CLOSED
	Draft bool
	// Diff is the PR's patch text ("" when it could not be read, and
	// DiffErr then says why).
	Diff    string
	DiffErr error
	Err     error
}

// upstreamRepos hold the official recipes.
var upstreamRepos = []string{"vllm-project/recipes", "sgl-project/sglang"}

// UpstreamLinks returns the sign-off's links to upstream recipe PRs.
func UpstreamLinks(s *SignOff) []Link {
	var out []Link
	for _, l := range s.LinksOf(LinkPR) {
		for _, r := range upstreamRepos {
			if strings.EqualFold(l.Owner+"/"+l.Repo, r) {
				out = append(out, l)
			}
		}
	}
	return out
}

// RecipeInput is what check 3 reads.
type RecipeInput struct {
	Change  *checks.Change
	SignOff *SignOff
	// Upstream holds the state of every link of UpstreamLinks, by URL;
	// nil for a local run.
	Upstream map[string]UpstreamPR
}

// VerifyRecipe is check 3: for single-node vLLM/SGLang recipes, the
// sign-off links a MERGED upstream recipe PR (or a published recipe page)
// in which the major serving args the PR adds appear.
func VerifyRecipe(ctx context.Context, in RecipeInput) Check {
	c := Check{N: CheckRecipe}
	scripts, err := changedScripts(ctx, in.Change)
	if err != nil {
		c.Status, c.Reason = Fail, "could not read the changed recipes: "+err.Error()
		return c
	}
	var relevant []recipeFile
	for _, s := range scripts {
		if isSingleNodeUpstream(s) {
			relevant = append(relevant, s)
		}
	}
	if len(relevant) == 0 {
		c.Status, c.Reason = NA, "the PR changes no single-node vLLM/SGLang recipe (multi-node and disaggregated recipes are exempt)"
		return c
	}
	args := majorArgs(in.Change, relevant)
	links := UpstreamLinks(in.SignOff)
	pages := in.SignOff.LinksOf(LinkRecipe)
	argText := "the major serving args it adds"
	if len(args) > 0 {
		argText = "the major serving args it adds (" + limitList(quoteAll(args), 4) + ")"
	}
	if len(links) == 0 {
		if len(pages) > 0 && len(args) == 0 {
			c.Status, c.Reason = Pass, fmt.Sprintf("the sign-off links the published recipe %s, and the PR adds no major serving arg it would have to document", prose.Code(pages[0].URL))
			return c
		}
		c.Status = Fail
		if len(pages) > 0 {
			c.Reason = fmt.Sprintf("the sign-off links the published recipe %s, which the bot cannot read to confirm %s; link the MERGED vllm-project/recipes or sgl-project/sglang PR that documents them", prose.Code(pages[0].URL), argText)
		} else {
			c.Reason = fmt.Sprintf("no merged upstream recipe PR (vllm-project/recipes or sgl-project/sglang) or published recipe page is linked for %s, so %s are not shown to be documented upstream", limitList(basenames(relevant), 2), argText)
		}
		return c
	}
	for _, l := range links {
		st, ok := in.Upstream[l.URL]
		if in.Upstream == nil || !ok {
			c.Status, c.Reason = Fail, fmt.Sprintf("the state of %s was not read (it needs the GitHub API)", l.PRURL())
			return c
		}
		if st.Err != nil {
			c.Status, c.Reason = Fail, fmt.Sprintf("could not read %s: %v", l.PRURL(), st.Err)
			return c
		}
		if st.State != "MERGED" {
			state := st.State
			if st.Draft {
				state = "a draft"
			}
			c.Status, c.Reason = Fail, fmt.Sprintf("the linked upstream recipe PR %s is %s, not MERGED; an open, draft or closed-without-merge PR does not count", l.PRURL(), strings.ToLower(state))
			return c
		}
	}
	if len(args) > 0 {
		var diff strings.Builder
		readable := false
		for _, l := range links {
			if d := in.Upstream[l.URL].Diff; d != "" {
				readable = true
				diff.WriteString(d)
			}
		}
		if !readable {
			why := ""
			for _, l := range links {
				if e := in.Upstream[l.URL].DiffErr; e != nil {
					why = fmt.Sprintf(" (%v)", e)
					break
				}
			}
			c.Status, c.Reason = Fail, fmt.Sprintf("%s is MERGED, but its diff could not be read%s to confirm %s", links[0].PRURL(), why, argText)
			return c
		}
		var absent []string
		for _, a := range args {
			if !strings.Contains(diff.String(), strings.TrimLeft(a, "-")) {
				absent = append(absent, a)
			}
		}
		if len(absent) > 0 {
			c.Status, c.Reason = Fail, fmt.Sprintf("%s is MERGED but does not document %s", links[0].PRURL(), limitList(quoteAll(absent), 4))
			return c
		}
	}
	c.Status = Pass
	c.Reason = fmt.Sprintf("the sign-off links %s, MERGED", links[0].PRURL())
	if len(args) > 0 {
		c.Reason += fmt.Sprintf(", which documents %s", limitList(quoteAll(args), 4))
	}
	return c
}

func isSingleNodeUpstream(s recipeFile) bool {
	if !strings.Contains("/"+s.path, "/single_node/") {
		return false
	}
	return s.facts.Engine == script.VLLM || s.facts.Engine == script.SGLang
}

func basenames(ss []recipeFile) []string {
	var out []string
	for _, s := range ss {
		out = append(out, prose.Code(path.Base(s.path)))
	}
	return out
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prose.Code(s)
	}
	return out
}

// majorWords mark a server option or env var as a major serving arg: the
// model's parallel layout, quantization, the KV dtype, kernel backends.
var majorWords = []string{"parallel", "dp-attention", "quantization", "kv-cache-dtype", "backend", "attention-config", "moe-runner", "kernel"}

// majorArgs lists the major serving args the PR adds to the recipes: server
// options of the major kinds on added lines, and engine switches
// (VLLM_USE_*, SGLANG_*_BACKEND) it exports there.
func majorArgs(ch *checks.Change, ss []recipeFile) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range ss {
		fc := ch.File(s.path)
		for _, srv := range s.facts.Servers {
			for _, fl := range srv.Flags {
				if !fc.IsAdded(fl.Line) {
					continue
				}
				n := strings.ToLower(fl.Name)
				for _, w := range majorWords {
					if strings.Contains(n, w) {
						add(fl.Name)
						break
					}
				}
			}
		}
		for _, v := range s.facts.Vars {
			if !fc.IsAdded(v.Line) || v.Kind.String() != "export" {
				continue
			}
			n := v.Name
			if (strings.HasPrefix(n, "VLLM_USE_") || strings.HasPrefix(n, "SGLANG_")) && (strings.Contains(n, "USE_") || strings.Contains(n, "BACKEND")) {
				add(n + "=" + strings.Trim(v.Value, `"'`))
			}
		}
	}
	return out
}

// ReuseCommand is an authorizing comment (section 5) and what its
// validation found.
type ReuseCommand struct {
	URL         string
	Author      string
	Association string
	// Command is "/reuse-sweep-run" or "/use"; RunID is 0 for a bare
	// /reuse-sweep-run.
	Command string
	RunID   int64
	// Authorized: the association may issue it. Resolved: the run it
	// names (or the latest run a bare command finds) can be reused; Reason
	// says why not.
	Authorized bool
	Resolved   bool
	Reason     string
	// Evidence is what the resolution found (the run, its head and
	// artifacts), cited on a pass.
	Evidence string
}

// VerifyReuse is check 4: an authorized reuse command exists and resolves
// to a reusable run. The newest authorized command counts.
func VerifyReuse(cmds []ReuseCommand, err error) Check {
	c := Check{N: CheckReuse}
	if err != nil {
		c.Status, c.Reason = Fail, "could not read the PR's comments: "+err.Error()
		return c
	}
	var last *ReuseCommand
	unauthorized := 0
	for i := range cmds {
		if cmds[i].Authorized {
			last = &cmds[i]
		} else {
			unauthorized++
		}
	}
	if last == nil {
		c.Status = Fail
		c.Reason = "no `/reuse-sweep-run` or `/use <run_id>` comment from an OWNER, MEMBER or COLLABORATOR"
		if unauthorized > 0 {
			c.Reason += fmt.Sprintf(" (%d from others were ignored)", unauthorized)
		}
		return c
	}
	what := last.Command
	if last.RunID != 0 {
		what += " " + strconv.FormatInt(last.RunID, 10)
	}
	if !last.Resolved {
		c.Status, c.Reason = Fail, fmt.Sprintf("%s by %s (%s) cannot be used: %s", prose.Code(what), last.Author, last.Association, last.Reason)
		return c
	}
	c.Status = Pass
	c.Reason = fmt.Sprintf("%s posted by %s (%s)", prose.Code(what), last.Author, last.Association)
	if last.URL != "" {
		c.Reason += " " + last.URL
	}
	if last.Evidence != "" {
		c.Reason += "; " + last.Evidence
	}
	return c
}

// ErrNoRun is the error for an artifact that cannot be looked for: check
// 1 found no run.
var ErrNoRun = errors.New("check 1 found no sweep run on a commit of the PR")
