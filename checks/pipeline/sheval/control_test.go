package sheval

import (
	"slices"
	"strings"
	"testing"
)

// testFiles is the tree the test tables decide file tests against.
var testFiles = map[string]string{
	"benchmarks/a.sh":     "#!/bin/bash\necho a\n",
	"benchmarks/sub/b.sh": "#!/bin/bash\necho b\n",
}

// TestConditions checks how [[ ]], [ ], test and plain commands decide an
// if, with the values of stdEnv: "yes" and "no" for a decided test, and an
// unknown OUT when the test depends on something the bot cannot know (the
// two branches are joined).
func TestConditions(t *testing.T) {
	cases := []struct {
		cond, want string
	}{
		// [[ ]]
		{`[[ $V == v ]]`, "yes"},
		{`[[ $V == w ]]`, "no"},
		{`[[ $V == v* ]]`, "yes"},
		{`[[ $V == "v*" ]]`, "no"}, // a quoted pattern is literal
		{`[[ $V = [uv] ]]`, "yes"},
		{`[[ $V == @(v|w) ]]`, "yes"},
		{`[[ $V != w ]]`, "yes"},
		{`[[ $V =~ ^v$ ]]`, "yes"},
		{`[[ $V =~ ^w ]]`, "no"},
		{`[[ -z $X ]]`, "yes"},
		{`[[ -n $V ]]`, "yes"},
		{`[[ -n $E ]]`, "no"},
		{`[[ $V ]]`, "yes"},
		{`[[ -v V ]]`, "yes"},
		{`[[ -v X ]]`, "no"},
		{`[[ -v U ]]`, "yes"}, // set, although its value is unknown
		{`[[ -v SLURM_JOB_ID ]]`, unknownValue},
		{`[[ 3 -lt 10 ]]`, "yes"},
		{`[[ 3 < 10 ]]`, "no"}, // a string comparison
		{`[[ $N -ge 4 ]]`, "yes"},
		{`[[ ! -n $V ]]`, "no"},
		{`[[ ( $V == v ) && $N == 4 ]]`, "yes"},
		{`[[ $V == w || $N == 4 ]]`, "yes"},
		{`[[ $U == x && $V == w ]]`, "no"},  // decided by the known side
		{`[[ $U == x || $V == v ]]`, "yes"}, // decided by the known side
		{`[[ $U == x && $V == v ]]`, unknownValue},
		{`[[ $U == x ]]`, unknownValue},
		{`[[ $V == $U ]]`, unknownValue},
		{`[[ -f benchmarks/a.sh ]]`, "yes"},
		{`[[ -f "$GITHUB_WORKSPACE/benchmarks/a.sh" ]]`, "yes"},

		// [ ] and test
		{`[ "$V" = v ]`, "yes"},
		{`[ "$V" == v ]`, "yes"},
		{`[ "$V" != v ]`, "no"},
		{`[ -z "$E" ]`, "yes"},
		{`[ -n "$X" ]`, "no"},
		{`[ "$N" -eq 4 ]`, "yes"},
		{`[ "$N" -ne 4 ]`, "no"},
		{`[ "$N" -lt 5 ]`, "yes"},
		{`[ "$N" -le 3 ]`, "no"},
		{`[ "$N" -gt 3 ]`, "yes"},
		{`[ "$N" -gt abc ]`, unknownValue},
		{`[ ! -n "$V" ]`, "no"},
		{`[ ! "$V" = w ]`, "yes"},
		{`test -n "$V"`, "yes"},
		{`test "$V" = w`, "no"},
		{`[ "$V" ]`, "yes"},
		{`[ "$E" ]`, "no"},
		{`[ ]`, "no"},
		{`[ "$V" = v -a "$N" = 4 ]`, unknownValue},
		{`[ -x foo ]`, unknownValue},
		{`[ -n "$U" ]`, unknownValue},

		// Files of the tree.
		{`[ -f benchmarks/a.sh ]`, "yes"},
		{`[ -f benchmarks/sub ]`, "no"},
		{`[ -d benchmarks/sub ]`, "yes"},
		{`[ -d benchmarks/a.sh ]`, "no"},
		{`[ -e benchmarks/sub ]`, "yes"},
		{`[ -e benchmarks/zz ]`, "no"},
		{`[ -s benchmarks/a.sh ]`, "yes"},
		{`[ -r benchmarks/a.sh ]`, "yes"},
		{`[ ! -f benchmarks/zz.sh ]`, "yes"},
		{`[ -f "$(dirname "$0")/../benchmarks/a.sh" ]`, "yes"},
		{`[ -f /etc/passwd ]`, unknownValue},
		{`[ -f "$U" ]`, unknownValue},
		{`touch benchmarks/zz; [ -f benchmarks/zz ]`, unknownValue},
		{`echo > benchmarks/zz; [ -f benchmarks/zz ]`, unknownValue},
		{`mkdir -p benchmarks/new; [ -d benchmarks/new/x ]`, unknownValue},

		// Commands.
		{`true`, "yes"},
		{`:`, "yes"},
		{`false`, "no"},
		{`! true`, "no"},
		{`! false`, "yes"},
		{`cmd`, unknownValue},
		{`true && false`, "no"},
		{`false || true`, "yes"},
		{`true; false`, "no"}, // the last command's status
		{`[ -n "$U" ] || true`, "yes"},
		{`[ -n "$U" ] && false`, "no"},
	}
	for _, tc := range cases {
		t.Run(tc.cond, func(t *testing.T) {
			src := "if " + tc.cond + "; then OUT=yes; else OUT=no; fi"
			res := evalScript(t, testFiles, src+"\nexport OUT\nbash /__workspace__/probe.sh\n", stdEnv())
			var got []string
			for _, p := range res.Paths {
				if r, ok := findRunIn(p, probeScript); ok {
					got = append(got, DescribeValue(r.Env["OUT"]))
				}
			}
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("if %s: OUT = %q, want %q", tc.cond, got, tc.want)
			}
		})
	}
}

