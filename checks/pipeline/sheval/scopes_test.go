package sheval

import (
	"slices"
	"testing"
)

// TestScopesDoNotLeak checks that what runs in a subshell, a pipeline, the
// background or a command substitution leaves the script's variables and
// working directory alone, while blocks, functions and sourced files share
// them.
func TestScopesDoNotLeak(t *testing.T) {
	cases := []struct {
		name, src string
		want      string
	}{
		{"subshell assignment", `OUT=top; ( OUT=sub )`, "top"},
		{"subshell assignment of an unset variable", `( OUT=sub ); OUT=${OUT:-none}`, "none"},
		{"subshell export", `OUT=top; ( export OUT=sub )`, "top"},
		{"subshell unset", `OUT=top; ( unset OUT )`, "top"},
		{"pipeline left side", `OUT=a; OUT=b | cat`, "a"},
		{"pipeline right side", `OUT=a; echo | OUT=b`, "a"},
		{"background command", `OUT=a; OUT=b &`, "a"},
		{"command substitution", `OUT=a; X=$(OUT=b; echo)`, "a"},
		{"prefix assignment of a builtin", `OUT=a; OUT=b true`, "a"},
		{"prefix assignment of an unset variable", `OUT=b :`, "(unset)"},
		{"prefix assignment of a script run", `OUT=a; OUT=b bash x.sh`, "a"},
		{"a block shares its variables", `{ OUT=blk; }`, "blk"},
		{"a function shares its variables", `f() { OUT=fn; }; f`, "fn"},
		{"an if body shares its variables", `if true; then OUT=then; fi`, "then"},
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

// TestWorkingDirectoryScopes checks that cd changes the directory a
// relative path resolves from, except inside a subshell, and that a
// function's cd is the caller's.
func TestWorkingDirectoryScopes(t *testing.T) {
	files := map[string]string{"benchmarks/a.sh": "", "benchmarks/sub/b.sh": ""}
	cases := []struct {
		name, src string
		want      string
	}{
		{"cd then a relative run", "cd benchmarks\nbash a.sh", "benchmarks/a.sh"},
		{"cd with &&", "cd benchmarks && bash sub/b.sh", "benchmarks/sub/b.sh"},
		{"cd and a climb", "cd benchmarks/sub\nbash ../a.sh", "benchmarks/a.sh"},
		{"cd twice", "cd benchmarks\ncd sub\nbash b.sh", "benchmarks/sub/b.sh"},
		{"cd through the workspace", "cd \"$GITHUB_WORKSPACE/benchmarks\"\nbash a.sh", "benchmarks/a.sh"},
		{"cd in a subshell does not leak", "(cd benchmarks)\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"a run inside the subshell sees its cd", "(cd benchmarks && bash a.sh)", "benchmarks/a.sh"},
		{"cd in a function leaks", "f() { cd benchmarks; }\nf\nbash a.sh", "benchmarks/a.sh"},
		{"cd back to the workspace", "cd benchmarks\ncd \"$GITHUB_WORKSPACE\"\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"cd .. climbs back to the root", "cd benchmarks/sub\ncd ../..\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"cd out of the tree", "cd /tmp\nbash a.sh", "ext:a.sh"},
		{"cd into a directory the tree lacks", "cd nowhere\nbash a.sh", "ext:a.sh"},
		{"cd into a directory the script made", "mkdir -p out\ncd out\nbash a.sh", "ext:a.sh"},
		{"cd to an unknown place", "cd \"$U\"\nbash a.sh", "ext:a.sh"},
		{"cd to an unknown expression", "cd \"$U/x\"\nbash a.sh", "?a.sh"},
		{"an absolute path ignores the directory", "cd /tmp\nbash \"$GITHUB_WORKSPACE/benchmarks/a.sh\"", "benchmarks/a.sh"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, files, tc.src, stdEnv())
			if got := runsOf(res); got != tc.want {
				t.Errorf("%q runs %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// absent marks a variable a run's env must not hold.
const absent = "(absent)"

// TestRunEnv checks the env a run is handed: exported variables only,
// prefix assignments for that command alone, what a sourced file sets,
// and what srun --export and docker -e choose. The job's env has V=v
// (exported), H=hidden (not exported) and an unknown U.
func TestRunEnv(t *testing.T) {
	files := map[string]string{
		"probe.sh":       "",
		"runners/lib.sh": "LIBVAR=fromlib\nexport LIBEXP=yes\nLIBSRC=${BASH_SOURCE[0]}\nLIB0=$0\n",
	}
	cases := []struct {
		name, src string
		want      map[string]string
		passAll   bool
	}{
		{"exported inputs pass, others do not", `bash probe.sh`,
			map[string]string{"V": "v", "U": unknownValue, "H": absent, "GITHUB_WORKSPACE": Workspace}, true},
		{"a plain assignment stays", `A=1; bash probe.sh`, map[string]string{"A": absent}, true},
		{"export passes", `export A=1; bash probe.sh`, map[string]string{"A": "1"}, true},
		{"export of an input that was not exported", `export H; bash probe.sh`, map[string]string{"H": "hidden"}, true},
		{"export then reassign", `A=1; export A; A=2; bash probe.sh`, map[string]string{"A": "2"}, true},
		{"declare -x", `declare -x A=1; bash probe.sh`, map[string]string{"A": "1"}, true},
		{"unset removes an export", `export A=1; unset A; bash probe.sh`, map[string]string{"A": absent}, true},
		{"reassigning an input keeps it exported", `V=w; bash probe.sh`, map[string]string{"V": "w"}, true},
		{"a prefix assignment reaches the command", `A=1 bash probe.sh`, map[string]string{"A": "1"}, true},
		{"a prefix assignment overrides", `V=w bash probe.sh`, map[string]string{"V": "w"}, true},
		{"prefix assignments through a wrapper", `A=1 timeout 5 bash probe.sh`, map[string]string{"A": "1"}, true},
		{"a sourced file's assignments", "source runners/lib.sh\nexport LIBVAR LIBSRC LIB0\nbash probe.sh",
			map[string]string{"LIBVAR": "fromlib", "LIBEXP": "yes", "LIBSRC": Workspace + "/runners/lib.sh", "LIB0": Workspace + "/" + scriptPath}, true},
		{"BASH_SOURCE is restored after source", "source runners/lib.sh\nexport BASH_SOURCE\nbash probe.sh",
			map[string]string{"BASH_SOURCE": "(" + Workspace + "/" + scriptPath + ")"}, true},
		{"bash -c hands on the env", `export A=1; bash -c 'bash probe.sh'`, map[string]string{"A": "1", "V": "v"}, true},
		{"srun --export=NONE", `export A=1; srun --export=NONE bash probe.sh`, map[string]string{"A": absent, "V": absent}, false},
		{"srun --export=list", `export A=1; srun --export=A,B=2 bash probe.sh`, map[string]string{"A": "1", "B": "2", "V": absent}, false},
		{"srun --export=ALL", `export A=1; srun --export=ALL,B=2 bash probe.sh`, map[string]string{"A": "1", "B": "2", "V": "v"}, true},
		{"srun --export of an unknown list", `srun --export="$U" bash probe.sh`, map[string]string{"V": unknownValue}, true},
		{"docker -e", `export A=1; docker run -e A -e B=2 --env=C=3 -v $GITHUB_WORKSPACE:/w img bash /w/probe.sh`,
			map[string]string{"A": "1", "B": "2", "C": "3", "V": absent}, false},
		{"docker -e of an unset variable", `docker run -e MISSING -v $GITHUB_WORKSPACE:/w img bash /w/probe.sh`,
			map[string]string{"MISSING": absent}, false},
		{"docker --env-file", `docker run --env-file x -v $GITHUB_WORKSPACE:/w img bash /w/probe.sh`, map[string]string{"V": unknownValue}, true},
		{"docker -e of an unknown name", `docker run -e "$U" -v $GITHUB_WORKSPACE:/w img bash /w/probe.sh`, map[string]string{"V": unknownValue}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := envOf("V", "v")
			env["U"] = Opaque()
			env["H"] = Value{Str: "hidden", Set: true, Known: true}
			res := evalScript(t, files, tc.src, env)
			r, ok := findRun(res, "probe.sh")
			if !ok {
				t.Fatalf("%s: no run of probe.sh: %q", tc.src, runsOf(res))
			}
			for name, want := range tc.want {
				got := absent
				if v, ok := r.Env[name]; ok && v.Set {
					got = DescribeValue(v)
				}
				if got != want {
					t.Errorf("%s: %s = %q, want %q", tc.src, name, got, want)
				}
			}
			if r.PassAll != tc.passAll {
				t.Errorf("%s: PassAll = %v, want %v", tc.src, r.PassAll, tc.passAll)
			}
		})
	}
}

// TestSubshellRunsCount checks that the runs made inside subshells,
// pipelines, the background and command substitutions are kept although
// their assignments are not.
func TestSubshellRunsCount(t *testing.T) {
	files := map[string]string{"benchmarks/a.sh": ""}
	for _, src := range []string{
		"(bash benchmarks/a.sh)",
		"bash benchmarks/a.sh | tee log",
		"cat x | bash benchmarks/a.sh",
		"bash benchmarks/a.sh &",
		"JOB=$(bash benchmarks/a.sh)",
		"echo \"$(bash benchmarks/a.sh)\"",
		"{ bash benchmarks/a.sh; } > log 2>&1",
		"time bash benchmarks/a.sh",
		"coproc bash benchmarks/a.sh",
		"! bash benchmarks/a.sh",
	} {
		t.Run(src, func(t *testing.T) {
			res := evalScript(t, files, src, Env{})
			if got := runsOf(res); got != "benchmarks/a.sh" {
				t.Errorf("runs %q, want benchmarks/a.sh", got)
			}
		})
	}
}
