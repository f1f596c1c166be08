package masterconfig

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc010 = &checks.Rule{
	ID:       "MC010",
	Severity: checks.Warning,
	Title:    "Config image on a tag that moves or expires",
	Doc: "A master config's `image` names the exact engine build its results are published for, so that a " +
		"rerun next month benchmarks the same code. A tag that follows a branch (`latest`, `nightly`, `main`, " +
		"`dev`, `stable`, `edge`, a `-latest` suffix, or no tag at all, which pulls `latest`) is repointed with " +
		"every push upstream, and an image on an expiring registry (`ttl.sh`) disappears within hours. This rule " +
		"reports such an image the PR sets on a key, citing how many of the master configs' other images pin a " +
		"version. Pin a dated nightly, a commit tag or a release.",
	Run: runMC010,
}

// movingTags are tags that follow a branch of the image's repository.
var movingTags = map[string]bool{"latest": true, "nightly": true, "main": true, "master": true, "dev": true,
	"stable": true, "edge": true, "head": true}

// imageTag splits a reference into its repository and tag ("" when the
// reference has none; a digest reference is pinned and has ok false).
func imageTag(ref string) (repo, tag string, ok bool) {
	r := strings.TrimSpace(ref)
	if r == "" || strings.Contains(r, "@sha256:") || strings.Contains(r, "@sha512:") || imageProblem(r) != "" {
		return "", "", false
	}
	slash := strings.LastIndexAny(r, "/#")
	if i := strings.LastIndexByte(r, ':'); i > slash {
		return r[:i], r[i+1:], true
	}
	return r, "", true
}

// movingImage says why ref does not pin one build ("" when it does).
func movingImage(ref string) string {
	repo, tag, ok := imageTag(ref)
	if !ok {
		return ""
	}
	host := strings.ToLower(repo)
	if i := strings.IndexAny(host, "/#"); i > 0 {
		host = host[:i]
	}
	t := strings.ToLower(tag)
	switch {
	case host == "ttl.sh":
		return "on `ttl.sh`, a registry whose images expire (within a day by default)"
	case tag == "":
		return "without a tag, so it pulls `latest`"
	case movingTags[t]:
		return fmt.Sprintf("on the %s tag, which follows a branch upstream", prose.Code(tag))
	case strings.HasSuffix(t, "-latest") || strings.HasSuffix(t, "_latest") || strings.HasPrefix(t, "latest-"):
		return fmt.Sprintf("on %s, a tag that is repointed to each new build", prose.Code(tag))
	}
	return ""
}

func runMC010(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		k := ks.key
		if !imageSet(fs, ks) {
			return
		}
		why := movingImage(k.Image.Value)
		if why == "" {
			return
		}
		pinned, all := 0, 0
		for _, o := range fs.head.Keys {
			if o == k || o.Malformed || o.Image.Line == 0 {
				continue
			}
			all++
			if movingImage(o.Image.Value) == "" {
				pinned++
			}
		}
		evidence := ""
		if all > 0 {
			evidence = fmt.Sprintf(" Of the other %d images of %s, %d pin a version.", all, prose.Code(fs.path), pinned)
		}
		p.Report(checks.Finding{
			Path:  fs.path,
			Line:  k.Image.Line,
			Title: fmt.Sprintf("%s: image does not pin a build", prose.Code(k.Name)),
			Body: fmt.Sprintf("%s of %s is %s: two runs of this config can benchmark different engine builds, and "+
				"the published numbers cannot be traced to, or rerun with, the build that produced them.%s Fix: pin "+
				"a dated nightly, a commit tag or a release.",
				prose.Code("image: "+k.Image.Value), prose.Code(k.Name), why, evidence),
			Why: "A result is published for the image its config names; only a tag that names one build keeps " +
				"that link true after the next upstream push.",
			Fix: "Use a tag that names one build (`nightly-<commit>`, a dated nightly, or a release such as `v0.x.y`).",
			Key: "MC010 " + k.Name + " " + k.Image.Value,
		})
	})
}
