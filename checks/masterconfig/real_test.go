package masterconfig

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

const realDir = "../../../shared/inferencex/"

func readReal(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(realDir + name)
	if err != nil {
		t.Skipf("real %s not available", name)
	}
	return b
}

// TestRealConfigs parses the real master configs and checks the model
// against what the files hold.
func TestRealConfigs(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys int
	}{
		{"configs/nvidia-master.yaml", 152},
		{"configs/amd-master.yaml", 56},
	} {
		f, _ := ParseMasterConfig(readReal(t, tc.name))
		if f.Broken() {
			t.Fatalf("%s: broken: %+v %v", tc.name, f.Err, f.Duplicates)
		}
		if len(f.Keys) != tc.keys {
			t.Errorf("%s: %d keys, want %d", tc.name, len(f.Keys), tc.keys)
		}
		rows := 0
		for _, k := range f.Keys {
			if k.Malformed || k.Image.Value == "" || k.ModelPrefix.Value == "" || k.Precision.Value == "" ||
				k.Framework.Value == "" || k.Runner.Value == "" || len(k.Scenarios) == 0 {
				t.Errorf("%s: %s incomplete: %+v", tc.name, k.Name, k)
			}
			for _, s := range k.Scenarios {
				for _, r := range s.Rows {
					rows++
					if len(r.Conc) == 0 || r.ConcProblem != "" {
						t.Errorf("%s:%d: no concurrency (%s)", tc.name, r.Line, r.ConcProblem)
					}
					if k.Multinode != (r.Prefill != nil) && k.Disagg {
						t.Errorf("%s:%d: multinode %v but prefill %v", tc.name, r.Line, k.Multinode, r.Prefill)
					}
				}
			}
		}
		if rows < len(f.Keys) {
			t.Errorf("%s: only %d rows", tc.name, rows)
		}
	}
}

// TestRealConfigsKeyShape checks MC004's rule against every real key: the
// rule must describe the repository as it is, not produce noise on it.
func TestRealConfigsKeyShape(t *testing.T) {
	for _, name := range []string{"configs/nvidia-master.yaml", "configs/amd-master.yaml"} {
		f, _ := ParseMasterConfig(readReal(t, name))
		for _, k := range f.Keys {
			if problem, _ := keyShapeProblem(k); problem != "" {
				t.Errorf("%s: %s: %s", name, k.Name, problem)
			}
		}
	}
}

// realChange builds a change over the real master configs and MODELS.md.
func realChange(t testing.TB, head map[string]string, files []*checks.FileChange, date time.Time) *checks.Change {
	base := map[string]string{
		"configs/nvidia-master.yaml": string(readReal(t, "configs/nvidia-master.yaml")),
		"configs/amd-master.yaml":    string(readReal(t, "configs/amd-master.yaml")),
		"MODELS.md":                  string(readReal(t, "MODELS.md")),
	}
	h := map[string]string{}
	for k, v := range base {
		h[k] = v
	}
	for k, v := range head {
		h[k] = v
	}
	return &checks.Change{Base: checks.NewMemTree(base), Head: checks.NewMemTree(h), Files: files, Date: date}
}

// everyLineTouched is a diff that claims every line of the file changed.
func everyLineTouched(path string, content string) *checks.FileChange {
	n := strings.Count(content, "\n")
	h := checks.Hunk{OldStart: 1, OldLines: n, NewStart: 1, NewLines: n}
	for i := 1; i <= n; i++ {
		h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpDelete, Old: i})
	}
	for i := 1; i <= n; i++ {
		h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpAdd, New: i})
	}
	return &checks.FileChange{Path: path, Status: checks.Modified, Hunks: []checks.Hunk{h}}
}

