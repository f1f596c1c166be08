package recipe

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH011 reports engine patching without a waiver.
var SH011 = &checks.Rule{
	ID:       "SH011",
	Severity: checks.Blocking,
	Title:    "Engine patched without a waiver",
	Doc: "Results must be reproducible from the upstream engine image. This rule reports engine " +
		"patching that a PR adds to a recipe or runner — a `.patch` file under the recipe directories, " +
		"`git apply`/`patch`, `sed -i` or a heredoc writing into the engine's sources or " +
		"`site-packages`, `pip install` of an engine build — unless the PR carries a waiver at " +
		"`docs/waiver/<PR_NUMBER>.md`. The waiver states what is patched, why the upstream image cannot " +
		"run the recipe without it, the upstream PR or issue that fixes it, and when the patch will be " +
		"removed; the CODEOWNER sign-off links it.",
	Run: runSH011,
}

// patchWhat describes an engine-patching shape for the message.
func patchWhat(pt script.Patch) string {
	t := pt.Target
	switch pt.Kind {
	case script.PatchGitApply:
		if t != "" {
			return "applies " + prose.Code(t) + " to the engine with `git apply`"
		}
		return "patches the engine with `git apply`"
	case script.PatchCommand:
		if t != "" {
			return "patches the engine with `patch` (" + prose.Code(t) + ")"
		}
		return "patches the engine with `patch`"
	case script.PatchFile:
		return "applies the patch file " + prose.Code(t)
	case script.PatchSed:
		return "edits " + prose.Code(t) + " inside the installed engine with `sed -i`"
	case script.PatchWrite:
		return "writes into " + prose.Code(t) + " inside the installed engine"
	case script.PatchPython:
		return "runs Python that rewrites files of the installed engine"
	case script.PatchPip:
		return "replaces the engine the image ships with " + prose.CodeLine("pip install "+t)
	}
	return "patches the engine (" + prose.Code(pt.Text) + ")"
}

func runSH011(p *checks.Pass) error {
	ch := p.Change
	cfg := ch.Settings(p.Ctx)
	waiver, ok, err := sh011Waiver(p)
	if err != nil || ok {
		return err
	}
	scripts, err := changedRecipesAndRunners(p)
	if err != nil {
		return err
	}
	for _, t := range scripts {
		// One finding per statement: `git apply x.patch` is both a git
		// apply and a patch file; the command says more.
		byLine := map[int]script.Patch{}
		var lines []int
		for _, pt := range t.Head.Patches {
			if pt.Kind == script.PatchWheel || !t.touches(pt.Line, max(pt.EndLine, pt.Line)) {
				continue
			}
			prev, seen := byLine[pt.Line]
			if !seen {
				lines = append(lines, pt.Line)
			}
			if !seen || prev.Kind == script.PatchFile {
				byLine[pt.Line] = pt
			}
		}
		for _, l := range lines {
			pt := byLine[l]
			p.Report(sh011Finding(p, t.Path, pt.Line, max(pt.EndLine, pt.Line), patchWhat(pt), waiver,
				"engine-patch:"+string(pt.Kind)+":"+checks.NormalizeKey(pt.Target+" "+pt.Text), []string{"patch:" + string(pt.Kind)}))
		}
	}
	// Patch files added next to the recipes or runners.
	roots := map[string]bool{}
	for _, pat := range append(append([]string{}, cfg.Paths.Recipes...), cfg.Paths.Runners...) {
		root, _ := doublestar.SplitPattern(pat)
		if root != "." && root != "" {
			roots[root] = true
		}
	}
	for _, fc := range ch.Files {
		if fc.Status != checks.Added || (path.Ext(fc.Path) != ".patch" && path.Ext(fc.Path) != ".diff") {
			continue
		}
		under := false
		for r := range roots {
			if strings.HasPrefix(fc.Path, r+"/") {
				under = true
			}
		}
		if !under {
			continue
		}
		p.Report(sh011Finding(p, fc.Path, 1, -1, "adds the patch file "+prose.Code(path.Base(fc.Path))+" next to the recipes", waiver,
			"engine-patch-file:"+fc.Path, []string{"patch:" + string(script.PatchFile)}))
	}
	return nil
}

// sh011Waiver returns the waiver path this PR needs and whether the head
// has it. With the PR number unknown, any waiver the PR adds counts.
func sh011Waiver(p *checks.Pass) (string, bool, error) {
	ch := p.Change
	dir := ch.Settings(p.Ctx).Paths.Waivers
	if dir == "" {
		dir = "docs/waiver"
	}
	if n := ch.PR.Number; n > 0 {
		w := path.Join(dir, strconv.Itoa(n)+".md")
		ok, err := checks.Exists(p.Ctx, ch.Head, w)
		return w, ok, err
	}
	for _, fc := range ch.Files {
		if fc.Status != checks.Deleted && strings.HasPrefix(fc.Path, dir+"/") && path.Ext(fc.Path) == ".md" {
			return fc.Path, true, nil
		}
	}
	return path.Join(dir, "<PR_NUMBER>.md"), false, nil
}

func sh011Finding(p *checks.Pass, file string, line, end int, what, waiver, key string, facts []string) checks.Finding {
	unknown := p.Change.PR.Number <= 0
	name := prose.Code(waiver)
	if unknown {
		name = prose.Code(waiver) + " (named after this PR's number)"
	}
	lead := fmt.Sprintf("The command on line %d", line)
	switch {
	case end > line:
		lead = fmt.Sprintf("The command on lines %d-%d", line, end)
	case end < 0:
		lead = "This PR"
	}
	msg := fmt.Sprintf("%s %s. Engine patches are only accepted with a waiver, and this PR has none: add %s stating what is patched, why the upstream image cannot run the recipe without it, the upstream PR or issue that fixes it, and when the patch will be removed (or drop the patch).",
		lead, what, name)
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("%s %s: the run no longer measures the engine the image ships.", lead, what)
	ex.Why()
	w("Published results must be reproducible by anyone pulling the upstream image named in the master config. A patched engine can be faster or slower for reasons nobody can see from the config, the change silently rides along every later sweep of the recipe, and it breaks without warning when the image moves. The sign-off checklist (no engine patches) therefore requires a waiver named after the PR and linked in the sign-off.")
	ex.Note("What the waiver must contain")
	w("`%s`:\n", waiver)
	w("1. what is patched (files, functions, or the package replaced) and how;\n")
	w("2. why the upstream image cannot run this recipe without it;\n")
	w("3. the upstream PR or issue that fixes it;\n")
	w("4. the removal plan: which image release makes the patch unnecessary.\n\n")
	if unknown {
		w("The PR number is not known to this review, so the waiver's exact file name could not be checked; it must be `%s/<PR_NUMBER>.md`.", path.Dir(waiver))
	}
	ex.Fix()
	w("Add the waiver to this PR, or remove the patch and wait for an upstream image that includes the fix.")
	f := checks.Finding{
		Path:  file,
		Line:  line,
		Title: "Engine patch without " + prose.Code(waiver),
		Body:  msg,
		Key:   key,
		Facts: facts,
	}
	if end > line {
		f.EndLine = end
	}
	ex.Apply(&f)
	return f
}
