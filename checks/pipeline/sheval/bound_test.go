package sheval

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// names reports whether the scripts' patterns with env name p as a run, a
// sourced file or a file beneath a copied directory.
func names(t *testing.T, scripts []string, env Env, p string) bool {
	t.Helper()
	var files []*syntax.File
	for i, s := range scripts {
		f, err := ParseShell("runners/s"+string(rune('0'+i))+".sh", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	b := NewBound(files, func(name string) bool { return strings.HasPrefix(name, "__UNKNOWN_") })
	pats := b.Patterns(env)
	return slices.ContainsFunc(pats.Runs, func(s string) bool { return Names(s, p) }) ||
		slices.ContainsFunc(pats.Sources, func(s string) bool { return Names(s, p) }) ||
		slices.ContainsFunc(pats.Prefixes, func(s string) bool { return Beneath(s, p) })
}

func TestBoundNames(t *testing.T) {
	row := Env{"EXP_NAME": Str("dsr1_1k1k"), "PRECISION": Str("fp8"), "FRAMEWORK": Str("sglang"), "SPEC_DECODING": Str("mtp")}
	cases := []struct {
		name   string
		script []string
		env    Env
		path   string
		want   bool
	}{
		{"literal run", []string{"bash benchmarks/x.sh"}, nil, "benchmarks/x.sh", true},
		{"another file", []string{"bash benchmarks/x.sh"}, nil, "benchmarks/y.sh", false},
		{"env values and trimming", []string{`bash "benchmarks/${EXP_NAME%%_*}_${PRECISION}_h200.sh"`}, row, "benchmarks/dsr1_fp8_h200.sh", true},
		{"env values exclude other models", []string{`bash "benchmarks/${EXP_NAME%%_*}_${PRECISION}_h200.sh"`}, row, "benchmarks/dsv4_fp8_h200.sh", false},
		{"variable assigned then run", []string{`S="benchmarks/${EXP_NAME%%_*}_${FRAMEWORK}.sh"`, `bash "$S"`}, row, "benchmarks/dsr1_sglang.sh", true},
		{"pure command substitution", []string{`SUF=$([[ "$SPEC_DECODING" == mtp ]] && printf '_mtp' || printf '')` + "\n" + `bash "benchmarks/x${SUF}.sh"`}, row, "benchmarks/x_mtp.sh", true},
		{"pure substitution without the suffix", []string{`SUF=$([[ "$SPEC_DECODING" == mtp ]] && printf '_mtp' || printf '')` + "\n" + `bash "benchmarks/x${SUF}.sh"`}, row, "benchmarks/x.sh", true},
		{"unknown command output names nothing", []string{`S=$(find_script)` + "\n" + `bash "$S"`}, nil, "benchmarks/x.sh", false},
		{"default value", []string{`bash "${SCRIPT:-benchmarks/default.sh}"`}, nil, "benchmarks/default.sh", true},
		{"self default", []string{`SCRIPT="${SCRIPT:-benchmarks/d.sh}"` + "\n" + `bash "$SCRIPT"`}, Env{"SCRIPT": Str("benchmarks/e.sh")}, "benchmarks/e.sh", true},
		{"self default keeps precision", []string{`SCRIPT="${SCRIPT:-benchmarks/d.sh}"` + "\n" + `bash "$SCRIPT"`}, Env{"SCRIPT": Str("benchmarks/e.sh")}, "benchmarks/z.sh", false},
		{"function argument", []string{"run() { bash \"$1\"; }\nrun benchmarks/a.sh"}, nil, "benchmarks/a.sh", true},
		{"another function's arguments stay apart", []string{"run() { bash \"$1\"; }\nlog() { echo \"$1\"; }\nrun benchmarks/a.sh\nlog benchmarks/b.sh"}, nil, "benchmarks/b.sh", false},
		{"function that shifts", []string{"run() { shift; bash \"$1\"; }\nrun -x benchmarks/a.sh"}, nil, "benchmarks/a.sh", true},
		{"loop values", []string{"for s in benchmarks/a.sh benchmarks/b.sh; do bash \"$s\"; done"}, nil, "benchmarks/b.sh", true},
		{"array elements", []string{"CMD=(bash benchmarks/a.sh)\n\"${CMD[@]}\""}, nil, "benchmarks/a.sh", true},
		{"appended value", []string{"S=benchmarks\nS+=/a.sh\nbash \"$S\""}, nil, "benchmarks/a.sh", true},
		{"relative to a directory changed into", []string{"cd benchmarks/single_node\nbash x.sh"}, nil, "benchmarks/single_node/x.sh", true},
		{"through the workspace", []string{`bash "$GITHUB_WORKSPACE/benchmarks/x.sh"`}, nil, "benchmarks/x.sh", true},
		{"workspace path is the tree path", []string{`bash "$GITHUB_WORKSPACE/x.sh"`}, nil, "benchmarks/x.sh", false},
		{"container mount", []string{`docker run -v "$GITHUB_WORKSPACE:/workspace" img bash /workspace/benchmarks/x.sh`}, nil, "benchmarks/x.sh", true},
		{"wrapper script argument", []string{`srun --jobid=1 benchmarks/x.sh`}, nil, "benchmarks/x.sh", true},
		{"wrapper option is no script", []string{`srun --output=benchmarks/x.sh true`}, nil, "benchmarks/x.sh", false},
		{"bash -c script", []string{`srun bash -c "cd /w && bash benchmarks/x.sh"`}, nil, "benchmarks/x.sh", true},
		{"script arguments are not runs", []string{`bash benchmarks/x.sh benchmarks/y.sh`}, nil, "benchmarks/y.sh", false},
		{"echo is no run", []string{`echo benchmarks/x.sh`}, nil, "benchmarks/x.sh", false},
		{"source", []string{`source "$(dirname "$0")/lib.sh"`}, nil, "runners/lib.sh", true},
		{"copied directory", []string{`cp -r "$GITHUB_WORKSPACE/benchmarks/recipes" recipes` + "\n" + `srtctl apply -f "$CONFIG"`}, nil, "benchmarks/recipes/a/b.yaml", true},
		{"copied file", []string{`cp "$GITHUB_WORKSPACE/benchmarks/recipes/a.yaml" x.yaml`}, nil, "benchmarks/recipes/a.yaml", true},
		{"srtctl recipe", []string{`srtctl apply -f "$CONFIG_FILE"`}, Env{"CONFIG_FILE": Str("benchmarks/r/a.yaml")}, "benchmarks/r/a.yaml", true},
		{"srtctl recipe in an array", []string{`ARGS=(--no-preflight -f "$CONFIG_FILE")` + "\n" + `srtctl apply "${ARGS[@]}"`}, Env{"CONFIG_FILE": Str("benchmarks/r/a.yaml")}, "benchmarks/r/a.yaml", true},
		{"prefix assignment of an external command is its own", []string{"S=benchmarks/a.sh curl x\nbash \"$S\""}, nil, "benchmarks/a.sh", false},
		{"prefix assignment reaches a shell", []string{"S=benchmarks/a.sh bash \"$HELPER\"\nbash \"$S\""}, nil, "benchmarks/a.sh", true},
		{"substituted expression", []string{`bash "benchmarks/${__UNKNOWN_1}.sh"`}, nil, "benchmarks/x.sh", true},
		{"unknown runner variable names nothing", []string{`bash "$SLURM_SCRIPT"`}, nil, "benchmarks/x.sh", false},
		{"read gives unknown text", []string{"read -r NAME\nbash \"benchmarks/$NAME.sh\""}, nil, "benchmarks/x.sh", true},
		{"unknowable parameter", []string{`bash "benchmarks/$$.sh"`}, nil, "benchmarks/x.sh", false},
		{"dot segments", []string{`bash "$(dirname "$0")/../benchmarks/x.sh"`}, nil, "benchmarks/x.sh", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(t, tc.script, tc.env, tc.path); got != tc.want {
				t.Errorf("names %s = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// TestRecipeGroups: srtctl's recipe words are groups of their own (runs
// the evaluation never follows as scripts), apart from a shell's.
func TestRecipeGroups(t *testing.T) {
	f, err := ParseShell("runners/s.sh", []byte("srtctl apply -f \"$CONFIG_FILE\"\nbash \"$CONFIG_FILE\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := NewBound([]*syntax.File{f}, nil)
	recipes, runs := 0, 0
	x := b.Expander(Env{"CONFIG_FILE": Str("recipes/a.yaml")})
	for gi := 0; gi < b.Groups(); gi++ {
		_, pats := x.Group(gi)
		if !slices.Equal(pats.Runs, []string{"recipes/a.yaml"}) {
			t.Errorf("group %d runs %q", gi, pats.Runs)
		}
		if b.Recipes(gi) {
			recipes++
		} else {
			runs++
		}
	}
	if recipes != 1 || runs != 1 {
		t.Errorf("%d recipe groups and %d others, want one of each", recipes, runs)
	}
}

// TestUnknownProgramsPrintDeadText: what a program the evaluation does
// not model prints is unknown to it whatever its arguments, so an open
// reading keeps no pattern of it (one of echo, which the evaluation
// expands once it knows the arguments, stays unknown text).
func TestUnknownProgramsPrintDeadText(t *testing.T) {
	for _, c := range []struct {
		prog string
		kept bool
	}{{"find", false}, {"ls", false}, {"echo", true}, {"basename", true}} {
		f, err := ParseShell("runners/s.sh", []byte("F=$("+c.prog+" \"$D\")\ncp \"$F\" /out\n"))
		if err != nil {
			t.Fatal(err)
		}
		b := NewBound([]*syntax.File{f}, nil)
		var prefixes []string
		x := b.OpenExpander(Env{"D": Opaque()})
		for gi := 0; gi < b.Groups(); gi++ {
			_, pats := x.Group(gi)
			prefixes = append(prefixes, pats.Prefixes...)
		}
		if kept := slices.ContainsFunc(prefixes, func(s string) bool { return strings.Contains(s, anyText) || strings.Contains(s, anyName) }); kept != c.kept {
			t.Errorf("$(%s \"$D\"): copy patterns %q, want unknown text kept %v", c.prog, prefixes, c.kept)
		}
	}
}

// TestCopiesSplitBeneath: Beneath is CopiedAs (the pattern may name the
// file itself) or BeneathDir (a directory the file is in), and the two
// tell those apart.
func TestCopiesSplitBeneath(t *testing.T) {
	const p = "benchmarks/recipes/a/b.yaml"
	cases := []struct {
		pattern     string
		self, below bool
	}{
		{Workspace + "/benchmarks/recipes", false, true},
		{"benchmarks/recipes/a", false, true},
		{Workspace + "/benchmarks/recipes/a/b.yaml", true, false},
		{"recipes/a/b.yaml", true, false},
		{anyText, true, true},
		{Workspace + "/benchmarks/" + anyText, true, true},
		{"benchmarks/other", false, false},
		{"./recipes", false, true},
		{"x/..", false, false},
	}
	for _, tc := range cases {
		self, below := CopiedAs(tc.pattern, p), BeneathDir(tc.pattern, p)
		if self != tc.self || below != tc.below {
			t.Errorf("%q: CopiedAs %v BeneathDir %v, want %v %v", tc.pattern, self, below, tc.self, tc.below)
		}
		if Beneath(tc.pattern, p) != (self || below) {
			t.Errorf("%q: Beneath %v is not CopiedAs or BeneathDir", tc.pattern, Beneath(tc.pattern, p))
		}
	}
}

// TestMayEndIn: a word may end in a file's name when it holds the name,
// or when cleaning may leave its last segment to the working directory.
func TestMayEndIn(t *testing.T) {
	const name = "b.yaml"
	cases := []struct {
		pattern string
		want    bool
	}{
		{"recipes/a/b.yaml", true},
		{"b.yaml", true},
		{"/srt/recipes/a/b.yaml:zip_override_x[0]", true},
		{"recipes/a/b.yaml/", true},
		{"recipes/a/c.yaml", false},
		{"./runners/launch_x.sh", false},
		{"../a/c.yaml", false},
		{"recipes/" + anyText, true},
		{"recipes/" + anyText + ".yaml", true},
		{"recipes/" + anyName + "/c.yaml", true}, // the name may be inside it: it may
		{anyText, true},
		{"", true},
		{".", true},
		{"recipes/..", true},
		{"recipes/a/../", true},
		{"recipes/./", true},
		{"/", true},
	}
	for _, tc := range cases {
		if got := MayEndIn(tc.pattern, name); got != tc.want {
			t.Errorf("MayEndIn(%q, %q) = %v, want %v", tc.pattern, name, got, tc.want)
		}
	}
}

func TestGlobsMeet(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{anyText, "anything/at/all", true},
		{"a" + anyText + "c", "a/b/c", true},
		{"a" + anyName + "c", "a/b/c", false},
		{"a" + anyName + "c", "abbc", true},
		{anyText + ".sh", "x" + anyText, true},
		{"x.yaml", anyText + ".sh", false},
		// Tables past the one globsMeet keeps on the stack.
		{strings.Repeat("a"+anyText, 60) + "b", strings.Repeat("ab", 70), true},
		{strings.Repeat("a"+anyText, 60) + "c", strings.Repeat("ab", 70), false},
	}
	for _, tc := range cases {
		if got := globsMeet(tc.a, tc.b); got != tc.want {
			t.Errorf("globsMeet(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestTailAfterDots: the part after the last "." or ".." segment, as
// splitting at slashes finds it.
func TestTailAfterDots(t *testing.T) {
	split := func(s string) (string, bool) {
		if !strings.HasPrefix(s, ".") && !strings.Contains(s, "/.") {
			return s, false
		}
		segs := strings.Split(s, "/")
		for i := len(segs) - 1; i >= 0; i-- {
			if segs[i] == "." || segs[i] == ".." {
				return strings.Join(segs[i+1:], "/"), true
			}
		}
		return s, false
	}
	for _, s := range []string{"", ".", "..", "./", "../x", "a/./b", "a/../b/./c", "a/.hidden/b", "/.", "a//./b", "a/..", ".x/y", "a/b.c/d", "...", "a/.../b", "./" + anyText + "/x.sh"} {
		got, gotOK := tailAfterDots(s)
		want, wantOK := split(s)
		if got != want || gotOK != wantOK {
			t.Errorf("tailAfterDots(%q) = %q, %v; want %q, %v", s, got, gotOK, want, wantOK)
		}
	}
}

// TestBoundIsBounded feeds the reading what a hostile script holds: deep
// variable chains, a word of many alternatives, long text. It answers
// (may name) without running away.
func TestBoundIsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("V" + strconv.Itoa(i+1) + "=\"$V" + strconv.Itoa(i) + "/x\"\n")
	}
	for i := 0; i < 64; i++ {
		b.WriteString("W=a" + strconv.Itoa(i) + "\n")
	}
	b.WriteString(`bash "$V200/$W/$W/$W.sh"` + "\n")
	b.WriteString(`bash "` + strings.Repeat("y", 100000) + `$W"` + "\n")
	if !names(t, []string{b.String()}, nil, "runners/x/a1/a2/a3.sh") {
		t.Error("a bounded reading must still may-name the file (unknown text)")
	}
}

// TestBoundTooBig: scripts of more words than the reading follows name
// nothing, and say so, so that the caller assumes any file.
func TestBoundTooBig(t *testing.T) {
	text := strings.Repeat("X=benchmarks/a.sh\n", maxBoundWords+1) + "bash \"$X\"\n"
	f, err := ParseShell("runners/big.sh", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	b := NewBound([]*syntax.File{f}, nil)
	if !b.TooBig() {
		t.Fatalf("%d assignments: not too big", maxBoundWords+1)
	}
	if p := b.Patterns(nil); len(p.Runs) != 0 {
		t.Errorf("a too big reading names %v", p.Runs)
	}
}

// TestSkeletonKeepsEnvValues: the skeleton (the patterns with any env)
// must may-name a file whose whole path an env variable holds, as a
// launcher that applies the recipe its job's settings name: otherwise no
// row of that launcher is found to reach the recipe.
func TestSkeletonKeepsEnvValues(t *testing.T) {
	cases := []struct {
		name   string
		script string
		path   string
		want   bool
	}{
		{"recipe from the env", `srtctl apply -f "$CONFIG_FILE"`, "benchmarks/multi_node/r/a.yaml", true},
		{"script from the env", `bash "$BENCH_SCRIPT"`, "benchmarks/single_node/x.sh", true},
		{"literal path stays precise", `bash benchmarks/x.sh`, "benchmarks/y.sh", false},
		{"unknowable text names nothing", `bash "$$"`, "benchmarks/x.sh", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseShell("runners/launch.sh", []byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			b := NewBound([]*syntax.File{f}, nil)
			got := false
			for gi := 0; gi < b.Groups(); gi++ {
				p := b.Skeleton(gi)
				got = got || slices.ContainsFunc(p.Runs, func(s string) bool { return Names(s, tc.path) }) ||
					slices.ContainsFunc(p.Sources, func(s string) bool { return Names(s, tc.path) }) ||
					slices.ContainsFunc(p.Prefixes, func(s string) bool { return Beneath(s, tc.path) })
			}
			if got != tc.want {
				t.Errorf("skeleton names %s = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// TestOpenExpanderCovers: an open expander's patterns cover those of every
// env that agrees on what its env knows: a word its env leaves wholly
// unknown stays (a row's env may give all of it).
func TestOpenExpanderCovers(t *testing.T) {
	group := Env{"SCRIPT": Opaque(), "GPU": Str("b200")}
	cases := []struct {
		name   string
		script string
		path   string
		want   bool
	}{
		{"a wholly unknown word stays", `bash "$SCRIPT"`, "benchmarks/x.sh", true},
		{"known text still narrows", `bash "benchmarks/${SCRIPT}_${GPU}.sh"`, "benchmarks/dsr1_mi355x.sh", false},
		{"known text still names", `bash "benchmarks/${SCRIPT}_${GPU}.sh"`, "benchmarks/dsr1_b200.sh", true},
		{"a variable the env lacks is unset", `bash "benchmarks/a${SUFFIX:-}.sh"`, "benchmarks/a_mtp.sh", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseShell("runners/launch.sh", []byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			b := NewBound([]*syntax.File{f}, nil)
			x := b.OpenExpander(group)
			got := false
			for gi := 0; gi < b.Groups(); gi++ {
				_, p := x.Group(gi)
				got = got || slices.ContainsFunc(p.Runs, func(s string) bool { return Names(s, tc.path) })
			}
			if got != tc.want {
				t.Errorf("open expander names %s: %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	// The row expander drops the wholly unknown word: the open one exists
	// for that difference.
	f, _ := ParseShell("runners/launch.sh", []byte(`bash "$SCRIPT"`))
	b := NewBound([]*syntax.File{f}, nil)
	if p := b.Patterns(group); len(p.Runs) != 0 {
		t.Errorf("row expander kept %v", p.Runs)
	}
}
