package recipe

import (
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
	"mvdan.cc/sh/v3/syntax"

	"strings"
	"testing"
)

func TestSH024(t *testing.T) {
	const runner = "runners/launch_mi300x-amds-srt.sh"
	const setup = "#!/usr/bin/env bash\nset -euo pipefail\n" +
		"srun --ntasks-per-node=1 bash -c '\n  set -euo pipefail\n  mkdir -p \"$DIR\"\n'\n"
	const fetch = "PAYLOAD=$(srun --nodes=1 bash -c \"tar -C '${RESULTS}/${JOB_ID}' -czf - . | base64 -w0\")\n"
	batch := "#!/usr/bin/env bash\nset -euo pipefail\ncat > job.sbatch <<EOF\n#!/bin/bash\n" +
		"srun bash -c '\n  set -euo pipefail\n  echo \"\\${SLURM_JOB_ID}\"\n'\nEOF\n"
	tests := []struct {
		name       string
		base, head string
		want       []string
		phrases    []string
	}{
		{name: "a pipe without pipefail next to a script with it", head: setup + fetch,
			want:    []string{"SH024 " + runner + ":7"},
			phrases: []string{"pipes `tar` into `base64` without pipefail", "The embedded script on line 3 turns pipefail on"}},
		{name: "the script turns it on", head: setup + strings.Replace(fetch, `"tar`, `"set -o pipefail; tar`, 1)},
		{name: "bash -o pipefail -c", head: setup + strings.Replace(fetch, "bash -c", "bash -o pipefail -c", 1)},
		{name: "no embedded script sets it: no convention to hold it to", head: "#!/usr/bin/env bash\nset -euo pipefail\n" + fetch},
		{name: "failure waved through", head: setup + "srun bash -c \"docker ps -q | xargs -r docker rm -f\" || true\n"},
		{name: "no pipeline", head: setup + "srun bash -c \"rm -rf '$DIR'\"\n"},
		{name: "an old line the PR does not touch", base: setup + fetch, head: strings.Replace(setup, "mkdir -p", "mkdir -vp", 1) + fetch},
		{name: "the convention in a batch script the launcher writes", head: batch + fetch,
			want:    []string{"SH024 " + runner + ":10"},
			phrases: []string{"on line 5 turns pipefail on"}},
		{name: "a script file, not a string", head: setup + "srun bash ./fetch.sh -c x | base64\n"},
		{name: "the pipe on a later line of the script", head: setup + "srun bash -c '\n  cd /x\n  tar -czf - . | base64\n'\n",
			want: []string{"SH024 " + runner + ":9"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{}
			if tc.base != "" {
				base[runner] = tc.base
			}
			fs := reviewRule(t, SH024, base, map[string]string{runner: tc.head})
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
			}
		})
	}
}

func TestWordScript(t *testing.T) {
	tests := []struct{ in, want string }{
		{`'a | b'`, "a | b"},
		{`"tar -C '${R}/${J}' | base64"`, "tar -C '${R}/${J}' | base64"},
		{`"echo \"x\" \$HOME \\ done"`, `echo "x" $HOME \ done`},
		{`"a $(date) b"`, "a $(date) b"},
	}
	for _, tc := range tests {
		f := parseWord(t, tc.in)
		got, ok := wordScript(f)
		if !ok || got != tc.want {
			t.Errorf("wordScript(%s) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func parseWord(t *testing.T, s string) *syntax.Word {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader("x "+s+"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	return f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
}

// FuzzEmbeddedScripts: whatever a script holds, reading its embedded
// scripts neither panics nor returns more than the bound, and every
// finding line is a line of the file.
func FuzzEmbeddedScripts(f *testing.F) {
	for _, s := range []string{
		"srun bash -c 'set -o pipefail; a | b'\n",
		"X=$(bash -c \"tar -C '${R}' -czf - . | base64 -w0\")\n",
		"cat > j.sbatch <<EOF\nsrun bash -c '\n  set -euo pipefail\n  a | b\n'\nEOF\n",
		"bash -o pipefail -c \"$CMD\" || true\n",
		"sh -c \"a \\\" | b\" ; bash -lc 'x |& y'\n",
		"bash -c $'a | b'\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := script.ParseScript("x.sh", []byte(src), false)
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		es := embeddedScripts("x.sh", file)
		if len(es) > maxEmbeddedScripts {
			t.Fatalf("%d embedded scripts, bound %d", len(es), maxEmbeddedScripts)
		}
		for _, e := range es {
			if e.pipe != nil && (e.pipeLine < 1 || e.pipeLine > lines+1) {
				t.Fatalf("pipeline line %d outside the file's %d lines", e.pipeLine, lines)
			}
		}
	})
}
