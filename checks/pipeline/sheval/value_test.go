package sheval

import (
	"slices"
	"testing"
)

// TestDescribeValue checks how values are shown to people in findings.
func TestDescribeValue(t *testing.T) {
	cases := []struct {
		name string
		v    Value
		want string
	}{
		{"unset", Value{}, "(unset)"},
		{"unset with a stale string", Value{Str: "x"}, "(unset)"},
		{"opaque", Opaque(), "(set, unknown)"},
		{"set, not known", Value{Set: true, Str: "ignored"}, "(set, unknown)"},
		{"a string", Str("8"), "8"},
		{"an empty string", Str(""), ""},
		{"a list", Value{List: []string{"a", "b"}, IsList: true, Set: true, Known: true}, "(a b)"},
		{"an empty list", Value{IsList: true, Set: true, Known: true}, "()"},
		{"an unknown list", Value{List: []string{"a"}, IsList: true, Set: true}, "(set, unknown)"},
	}
	for _, tc := range cases {
		if got := DescribeValue(tc.v); got != tc.want {
			t.Errorf("%s: DescribeValue = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestConstructors checks what Str and Opaque promise: exported, set,
// known or not.
func TestConstructors(t *testing.T) {
	s := Str("x")
	if !s.Set || !s.Known || !s.Exported || s.Str != "x" || s.IsList || s.Input() {
		t.Errorf("Str(x) = %+v", s)
	}
	o := Opaque()
	if !o.Set || o.Known || !o.Exported {
		t.Errorf("Opaque() = %+v", o)
	}
	if !s.AsInput().Input() || s.Input() {
		t.Error("AsInput marks a copy as an input, not the original")
	}
	if d := s.Deps(); d != nil {
		t.Errorf("a constructed value has deps %q", d)
	}
}

// TestEnvAccessors checks Env.Get, Provides, Names and Clone.
func TestEnvAccessors(t *testing.T) {
	env := Env{
		"S":     Str("v"),
		"EMPTY": Str(""),
		"OPQ":   Opaque(),
		"GONE":  Value{Str: "stale"},
		"LIST":  {List: []string{"a", "b"}, IsList: true, Set: true, Known: true},
	}
	get := []struct {
		name  string
		want  string
		known bool
	}{
		{"S", "v", true},
		{"EMPTY", "", true},
		{"OPQ", "", false},
		{"GONE", "", true},    // known to be unset
		{"MISSING", "", true}, // known to be unset
		{"LIST", "a b", true},
	}
	for _, tc := range get {
		got, known := env.Get(tc.name)
		if got != tc.want || known != tc.known {
			t.Errorf("Get(%s) = %q %v, want %q %v", tc.name, got, known, tc.want, tc.known)
		}
	}
	provides := map[string]bool{"S": true, "EMPTY": true, "OPQ": true, "GONE": false, "MISSING": false, "LIST": true}
	for name, want := range provides {
		if got := env.Provides(name); got != want {
			t.Errorf("Provides(%s) = %v, want %v", name, got, want)
		}
	}
	if got := env.Names(); !slices.Equal(got, []string{"EMPTY", "LIST", "OPQ", "S"}) {
		t.Errorf("Names = %q", got)
	}
	c := env.Clone()
	c["S"] = Str("changed")
	delete(c, "OPQ")
	if v, _ := env.Get("S"); v != "v" || !env.Provides("OPQ") {
		t.Error("changing a clone changed the original")
	}
	if len(Env(nil).Clone()) != 0 || len(Env(nil).Names()) != 0 || Env(nil).Provides("X") {
		t.Error("a nil env is empty")
	}
}

// TestJoinValue checks the value a variable has where paths that gave it
// different values meet: the same value when they agree, set and unknown
// otherwise, exported if either was.
func TestJoinValue(t *testing.T) {
	list := Value{List: []string{"a"}, IsList: true, Set: true, Known: true}
	cases := []struct {
		name string
		a, b Value
		want string
		exp  bool
	}{
		{"equal strings", Str("x"), Str("x"), "x", true},
		{"different strings", Str("x"), Str("y"), "(set, unknown)", true},
		{"set and unset", Str("x"), Value{}, "(set, unknown)", true},
		{"both unset", Value{}, Value{}, "(unset)", false},
		{"known and unknown", Str("x"), Opaque(), "(set, unknown)", true},
		{"exported and not", Str("x"), Value{Str: "x", Set: true, Known: true}, "(set, unknown)", true},
		{"not exported", Value{Str: "x", Set: true, Known: true}, Value{Str: "y", Set: true, Known: true}, "(set, unknown)", false},
		{"equal lists", list, Value{List: []string{"a"}, IsList: true, Set: true, Known: true}, "(a)", false},
		{"different lists", list, Value{List: []string{"b"}, IsList: true, Set: true, Known: true}, "(set, unknown)", false},
		{"list and string", list, Value{Str: "a", Set: true, Known: true}, "(set, unknown)", false},
	}
	for _, tc := range cases {
		j := joinValue(tc.a, tc.b)
		if got := DescribeValue(j); got != tc.want || j.Exported != tc.exp {
			t.Errorf("%s: join = %q exported %v, want %q exported %v", tc.name, got, j.Exported, tc.want, tc.exp)
		}
		// The join is symmetric in what it says.
		if r := joinValue(tc.b, tc.a); !equalValue(r, j) {
			t.Errorf("%s: join(b, a) = %+v, join(a, b) = %+v", tc.name, r, j)
		}
	}
	// Where a value was set does not make values differ.
	a, b := Str("x"), Str("x")
	a.At, b.At = Loc{"f", 1}, Loc{"f", 9}
	if !equalValue(a, b) {
		t.Error("values set on different lines compare unequal")
	}
}

// TestLocString checks how locations print in evidence.
func TestLocString(t *testing.T) {
	cases := []struct {
		l    Loc
		want string
	}{
		{Loc{"runners/x.sh", 12}, "runners/x.sh:12"},
		{Loc{"runners/x.sh", 0}, "runners/x.sh"},
		{Loc{"runners/x.sh", -1}, "runners/x.sh"},
		{Loc{}, ""},
	}
	for _, tc := range cases {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("%#v prints %q, want %q", tc.l, got, tc.want)
		}
	}
	if RunRecipe.String() != "recipe" || RunScript.String() != "script" {
		t.Errorf("kinds print %q and %q", RunScript, RunRecipe)
	}
}

// TestInputsKeepTheirOrigin checks that a run's env tells the job's own
// values (inputs, with their names as deps) from values the script
// computed (with the inputs they came from), which is what rebinding a
// memoized result to another job relies on.
func TestInputsKeepTheirOrigin(t *testing.T) {
	res := evalScript(t, nil, "export M=\"m-$TP\"\nexport K=fixed\nbash probe.sh\n", envOf("TP", "8", "X", "x"))
	r, ok := findRun(res, "probe.sh")
	if !ok {
		t.Fatal("no run")
	}
	cases := []struct {
		name  string
		input bool
		deps  []string
		at    int
	}{
		{"TP", true, []string{"TP"}, 0},
		{"X", true, []string{"X"}, 0},
		{"M", false, []string{"TP"}, 1},
		{"K", false, nil, 2},
	}
	for _, tc := range cases {
		v := r.Env[tc.name]
		if v.Input() != tc.input || !slices.Equal(v.Deps(), tc.deps) || v.At.Line != tc.at {
			t.Errorf("%s: input %v deps %q at %v, want %v %q line %d", tc.name, v.Input(), v.Deps(), v.At, tc.input, tc.deps, tc.at)
		}
	}
}
