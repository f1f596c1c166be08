package multinode

import (
	"fmt"
	"math/bits"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN003 reports a sizing value one digit away from the power of two every
// other recipe uses for it.
var MN003 = &checks.Rule{
	ID:       "MN003",
	Severity: checks.Warning,
	Title:    "Recipe value looks like a mistyped power of two",
	Doc: "Batch and capture sizes of the engines (`max-cudagraph-capture-size`, `cuda-graph-max-bs`, " +
		"`max-num-batched-tokens`, ...) are powers of two in the multi-node recipes: the CUDA-graph and batch " +
		"buckets are. This rule reports an integer setting the PR writes in a recipe that is not a power of two, is " +
		"one digit away from one (`8196` for `8192`), where at least 95% of that key's values across the base " +
		"tree's multi-node recipes (at least five of them) are powers of two, that one at least three times, and the " +
		"value itself appears nowhere — a typo that silently sizes the buckets differently from every sibling. Keys " +
		"whose values vary in the repository are not judged.",
	Run: runMN003,
}

// minSiblingValues is how many sibling values make a convention, and
// minNear how often the power of two the value resembles must be among
// them.
const (
	minSiblingValues = 5
	minNear          = 3
)

// recipeGlobs are where the base tree's multi-node recipes are.
var recipeGlobs = []string{"benchmarks/multi_node/**/*.yaml", checks.NewerLayoutRoot + "/benchmarks/multi_node/**/*.yaml"}

// maxSiblings bounds the recipes read for the convention.
const maxSiblings = 2000

func isPow2(v int) bool { return v > 0 && v&(v-1) == 0 }

// nearPow2 is the power of two one decimal digit away from v, or 0.
func nearPow2(v int) int {
	if v < 64 || isPow2(v) {
		return 0
	}
	lo := 1 << (bits.Len(uint(v)) - 1)
	for _, p := range []int{lo, lo << 1} {
		a, b := strconv.Itoa(v), strconv.Itoa(p)
		if len(a) == len(b) && prose.EditDistance(a, b, 1) == 1 {
			return p
		}
	}
	return 0
}

// intSettings calls fn for every integer scalar of the roles' engine
// settings.
func intSettings(root *yaml.Node, fn func(key string, v int, n *yaml.Node)) {
	if root == nil {
		return
	}
	for _, cfg := range roleConfigs(root) {
		for _, kv := range yamlx.Pairs(cfg) {
			if kv.Value.Kind != yaml.ScalarNode {
				continue
			}
			if v, err := strconv.Atoi(kv.Value.Value); err == nil {
				fn(kv.Key.Value, v, kv.Value)
			}
		}
	}
}

type candidate struct {
	key    string
	v, p   int
	line   int
	recipe string
}

func runMN003(p *checks.Pass) error {
	var cands []candidate
	for _, fc := range changedRecipes(p) {
		fc := fc
		head, err := read(p, p.Change.Head, fc.Path)
		if err != nil {
			return err
		}
		intSettings(head.root, func(key string, v int, n *yaml.Node) {
			if pw := nearPow2(v); pw > 0 && fc.IsAdded(n.Line) {
				cands = append(cands, candidate{key: key, v: v, p: pw, line: n.Line, recipe: fc.Path})
			}
		})
	}
	if len(cands) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, c := range cands {
		want[c.key] = true
	}
	// The convention, from the base tree: every value of each key.
	type seen struct {
		vals  []int
		where map[int]checks.Location
	}
	conv := map[string]*seen{}
	files, err := checks.GlobFiles(p.Ctx, p.Change.Base, recipeGlobs)
	if err != nil {
		return err
	}
	if len(files) > maxSiblings {
		files = files[:maxSiblings]
	}
	for _, e := range files {
		d, err := read(p, p.Change.Base, e.Path)
		if err != nil {
			return err
		}
		intSettings(d.root, func(key string, v int, n *yaml.Node) {
			if !want[key] {
				return
			}
			s := conv[key]
			if s == nil {
				s = &seen{where: map[int]checks.Location{}}
				conv[key] = s
			}
			s.vals = append(s.vals, v)
			if _, ok := s.where[v]; !ok {
				s.where[v] = checks.Location{Path: e.Path, Line: n.Line}
			}
		})
	}
	for _, c := range cands {
		s := conv[c.key]
		if s == nil || len(s.vals) < minSiblingValues {
			continue
		}
		odd, near := 0, 0
		for _, v := range s.vals {
			if !isPow2(v) {
				odd++
			}
			if v == c.p {
				near++
			}
		}
		at := s.where[c.p]
		_, again := s.where[c.v]
		// Nearly every value a power of two (an odd one out is tolerated:
		// 384 among 2048s), the power meant common, and the value itself
		// nowhere else.
		if odd*20 > len(s.vals) || near < minNear || again {
			continue
		}
		lo, hi := 0, 0
		for v := range s.where {
			if isPow2(v) && (lo == 0 || v < lo) {
				lo = v
			}
			if isPow2(v) && v > hi {
				hi = v
			}
		}
		at.Note = fmt.Sprintf("%s here", prose.Code(fmt.Sprintf("%s: %d", c.key, c.p)))
		p.Report(checks.Finding{
			Path:  c.recipe,
			Line:  c.line,
			Title: fmt.Sprintf("%s %d looks like a mistyped %d", prose.Code(c.key), c.v, c.p),
			Body: fmt.Sprintf("Line %d sets %s, which is not a power of two and one digit away from %d. Of the %d values "+
				"of %s in the base tree's multi-node recipes, %d are powers of two (from %d to %d), %d of them %d. Write %d unless %d is meant.",
				c.line, prose.Code(fmt.Sprintf("%s: %d", c.key, c.v)), c.p, len(s.vals), prose.Code(c.key), len(s.vals)-odd, lo, hi, near, c.p, c.p, c.v),
			Related: []checks.Location{at},
			Key:     fmt.Sprintf("pow2:%s:%d", c.key, c.v),
		})
	}
	return nil
}
