package masterconfig

// A warning, not blocking: the architecture exception is for a maintainer
// to grant, which the rule cannot see.

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc003 = &checks.Rule{
	ID:       "MC003",
	Severity: checks.Warning,
	Title:    "vLLM/SGLang config on established hardware without the upstream image",
	Doc: "On established hardware (H100, H200, B200, B300, GB200, GB300, MI300X, MI325X, MI355X), a config with " +
		"`framework: vllm` must use an upstream vLLM image (`vllm/vllm-openai*`, including `vllm/vllm-openai-rocm`) and " +
		"one with `framework: sglang` an upstream SGLang image (`lmsysorg/sglang*`), as the sign-off checklist requires: " +
		"results are published as that engine's performance, so they must come from the engine as its maintainers ship it, " +
		"not from a fork or a vendor rebuild. Exceptions (brand-new hardware, a model architecture upstream cannot serve " +
		"yet) are granted by maintainers; say why in the PR if one applies. The hardware is read from `runner` " +
		"(`cluster:b200-dgxc` is B200), or from the key when the runner names none.",
	Run: runMC003,
}

// establishedSKUs are the accelerators with first-class upstream
// vLLM/SGLang support, where an upstream image is required.
var establishedSKUs = map[string]bool{
	"h100": true, "h200": true, "b200": true, "b300": true, "gb200": true, "gb300": true,
	"mi300x": true, "mi325x": true, "mi355x": true,
}

// upstreamRepo is the image repository prefix each engine must use.
var upstreamRepo = map[string]string{
	"vllm":   "vllm/vllm-openai",
	"sglang": "lmsysorg/sglang",
}

// skuOf derives the accelerator from the runner label (`cluster:b200-dgxc`,
// `mi355x-disagg`, `h200`), falling back to the key's hardware segment.
// fromKey says the fallback was used.
func skuOf(k *Key) (sku string, fromKey bool) {
	r := strings.ToLower(k.Runner.Value)
	if i := strings.LastIndex(r, ":"); i >= 0 {
		r = r[i+1:]
	}
	if i := strings.IndexAny(r, "-_"); i >= 0 {
		r = r[:i]
	}
	if establishedSKUs[r] {
		return r, false
	}
	if hw := keySegment(k, 2); establishedSKUs[hw] {
		return hw, true
	}
	return r, false
}

// keySegment returns the n-th dash-separated segment of the key after the
// model prefix (0 is the prefix itself, 1 the precision, 2 the hardware).
func keySegment(k *Key, n int) string {
	name := strings.ToLower(k.Name)
	prefix := strings.ToLower(k.ModelPrefix.Value)
	if prefix == "" || !strings.HasPrefix(name, prefix+"-") {
		return ""
	}
	if n == 0 {
		return prefix
	}
	segs := strings.Split(name[len(prefix)+1:], "-")
	if n-1 < len(segs) {
		return segs[n-1]
	}
	return ""
}

// normalizeImage writes an image reference the way Docker would resolve
// it: enroot's `#` separator as `/`, without an explicit Docker Hub host.
func normalizeImage(ref string) string {
	r := strings.ToLower(strings.TrimSpace(ref))
	r = strings.ReplaceAll(r, "#", "/")
	for _, host := range []string{"docker.io/", "index.docker.io/", "registry-1.docker.io/"} {
		r = strings.TrimPrefix(r, host)
	}
	return r
}

func runMC003(p *checks.Pass) error {
	var evidence *checks.Location
	evidenceLoaded := false
	return eachKey(p, func(fs *fileState, ks *keyState) {
		k := ks.key
		fw := strings.ToLower(k.Framework.Value)
		want, ok := upstreamRepo[fw]
		if k.Malformed || !ok || k.Image.Line == 0 {
			return
		}
		if !ks.isNew && !fs.fieldChanged(ks, func(k *Key) Field { return k.Image }) &&
			!fs.fieldChanged(ks, func(k *Key) Field { return k.Framework }) &&
			!fs.fieldChanged(ks, func(k *Key) Field { return k.Runner }) {
			return
		}
		sku, fromKey := skuOf(k)
		if !establishedSKUs[sku] || imageProblem(k.Image.Value) != "" {
			return // new hardware; or MC002 already blocks this image
		}
		if strings.HasPrefix(normalizeImage(k.Image.Value), want) {
			return
		}
		if !evidenceLoaded {
			evidence, evidenceLoaded = checklistLine(p), true
		}
		engine := map[string]string{"vllm": "vLLM", "sglang": "SGLang"}[fw]
		f := checks.Finding{
			Path:  fs.path,
			Line:  k.Image.Line,
			Title: fmt.Sprintf("%s: %s on %s without an upstream %s image", prose.Code(k.Name), fw, strings.ToUpper(sku), engine),
			Body: fmt.Sprintf("%s runs `framework: %s` on %s, an established SKU, but its image %s is not an upstream "+
				"%s image (`%s*` on Docker Hub). vLLM and SGLang results are published as that engine's performance, so on "+
				"established hardware they must come from the upstream image, not a fork or a rebuild; the exceptions are "+
				"brand-new hardware and model architectures upstream cannot serve yet, granted by a maintainer. Fix: use a "+
				"`%s` tag (nightly tags are fine), or state in the PR which exception applies.",
				prose.Code(k.Name), fw, strings.ToUpper(sku), prose.Code(k.Image.Value), engine, want, want),
			Notes: []checks.Note{
				{Title: "How the hardware was read", Text: hardwareNote(k, sku, fromKey)},
				{Title: "How the image was read", Text: fmt.Sprintf("%s normalizes to %s (enroot's `#` is a `/`, an explicit "+
					"`docker.io/` host is dropped), which does not start with `%s`.", prose.Code(k.Image.Value), prose.Code(normalizeImage(k.Image.Value)), want)},
			},
			Key: "MC003 " + k.Name + " " + k.Image.Value,
		}
		if evidence != nil {
			f.Related = []checks.Location{*evidence}
		}
		p.Report(f)
	})
}

// checklistLine finds the sign-off checklist item that requires upstream
// images, as evidence (nil when the checklist is absent or says nothing).
func checklistLine(p *checks.Pass) *checks.Location {
	path := p.Change.Config.Paths.Checklist
	if path == "" {
		return nil
	}
	b, err := p.Change.Base.ReadFile(p.Ctx, path)
	if err != nil {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.ToLower(sc.Text())
		if strings.Contains(l, "upstream") && (strings.Contains(l, "hub.docker.com/u/vllm") || strings.Contains(l, "docker repo")) {
			return &checks.Location{Path: path, Line: n, Side: checks.Base,
				Note: "sign-off checklist: vLLM/SGLang submissions use the upstream Docker Hub images"}
		}
	}
	return nil
}

func hardwareNote(k *Key, sku string, fromKey bool) string {
	if fromKey {
		return fmt.Sprintf("%s names no known accelerator, so the key's hardware "+
			"segment was used: %s is %s.", prose.Code("runner: "+k.Runner.Value), prose.Code(k.Name), strings.ToUpper(sku))
	}
	return fmt.Sprintf("%s names %s (a `cluster:` prefix and a site suffix "+
		"such as `-dgxc` are dropped).", prose.Code("runner: "+k.Runner.Value), strings.ToUpper(sku))
}
