package signoff

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/changelog"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// TemplateInput is what check 5 reads.
type TemplateInput struct {
	// Checklist is the base branch's docs/PR_REVIEW_CHECKLIST.md ("" when
	// absent), Path its path.
	Checklist string
	Path      string
	SignOff   *SignOff
}

// VerifyTemplate is check 5: every item of the base branch's checklist
// template appears in the sign-off (fuzzy match on its text), and is
// checked or explained in the additional detail section.
func VerifyTemplate(in TemplateInput) Check {
	c := Check{N: CheckTemplate}
	p := orDefault(in.Path, "docs/PR_REVIEW_CHECKLIST.md")
	items := ParseTemplate(in.Checklist)
	if len(items) == 0 {
		c.Status, c.Reason = Fail, fmt.Sprintf("the base branch's %s has no template items to compare with", p)
		return c
	}
	var missing, unexplained []string
	explainedN := 0
	for _, t := range items {
		tw := words(t.Text)
		best, bestSim := -1, 0.0
		for i, it := range in.SignOff.Items {
			if s := similarity(tw, words(it.Text)); s > bestSim {
				best, bestSim = i, s
			}
		}
		label := fmt.Sprintf("%s:%d (%q)", p, t.Line, shorten(t.Text, 60))
		if best < 0 || bestSim < matchThreshold {
			missing = append(missing, label)
			continue
		}
		if in.SignOff.Items[best].Checked {
			continue
		}
		if explained(t.Text, in.SignOff.Details) {
			explainedN++
			continue
		}
		unexplained = append(unexplained, label)
	}
	switch {
	case len(missing) > 0:
		c.Status = Fail
		c.Reason = fmt.Sprintf("the sign-off is not the latest template: %d of %d items of %s are missing, e.g. %s; copy the current template", len(missing), len(items), p, limitList(missing, 2))
	case len(unexplained) > 0:
		c.Status = Fail
		c.Reason = fmt.Sprintf("unchecked and not explained in the additional detail section: %s", limitList(unexplained, 3))
	default:
		c.Status = Pass
		c.Reason = fmt.Sprintf("the sign-off contains every item of the current %s template (%d items)", p, len(items))
		if explainedN > 0 {
			c.Reason += fmt.Sprintf("; each of the %d unchecked items is explained in the additional detail section", explainedN)
		}
	}
	return c
}

func shorten(s string, n int) string {
	s = prose.OneLine(mdLinkRe.ReplaceAllString(s, "$1"))
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + "…"
}

// RuleInput is what checks 6-12 read: a change the check library has
// reviewed (Config resolved) and its findings.
type RuleInput struct {
	Change   *checks.Change
	Findings []checks.Finding
	SignOff  *SignOff
}

// RuleChecks are checks 6-12, each the sign-off's view of check-library
// rules: 6 MC003 and engine-first, 7 MC005, 8 SH012, 9 SH010, 10 SH011
// with the waiver linked, 11 SH013, 12 CL006 and unchanged existing points.
func RuleChecks(ctx context.Context, in RuleInput) ([]Check, error) {
	byRule := map[string][]checks.Finding{}
	for _, f := range in.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], f)
	}
	keys, err := masterconfig.ChangedKeys(ctx, in.Change)
	if err != nil {
		return nil, err
	}
	scripts, err := changedScripts(ctx, in.Change)
	if err != nil {
		return nil, err
	}
	out := []Check{
		checkImages(ctx, in, keys, byRule["MC003"]),
		findingsCheck(CheckDeprecated, byRule["MC005"], "no config the PR adds or changes is for a model or scenario MODELS.md deprecates on "+in.Change.Today().Format("2006-01-02")),
		checkArch(byRule["SH012"]),
		checkSpec(CheckChatTemplate, scripts, false, byRule["SH010"], "no speculative decoding in the fixed-sequence-length recipes this PR changes",
			"the spec-decode benchmark clients the PR changes pass `--use-chat-template`"),
		checkPatches(in, scripts, byRule["SH011"]),
		checkSpec(CheckGoldenAL, scripts, true, byRule["SH013"], "no speculative decoding in the agentic recipes this PR changes",
			"agentic speculative decoding is pinned to the golden AL curve through simulated acceptance"),
	}
	ao, err := checkAppendOnly(ctx, in, keys, byRule["CL006"])
	if err != nil {
		return nil, err
	}
	return append(out, ao), nil
}

// cite renders a finding's place as path:line.
func cite(f checks.Finding) string { return f.Location().String() }

// findingsCheck fails with the first finding's statement (and how many
// more there are), or passes with ok.
func findingsCheck(n int, fs []checks.Finding, ok string) Check {
	if len(fs) == 0 {
		return Check{N: n, Status: Pass, Reason: ok}
	}
	reason := fmt.Sprintf("%s (%s, %s)", statement(fs[0]), fs[0].Rule, cite(fs[0]))
	if len(fs) > 1 {
		reason += fmt.Sprintf("; %d more like it", len(fs)-1)
	}
	return Check{N: n, Status: Fail, Reason: reason}
}

