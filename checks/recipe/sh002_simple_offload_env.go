package recipe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH002 reports a SimpleCPUOffloadConnector branch without the switch.
var SH002 = &checks.Rule{
	ID:       "SH002",
	Severity: checks.Blocking,
	Title:    "SimpleCPUOffloadConnector without VLLM_USE_SIMPLE_KV_OFFLOAD=1",
	Doc: "Every recipe branch that builds a `SimpleCPUOffloadConnector` KV-transfer config (or selects it " +
		"through the `--kv_offloading_backend native` shortcut) exports `VLLM_USE_SIMPLE_KV_OFFLOAD=1` on " +
		"the same path, and the branches that use other connectors unset it on purpose. A branch that " +
		"builds the config without the export still starts the server, so nothing fails — the run just " +
		"measures a different KV path than the one it is labelled with. Add " +
		"`export VLLM_USE_SIMPLE_KV_OFFLOAD=1` to the branch, right before the config.",
	Run: runSH002,
}

const (
	simpleEnv    = "VLLM_USE_SIMPLE_KV_OFFLOAD"
	shortcutFlag = "--kv-offloading-backend" // as NormFlag spells it
)

// simpleSite is a place that selects SimpleCPUOffloadConnector.
type simpleSite struct {
	// Line is the kv_connector key's line, or the shortcut flag's.
	Line   int
	Branch script.Branch
	// JSON is the config; nil for the shortcut form.
	JSON *script.JSONConfig
}

func (s simpleSite) shortcut() bool { return s.JSON == nil }

// signature identifies the branch across versions of a file (no line
// numbers).
func (s simpleSite) signature() string {
	sig := s.Branch.String()
	if s.shortcut() {
		sig += " [shortcut]"
	}
	return sig
}

// armKeys names the backend selection a path sits under, as
// "KV_OFFLOAD_BACKEND=vllm-simple": the patterns of its case arm, or, for
// recipes that select with `if` instead of `case`, an equality test on the
// variable or benchmark_lib.sh's `require_agentic_kv_offload_backend X`,
// which succeeds exactly when DRAM offload runs with backend X.
func armKeys(p script.Branch) []string {
	if c, ok := caseArm(p); ok {
		var out []string
		for _, pat := range c.Patterns {
			out = append(out, c.Var+"="+pat)
		}
		return out
	}
	for i := len(p) - 1; i >= 0; i-- {
		c := p[i]
		if c.Kind != script.CondIf || c.Negated || c.Else() {
			continue
		}
		if c.Var != "" && c.Op == "=" {
			return []string{c.Var + "=" + c.Value}
		}
		if f := strings.Fields(c.Text); len(f) == 2 && f[0] == "require_agentic_kv_offload_backend" {
			return []string{"KV_OFFLOAD_BACKEND=" + strings.Trim(f[1], `"'`)}
		}
	}
	return nil
}

// shortcutArms learns, from the given scripts, which case arms use the
// native-backend shortcut to mean SimpleCPUOffloadConnector (they pair it
// with the export) and which to mean the default OffloadingConnector (they
// unset the variable or leave it alone). An arm key seen both ways is
// dropped.
func shortcutArms(fs ...*script.Facts) map[string]bool {
	simple, other := map[string]bool{}, map[string]bool{}
	for _, f := range fs {
		if f == nil {
			continue
		}
		for _, fl := range shortcutFlags(f) {
			keys := armKeys(fl.Branch)
			if _, ok := simpleExport(f, fl.Branch); ok {
				for _, k := range keys {
					simple[k] = true
				}
			} else {
				for _, k := range keys {
					other[k] = true
				}
			}
		}
	}
	for k := range other {
		delete(simple, k)
	}
	return simple
}

func shortcutFlags(f *script.Facts) []script.Flag {
	var out []script.Flag
	for _, c := range f.Servers {
		for _, fl := range c.Flags {
			if script.NormFlag(fl.Name) == shortcutFlag && fl.Static && fl.Value == "native" {
				out = append(out, fl)
			}
		}
	}
	return out
}

