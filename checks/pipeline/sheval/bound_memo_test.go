package sheval

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// memoScripts are readings that exercise the memos: chains of variables
// (a long one past maxBoundDepth), cycles, X=${X:-v}, appends, function
// arguments (a recursive function), command substitutions and trims.
var memoScripts = []string{
	`BASE="${EXP_NAME%%_*}_${PRECISION}"
SUF=$([[ "$SPEC" == mtp ]] && printf '_mtp' || printf '')
SCRIPT="benchmarks/${SCENARIO:-fixed/}${BASE}${SUF}.sh"
bash "$SCRIPT"
srtctl apply -f "$CONFIG_FILE"
cp -r "$GITHUB_WORKSPACE/recipes/$MODEL" /tmp/r`,
	`A="$B/a"
B="$C/b"
C="$D/c"
D="$E/d"
E="$F/e"
F="$G/f"
G="$H/g"
H="$I/h"
I="$J/i"
J="benchmarks/$ROOT"
bash "$A.sh"
bash "$G.sh"`,
	`X="$Y/x"
Y="${X:-benchmarks}/y"
bash "$X.sh"
bash "benchmarks/$EXP_NAME.sh"`,
	`S="${S:-benchmarks/d}"
S+="/$PRECISION"
bash "$S.sh"`,
	`run() { bash "$1"; run "$1"; }
launch() { run "benchmarks/$2_$PRECISION.sh"; }
launch x "$EXP_NAME"
"$CMD" --result "$RESULT_FILENAME" --model "$MODEL"`,
}

// memoEnvs are job envs of one runner group: alike but for a few values.
func memoEnvs() []Env {
	var out []Env
	for _, exp := range []string{"dsr1_1k1k", "dsr1_8k1k", "gptoss_1k1k"} {
		for _, prec := range []string{"fp4", "fp8"} {
			for _, spec := range []string{"mtp", "none"} {
				env := Env{"EXP_NAME": Str(exp), "PRECISION": Str(prec), "SPEC": Str(spec), "MODEL": Str("m-" + exp),
					"RESULT_FILENAME": Str(exp + "_" + prec), "CONFIG_FILE": Str("recipes/" + exp + ".yaml"), "ROOT": Str(prec)}
				if spec == "none" {
					env["SCENARIO"] = Str("agentic/")
					env["CMD"] = Opaque()
				}
				out = append(out, env)
			}
		}
	}
	return out
}

