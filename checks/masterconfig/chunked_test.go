package masterconfig

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// chunkedCases are files whose key-by-key parse must equal the whole-file
// parse: the shapes TopLevelChunks splits and the ones it hands back.
var chunkedCases = map[string]string{
	"model":              modelSrc,
	"nvidia":             baseNV,
	"amd":                baseAMD,
	"empty":              "",
	"comment only":       "# nothing yet\n",
	"document start":     "---\n",
	"preamble":           "# header\n\n---\n# about a\na:\n  image: x\n",
	"no final newline":   "a:\n  image: x\nb:\n  image: y",
	"crlf":               "a:\r\n  image: x\r\nb:\r\n  image: y\r\n",
	"null values":        "a:\n# dangling comment\n\nb:\nc: 1\n",
	"comments between":   "a:\n  image: x\n# about b\n\n# more\nb:\n  image: y\n  # trailing\n",
	"top-level dup":      "a:\n  image: x\nb:\n  image: y\na:\n  image: z\n",
	"nested dup":         "a:\n  image: x\n  image: y\nb:\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 4, tp: 8 }\n",
	"both dups":          "a:\n  image: x\n  image: y\na:\n  image: z\nb: {c: 1, c: 2}\n",
	"anchor inside key":  "a:\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - &r { tp: 4, conc-list: [1] }\n      - *r\n",
	"anchor across keys": "a: &a\n  image: x\nb:\n  <<: *a\n  model: m\n",
	"merge inside key":   "a:\n  base: &b { image: x }\n  <<: *b\n",
	"broken middle key":  "a:\n  image: x\nb:\n  image: [y\nc:\n  image: z\n",
	"broken first key":   "a: {\nb:\n  image: y\n",
	"tab":                "a:\n\timage: x\n",
	"not a mapping":      "- a\n- b\n",
	"scalar document":    "just text\n",
	"second document":    "a: 1\n---\nb: 2\n",
	"indented preamble":  "  x: 1\na:\n  image: y\n",
	"flow top level":     "{a: {image: x}, b: {image: y}}\n",
	"scalar key values":  "a: 1\nb: [1, 2]\nc: ~\nd: |\n  text\n\n  more\ne: >-\n  folded\n",
	"alias bomb":         "a:\n  l0: &l0 [x, x]\n  l1: &l1 [*l0, *l0]\n  l2: &l2 [*l1, *l1]\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 4, r: *l2 }\n",
	"quoted top key":     "\"a\":\n  image: x\nb:\n  image: y\n",
	"keys like scalars":  "true:\n  image: x\n1.5:\n  image: y\nnull:\n  image: z\n",
}

func addRealConfigs(cases map[string]string) {
	for _, p := range []string{realDir + "configs/nvidia-master.yaml", realDir + "configs/amd-master.yaml",
		"../../testdata/trees/inferencex/configs/nvidia-master.yaml", "../../testdata/trees/inferencex/configs/amd-master.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			cases[p] = string(b)
		}
	}
}

// fileCmp compares parsed files. Digests of values too large to compare
// are unique per parse, and which values run out of budget may differ
// between a whole-file parse and a key-by-key one (one budget per file
// against one per key), so such digests match anything.
var fileCmp = cmp.Options{
	cmp.AllowUnexported(File{}),
	cmp.FilterPath(func(p cmp.Path) bool {
		switch p.Last().String() {
		case ".Hash", ".Header", ".Settings":
			return true
		}
		return false
	}, cmp.Comparer(func(a, b uint64) bool {
		return a == b || a>>48 == overBudgetMark>>48 || b>>48 == overBudgetMark>>48
	})),
}