// simpleSites returns the places in f that select SimpleCPUOffloadConnector:
// JSON configs naming it, and shortcut flags in arms that arms says mean it.
func simpleSites(f *script.Facts, arms map[string]bool) []simpleSite {
	var out []simpleSite
	for _, k := range kvConfigsOf(f, simpleConnector) {
		out = append(out, simpleSite{Line: k.Line, Branch: k.JSON.Branch, JSON: k.JSON})
	}
	seen := map[string]bool{}
	for _, fl := range shortcutFlags(f) {
		if !slices.ContainsFunc(armKeys(fl.Branch), func(k string) bool { return arms[k] }) {
			continue
		}
		s := simpleSite{Line: fl.Line, Branch: fl.Branch}
		if !seen[s.signature()] {
			seen[s.signature()] = true
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b simpleSite) int { return a.Line - b.Line })
	return out
}

// simpleExport returns the export of VLLM_USE_SIMPLE_KV_OFFLOAD that is in
// effect for the server on path p: an export (or a prefix on the server
// command) that covers p with a value other than 0, not undone by a later
// unset on the same path.
func simpleExport(f *script.Facts, p script.Branch) (script.Var, bool) {
	for _, v := range f.Exports(simpleEnv) {
		if !f.Covers(v.Branch, p) {
			continue
		}
		if v.Kind == script.EnvPrefix && !onServerCommand(f, v.Line) {
			continue
		}
		if val, ok := f.ExportedValue(v); ok && (val == "0" || val == "" || strings.EqualFold(val, "false")) {
			continue
		}
		undone := false
		for _, u := range f.VarsNamed(simpleEnv) {
			if u.Kind == script.Unset && u.Line > v.Line && f.Covers(u.Branch, p) {
				undone = true
				break
			}
		}
		if !undone {
			return v, true
		}
	}
	return script.Var{}, false
}

// onServerCommand reports whether line belongs to a server launch (where a
// VAR=value prefix reaches the server's environment).
func onServerCommand(f *script.Facts, line int) bool {
	for _, c := range f.Servers {
		if c.RunLine == line || (c.Array == "" && c.Line <= line && line <= c.EndLine) {
			return true
		}
	}
	return false
}

func runSH002(p *checks.Pass) error { return eachChangedRecipe(p, sh002) }

func sh002(p *checks.Pass, t *target) error {
	if t.Head.Engine != script.VLLM {
		return nil
	}
	sibs, err := Siblings(p.Ctx, p.Change, t.Path)
	if err != nil {
		return err
	}
	learn := []*script.Facts{t.Base}
	for _, s := range sibs {
		learn = append(learn, s.Facts)
	}
	arms := shortcutArms(learn...)

	var missing []simpleSite
	seen := map[string]bool{}
	for _, s := range simpleSites(t.Head, arms) {
		if _, ok := simpleExport(t.Head, s.Branch); ok || seen[s.signature()] {
			continue
		}
		seen[s.signature()] = true
		missing = append(missing, s)
	}
	if len(missing) == 0 {
		return nil
	}

	// What the base version did in the same branches.
	baseCovered, baseMissing := map[string]script.Var{}, map[string]bool{}
	if t.Base != nil {
		for _, s := range simpleSites(t.Base, arms) {
			if v, ok := simpleExport(t.Base, s.Branch); ok {
				baseCovered[s.signature()] = v
			} else {
				baseMissing[s.signature()] = true
			}
		}
	}

	// The siblings' convention.
	var exporters []exportSite
	nonExporters := 0
	files := map[string]bool{}
	for _, sib := range sibs {
		for _, s := range simpleSites(sib.Facts, arms) {
			if v, ok := simpleExport(sib.Facts, s.Branch); ok {
				exporters = append(exporters, exportSite{Path: sib.Path, Line: v.Line, Site: s})
				files[sib.Path] = true
			} else {
				nonExporters++
			}
		}
	}

	for _, s := range missing {
		sig := s.signature()
		if baseMissing[sig] {
			continue // the branch lacked the export before this PR
		}
		baseExp, hadIt := baseCovered[sig]
		// Without the base version's word, ask for a unanimous convention.
		if !hadIt && (len(exporters) == 0 || nonExporters > 0) {
			continue
		}
		p.Report(sh002Finding(t, sibs, s, exporters, len(files), hadIt, baseExp))
	}
	return nil
}

// exportSite is a sibling's export and the site it serves.
type exportSite struct {
	Path string
	Line int
	Site simpleSite
}

// unsetSite is an `unset VLLM_USE_SIMPLE_KV_OFFLOAD` in a branch, with the
// comment that explains it, if any.
type unsetSite struct {
	Path    string
	Head    bool // in the file under review (head side)
	Line    int
	Comment *script.Comment
	Arm     string
}

