package recipe

import "testing"

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
		{
			name: "new docker runner", base: tree(""), head: tree(docker),
			want:    []string{"RN001 " + target + ":2"},
			phrases: []string{"`docker run` (line 2)"},
		},
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
			mustContain(t, "message", fs[0].Message, tc.phrases...)
			mustContain(t, "details", fs[0].Details, `enroot import -o "$SQSH" "docker://${IMAGE}"`)
			if fs[0].Path == target && fs[0].Line == 3 && (fs[0].EndLine != 6 || len(fs[0].Related) != 2) {
				t.Errorf("span %d-%d, evidence %+v", fs[0].Line, fs[0].EndLine, fs[0].Related)
			}
		})
	}
}
