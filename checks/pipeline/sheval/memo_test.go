package sheval

import (
	"strconv"
	"sync"
	"testing"
)

// memoLauncher runs a script chosen by the model prefix of EXP_NAME and
// hands the server a value computed from TP, which decides nothing.
const memoLauncher = `#!/bin/bash
export M="m-$TP"
if [ -f "benchmarks/${EXP_NAME%%_*}.sh" ]; then
    bash "benchmarks/${EXP_NAME%%_*}.sh"
else
    exit 1
fi
`

// memoEval evaluates src in files with env and stamps the result with its
// EnvSum, as the pipeline model does before it keeps a result.
func memoEval(t *testing.T, files *TreeFiles, env Env) *Result {
	t.Helper()
	ev := &Eval{Files: files}
	res, err := ev.Run("r.sh", env)
	if err != nil {
		t.Fatal(err)
	}
	res.EnvSum = EnvSum(env)
	return res
}

// TestMemoReuse checks which envs reuse a kept evaluation: those that agree
// on every deciding input (here the form ${EXP_NAME%%_*}), whatever their
// other values; the env it was made with gets the very result, another
// gets it rebound to its own values.
func TestMemoReuse(t *testing.T) {
	tf := evalFilesOf(t, map[string]string{"r.sh": memoLauncher, "benchmarks/dsr1.sh": ""})
	first := envOf("EXP_NAME", "dsr1_1k1k", "TP", "8")
	r := memoEval(t, tf, first)
	if got := sortedKeys(r.Reads); len(got) != 1 || got[0] != "EXP_NAME%%_*" {
		t.Fatalf("reads %q, want the form alone", got)
	}
	m := NewMemo(nil)
	m.Put(r)
	opq := envOf("TP", "8")
	opq["EXP_NAME"] = Opaque()
	cases := []struct {
		name string
		env  Env
		hit  bool
		same bool // the very result
	}{
		{"the same env", first, true, true},
		{"an equal env built anew", envOf("TP", "8", "EXP_NAME", "dsr1_1k1k"), true, true},
		{"the same model, other values", envOf("EXP_NAME", "dsr1_8k1k", "TP", "4"), true, false},
		{"an extra variable", envOf("EXP_NAME", "dsr1_1k1k", "TP", "8", "EXTRA", "1"), true, false},
		{"another model", envOf("EXP_NAME", "dsv4_1k1k", "TP", "8"), false, false},
		{"without the input", envOf("TP", "8"), false, false},
		{"an unknown input", opq, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.Has(tc.env, tf); got != tc.hit {
				t.Errorf("Has = %v, want %v", got, tc.hit)
			}
			got, ok := m.Get(tc.env, tf)
			if ok != tc.hit {
				t.Fatalf("Get found %v, want %v", ok, tc.hit)
			}
			if !ok {
				return
			}
			if (got == r) != tc.same {
				t.Errorf("Get gave the kept result itself: %v, want %v", got == r, tc.same)
			}
			if runsOf(got) != "benchmarks/dsr1.sh" {
				t.Errorf("runs %q", runsOf(got))
			}
		})
	}

	// A rebound result's run gets the other env's inputs; what the
	// launcher computed from an input that decided nothing is unknown.
	got, _ := m.Get(envOf("EXP_NAME", "dsr1_8k1k", "TP", "4"), tf)
	env := got.Paths[0].Runs[0].Env
	if v, _ := env.Get("TP"); v != "4" {
		t.Errorf("rebound TP = %q, want 4", v)
	}
	if v, _ := env.Get("EXP_NAME"); v != "dsr1_8k1k" {
		t.Errorf("rebound EXP_NAME = %q", v)
	}
	if v := env["M"]; !v.Set || v.Known || !v.Exported {
		t.Errorf("rebound M = %+v, want set, exported and unknown", v)
	}
	// The kept result is untouched by the rebinding.
	if v, _ := r.Paths[0].Runs[0].Env.Get("M"); v != "m-8" {
		t.Errorf("kept M = %q, want m-8", v)
	}
	if got := m.Results(); len(got) != 1 || got[0] != r {
		t.Errorf("results %v", got)
	}
}