func TestChunkedParseMatchesWhole(t *testing.T) {
	cases := map[string]string{}
	for k, v := range chunkedCases {
		cases[k] = v
	}
	addRealConfigs(cases)
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			want := parseWhole([]byte(src))
			if d := cmp.Diff(want, parseKeys([]byte(src), nil, false), fileCmp); d != "" {
				t.Errorf("key-by-key parse differs from the whole-file parse (-whole +chunked):\n%s", d)
			}
			if d := cmp.Diff(want, parseFile([]byte(src), checks.NewParseCache(0)), fileCmp); d != "" {
				t.Errorf("split whole-file parse differs from the whole-file parse (-whole +split):\n%s", d)
			}
			// The same file again, moved down by an inserted comment,
			// with every key taken from the cache (filled by a split
			// whole-file parse, or key by key) and shifted.
			for _, whole := range []bool{true, false} {
				cache := checks.NewParseCache(0)
				parseKeys([]byte(src), cache, whole)
				moved := "# moved\n# down\n" + src
				if d := cmp.Diff(parseWhole([]byte(moved)), parseFile([]byte(moved), cache), fileCmp); d != "" {
					t.Errorf("shifted parse (cache filled whole: %v) differs from the whole-file parse (-whole +chunked):\n%s", whole, d)
				}
			}
		})
	}
}

// TestHeadReusesBaseKeys parses a base and then a head that changes one
// key and inserts lines before another: the keys above the change come
// from the base's parse as they are, the ones below it shifted.
func TestHeadReusesBaseKeys(t *testing.T) {
	cache := checks.NewParseCache(0)
	base := parseFile([]byte(baseNV), cache)
	n := cache.Len()
	headSrc := strings.Replace(baseNV, "  image: vllm/vllm-openai:v0.25.0\n", "  image: vllm/vllm-openai:v0.26.0\n  # bumped\n", 1)
	if headSrc == baseNV {
		t.Fatal("edit did not apply")
	}
	head := parseFile([]byte(headSrc), cache)
	if d := cmp.Diff(parseWhole([]byte(headSrc)), head, fileCmp); d != "" {
		t.Fatalf("head differs from the whole-file parse:\n%s", d)
	}
	if cache.Len() != n+1 {
		t.Errorf("cache grew by %d entries, want 1 (the changed key)", cache.Len()-n)
	}
	if len(base.Keys) != 4 || len(head.Keys) != 4 {
		t.Fatalf("keys: %d, %d", len(base.Keys), len(head.Keys))
	}
	if head.Keys[0] != base.Keys[0] {
		t.Error("the key above the change was parsed again")
	}
	if head.Keys[1] == base.Keys[1] || head.Keys[1].Image.Value != "vllm/vllm-openai:v0.26.0" {
		t.Errorf("changed key: %+v", head.Keys[1].Image)
	}
	for _, i := range []int{2, 3} {
		b, h := base.Keys[i], head.Keys[i]
		if h == b || h.Line != b.Line+1 || h.Scenarios[0].Rows[0].Line != b.Scenarios[0].Rows[0].Line+1 || h.Header != b.Header {
			t.Errorf("key %s below the change: base line %d, head line %d", b.Name, b.Line, h.Line)
		}
		if want := checktest.LineOf(t, baseNV, b.Name+":"); b.Line != want {
			t.Errorf("the base's key %s moved to line %d (shared keys must not be modified)", b.Name, b.Line)
		}
	}
}

// TestChunkedParseErrorLine: a key that does not parse makes the file
// parse whole, so the error is the whole-file parser's, at its line.
func TestChunkedParseErrorLine(t *testing.T) {
	src := baseNV + "bad-fp4-b200-vllm:\n  image: x\n  scenarios: { agentic-coding: [\n" + baseAMD
	want := parseWhole([]byte(src))
	if want.Err == nil || want.Err.Line <= checktest.LineOf(t, src, "bad-fp4-b200-vllm:") {
		t.Fatalf("whole-file parse error %+v is not at or after the broken key", want.Err)
	}
	for _, whole := range []bool{true, false} {
		cache := checks.NewParseCache(0)
		parseFile([]byte(baseNV), cache) // the keys before the broken one are known
		f := parseKeys([]byte(src), cache, whole)
		if f.Err == nil || *f.Err != *want.Err || len(f.Keys) != 0 {
			t.Errorf("whole %v: error %+v and %d keys, whole-file parse gives %+v", whole, f.Err, len(f.Keys), want.Err)
		}
	}
}