func findRunIn(p Path, tp string) (Run, bool) {
	for _, r := range p.Runs {
		if r.Path == tp {
			return r, true
		}
	}
	return Run{}, false
}

// TestBranches checks which branch of if/elif/else, case and && || lists
// a job's env takes, with stdEnv.
func TestBranches(t *testing.T) {
	cases := []struct {
		name, src string
		want      string
	}{
		{"then", `if [ "$V" = v ]; then OUT=then; else OUT=else; fi`, "then"},
		{"else", `if [ "$V" = w ]; then OUT=then; else OUT=else; fi`, "else"},
		{"no else", `if [ "$V" = w ]; then OUT=then; fi`, "(unset)"},
		{"elif", `if [ "$V" = w ]; then OUT=a; elif [ "$N" = 4 ]; then OUT=b; else OUT=c; fi`, "b"},
		{"elif falls to else", `if [ "$V" = w ]; then OUT=a; elif [ "$N" = 5 ]; then OUT=b; else OUT=c; fi`, "c"},
		{"the first true branch only", `if true; then OUT=a; elif true; then OUT=b; fi`, "a"},
		{"nested ifs", `if [ -n "$V" ]; then if [ "$N" = 4 ]; then OUT=inner; fi; fi`, "inner"},
		{"same result on both sides", `if [ -n "$U" ]; then OUT=same; else OUT=same; fi`, "same"},
		{"different results joined", `if [ -n "$U" ]; then OUT=a; else OUT=b; fi`, unknownValue},
		{"one side assigns", `OUT=pre; if [ -n "$U" ]; then OUT=a; fi`, unknownValue},
		{"condition assignments count", `if OUT=cond; true; then :; fi`, "cond"},

		{"case match", `case $V in v) OUT=cv;; *) OUT=cs;; esac`, "cv"},
		{"case alternatives and globs", `case $V in x|v*) OUT=cv;; *) OUT=cs;; esac`, "cv"},
		{"case default", `case $V in x) OUT=cx;; *) OUT=cs;; esac`, "cs"},
		{"case without a match", `case $V in x) OUT=cx;; esac`, "(unset)"},
		{"case of a trimmed value", `case ${EXP_NAME%%_*} in dsr1) OUT=r1;; dsv4) OUT=v4;; esac`, "r1"},
		{"case pattern from a variable", `W=v; case $V in $W) OUT=var;; esac`, "var"},
		{"case first match wins", `case $V in v) OUT=first;; v*) OUT=second;; esac`, "first"},
		{"case of an unknown word", `case $U in v) OUT=cv;; *) OUT=cs;; esac`, unknownValue},
		{"case of an unknown pattern", `case $V in "$U") OUT=cu;; *) OUT=cs;; esac`, unknownValue},

		{"and taken", `[ "$V" = v ] && OUT=and`, "and"},
		{"and skipped", `[ "$V" = w ] && OUT=and`, "(unset)"},
		{"or taken", `[ "$V" = w ] || OUT=or`, "or"},
		{"or skipped", `[ "$V" = v ] || OUT=or`, "(unset)"},
		{"and-or, true", `[ "$V" = v ] && OUT=and || OUT=or`, "and"},
		{"and-or, false", `[ "$V" = w ] && OUT=and || OUT=or`, "or"},
		{"and-or of an unknown", `[ "$U" = v ] && OUT=and || OUT=or`, unknownValue},
		{"negated and", `! [ "$V" = v ] && OUT=neg`, "(unset)"},
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

// TestCertaintyAndDecisions checks what a path says of how it was
// reached: Certain when the env decided every branch, the decisions taken
// with their test as written, and joins of undecided branches.
func TestCertaintyAndDecisions(t *testing.T) {
	cases := []struct {
		name, src string
		paths     int
		certain   []bool
		decisions []string // of the first path: "+text" taken, "-text" not
	}{
		{"no branch", "bash benchmarks/a.sh", 1, []bool{true}, nil},
		{"decided if", `if [ "$V" = v ]; then bash benchmarks/a.sh; fi`, 1, []bool{true}, []string{`+[ "$V" = v ]`}},
		{"decided else", `if [ "$V" = w ]; then :; else bash benchmarks/a.sh; fi`, 1, []bool{true}, []string{`-[ "$V" = w ]`}},
		{"elif decisions in order", `if [ "$V" = w ]; then :; elif [[ $N == 4 ]]; then :; fi`, 1, []bool{true},
			[]string{`-[ "$V" = w ]`, `+[[ $N == 4 ]]`}},
		{"case decision", `case $V in w|v) :;; esac`, 1, []bool{true}, []string{"+case → w|v"}},
		{"undecided test that changes nothing", `if [ -n "$U" ]; then echo a; fi; bash benchmarks/a.sh`, 1, []bool{true}, nil},
		{"undecided test that matters is joined", `if [ -n "$U" ]; then S=a; else S=b; fi`, 1, []bool{false},
			[]string{"-(paths through an undecided test joined)"}},
		{"undecided exit splits the paths", `[ -n "$U" ] || exit 1` + "\nbash benchmarks/a.sh", 2, []bool{false, false}, nil},
		{"decided exit", `[ -n "$V" ] || exit 1` + "\nbash benchmarks/a.sh", 1, []bool{true}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, testFiles, tc.src, stdEnv())
			if len(res.Paths) != tc.paths {
				t.Fatalf("%d paths (%q), want %d", len(res.Paths), runsOf(res), tc.paths)
			}
			var certain []bool
			for _, p := range res.Paths {
				certain = append(certain, p.Certain)
			}
			if !slices.Equal(certain, tc.certain) {
				t.Errorf("certain %v, want %v", certain, tc.certain)
			}
			var dec []string
			for _, d := range res.Paths[0].Decisions {
				sign := "-"
				if d.Took {
					sign = "+"
				}
				dec = append(dec, sign+d.Text())
			}
			if !slices.Equal(dec, tc.decisions) {
				t.Errorf("decisions %q, want %q", dec, tc.decisions)
			}
			// A certain path's runs were all made with every branch decided.
			for _, p := range res.Paths {
				for _, r := range p.Runs {
					if p.Certain && !r.Certain {
						t.Errorf("run %s uncertain on a certain path", r.Path)
					}
				}
			}
		})
	}
}

