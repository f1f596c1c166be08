package recipe

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"unsafe"
)

// Golden acceptance-length (AL) curves: golden_al_distribution/*.yaml.
//
// Each file holds, under one top-level model key, one curve per thinking
// mode (thinking_on, and in some files thinking_off) mapping a draft
// length (num_speculative_tokens, 1..8) to the AL measured with real
// verification:
//
//	# comment header
//	deepseek-v4-pro:
//	  thinking_on:
//	    1: 1.79
//	    3: 2.49
//
// The file name says which recipes a curve belongs to:
// <model prefix>[_-]<draft method>[_<qualifiers>].yaml, for example
// dsv4_mtp.yaml, kimik3_dspark.yaml, minimaxm3_eagle3_gqa.yaml,
// dsv4-pro-0813-dspark.yaml. The model prefix is the first segment of
// the recipe file names (dsv4_fp4_b200_vllm.sh); the qualifiers name a
// variant of the draft head or sampling (gqa, probabilistic, block).

// GoldenAL is one parsed golden AL file.
type GoldenAL struct {
	// Path is the file's path in the repository.
	Path string
	// Stem is the file name without its extension.
	Stem string
	// Prefix is the model-prefix part of the name ("dsv4", "glm5.2",
	// "dsv4-pro-0813"), Method the draft method ("mtp", "dspark",
	// "eagle3"; "" when the name has none) and Qualifiers the rest of
	// the name, split into words.
	Prefix     string
	Method     string
	Qualifiers []string
	Models     []GoldenModel
}

// GoldenModel is one top-level model key of a golden file.
type GoldenModel struct {
	Name   string
	Line   int
	Curves []GoldenCurve
}

// GoldenCurve is one thinking mode's curve.
type GoldenCurve struct {
	// Mode is the key as written: "thinking_on", "thinking_off".
	Mode   string
	Line   int
	Points []GoldenPoint
}

// GoldenPoint is one draft length's golden AL.
type GoldenPoint struct {
	Draft int
	AL    float64
	// Text is the value as written ("2.62"), for messages.
	Text string
	// Line is the line of the "N: value" entry.
	Line int
}

// At returns the point for a draft length.
func (c GoldenCurve) At(draft int) (GoldenPoint, bool) {
	for _, p := range c.Points {
		if p.Draft == draft {
			return p, true
		}
	}
	return GoldenPoint{}, false
}

// Thinking reports whether a curve's mode is thinking on (true) or off
// (false); ok is false for a mode name that says neither.
func (c GoldenCurve) Thinking() (on, ok bool) {
	m := strings.ToLower(c.Mode)
	switch {
	case strings.HasSuffix(m, "_off") || strings.HasSuffix(m, "-off") || strings.Contains(m, "disabled") || strings.HasPrefix(m, "no_thinking") || strings.HasPrefix(m, "non_thinking"):
		return false, true
	case strings.HasSuffix(m, "_on") || strings.HasSuffix(m, "-on") || strings.Contains(m, "enabled"):
		return true, true
	}
	return false, false
}

// goldenMethods are the draft-method words a golden file name may carry.
var goldenMethods = []string{"mtp", "nextn", "dspark", "eagle3", "eagle", "medusa", "ngram", "dflash"}

// splitGoldenName splits a golden file's stem into model prefix, draft
// method and qualifiers: the method is the first word (after the first)
// that names a draft method.
func splitGoldenName(stem string) (prefix, method string, qualifiers []string) {
	words := strings.FieldsFunc(stem, func(r rune) bool { return r == '_' || r == '-' })
	for i := 1; i < len(words); i++ {
		w := strings.ToLower(words[i])
		if !slices.Contains(goldenMethods, w) {
			continue
		}
		// The prefix keeps its own separators (dsv4-pro-0813).
		off := 0
		for j := 0; j < i; j++ {
			off = strings.Index(stem[off:], words[j]) + off + len(words[j])
		}
		prefix = strings.TrimRight(stem[:off], "_-")
		for _, q := range words[i+1:] {
			qualifiers = append(qualifiers, strings.ToLower(q))
		}
		return prefix, w, qualifiers
	}
	return stem, "", nil
}

