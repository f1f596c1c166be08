package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// idTree is a MemTree whose directories have content IDs too, as a git
// tree's do, so models of it can be reused.
type idTree struct {
	*checks.MemTree
	files map[string]string
}

func newIDTree(files map[string]string) *idTree {
	return &idTree{MemTree: checks.NewMemTree(files), files: files}
}

func (t *idTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	e, err := t.MemTree.Stat(ctx, p)
	if err != nil || !e.IsDir {
		return e, err
	}
	var names []string
	for f := range t.files {
		if strings.HasPrefix(f, e.Path+"/") {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	h := sha256.New()
	for _, f := range names {
		h.Write([]byte(f + "\x00" + t.files[f] + "\x00"))
	}
	e.ID = hex.EncodeToString(h.Sum(nil))
	return e, nil
}

func (t *idTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	es, err := t.MemTree.ReadDir(ctx, dir)
	for i := range es {
		es[i], _ = t.Stat(ctx, es[i].Path)
	}
	return es, err
}

// fixtureFiles reads the shared fixture repository of the PL fixtures.
func fixtureFiles(t *testing.T) map[string]string {
	t.Helper()
	return treeFiles(t, "../../testdata/trees/inferencex-pipeline")
}

// treeFiles reads a fixture tree under root, by slash path.
func treeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// resolvedFixture is the fixture tree's files (each of need present) and
// its model, every row resolved and kept in a new parse cache.
func resolvedFixture(t *testing.T, need ...string) (map[string]string, *checks.ParseCache, *Model) {
	t.Helper()
	files := fixtureFiles(t)
	for _, p := range need {
		if _, ok := files[p]; !ok {
			t.Fatalf("fixture tree lacks %s", p)
		}
	}
	cache := checks.NewParseCache(0)
	m := buildFor(t, newIDTree(files), cache)
	m.ResolveAll()
	return files, cache, m
}

// withRetired is files with launcher replaced by one that fails before
// any benchmark.
func withRetired(files map[string]string, launcher string) map[string]string {
	out := maps.Clone(files)
	out[launcher] = "#!/usr/bin/env bash\necho 'this runner is retired' >&2\nexit 1\n"
	return out
}

func buildFor(t *testing.T, tree checks.Tree, cache *checks.ParseCache) *Model {
	t.Helper()
	ctx := context.Background()
	cfg, err := checks.LoadConfig(ctx, tree)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ResolveLayout(ctx, tree); err != nil {
		t.Fatal(err)
	}
	m, err := Build(ctx, tree, cfg, cache)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestModelReuse: the model of a content is built once per parse cache;
// a tree of other content builds its own, taking the donor's resolution of
// each row only where what it read still holds.
func TestModelReuse(t *testing.T) {
	files := fixtureFiles(t)
	cache := checks.NewParseCache(0)
	m1 := buildFor(t, newIDTree(files), cache)
	m1.ResolveAll()
	m2 := buildFor(t, newIDTree(files), cache)
	if m2.st != m1.st || len(m2.Rows) != len(m1.Rows) {
		t.Fatal("a tree of the same content should reuse the kept model")
	}
	if m2.tree == m1.tree {
		t.Error("the reused model should read the new tree")
	}
	if buildFor(t, checks.NewMemTree(files), cache).st == m1.st {
		t.Error("a tree without content IDs cannot be matched and builds afresh")
	}

	// Delete a script rows run: the donor's resolutions of those rows
	// tested for it, so they do not hold and are resolved again.
	const script = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh"
	if _, ok := files[script]; !ok {
		t.Fatalf("fixture tree lacks %s", script)
	}
	head := map[string]string{}
	for k, v := range files {
		if k != script {
			head[k] = v
		}
	}
	m3 := buildFor(t, newIDTree(head), cache)
	if m3.st == m1.st || firstDonor(m3) != m1.st {
		t.Fatal("a changed tree with the same launchers should take the kept model as donor")
	}
	var broke, shared int
	for i, r := range m3.Rows {
		got := m3.Resolve(r)
		prev := m1.Resolve(m1.Rows[i])
		if len(got.Groups) > 0 && len(prev.Groups) > 0 && got.Groups[0] == prev.Groups[0] {
			shared++
		}
		for _, l := range got.Groups {
			if m3.Outcome(l).Broken {
				broke++
				if !strings.HasPrefix(r.Key.Name, "qwen3.5-fp8-h100") {
					t.Errorf("%s breaks, but only the qwen3.5 h100 script was deleted", r.Key.Name)
				}
			}
		}
	}
	if broke == 0 {
		t.Error("the rows of the deleted script should be resolved anew and break")
	}
	if shared == 0 {
		t.Error("rows that do not touch the deleted script should share the donor's launches")
	}
}

// TestDelegatingLauncher: a launcher that hands the job to another one
// (exec bash "$(dirname "$0")/launch_x.sh") runs what that one runs.
func TestDelegatingLauncher(t *testing.T) {
	files := map[string]string{
		"runners/launch_a.sh": `#!/usr/bin/bash
export MODEL_PATH="/x"
mkdir -p "$D" || {
    echo "no storage" >&2
    exit 1
}
exec bash "$(dirname "${BASH_SOURCE[0]}")/launch_b.sh" "$@"
`,
		"runners/launch_b.sh":          "bash benchmarks/single_node/${NAME}.sh\n",
		"benchmarks/single_node/ok.sh": "echo\n",
	}
	ctx := context.Background()
	tf := sheval.NewTreeFiles(ctx, checks.NewMemTree(files), nil)
	m := &Model{ctx: ctx, files: tf, eval: &Eval{Files: tf}, st: &modelState{res: map[*Row]*Resolution{}, memos: map[string]*sheval.Memo{}}}
	for name, broken := range map[string]bool{"ok": false, "missing": true} {
		res, err := m.evalLauncher("runners/launch_a.sh", envOf("D", "/d", "NAME", name))
		if err != nil {
			t.Fatal(err)
		}
		l := &Launch{Launcher: "runners/launch_a.sh", Result: m.withDelegates(res, 0)}
		o := m.Outcome(l)
		if o.Broken != broken {
			t.Errorf("NAME=%s: broken %v, want %v (targets %+v)", name, o.Broken, broken, o.Targets)
		}
		if len(o.Targets) != 1 || o.Targets[0].Run.Path != "benchmarks/single_node/"+name+".sh" {
			t.Errorf("NAME=%s: the delegate's run should be the launch's target, got %+v", name, o.Targets)
		}
	}
}

// A launcher that finds its delegate through "$0" reaches it as through
// BASH_SOURCE; one that hands the job to a script of the tree that is not
// a launcher or a benchmark (utils/run.sh, not followed) is not proven
// broken: that script may run one.
func TestLauncherHandsOver(t *testing.T) {
	for _, tc := range []struct {
		name, launcher        string
		broken, unknown, want bool
	}{
		{"dollar zero", `exec bash "$(dirname "$0")/launch_b.sh"`, false, false, true},
		{"helper script", `bash utils/run.sh "$NAME"`, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"runners/launch_a.sh":          "#!/usr/bin/bash\n" + tc.launcher + "\n",
				"runners/launch_b.sh":          "bash benchmarks/single_node/${NAME}.sh\n",
				"utils/run.sh":                 "bash \"benchmarks/single_node/$1.sh\"\n",
				"benchmarks/single_node/ok.sh": "echo\n",
			}
			ctx := context.Background()
			tf := sheval.NewTreeFiles(ctx, checks.NewMemTree(files), nil)
			m := &Model{ctx: ctx, files: tf, eval: &Eval{Files: tf}, st: &modelState{res: map[*Row]*Resolution{}, memos: map[string]*sheval.Memo{}}}
			res, err := m.evalLauncher("runners/launch_a.sh", envOf("NAME", "ok"))
			if err != nil {
				t.Fatal(err)
			}
			o := m.Outcome(&Launch{Launcher: "runners/launch_a.sh", Result: m.withDelegates(res, 0)})
			if o.Broken != tc.broken || o.Unknown != tc.unknown {
				t.Errorf("broken %v unknown %v, want %v %v (targets %+v)", o.Broken, o.Unknown, tc.broken, tc.unknown, o.Targets)
			}
			reached := len(o.Targets) == 1 && o.Targets[0].Run.Path == "benchmarks/single_node/ok.sh"
			if reached != tc.want {
				t.Errorf("reached the benchmark %v, want %v (targets %+v)", reached, tc.want, o.Targets)
			}
		})
	}
}

// TestChangedLauncherKeepsTheDonor: a base whose one launcher changed
// still takes the kept model as donor; the rows of the other launchers
// share the donor's launches, those of the changed one are evaluated
// again and see the change. The launches a model took from its donor are
// paid for once, by the donor, until the donor is no longer kept.
func TestChangedLauncherKeepsTheDonor(t *testing.T) {
	const launcher = "runners/launch_h100-cr.sh"
	files, cache, m1 := resolvedFixture(t, launcher)
	m2 := buildFor(t, newIDTree(withRetired(files, launcher)), cache)
	if m2.st == m1.st || firstDonor(m2) != m1.st {
		t.Fatal("a tree whose launcher changed should take the kept model as donor")
	}
	m2.ResolveAll()
	var ran, shared, other int
	for i, r := range m2.Rows {
		got, prev := m2.Resolve(r), m1.Resolve(m1.Rows[i])
		for j, l := range got.Groups {
			if l.Launcher == launcher {
				ran++
				if !m2.Outcome(l).Broken {
					t.Errorf("%s on %s: the changed launcher exits 1 before any benchmark; want broken", r.Key.Name, l.Group.Name)
				}
				if j < len(prev.Groups) && l == prev.Groups[j] {
					t.Errorf("%s: a row of the changed launcher kept the donor's launch", r.Key.Name)
				}
				continue
			}
			other++
			if j < len(prev.Groups) && l == prev.Groups[j] {
				shared++
			}
		}
	}
	if ran == 0 || other == 0 {
		t.Fatalf("the fixture should run %s on some rows and other launchers on others (%d, %d)", launcher, ran, other)
	}
	if shared != other {
		t.Errorf("%d of %d launches of unchanged launchers were shared with the donor", shared, other)
	}

	// The donor pays for the shared launches; m2 only for its own.
	m2.st.mu.Lock()
	own := m2.st.bytes
	m2.st.mu.Unlock()
	m1.st.mu.Lock()
	donorBytes := m1.st.bytes
	m1.st.mu.Unlock()
	if own >= donorBytes/2 {
		t.Errorf("a model that shares most launches is charged %d bytes, its donor %d", own, donorBytes)
	}
	// Once the donor is no longer kept, the model pays for them.
	takeOver(m1.st, []*Model{m2})
	m2.st.mu.Lock()
	after := m2.st.bytes
	m2.st.mu.Unlock()
	if after <= own {
		t.Errorf("after the donor left, the model's charge stayed %d", after)
	}
	m2.st.mu.Lock()
	if want := m2.st.stateBytes(); after != want {
		t.Errorf("charge %d after the take-over, want what the model holds: %d", after, want)
	}
	m2.st.mu.Unlock()
}

// TestDonorIsTheModelThatResolvedTheRows: a review keeps two models, its
// base (every row resolved) and its head (only the rows it asked for);
// the next base takes the one that resolved the rows as donor, not the
// more recent head, and so evaluates nothing the donor already did.
func TestDonorIsTheModelThatResolvedTheRows(t *testing.T) {
	const recipe = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh"
	files, cache, base := resolvedFixture(t, recipe)
	headFiles := maps.Clone(files)
	headFiles[recipe] += "\n# the PR's change\n"
	head := buildFor(t, newIDTree(headFiles), cache)
	head.SetDonor(base)
	head.Resolve(head.Rows[0])

	nextFiles := maps.Clone(files)
	nextFiles["README.md"] = "merged since\n"
	next := buildFor(t, newIDTree(nextFiles), cache)
	if firstDonor(next) != base.st {
		t.Fatalf("the next base took the last head (%d rows resolved) as donor, not the base that resolved all %d",
			len(head.st.res), len(base.st.res))
	}
	next.ResolveAll()
	for i, r := range next.Rows {
		got, prev := next.Resolve(r), base.Resolve(base.Rows[i])
		for j := range got.Groups {
			if j >= len(prev.Groups) || got.Groups[j] != prev.Groups[j] {
				t.Fatalf("%s: launch %d evaluated again, though nothing it reads changed", r.Key.Name, j)
			}
		}
	}
}

// TestLaunchInputChangesReResolveOnlyTheirRows: a base that changed one
// job template, or one label of the runner list, still takes the kept
// model as donor; only the rows of that job kind, or of that label, are
// resolved again, and they see the change.
func TestLaunchInputChangesReResolveOnlyTheirRows(t *testing.T) {
	const multiTmpl = ".github/workflows/benchmark-multinode-tmpl.yml"
	const runners = "configs/runners.yaml"
	for _, tc := range []struct {
		name string
		edit func(files map[string]string)
		// concerned reports whether a row's launches depend on the edit.
		concerned func(r *Row) bool
		// check is what a concerned row's new launch must show.
		check func(t *testing.T, m *Model, r *Row, l *Launch)
	}{
		{
			name: "the multi-node template runs another launcher",
			edit: func(f map[string]string) {
				f[multiTmpl] = strings.Replace(f[multiTmpl], "bash ./runners/launch_${RUNNER_NAME%%_*}.sh", "bash ./runners/launch_retired.sh", 1)
			},
			concerned: func(r *Row) bool { return r.Kind == MultiNode },
			check: func(t *testing.T, m *Model, r *Row, l *Launch) {
				if l.Launcher != "runners/launch_retired.sh" {
					t.Errorf("%s: launcher %q, want the one the new template runs (err %v)", r.Key.Name, l.Launcher, l.Err)
				}
			},
		},
		{
			name: "the h100 label moves to other machines",
			edit: func(f map[string]string) {
				f[runners] = strings.Replace(f[runners], "    - h100-cr_0\n", "    - h100-cr_0\n    - h100-dgxc_0\n", 1)
			},
			concerned: func(r *Row) bool { return r.Label() == "h100" },
			check: func(t *testing.T, m *Model, r *Row, l *Launch) {
				if l.Group.Label != "h100" {
					t.Errorf("%s: launch on %+v", r.Key.Name, l.Group)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, cache, m1 := resolvedFixture(t)
			changed := maps.Clone(files)
			tc.edit(changed)
			if maps.Equal(changed, files) {
				t.Fatal("the edit changed nothing in the fixture")
			}
			m2 := buildFor(t, newIDTree(changed), cache)
			if firstDonor(m2) != m1.st {
				t.Fatal("the changed tree should take the kept model as donor")
			}
			m2.ResolveAll()
			var concerned, shared, other int
			for i, r := range m2.Rows {
				got, prev := m2.Resolve(r), m1.Resolve(m1.Rows[i])
				if tc.concerned(r) {
					concerned++
					for j, l := range got.Groups {
						if j < len(prev.Groups) && l == prev.Groups[j] {
							t.Errorf("%s: kept the donor's launch though its launch inputs changed", r.Key.Name)
						}
						tc.check(t, m2, r, l)
					}
					continue
				}
				other++
				if len(got.Groups) > 0 && len(got.Groups) == len(prev.Groups) && got.Groups[0] == prev.Groups[0] {
					shared++
				}
			}
			if concerned == 0 || other == 0 {
				t.Fatalf("the fixture should have rows the edit concerns and others (%d, %d)", concerned, other)
			}
			if shared != other {
				t.Errorf("%d of %d rows the edit does not concern shared the donor's launches", shared, other)
			}
		})
	}
}

// firstDonor is the kept model's state m takes resolutions from first.
func firstDonor(m *Model) *modelState {
	m.st.mu.Lock()
	defer m.st.mu.Unlock()
	if len(m.st.donors) == 0 {
		return nil
	}
	return m.st.donors[0]
}

// TestAnOlderDonorHolds: merge bases do not only move forward. A base
// whose launcher is as it was two bases ago takes that launcher's rows
// from the older kept model, where they hold, rather than evaluating
// them again because the newest kept model's do not.
func TestAnOlderDonorHolds(t *testing.T) {
	const launcher = "runners/launch_h100-cr.sh"
	files, cache, older := resolvedFixture(t, launcher)
	newer := buildFor(t, newIDTree(withRetired(files, launcher)), cache)
	newer.ResolveAll()

	nextFiles := maps.Clone(files)
	nextFiles["README.md"] = "an older base, with a later change\n"
	next := buildFor(t, newIDTree(nextFiles), cache)
	if firstDonor(next) != newer.st {
		t.Fatal("the newest model that resolved every row should be the first donor")
	}
	next.ResolveAll()
	var ran int
	for i, r := range next.Rows {
		got, prev := next.Resolve(r), older.Resolve(older.Rows[i])
		for j, l := range got.Groups {
			if l.Launcher == launcher {
				ran++
			}
			if j >= len(prev.Groups) || l != prev.Groups[j] {
				t.Errorf("%s on %s: evaluated again, though the older kept model's launch holds", r.Key.Name, l.Group.Name)
			}
		}
	}
	if ran == 0 {
		t.Fatalf("the fixture should run %s on some rows", launcher)
	}
	next.st.mu.Lock()
	defer next.st.mu.Unlock()
	if next.st.donors != nil {
		t.Error("a model that resolved every row should let go of its donors")
	}
}

// TestKeptModelsKeepTheDonor: over the bound, the kept models let go of
// the oldest that did not resolve every row, never of the running
// review's two, and of the oldest when every older one resolved all.
func TestKeptModelsKeepTheDonor(t *testing.T) {
	model := func(all bool) *Model { return &Model{st: &modelState{all: all}} }
	for _, tc := range []struct {
		name string
		all  []bool // oldest first; the last keptRecent are the running review's
		want int
	}{
		{"a partial model goes before an older complete one", []bool{true, false, true, false, false}, 1},
		{"the oldest partial goes", []bool{false, true, false, true, true}, 0},
		{"every older one complete: the oldest goes", []bool{true, true, true, false, false}, 0},
		{"the running review's partial models stay", []bool{true, true, false, false, false}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &keptModels{}
			for _, a := range tc.all {
				k.models = append(k.models, model(a))
			}
			if got := k.dropIndex(); got != tc.want {
				t.Errorf("dropped model %d, want %d", got, tc.want)
			}
		})
	}
}

// TestLaunchFingerprintIsThePipelineSettings: bases whose configuration
// locates other files (one added MODELS.md or moved the changelog) share
// resolutions; bases whose pipeline settings differ (the job env) do not;
// a tree that does not name a launcher's content shares nothing.
func TestLaunchFingerprintIsThePipelineSettings(t *testing.T) {
	ctx := context.Background()
	tree := newIDTree(fixtureFiles(t))
	launchers := []checks.Entry{{Path: "runners/launch_h100-cr.sh", ID: "x"}}
	base := &checks.Config{}
	paths := &checks.Config{Paths: checks.Paths{Models: "inferencex-e2e/MODELS.md", Changelog: "inferencex-e2e/perf-changelog.yaml"}}
	env := &checks.Config{Pipeline: checks.PipelineConfig{Env: []checks.PipelineVar{{Name: "EXTRA", Expr: "1"}}}}
	fp := launchFingerprint(ctx, tree, base, launchers)
	if fp == "" {
		t.Fatal("a tree with content IDs should have a launch fingerprint")
	}
	if got := launchFingerprint(ctx, tree, paths, launchers); got != fp {
		t.Error("other file locations should not keep a base from its donors")
	}
	if got := launchFingerprint(ctx, tree, env, launchers); got == fp {
		t.Error("other pipeline settings change every launch's env: no donor")
	}
	if got := launchFingerprint(ctx, tree, base, []checks.Entry{{Path: "runners/launch_h100-cr.sh"}}); got != "" {
		t.Error("a launcher without a content ID cannot be checked: no fingerprint")
	}
}

// TestKeptModelsFitHalfTheCache: over half the parse cache, the kept
// models let go of partial ones first, keep the running review's two,
// and the cache keeps them while it holds anything else.
func TestKeptModelsFitHalfTheCache(t *testing.T) {
	const mib = 1 << 20
	cache := checks.NewParseCache(100 * mib)
	k := keptIn(cache)
	model := func(all bool, bytes int64) *Model {
		return &Model{st: &modelState{all: all, bytes: bytes, res: map[*Row]*Resolution{}}}
	}
	complete, partial := model(true, 20*mib), model(false, 15*mib)
	base, head := model(true, 20*mib), model(false, 5*mib)
	k.models = []*Model{complete, partial, base, head}
	k.fps = []string{"a", "b", "c", "d"}
	head.st.donors = []*modelState{partial.st, complete.st}
	base.st.live = donor{st: partial.st, live: partial}
	k.recharge(cache) // 60 MiB > 50
	if len(k.models) != 3 || slices.Contains(k.models, partial) {
		t.Fatalf("kept %d models; the partial one should have gone first", len(k.models))
	}
	// What is no longer kept is not charged: no kept model may hold it.
	if !slices.Equal(head.st.donors, []*modelState{complete.st}) || base.st.live.st != nil {
		t.Errorf("kept models still take from a dropped one: donors %v, live %v", head.st.donors, base.st.live.st)
	}
	for i := 0; i < 60; i++ { // a review's worth of parsed files
		cache.PutSized("parsed", strconv.Itoa(i), i, mib)
	}
	if v, ok := cache.Get(modelKind, "kept"); !ok || v != k {
		t.Fatal("the parse cache evicted the kept models before the files")
	}
	base.st.bytes = 40 * mib // the running review grew
	k.recharge(cache)
	if !slices.Equal(k.models, []*Model{base, head}) {
		t.Errorf("kept %d models; want only the running review's two", len(k.models))
	}
}

// envOf is an env of name, value pairs.
func envOf(kv ...string) Env {
	e := Env{}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i]] = Str(kv[i+1])
	}
	return e
}

