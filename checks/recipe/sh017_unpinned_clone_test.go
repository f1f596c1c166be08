package recipe

import (
	"strconv"
	"strings"
	"testing"
)

const lmcacheRecipe = `#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"
case "$KV_BACKEND" in
    native)
        EXTRA=(--kv_offloading_backend native)
        ;;
    lmcache)
        git clone https://github.com/LMCache/LMCache.git
        cd LMCache
        pip install -e . --no-build-isolation
        cd ..
        ;;
esac
vllm serve "$MODEL" --port "$PORT" "${EXTRA[@]}" &
`

func TestSH017(t *testing.T) {
	const target = agenticDir + "minimaxm3_fp4_mi355x.sh"
	const sibling = agenticDir + "dsv4_fp4_mi355x.sh"
	pinnedSib := edit(t, lmcacheRecipe, "        cd LMCache\n", "        cd LMCache\n        git checkout 9229067cec0b3a63bb8a39368d101db7ac0bc3c1\n")
	base := map[string]string{sibling: pinnedSib}
	with := func(files map[string]string, p, s string) map[string]string {
		out := map[string]string{p: s}
		for k, v := range files {
			out[k] = v
		}
		return out
	}
	const runner = "runners/launch_gb300-nv.sh"
	runnerSrc := "#!/usr/bin/env bash\nSRT_REPO_DIR=srt-slurm\ngit clone https://github.com/NVIDIA/srt-slurm.git \"$SRT_REPO_DIR\"\ncd \"$SRT_REPO_DIR\"\n"
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		// evidence is the pinned clone of the same repository cited,
		// other the pinned clone of another one.
		evidence, other string
	}{
		{name: "new recipe clones without a pin", base: base, head: with(base, target, lmcacheRecipe),
			want: []string{"SH017 " + target + ":9"}, evidence: sibling + ":9"},
		{name: "pinned by a checkout after the clone", base: base, head: with(base, target, pinnedSib)},
		{name: "pinned on the clone", base: base,
			head: with(base, target, edit(t, lmcacheRecipe, "git clone https", "git clone --branch v0.3.9 https"))},
		{name: "a checkout before the next clone pins only that one", base: base,
			head: with(base, target, edit(t, pinnedSib, "        git clone https://github.com/LMCache/LMCache.git\n",
				"        git clone https://github.com/kvcache-ai/Mooncake.git\n        git clone https://github.com/LMCache/LMCache.git\n")),
			want: []string{"SH017 " + target + ":9"}, other: sibling + ":9"},
		{name: "clone the PR did not write", base: with(base, target, lmcacheRecipe),
			head: with(base, target, edit(t, lmcacheRecipe, "--port \"$PORT\"", "--port 8000"))},
		{name: "runner launcher", base: map[string]string{runner: "#!/usr/bin/env bash\necho hi\n"},
			head: map[string]string{runner: runnerSrc}, want: []string{"SH017 " + runner + ":3"}},
		{name: "a comment says the default branch is meant", base: map[string]string{runner: "#!/usr/bin/env bash\necho hi\n"},
			head: map[string]string{runner: strings.Replace(runnerSrc, "git clone", "# Stay on srt-slurm main (the default branch).\ngit clone", 1)}},
		{name: "a comment about something else", base: map[string]string{runner: "#!/usr/bin/env bash\necho hi\n"},
			head: map[string]string{runner: strings.Replace(runnerSrc, "git clone", "# The recipes are overlaid below.\ngit clone", 1)},
			want: []string{"SH017 " + runner + ":4"}},
		{name: "runner launcher pinned with git -C", base: map[string]string{runner: "#!/usr/bin/env bash\necho hi\n"},
			head: map[string]string{runner: runnerSrc + "git -C \"$SRT_REPO_DIR\" checkout v1.0.50\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH017, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, "default branch", "--branch <tag>", "git checkout <commit>")
				got := ""
				for _, r := range f.Related {
					got += r.Path + ":" + strconv.Itoa(r.Line) + " "
				}
				switch {
				case tc.evidence != "" && (!strings.Contains(got, tc.evidence) || !strings.Contains(f.Body, "pins the same repository")):
					t.Errorf("evidence %q, body %q; want %s, the same repository", got, f.Body, tc.evidence)
				case tc.other != "" && (!strings.Contains(got, tc.other) || !strings.Contains(f.Body, "pins another clone")):
					t.Errorf("evidence %q, body %q; want %s, another clone", got, f.Body, tc.other)
				case tc.evidence == "" && tc.other == "" && got != "":
					t.Errorf("evidence %q where no sibling pins a clone", got)
				}
			}
		})
	}
}