func parseAll(t *testing.T, scripts []string) []*syntax.File {
	t.Helper()
	var files []*syntax.File
	for i, s := range scripts {
		f, err := ParseShell(fmt.Sprintf("runners/m%d.sh", i), []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func unknownVar(name string) bool { return strings.HasPrefix(name, "__UNKNOWN_") }

// TestBoundMemoDeepAsk: a variable taken from the memo leaves out of the
// expander what its values were made from, which a longer chain asks for
// later: it must find what the expansion without the memo found there.
func TestBoundMemoDeepAsk(t *testing.T) {
	files := parseAll(t, []string{`V="$W/v"
W="$X/w"
X="$Y/x"
Y="benchmarks/$ROOT"
bash "$V$EXTRA.sh"
A1="$A2/1"
A2="$A3/2"
A3="$A4/3"
A4="$A5/4"
A5="$A6/5"
A6="$W/6$OTHER"
bash "$A1.sh"`})
	envs := []Env{
		{"ROOT": Str("r"), "OTHER": Str("1"), "EXTRA": Str("1")},
		{"ROOT": Str("r"), "OTHER": Str("2"), "EXTRA": Str("2")},
	}
	memo := NewBound(files, unknownVar)
	plain := NewBound(files, unknownVar)
	plain.plain = true
	for i, env := range envs {
		if got, want := memo.Patterns(env), plain.Patterns(env); !samePatterns(got, want) {
			t.Errorf("env %d: with the memos %q, without %q", i, got, want)
		}
	}
}

// TestBoundMemoAgrees: a reading expanded for one env after another with
// its memos of words and variables (the memo of words shared with a
// reading of part of its scripts) yields for each env the patterns the
// same reading yields without them, in either order. (A reading's own memo
// of groups may make what it yields for an env depend on the envs before,
// where a chain is cut short: the memos must not change that either.)
func TestBoundMemoAgrees(t *testing.T) {
	files := parseAll(t, memoScripts)
	envs := memoEnvs()
	for _, reverse := range []bool{false, true} {
		words := NewWordMemo()
		part := NewBoundShared(files[:2], unknownVar, words)
		memo := NewBoundShared(files, unknownVar, words)
		plain := NewBound(files, unknownVar)
		plain.plain = true
		for k := range envs {
			i := k
			if reverse {
				i = len(envs) - 1 - k
			}
			part.Patterns(envs[i])
			got, want := memo.Patterns(envs[i]), plain.Patterns(envs[i])
			if !samePatterns(got, want) {
				t.Errorf("env %d (reverse %v): with the memos %q, without %q", i, reverse, got, want)
			}
			if alone := NewBound(files, unknownVar).Patterns(envs[i]); k == 0 && !samePatterns(got, alone) {
				t.Errorf("env %d: the first expansion %q, a fresh reading's %q", i, got, alone)
			}
		}
		if len(memo.varVals) == 0 || len(words.vals) == 0 {
			t.Error("the memos hold nothing: the test tells nothing")
		}
	}
}

// TestBoundMemoAfterCut: once an expansion was cut short, a variable
// made from what it cut is not taken from the memo (where another env's
// expansion, not cut, left it).
func TestBoundMemoAfterCut(t *testing.T) {
	files := parseAll(t, []string{memoScripts[1] + `
bash "$A$OTHER.sh"
K="$G/k"
bash "$K$EXTRA.sh"`})
	// The first env cuts the chain from A short (K is not kept); the
	// second takes A's group from the reading's memo of groups, so K is
	// made whole and kept; the third cuts the chain again, and K must be
	// made from the G it cut.
	envs := []Env{
		{"ROOT": Str("r"), "OTHER": Str("1"), "EXTRA": Str("1")},
		{"ROOT": Str("r"), "OTHER": Str("1"), "EXTRA": Str("2")},
		{"ROOT": Str("r"), "OTHER": Str("2"), "EXTRA": Str("3")},
	}
	memo := NewBound(files, unknownVar)
	plain := NewBound(files, unknownVar)
	plain.plain = true
	for i, env := range envs {
		if got, want := memo.Patterns(env), plain.Patterns(env); !samePatterns(got, want) {
			t.Errorf("env %d: with the memos %q, without %q", i, got, want)
		}
	}
}

func samePatterns(a, b Patterns) bool {
	return slices.Equal(a.Runs, b.Runs) && slices.Equal(a.Sources, b.Sources) && slices.Equal(a.Prefixes, b.Prefixes)
}

// TestBoundHeights: a variable on or reaching a cycle, or on a chain
// (from a word of the reading down) as long as values follows, or made
// from one that is, is never answered from the memo of variables.
func TestBoundHeights(t *testing.T) {
	b := NewBound(parseAll(t, memoScripts), unknownVar)
	cases := []struct {
		name  string
		depth int
		ok    bool
	}{
		{"SCRIPT", 0, true},   // BASE, SUF, SCENARIO, ...: a short chain
		{"S", 0, true},        // S=${S:-...}: read from its other values
		{"A", 0, false},       // A → B → ... → J: longer than values follows
		{"G", 0, false},       // G → H → I → J: short, but asked under A too
		{"BASE", 7, false},    // asked that deep, its chain is too long
		{"X", 0, false},       // X → Y → X: a cycle
		{"Y", 0, false},       // on it too
		{"EXP_NAME", 7, true}, // the env's own value
	}
	for _, tc := range cases {
		if _, ok := b.closureOf(tc.name, tc.depth); ok != tc.ok {
			t.Errorf("closureOf(%s, %d) answers %v, want %v", tc.name, tc.depth, ok, tc.ok)
		}
	}
	deps, _ := b.closureOf("SCRIPT", 0)
	for _, d := range []string{"SCRIPT", "BASE", "EXP_NAME", "PRECISION", "SPEC", "SUF", "SCENARIO"} {
		if !slices.Contains(deps, d) {
			t.Errorf("the closure of SCRIPT lacks %s: %v", d, deps)
		}
	}
}