// ParseGoldenAL parses a golden AL file, keeping line numbers. A file
// that is not YAML, has no curve, or repeats a draft length in one curve
// is an error.
func ParseGoldenAL(p string, b []byte) (*GoldenAL, error) {
	g := &GoldenAL{Path: p}
	g.Stem = strings.TrimSuffix(path.Base(p), path.Ext(p))
	g.Prefix, g.Method, g.Qualifiers = splitGoldenName(g.Stem)
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping of model to curves", p)
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind != yaml.MappingNode {
			continue
		}
		m := GoldenModel{Name: k.Value, Line: k.Line}
		for j := 0; j+1 < len(v.Content); j += 2 {
			ck, cv := v.Content[j], v.Content[j+1]
			curve, err := parseGoldenCurve(p, ck, cv)
			if err != nil {
				return nil, err
			}
			if len(curve.Points) > 0 {
				m.Curves = append(m.Curves, curve)
			}
		}
		if len(m.Curves) > 0 {
			g.Models = append(g.Models, m)
		}
	}
	if len(g.Models) == 0 {
		return nil, fmt.Errorf("%s: no golden curve (want model: {thinking_on: {1: AL, ...}})", p)
	}
	return g, nil
}

func parseGoldenCurve(p string, k, v *yaml.Node) (GoldenCurve, error) {
	c := GoldenCurve{Mode: k.Value, Line: k.Line}
	if v.Kind != yaml.MappingNode {
		return c, nil
	}
	seen := map[int]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		pk, pv := v.Content[i], v.Content[i+1]
		n, err := strconv.Atoi(pk.Value)
		if err != nil || pv.Kind != yaml.ScalarNode {
			continue
		}
		al, err := strconv.ParseFloat(pv.Value, 64)
		if err != nil {
			return c, fmt.Errorf("%s:%d: golden AL %q for draft length %d is not a number", p, pv.Line, pv.Value, n)
		}
		if seen[n] {
			return c, fmt.Errorf("%s:%d: draft length %d listed twice under %s", p, pk.Line, n, c.Mode)
		}
		seen[n] = true
		c.Points = append(c.Points, GoldenPoint{Draft: n, AL: al, Text: pv.Value, Line: pk.Line})
	}
	sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].Draft < c.Points[j].Draft })
	return c, nil
}

const goldenKind = "recipe.golden-al"

// goldenKey shares GoldenALFiles within a change.
var goldenKey = checks.NewMemoKey[[]*GoldenAL](goldenKind)

