package llmreplay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// defaultMirror is where a mirror of the reviewed repository with its
// pull requests' heads is kept on the development machines.
const defaultMirror = "/work/.mirror/SemiAnalysisAI+InferenceX/repo"

// findingsFile is the findings file the replay test reads:
// $REVIEWBOT_LLM_FINDINGS, else llm-review/train.jsonl in
// $REVIEWBOT_SHARED, else in the shared directory beside the repository
// (or beside one of its parents, for a worktree); "" when there is none.
func findingsFile(getenv func(string) string, dir string) string {
	if p := getenv("REVIEWBOT_LLM_FINDINGS"); p != "" {
		return p
	}
	rel := filepath.Join("llm-review", "train.jsonl")
	if d := getenv("REVIEWBOT_SHARED"); d != "" {
		return filepath.Join(d, rel)
	}
	for ; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

func TestFindingsFile(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared", "llm-review", "train.jsonl")
	if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "wt", "repo", "internal", "llmreplay")
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name string
		env  map[string]string
		dir  string
		want string
	}{
		{"beside a parent", nil, pkg, shared},
		{"the shared directory named", map[string]string{"REVIEWBOT_SHARED": "/data"}, pkg, "/data/llm-review/train.jsonl"},
		{"the file named", map[string]string{"REVIEWBOT_LLM_FINDINGS": "f.jsonl", "REVIEWBOT_SHARED": "/data"}, pkg, "f.jsonl"},
		{"none", nil, t.TempDir(), ""},
	}
	for _, tt := range tests {
		if got := findingsFile(env(tt.env), tt.dir); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestReplayFindings replays the findings file on the mirror and logs the
// figures (go test ./internal/llmreplay -run TestReplayFindings -v). The
// mirror is $REVIEWBOT_REPLAY_REPO, by default the development machines'
// one; the test skips without it or without the findings file.
func TestReplayFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews every finding's commit")
	}
	mirror := os.Getenv("REVIEWBOT_REPLAY_REPO")
	if mirror == "" {
		mirror = defaultMirror
	}
	if _, err := os.Stat(mirror); err != nil {
		t.Skipf("no mirror at %s (set REVIEWBOT_REPLAY_REPO)", mirror)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	file := findingsFile(os.Getenv, filepath.Join(wd, "..", ".."))
	if file == "" {
		t.Skip("no findings file (set REVIEWBOT_LLM_FINDINGS)")
	}
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		t.Skipf("no findings file at %s", file)
	}
	if err != nil {
		t.Fatal(err)
	}
	findings, err := Load(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	repo, reg := openRepo(t, mirror)
	rp, err := Run(context.Background(), repo, reg, findings, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(rp)
	var out bytes.Buffer
	if err := WriteText(&out, s); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s on %s:\n%s", file, mirror, out.String())
	if len(findings) > 0 && s.Total.Replayable == 0 {
		t.Error("no finding could be replayed: is the mirror's refs/pull/N/head fetched?")
	}
	for _, r := range rp.Results {
		if r.Replayable() && (r.Review == nil || r.Review.HeadSHA != r.Commit || r.Review.BaseSHA != r.Base) {
			t.Errorf("#%d %s: reviewed %+v, want %.12s against %.12s", r.Finding.PR, r.Finding.Path, r.Review, r.Commit, r.Base)
		}
	}
	if len(s.Errors) > 0 {
		t.Errorf("%d reviews failed: %q", len(s.Errors), s.Errors)
	}
}
