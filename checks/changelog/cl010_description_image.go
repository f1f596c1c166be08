package changelog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl010Doc = "An entry's `description` is how a published result is traced back to what ran, and the image " +
	"is the first thing it records (\"Image: lmsysorg/sglang:v0.5.16-cu130\", \"bump vLLM from v0.20.1 to " +
	"v0.21.0\"). This rule reads the image references in the description of an entry this PR adds and the " +
	"`image:` of each config key the entry names, as the master configs are after the PR. It reports a " +
	"description whose references to the keys' image repositories all name another tag than the keys run " +
	"(the description was written for another bump, or the config was not updated), and a \"from A to B\" " +
	"written the wrong way round (A is the image the keys run after the PR, B the one they ran before). A " +
	"reference that abbreviates the tag the config pins (a commit hash cut short, a `nightly` that the " +
	"config pins to a dated build) counts as naming it, and references to other repositories (a base image, " +
	"an upstream build) are not judged. A warning: the merge tooling does not read the description."

// CL010 flags a new entry whose description names another image than the
// configs it lists run.
var CL010 = &checks.Rule{
	ID:       "CL010",
	Severity: checks.Warning,
	Title:    "New changelog entry's description names another image than its configs run",
	Doc:      cl010Doc,
	Run:      runCL010,
}

// maxDescriptionRefs bounds the image references read from one entry.
const maxDescriptionRefs = 32

// keyImage is a config key the entry names and the image it runs.
type keyImage struct {
	key, path string
	line      int // the image line of the key
	image     string
	base      string // the image at base ("" when the key is new)
}

// imageRef is an image reference in a description line.
type imageRef struct {
	ref  string
	line int
}

func runCL010(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	news := a.NewEntries()
	if len(news) == 0 {
		return nil
	}
	var head *keyIndex
	for i, e := range news {
		if e.Err != nil || e.Kind != yamlMapping {
			continue
		}
		fld := e.Get(keyDescription)
		if fld == nil {
			continue
		}
		var refs []imageRef
		var texts []Item
		for _, it := range fld.Items {
			if !it.IsString() {
				continue
			}
			texts = append(texts, it)
			for _, r := range imageRefs(it.Value) {
				if len(refs) < maxDescriptionRefs {
					refs = append(refs, imageRef{r, it.Line})
				}
			}
		}
		if fld.Kind == yaml.ScalarNode && fld.Tag == "!!str" {
			texts = append(texts, Item{Kind: fld.Kind, Tag: fld.Tag, Value: fld.Value, Line: fld.Line})
			for _, r := range imageRefs(fld.Value) {
				if len(refs) < maxDescriptionRefs {
					refs = append(refs, imageRef{r, fld.Line})
				}
			}
		}
		if len(refs) == 0 {
			continue
		}
		if head == nil {
			if head, err = masterKeys(p, false); err != nil {
				return err
			}
			if head.Broken {
				return nil // MC006 reports the config; its images are unknown
			}
		}
		keys, err := entryImages(p, head, e, later(a, e))
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			continue
		}
		if f, ok := cl010Reversed(a, i, e, texts, keys); ok {
			p.Report(f)
			continue
		}
		if f, ok := cl010Mismatch(a, i, e, refs, keys); ok {
			p.Report(f)
		}
	}
	return nil
}

// later returns the config-keys patterns of the entries after e in the
// head changelog: a key a later entry names is that entry's to describe
// (a PR that carries an older entry and a newer one for the same key).
func later(a *Analysis, e *Entry) []string {
	var out []string
	for _, o := range a.Head.Entries {
		if o.Start > e.Start && o.Err == nil {
			for _, it := range o.ConfigKeys() {
				out = append(out, it.Value)
			}
		}
	}
	return out
}

