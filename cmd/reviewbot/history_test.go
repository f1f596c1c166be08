package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historyRepo builds a repository whose main branch merged five PRs:
//
//	#10 squash-merged; refs/pull/10/head still has pull/XXXX (the bot must
//	    review the head, not the fixed-up merge)
//	#11 merged without a refs/pull ref (its merge commit is reviewed)
//	    and a commit without a PR number (skipped)
//	#12 adds a .github/reviewbot.yml that does not validate
//	#13 is reviewed under that base config and fails (an error, not the end)
func historyRepo(t *testing.T) string {
	t.Helper()
	dir, git := gitRepo(t)
	write := func(p, c string) {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(n string) string {
		return "\n- config-keys:\n    - k\n  description:\n    - \"change " + n + "\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/" + n + "\n"
	}
	log := "- config-keys:\n    - k\n  description:\n    - \"x\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
	git("init", "-q", "-b", "main")
	write("perf-changelog.yaml", log)
	git("add", ".")
	git("commit", "-q", "-m", "Initial layout")

	// PR 10's branch: the entry links pull/XXXX.
	git("checkout", "-q", "-b", "pr10")
	write("perf-changelog.yaml", log+entry("XXXX"))
	git("commit", "-q", "-am", "Add the k entry")
	git("update-ref", "refs/pull/10/head", "HEAD")
	git("checkout", "-q", "main")
	log += entry("10")
	write("perf-changelog.yaml", log)
	git("commit", "-q", "-am", "Add the k entry (#10)")

	log += entry("11")
	write("perf-changelog.yaml", log)
	git("commit", "-q", "-am", "Second entry (#11)")
	write("README.md", "notes\n")
	git("add", ".")
	git("commit", "-q", "-m", "chore: notes without a PR")
	write(".github/reviewbot.yml", "rules:\n  NOPE999: off\n")
	git("add", ".")
	git("commit", "-q", "-m", "Configure the bot (#12)")
	log += entry("13")
	write("perf-changelog.yaml", log)
	git("commit", "-q", "-am", "Third entry (#13)")
	return dir
}

func TestHistoryText(t *testing.T) {
	dir := historyRepo(t)
	code, out, stderr := runCLI(t, "history", "--repo", dir, "--list", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		"Replayed 4 merged PRs of main (1 from refs/pull/N/head, 3 as merge commits).",
		"PRs with a 🔴 finding: 2 (50.0%).",
		"#12 RB001 .github/reviewbot.yml:2",
		"Errors: 1.",
		"#10 CL001 perf-changelog.yaml:",
		"Errors:\n",
		"#13 ",
		"NOPE999",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "#11 CL") || strings.Contains(out, "notes without") {
		t.Errorf("clean or unnumbered commits reported:\n%s", out)
	}
	// --n limits the range from the newest end.
	_, out, _ = runCLI(t, "history", "--repo", dir, "--n", "2", "--quiet")
	if !strings.Contains(out, "Replayed 2 merged PRs") {
		t.Errorf("--n 2:\n%s", out)
	}
}

func TestHistoryJSON(t *testing.T) {
	dir := historyRepo(t)
	code, out, stderr := runCLI(t, "history", "--repo", dir, "--format", "json", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4:\n%s", len(recs), out)
	}
	byPR := map[float64]map[string]any{}
	for _, r := range recs {
		byPR[r["pr"].(float64)] = r
	}
	if byPR[10]["source"] != "pr-head" || byPR[11]["source"] != "merge-commit" {
		t.Errorf("sources: %v %v", byPR[10]["source"], byPR[11]["source"])
	}
	if fs := byPR[10]["findings"].([]any); len(fs) != 1 || fs[0].(map[string]any)["rule"] != "CL001" {
		t.Errorf("#10 findings %v", fs)
	}
	if fs := byPR[11]["findings"].([]any); len(fs) != 0 {
		t.Errorf("#11 findings %v", fs)
	}
	if e, _ := byPR[13]["error"].(string); !strings.Contains(e, "NOPE999") {
		t.Errorf("#13 error %q", e)
	}
	if _, ok := byPR[10]["elapsed_ms"].(float64); !ok {
		t.Errorf("no elapsed_ms: %v", byPR[10])
	}
}

func TestHistoryErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "--repo", t.TempDir(), "--format", "xml"}, "unknown --format"},
		{[]string{"history", "--repo", t.TempDir(), "--n", "-1"}, "--n -1"},
		{[]string{"history", "--repo", t.TempDir()}, "not a git repository"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want %q)", tc.args, code, stderr, tc.want)
		}
	}
	dir := historyRepo(t)
	if code, _, stderr := runCLI(t, "history", "--repo", dir, "--rev", "no-such-branch"); code != exitError || !strings.Contains(stderr, "unknown revision") {
		t.Errorf("unknown rev: exit %d %q", code, stderr)
	}
	// Without --repo: the repository the working directory is in.
	t.Chdir(filepath.Join(dir, "."))
	if code, out, stderr := runCLI(t, "history", "--quiet"); code == exitError || !strings.Contains(out, "Replayed ") {
		t.Errorf("history in the repository: exit %d %q %q", code, out, stderr)
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(t, "history"); code != exitError || !strings.Contains(stderr, "the working directory is not in a git repository: give --repo DIR") {
		t.Errorf("history outside a repository: exit %d %q", code, stderr)
	}
}

// A replay in which every review fails is no result: it says so and
// exits non-zero. Progress goes only to a terminal (a buffer is none, so
// no carriage returns end up in it, --quiet or not).
func TestHistoryAllFailed(t *testing.T) {
	dir, git := gitRepo(t)
	write := func(p, c string) {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	// A base configuration that does not validate fails every review.
	write(".github/reviewbot.yml", "rules:\n  NOPE999: off\n")
	write("perf-changelog.yaml", "")
	git("add", ".")
	git("commit", "-q", "-m", "Initial layout")
	for _, n := range []string{"1", "2"} {
		write("notes-"+n+".md", n)
		git("add", ".")
		git("commit", "-q", "-m", "Change "+n+" (#"+n+")")
	}
	for _, format := range []string{"text", "json"} {
		code, out, stderr := runCLI(t, "history", "--repo", dir, "--format", format)
		if code != exitError || !strings.Contains(stderr, "every one of the 2 reviews failed") {
			t.Errorf("%s: exit %d, stderr %q", format, code, stderr)
		}
		if strings.Contains(stderr, "\r") {
			t.Errorf("%s: progress written to a non-terminal: %q", format, stderr)
		}
		if format == "text" && !strings.Contains(out, "Errors: 2.") {
			t.Errorf("text output:\n%s", out)
		}
	}
	if code, _, stderr := runCLI(t, "history", "--repo", dir, "--budget", "files=x"); code != exitError || !strings.Contains(stderr, "--budget") {
		t.Errorf("bad --budget: exit %d, %s", code, stderr)
	}
}
