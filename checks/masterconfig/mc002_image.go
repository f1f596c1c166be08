package masterconfig

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc002 = &checks.Rule{
	ID:       "MC002",
	Severity: checks.Blocking,
	Title:    "Config image is not publicly pullable",
	Doc: "A master config's `image` must be a registry reference that every runner and every reader can pull " +
		"(`org/name:tag`, optionally with a registry host, `#` as enroot writes it). A path on a cluster's " +
		"filesystem (anything starting with `/`, such as `/scratch/...`) or an enroot squashfs file (`.sqsh`) " +
		"exists only where it was made: other runners cannot start the benchmark and nobody can reproduce the " +
		"published numbers. Push the image to a public registry and reference it by tag.",
	Run: runMC002,
}

// imageProblem says why ref is not pullable, or "".
func imageProblem(ref string) string {
	r := strings.TrimSpace(ref)
	switch {
	case strings.HasPrefix(r, "/") && strings.HasSuffix(strings.ToLower(r), ".sqsh"):
		return "a squashfs file on a local filesystem"
	case strings.HasPrefix(r, "/"):
		return "a local filesystem path"
	case strings.HasSuffix(strings.ToLower(r), ".sqsh"):
		return "an enroot squashfs file (`.sqsh`)"
	}
	return ""
}

// imageSet reports whether the PR set the key's image (a new key, or a
// changed image value): the image rules judge only those.
func imageSet(fs *fileState, ks *keyState) bool {
	k := ks.key
	return !k.Malformed && k.Image.Line != 0 && fs.fieldChanged(ks, func(k *Key) Field { return k.Image })
}

func runMC002(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		k := ks.key
		if !imageSet(fs, ks) {
			return
		}
		what := imageProblem(k.Image.Value)
		if what == "" {
			return
		}
		p.Report(checks.Finding{
			Path:  fs.path,
			Line:  k.Image.Line,
			Title: fmt.Sprintf("%s: image is %s", prose.Code(k.Name), strings.ReplaceAll(what, " (`.sqsh`)", "")),
			Body: fmt.Sprintf("%s of %s is %s, not a registry reference: it exists only on the machine "+
				"or cluster where it was made, so other runners cannot start this benchmark and nobody can pull the "+
				"image to reproduce the published numbers. Fix: push the image to a public registry and reference it "+
				"as `org/name:tag` (for vLLM and SGLang, the upstream `vllm/vllm-openai` and `lmsysorg/sglang` images).",
				prose.Code("image: "+k.Image.Value), prose.Code(k.Name), what),
			Why: "Runner launchers import the configured image into each node's container " +
				"runtime (enroot) before the benchmark starts. A registry reference resolves the same way everywhere; " +
				"a path such as `/scratch/...` or a `.sqsh` file resolves only on the filesystem that holds it, so the " +
				"sweep fails on every other runner, and the result cannot be audited or rerun later.",
			Fix: "Publish the image (a public Docker Hub, GHCR or NGC repository) and set `image:` to its tag.",
			Key: "MC002 " + k.Name + " " + k.Image.Value,
		})
	})
}