// entryImages reads the image of every head config the entry's keys name
// (at most 16) that no later entry names, and its image at base.
func entryImages(p *checks.Pass, head *keyIndex, e *Entry, after []string) ([]keyImage, error) {
	var out []keyImage
	seen := map[string]bool{}
	for _, it := range e.ConfigKeys() {
		for _, kl := range head.matches(it.Value) {
			if seen[kl.Key] || len(out) >= 16 {
				continue
			}
			seen[kl.Key] = true
			if slices.ContainsFunc(after, func(pat string) bool { return matchKey(pat, kl.Key) }) {
				continue
			}
			v, off, err := keyValueAt(p.Ctx, p.Change, p.Change.Head, kl.Path, kl.Key)
			if err != nil {
				return nil, err
			}
			img := yamlx.Get(v, "image")
			if img == nil || img.Value == "" {
				continue
			}
			ki := keyImage{key: kl.Key, path: kl.Path, line: img.Line + off, image: strings.TrimSpace(img.Value)}
			if bv, err := keyValue(p.Ctx, p.Change, p.Change.Base, kl.Path, kl.Key); err == nil {
				if bi := yamlx.Get(bv, "image"); bi != nil {
					ki.base = strings.TrimSpace(bi.Value)
				}
			}
			out = append(out, ki)
		}
	}
	return out, nil
}

// cl010Mismatch reports an entry whose references to its keys' image
// repositories all name other tags.
func cl010Mismatch(a *Analysis, i int, e *Entry, refs []imageRef, keys []keyImage) (checks.Finding, bool) {
	var same []imageRef // references to a repository some key runs
	for _, r := range refs {
		for _, k := range keys {
			if sameRepo(r.ref, k.image) {
				same = append(same, r)
				break
			}
		}
	}
	if len(same) == 0 {
		return checks.Finding{}, false
	}
	for _, r := range same {
		for _, k := range keys {
			if namesImage(r.ref, k.image) {
				return checks.Finding{}, false
			}
		}
	}
	first := same[0]
	var k keyImage
	for _, kk := range keys {
		if sameRepo(first.ref, kk.image) {
			k = kk
			break
		}
	}
	var named []string
	seen := map[string]bool{}
	for _, r := range same {
		if !seen[r.ref] {
			seen[r.ref] = true
			named = append(named, prose.Code(r.ref))
		}
	}
	what := "names " + prose.JoinAnd(named)
	if len(named) > 4 {
		what = fmt.Sprintf("names %s and %d other references", prose.JoinAnd(named[:3]), len(named)-3)
	}
	older := ""
	for _, r := range same {
		if k.base != "" && r.ref == k.base && k.base != k.image {
			older = fmt.Sprintf(" (%s is the image the key ran before this PR)", prose.Code(r.ref))
			break
		}
	}
	f := checks.Finding{
		Path:  a.Path,
		Line:  first.line,
		Title: "Changelog description names another image than the config runs",
		Body: fmt.Sprintf("The description of the entry this PR adds (%s line %d) %s, but %s runs %s (%s:%d)%s. "+
			"The entry is the record a published result is traced to: make the description name the image the "+
			"benchmark runs, or set the config's image to the one the description promises.",
			prose.Code(a.Path), e.Start, what, prose.Code(k.key), prose.Code(k.image), k.path, k.line, older),
		Related: []checks.Location{{Path: k.path, Line: k.line, Note: "the image " + prose.Code(k.key) + " runs after this PR"}},
		Key:     "description-image:" + strconv.Itoa(i) + ":" + first.ref,
		Facts:   []string{"image:" + k.image},
	}
	ex := &checks.Explain{}
	ex.Problem().Printf("The description names %s; the config it lists runs %s.", prose.JoinAnd(named), prose.Code(k.image))
	ex.Why().Printf("A reader who traces a result to this entry learns the wrong image, and a config left on the old " +
		"image benchmarks something else than the PR says.")
	ex.Fix().Printf("Name %s in the description, or set %s where the description is right.", prose.Code(k.image), prose.Code("image: "+first.ref))
	ex.Apply(&f)
	return f, true
}

// cl010Reversed reports a "from A to B" whose A is the image the key runs
// after the PR and B the one it ran before.
func cl010Reversed(a *Analysis, i int, e *Entry, texts []Item, keys []keyImage) (checks.Finding, bool) {
	for _, it := range texts {
		from, to, ok := fromTo(it.Value)
		if !ok {
			continue
		}
		for _, k := range keys {
			if k.base == "" || k.base == k.image {
				continue
			}
			if namesImage(from, k.image) && !namesImage(from, k.base) && namesImage(to, k.base) && !namesImage(to, k.image) {
				f := checks.Finding{
					Path:  a.Path,
					Line:  it.Line,
					Title: "Changelog description has the image change the wrong way round",
					Body: fmt.Sprintf("The description of the entry this PR adds says the image goes from %s to %s, "+
						"but this PR moves %s the other way: from %s to %s (%s:%d). Swap the two so the record says "+
						"what changed.", prose.Code(from), prose.Code(to), prose.Code(k.key), prose.Code(k.base),
						prose.Code(k.image), k.path, k.line),
					Related: []checks.Location{{Path: k.path, Line: k.line, Note: "the image " + prose.Code(k.key) + " runs after this PR"}},
					Key:     "description-image-reversed:" + strconv.Itoa(i),
					Facts:   []string{"image:" + k.image},
				}
				return f, true
			}
		}
	}
	return checks.Finding{}, false
}