// statement is a finding's message up to its fix.
func statement(f checks.Finding) string {
	m := prose.OneLine(f.Body)
	for _, cut := range []string{" Fix:", " Fix ", " Set it to", " Remove the", " Add "} {
		if i := strings.Index(m, cut); i > 40 {
			m = m[:i]
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(m), ".")
}

// upstreamFramework reports whether a framework value is vLLM or SGLang
// (dynamo-vllm and dynamo-sglang serve with them too).
func upstreamFramework(fw string) bool {
	fw = strings.ToLower(fw)
	return strings.Contains(fw, "vllm") || strings.Contains(fw, "sglang")
}

func keySegment(k string, i int) string {
	s := strings.Split(k, "-")
	if i < len(s) {
		return s[i]
	}
	return ""
}

func checkImages(ctx context.Context, in RuleInput, keys []masterconfig.ChangedKey, mc003 []checks.Finding) Check {
	c := Check{N: CheckImages}
	if len(mc003) > 0 {
		return findingsCheck(CheckImages, mc003, "")
	}
	if len(keys) == 0 {
		c.Status, c.Reason = NA, "the PR changes no master-config key"
		return c
	}
	// Engine first: a key served by another framework needs a vLLM or
	// SGLang key for the same model and hardware, unless the sign-off
	// documents an exception.
	all, err := allKeys(ctx, in.Change)
	if err != nil {
		c.Status, c.Reason = Fail, "could not read the master configs at head: "+err.Error()
		return c
	}
	var images, lacking []string
	for _, k := range keys {
		fw := k.Key.Framework.Value
		if k.Key.Image.Value != "" && len(images) < 2 {
			images = append(images, fmt.Sprintf("%s (%s)", prose.Code(k.Key.Image.Value), prose.Code(k.Key.Name)))
		}
		if upstreamFramework(fw) {
			continue
		}
		prefix, hw := keySegment(k.Key.Name, 0), keySegment(k.Key.Name, 2)
		found := false
		for _, o := range all {
			if keySegment(o.Name, 0) == prefix && keySegment(o.Name, 2) == hw && upstreamFramework(o.Framework.Value) {
				found = true
				break
			}
		}
		if !found {
			lacking = append(lacking, fmt.Sprintf("%s (framework %s, %s)", prose.Code(k.Key.Name), prose.Code(fw), prose.Code(fmt.Sprintf("%s:%d", k.Path, k.Key.Line))))
		}
	}
	if len(lacking) > 0 && !documentsException(in.SignOff) {
		c.Status = Fail
		c.Reason = fmt.Sprintf("%s has no vLLM or SGLang config for the same model and hardware, and the sign-off documents no exception (new hardware or architecture)", limitList(lacking, 2))
		return c
	}
	c.Status = Pass
	c.Reason = "the changed configs use upstream images where MC003 requires them: " + prose.JoinAnd(images)
	if len(lacking) > 0 {
		c.Reason += "; the sign-off documents an exception for the non-vLLM/SGLang framework"
	}
	return c
}

// documentsException reports whether the additional detail section claims
// an engine-first exception.
func documentsException(s *SignOff) bool {
	d := strings.ToLower(s.Details)
	return strings.Contains(d, "exception") && (strings.Contains(d, "vllm") || strings.Contains(d, "sglang") || strings.Contains(d, "hardware") || strings.Contains(d, "architecture"))
}

func allKeys(ctx context.Context, ch *checks.Change) ([]*masterconfig.Key, error) {
	entries, err := checks.Walk(ctx, ch.Head, "")
	if err != nil {
		return nil, err
	}
	var out []*masterconfig.Key
	for _, e := range entries {
		if !ch.Config.IsMasterConfig(e.Path) {
			continue
		}
		f, err := checks.Parsed(ctx, ch.Cache, ch.Head, "signoff.master-config", e.Path, masterconfig.ParseMasterConfig)
		if err != nil {
			return nil, err
		}
		out = append(out, f.Keys...)
	}
	return out, nil
}

func checkArch(fs []checks.Finding) Check {
	var blocking, warn []checks.Finding
	for _, f := range fs {
		if f.Severity == checks.Blocking {
			blocking = append(blocking, f)
		} else {
			warn = append(warn, f)
		}
	}
	c := findingsCheck(CheckArch, blocking, "no `--hf-overrides`, model-override arguments or config.json edit changes the model architecture in the scripts this PR changes")
	if c.Status == Pass && len(warn) > 0 {
		c.Reason = fmt.Sprintf("no architecture override found; %s edits a config.json whose keys could not be read (SH012 warning): confirm it changes no architecture key", cite(warn[0]))
	}
	return c
}

// recipeFile is a recipe the PR adds or changes, with its head facts.
type recipeFile struct {
	path  string
	facts *script.Facts
}

func changedScripts(ctx context.Context, ch *checks.Change) ([]recipeFile, error) {
	var out []recipeFile
	for _, fc := range ch.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || !ch.Config.IsRecipe(fc.Path) {
			continue
		}
		f, err := recipe.HeadFacts(ctx, ch, fc.Path)
		if err != nil {
			if script.IsParseError(err) {
				continue
			}
			return nil, err
		}
		if f != nil {
			out = append(out, recipeFile{fc.Path, f})
		}
	}
	return out, nil
}