func unsetSites(path string, f *script.Facts, head bool) []unsetSite {
	var out []unsetSite
	for _, v := range f.VarsNamed(simpleEnv) {
		if v.Kind != script.Unset {
			continue
		}
		u := unsetSite{Path: path, Head: head, Line: v.Line}
		if c, ok := caseArm(v.Branch); ok {
			u.Arm = strings.Join(c.Patterns, "|") + ")"
		}
		// The comment right above the unset, inside the same arm, that says
		// what the variable switches.
		if c, ok := commentAbove(f, v.Line, 1); ok && mentionsSwitch(c) {
			if arm, inArm := caseArm(v.Branch); !inArm || c.Line > arm.Line {
				u.Comment = &c
			}
		}
		out = append(out, u)
	}
	return out
}

// mentionsSwitch reports whether a comment explains what the variable
// switches.
func mentionsSwitch(c script.Comment) bool {
	t := normSpace(c.Text)
	return strings.Contains(t, strings.ToLower(simpleConnector)) || strings.Contains(t, strings.ToLower(simpleEnv))
}

func sh002Finding(t *target, sibs []*Sibling, s simpleSite, exporters []exportSite, files int, hadIt bool, baseExp script.Var) checks.Finding {
	head := t.Head
	at := stmtLine(head, s.Line)
	branch := branchName(s.Branch)
	arm, hasArm := caseArm(s.Branch)

	// Evidence: the siblings' exports (one per file), then the branches
	// that unset the variable (this file's first), with their comments.
	exporters = sameFormFirst(exporters, s)
	related, exportRefs := citeExporters(t, exporters)
	if hadIt {
		bp := t.Path
		if t.File.OldPath != "" {
			bp = t.File.OldPath
		}
		related = append([]checks.Location{baseLoc(bp, baseExp.Line, 0, "the base version of this file exports it in this branch")}, related...)
	}
	unsets, headUnsets, explained := unsetsElsewhere(t, sibs, s)
	related = append(related, citeUnsets(t, unsets, headUnsets, explained)...)

	msg := sh002Message(s, branch, at, exportRefs, files, hadIt, len(unsets), headUnsets)
	sug := insertAbove(head, at, "export "+simpleEnv+"=1")
	key := s.signature()
	if hasArm {
		key = strings.Join(arm.Patterns, "|")
	}
	f := checks.Finding{
		Path:       t.Path,
		Line:       at,
		Title:      simpleConnector + " without " + simpleEnv + "=1",
		Body:       msg,
		Related:    related,
		Suggestion: sug,
		Key:        key + ":" + simpleEnv,
		Facts:      []string{"env:" + simpleEnv, "env:" + simpleEnv + "=1"},
	}
	sh002Explain(t, s, at, branch, arm, hasArm, exporters, explained, sibs, headUnsets > 0, sug != nil).Apply(&f)
	return f
}

