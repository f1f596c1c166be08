package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The commands that read one tree read it the same way: from the
// repository the working directory is in (a subdirectory too) at HEAD,
// from --repo at --rev, from a plain directory, or from a fixture's head
// or base — and they all say the same thing about two sources at once.
func TestTreeSourceIsOneFlagGroup(t *testing.T) {
	head, err := filepath.Abs("../../testdata/trees/inferencex")
	if err != nil {
		t.Fatal(err)
	}
	absFixture, err := filepath.Abs("../../testdata/prs/pl001-script-deleted-row-still-runs-it")
	if err != nil {
		t.Fatal(err)
	}
	dir, git := gitRepo(t)
	git("init", "-q", "-b", "main")
	if err := os.CopyFS(dir, os.DirFS(head)); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "tree")
	sub := filepath.Join(dir, "benchmarks")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"pipeline", "conventions"} {
		for _, tc := range []struct {
			name string
			wd   string
			args []string
		}{
			{"working directory's repository", dir, nil},
			{"from a subdirectory", sub, nil},
			{"--repo at --rev", t.TempDir(), []string{"--repo", dir, "--rev", "main"}},
			{"--tree", t.TempDir(), []string{"--tree", head}},
			{"--fixture", t.TempDir(), []string{"--fixture", absFixture}},
			{"--fixture --base", t.TempDir(), []string{"--fixture", absFixture, "--base"}},
		} {
			t.Run(cmd+"/"+tc.name, func(t *testing.T) {
				t.Chdir(tc.wd)
				code, out, stderr := runCLI(t, append([]string{cmd, "--format", "json"}, tc.args...)...)
				if code != exitOK || out == "" {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
			})
		}
		for _, args := range [][]string{
			{"--tree", head, "--fixture", absFixture},
			{"--repo", dir, "--tree", head},
			{"--rev", "main", "--fixture", absFixture},
		} {
			code, _, stderr := runCLI(t, append([]string{cmd}, args...)...)
			if code != exitError || !strings.Contains(stderr, "give one of --repo (with --rev), --tree and --fixture") {
				t.Errorf("%s %v: exit %d, %q", cmd, args, code, stderr)
			}
		}
		t.Run(cmd+"/outside a repository", func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, _, stderr := runCLI(t, cmd)
			if code != exitError || !strings.Contains(stderr, "the working directory is not in a git repository: give --repo DIR, --tree DIR or --fixture DIR") {
				t.Errorf("exit %d, %q", code, stderr)
			}
		})
	}
}