func TestRowSigTellsInputsApart(t *testing.T) {
	row := func(in map[string]any) *Row {
		return &Row{Kind: SingleNode, Key: &masterconfig.Key{Runner: masterconfig.Field{Value: "b200"}}, Inputs: in}
	}
	tests := []struct {
		name string
		a, b map[string]any
		same bool
	}{
		{"equal maps", map[string]any{"tp": 8, "image": "x:1"}, map[string]any{"image": "x:1", "tp": 8}, true},
		{"an integer and a float of one value", map[string]any{"tp": 8}, map[string]any{"tp": 8.0}, true},
		{"number and text", map[string]any{"tp": 8}, map[string]any{"tp": "8"}, false},
		{"text that reads as two entries", map[string]any{"a": "1 b:2"}, map[string]any{"a": "1", "b": "2"}, false},
		{"nil and empty text", map[string]any{"a": nil}, map[string]any{"a": ""}, false},
		{"nested lists", map[string]any{"a": []any{"x", "y"}}, map[string]any{"a": []any{"xy"}}, false},
		{"nested maps", map[string]any{"a": map[string]any{"k": "v"}}, map[string]any{"a": map[string]any{"k": "w"}}, false},
		{"bools", map[string]any{"a": true}, map[string]any{"a": "true"}, false},
		{"unknown and text", map[string]any{"a": ghexpr.Unknown{}}, map[string]any{"a": "u"}, false},
		{"unknown and nil", map[string]any{"a": ghexpr.Unknown{}}, map[string]any{"a": nil}, false},
		{"unknown twice", map[string]any{"a": ghexpr.Unknown{}}, map[string]any{"a": ghexpr.Unknown{}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := rowSig(row(tc.a)) == rowSig(row(tc.b)); got != tc.same {
				t.Errorf("same signature = %v, want %v", got, tc.same)
			}
		})
	}
	deep := map[string]any{}
	cur := deep
	for range 10 * maxSigDepth {
		next := map[string]any{}
		cur["k"] = next
		cur = next
	}
	if rowSig(row(deep)) == "" {
		t.Error("no signature for deeply nested inputs")
	}
}