// sameFormFirst orders a copy of exporters so that the siblings using the
// same form as s (JSON or shortcut) are cited first, then by path.
func sameFormFirst(exporters []exportSite, s simpleSite) []exportSite {
	exporters = slices.Clone(exporters)
	slices.SortStableFunc(exporters, func(a, b exportSite) int {
		am, bm := a.Site.shortcut() == s.shortcut(), b.Site.shortcut() == s.shortcut()
		switch {
		case am && !bm:
			return -1
		case bm && !am:
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	return exporters
}

// citeExporters cites one export per sibling file, up to maxEvidence
// files, and returns the references the message lists.
func citeExporters(t *target, exporters []exportSite) (related []checks.Location, exportRefs []string) {
	citedFiles := map[string]bool{}
	for _, e := range exporters {
		if citedFiles[e.Path] || len(citedFiles) >= maxEvidence {
			continue
		}
		citedFiles[e.Path] = true
		form := "its " + simpleConnector + " config"
		if e.Site.shortcut() {
			form = "its `--kv_offloading_backend native` shortcut"
		}
		related = append(related, t.sibLoc(e.Path, e.Line, 0, fmt.Sprintf("exports %s=1 for %s (line %d)", simpleEnv, form, e.Site.Line)))
		exportRefs = append(exportRefs, prose.Code(ref(e.Path, e.Line, 0)))
	}
	return related, exportRefs
}

// unsetsElsewhere returns the branches that unset the variable: first this
// file's (headUnsets of them) outside s's branch, then the siblings'. The
// first sibling unset with a comment is the one the explanation quotes.
func unsetsElsewhere(t *target, sibs []*Sibling, s simpleSite) (unsets []unsetSite, headUnsets int, explained *unsetSite) {
	for _, u := range unsetSites(t.Path, t.Head, true) {
		if !u.covers(s.Branch, t.Head) {
			unsets = append(unsets, u)
		}
	}
	headUnsets = len(unsets)
	for _, sib := range sibs {
		for _, u := range unsetSites(sib.Path, sib.Facts, false) {
			if explained == nil && u.Comment != nil {
				uu := u
				explained = &uu
			}
			unsets = append(unsets, u)
		}
	}
	return unsets, headUnsets, explained
}

// citeUnsets cites up to two of this file's unsets, the explained one,
// and siblings' unsets up to three in all.
func citeUnsets(t *target, unsets []unsetSite, headUnsets int, explained *unsetSite) []checks.Location {
	var related []checks.Location
	cited := 0
	citeUnset := func(u unsetSite) {
		start := u.Line
		note := "unsets it"
		if u.Arm != "" {
			note = "the " + prose.Code(u.Arm) + " arm unsets it"
		}
		if u.Comment != nil {
			start = u.Comment.Line
			note += ", and the comment says why"
		}
		if u.Head {
			related = append(related, headLoc(u.Path, start, u.Line, "this file: "+note))
		} else {
			related = append(related, t.sibLoc(u.Path, start, u.Line, note))
		}
		cited++
	}
	for i, u := range unsets {
		if i < headUnsets && cited < 2 {
			citeUnset(u)
		}
	}
	if explained != nil {
		citeUnset(*explained)
	}
	for _, u := range unsets[headUnsets:] {
		if cited >= 3 {
			break
		}
		if explained != nil && u.Path == explained.Path && u.Line == explained.Line {
			continue
		}
		citeUnset(u)
	}
	return related
}

// sh002Message states the missing export, the convention the siblings
// keep (unsets counts the branches that unset it, headUnsets of them in
// this file), and the fix.
func sh002Message(s simpleSite, branch string, at int, exportRefs []string, files int, hadIt bool, unsets, headUnsets int) string {
	var what string
	if s.shortcut() {
		what = fmt.Sprintf("%s selects %s through the `--kv_offloading_backend native` shortcut (line %d) but never exports `%s=1` on its path; in this form the variable is the only thing that selects the connector — without it the backend resolves to OffloadingConnector, which is what the sibling arms that unset it rely on",
			capitalize(branch), prose.Code(simpleConnector), s.Line, simpleEnv)
	} else {
		what = fmt.Sprintf("%s builds a %s transfer config (line %d) but never exports `%s=1` on its path",
			capitalize(branch), prose.Code(simpleConnector), at, simpleEnv)
	}
	if files > len(exportRefs) && len(exportRefs) > 0 {
		exportRefs = append(exportRefs, fmt.Sprintf("%d more", files-len(exportRefs)))
	}
	var conv string
	switch {
	case hadIt && len(exportRefs) == 0:
		conv = "The base version of this branch exported it; this PR drops the export"
	case hadIt:
		conv = fmt.Sprintf("The base version of this branch exported it, as every sibling branch that selects this connector does (%s)", prose.JoinAnd(exportRefs))
	default:
		conv = fmt.Sprintf("Every sibling branch that selects this connector exports it first (%s)", prose.JoinAnd(exportRefs))
	}
	if unsets > 0 {
		if headUnsets > 0 {
			conv += ", and the branches that use other connectors — including this file's own — deliberately `unset` it"
		} else {
			conv += ", and the branches that use other connectors deliberately `unset` it"
		}
	}
	return what + ". " + conv + ". The server starts either way, so the run silently measures a different KV path than the one it is labelled with. Add `export " + simpleEnv + "=1` to this branch, right before the config."
}

// covers reports whether the unset runs on path p (an unset in the
// site's own branch is part of the bug, not evidence).
func (u unsetSite) covers(p script.Branch, f *script.Facts) bool {
	for _, v := range f.VarsNamed(simpleEnv) {
		if v.Line == u.Line && v.Kind == script.Unset {
			return f.Covers(v.Branch, p)
		}
	}
	return false
}

func siblingFacts(sibs []*Sibling, p string) *script.Facts {
	for _, s := range sibs {
		if s.Path == p {
			return s.Facts
		}
	}
	return nil
}

func sh002Explain(t *target, s simpleSite, at int, branch string, arm script.Cond, hasArm bool, exporters []exportSite, explained *unsetSite, sibs []*Sibling, headUnsets, suggested bool) *checks.Explain {
	e := &checks.Explain{}
	w := e.Printf
	head := t.Head

	e.Problem()
	if s.shortcut() {
		w("%s passes `--kv_offloading_backend native`. That backend resolves to OffloadingConnector unless `%s=1` is set, in which case it builds %s. The branch is meant to measure %s (the sibling arms with the same name pair the shortcut with the export), but nothing on its path sets the variable.\n\n",
			capitalize(branch), simpleEnv, prose.Code(simpleConnector), prose.Code(simpleConnector))
	} else {
		w("%s names %s in its `--kv-transfer-config` JSON, but no `export %s=1` covers that path: not in the branch, not in an enclosing branch, not at the top level, and not as a prefix of the server command.\n\n",
			capitalize(branch), prose.Code(simpleConnector), simpleEnv)
	}

	e.Evidence()
	if len(exporters) > 0 {
		files := map[string]bool{}
		for _, ex := range exporters {
			files[ex.Path] = true
		}
		adjacent := true
		for _, ex := range exporters {
			if sib := siblingFacts(sibs, ex.Path); sib == nil || stmtLine(sib, ex.Site.Line) != ex.Line+1 {
				adjacent = false
			}
		}
		where := "on the path of the config"
		if adjacent {
			where = "on the line right before the config"
		}
		if len(files) == 1 && len(exporters) == 1 {
			w("The one sibling recipe that selects %s exports `%s=1` %s", prose.Code(simpleConnector), simpleEnv, where)
		} else {
			w("%s select %s, and every one of those branches exports `%s=1` %s", prose.Count(len(files), "sibling recipe", "sibling recipes"), prose.Code(simpleConnector), simpleEnv, where)
		}
		if slices.ContainsFunc(exporters, func(ex exportSite) bool { return ex.Site.shortcut() }) && slices.ContainsFunc(exporters, func(ex exportSite) bool { return !ex.Site.shortcut() }) {
			w(" — in the explicit JSON form as well as in the shortcut form, so the variable is not only needed to resolve the shortcut")
		}
		w(". ")
	}
	if headUnsets {
		w("This file's own branches for other connectors `unset` the variable, which only makes sense if a branch like this one sets it. ")
	}
	if explained != nil && explained.Comment != nil {
		w("%s explains the mechanism:\n\n", prose.Code(ref(explained.Path, explained.Comment.Line, explained.Comment.EndLine)))
		for _, l := range strings.Split(explained.Comment.Text, "\n") {
			w("> %s\n", l)
		}
		w("\n")
	} else {
		w("\n\n")
	}

	e.Note("Why nothing else catches it")
	w("Nothing in the script ties the variable to the connector, and `vllm serve` starts with or without it. The failure is silent: the benchmark runs and reports numbers, for a KV path that may not be the one this branch is labelled with.\n\n")

	if hasArm && len(arm.Patterns) > 0 && !script.IsPattern(arm.Patterns[0]) {
		e.Step()
		w("A sweep point runs with `%s=%s`, so the script enters %s (line %d).\n", arm.Var, arm.Patterns[0], branch, arm.Line)
	} else {
		e.Step()
		w("The script reaches %s.\n", branch)
	}
	if s.shortcut() {
		e.Step()
		w("The branch passes `--kv_offloading_backend native` (line %d); `%s` is not exported on this path", s.Line, simpleEnv)
	} else {
		e.Step()
		w("The branch builds the config naming %s (line %d); `%s` is not exported on this path", prose.Code(simpleConnector), s.Line, simpleEnv)
	}
	if headUnsets {
		w(", and other branches of this very script unset it, so the launcher's environment cannot be relied on either")
	}
	w(".\n")
	run := 0
	for _, c := range head.Servers {
		if c.RunLine > 0 {
			run = c.RunLine
			break
		}
	}
	if run > 0 {
		e.Step()
		w("The server starts (line %d) without the switch the sibling recipes treat as required alongside this connector.\n", run)
	} else {
		e.Step()
		w("The server starts without the switch the sibling recipes treat as required alongside this connector.")
	}
	e.Step()
	w("Every concurrency point of this branch completes and reports results, with nothing in the logs pointing at the missing variable.\n")

	e.Fix()
	w("Export the variable in this branch, right before the config, as the siblings do")
	if suggested {
		w(".")
	} else {
		w(":\n\n```bash\nexport %s=1\n%s\n```\n", simpleEnv, strings.TrimSpace(head.LineText(at)))
	}
	return e
}