// TestDecisionTextIsBounded checks that a decision prints a long test
// shortened, so that evidence stays readable.
func TestDecisionTextIsBounded(t *testing.T) {
	long := strings.Repeat("x", 400)
	res := evalScript(t, nil, `if [ "$V" = "`+long+`" ]; then :; fi`, stdEnv())
	d := res.Paths[0].Decisions
	if len(d) != 1 || d[0].Took {
		t.Fatalf("decisions %+v", d)
	}
	if txt := d[0].Text(); len(txt) != 160 || !strings.HasSuffix(txt, "...") || !strings.HasPrefix(txt, `[ "$V" = "xxx`) {
		t.Errorf("text %q (%d bytes), want 160 bytes ending in ...", txt, len(txt))
	}
	if d[0].At.Line != 1 || d[0].At.File != scriptPath {
		t.Errorf("decision at %v", d[0].At)
	}
}

// TestExits checks the paths that end: a failing exit is an Exit with its
// code and line, exit 0 ends the path quietly, and an exit in a subshell
// or a command substitution ends only that.
func TestExits(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // runPaths
		codes     []string // of the Exits, sorted
	}{
		{"exit with a code", "bash benchmarks/a.sh\nexit 3\nbash benchmarks/sub/b.sh", []string{"benchmarks/a.sh,exit@2"}, []string{"3"}},
		{"exit 0 ends quietly", "exit 0\nbash benchmarks/a.sh", []string{""}, nil},
		{"bare exit ends quietly", "exit\nbash benchmarks/a.sh", []string{""}, nil},
		{"exit of an unknown code", "exit \"$U\"\nbash benchmarks/a.sh", []string{""}, nil},
		{"exit of a variable", "exit $N", []string{"exit@1"}, []string{"4"}},
		{"decided or-exit", "false || exit 2\nbash benchmarks/a.sh", []string{"exit@1"}, []string{"2"}},
		{"skipped or-exit", "true || exit 2\nbash benchmarks/a.sh", []string{"benchmarks/a.sh"}, nil},
		{"undecided or-exit", "[ -n \"$U\" ] || exit 1\nbash benchmarks/a.sh", []string{"benchmarks/a.sh", "exit@1"}, []string{"1"}},
		{"exit in a subshell", "(exit 3)\nbash benchmarks/a.sh", []string{"benchmarks/a.sh"}, nil},
		{"exit in a command substitution", "X=$(exit 3)\nbash benchmarks/a.sh", []string{"benchmarks/a.sh"}, nil},
		{"exit in a pipeline", "exit 3 | cat\nbash benchmarks/a.sh", []string{"benchmarks/a.sh"}, nil},
		{"exit in a function ends the script", "f() { exit 4; }\nf\nbash benchmarks/a.sh", []string{"exit@1"}, []string{"4"}},
		{"exit in a sourced file ends the script", "source lib/fail.sh\nbash benchmarks/a.sh", []string{"exit@2"}, []string{"5"}},
		{"return in a function does not", "f() { return 1; }\nf\nbash benchmarks/a.sh", []string{"benchmarks/a.sh"}, nil},
		{"return in a sourced file does not", "source lib/ret.sh\nbash benchmarks/a.sh", []string{"benchmarks/a.sh"}, nil},
		{"exec ends the script", "exec bash benchmarks/a.sh\nbash benchmarks/sub/b.sh", []string{"benchmarks/a.sh"}, nil},
		{"exit in an undecided branch", "if [ -n \"$U\" ]; then exit 6; fi\nbash benchmarks/a.sh", []string{"benchmarks/a.sh", "exit@1"}, []string{"6"}},
		{"exit in every branch", "if [ -n \"$U\" ]; then exit 6; else exit 7; fi\nbash benchmarks/a.sh", []string{"exit@1"}, []string{"6", "7"}},
	}
	files := withFile(testFiles, "lib/fail.sh", "echo failing\nexit 5\n")
	files["lib/ret.sh"] = "return 0\nexit 9\n"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, files, tc.src, stdEnv())
			if got := runPaths(res); !slices.Equal(got, tc.want) {
				t.Errorf("runs %q, want %q", got, tc.want)
			}
			var codes []string
			for _, p := range res.Paths {
				if p.Exit != nil {
					codes = append(codes, p.Exit.Code)
				}
			}
			slices.Sort(codes)
			if !slices.Equal(codes, tc.codes) {
				t.Errorf("exit codes %q, want %q", codes, tc.codes)
			}
		})
	}
}

