package recipe

import (
	"context"
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// RN001 reports a runner that runs a container image without enroot import.
var RN001 = &checks.Rule{
	ID:       "RN001",
	Severity: checks.Warning,
	Title:    "Runner uses a container image without enroot import",
	Doc: "Runner launchers (`runners/launch_*.sh`) import the container image once into a shared " +
		"squashfs with `enroot import -o \"$SQSH\" \"docker://${IMAGE}\"` (under `flock`, so concurrent " +
		"jobs on a node wait for one import) and then run `srun --container-image=\"$SQSH\"`. This rule " +
		"reports a runner the PR adds or changes that hands pyxis a registry reference " +
		"(`--container-image=\"$IMAGE\"`) without such an import, including the commands it runs " +
		"through `srun ... bash -c \"...\"`: every job would pull the full image from the registry on every " +
		"node, which is slow, hits registry rate limits and fails jobs when the registry is unavailable. " +
		"A `--container-image` that names a squashfs file, and `docker run` (docker caches pulled images " +
		"per node), are not reported.",
	Run: runRN001,
}

// enrootImports returns a script's `enroot import ... docker://` uses.
func enrootImports(f *script.Facts) []script.Image {
	var out []script.Image
	for _, im := range f.Images {
		if im.Kind == script.ImageEnrootImport && strings.Contains(im.Ref, "docker://") {
			out = append(out, im)
		}
	}
	return out
}

// containerUses returns a script's pyxis container runs from a registry
// reference. `docker run` is not one: docker keeps pulled images in its
// own per-node cache, so only the first job on a node pulls. Nor is a
// --container-image that names a squashfs file (a path, or a variable
// assigned one): the image was imported already, here or elsewhere.
func containerUses(f *script.Facts) []script.Image {
	var out []script.Image
	for _, im := range f.Images {
		if im.Kind == script.ImageContainer && !localSquashfs(f, im.Ref) {
			out = append(out, im)
		}
	}
	return out
}

// localSquashfs reports whether an image reference names a file: a
// .sqsh/.squashfs path, an absolute or relative path, or a variable whose
// assignments in the script all are such paths.
func localSquashfs(f *script.Facts, ref string) bool {
	ref = strings.Trim(ref, `"'`)
	if isFileRef(ref) {
		return true
	}
	name := varRefName(ref)
	if name == "" {
		return false
	}
	vs := f.VarsNamed(name)
	any := false
	for _, v := range vs {
		if !v.HasValue {
			continue
		}
		if !isFileRef(strings.Trim(v.Value, `"'`)) {
			return false
		}
		any = true
	}
	return any
}

func isFileRef(s string) bool {
	if strings.Contains(s, "://") {
		return false
	}
	return strings.HasSuffix(s, ".sqsh") || strings.HasSuffix(s, ".squashfs") ||
		strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./")
}

func runRN001(p *checks.Pass) error {
	runners, err := changedRunners(p)
	if err != nil {
		return err
	}
	for _, t := range runners {
		uses := containerUses(t.Head)
		if len(uses) == 0 || len(enrootImports(t.Head)) > 0 {
			continue
		}
		judged := t.isNew() || t.Base == nil || len(enrootImports(t.Base)) > 0 || len(containerUses(t.Base)) == 0
		for _, u := range uses {
			judged = judged || t.added(u.Line)
		}
		if !judged {
			continue
		}
		sibs, err := runnerSiblings(p.Ctx, p.Change, t.Path)
		if err != nil {
			return err
		}
		var cites []checks.Location
		with := 0
		for _, s := range sibs {
			imp := enrootImports(s.Facts)
			if len(imp) == 0 {
				continue
			}
			with++
			if len(cites) < maxEvidence {
				cites = append(cites, s.Loc(imp[0].Line, 0, "imports with "+prose.Code(imp[0].Text)))
			}
		}
		p.Report(rn001Finding(t, uses[0], len(sibs), with, cites))
	}
	return nil
}

// runnerSiblings returns the other runners in the base tree's directory
// of p.
func runnerSiblings(ctx context.Context, ch *checks.Change, p string) ([]*Sibling, error) {
	return dirScripts(ctx, ch, p, "recipe.runner-siblings", (*checks.Config).IsRunner)
}

func rn001Finding(t *target, use script.Image, sibs, with int, cites []checks.Location) checks.Finding {
	how := prose.Code("--container-image")
	if use.Ref != "" {
		how = prose.Code("--container-image=" + use.Ref)
	}
	ref := ""
	if use.Ref != "" {
		ref = " " + prose.Code(use.Ref)
	}
	if use.Kind == script.ImageDocker {
		how = "`docker run`"
	}
	msg := fmt.Sprintf("This runner starts the benchmark with %s (line %d) but never imports the image with `enroot import ... docker://`, so every job pulls the full image from the registry on every node.",
		how, use.Line)
	if with > 0 {
		msg += fmt.Sprintf(" The other runners (%d of %d) import it once into a shared squashfs under `flock` and point `--container-image` at that file.", with, sibs)
	}
	msg += " Import the image the same way before the `srun`."
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("Line %d runs a container from%s with no `enroot import` in the script.", use.Line, ref)
	ex.Why()
	w("Inference images are tens of gigabytes. Without a local squashfs, pyxis (or docker) fetches and unpacks the whole image at the start of every job on every node: sweep points start minutes late, parallel jobs hammer the registry until it rate-limits them, and a registry hiccup fails the job outright. The import under `flock` happens once per image and node; later jobs reuse the file.")
	ex.Fix()
	w("Import once, then run from the squashfs:\n\n```bash\n")
	w("%s", "SQSH=\"$SQSH_DIR/$(echo \"$IMAGE\" | tr '/:#@' '____').sqsh\"\nmkdir -p \"$SQSH_DIR\"\n(\n    flock -w 3600 9\n    if [ ! -f \"$SQSH\" ]; then\n        enroot import -o \"$SQSH\" \"docker://${IMAGE}\"\n    fi\n) 9> \"$SQSH.lock\"\n")
	w("# ... then: srun --container-image=\"$SQSH\" ...\n```")
	// Facts give the statement's first line; the span reaches through its
	// continuation lines, so the comment lands on the changed option.
	end := use.Line
	for end < t.Head.Lines && strings.HasSuffix(strings.TrimSpace(t.Head.LineText(end)), `\`) {
		end++
	}
	f := checks.Finding{
		Path:    t.Path,
		Line:    use.Line,
		Title:   "Runner uses a container image without `enroot import`",
		Body:    msg,
		Related: cites,
		Key:     "no-enroot-import:" + string(use.Kind),
	}
	if end > use.Line {
		f.EndLine = end
	}
	ex.Apply(&f)
	return f
}