func TestShiftedCoversEveryLine(t *testing.T) {
	// shifted must move every line a Key holds. Parse a key at line 1 and
	// at line 11 and compare: a line field added to the model and missed
	// by shifted shows up here.
	src := strings.SplitN(modelSrc, "dsr1-fp4-b200-dynamo-trt:", 2)[0]
	src = strings.TrimPrefix(src, "# header comment\n")
	at1 := parseWhole([]byte(src)).Keys[0]
	at11 := parseWhole([]byte(strings.Repeat("#\n", 10) + src)).Keys[0]
	if d := cmp.Diff(at11, at1.shifted(10)); d != "" {
		t.Errorf("shifted(10) (-parsed at line 11 +shifted):\n%s", d)
	}
}

func FuzzChunkedParse(f *testing.F) {
	for _, src := range chunkedCases {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, ok := yamlx.TopLevelChunks([]byte(src)); !ok {
			return // parsed whole either way
		}
		want := parseWhole([]byte(src))
		if d := cmp.Diff(want, parseKeys([]byte(src), nil, false), fileCmp); d != "" {
			t.Fatalf("chunked parse differs (-whole +chunked):\n%s", d)
		}
		// Split from a whole-file parse into the cache, then reused
		// shifted; and the same from key-by-key parses.
		moved := "#\n" + src
		for _, whole := range []bool{true, false} {
			cache := checks.NewParseCache(0)
			if d := cmp.Diff(want, parseKeys([]byte(src), cache, whole), fileCmp); d != "" {
				t.Fatalf("parse into the cache differs (-whole +chunked):\n%s", d)
			}
			if d := cmp.Diff(parseWhole([]byte(moved)), parseFile([]byte(moved), cache), fileCmp); d != "" {
				t.Fatalf("shifted parse differs (-whole +chunked):\n%s", d)
			}
		}
	})
}

// TestCompareByMeaning: rows are matched by their data, so rewriting rows
// with an anchor and a merge key changes nothing, while quoting a number
// (an int becomes a string) changes the row.
func TestCompareByMeaning(t *testing.T) {
	rows := "      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { tp: 4, ep: 4, dp-attn: true, kv-offloading: none, conc-list: [8, 16] }\n"
	for _, tc := range []struct {
		name, rows string
		changed    []bool
	}{
		{"anchor and merge", "      - &tp4 { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { <<: *tp4, ep: 4, dp-attn: true, conc-list: [8, 16] }\n",
			[]bool{false, false}},
		{"reordered, block style", "      - tp: 4\n        ep: 4\n        dp-attn: true\n        kv-offloading: none\n        conc-list: [8, 16]\n      - { conc-list: [1, 2, 4, 8], tp: 0x4, kv-offloading: none }\n",
			[]bool{false, false}},
		{"quoted number", "      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { tp: 4, ep: 4, dp-attn: true, kv-offloading: none, conc-list: [8, \"16\"] }\n",
			[]bool{false, true}},
		{"true as a string", "      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { tp: 4, ep: 4, dp-attn: 'true', kv-offloading: none, conc-list: [8, 16] }\n",
			[]bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []bool
			probe := &checks.Rule{ID: "TEST1", Title: "probe", Doc: "probe", Severity: checks.Warning, Run: func(p *checks.Pass) error {
				a, err := load(p)
				if err != nil {
					return err
				}
				for _, ks := range a.files[0].keys {
					if ks.key.Name != "dsv4-fp4-b300-vllm-agentic" {
						continue
					}
					for _, r := range ks.key.Scenarios[0].Rows {
						got = append(got, ks.rows[r])
					}
				}
				return nil
			}}
			reg, err := checks.NewRegistry(probe)
			if err != nil {
				t.Fatal(err)
			}
			bt := checks.NewMemTree(map[string]string{nv: baseNV})
			ht := checks.NewMemTree(map[string]string{nv: replace(baseNV, rows, tc.rows)})
			files, err := trees.Diff(context.Background(), bt, ht)
			if err != nil {
				t.Fatal(err)
			}
			res, err := checks.Review(context.Background(), reg, &checks.Change{Base: bt, Head: ht, Files: files})
			if err != nil || len(res.Errors) > 0 {
				t.Fatal(err, res.Errors)
			}
			if !cmp.Equal(got, tc.changed) {
				t.Errorf("rows changed: %v, want %v", got, tc.changed)
			}
		})
	}
}