// TestMemoPassAllRebind checks that a run handed every exported variable
// gets, once rebound, the other env's exported variables the first env
// lacked, but not a variable whose absence the evaluation tested.
func TestMemoPassAllRebind(t *testing.T) {
	src := "if [ -z \"${OPT:-}\" ]; then :; fi\nbash \"benchmarks/$M.sh\"\n"
	tf := evalFilesOf(t, map[string]string{"r.sh": src})
	r := memoEval(t, tf, envOf("M", "a"))
	m := NewMemo(nil)
	m.Put(r)
	other := envOf("M", "a", "NEW", "n")
	other["HIDDEN"] = Value{Str: "h", Set: true, Known: true}
	got, ok := m.Get(other, tf)
	if !ok {
		t.Fatalf("no reuse; reads %q", r.Reads)
	}
	env := got.Paths[0].Runs[0].Env
	if v, _ := env.Get("NEW"); v != "n" {
		t.Errorf("NEW = %q, want the other env's exported variable", v)
	}
	if env.Provides("HIDDEN") {
		t.Error("a variable that is not exported reached the run")
	}
	// OPT's status decided the test: an env that sets OPT is another
	// evaluation.
	if m.Has(envOf("M", "a", "OPT", "1"), tf) {
		t.Error("an env that sets a tested variable reused the evaluation")
	}
}

// TestMemoHolds checks that a kept evaluation is reused only while the
// files it parsed and the lookups it made still answer the same.
func TestMemoHolds(t *testing.T) {
	base := map[string]string{"r.sh": memoLauncher, "benchmarks/dsr1.sh": "", "README": "x"}
	env := envOf("EXP_NAME", "dsr1_1k1k", "TP", "8")
	r := memoEval(t, evalFilesOf(t, base), env)
	cases := []struct {
		name  string
		files map[string]string
		holds bool
	}{
		{"the same tree", base, true},
		{"an unrelated change", withFile(base, "README", "y"), true},
		{"an unrelated new file", withFile(base, "benchmarks/other.sh", ""), true},
		{"the script changed", withFile(base, "r.sh", memoLauncher+"\n"), false},
		{"a tested file is gone", map[string]string{"r.sh": memoLauncher}, false},
		{"the run's script changed", withFile(base, "benchmarks/dsr1.sh", "echo\n"), true}, // only its existence was tested
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tf := evalFilesOf(t, tc.files)
			if got := Holds(r, tf); got != tc.holds {
				t.Errorf("Holds = %v, want %v", got, tc.holds)
			}
			m := NewMemo(nil)
			m.Put(r)
			if _, ok := m.Get(env, tf); ok != tc.holds {
				t.Errorf("Get found %v, want %v", ok, tc.holds)
			}
		})
	}
}

// TestMemoSeveralSignatures checks results whose deciding inputs differ
// (one path reads A and B, the other only A): each env finds the one it
// agrees with.
func TestMemoSeveralSignatures(t *testing.T) {
	src := "if [ \"$A\" = 1 ]; then bash \"b/$B.sh\"; else bash x.sh; fi\n"
	tf := evalFilesOf(t, map[string]string{"r.sh": src})
	r1 := memoEval(t, tf, envOf("A", "1", "B", "b"))
	r2 := memoEval(t, tf, envOf("A", "2", "B", "b"))
	if len(r1.Reads) != 2 || len(r2.Reads) != 1 {
		t.Fatalf("reads %q and %q", r1.Reads, r2.Reads)
	}
	m := NewMemo(nil)
	m.Put(r1)
	m.Put(r2)
	cases := []struct {
		env  Env
		want string // runs, "" for no reuse
	}{
		{envOf("A", "1", "B", "b"), "b/b.sh"},
		{envOf("A", "2", "B", "zzz"), "x.sh"},
		{envOf("A", "3"), ""},
		{envOf("A", "1", "B", "c"), ""},
	}
	for _, tc := range cases {
		got, ok := m.Get(tc.env, tf)
		switch {
		case ok != (tc.want != ""):
			t.Errorf("env %v: found %v, want %q", tc.env.Names(), ok, tc.want)
		case ok && runsOf(got) != tc.want:
			t.Errorf("env A=%v: runs %q, want %q", tc.env["A"].Str, runsOf(got), tc.want)
		}
	}
}

