package recipe

import "testing"

func TestSH011(t *testing.T) {
	const target = agenticDir + "t_b300_sglang.sh"
	base := "#!/usr/bin/env bash\nset -euo pipefail\npython3 -m sglang.launch_server --model-path \"$MODEL\" &\n"
	sed := edit(t, base, "python3 -m", "SITE=$(python3 -c 'import site; print(site.getsitepackages()[0])')\nsed -i 's/a/b/' \"$SITE/sglang/srt/x.py\"\npython3 -m")
	pip := edit(t, base, "python3 -m", "pip install /wheels/vllm-0.26.0+cu130-cp312-linux_x86_64.whl\npython3 -m")
	otherWheel := edit(t, base, "python3 -m", "pip install /wheels/flashinfer_python-0.5.0-py3-none-any.whl\npython3 -m")
	heredoc := edit(t, base, "python3 -m", "cat > /usr/lib/python3/dist-packages/sglang/srt/fix.py <<'EOF'\nX = 1\nEOF\npython3 -m")
	resultSed := edit(t, base, "python3 -m", "sed -i 's/a/b/' \"$RESULT_DIR/flags.txt\"\npython3 -m")
	files := func(target string, extra ...string) map[string]string {
		return setFiles(map[string]string{agenticDir + "t_b300_sglang.sh": target}, extra...)
	}
	tests := []struct {
		name       string
		number     int
		base, head map[string]string
		want       []string
		phrases    []string
	}{
		{
			name: "sed into site-packages", number: 2280,
			base: files(base), head: files(sed),
			want:    []string{"SH011 " + target + ":4"},
			phrases: []string{"edits `$SITE/sglang/srt/x.py` inside the installed engine with `sed -i`", "add `docs/waiver/2280.md`", "the upstream PR or issue", "removed"},
		},
		{name: "with the waiver", number: 2280, base: files(base), head: files(sed, "docs/waiver/2280.md", "# waiver\n")},
		{
			name: "another PR's waiver does not count", number: 2280,
			base: files(base, "docs/waiver/17.md", "# old\n"), head: files(sed, "docs/waiver/17.md", "# old\n"),
			want: []string{"SH011 " + target + ":4"},
		},
		{
			name: "unknown PR number", number: 0,
			base: files(base), head: files(sed),
			want:    []string{"SH011 " + target + ":4"},
			phrases: []string{"`docs/waiver/<PR_NUMBER>.md` (named after this PR's number)"},
		},
		{name: "unknown PR number, waiver added", number: 0, base: files(base), head: files(sed, "docs/waiver/9999.md", "# waiver\n")},
		{
			name: "engine wheel", number: 5,
			base: files(base), head: files(pip),
			want:    []string{"SH011 " + target + ":3"},
			phrases: []string{"replaces the engine the image ships with `pip install /wheels/vllm-0.26.0+cu130-cp312-linux_x86_64.whl`"},
		},
		{name: "other wheel", number: 5, base: files(base), head: files(otherWheel)},
		{
			name: "heredoc into dist-packages", number: 5,
			base: files(base), head: files(heredoc),
			want:    []string{"SH011 " + target + ":3"},
			phrases: []string{"The command on lines 3-5 writes into `/usr/lib/python3/dist-packages/sglang/srt/fix.py`"},
		},
		{name: "sed on a result file", number: 5, base: files(base), head: files(resultSed)},
		{name: "patch already there", number: 5, base: files(sed), head: files(sed + "echo done\n")},
		{
			name: "patch file next to the recipes", number: 5,
			base: files(base), head: files(base, agenticDir+"patches/fix.patch", "--- a/x\n+++ b/x\n"),
			want:    []string{"SH011 " + agenticDir + "patches/fix.patch:1"},
			phrases: []string{"This PR adds the patch file `fix.patch` next to the recipes."},
		},
		{name: "patch file elsewhere", number: 5, base: files(base), head: files(base, "docs/examples/fix.patch", "--- a/x\n")},
		{
			name: "runner installs an engine", number: 5,
			base: files(base, "runners/launch_x.sh", "#!/usr/bin/env bash\nsrun true\n"),
			head: files(base, "runners/launch_x.sh", "#!/usr/bin/env bash\npip install git+https://github.com/vllm-project/vllm@main\nsrun true\n"),
			want: []string{"SH011 runners/launch_x.sh:2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewPR(t, SH011, tc.number, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if len(fs) > 0 {
				mustContain(t, "message", fs[0].Body, tc.phrases...)
			}
		})
	}
}
