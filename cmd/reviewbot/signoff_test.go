package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		os.MkdirAll(filepath.Dir(out), 0o755)
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The seed 004 fixture as a git repository: verify-signoff runs the local
// checks and rejects the sign-off for the deprecated scenario.
func TestVerifySignoffCommand(t *testing.T) {
	fx := filepath.Join("..", "..", "checks", "signoff", "testdata", "seed004")
	dir, git := gitRepo(t)
	copyTree(t, filepath.Join("..", "..", "testdata", "trees", "inferencex"), dir)
	copyTree(t, filepath.Join(fx, "base"), dir)
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	patch, err := filepath.Abs(filepath.Join(fx, "pr.patch"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "apply", patch).CombinedOutput(); err != nil {
		t.Fatalf("apply: %v %s", err, out)
	}
	git("commit", "-q", "-am", "pr")
	code, out, stderr := runCLI(t, "verify-signoff", "--repo", dir, "--base", "HEAD~1", "--head", "HEAD", "--pr", "2512",
		"--date", "2026-08-07", "--signoff", filepath.Join(fx, "signoff.md"))
	if code != exitBlocking {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"## ❌❌❌ **REJECTED** ❌❌❌", "❌ Check 7 (deprecated models): FAIL", "✅ Check 0 (CODEOWNER): PASS", "need GitHub and were not run"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// From inside the clone, --repo is not needed.
	signoffFile, err := filepath.Abs(filepath.Join(fx, "signoff.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "benchmarks"))
	if code, again, stderr := runCLI(t, "verify-signoff", "--base", "HEAD~1", "--pr", "2512", "--date", "2026-08-07", "--signoff", signoffFile); code != exitBlocking || again != out {
		t.Errorf("from a subdirectory without --repo: exit %d %s\n%s", code, stderr, again)
	}
	// Not a sign-off: a usage error naming the phrase.
	empty := filepath.Join(t.TempDir(), "c.md")
	os.WriteFile(empty, []byte("LGTM"), 0o644)
	if code, _, stderr := runCLI(t, "verify-signoff", "--repo", dir, "--base", "HEAD~1", "--signoff", empty); code != exitError || !strings.Contains(stderr, "not a sign-off") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