// TestLoops checks that a loop body is walked once, whatever the count:
// its runs are kept, what it assigns is unknown afterwards, and its exits
// are paths of their own.
func TestLoops(t *testing.T) {
	cases := []struct {
		name, src string
		runs      []string
		out       string
	}{
		{"for over words", "for s in a b; do bash benchmarks/a.sh; OUT=$s; done", []string{"benchmarks/a.sh"}, unknownValue},
		{"the loop variable is unknown", `for s in benchmarks/a.sh; do bash "$s"; done`, []string{`?"$s"`}, "(unset)"},
		{"a body that assigns the same", "OUT=pre; for i in 1 2; do OUT=pre; done", nil, "pre"},
		{"a body that assigns nothing", "OUT=pre; for i in 1 2; do :; done", nil, "pre"},
		{"a body that changes a value", "OUT=pre; for i in 1; do OUT=x; done", nil, unknownValue},
		{"while", "while false; do bash benchmarks/a.sh; done", []string{"benchmarks/a.sh"}, "(unset)"},
		{"until", "until true; do bash benchmarks/a.sh; done", []string{"benchmarks/a.sh"}, "(unset)"},
		{"while read", "while read -r line; do OUT=$line; done < list", nil, unknownValue},
		{"C-style loop", "for ((i=0; i<3; i++)); do bash benchmarks/a.sh; done", []string{"benchmarks/a.sh"}, "(unset)"},
		{"a loop's exit is a path", "for i in 1 2; do [ -n \"$U\" ] && exit 1; done; OUT=after",
			[]string{"exit@1"}, "after"},
		{"an infinite loop ends", "while true; do sleep 1; done; OUT=after", nil, "after"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, testFiles, tc.src+"\nexport OUT\nbash /__workspace__/probe.sh\n", stdEnv())
			var runs, outs []string
			for _, p := range res.Paths {
				for _, r := range p.Runs {
					switch {
					case r.Path == probeScript:
						outs = append(outs, DescribeValue(r.Env["OUT"]))
					case r.Path != "":
						runs = append(runs, r.Path)
					default:
						runs = append(runs, "?"+r.Text)
					}
				}
				if p.Exit != nil {
					runs = append(runs, "exit@1")
				}
			}
			slices.Sort(runs)
			runs = slices.Compact(runs)
			if !slices.Equal(runs, tc.runs) {
				t.Errorf("runs %q, want %q", runs, tc.runs)
			}
			if !slices.Equal(outs, []string{tc.out}) {
				t.Errorf("OUT after the loop %q, want %q", outs, tc.out)
			}
		})
	}
}