func checkSpec(n int, scripts []recipeFile, agentic bool, fs []checks.Finding, na, ok string) Check {
	var spec []string
	for _, s := range scripts {
		if script.IsAgentic(s.path) == agentic && recipe.UsesSpecDecoding(s.facts) {
			spec = append(spec, path.Base(s.path))
		}
	}
	if len(fs) == 0 && len(spec) == 0 {
		return Check{N: n, Status: NA, Reason: na}
	}
	c := findingsCheck(n, fs, ok)
	if c.Status == Pass {
		c.Reason += " (" + limitList(spec, 3) + ")"
	}
	return c
}

func checkPatches(in RuleInput, scripts []recipeFile, sh011 []checks.Finding) Check {
	c := Check{N: CheckPatches}
	if len(sh011) > 0 {
		return findingsCheck(CheckPatches, sh011, "")
	}
	var patched []string
	for _, s := range scripts {
		if len(s.facts.Patches) > 0 {
			p := s.facts.Patches[0]
			patched = append(patched, fmt.Sprintf("%s:%d", s.path, p.Line))
		}
	}
	if len(patched) == 0 {
		c.Status = Pass
		c.Reason = "no patch files, git apply, sed or heredoc rewrites of engine sources, site-packages edits or engine wheel installs in the scripts this PR changes"
		return c
	}
	// SH011 accepted the patches, so the PR adds its waiver; the sign-off
	// must link it.
	waiver := fmt.Sprintf("docs/waiver/%d.md", in.Change.PR.Number)
	for _, l := range in.SignOff.LinksOf(LinkWaiver) {
		if l.Number == int64(in.Change.PR.Number) {
			c.Status = Pass
			c.Reason = fmt.Sprintf("the engine patch at %s is covered by %s, added in this PR and linked in the sign-off", limitList(patched, 2), waiver)
			return c
		}
	}
	c.Status = Fail
	c.Reason = fmt.Sprintf("the PR patches the engine (%s) under %s, but the sign-off does not link the waiver", limitList(patched, 2), waiver)
	return c
}

func checkAppendOnly(ctx context.Context, in RuleInput, keys []masterconfig.ChangedKey, cl006 []checks.Finding) (Check, error) {
	c := Check{N: CheckAppendOnly}
	a, err := changelog.Analyze(&checks.Pass{Ctx: ctx, Change: in.Change})
	if err != nil {
		return c, err
	}
	var named []string
	if a.Head != nil && a.Align != nil {
		for _, i := range a.Align.New() {
			e := a.Head.Entries[i]
			if e.AppendOnly() {
				named = append(named, e.KeyNames()...)
			}
		}
	}
	if len(named) == 0 && len(cl006) == 0 {
		c.Status, c.Reason = NA, "no changelog entry this PR appends sets `append-only: true`"
		return c, nil
	}
	if len(cl006) > 0 {
		return findingsCheck(CheckAppendOnly, cl006, ""), nil
	}
	// Every point the base generated must still be there, unchanged: no
	// base row of an append-only key lost or rewritten, no header change.
	var broken []string
	for _, k := range keys {
		if !matchesAny(k.Key.Name, named) || k.Base == nil {
			continue
		}
		if k.HeaderChanged {
			broken = append(broken, fmt.Sprintf("%s changes settings every point shares (%s)", prose.Code(k.Key.Name), prose.Code(fmt.Sprintf("%s:%d", k.Path, k.Key.Line))))
			continue
		}
		if lost := k.RemovedRows; lost > 0 {
			broken = append(broken, fmt.Sprintf("%s drops or rewrites %d existing row(s) (%s)", prose.Code(k.Key.Name), lost, prose.Code(fmt.Sprintf("%s:%d", k.Path, k.Key.Line))))
		}
	}
	if len(broken) > 0 {
		c.Status = Fail
		c.Reason = "append-only may only add points, but " + limitList(broken, 2)
		return c, nil
	}
	c.Status = Pass
	sort.Strings(named)
	c.Reason = fmt.Sprintf("the append-only entry only adds points; every existing point of %s is unchanged", limitList(named, 3))
	return c, nil
}

// matchesAny matches a key name against changelog config-keys, which may
// hold * wildcards.
func matchesAny(name string, patterns []string) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		if ok, _ := path.Match(p, name); ok && strings.Contains(p, "*") {
			return true
		}
	}
	return false
}
