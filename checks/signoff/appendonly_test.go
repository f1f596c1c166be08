package signoff

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// Check 12 reads the master-config model's changed keys: an append-only
// entry passes only when its keys gain points and lose none.
func TestCheckAppendOnly(t *testing.T) {
	const cfg = `dsr1-fp8-h200-sglang:
  image: lmsysorg/sglang:v0.5.5
  model-prefix: dsr1
  precision: fp8
  framework: sglang
  runner: h200
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - {tp: 8, conc-list: [4, 8]}
      - {tp: 4, conc-list: [4]}
`
	const log = `- config-keys:
    - dsr1-fp8-h200-sglang
  description:
    - "Initial"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1
`
	const entry = `
- config-keys:
    - dsr1-fp8-h200-sglang
  description:
    - "More points"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
  append-only: true
`
	for _, tc := range []struct {
		name, head string
		want       Status
		reason     string
	}{
		{"a row added", strings.Replace(cfg, "      - {tp: 4, conc-list: [4]}\n", "      - {tp: 4, conc-list: [4]}\n      - {tp: 2, conc-list: [4]}\n", 1), Pass, "only adds points"},
		{"the last row dropped", strings.Replace(cfg, "      - {tp: 4, conc-list: [4]}\n", "", 1), Fail, "drops or rewrites 1 existing row"},
		{"a row rewritten", strings.Replace(cfg, "{tp: 4, conc-list: [4]}", "{tp: 4, conc-list: [4, 16]}", 1), Fail, "drops or rewrites 1 existing row"},
		{"a shared setting", strings.Replace(cfg, "v0.5.5", "v0.5.6", 1), Fail, "changes settings every point shares"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := checks.NewMemTree(map[string]string{"configs/nvidia-master.yaml": cfg, "perf-changelog.yaml": log})
			head := checks.NewMemTree(map[string]string{"configs/nvidia-master.yaml": tc.head, "perf-changelog.yaml": log + entry})
			files, err := trees.Diff(context.Background(), base, head)
			if err != nil {
				t.Fatal(err)
			}
			ch := &checks.Change{Base: base, Head: head, Files: files}
			ch.PR = checks.PRInfo{Number: 7, Owner: "SemiAnalysisAI", Repo: "InferenceX"}
			if _, err := changedKeysOf(context.Background(), t, ch); err != nil {
				t.Fatal(err)
			}
			cs, err := RuleChecks(context.Background(), RuleInput{Change: ch})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if c.N != CheckAppendOnly {
					continue
				}
				if c.Status != tc.want || !strings.Contains(c.Reason, tc.reason) {
					t.Errorf("check 12 = %v %q, want %v containing %q", c.Status, c.Reason, tc.want, tc.reason)
				}
				return
			}
			t.Fatal("no check 12")
		})
	}
}