// TestRealNoOpChange rewrites both real configs without changing their
// meaning (the diff touches every line): nothing may be reported.
func TestRealNoOpChange(t *testing.T) {
	var files []*checks.FileChange
	for _, name := range []string{"configs/nvidia-master.yaml", "configs/amd-master.yaml"} {
		files = append(files, everyLineTouched(name, string(readReal(t, name))))
	}
	res := reviewChange(t, realChange(t, nil, files, time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)))
	for _, f := range res.Findings {
		t.Errorf("no-op change reported %s %s:%d: %s", f.Rule, f.Path, f.Line, f.Title)
	}
}

// TestRealConfigsAsNew judges every real key as if a PR added it. The real
// configs follow the conventions MC002-MC004 check, so those rules must stay
// silent on them. MC001 finds the exp-name collisions the real configs
// already hold (rows that share tp and conc and differ only in ep or
// dp-attn); MC005 finds keys MODELS.md has since retired. Both are logged.
// MC009 finds the one point the real AMD config runs twice (a disagg MTP
// row repeated at conc 32), and nothing else.
func TestRealConfigsAsNew(t *testing.T) {
	var files []*checks.FileChange
	head := map[string]string{}
	for _, name := range []string{"configs/nvidia-master.yaml", "configs/amd-master.yaml"} {
		newName := strings.Replace(name, "-master", "-copy-master", 1)
		head[newName] = string(readReal(t, name))
		files = append(files, &checks.FileChange{Path: newName, Status: checks.Added})
	}
	res := reviewChange(t, realChange(t, head, files, time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)))
	sawDPAttnPair := false
	duplicates := 0
	for _, f := range res.Findings {
		switch f.Rule {
		case "MC001":
			// dsv4-fp4-mi355x-vllm-agentic-mtp runs tp 8 at conc 64 with
			// dp-attn false and with dp-attn true: seed 002's mechanism.
			if strings.Contains(f.Body, "`dsv4_tp8_conc64_kvnone_spec-mtp`") && strings.Contains(f.Title, "dsv4-fp4-mi355x-vllm-agentic-mtp") {
				sawDPAttnPair = true
			}
			fallthrough
		case "MC005":
			t.Logf("%s %s:%d %s", f.Rule, f.Path, f.Line, f.Title)
		case "MC009":
			duplicates++
			if !strings.Contains(f.Title, "`dsr1-fp4-mi355x-sglang-disagg-8k1k-mtp` runs conc 32 twice") {
				t.Errorf("%s %s:%d %s", f.Rule, f.Path, f.Line, f.Title)
			}
		default:
			t.Errorf("%s %s:%d %s", f.Rule, f.Path, f.Line, f.Title)
		}
	}
	if !sawDPAttnPair {
		t.Error("the real dp-attn false/true collision at conc 64 was not found")
	}
	if duplicates != 1 {
		t.Errorf("%d repeated points, want the real config's one", duplicates)
	}
}

func TestRealChangeIsFound(t *testing.T) {
	nvSrc := string(readReal(t, "configs/nvidia-master.yaml"))
	old := "  image: vllm/vllm-openai:v0.25.0\n  model: deepseek-ai/DeepSeek-V4-Pro\n  model-prefix: dsv4\n  runner: cluster:b200-dgxc"
	if !strings.Contains(nvSrc, old) {
		t.Skip("real config changed shape")
	}
	head := strings.Replace(nvSrc, old, strings.Replace(old, "vllm/vllm-openai:v0.25.0", "/scratch/dsv4.sqsh", 1), 1)
	ctx := context.Background()
	ch := realChange(t, map[string]string{"configs/nvidia-master.yaml": head}, nil, time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC))
	fc := &checks.FileChange{Path: "configs/nvidia-master.yaml", Status: checks.Modified}
	b, _ := ch.Base.ReadFile(ctx, fc.Path)
	fc.Hunks = trees.LineHunks(b, []byte(head))
	ch.Files = []*checks.FileChange{fc}
	res := reviewChange(t, ch)
	if got := summary(res.Findings); len(got) != 1 || !strings.HasPrefix(got[0], "MC002 configs/nvidia-master.yaml:") {
		t.Errorf("findings: %v", got)
	}
}