// TestMemoBoundAndCharge checks that the memo keeps a bounded number of
// evaluations, dropping the oldest first, and tells its owner what it
// holds each time it grows.
func TestMemoBoundAndCharge(t *testing.T) {
	tf := evalFilesOf(t, map[string]string{"r.sh": "bash \"b/$K.sh\"\n"})
	var charged []int64
	m := NewMemo(func(n int64) { charged = append(charged, n) })
	n := maxMemoPerFile + 40
	for i := 0; i < n; i++ {
		m.Put(memoEval(t, tf, envOf("K", strconv.Itoa(i))))
	}
	res := m.Results()
	if len(res) > maxMemoPerFile || len(res) < maxMemoPerFile*3/4 {
		t.Errorf("%d results kept of %d, bound %d", len(res), n, maxMemoPerFile)
	}
	if m.Has(envOf("K", "0"), tf) {
		t.Error("the oldest evaluation is still kept")
	}
	if !m.Has(envOf("K", strconv.Itoa(n-1)), tf) {
		t.Error("the newest evaluation is gone")
	}
	if got := res[len(res)-1].Reads["K"]; got != "s"+strconv.Itoa(n-1) {
		t.Errorf("results are not oldest first: last reads K=%q", got)
	}
	if len(charged) != n {
		t.Fatalf("charged %d times, want once per Put (%d)", len(charged), n)
	}
	if charged[0] <= 0 || charged[1] <= charged[0] || charged[n-1] != m.MemSize() {
		t.Errorf("charges %d, %d ... %d; MemSize %d", charged[0], charged[1], charged[n-1], m.MemSize())
	}
	if empty := NewMemo(nil); empty.MemSize() != 0 || len(empty.Results()) != 0 || empty.Has(Env{}, tf) {
		t.Error("a new memo is not empty")
	}
}

// TestMemoConcurrent checks that the memo may be shared by the goroutines
// of a review.
func TestMemoConcurrent(t *testing.T) {
	tf := evalFilesOf(t, map[string]string{"r.sh": "bash \"b/$K.sh\"\n"})
	results := make([]*Result, 16)
	for i := range results {
		results[i] = memoEval(t, tf, envOf("K", strconv.Itoa(i)))
	}
	m := NewMemo(func(int64) {})
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			m.Put(results[i])
			for j := 0; j < 50; j++ {
				m.Get(envOf("K", strconv.Itoa(j%16)), tf)
			}
		}(i)
	}
	wg.Wait()
	for i := range results {
		got, ok := m.Get(envOf("K", strconv.Itoa(i)), tf)
		if !ok || got != results[i] {
			t.Errorf("K=%d: found %v", i, ok)
		}
	}
}

