package sheval

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cmdFiles is the tree the command tables resolve runs against.
var cmdFiles = map[string]string{
	"benchmarks/a.sh":      "#!/bin/bash\n",
	"benchmarks/sub/b.sh":  "#!/bin/bash\n",
	"benchmarks/r/x.yaml":  "name: x\n",
	"runners/lib.sh":       "LIBVAR=fromlib\nlibfn() { bash benchmarks/a.sh; }\n",
	"runners/ret.sh":       "RV=1\nreturn\nRV=2\n",
	"runners/self.sh":      "source runners/self.sh\n",
	"runners/choose.sh":    "S=benchmarks/sub/b.sh\n",
	"runners/bad.sh":       "if then fi (\n",
	"runners/nested/in.sh": "source ../lib.sh\n",
}

// TestCommandRuns checks which file each kind of command runs, as
// runPaths shows it: a tree path, "ext:" and the word for a file outside
// the tree, "?" and the word when the bot cannot tell.
func TestCommandRuns(t *testing.T) {
	cases := []struct {
		name, src string
		want      string
	}{
		// Shells.
		{"bash", "bash benchmarks/a.sh", "benchmarks/a.sh"},
		{"sh with options", "sh -x -e benchmarks/a.sh", "benchmarks/a.sh"},
		{"bash -o takes a value", "bash -o pipefail benchmarks/a.sh", "benchmarks/a.sh"},
		{"a shell by path", "/bin/bash benchmarks/a.sh", "benchmarks/a.sh"},
		{"script arguments are not runs", "bash benchmarks/a.sh benchmarks/sub/b.sh", "benchmarks/a.sh"},
		{"a shell without a script", "bash", ""},
		{"an absolute path outside the tree", "bash /opt/x.sh", "ext:/opt/x.sh"},
		{"a path that climbs out of the tree", "bash ../x.sh", "ext:../x.sh"},
		{"an unknown script", `bash "$U"`, `?"$U"`},
		{"a script from a variable", "S=benchmarks/a.sh\nbash \"$S\"", "benchmarks/a.sh"},
		{"a script built in steps", "S=benchmarks\nS=$S/a.sh\nbash \"$S\"", "benchmarks/a.sh"},
		{"a script next to this one", `bash "$(dirname "$0")/../benchmarks/a.sh"`, "benchmarks/a.sh"},
		{"a missing script is still a tree path", "bash benchmarks/missing.sh", "benchmarks/missing.sh"},
		{"an unknown command output", "S=$(find . -name x)\nbash \"benchmarks/$S.sh\"", `?"benchmarks/$S.sh"`},

		// bash -c
		{"bash -c", `bash -c "bash benchmarks/a.sh"`, "benchmarks/a.sh"},
		{"bash -c expands outer variables", "S=benchmarks/a.sh\nbash -c \"bash $S\"", "benchmarks/a.sh"},
		{"bash -c of an exported variable", "export S=benchmarks/a.sh\nbash -c 'bash $S'", "benchmarks/a.sh"},
		{"bash -c with cd", `bash -c "cd benchmarks && bash a.sh"`, "benchmarks/a.sh"},
		{"bash -c under srun", `srun --jobid=1 bash -c 'bash benchmarks/a.sh'`, "benchmarks/a.sh"},
		{"nested bash -c", `bash -c 'bash -c "bash benchmarks/a.sh"'`, "benchmarks/a.sh"},
		{"bash -c of an unparsable script", `bash -c 'if then'`, ""},
		{"bash -c of an unknown script", `bash -c "$U"`, ""},

		// exec and wrappers.
		{"exec", "exec bash benchmarks/a.sh\nbash benchmarks/sub/b.sh", "benchmarks/a.sh"},
		{"exec with redirections only", "exec > log 2>&1\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"timeout", "timeout 10 bash benchmarks/a.sh", "benchmarks/a.sh"},
		{"nohup in the background", "nohup bash benchmarks/a.sh > log &", "benchmarks/a.sh"},
		{"env", "env FOO=1 bash benchmarks/a.sh", "benchmarks/a.sh"},
		{"srun with a script", "srun --jobid=1 benchmarks/a.sh", "benchmarks/a.sh"},
		{"srun option values are not scripts", "srun --output=benchmarks/a.sh true", ""},
		{"sbatch", "sbatch --wrap x benchmarks/a.sh", "benchmarks/a.sh"},
		{"a program that is no wrapper", "python3 benchmarks/a.sh", ""},
		{"echo is no run", "echo benchmarks/a.sh", ""},
		{"a run through a function", "run() { bash \"$1\"; }\nrun benchmarks/a.sh", "benchmarks/a.sh"},
		{"a run through two functions", "inner() { bash \"$1\"; }\nouter() { inner \"$1\"; }\nouter benchmarks/sub/b.sh", "benchmarks/sub/b.sh"},
		{"a spliced command", "CMD=(bash benchmarks/a.sh)\n\"${CMD[@]}\"", "benchmarks/a.sh"},
		{"eval is not followed", `eval "bash benchmarks/a.sh"`, ""},

		// docker
		{"docker with a mount and a workdir", `docker run -v "$GITHUB_WORKSPACE:/w" -w /w img bash benchmarks/a.sh`, "benchmarks/a.sh"},
		{"docker with a relative workdir path", `docker run -v "$GITHUB_WORKSPACE:/w" -w /w/benchmarks img bash sub/b.sh`, "benchmarks/sub/b.sh"},
		{"docker without a workdir", `docker run -v "$GITHUB_WORKSPACE:/w" img bash benchmarks/a.sh`, "?benchmarks/a.sh"},
		{"docker through the mount", `docker run -v "$GITHUB_WORKSPACE:/w:ro" img bash /w/benchmarks/a.sh`, "benchmarks/a.sh"},
		{"docker long options", `docker run --volume="$GITHUB_WORKSPACE:/w" --workdir=/w img benchmarks/a.sh`, "benchmarks/a.sh"},
		{"docker path of the image", `docker run img bash /w/benchmarks/a.sh`, "ext:/w/benchmarks/a.sh"},
		{"docker path no mount covers", `docker run -v "$GITHUB_WORKSPACE:/w" img bash /opt/a.sh`, "ext:/opt/a.sh"},
		{"docker with an unknown mount", `docker run -v $U:/w img bash /w/benchmarks/a.sh`, "?/w/benchmarks/a.sh"},
		{"docker with an unknown workdir", `docker run -w "$U" -v "$GITHUB_WORKSPACE:/x" img bash /x/benchmarks/a.sh`, "?/x/benchmarks/a.sh"},
		{"docker with an unknown container side", `docker run -v "/data:$U" img bash /x/benchmarks/a.sh`, "?/x/benchmarks/a.sh"},
		{"srun container mounts", `srun --container-image=i --container-mounts=$GITHUB_WORKSPACE:/workspace --container-workdir=/workspace bash benchmarks/a.sh`, "benchmarks/a.sh"},
		{"srun in a container without mounts", `srun --container-image=i bash /workspace/benchmarks/a.sh`, "ext:/workspace/benchmarks/a.sh"},

		// srtctl
		{"srtctl -f", "srtctl apply -f benchmarks/r/x.yaml", "benchmarks/r/x.yaml"},
		{"srtctl --file", "srtctl apply --file benchmarks/r/x.yaml", "benchmarks/r/x.yaml"},
		{"srtctl override selector", "srtctl apply -f benchmarks/r/x.yaml:override[1]", "benchmarks/r/x.yaml"},
		{"srtctl without a file", "srtctl status", ""},

		// source and .
		{"source", "source runners/lib.sh\nlibfn", "benchmarks/a.sh"},
		{"dot", ". runners/lib.sh\nlibfn", "benchmarks/a.sh"},
		{"source next to the script", ". \"$(dirname \"$0\")/lib.sh\"\nlibfn", "benchmarks/a.sh"},
		{"source sets variables", "source runners/choose.sh\nbash \"$S\"", "benchmarks/sub/b.sh"},
		{"source relative to the working directory", "cd runners\nsource choose.sh\ncd ..\nbash \"$S\"", "benchmarks/sub/b.sh"},
		{"a missing sourced file", "source runners/missing.sh\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"an unparsable sourced file", "source runners/bad.sh\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"an unknown sourced file", "source \"$U\"\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"a file that sources itself", "source runners/self.sh\nbash benchmarks/a.sh", "benchmarks/a.sh"},
		{"return ends the sourced file", "source runners/ret.sh\nexport RV\nbash benchmarks/a.sh", "benchmarks/a.sh"},

		// cp into another checkout
		{"cp -r into a clone", "cp -r \"$GITHUB_WORKSPACE/benchmarks/r\" /tmp/clone/r\nsrtctl apply -f /tmp/clone/r/x.yaml", "benchmarks/r/x.yaml"},
		{"cp -r into a directory made before", "mkdir -p /tmp/c\ncp -r benchmarks/r /tmp/c\nsrtctl apply -f /tmp/c/r/x.yaml", "benchmarks/r/x.yaml"},
		{"cp -rT", "mkdir -p /tmp/c\ncp -rT benchmarks/r /tmp/c\nsrtctl apply -f /tmp/c/x.yaml", "benchmarks/r/x.yaml"},
		{"cp of one file", "cp benchmarks/a.sh /tmp/run.sh\nbash /tmp/run.sh", "benchmarks/a.sh"},
		{"rsync", "rsync -a benchmarks/ /tmp/b\nbash /tmp/b/a.sh", "benchmarks/a.sh"},
		{"a copy then cd into it", "cp -r benchmarks/r /tmp/c\ncd /tmp/c\nsrtctl apply -f x.yaml", "benchmarks/r/x.yaml"},
		{"cp of something outside the tree", "cp -r /opt/r /tmp/c\nsrtctl apply -f /tmp/c/x.yaml", "ext:/tmp/c/x.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := envOf("V", "v")
			env["U"] = Opaque()
			res := evalScript(t, cmdFiles, tc.src, env)
			if got := runsOf(res); got != tc.want {
				t.Errorf("%q runs %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestRunDetails checks the evidence a run carries: its kind, the word as
// written or expanded, its line, the lines its variables were assigned
// at, whether it is outside the tree or reached through a copy, and the
// job's inputs its word was computed from.
func TestRunDetails(t *testing.T) {
	cases := []struct {
		name, src string
		want      Run // Env is not compared
	}{
		{"a literal script", "\n\nbash benchmarks/a.sh",
			Run{Kind: RunScript, Path: "benchmarks/a.sh", Text: "benchmarks/a.sh", Known: true, At: Loc{scriptPath, 3}, PassAll: true, Certain: true}},
		{"a recipe", "srtctl apply -f benchmarks/r/x.yaml:o",
			Run{Kind: RunRecipe, Path: "benchmarks/r/x.yaml", Text: "benchmarks/r/x.yaml:o", Known: true, At: Loc{scriptPath, 1}, PassAll: true, Certain: true}},
		{"from an assignment of an input", "S=\"benchmarks/$TP.sh\"\nbash \"$S\"",
			Run{Kind: RunScript, Path: "benchmarks/8.sh", Text: "benchmarks/8.sh", Known: true, At: Loc{scriptPath, 2},
				From: []Loc{{scriptPath, 1}}, PassAll: true, Certain: true, Inputs: []string{"TP"}}},
		{"through a trimmed form", `bash "benchmarks/${EXP_NAME%%_*}.sh"`,
			Run{Kind: RunScript, Path: "benchmarks/dsr1.sh", Text: "benchmarks/dsr1.sh", Known: true, At: Loc{scriptPath, 1},
				PassAll: true, Certain: true, Inputs: []string{"EXP_NAME%%_*"}}},
		{"outside the tree", "bash /opt/x.sh",
			Run{Kind: RunScript, Text: "/opt/x.sh", Known: true, At: Loc{scriptPath, 1}, External: true, PassAll: true, Certain: true}},
		{"an unknown word", "bash \"$U\"",
			Run{Kind: RunScript, Text: `"$U"`, At: Loc{scriptPath, 1}, PassAll: true, Certain: true, Inputs: []string{"U"}}},
		{"after an undecided test", "[ -n \"$U\" ] && bash benchmarks/a.sh",
			Run{Kind: RunScript, Path: "benchmarks/a.sh", Text: "benchmarks/a.sh", Known: true, At: Loc{scriptPath, 1}, PassAll: true}},
		{"through a copy", "cp -r benchmarks/r /tmp/c\nsrtctl apply -f /tmp/c/x.yaml",
			Run{Kind: RunRecipe, Path: "benchmarks/r/x.yaml", Text: "/tmp/c/x.yaml", Known: true, At: Loc{scriptPath, 2}, Copied: true, PassAll: true, Certain: true}},
		{"docker -e gives a list", "docker run -e TP -v $GITHUB_WORKSPACE:/w img bash /w/benchmarks/a.sh",
			Run{Kind: RunScript, Path: "benchmarks/a.sh", Text: "/w/benchmarks/a.sh", Known: true, At: Loc{scriptPath, 1}, Certain: true}},
		{"bash -c keeps the outer line", "echo\nbash -c 'echo\nbash benchmarks/a.sh'",
			Run{Kind: RunScript, Path: "benchmarks/a.sh", Text: "benchmarks/a.sh", Known: true, At: Loc{scriptPath, 3}, PassAll: true, Certain: true}},
		{"in a sourced file", "source runners/lib.sh\nlibfn",
			Run{Kind: RunScript, Path: "benchmarks/a.sh", Text: "benchmarks/a.sh", Known: true, At: Loc{"runners/lib.sh", 2}, PassAll: true, Certain: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := envOf("TP", "8", "EXP_NAME", "dsr1_1k")
			env["U"] = Opaque()
			res := evalScript(t, cmdFiles, tc.src, env)
			if len(res.Paths) != 1 || len(res.Paths[0].Runs) != 1 {
				t.Fatalf("runs %q, want one", runsOf(res))
			}
			r := res.Paths[0].Runs[0]
			r.Env = nil
			w := tc.want
			if r.Kind != w.Kind || r.Path != w.Path || r.Text != w.Text || r.Known != w.Known || r.At != w.At ||
				r.External != w.External || r.Copied != w.Copied || r.PassAll != w.PassAll || r.Certain != w.Certain ||
				!slices.Equal(r.From, w.From) || !slices.Equal(r.Inputs, w.Inputs) {
				t.Errorf("run\n got %+v\nwant %+v", r, w)
			}
			if got := r.Kind.String(); got != map[RunKind]string{RunScript: "script", RunRecipe: "recipe"}[w.Kind] {
				t.Errorf("kind prints %q", got)
			}
		})
	}
}

// TestRequirements checks what a path requires and lacks: ${X:?} and
// ${X?}, check_env_vars, and bare $X under set -u, with where each is and
// whether every branch on the way was decided; and Result.Checks, every
// variable checked, set or not.
func TestRequirements(t *testing.T) {
	cases := []struct {
		name, src string
		reqs      []string
		checks    []string
	}{
		{":? of an unset variable", `echo "${NOPE:?}"`, []string{"NOPE ${NOPE:?}"}, []string{"NOPE"}},
		{":? of an empty variable", `echo "${E:?}"`, []string{"E ${E:?}"}, []string{"E"}},
		{":? of a set variable", `echo "${V:?}"`, nil, []string{"V"}},
		{"? of an empty variable is met", `echo "${E?}"`, nil, []string{"E"}},
		{"? of an unset variable", `echo "${NOPE?}"`, []string{"NOPE ${NOPE?}"}, []string{"NOPE"}},
		{":? of an unknown variable is met", `: "${U:?}"`, nil, []string{"U"}},
		{":? of a runner variable is met", `: "${SLURM_JOB_ID:?}"`, nil, []string{"SLURM_JOB_ID"}},
		{"a variable the script sets first", "X=1\n: \"${X:?}\"", nil, []string{"X"}},
		{"once per path", "echo \"${NOPE:?}\"\necho \"${NOPE:?}\"", []string{"NOPE ${NOPE:?}"}, []string{"NOPE"}},
		{"check_env_vars", `check_env_vars V E NOPE U`, []string{"E check_env_vars", "NOPE check_env_vars"}, []string{"E", "NOPE", "U", "V"}},
		{"check_env_vars of a prefix assignment", `X=1 check_env_vars X`, nil, []string{"X"}},
		{"check_env_vars of an unknown name", `check_env_vars "$U"`, nil, nil},
		{"set -u", "set -u\necho $NOPE", []string{"NOPE $NOPE under set -u"}, nil},
		{"set -o nounset", "set -o nounset\necho $NOPE $HOME", []string{"NOPE $NOPE under set -u"}, nil},
		{"set -eu", "set -eu\necho \"$NOPE\"", []string{"NOPE $NOPE under set -u"}, nil},
		{"set +u turns it off", "set -u\nset +u\necho $NOPE", nil, nil},
		{"a default is no requirement", "set -u\necho ${NOPE:-x}", nil, nil},
		{"a runner variable under set -u", "set -u\necho $SLURM_JOB_ID", nil, nil},
		{"a requirement in a function", "f() { : \"${NOPE:?}\"; }\nf", []string{"NOPE ${NOPE:?}"}, []string{"NOPE"}},
		{"a requirement in a command substitution", "X=$(echo \"${NOPE:?}\")", []string{"NOPE ${NOPE:?}"}, []string{"NOPE"}},
		{"a requirement in a skipped branch", "if false; then : \"${NOPE:?}\"; fi", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, nil, tc.src, stdEnv())
			if got := reqsOf(res); !slices.Equal(got, tc.reqs) {
				t.Errorf("requirements %q, want %q", got, tc.reqs)
			}
			if got := sortedKeys(res.Checks); !slices.Equal(got, tc.checks) && (len(got) > 0 || len(tc.checks) > 0) {
				t.Errorf("checks %q, want %q", got, tc.checks)
			}
		})
	}
}

// TestRequirementEvidence checks a requirement's line and certainty.
func TestRequirementEvidence(t *testing.T) {
	res := evalScript(t, nil, "echo start\nif [ -n \"$U\" ]; then\n  : \"${NOPE:?}\"\nfi\ncheck_env_vars MISSING\n", stdEnv())
	if len(res.Paths) != 1 {
		t.Fatalf("%d paths", len(res.Paths))
	}
	got := map[string]Req{}
	for _, r := range res.Paths[0].Reqs {
		got[r.Var] = r
	}
	if r := got["NOPE"]; r.At.Line != 3 || r.Certain {
		t.Errorf("NOPE required at %v certain %v, want line 3, uncertain (under an undecided test)", r.At, r.Certain)
	}
	if r := got["MISSING"]; r.At.Line != 5 || r.How != "check_env_vars" {
		t.Errorf("MISSING: %+v", r)
	}
	if c := res.Checks["NOPE"]; c.At.Line != 3 || c.How != "${NOPE:?}" {
		t.Errorf("check of NOPE: %+v", c)
	}
}

// TestEffects checks which inputs reach a program's arguments (a server,
// a client): not those only printed, and through variables and arrays.
func TestEffects(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"a server argument", `vllm serve --tp "$TP"`, []string{"TP"}},
		{"printed only", `echo "$TP"`, nil},
		{"printf only", `printf '%s' "$TP"`, nil},
		{"through a variable", "S=\"--tp $TP\"\nserver $S", []string{"TP"}},
		{"through an array", "CMD=(srv --tp \"$TP\")\n\"${CMD[@]}\"", []string{"TP"}},
		{"a trimmed input", `python3 x.py --m "${MODEL%%/*}"`, []string{"MODEL"}},
		{"an unset variable", `server --x "$NOPE"`, []string{"NOPE"}},
		{"a literal argument", `server --port 8000`, nil},
		{"a script run is no program", `bash "benchmarks/$TP.sh"`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := evalScript(t, nil, tc.src, envOf("TP", "8", "MODEL", "org/m"))
			if got := sortedKeys(res.Effects); !slices.Equal(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("effects %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSourcesAndQueries checks what a result records of the tree: the
// blobs of the files parsed, and the lookups that decided tests and cd.
func TestSourcesAndQueries(t *testing.T) {
	res := evalScript(t, cmdFiles, "source runners/lib.sh\n[ -d nowhere ] || true\n[ -f benchmarks/a.sh ] && cd benchmarks/sub\n", Env{})
	if got := sortedKeys(res.Sources); !slices.Equal(got, []string{"runners/lib.sh", scriptPath}) {
		t.Errorf("sources %q", got)
	}
	for p, id := range res.Sources {
		if len(id) != 40 {
			t.Errorf("source %s has blob %q, want a 40-digit id", p, id)
		}
	}
	want := map[string]Stat{"benchmarks/a.sh": {Exists: true}, "benchmarks/sub": {Exists: true, Dir: true}, "nowhere": {}}
	if len(res.Queries) != len(want) {
		t.Errorf("queries %v, want %v", res.Queries, want)
	}
	for p, s := range want {
		if got, ok := res.Queries[p]; !ok || got != s {
			t.Errorf("query %s = %+v %v, want %+v", p, got, ok, s)
		}
	}
	// The same script with a changed tree answers differently.
	res = evalScript(t, withFile(cmdFiles, "benchmarks/a.sh", "changed\n"), "source runners/lib.sh\n", Env{})
	if res.Sources["runners/lib.sh"] == "" || res.Sources[scriptPath] == "" {
		t.Errorf("sources %v", res.Sources)
	}
}

// TestRunAndRunFileAgree checks that evaluating a parsed file gives what
// evaluating it by path does, and that a file that does not parse or does
// not exist is an error of Run.
func TestRunAndRunFileAgree(t *testing.T) {
	src := "if [ \"$V\" = v ]; then bash benchmarks/a.sh; else exit 2; fi\n"
	byPath := evalScript(t, cmdFiles, src, envOf("V", "v"))
	f, err := ParseShell(scriptPath, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ev := &Eval{Files: evalFilesOf(t, cmdFiles)}
	parsed := ev.RunFile(scriptPath, f, envOf("V", "v"))
	if a, b := runsOf(byPath), runsOf(parsed); a != b || a != "benchmarks/a.sh" {
		t.Errorf("Run gives %q, RunFile %q", a, b)
	}
	for _, p := range []string{"runners/bad.sh", "runners/none.sh"} {
		if _, err := ev.Run(p, Env{}); err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(strings.TrimPrefix(p, "runners/"), ".sh")) {
			t.Errorf("Run(%s) error %v, want one naming the file", p, err)
		}
	}
}

// TestLongLaunchersStayFast checks that a launcher of many independent
// undecided tests and many runs is evaluated at once, in one joined path.
func TestLongLaunchersStayFast(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		n := strconv.Itoa(i)
		b.WriteString("if [[ \"$U\" == " + n + " ]]; then S" + n + "=a; fi\n")
		b.WriteString("[ -f benchmarks/a.sh ] && bash benchmarks/a.sh\n")
	}
	res := evalScript(t, cmdFiles, b.String(), stdEnv())
	if len(res.Paths) != 1 {
		t.Fatalf("%d paths, want the undecided tests joined into one", len(res.Paths))
	}
	runs := res.Paths[0].Runs
	if len(runs) != 300 || runs[0].Path != "benchmarks/a.sh" || runs[299].At.Line != 600 {
		t.Errorf("%d runs, want 300 of benchmarks/a.sh, the last at line 600", len(runs))
	}
	if res.Incomplete {
		t.Error("incomplete")
	}
}
