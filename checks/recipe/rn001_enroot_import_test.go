package recipe

import (
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

const importRunner = `#!/usr/bin/env bash
set -euo pipefail
SQSH="/shared/$(echo "$IMAGE" | tr '/:#@' '____').sqsh"
if [ ! -f "$SQSH" ]; then
    enroot import -o "$SQSH" "docker://${IMAGE}"
fi
srun \
    --nodes=1 \
    --container-image="$SQSH" \
    bash "/workspace/$RECIPE"
`

func TestRN001(t *testing.T) {
	const target = "runners/launch_t.sh"
	pull := "#!/usr/bin/env bash\nset -euo pipefail\nsrun \\\n    --nodes=1 \\\n    --container-image=\"$IMAGE\" \\\n    bash \"/workspace/$RECIPE\"\n"
	docker := "#!/usr/bin/env bash\ndocker run --rm --gpus all \"$IMAGE\" bash \"/workspace/$RECIPE\"\n"
	nested := `#!/usr/bin/env bash
set -euo pipefail
SQUASH_FILE="/raid/cache/$(echo "$IMAGE" | sed 's/[\/:@#]/_/g').sqsh"
srun --jobid="$JOB_ID" bash -c "
    mkdir -p /raid/cache
    exec 9>\"$SQUASH_FILE.lock\"
    flock -w 600 9
    if [ ! -f \"$SQUASH_FILE\" ]; then
        enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
    fi
"
srun --jobid="$JOB_ID" --container-image=$SQUASH_FILE bash "/workspace/$RECIPE"
`
	nestedPull := "#!/usr/bin/env bash\nset -euo pipefail\nsrun --jobid=\"$JOB_ID\" bash -c \"\n    srun --container-image=$IMAGE bash /workspace/$RECIPE\n\"\n"
	sqshPath := "#!/usr/bin/env bash\nsrun --container-image=/shared/images/vllm-nightly.sqsh bash \"/workspace/$RECIPE\"\n"
	tree := func(tgt string) map[string]string {
		m := map[string]string{"runners/launch_a.sh": importRunner, "runners/launch_b.sh": importRunner}
		if tgt != "" {
			m[target] = tgt
		}
		return m
	}
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    []string
	}{
		{
			name: "import removed", base: tree(importRunner), head: tree(pull),
			want:    []string{"RN001 " + target + ":3"},
			phrases: []string{"`--container-image=$IMAGE` (line 3)", "The other runners (2 of 2) import it once"},
		},
		// docker keeps pulled images in its per-node cache.
		{name: "new docker runner", base: tree(""), head: tree(docker)},
		// The import runs on the node, inside the string srun hands bash.
		{name: "import inside srun bash -c", base: tree(""), head: tree(nested)},
		{
			name: "pull inside srun bash -c", base: tree(""), head: tree(nestedPull),
			want:    []string{"RN001 " + target + ":4"},
			phrases: []string{"`--container-image=$IMAGE` (line 4)"},
		},
		// The squashfs was imported elsewhere; nothing is pulled here.
		{name: "squashfs path", base: tree(""), head: tree(sqshPath)},
		{name: "import kept", base: tree(importRunner), head: tree(edit(t, importRunner, "--nodes=1", "--nodes=2"))},
		{name: "old runner without import, other edit", base: tree(pull), head: tree(edit(t, pull, "--nodes=1", "--nodes=2"))},
		{name: "not a runner", base: map[string]string{"tools/x.sh": importRunner}, head: map[string]string{"tools/x.sh": pull}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, RN001, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if len(fs) == 0 {
				return
			}
			mustContain(t, "message", fs[0].Body, tc.phrases...)
			mustContain(t, "details", fs[0].Reasoning(), `enroot import -o "$SQSH" "docker://${IMAGE}"`)
			if fs[0].Path == target && fs[0].Line == 3 && (fs[0].EndLine != 6 || len(fs[0].Related) != 2) {
				t.Errorf("span %d-%d, evidence %+v", fs[0].Line, fs[0].EndLine, fs[0].Related)
			}
		})
	}
}

func TestNestedShellImages(t *testing.T) {
	src := "#!/usr/bin/env bash\nsrun --jobid=\"$JOB_ID\" \\\n  bash -lc \"\n    if [ ! -f \\\"$SQSH\\\" ]; then\n        enroot import -o \\\"$SQSH\\\" docker://$IMAGE\n    fi\n\"\nsrun bash -c 'not shell (('\n"
	f, err := script.Parse("runners/launch_x.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	imps := enrootImports(f)
	if len(imps) != 1 || imps[0].Line != 5 || imps[0].Ref != "docker://$IMAGE" {
		t.Fatalf("enroot imports = %+v, want one on line 5 of docker://$IMAGE", imps)
	}
}