// TestEnvSum checks that EnvSum is the same for envs that say the same
// (whatever the order they were built in, or where values were set) and
// differs for any difference a run could see.
func TestEnvSum(t *testing.T) {
	base := func() Env { return envOf("A", "1", "B", "2") }
	at := base()
	v := at["A"]
	v.At = Loc{"x.sh", 3}
	at["A"] = v
	same := []struct {
		name string
		env  Env
	}{
		{"built anew", envOf("B", "2", "A", "1")},
		{"a clone", base().Clone()},
		{"another place of assignment", at},
		{"marked as an input", Env{"A": Str("1").AsInput(), "B": Str("2")}},
	}
	for _, tc := range same {
		if EnvSum(tc.env) != EnvSum(base()) {
			t.Errorf("%s: EnvSum differs", tc.name)
		}
	}
	if EnvSum(nil) != EnvSum(Env{}) {
		t.Error("nil and empty envs differ")
	}
	different := []struct {
		name string
		env  Env
	}{
		{"another value", envOf("A", "1", "B", "3")},
		{"one more variable", envOf("A", "1", "B", "2", "C", "")},
		{"one less", envOf("A", "1")},
		{"a renamed variable", envOf("A", "1", "C", "2")},
		{"not exported", Env{"A": Str("1"), "B": {Str: "2", Set: true, Known: true}}},
		{"unknown", Env{"A": Str("1"), "B": {Str: "2", Set: true, Exported: true}}},
		{"unset", Env{"A": Str("1"), "B": {Str: "2", Known: true, Exported: true}}},
		{"a list", Env{"A": Str("1"), "B": {List: []string{"2"}, IsList: true, Set: true, Known: true, Exported: true}}},
		{"text moved from name to value", envOf("A", "1", "B", "2", "CD", "")},
	}
	seen := map[string]string{EnvSum(base()): "base"}
	for _, tc := range different {
		s := EnvSum(tc.env)
		if prev, dup := seen[s]; dup {
			t.Errorf("%s: EnvSum equals that of %s", tc.name, prev)
		}
		seen[s] = tc.name
	}
	// Names and values that could be split two ways do not collide.
	if EnvSum(envOf("AB", "c")) == EnvSum(envOf("A", "Bc")) {
		t.Error("AB=c and A=Bc collide")
	}
	if EnvSum(Env{"L": {List: []string{"a b"}, IsList: true, Set: true, Known: true}}) ==
		EnvSum(Env{"L": {List: []string{"a", "b"}, IsList: true, Set: true, Known: true}}) {
		t.Error("lists of different elements collide")
	}
}

// TestCanon checks the comparable forms of input keys: a value, a
// pattern-removal form of it, or its status; an unknown or unset input;
// and keys whose pattern is not plain text (never run, only refused).
func TestCanon(t *testing.T) {
	env := envOf("X", "a/b_c", "E", "")
	env["O"] = Opaque()
	env["L"] = Value{List: []string{"p", "q"}, IsList: true, Set: true, Known: true}
	env["EL"] = Value{IsList: true, Set: true, Known: true}
	cases := []struct {
		key, want string
	}{
		{"X", "sa/b_c"},
		{"E", "s"},
		{"MISSING", "u"},
		{"O", "?"},
		{"L", "lp\x00q"},
		{"X%%_*", "sa/b"},
		{"X%_*", "sa/b"},
		{"X##*/", "sb_c"},
		{"X#*/", "sb_c"},
		{"X#zz", "sa/b_c"},
		{"X%%", "sa/b_c"},
		{"MISSING%%_*", "u"},
		{"O%%_*", "?"},
		{"X:status", "n"},
		{"E:status", "e"},
		{"MISSING:status", "u"},
		{"O:status", "?"},
		{"L:status", "n"},
		{"EL:status", "e"},
		{"X%%$(touch /nonexistent/x)", "?"},
		{"X%%`id`", "?"},
		{"X%%${Y:=1}", "?"},
		{`X%%"`, "?"},
		{"X%%'", "?"},
	}
	for _, tc := range cases {
		if got := Canon(env, tc.key); got != tc.want {
			t.Errorf("Canon(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
	// Inputs that differ only in a part the form trims agree.
	if Canon(envOf("X", "dsr1_1k"), "X%%_*") != Canon(envOf("X", "dsr1_8k"), "X%%_*") {
		t.Error("the model prefix of two exp-names differs")
	}
	if Canon(envOf("X", ""), "X") == Canon(Env{}, "X") {
		t.Error("empty and unset agree")
	}
}