// imageRefs returns the image references in a line of prose: a repository
// path with at least one slash, a colon and a tag ("vllm/vllm-openai:v0.21.0",
// "nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc2"). Sentence punctuation
// around one is not part of it.
//
// A bare tag right after "to" or an arrow that follows a reference is that
// reference's repository at the tag: "from vllm/vllm-openai:v0.24.0 to
// v0.26.0" names both.
func imageRefs(s string) []string {
	var out []string
	lastRepo, prev := "", ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == '(' || r == ')' || r == '`' || r == '"' || r == '\'' || r == ';' || r == '[' || r == ']'
	}) {
		w = strings.TrimRight(w, ".:;!?")
		word := strings.ToLower(w)
		if strings.Contains(w, "://") {
			prev = word
			continue // a link
		}
		slash := strings.IndexByte(w, '/')
		colon := strings.LastIndexByte(w, ':')
		switch {
		case slash > 0 && colon > slash && colon < len(w)-1 && isImageRef(w):
			out = append(out, w)
			lastRepo = w[:colon]
		case lastRepo != "" && (prev == "to" || prev == "->" || prev == "→") && isBareTag(w):
			out = append(out, lastRepo+":"+w)
		}
		prev = word
	}
	return out
}

// isBareTag reports whether w reads as a version tag on its own
// ("v0.26.0", "0.5.16-cu130"): it starts with a digit, or a v and a digit.
func isBareTag(w string) bool {
	t := strings.TrimPrefix(w, "v")
	if t == "" || t[0] < '0' || t[0] > '9' || strings.ContainsAny(w, "/:") {
		return false
	}
	return isImageRef("x/x:" + w)
}

// isImageRef reports whether w is shaped like a registry reference:
// lower-case repository path components and a tag of word characters.
func isImageRef(w string) bool {
	colon := strings.LastIndexByte(w, ':')
	repo, tag := w[:colon], w[colon+1:]
	if len(tag) > 128 {
		return false
	}
	for _, c := range tag {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	for i, part := range strings.Split(repo, "/") {
		if part == "" {
			return false
		}
		for _, c := range part {
			ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
			if i == 0 && c == ':' {
				ok = true // a registry's port
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// repoOf is a reference's repository without a default registry prefix.
func repoOf(ref string) string {
	r := ref
	if i := strings.LastIndexByte(r, ':'); i > strings.LastIndexByte(r, '/') {
		r = r[:i]
	}
	r = strings.TrimPrefix(r, "docker.io/")
	return strings.TrimPrefix(r, "library/")
}

func tagOf(ref string) string {
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		return ref[i+1:]
	}
	return ""
}

func sameRepo(a, b string) bool { return repoOf(a) == repoOf(b) }

// namesImage reports whether a reference in prose names the image: the same
// repository and tag, or a tag the image's tag starts with (a commit hash
// cut short, `nightly` for a dated nightly build).
func namesImage(ref, image string) bool {
	if !sameRepo(ref, image) {
		return false
	}
	rt, it := tagOf(ref), tagOf(image)
	return rt == it || rt != "" && strings.HasPrefix(it, rt)
}

// fromTo reads "from A to B" (or "A -> B", "A → B") with image references
// on both sides.
func fromTo(s string) (from, to string, ok bool) {
	refs := imageRefs(s)
	if len(refs) != 2 {
		return "", "", false
	}
	lower := strings.ToLower(s)
	i, j := strings.Index(s, refs[0]), strings.LastIndex(s, refs[1])
	if i < 0 || j <= i {
		return "", "", false
	}
	between := lower[i+len(refs[0]) : j]
	before := lower[:i]
	switch {
	case strings.Contains(between, "->") || strings.Contains(between, "→"):
	case strings.Contains(between, " to ") && strings.HasSuffix(strings.TrimRight(before, " `\""), "from"):
	default:
		return "", "", false
	}
	return refs[0], refs[1], true
}
