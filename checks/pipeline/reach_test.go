package pipeline

import (
	"context"
	"maps"
	"os"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// runsByPath indexes what each row of a fully resolved model runs.
func runsByPath(m *Model) map[string][]*Row {
	out := map[string][]*Row{}
	for _, r := range m.Rows {
		for _, l := range m.Resolve(r).Groups {
			if l.Result == nil {
				continue
			}
			for _, p := range l.Result.Paths {
				for _, run := range p.Runs {
					if run.Path != "" && !slices.Contains(out[run.Path], r) {
						out[run.Path] = append(out[run.Path], r)
					}
				}
			}
		}
	}
	return out
}

// sameRows reports whether two models' rows (of one tree) are the same
// rows, by file and line.
func sameRows(a, b []*Row) bool {
	key := func(rs []*Row) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.File+":"+strconv.Itoa(r.Row.Line))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

// TestReachersBounded: on a model nothing was resolved in, Reachers
// resolves only the rows the launch readings admit, and finds exactly the
// rows a full resolution finds, for every file some row runs and for
// files none does.
func TestReachersBounded(t *testing.T) {
	files, _, full := resolvedFixture(t)
	want := runsByPath(full)
	if len(want) == 0 {
		t.Fatal("the fixture's rows run nothing")
	}
	paths := []string{"benchmarks/no_such_recipe.sh", "runners/launch_h200-cw.sh"}
	for p := range want {
		paths = append(paths, p)
	}
	for _, p := range paths {
		m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
		got := m.Reachers(p)
		if !sameRows(got, want[p]) {
			t.Errorf("Reachers(%s) = %v, want %v", p, got, want[p])
		}
		if m.st.all {
			t.Errorf("Reachers(%s) resolved every row", p)
		}
		resolved := 0
		for _, r := range m.Rows {
			if m.resolved(r) != nil {
				resolved++
			}
		}
		if len(want[p]) < len(m.Rows) && resolved == len(m.Rows) {
			t.Errorf("Reachers(%s) resolved all %d rows for %d reachers", p, resolved, len(want[p]))
		}
	}
}

// TestReachersOfBatch: asking for several files at once finds, for each,
// the rows a full resolution finds, and a second ask (one file or many)
// answers from what the first found without resolving another row.
func TestReachersOfBatch(t *testing.T) {
	files, _, full := resolvedFixture(t)
	want := runsByPath(full)
	paths := []string{"benchmarks/no_such_recipe.sh", "runners/launch_h200-cw.sh", ""}
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	got := m.ReachersOf(append(paths, paths...))
	if _, ok := got[""]; ok {
		t.Error(`ReachersOf answered for "", which names no file`)
	}
	for _, p := range paths {
		if p != "" && !sameRows(got[p], want[p]) {
			t.Errorf("ReachersOf[%s] = %v, want %v", p, got[p], want[p])
		}
	}
	if m.st.all {
		t.Error("ReachersOf resolved every row")
	}
	resolved := func() int {
		n := 0
		for _, r := range m.Rows {
			if m.resolved(r) != nil {
				n++
			}
		}
		return n
	}
	before := resolved()
	for _, p := range paths[1:] {
		if again := m.Reachers(p); !sameRows(again, want[p]) {
			t.Errorf("Reachers(%s) after ReachersOf = %v, want %v", p, again, want[p])
		}
		if len(m.bounds.reached[p]) != len(want[p]) {
			t.Errorf("the memo holds %d rows for %s, want %d", len(m.bounds.reached[p]), p, len(want[p]))
		}
	}
	if after := resolved(); after != before {
		t.Errorf("asking again resolved %d more rows", after-before)
	}
}

// TestMayReachRowsParallel: the launch readings of every row made on
// every core answer as those made row by row on one.
func TestMayReachRowsParallel(t *testing.T) {
	files, _, full := resolvedFixture(t)
	paths := []string{"benchmarks/no_such_recipe.sh", "runners/launch_h200-cw.sh"}
	for p := range runsByPath(full) {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	one := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	many := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	got := many.mayReachRows(paths)
	if len(got) != len(many.Rows) {
		t.Fatalf("mayReachRows answered for %d rows, the model has %d", len(got), len(many.Rows))
	}
	admitted := 0
	for i, r := range one.Rows {
		want := one.mayReach(r, paths)
		if !slices.Equal(got[i], want) {
			t.Errorf("row %s: on every core %v, row by row %v", r, got[i], want)
		}
		for _, ok := range want {
			if ok {
				admitted++
			}
		}
	}
	if admitted == 0 || admitted == len(paths)*len(one.Rows) {
		t.Errorf("the readings admit %d of %d (row, file) pairs: the test tells nothing", admitted, len(paths)*len(one.Rows))
	}
}

// launcherRowsFull are the rows of a fully resolved model whose job
// starts one of launchers, or would by its runner group's name.
func launcherRowsFull(m *Model, launchers []string) []*Row {
	var out []*Row
	for _, r := range m.Rows {
		if slices.ContainsFunc(m.Resolve(r).Groups, func(l *Launch) bool {
			return slices.Contains(launchers, l.Launcher) || slices.Contains(launchers, "runners/launch_"+groupPrefix(l.Group)+".sh")
		}) {
			out = append(out, r)
		}
	}
	return out
}

// TestLaunchersRowsBounded: the rows of a changed launcher, asked of a
// model nothing was resolved in, are the rows a full resolution finds,
// and finding them resolves fewer than every row.
func TestLaunchersRowsBounded(t *testing.T) {
	files, _, full := resolvedFixture(t)
	var all []string
	for _, r := range full.Rows {
		for _, l := range full.Resolve(r).Groups {
			if l.Launcher != "" && !slices.Contains(all, l.Launcher) {
				all = append(all, l.Launcher)
			}
		}
	}
	slices.Sort(all)
	if len(all) < 2 {
		t.Fatalf("the fixture's rows start %d launchers, want several", len(all))
	}
	cases := [][]string{{"runners/launch_no-such-runner.sh"}}
	for _, l := range all {
		cases = append(cases, []string{l})
	}
	cases = append(cases, all[:2])
	for _, launchers := range cases {
		m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
		got := m.launchersRows(launchers)
		want := launcherRowsFull(full, launchers)
		if !sameRows(got, want) {
			t.Errorf("launchersRows(%v) = %v, want %v", launchers, got, want)
		}
		if m.st.all {
			t.Errorf("launchersRows(%v) resolved every row", launchers)
		}
	}
}

// TestReachBoundCoversRealRuns checks the bound on the real repository at
// several revisions: no row that runs a file is left out. It skips without
// the mirror.
func TestReachBoundCoversRealRuns(t *testing.T) {
	if _, err := os.Stat(mirror); err != nil {
		t.Skip("no mirror of the real repository")
	}
	for _, rev := range []string{"main", "main~200", "main~600"} {
		tree := mirrorTree(t, rev)
		full := buildFor(t, tree, checks.NewParseCache(0))
		full.ResolveAll()
		byLine := map[string]bool{}
		want := runsByPath(full)
		bounded := buildFor(t, tree, checks.NewParseCache(0))
		admitted, runs := 0, 0
		for p, rows := range want {
			for _, r := range rows {
				byLine[r.File+":"+strconv.Itoa(r.Row.Line)] = true
			}
			for _, r := range bounded.Rows {
				may := bounded.mayReach(r, []string{p})[0]
				if may {
					admitted++
				}
				if byLine[r.File+":"+strconv.Itoa(r.Row.Line)] {
					runs++
					if !may {
						t.Errorf("%s: the bound leaves out %s, which runs %s", rev, r, p)
					}
				}
			}
			clear(byLine)
		}
		// The launcher each row's job starts is admitted too.
		for i, r := range full.Rows {
			for _, l := range full.Resolve(r).Groups {
				if l.Launcher != "" && !bounded.mayReach(bounded.Rows[i], []string{l.Launcher})[0] {
					t.Errorf("%s: the bound leaves out %s, which starts %s", rev, r, l.Launcher)
				}
			}
		}
		t.Logf("%s: %d files run, %d (row, file) pairs run, %d admitted of %d", rev, len(want), runs, admitted, len(want)*len(bounded.Rows))
	}
}

// TestReachersRecipeFromSettings: a launcher that applies the recipe its
// row's settings name, with no copy of the recipes first, reaches that
// recipe through the env alone; Reachers must find the row all the same.
func TestReachersRecipeFromSettings(t *testing.T) {
	files := fixtureFiles(t)
	const launcher = "runners/launch_gb200-nv.sh"
	const recipe = "benchmarks/multi_node/srt-slurm-recipes/trtllm/glm5.2/gb200-fp4/agentic/p1-tep4-d2-tep4-c16.yaml"
	if _, ok := files[recipe]; !ok {
		t.Fatalf("fixture tree lacks %s", recipe)
	}
	files[launcher] = "#!/usr/bin/env bash\nset -e\ncd \"$GITHUB_WORKSPACE\"\nsrtctl apply -f \"$CONFIG_FILE\"\n"
	full := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	full.ResolveAll()
	want := runsByPath(full)[recipe]
	if len(want) == 0 {
		t.Fatalf("no row of the fixture runs %s", recipe)
	}
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	if got := m.Reachers(recipe); !sameRows(got, want) {
		t.Errorf("Reachers(%s) = %d rows, want %d", recipe, len(got), len(want))
	}
}

// TestReachersCopiedRecipes: a launcher that copies directories of
// recipes and applies the one its row names by its path in the copy
// (through an array) admits a recipe of a copy only for the rows some of
// whose run words may end in the recipe's name: the row that applies
// another recipe of the same copy is not resolved, and Reachers finds
// exactly what a full resolution finds.
func TestReachersCopiedRecipes(t *testing.T) {
	files := fixtureFiles(t)
	const launcher = "runners/launch_gb200-nv.sh"
	recipes := []string{
		"benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/p1-dep4-d2-tep8.yaml",
		"benchmarks/multi_node/srt-slurm-recipes/trtllm/glm5.2/gb200-fp4/agentic/p1-tep4-d2-tep4-c16.yaml",
	}
	apply := `srtctl apply -f "$CONFIG_FILE" --tags "gb200,${MODEL_PREFIX},${PRECISION}"`
	if !strings.Contains(files[launcher], apply) {
		t.Fatalf("%s no longer applies the recipe as this test expects", launcher)
	}
	files[launcher] = strings.Replace(files[launcher], apply, "ARGS=(-f \"$CONFIG_FILE\" --tags gb200)\nsrtctl apply \"${ARGS[@]}\"", 1)
	full := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	full.ResolveAll()
	runs := runsByPath(full)
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	var onLauncher []*Row
	for _, r := range full.Rows {
		if slices.ContainsFunc(full.Resolve(r).Groups, func(l *Launch) bool { return l.Launcher == launcher }) {
			onLauncher = append(onLauncher, r)
		}
	}
	for _, p := range recipes {
		want := runs[p]
		if len(want) == 0 {
			t.Fatalf("no row of the fixture runs %s", p)
		}
		admitted := 0
		for _, r := range m.Rows {
			if m.mayReach(r, []string{p})[0] {
				admitted++
			}
		}
		if admitted >= len(onLauncher) {
			t.Errorf("%s: %d rows admitted, every one of the %d rows the copying launcher runs", p, admitted, len(onLauncher))
		}
		if got := m.Reachers(p); !sameRows(got, want) {
			t.Errorf("Reachers(%s) = %v, want %v", p, got, want)
		}
	}
}

// TestScriptsNamedKept: the scripts a reading's patterns name, kept by
// the patterns, are those the patterns name, for every group of every
// reading the rows' launches made (skeleton, open and row patterns), on
// the fixture tree and, with a mirror, on the real one.
func TestScriptsNamedKept(t *testing.T) {
	files, _, _ := resolvedFixture(t)
	models := []*Model{buildFor(t, newIDTree(files), checks.NewParseCache(0))}
	if _, err := os.Stat(mirror); err == nil {
		models = append(models, buildFor(t, mirrorTree(t, "main"), checks.NewParseCache(0)))
	}
	for _, m := range models {
		m.mayReachRows(append(slices.Clone(m.Launchers), "benchmarks/benchmark_lib.sh"))
		checked := 0
		check := func(pats sheval.Patterns) {
			want := m.scriptsNamedBy(pats)
			for range 2 { // made, then kept
				if got := m.scriptsNamed(pats); !slices.Equal(got, want) {
					t.Fatalf("scriptsNamed(%q) = %v, want %v", pats, got, want)
				}
			}
			checked++
		}
		for k, b := range m.bounds.launches {
			if b == nil {
				continue
			}
			env, _ := m.rowEnv(k.r, k.g, m.groups(k.r)[k.g], m.Templates[k.r.Kind], m.stepScript(k.r.Kind, m.groups(k.r)[k.g], m.Templates[k.r.Kind]))
			x := b.ExpanderOf(env.lookup)
			for gi := 0; gi < b.Groups(); gi++ {
				check(b.Skeleton(gi))
				_, pats := x.Group(gi)
				check(pats)
			}
		}
		if checked == 0 {
			t.Error("no reading was checked")
		}
	}
}

// stepEnvEager is stepEnv with every variable made at once, as a map.
func stepEnvEager(t *Template, r *Row, g RunnerGroup, step *stepScript) (Env, bool) {
	in := t.withDefaults(r.Inputs)
	env, envCtx := t.jobEnvCtx(in, g.Name)
	ctx := stepContext(in, envCtx, g.Name)
	for i, e := range step.exprs {
		name := unknownVarPrefix + strconv.Itoa(i+1)
		v, err := ghexpr.Eval(e, ctx)
		if err != nil || ghexpr.IsUnknown(v) {
			env[name] = sheval.Opaque()
			continue
		}
		s := ghexpr.String(v)
		if strings.ContainsAny(s, "$`'\"\\;&|<>(){}\n#~") {
			return nil, false
		}
		env[name] = sheval.Str(s)
		if !slices.Contains(step.exports, name) {
			continue
		}
		for _, f := range strings.Fields(s) {
			k, val, ok := strings.Cut(f, "=")
			if _, set := env[k]; !ok || !syntax.ValidName(k) || set {
				return nil, false
			}
			env[k] = sheval.Str(val)
		}
	}
	return env, true
}

// TestStepEnvMadeWhenAsked: a row's step env whose variables are made when
// a reading asks for them holds exactly what the env made at once holds,
// for every row and runner group of the fixture tree, of a fixture step
// that exports settings, and with a mirror of every real row.
func TestStepEnvMadeWhenAsked(t *testing.T) {
	files, _, _ := resolvedFixture(t)
	exporting := maps.Clone(files)
	tp := TemplatePaths[SingleNode]
	if !strings.Contains(exporting[tp], "bash ./runners/launch_") {
		t.Fatalf("%s runs no launcher as this test expects", tp)
	}
	exporting[tp] = strings.Replace(exporting[tp], "bash ./runners/launch_", "export ${{ inputs.exp-name == 'x' && 'A=1' || 'B=2 C=3' }}\n          bash ./runners/launch_", 1)
	models := map[string]*Model{
		"fixture":   buildFor(t, newIDTree(files), checks.NewParseCache(0)),
		"exporting": buildFor(t, newIDTree(exporting), checks.NewParseCache(0)),
	}
	if _, err := os.Stat(mirror); err == nil {
		models["main"] = buildFor(t, mirrorTree(t, "main"), checks.NewParseCache(0))
	}
	for name, m := range models {
		compared, exports := 0, 0
		for _, r := range m.Rows {
			tm := m.Templates[r.Kind]
			if tm == nil || tm.Launch == nil {
				continue
			}
			for _, g := range m.groups(r) {
				step := m.stepScript(r.Kind, g, tm)
				if step == nil {
					continue
				}
				want, wantOK := stepEnvEager(tm, r, g, step)
				got, ok := stepEnv(tm, r, g, step)
				if ok != wantOK {
					t.Fatalf("%s: %s on %s: ok %v, want %v", name, r, g.Name, ok, wantOK)
				}
				if !ok {
					continue
				}
				n := 0
				got.each(func(v string) {
					n++
					if x, ok := got.lookup(v); !ok || !reflect.DeepEqual(x, want[v]) {
						t.Errorf("%s: %s on %s: %s = %+v, want %+v", name, r, g.Name, v, x, want[v])
					}
				})
				if n != len(want) {
					t.Errorf("%s: %s on %s: %d variables, want %d", name, r, g.Name, n, len(want))
				}
				for v, x := range want {
					if y, ok := got.lookup(v); !ok || !reflect.DeepEqual(x, y) {
						t.Errorf("%s: %s on %s: %s = %+v, want %+v", name, r, g.Name, v, y, x)
					}
				}
				if _, ok := got.lookup("NO_SUCH_VARIABLE"); ok {
					t.Errorf("%s: an env holds a variable no definition gives", name)
				}
				compared++
				if len(step.exports) > 0 {
					exports++
				}
			}
		}
		if compared == 0 || name == "exporting" && exports == 0 {
			t.Errorf("%s: %d envs compared, %d exporting", name, compared, exports)
		}
	}
}

// TestMayReachMemosAgree: the launch readings of every row made in one
// model, which share what they expand (sheval's memos of words and
// variables, the readings' memos of groups), admit for each row exactly
// what a model that reads that row alone admits: on the fixture tree, and
// with a mirror on a sample of the real rows, for the files those rows
// run, the launchers and every single-node script of a model prefix.
func TestMayReachMemosAgree(t *testing.T) {
	files, _, full := resolvedFixture(t)
	paths := []string{"benchmarks/no_such_recipe.sh", "runners/launch_h200-cw.sh"}
	for p := range runsByPath(full) {
		paths = append(paths, p)
	}
	tree := newIDTree(files)
	mayReachAlone(t, "fixture", func() *Model { return buildFor(t, tree, checks.NewParseCache(0)) }, paths, 1)
	if _, err := os.Stat(mirror); err != nil {
		return
	}
	real := mirrorTree(t, "main")
	build := func() *Model { return buildFor(t, real, checks.NewParseCache(0)) }
	const step = 41
	m := build()
	rpaths := slices.Clone(m.Launchers)
	for _, p := range m.shellFiles() {
		if strings.HasPrefix(p, "benchmarks/single_node/") && strings.HasPrefix(path.Base(p), "dsr1_") || p == "benchmarks/benchmark_lib.sh" {
			rpaths = append(rpaths, p)
		}
	}
	for i := 0; i < len(m.Rows); i += step {
		for _, l := range build().Resolve(m.Rows[i]).Groups {
			if l.Result == nil {
				continue
			}
			for _, p := range l.Result.Paths {
				for _, run := range p.Runs {
					if run.Path != "" {
						rpaths = append(rpaths, run.Path)
					}
				}
			}
		}
	}
	mayReachAlone(t, "main", build, rpaths, step)
}

// mayReachAlone compares, for every step-th row, what one model's readings
// of all rows admit with what a fresh model's reading of the row alone
// does.
func mayReachAlone(t *testing.T, name string, build func() *Model, paths []string, step int) {
	t.Helper()
	slices.Sort(paths)
	paths = slices.Compact(paths)
	shared := build()
	all := shared.mayReachRows(paths)
	admitted, refused := 0, 0
	for i := 0; i < len(shared.Rows); i += step {
		alone := build()
		want := alone.mayReach(alone.Rows[i], paths)
		if !slices.Equal(all[i], want) {
			t.Errorf("%s: row %s: read with every row %v, alone %v", name, shared.Rows[i], all[i], want)
		}
		for _, ok := range want {
			if ok {
				admitted++
			} else {
				refused++
			}
		}
	}
	if admitted == 0 || refused == 0 {
		t.Errorf("%s: the rows admit %d (row, file) pairs and refuse %d: the test tells little", name, admitted, refused)
	}
	t.Logf("%s: %d rows, %d files, %d pairs admitted, %d refused", name, len(shared.Rows), len(paths), admitted, refused)
}

// TestOpenFilterAgrees: the rows' readings that skip the groups of words
// the runner group's open reading finds can do nothing asked of them
// admit exactly what the readings that expand every group do: on the
// fixture tree and, with a mirror, on every real row at two revisions,
// for launchers, helpers, recipes and scripts.
func TestOpenFilterAgrees(t *testing.T) {
	files, _, full := resolvedFixture(t)
	paths := []string{"benchmarks/no_such_recipe.sh", "runners/launch_h200-cw.sh"}
	for p := range runsByPath(full) {
		paths = append(paths, p)
	}
	tree := newIDTree(files)
	openAgrees(t, "fixture", func() *Model { return buildFor(t, tree, checks.NewParseCache(0)) }, paths)
	if _, err := os.Stat(mirror); err != nil {
		return
	}
	for _, rev := range []string{"main", "main~300"} {
		real := mirrorTree(t, rev)
		build := func() *Model { return buildFor(t, real, checks.NewParseCache(0)) }
		m := build()
		rpaths := slices.Clone(m.Launchers)
		for i, p := range m.shellFiles() {
			if i%7 == 0 || path.Base(p) == "benchmark_lib.sh" {
				rpaths = append(rpaths, p)
			}
		}
		recipes, err := checks.GlobFiles(context.Background(), real, []string{"benchmarks/multi_node/**/*.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range recipes {
			if i%25 == 0 {
				rpaths = append(rpaths, e.Path)
			}
		}
		openAgrees(t, rev, build, rpaths)
	}
}

func openAgrees(t *testing.T, name string, build func() *Model, paths []string) {
	t.Helper()
	slices.Sort(paths)
	paths = slices.Compact(paths)
	filtered, plain := build(), build()
	plain.bounds.noOpen = true
	got, want := filtered.mayReachRows(paths), plain.mayReachRows(paths)
	admitted, refused := 0, 0
	for i, r := range filtered.Rows {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%s: row %s: with the open filter %v, without %v", name, r, got[i], want[i])
		}
		for _, ok := range want[i] {
			if ok {
				admitted++
			} else {
				refused++
			}
		}
	}
	if admitted == 0 || refused == 0 {
		t.Errorf("%s: the rows admit %d (row, file) pairs and refuse %d: the test tells little", name, admitted, refused)
	}
	skipped := 0
	for _, v := range filtered.bounds.openFollow {
		if !v {
			skipped++
		}
	}
	t.Logf("%s: %d rows, %d files, %d pairs admitted, %d refused; %d groups skipped", name, len(filtered.Rows), len(paths), admitted, refused, skipped)
}

// TestReachersScriptFromJobEnv: a launcher that runs the script a job env
// variable names, the template having made that variable from other
// variables of the env (RESULT_FILENAME_BASE: ${{ env.EXP_NAME }}_...):
// the runner group's open reading knows nothing of it (every input is
// unknown), not the text it would have with every input unset, and
// Reachers finds the row.
func TestReachersScriptFromJobEnv(t *testing.T) {
	files := fixtureFiles(t)
	const launcher = "runners/launch_h100-cr.sh"
	files[launcher] = "#!/usr/bin/bash\nbash \"benchmarks/single_node/${RESULT_FILENAME_BASE}.sh\"\n"
	probe := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	var base string
	for _, r := range probe.Rows {
		for _, l := range probe.Resolve(r).Groups {
			if l.Launcher == launcher {
				base, _ = l.Env.Get("RESULT_FILENAME_BASE")
			}
		}
		if base != "" {
			break
		}
	}
	if base == "" {
		t.Fatalf("no row of the fixture starts %s with a RESULT_FILENAME_BASE", launcher)
	}
	p := "benchmarks/single_node/" + base + ".sh"
	files[p] = "#!/usr/bin/env bash\necho run\n"
	full := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	full.ResolveAll()
	want := runsByPath(full)[p]
	if len(want) == 0 {
		t.Fatalf("no row runs %s", p)
	}
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	if got := m.Reachers(p); !sameRows(got, want) {
		t.Errorf("Reachers(%s) = %v, want %v", p, got, want)
	}
}
