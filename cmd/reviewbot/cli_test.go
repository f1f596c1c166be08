package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
)

var seed000 = filepath.Join(fixtures, "cl-seed000-other-pr-number") // one 🔴 CL001

// TestMain keeps the tests hermetic when they themselves run in GitHub
// Actions: the run's own event must not become the reviews' defaults.
func TestMain(m *testing.M) {
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_WORKSPACE", "NO_COLOR"} {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}

// reviewJSON runs a review with --format json and returns its findings.
func reviewJSON(t *testing.T, args ...string) (int, []checks.Finding, string) {
	t.Helper()
	code, out, stderr := runCLI(t, append(append([]string{"review"}, args...), "--format", "json")...)
	var rep struct {
		Findings []checks.Finding `json:"findings"`
	}
	if code != exitError {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("json output: %v\n%s", err, out)
		}
	}
	return code, rep.Findings, stderr
}

func rulesOf(fs []checks.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule+":"+f.Severity.String())
	}
	return strings.Join(ids, " ")
}

func TestFailOn(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, exitBlocking},
		{[]string{"--fail-on", "blocking"}, exitBlocking},
		{[]string{"--fail-on", "never"}, exitOK},
		{[]string{"--fail-on", "warning"}, exitBlocking},
		// A warning fails only --fail-on warning.
		{[]string{"--severity", "CL001=warning"}, exitOK},
		{[]string{"--severity", "CL001=warning", "--fail-on", "warning"}, exitBlocking},
		{[]string{"--fail-on", "sometimes"}, exitError},
	} {
		code, _, stderr := runCLI(t, append([]string{"review", "--fixture", seed000}, tc.args...)...)
		if code != tc.want {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.want, stderr)
		}
	}
	// Errors stay exit 2 whatever the policy.
	if code, _, _ := runCLI(t, "review", "--fixture", "nope", "--fail-on", "never"); code != exitError {
		t.Errorf("I/O error with --fail-on never: exit %d", code)
	}
}

func TestRuleSelectionFlags(t *testing.T) {
	disabled := filepath.Join(fixtures, "config-rule-disabled") // the repo config turns CL001 off
	for _, tc := range []struct {
		name    string
		fixture string
		args    []string
		want    string
	}{
		{"default", seed000, nil, "CL001:blocking"},
		{"only other", seed000, []string{"--only", "CL002,SH001"}, ""},
		{"only it, lower case", seed000, []string{"--only", "cl001"}, "CL001:blocking"},
		{"disable", seed000, []string{"--disable", "CL001"}, ""},
		{"disable repeated", seed000, []string{"--disable", "SH001", "--disable", "CL001"}, ""},
		{"severity", seed000, []string{"--severity", "CL001=warning"}, "CL001:warning"},
		{"repo config off", disabled, nil, ""},
		// The command line wins over the repository configuration.
		{"--only re-enables", disabled, []string{"--only", "CL001"}, "CL001:blocking"},
		{"--severity keeps it off", disabled, []string{"--severity", "CL001=warning"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fs, stderr := reviewJSON(t, append([]string{"--fixture", tc.fixture}, tc.args...)...)
			if got := rulesOf(fs); got != tc.want {
				t.Errorf("findings %q, want %q (%s)", got, tc.want, stderr)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "XX999"}, `--only: unknown rule "XX999"; ` + "`reviewbot rules`" + ` lists them`},
		{[]string{"--only", "sh0O1"}, `--only: unknown rule "sh0O1" (did you mean SH001?); `},
		{[]string{"--disable", "CL001,NOPE1"}, `--disable: unknown rule "NOPE1"`},
		{[]string{"--severity", "CL001"}, `--severity "CL001": want RULE=blocking or RULE=warning`},
		{[]string{"--severity", "CL001=red"}, `--severity CL001: unknown severity "red" (want blocking or warning)`},
		{[]string{"--severity", "ZZ001=warning"}, `--severity: unknown rule "ZZ001"`},
		{[]string{"--only", "CL001", "--disable", "CL001"}, "CL001 is both in --only and in --disable"},
	} {
		code, _, stderr := runCLI(t, append([]string{"review", "--fixture", seed000}, tc.args...)...)
		if code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestConfigFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		src, want string
	}{
		{"rules:\n  SH009: of\n", `my-config.yml:2:10: rules.SH009: unknown setting "of" (want off, on, blocking or warning`},
		{"rules:\n  SH009: off\n  ZZ123: off\n", `my-config.yml:3:3: rules: unknown rule "ZZ123"`},
		{"rulez: {}\n", `my-config.yml:1:1: unknown key "rulez" (want rules, paths, conventions, changelog, pipeline, review-drafts, report-unused-ignores)`},
		{"rules: [\n", `my-config.yml:1: not valid YAML`},
	} {
		p := filepath.Join(dir, "my-config.yml")
		if err := os.WriteFile(p, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "review", "--fixture", seed000, "--config", p)
		if code != exitError || !strings.Contains(stderr, p[:len(p)-len("my-config.yml")]+tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.src, code, stderr, tc.want)
		}
	}
	if code, _, stderr := runCLI(t, "review", "--fixture", seed000, "--config", filepath.Join(dir, "absent.yml")); code != exitError ||
		!strings.Contains(stderr, "absent.yml") {
		t.Errorf("missing --config: %d %q", code, stderr)
	}
}

