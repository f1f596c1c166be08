package pipeline

import (
	"reflect"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// fakeRow is a row of a key at a line, for the finding helpers.
func fakeRow(key string, line int) *Row {
	return &Row{File: smallConfig, Key: &masterconfig.Key{Name: key}, Row: &masterconfig.Row{Line: line}}
}

// TestRowNames: how a finding names the rows it is about: one row by its
// place, a few by their lines, many with the rest counted.
func TestRowNames(t *testing.T) {
	hits := func(lines ...int) []rowHit {
		var out []rowHit
		for _, l := range lines {
			out = append(out, rowHit{row: fakeRow("k", l)})
		}
		return out
	}
	for _, c := range []struct {
		hits []rowHit
		want string
	}{
		{hits(12), "the row at `" + smallConfig + ":12`"},
		{hits(12, 14), "2 rows (`" + smallConfig + "` lines 12 and 14)"},
		{hits(1, 2, 3, 4), "4 rows (`" + smallConfig + "` lines 1, 2, 3 and 4)"},
		{hits(1, 2, 3, 4, 5, 6), "6 rows (`" + smallConfig + "` lines 1, 2, 3, 4 and 2 more)"},
	} {
		if got := rowNames(c.hits); got != c.want {
			t.Errorf("rowNames = %q, want %q", got, c.want)
		}
	}
}

// TestGroupByKey: hits are grouped by key and problem, groups and the rows
// in them in the order found.
func TestGroupByKey(t *testing.T) {
	a1, a2, b1 := fakeRow("a", 1), fakeRow("a", 2), fakeRow("b", 3)
	gs := groupByKey([]rowHit{{a1, "x"}, {b1, "x"}, {a2, "x"}, {a2, "y"}})
	var got []string
	for _, g := range gs {
		s := g.key + "/" + g.fp + ":"
		for _, h := range g.hits {
			s += " " + h.row.Key.Name
		}
		got = append(got, s)
	}
	if want := []string{"a/x: a a", "b/x: b", "a/y: a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	if groupByKey(nil) != nil {
		t.Error("no hits, no groups")
	}
}

// TestSortedLocs: evidence is listed by file and line, each place once.
func TestSortedLocs(t *testing.T) {
	got := sortedLocs([]checks.Location{
		{Path: "b", Line: 2}, {Path: "a", Line: 9}, {Path: "a", Line: 1, Note: "first"}, {Path: "a", Line: 1, Note: "again"}, {Path: "b", Line: 2},
	})
	want := []checks.Location{{Path: "a", Line: 1, Note: "first"}, {Path: "a", Line: 9}, {Path: "b", Line: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := sortedLocs(nil); len(got) != 0 {
		t.Errorf("sortedLocs(nil) = %v", got)
	}
	if l := rowLoc(fakeRow("k", 7), "n"); l != (checks.Location{Path: smallConfig, Line: 7, Note: "n"}) {
		t.Errorf("rowLoc %+v", l)
	}
	if l := loc(Loc{File: "f", Line: 3}, "n"); l != (checks.Location{Path: "f", Line: 3, Note: "n"}) {
		t.Errorf("loc %+v", l)
	}
}

// TestSmallTextHelpers: plural choice, sorted unique lists, the last part
// of a schema path, the value phrase of PL006, the base path of a rename.
func TestSmallTextHelpers(t *testing.T) {
	if pick(1, "row", "rows") != "row" || pick(0, "row", "rows") != "rows" || pick(3, "row", "rows") != "rows" {
		t.Error("pick")
	}
	if got := uniq([]string{"b", "a", "b", "c", "a"}); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("uniq = %v", got)
	}
	for p, want := range map[string]string{"k.scenarios.fixed-seq-len[0].tp": "tp", "tp": "tp", "": "", "a.": ""} {
		if got := lastPart(p); got != want {
			t.Errorf("lastPart(%q) = %q, want %q", p, got, want)
		}
	}
	if got := valuesPhrase([]string{"8"}); got != "the value 8" {
		t.Errorf("valuesPhrase = %q", got)
	}
	if got := valuesPhrase([]string{"1", "2", "4"}); got != "the values 1, 2 and 4" {
		t.Errorf("valuesPhrase = %q", got)
	}
	if basePath(&checks.FileChange{Path: "new.sh", OldPath: "old.sh"}) != "old.sh" || basePath(&checks.FileChange{Path: "a.sh"}) != "a.sh" {
		t.Error("basePath")
	}
	if lineOr(3, 9) != 3 || lineOr(0, 9) != 9 || lineOr(-1, 9) != 9 {
		t.Error("lineOr")
	}
}

// TestEnvSummary: a launcher's deciding variables as a finding cites
// them; unknown and unset ones are left out.
func TestEnvSummary(t *testing.T) {
	env := envOf("MODEL_PREFIX", "dsr1", "PRECISION", "fp4", "TP", "8")
	env["FRAMEWORK"] = Opaque()
	env["SPEC_DECODING"] = Value{}
	if got := envSummary(env); got != "`MODEL_PREFIX=dsr1`, `PRECISION=fp4`" {
		t.Errorf("envSummary = %q", got)
	}
	if got := envSummary(Env{}); got != "the row's fields" {
		t.Errorf("envSummary(empty) = %q", got)
	}
}

// TestInputOrigins: where the job's env sets the variables a run's path
// was computed from (expansion forms reduced to the variable), by name,
// each once; variables the job env does not define are left out.
func TestInputOrigins(t *testing.T) {
	at := func(line int) Value { v := Str("x"); v.At = Loc{File: "tmpl.yml", Line: line}; return v }
	l := &Launch{LauncherEnv: Env{"EXP_NAME": at(29), "PRECISION": at(34), "LOCAL": Str("y")}}
	got := inputOrigins(l, Run{Inputs: []string{"PRECISION", "EXP_NAME%%_*", "EXP_NAME#x", "LOCAL", "NOPE"}})
	want := []origin{{"EXP_NAME", Loc{File: "tmpl.yml", Line: 29}}, {"PRECISION", Loc{File: "tmpl.yml", Line: 34}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("origins %+v, want %+v", got, want)
	}
}

// TestRunnable: which benchmark files a launcher could run (PL002 judges
// only these): scripts other than libraries and deprecated ones, and
// srt-slurm recipes.
func TestRunnable(t *testing.T) {
	for p, want := range map[string]bool{
		"benchmarks/single_node/fixed_seq_len/a.sh":                 true,
		"benchmarks/benchmark_lib.sh":                               false,
		"benchmarks/utils/helper.sh":                                false,
		"benchmarks/bench_utils/x.sh":                               false,
		"benchmarks/deprecated/old.sh":                              false,
		"benchmarks/multi_node/srt-slurm-recipes/sglang/a.yaml":     true,
		"benchmarks/multi_node/srt-slurm-recipes/deprecated/a.yml":  false,
		"benchmarks/multi_node/other/a.yaml":                        false,
		"benchmarks/README.md":                                      false,
		"benchmarks/single_node/fixed_seq_len/a.py":                 false,
		"benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/a.yml": true,
	} {
		if got := Runnable(p); got != want {
			t.Errorf("Runnable(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestLaunchArea: the directory a launcher runs a file from: a script's
// directory, a recipe's engine directory.
func TestLaunchArea(t *testing.T) {
	for p, want := range map[string]string{
		"benchmarks/single_node/fixed_seq_len/a.sh":                             "benchmarks/single_node/fixed_seq_len",
		"benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200/8k1k/a.yaml": "benchmarks/multi_node/srt-slurm-recipes/sglang",
		"benchmarks/multi_node/srt-slurm-recipes/a.yaml":                        "benchmarks/multi_node/srt-slurm-recipes",
		"a.sh": ".",
	} {
		if got := launchArea(p); got != want {
			t.Errorf("launchArea(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestMayBe: whether a run the bot could not name may be a file: its word
// with every expansion, bare or braced, standing for anything.
func TestMayBe(t *testing.T) {
	const f = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh"
	for _, c := range []struct {
		words []string
		want  bool
	}{
		{[]string{"benchmarks/single_node/$SUBDIR/$MODEL.sh"}, true},
		{[]string{`"$SCRIPT"`}, true},
		{[]string{"dsr1_$PREC_b200.sh"}, true},
		{[]string{"benchmarks/single_node/${X}_h100.sh"}, false},
		{[]string{"other/${X}.sh"}, false},
		{[]string{"benchmarks/single_node/${SUBDIR}/${MODEL}_${PREC}_b200.sh"}, true},
		{[]string{`"${SCRIPT}"`}, true},
		{[]string{"benchmarks/${D:-single_node}/fixed_seq_len/dsr1_fp4_b200.sh"}, true},
		{[]string{"benchmarks/single_node/(x)+.sh"}, false},
		{[]string{"x_b200.sh", "$A/dsr1_fp4_b200.sh"}, true},
		{nil, false},
	} {
		if got := mayBe(c.words, f); got != c.want {
			t.Errorf("mayBe(%q) = %v, want %v", c.words, got, c.want)
		}
	}
}

// TestNorm: declared and configured values compare as the generator and
// engines read them: booleans in every YAML spelling, numbers by value.
func TestNorm(t *testing.T) {
	for v, want := range map[any]string{
		true: "true", "Yes": "true", "on": "true", false: "false", "off": "false", nil: "false", "null": "false", "": "false",
		8: "8", "8.0": "8", 0.5: "0.5", " mtp ": "mtp", "1e3": "1000",
	} {
		if got := norm(v); got != want {
			t.Errorf("norm(%#v) = %q, want %q", v, got, want)
		}
	}
	for s, want := range map[string]bool{
		"lmsysorg/sglang:v0.5": true, "nvcr.io/nvidia/trt:1.0": true, "registry.local:5000": true,
		"dynamo-sglang": false, "sglang:latest": false, "org/image": false,
	} {
		if got := looksLikeImage(s); got != want {
			t.Errorf("looksLikeImage(%q) = %v", s, got)
		}
	}
}

// TestDomainHelpers: PL006's tests of a domain: all booleans, a tested
// literal that is another spelling of a value (case, separators, one
// edit), and the one-edit distance itself.
func TestDomainHelpers(t *testing.T) {
	if !isBoolDomain([]string{"true", "false"}) || isBoolDomain([]string{"true", "1"}) || !isBoolDomain(nil) {
		t.Error("isBoolDomain")
	}
	vals := []string{"dynamo-sglang", "vllm", "mtp"}
	for lit, want := range map[string]bool{
		"dynamo_sglang": true, "Dynamo-SGLang": true, "dynamo-sglan": true, "dynamo-sglang": false,
		"vllm": false, "vlm": true, "mtpx": false, "trt": false, "": false,
	} {
		if got := nearMiss(lit, vals); got != want {
			t.Errorf("nearMiss(%q) = %v, want %v", lit, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"abc", "abc", false}, {"abc", "abd", true}, {"abc", "ab", true}, {"ab", "abc", true}, {"abc", "xbc", true},
		{"abc", "a", false}, {"", "x", true}, {"x", "", true}, {"", "", false}, {"abcd", "abdc", false},
	} {
		if got := editDistance1(c.a, c.b); got != c.want {
			t.Errorf("editDistance1(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestUsesVar: a script depends on a variable through its value (a test,
// an expansion form, a program's argument), not through a variable whose
// name only starts the same.
func TestUsesVar(t *testing.T) {
	res := &Result{Reads: map[string]string{"TP": "8", "EXP_NAME%%_*": "x"}, Effects: map[string]bool{"CONC": true}}
	for name, want := range map[string]bool{"TP": true, "EXP_NAME": true, "CONC": true, "EXP": false, "T": false, "MODEL": false} {
		if got := usesVar(res, name); got != want {
			t.Errorf("usesVar(%s) = %v, want %v", name, got, want)
		}
	}
	if usesVar(nil, "TP") {
		t.Error("no evaluation uses nothing")
	}
}

// TestForcedEP: PL009's reading of a script: a server started with expert
// parallelism on every path whatever EP_SIZE says, and not one that turns
// it on under an EP_SIZE test or from EP_SIZE.
func TestForcedEP(t *testing.T) {
	for _, c := range []struct {
		name, src string
		flag      string
	}{
		{"vLLM, unconditional", "vllm serve \"$MODEL\" --tensor-parallel-size \"$TP\" --enable-expert-parallel\n", "--enable-expert-parallel"},
		{"vLLM, under an EP_SIZE test", "EXTRA=()\nif [ \"$EP_SIZE\" -gt 1 ]; then\n  vllm serve \"$MODEL\" --enable-expert-parallel\nelse\n  vllm serve \"$MODEL\"\nfi\n", ""},
		{"SGLang, fixed ep-size 8", "python3 -m sglang.launch_server --model-path \"$MODEL\" --tp \"$TP\" --ep-size 8\n", "--ep-size"},
		{"SGLang, fixed expert-parallel-size 4", "python3 -m sglang.launch_server --model-path \"$MODEL\" --expert-parallel-size=4\n", "--expert-parallel-size"},
		{"vLLM, ep-size is not vLLM's switch", "vllm serve \"$MODEL\" --ep-size 8\n", ""},
		{"SGLang, ep-size 1", "python3 -m sglang.launch_server --model-path \"$MODEL\" --ep-size 1\n", ""},
		{"SGLang, ep-size from EP_SIZE", "python3 -m sglang.launch_server --model-path \"$MODEL\" --ep-size \"$EP_SIZE\"\n", ""},
		{"no server", "echo hi\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := script.Parse("benchmarks/single_node/x.sh", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			fl, ok := forcedEP(f)
			if ok != (c.flag != "") || fl.Name != c.flag {
				t.Errorf("forcedEP = %q, %v; want %q", fl.Name, ok, c.flag)
			}
		})
	}
}