// GoldenALFiles returns the golden AL files of the base tree (the
// committed curves a PR is judged against), sorted by path. Files that do
// not parse are left out: they are not the reviewed PR's doing.
func GoldenALFiles(ctx context.Context, ch *checks.Change) ([]*GoldenAL, error) {
	files, err := checks.Shared(ch, goldenKey, "", func() ([]*GoldenAL, error) {
		dir := ch.Settings(ctx).Paths.GoldenAL
		if dir == "" {
			dir = "golden_al_distribution"
		}
		entries, err := ch.Base.ReadDir(ctx, dir)
		if err != nil {
			if checks.IsNotExist(err) {
				return []*GoldenAL(nil), nil
			}
			return []*GoldenAL(nil), err
		}
		var out []*GoldenAL
		for _, e := range entries {
			if e.IsDir || (path.Ext(e.Path) != ".yaml" && path.Ext(e.Path) != ".yml") {
				continue
			}
			g, err := checks.Parsed(ctx, ch.Cache, ch.Base, goldenKind+"\x00"+e.Path, e.Path, func(b []byte) (*GoldenAL, error) {
				return ParseGoldenAL(e.Path, b)
			})
			if err != nil {
				if checks.IsNotExist(err) || g == nil {
					continue
				}
				return []*GoldenAL(nil), err
			}
			out = append(out, g)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
		return out, nil
	})
	return files, err
}

// normName drops separators and case, so that "glm5.2", "glm52" and
// "GLM-5.2" compare equal.
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r != '_' && r != '-' && r != '.' && r != ' ' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// methodFamilies maps the draft method a recipe names (vLLM's "method",
// SGLang's --speculative-algorithm, TRT-LLM's decoding_type, lowercased)
// to the golden file methods whose curves apply. SGLang runs MTP heads
// through its EAGLE algorithm, so "eagle" admits the MTP curves too.
// Methods not listed match a golden method of the same name.
var methodFamilies = []struct {
	contains string
	golden   []string
}{
	{"dspark", []string{"dspark"}},
	{"eagle3", []string{"eagle3"}},
	{"eagle", []string{"eagle", "eagle3", "mtp", "nextn"}},
	{"mtp", []string{"mtp", "nextn"}},
	{"nextn", []string{"mtp", "nextn"}},
}

func goldenMethodsFor(method string) []string {
	m := strings.ToLower(method)
	for _, f := range methodFamilies {
		if strings.Contains(m, f.contains) {
			return f.golden
		}
	}
	return []string{m}
}

// genericWords are qualifier words that say nothing about a variant
// (probabilistic_sample_method_block_rejection_sample_method): every
// speculative config has a sample method.
var genericWords = map[string]bool{"sample": true, "method": true, "rejection": true, "draft": true, "synthetic": true}

// SelectGolden picks the golden files that apply to a recipe: its model
// prefix (the first segment of its file name), the draft method it uses
// ("" when unknown) and the words of its speculative settings (values of
// the speculative config, the recipe's file name) that may name a
// variant. More than one file means the choice is ambiguous: a value
// that matches any of them is accepted. None means there is no curve to
// judge against.
//
// The choice: files whose prefix equals the model prefix (separators and
// case ignored); among them those whose method belongs to the recipe's
// method family (methodFamilies) when the method is known; then, when a
// variant file's qualifiers (gqa, probabilistic, block) all occur among
// the recipe's words, the most specific such files; otherwise the plain
// files plus any variant the recipe's words half-name.
func SelectGolden(files []*GoldenAL, modelPrefix, method string, words []string) []*GoldenAL {
	cands := SelectGoldenAny(files, modelPrefix, method)
	if len(cands) <= 1 {
		return cands
	}
	have := map[string]bool{}
	for _, w := range words {
		for _, t := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			have[t] = true
		}
	}
	var full, plain, partial []*GoldenAL
	best := 0
	for _, g := range cands {
		n, matched := 0, 0
		for _, q := range g.Qualifiers {
			if genericWords[q] {
				continue
			}
			n++
			if have[q] {
				matched++
			}
		}
		switch {
		case n == 0:
			plain = append(plain, g)
		case matched == n:
			if n > best {
				best, full = n, nil
			}
			if n == best {
				full = append(full, g)
			}
		case matched > 0:
			partial = append(partial, g)
		}
	}
	if len(full) > 0 {
		return full
	}
	if out := append(plain, partial...); len(out) > 0 {
		return out
	}
	return cands
}

// SelectGoldenAny returns every curve file of the model prefix whose draft
// method is method's family (or that names no method), whatever variant
// qualifiers it carries: the candidates when the recipe's words cannot tell
// the variants apart.
func SelectGoldenAny(files []*GoldenAL, modelPrefix, method string) []*GoldenAL {
	var cands []*GoldenAL
	for _, g := range files {
		if normName(g.Prefix) == normName(modelPrefix) {
			cands = append(cands, g)
		}
	}
	if len(cands) == 0 || method == "" {
		return cands
	}
	fam := goldenMethodsFor(method)
	var keep []*GoldenAL
	for _, g := range cands {
		if g.Method == "" || slices.Contains(fam, g.Method) {
			keep = append(keep, g)
		}
	}
	return keep
}

// MemSize estimates the memory the parsed golden file holds, for the
// parse cache's byte bound.
func (g *GoldenAL) MemSize() int64 {
	if g == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*g)) + int64(len(g.Path)+len(g.Stem)+len(g.Prefix)+len(g.Method)) +
		16*int64(cap(g.Qualifiers)) + int64(cap(g.Models))*int64(unsafe.Sizeof(GoldenModel{}))
	for _, q := range g.Qualifiers {
		n += int64(len(q))
	}
	for _, m := range g.Models {
		n += int64(len(m.Name)) + int64(cap(m.Curves))*int64(unsafe.Sizeof(GoldenCurve{}))
		for _, c := range m.Curves {
			n += int64(len(c.Mode)) + int64(cap(c.Points))*int64(unsafe.Sizeof(GoldenPoint{}))
			for _, p := range c.Points {
				n += int64(len(p.Text))
			}
		}
	}
	return n
}