// changelogRepo makes a repository whose main branch has one changelog
// entry and returns it with a git runner and the text to append for an
// entry linking linkTo.
func changelogRepo(t *testing.T) (string, func(args ...string) string, string) {
	t.Helper()
	dir, git := gitRepo(t)
	git("init", "-q", "-b", "main")
	log := "- config-keys:\n    - k\n  description:\n    - \"x\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
	if err := os.WriteFile(filepath.Join(dir, "perf-changelog.yaml"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "base")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	return dir, run, log
}

const badEntry = "\n- config-keys:\n    - k\n  description:\n    - \"y\"\n  pr-link: TBD\n"

func TestReviewShallowClone(t *testing.T) {
	dir, git, log := changelogRepo(t)
	git("checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(dir, "perf-changelog.yaml"), []byte(log+badEntry), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "pr")
	git("checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("main moved on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "main moves")
	shallow := filepath.Join(t.TempDir(), "shallow")
	cmd := exec.Command("git", "clone", "-q", "--depth", "1", "--no-single-branch", "file://"+dir, shallow)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone --depth 1: %v\n%s", err, out)
	}
	code, out, stderr := runCLI(t, "review", "--repo", shallow, "--base", "origin/main", "--head", "origin/feature", "--pr", "7")
	if code != exitError || out != "" {
		t.Fatalf("shallow clone: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"no merge base", "shallow clone", "fetch-depth: 0", "git fetch --unshallow", "merge-base SHA"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("error must be one line: %q", stderr)
	}
	// Following the advice gives the review.
	fetch := exec.Command("git", "-C", shallow, "fetch", "-q", "--unshallow")
	fetch.Env = cmd.Env
	if out, err := fetch.CombinedOutput(); err != nil {
		t.Fatalf("fetch --unshallow: %v\n%s", err, out)
	}
	_, fs, stderr := reviewJSON(t, "--repo", shallow, "--base", "origin/main", "--head", "origin/feature", "--pr", "7")
	if rulesOf(fs) != "CL001:blocking" {
		t.Errorf("after --unshallow: %v %s", fs, stderr)
	}
}

func TestReviewWorktree(t *testing.T) {
	dir, _, log := changelogRepo(t)
	// An uncommitted bad entry, and an untracked recipe.
	if err := os.WriteFile(filepath.Join(dir, "perf-changelog.yaml"), []byte(log+badEntry), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := reviewJSON(t, "--repo", dir, "--base", "main", "--pr", "5")
	if code != exitOK || !strings.Contains(stderr, "uncommitted changes, which were not reviewed (add --worktree") {
		t.Errorf("committed-only review of a dirty tree: exit %d, stderr %q", code, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(l, "reviewbot review: note: ") {
			t.Errorf("each note must be one line: %q", stderr)
		}
	}
	code, fs, stderr := reviewJSON(t, "--repo", dir, "--base", "main", "--pr", "5", "--worktree")
	if code != exitBlocking || rulesOf(fs) != "CL001:blocking" || fs[0].Line != 11 || strings.Contains(stderr, "uncommitted") {
		t.Errorf("--worktree: exit %d, %v, %q", code, fs, stderr)
	}
	// A review of another revision says nothing about the working tree.
	if _, _, stderr := reviewJSON(t, "--repo", dir, "--base", "main", "--head", "main~0^{tree}"); strings.Contains(stderr, "uncommitted") {
		t.Errorf("note for a head that is not checked out: %q", stderr)
	}
	if code, _, stderr := runCLI(t, "review", "--fixture", seed000, "--worktree"); code != exitError || !strings.Contains(stderr, "--worktree goes with --repo") {
		t.Errorf("--worktree without --repo: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "review", "--repo", dir, "--base", "main", "--head", "main", "--worktree"); code != exitError || !strings.Contains(stderr, "leave out --head") {
		t.Errorf("--worktree with --head: %d %q", code, stderr)
	}
}

// actionsEnv sets the environment of a GitHub Actions pull_request run
// whose event names base and head.
func actionsEnv(t *testing.T, workspace, base, head string, number int) {
	t.Helper()
	ev := map[string]any{
		"action": "synchronize", "number": number,
		"pull_request": map[string]any{
			"number": number, "title": "t", "user": map[string]any{"login": "someone"},
			"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"name": "InferenceX", "owner": map[string]any{"login": "SemiAnalysisAI"}}},
			"head": map[string]any{"sha": head},
		},
	}
	b, _ := json.Marshal(ev)
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_EVENT_NAME", "pull_request")
	t.Setenv("GITHUB_EVENT_PATH", p)
	t.Setenv("GITHUB_WORKSPACE", workspace)
}

func TestReviewActionsDefaults(t *testing.T) {
	dir, git, log := changelogRepo(t)
	base := git("rev-parse", "HEAD")
	git("checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(dir, "perf-changelog.yaml"), []byte(log+strings.Replace(badEntry, "TBD", "https://github.com/SemiAnalysisAI/InferenceX/pull/41", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "pr")
	head := git("rev-parse", "HEAD")
	git("checkout", "-q", "main") // the checkout is not the PR head: the event says what to review
	actionsEnv(t, dir, base, head, 42)

	code, fs, stderr := reviewJSON(t)
	if code != exitBlocking || rulesOf(fs) != "CL001:blocking" || !strings.Contains(fs[0].Body, "#42") {
		t.Fatalf("review inside Actions: exit %d %v %s", code, fs, stderr)
	}
	if !strings.Contains(stderr, "pull request #42 of SemiAnalysisAI/InferenceX, base "+base[:12]+", head "+head[:12]) {
		t.Errorf("stderr %q", stderr)
	}
	// The entry links PR 41: told it is PR 41, the review is clean.
	if code, fs, stderr := reviewJSON(t, "--pr", "41"); code != exitOK || len(fs) != 0 {
		t.Errorf("--pr 41 overrides the event: exit %d %v %s", code, fs, stderr)
	}
	// An explicit source is not second-guessed.
	if code, _, _ := runCLI(t, "review", "--fixture", seed000); code != exitBlocking {
		t.Errorf("fixture inside Actions: exit %d", code)
	}
	// Outside Actions only the repository is defaulted: the one the
	// working directory is in.
	t.Setenv("GITHUB_ACTIONS", "")
	t.Chdir(dir)
	if code, _, stderr := runCLI(t, "review"); code != exitError || !strings.Contains(stderr, "--base is required") {
		t.Errorf("outside Actions: exit %d %q", code, stderr)
	}
	// A broken event file is an error, not a silent review of something else.
	t.Setenv("GITHUB_ACTIONS", "true")
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	t.Setenv("GITHUB_EVENT_PATH", bad)
	if code, _, stderr := runCLI(t, "review"); code != exitError || !strings.Contains(stderr, "GITHUB_EVENT_PATH") {
		t.Errorf("bad event: exit %d %q", code, stderr)
	}
}

// A real pull_request webhook payload (the Actions event file has the
// same shape) parses into the defaults; skipped without ../shared.
func TestActionsEventRealPayload(t *testing.T) {
	p := sharedPath(t, "webhooks", "pull_request.synchronize.payload.json")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": p, "GITHUB_WORKSPACE": "/ws"}
	ev, err := actionsEvent(func(k string) string { return env[k] })
	if err != nil || ev == nil {
		t.Fatalf("%v %v", ev, err)
	}
	if ev.Number <= 0 || !isSHA(ev.BaseSHA) || !isSHA(ev.HeadSHA) || ev.Owner == "" || ev.Repo == "" || ev.Workspace != "/ws" {
		t.Errorf("%+v", ev)
	}
	// A push event has no pull request: no defaults, no error.
	push := filepath.Join(t.TempDir(), "push.json")
	os.WriteFile(push, []byte(`{"ref":"refs/heads/main","after":"abc"}`), 0o644)
	env["GITHUB_EVENT_PATH"] = push
	if ev, err := actionsEvent(func(k string) string { return env[k] }); ev != nil || err != nil {
		t.Errorf("push event: %v %v", ev, err)
	}
}

// sharedPath finds a file of the shared data directory (a sibling
// "shared" of some parent of the repository), or skips.
func sharedPath(t *testing.T, elem ...string) string {
	t.Helper()
	if env := os.Getenv("REVIEWBOT_SHARED"); env != "" {
		return filepath.Join(append([]string{env}, elem...)...)
	}
	dir, _ := filepath.Abs(".")
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		p := filepath.Join(append([]string{dir, "shared"}, elem...)...)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("shared data directory not present")
	return ""
}

func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{
		{"-h"}, {"--help"}, {"help"},
		{"review", "-h"}, {"review", "--help"}, {"rules", "-h"}, {"conventions", "-h"}, {"version", "-h"},
	} {
		code, out, stderr := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, "Usage") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCLI(t, args...)
		if code != exitOK || !strings.HasPrefix(out, "reviewbot ") {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-08-21T10:15:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionLine(bi, true); !strings.HasPrefix(got, "reviewbot v1.2.3 (revision 0123456789abcdef0123456789abcdef01234567, 2026-08-21T10:15:00Z, dirty, go1.26.8 ") {
		t.Errorf("versionLine = %q", got)
	}
	bi.Main.Version, bi.Settings = "(devel)", nil
	if got := versionLine(bi, true); !strings.HasPrefix(got, "reviewbot devel (no VCS information, go1.26.8") {
		t.Errorf("versionLine = %q", got)
	}
}

// TestVersionOfBuiltBinary builds reviewbot from a copy of this source
// tree committed to a fresh repository, and checks that `reviewbot
// version` reports that commit, and the dirty flag once a file changes.
// (A copy, because the go command does not stamp builds in a linked git
// worktree, and CI's checkout may be anything.)
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		// .git may be a file (a linked worktree's pointer to its repository):
		// a copy of it would make the git commands below write there.
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dst, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Lstat(filepath.Join(dst, ".git")); err == nil {
		t.Fatal("the copy has a .git of its own")
	}
	git("init", "-q")
	if top := git("rev-parse", "--show-toplevel"); top != dst {
		if real, _ := filepath.EvalSymlinks(dst); top != real {
			t.Fatalf("git init in %s made a repository at %s", dst, top)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	rev := git("rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "reviewbot")
	build := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", append(append([]string{"build"}, args...), "-o", bin, "./cmd/reviewbot")...)
		cmd.Dir = dst
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if out := build("-buildvcs=true"); !regexp.MustCompile(`^reviewbot v0\.0\.0-\d{14}-` + rev[:12] + ` \(revision ` + rev + `, \S+, clean, go1\.`).MatchString(out) {
		t.Errorf("clean build at %s: %s", rev, out)
	}
	if err := os.WriteFile(filepath.Join(dst, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := build("-buildvcs=true"); !strings.Contains(out, "revision "+rev+", ") || !strings.Contains(out, ", dirty, go1.") || !strings.Contains(out, "+dirty") {
		t.Errorf("dirty build: %s", out)
	}
	// A build without VCS information (the Action builds from a tarball)
	// reports the version it is given.
	if out := build("-buildvcs=false", "-ldflags=-X main.buildVersion=v9.8.7"); !strings.HasPrefix(out, "reviewbot v9.8.7 (no VCS information") {
		t.Errorf("-X build: %s", out)
	}
}

func TestRulesExplain(t *testing.T) {
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := ruleExamples()
	if err != nil {
		t.Fatal(err)
	}
	cl := reg.Lookup("CL001")
	code, out, stderr := runCLI(t, "rules", "cl001", "SH002")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d %q", code, stderr)
	}
	ex := examples["CL001"]
	for _, want := range []string{"CL001 🔴 " + cl.Title, "Example, from `reviewbot review --fixture testdata/prs/" + ex.Fixture + "`",
		"[CL001] " + ex.Finding.Title, "SH002 "} {
		if !strings.Contains(out, want) {
			t.Errorf("rules cl001 SH002 lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(cl.Doc), " ")) {
		t.Errorf("rules CL001 lacks the doc:\n%s", out)
	}
	// Without IDs: one line per rule (ID, severity, title), in the
	// registry's order; --long adds every rule's documentation, no examples.
	_, list, _ := runCLI(t, "rules")
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != len(reg.Rules()) {
		t.Errorf("rules: %d lines for %d rules:\n%s", len(lines), len(reg.Rules()), list)
	}
	for i, r := range reg.Rules() {
		if i < len(lines) && lines[i] != fmt.Sprintf("%-5s  %s %-8s  %s", r.ID, r.Severity.Emoji(), r.Severity, r.Title) {
			t.Errorf("rules line %d: %q", i, lines[i])
		}
	}
	_, long, _ := runCLI(t, "rules", "--long")
	if strings.Contains(long, "Example, from") || strings.Count(long, "\n\n") < len(reg.Rules())-1 ||
		!strings.Contains(strings.Join(strings.Fields(long), " "), strings.Join(strings.Fields(cl.Doc), " ")) {
		t.Errorf("rules --long:\n%s", long)
	}
	if code, _, stderr := runCLI(t, "rules", "CL001", "XX999"); code != exitError || !strings.Contains(stderr, `unknown rule "XX999"; `) {
		t.Errorf("unknown ID: exit %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "rules", "cl01"); code != exitError || stderr != "reviewbot rules: unknown rule \"cl01\" (did you mean CL001?); `reviewbot rules` lists them\n" {
		t.Errorf("a slip of the keyboard: exit %d %q", code, stderr)
	}
	// Flags may follow the IDs.
	code, out, _ = runCLI(t, "rules", "CL001", "--format", "json")
	var rules []jsonRule
	if code != exitOK || json.Unmarshal([]byte(out), &rules) != nil || len(rules) != 1 || rules[0].Example == nil ||
		rules[0].HelpURI != "https://github.com/reviewbot-dev/reviewbot/blob/main/docs/rules.md#cl001" {
		t.Errorf("rules CL001 --format json: %d %s", code, out)
	}
	// Markdown carries the docs, anchored for SARIF's helpUri.
	_, md, _ := runCLI(t, "rules", "--format", "markdown")
	for _, r := range reg.Rules() {
		if !strings.Contains(md, "\n### "+r.ID+"\n") || !strings.Contains(md, r.Doc) || !strings.Contains(md, "["+r.ID+"](#"+strings.ToLower(r.ID)+")") {
			t.Errorf("markdown lacks the section of %s", r.ID)
		}
	}
}

func TestRulesJSONDoesNotEscapeHTML(t *testing.T) {
	var b strings.Builder
	r := &checks.Rule{ID: "T001", Severity: checks.Warning, Title: "a <b> & c", Doc: "`cmd > \"$LOG\" 2>&1 &`"}
	if err := writeRulesJSON(&b, []*checks.Rule{r}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"a <b> & c"`) || !strings.Contains(b.String(), `cmd > \"$LOG\" 2>&1 &`) || strings.Contains(b.String(), `\u00`) {
		t.Errorf("escaped: %s", b.String())
	}
	_, out, _ := runCLI(t, "rules", "--format", "json")
	if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u003e`) || strings.Contains(out, `\u0026`) {
		t.Errorf("rules --format json escapes HTML")
	}
}

func TestReviewSARIFFileAndGitHub(t *testing.T) {
	sarif := filepath.Join(t.TempDir(), "out", "reviewbot.sarif")
	os.MkdirAll(filepath.Dir(sarif), 0o755)
	code, out, stderr := runCLI(t, "review", "--fixture", filepath.Join(fixtures, "cl-entry-deleted"), "--format", "github", "--sarif-file", sarif)
	if code != exitBlocking {
		t.Fatalf("exit %d %s", code, stderr)
	}
	// The deleted entry is reported where it belongs in the head.
	if !strings.HasPrefix(out, "::error file=perf-changelog.yaml,line=133,title=[CL002]") {
		t.Errorf("github output: %s", out)
	}
	// A base-side finding has no head line: a file-level annotation.
	_, out, _ = runCLI(t, "review", "--fixture", filepath.Join(fixtures, "cv001-option-deleted"), "--format", "github")
	if !strings.HasPrefix(out, "::warning file=benchmarks/single_node/agentic/dsv4_fp4_b300_sglang.sh,title=[CV001]") || strings.Contains(strings.SplitN(out, "::", 3)[1], "line=") {
		t.Errorf("github output of a base-side finding: %s", out)
	}
	b, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID string `json:"ruleId"`
			}
		}
	}
	if err := json.Unmarshal(b, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 || log.Runs[0].Results[0].RuleID != "CL002" || log.Runs[0].Results[1].RuleID != "CL008" ||
		len(log.Runs[0].Tool.Driver.Rules) == 0 {
		t.Errorf("sarif file: %v\n%s", err, b)
	}
	if code, _, stderr := runCLI(t, "review", "--fixture", seed000, "--sarif-file", filepath.Join(t.TempDir(), "no", "such", "dir", "x.sarif")); code != exitError ||
		!strings.Contains(stderr, "--sarif-file") {
		t.Errorf("unwritable --sarif-file: %d %q", code, stderr)
	}
}

func TestReviewTextBaseSideAndVerbose(t *testing.T) {
	fx := filepath.Join(fixtures, "cv001-option-deleted")
	_, out, _ := runCLI(t, "review", "--fixture", fx)
	if !regexp.MustCompile(`(?m)^benchmarks/single_node/agentic/dsv4_fp4_b300_sglang\.sh:55 \(base\): 🟡 \[CV001\]`).MatchString(out) {
		t.Errorf("base-side text location:\n%s", out)
	}
	_, fs, _ := reviewJSON(t, "--fixture", seed000)
	first := strings.SplitN(strings.TrimSpace(fs[0].Reasoning()), "\n", 2)[0]
	if first == "" {
		t.Skip("the fixture's finding has no extended reasoning")
	}
	_, plain, _ := runCLI(t, "review", "--fixture", seed000)
	_, verbose, _ := runCLI(t, "review", "--fixture", seed000, "--verbose")
	words := strings.Fields(first)[:3]
	if strings.Contains(plain, strings.Join(words, " ")) || !strings.Contains(verbose, strings.Join(words, " ")) {
		t.Errorf("--verbose must add the extended reasoning (%q):\n%s", words, verbose)
	}
	_, colour, _ := runCLI(t, "review", "--fixture", seed000, "--color", "always")
	if !strings.Contains(colour, "\x1b[1;31m[CL001]\x1b[0m") || strings.Contains(plain, "\x1b[") {
		t.Errorf("--color always:\n%q", colour)
	}
}

func TestReportUnusedIgnores(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	recipe := "#!/usr/bin/env bash\nset -euo pipefail\necho hello\n"
	for dir, content := range map[string]string{base: recipe, head: recipe + "# reviewbot:ignore SH009 kept from an older version\necho bye\n"} {
		p := filepath.Join(dir, "benchmarks", "single_node", "x.sh")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, fs, _ := reviewJSON(t, "--base-dir", base, "--head-dir", head); len(fs) != 0 {
		t.Errorf("without the flag: %v", fs)
	}
	code, fs, stderr := reviewJSON(t, "--base-dir", base, "--head-dir", head, "--report-unused-ignores")
	if code != exitOK || rulesOf(fs) != "RB003:warning" || fs[0].Line != 4 {
		t.Errorf("--report-unused-ignores: exit %d %v %s", code, fs, stderr)
	}
}

// Without --repo, review reads the repository the working directory is
// in, from its top or any subdirectory, as git does; --repo naming a
// subdirectory reads the same repository and says so.
func TestReviewDefaultRepo(t *testing.T) {
	dir, git, log := changelogRepo(t)
	sub := filepath.Join(dir, "docs", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "perf-changelog.yaml"), []byte(log+badEntry), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "pr")
	for _, wd := range []string{dir, sub} {
		t.Chdir(wd)
		if code, fs, stderr := reviewJSON(t, "--base", "HEAD~1", "--pr", "5"); code != exitBlocking || rulesOf(fs) != "CL001:blocking" {
			t.Errorf("from %s: exit %d %v %s", wd, code, fs, stderr)
		}
	}
	code, fs, stderr := reviewJSON(t, "--repo", sub, "--base", "HEAD~1", "--pr", "5")
	top, _ := filepath.EvalSymlinks(dir)
	if code != exitBlocking || rulesOf(fs) != "CL001:blocking" || !strings.Contains(stderr, "note: "+sub+" is inside the repository "+top+", which is what is read") {
		t.Errorf("--repo SUBDIR: exit %d %v %q", code, fs, stderr)
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(t, "review", "--base", "main"); code != exitError ||
		!strings.Contains(stderr, "the working directory is not in a git repository: give --repo DIR, --base-dir with --head-dir, or --fixture") {
		t.Errorf("outside a repository: exit %d %q", code, stderr)
	}
}

// Base and head swapped: the head is behind the base, there is nothing to
// review, and the review says so with exit 2 rather than "no problems".
func TestReviewHeadBehindBase(t *testing.T) {
	dir, git, log := changelogRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "perf-changelog.yaml"), []byte(log+badEntry), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "pr")
	code, out, stderr := runCLI(t, "review", "--repo", dir, "--base", "main", "--head", "main~1")
	if code != exitError || out != "" || !strings.Contains(stderr, "head main~1 (") || !strings.Contains(stderr, "is behind base main (") ||
		!strings.Contains(stderr, "were --base and --head swapped?") {
		t.Errorf("swapped: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// The same commit on both sides is an empty change, not an error.
	if code, _, stderr := runCLI(t, "review", "--repo", dir, "--base", "main", "--head", "main", "--pr", "5"); code != exitOK {
		t.Errorf("same commit: exit %d %q", code, stderr)
	}
}

// A repository with none of the files the rules review is not "no
// problems": the review names what it looked for and exits 2. One that
// lacks some says which, on stderr and in the JSON stats.
func TestReviewNothingToCheck(t *testing.T) {
	dir, git := gitRepo(t)
	git("init", "-q", "-b", "main")
	for i, name := range []string{"README.md", "src/main.go"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.Repeat("x\n", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", name)
	}
	code, out, stderr := runCLI(t, "review", "--repo", dir, "--base", "HEAD~1", "--pr", "3")
	want := "reviewbot review: nothing to check: " + dir + " has none of the files the rules review (perf changelog (perf-changelog.yaml); " +
		"master configs (configs/*-master.yaml, inferencex-e2e/configs/*-master.yaml, .github/configs/*-master.yaml); recipes (benchmarks/**/*.sh, inferencex-e2e/benchmarks/**/*.sh); " +
		"runners (runners/launch_*.sh, inferencex-e2e/runners/launch_*.sh)); review a repository laid out like InferenceX, or set paths: in .github/reviewbot.yml for another layout\n"
	if code != exitError || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q\nstderr %q\nwant   %q", code, out, stderr, want)
	}

	cl, _, _ := changelogRepo(t)
	code, out, stderr = runCLI(t, "review", "--repo", cl, "--base", "HEAD", "--format", "json")
	var rep struct {
		Stats struct {
			NotFound []struct{ Kind string } `json:"not_found"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK || len(rep.Stats.NotFound) != 3 || rep.Stats.NotFound[0].Kind != "master configs" {
		t.Errorf("changelog only: exit %d, %v %s", code, err, out)
	}
	if !strings.Contains(stderr, "note: not in this repository, so not checked: master configs (") {
		t.Errorf("stderr %q", stderr)
	}
}

// Without --pr the PR-number rules can check shapes only; the review says
// so once on stderr, and not when the number is known.
func TestReviewNotesUnknownPRNumber(t *testing.T) {
	const note = "note: no --pr, so the PR-number rules checked shapes only"
	if _, _, stderr := runCLI(t, "review", "--fixture", seed000); strings.Contains(stderr, note) {
		t.Errorf("the fixture knows its PR number: %q", stderr)
	}
	dir, _, _ := changelogRepo(t)
	if _, _, stderr := runCLI(t, "review", "--repo", dir, "--base", "HEAD"); strings.Count(stderr, note) != 1 {
		t.Errorf("without --pr: %q", stderr)
	}
	if _, _, stderr := runCLI(t, "review", "--repo", dir, "--base", "HEAD", "--pr", "9"); strings.Contains(stderr, note) {
		t.Errorf("with --pr: %q", stderr)
	}
}

// An unknown command or rule gets the likely one; help COMMAND is
// COMMAND -h.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     string
		stderrHead string
	}{
		{[]string{"reveiw"}, exitError, "", "reviewbot: unknown command \"reveiw\" (did you mean review?)\n"},
		{[]string{"conv"}, exitError, "", "reviewbot: unknown command \"conv\" (did you mean conventions?)\n"},
		{[]string{"frobnicate"}, exitError, "", "reviewbot: unknown command \"frobnicate\"\n"},
		{[]string{"help", "review"}, exitOK, "Usage: reviewbot review ", ""},
		{[]string{"help", "rule"}, exitError, "", "reviewbot help: unknown command \"rule\" (did you mean rules?)\n"},
		{[]string{"help"}, exitOK, "reviewbot reviews pull requests", ""},
	} {
		code, out, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.HasPrefix(out, tc.stdout) || !strings.HasPrefix(stderr, tc.stderrHead) || (tc.stderrHead == "" && stderr != "") {
			t.Errorf("%v: exit %d\nstdout %.80q\nstderr %q", tc.args, code, out, stderr)
		}
	}
	for _, tc := range []struct{ word, want string }{
		{"CL01", " (did you mean CL001?)"}, {"sh0009", " (did you mean SH009?)"}, {"XX999", ""}, {"", ""},
	} {
		if got := didYouMean(tc.word, []string{"CL001", "SH009", "SH001"}); got != tc.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
