package sheval

import (
	"slices"
	"testing"
)

// unknownValue is how DescribeValue renders a set variable whose value the
// bot cannot know.
const unknownValue = "(set, unknown)"

// TestWordExpansion checks what parameter expansion, quoting and
// arithmetic give, read back from the variable OUT in the env of a run at
// the end of the script. stdEnv provides V=v, E="", P=dir/sub/a.tar.gz,
// N=4, EXP_NAME=dsr1_8k1k and an unknown U; X and NOPE are unset.
func TestWordExpansion(t *testing.T) {
	cases := []struct {
		name, src string
		want      string
	}{
		// Defaults and alternatives.
		{"default of unset", `OUT=${X:-d}`, "d"},
		{"default of unset without colon", `OUT=${X-d}`, "d"},
		{"default of empty", `OUT=${E:-d}`, "d"},
		{"empty is set for the colonless form", `OUT=${E-d}`, ""},
		{"default not taken when set", `OUT=${V:-d}`, "v"},
		{"default is itself expanded", `OUT=${X:-$V/x}`, "v/x"},
		{"alternative of set", `OUT=${V:+alt}`, "alt"},
		{"alternative of unset", `OUT=${X:+alt}`, ""},
		{"alternative of empty without colon", `OUT=${E+alt}`, "alt"},
		{"self default keeps the job's value", `V=${V:-d}; OUT=$V`, "v"},
		{"self default of unset", `X=${X:-d}; OUT=$X`, "d"},
		{"assigning default is not guessed", `OUT=${X:=dd}`, unknownValue},

		// Pattern removal, replacement, length, case and slices.
		{"shortest prefix", `OUT=${P#*/}`, "sub/a.tar.gz"},
		{"longest prefix", `OUT=${P##*/}`, "a.tar.gz"},
		{"shortest suffix", `OUT=${P%/*}`, "dir/sub"},
		{"longest suffix", `OUT=${P%%/*}`, "dir"},
		{"extension", `OUT=${P%.*}`, "dir/sub/a.tar"},
		{"all extensions", `OUT=${P%%.*}`, "dir/sub/a"},
		{"model prefix of an exp-name", `OUT=${EXP_NAME%%_*}`, "dsr1"},
		{"sequence suffix of an exp-name", `OUT=${EXP_NAME#*_}`, "8k1k"},
		{"pattern that does not match", `OUT=${V#zz}`, "v"},
		{"replace first", `OUT=${P/a/b}`, "dir/sub/b.tar.gz"},
		{"replace all", `OUT=${P//a/b}`, "dir/sub/b.tbr.gz"},
		{"delete all", `OUT=${P//\//}`, "dirsuba.tar.gz"},
		{"length", `OUT=${#P}`, "16"},
		{"length of unset", `OUT=${#X}`, "0"},
		{"upper case", `OUT=${P^^}`, "DIR/SUB/A.TAR.GZ"},
		{"lower case", `Y=AbC; OUT=${Y,,}`, "abc"},
		{"substring", `OUT=${P:1:3}`, "ir/"},
		{"substring to the end", `OUT=${P:8}`, "a.tar.gz"},
		{"indirection", `R=V; OUT=${!R}`, "v"},
		{"indirection through an unset name", `OUT=${!R}`, unknownValue},

		// Quoting.
		{"double quotes expand", `OUT="$V $V"`, "v v"},
		{"single quotes do not", `OUT='$V'`, "$V"},
		{"escaped dollar", `OUT="\$V"`, "$V"},
		{"ANSI-C quoting", `OUT=$'a\tb'`, "a\tb"},
		{"adjacent parts join", `OUT=pre"$V"'-'${N}post`, "pre" + "v-4post"},
		{"braces delimit the name", `OUT=${V}x`, "vx"},
		{"unbraced name runs to the end", `OUT=$Vx`, ""},

		// Arithmetic.
		{"arithmetic expansion", `OUT=$((1+2*N))`, "9"},
		{"arithmetic command assigns", `((OUT=N*2))`, "8"},
		{"let assigns", `let OUT=N+1`, "5"},
		{"arithmetic of an unknown", `((OUT=U+1))`, unknownValue},

		// Appends.
		{"append to a string", `OUT=a; OUT+=b`, "ab"},
		{"append to an unknown", `OUT=$U; OUT+=b`, unknownValue},
		{"append expands", `OUT=a; OUT+="-$V"`, "a-v"},

		// What the bot cannot know.
		{"unknown input", `OUT=$U`, unknownValue},
		{"unknown inside a word", `OUT="x-$U-y"`, unknownValue},
		{"runner variable", `OUT=$SLURM_JOB_ID`, unknownValue},
		{"runner user", `OUT=$USER`, unknownValue},
		{"unset input is empty", `OUT=$NOPE`, ""},
		{"random", `OUT=$RANDOM`, unknownValue},
		{"process id", `OUT=$$`, unknownValue},
		{"last status", `OUT=$?`, unknownValue},
		{"process substitution", `OUT=<(true)`, unknownValue},
		{"the workspace", `OUT=$GITHUB_WORKSPACE`, Workspace},
		{"the script itself", `OUT=$0`, Workspace + "/" + scriptPath},
		{"the script's source", `OUT=${BASH_SOURCE[0]}`, Workspace + "/" + scriptPath},
		{"unset removes", `OUT=x; unset OUT`, "(unset)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := probe(t, tc.src, stdEnv())
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("%s: OUT = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestCommandSubstitution checks the substitutions the evaluator computes
// itself (dirname, basename, echo, printf, true/false and tests joined by
// && and ||) and that any other command's output is unknown.
func TestCommandSubstitution(t *testing.T) {
	cases := []struct {
		name, src string
		want      string
	}{
		{"dirname", `OUT=$(dirname a/b/c.sh)`, "a/b"},
		{"dirname of a bare name", `OUT=$(dirname c.sh)`, "."},
		{"dirname of $0", `OUT=$(dirname "$0")`, Workspace + "/runners"},
		{"dirname twice", `OUT=$(dirname "$(dirname "$0")")`, Workspace},
		{"basename", `OUT=$(basename a/b/c.sh)`, "c.sh"},
		{"basename with a suffix", `OUT=$(basename a/b/c.sh .sh)`, "c"},
		{"basename of a variable", `OUT=$(basename "$P" .gz)`, "a.tar"},
		{"echo", `OUT=$(echo hi there)`, "hi there"},
		{"echo -n", `OUT=$(echo -n hi)`, "hi"},
		{"echo of variables", `OUT=$(echo "$V" "$N")`, "v 4"},
		{"echo with nothing", `OUT=$(echo)`, ""},
		{"printf", `OUT=$(printf '%s-%d' a 3)`, "a-3"},
		{"printf with several verbs", `OUT=$(printf '%s/%s.sh' "$V" "$N")`, "v/4.sh"},
		{"printf of a variable", `OUT=$(printf '_%s' "$V")`, "_v"},
		{"printf without a format", `OUT=$(printf)`, unknownValue},
		{"backquotes", "OUT=`echo bt`", "bt"},
		{"true prints nothing", `OUT=$(true)`, ""},
		{"test and printf", `OUT=$([[ "$V" == v ]] && printf '_y' || printf '_n')`, "_y"},
		{"failed test and printf", `OUT=$([[ "$V" == w ]] && printf '_y' || printf '_n')`, "_n"},
		{"bracket test and echo", `OUT=$([ -n "$V" ] && echo set)`, "set"},
		{"false then echo", `OUT=$(false || echo alt)`, "alt"},
		{"unknown test", `OUT=$([[ "$U" == v ]] && printf a || printf b)`, unknownValue},
		{"nested substitution", `OUT=$(echo "$(basename "$(dirname a/b/c)")")`, "b"},
		{"trailing newlines are cut", `OUT="$(echo a)b"`, "ab"},
		{"date is unknown", `OUT=$(date)`, unknownValue},
		{"cat is unknown", `OUT=$(cat /etc/hostname)`, unknownValue},
		{"two statements are unknown", `OUT=$(echo a; echo b)`, unknownValue},
		{"a redirection makes it unknown", `OUT=$(echo a 2>/dev/null)`, unknownValue},
		{"a pipeline is unknown", `OUT=$(echo a | tr a b)`, unknownValue},
		{"an argument that is unknown", `OUT=$(basename "$U")`, unknownValue},
		{"a substitution that exits does not end the script", `OUT=$(exit 3); OUT=after`, "after"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := probe(t, tc.src, stdEnv())
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("%s: OUT = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestArraysAndPositional checks arrays, and the positional parameters a
// function sees ($1, $#, $@) and leaves behind.
func TestArraysAndPositional(t *testing.T) {
	cases := []struct {
		name, src string
		want      string
	}{
		{"element", `A=(x y z); OUT=${A[1]}`, "y"},
		{"first element without an index", `A=(x y z); OUT=$A`, "x"},
		{"all elements", `A=(x y z); OUT="${A[@]}"`, "x y z"},
		{"count", `A=(x y z); OUT=${#A[@]}`, "3"},
		{"elements from variables", `A=("$V" "$N"); OUT="${A[*]}"`, "v 4"},
		{"appended elements", `A=(x); A+=(y "$V"); OUT="${A[@]}"`, "x y v"},
		{"append to an empty string", `A=""; A+=(y); OUT="${A[@]}"`, "y"},
		{"array of an unknown element", `A=(x "$U" z); OUT=${A[0]}`, unknownValue},
		{"an assigned index leaves the array unknown", `A=(x y); A[1]=q; OUT=${A[0]}`, unknownValue},
		{"array held in the env", `A=(x y); export A; OUT=$A`, "x"},

		{"first argument", `f() { OUT=$1; }; f one two`, "one"},
		{"second argument", `f() { OUT=$2; }; f one two`, "two"},
		{"missing argument is empty", `f() { OUT=${3:-none}; }; f one two`, "none"},
		{"argument count", `f() { OUT=$#; }; f one two`, "2"},
		{"all arguments", `f() { OUT="$@"; }; f one two`, "one two"},
		{"arguments are expanded by the caller", `f() { OUT=$1; }; f "$V-$N"`, "v-4"},
		{"an unknown argument", `f() { OUT=$1; }; f "$U"`, unknownValue},
		{"count with an unknown argument", `f() { OUT=$#; }; f "$U" x`, unknownValue},
		{"positional parameters are restored", `f() { :; }; f one; OUT=${1:-none}`, "none"},
		{"nested calls see their own arguments", `g() { OUT=$1; }; f() { g inner; }; f outer`, "inner"},
		{"outer arguments after a nested call", `g() { :; }; f() { g inner; OUT=$1; }; f outer`, "outer"},
		{"a function assigns globals", `f() { OUT=in; }; OUT=out; f`, "in"},
		{"the last definition wins", `f() { OUT=one; }; f() { OUT=two; }; f`, "two"},
		{"a function that returns early", `f() { OUT=a; return; OUT=b; }; f`, "a"},
		{"a loop variable is unknown", `for i in a b; do OUT=$i; done`, unknownValue},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := probe(t, tc.src, stdEnv())
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("%s: OUT = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestWordsDecideReads checks which inputs an evaluation records as
// deciding it (Result.Reads, with their canonical values): a test reads
// the whole value, a trimmed form reads only the form, a status test only
// whether the variable is set, and a value that decides nothing is no
// read at all.
func TestWordsDecideReads(t *testing.T) {
	cases := []struct {
		name, src string
		env       Env
		want      map[string]string
	}{
		{"a test reads the value", `if [ "$V" = v ]; then :; fi`, envOf("V", "v"), map[string]string{"V": "sv"}},
		{"a run's word reads its inputs", `bash "b/$V.sh"`, envOf("V", "v"), map[string]string{"V": "sv"}},
		{"a trimmed form reads only the form", `bash "b/${EXP_NAME%%_*}.sh"`, envOf("EXP_NAME", "dsr1_8k1k"),
			map[string]string{"EXP_NAME%%_*": "sdsr1"}},
		{"both forms of one input", `bash "b/${EXP_NAME%%_*}/${EXP_NAME#*_}.sh"`, envOf("EXP_NAME", "dsr1_8k1k"),
			map[string]string{"EXP_NAME%%_*": "sdsr1", "EXP_NAME#*_": "s8k1k"}},
		{"a plain read next to a form reads the value", `bash "b/${EXP_NAME%%_*}/$EXP_NAME.sh"`, envOf("EXP_NAME", "dsr1_8k1k"),
			map[string]string{"EXP_NAME": "sdsr1_8k1k", "EXP_NAME%%_*": "sdsr1"}},
		{"a computed value carries its inputs", `S="b/${V}_$N.sh"` + "\n" + `bash "$S"`, envOf("V", "v", "N", "4"),
			map[string]string{"V": "sv", "N": "s4"}},
		{"an assignment alone decides nothing", `S="b/$V.sh"; echo "$S"`, envOf("V", "v"), map[string]string{}},
		{"a status test", `[[ -v V ]] && echo yes`, envOf("V", "v"), map[string]string{"V:status": "n"}},
		{"a required variable", `: "${V:?}"`, Env{}, map[string]string{"V": "u", "V:status": "u"}},
		{"a checked empty variable", `check_env_vars V`, envOf("V", ""), map[string]string{"V:status": "e"}},
		{"an unknown variable in a test", `[ -n "$U" ] && echo`, Env{"U": Opaque()}, map[string]string{"U": "?"}},
		{"an unset variable in a test", `[ -n "$X" ] && echo`, Env{}, map[string]string{"X": "u"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, nil, tc.src, tc.env)
			if !mapsEqual(res.Reads, tc.want) {
				t.Errorf("%s: reads %q, want %q", tc.src, res.Reads, tc.want)
			}
			// Canon gives the recorded value back from the env.
			for k, v := range res.Reads {
				if c := Canon(tc.env, k); c != v {
					t.Errorf("Canon(%s) = %q, recorded %q", k, c, v)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
