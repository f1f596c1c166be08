package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README rule table")

const fixtures = "../../testdata/prs"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestReviewFixtureFormats(t *testing.T) {
	fx := filepath.Join(fixtures, "cl-seed000-other-pr-number")
	if _, err := os.Stat(fx); err != nil {
		t.Skip("fixture not present")
	}
	code, out, stderr := runCLI(t, "review", "--fixture", fx, "--format", "json")
	if code != exitBlocking {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var rep struct {
		Findings []struct {
			Rule, Severity, Path, Title, Body string
			Line                              int
		}
		Stats struct {
			Files, Rules int
			ElapsedMS    *int64 `json:"elapsed_ms"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json output: %v\n%s", err, out)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Rule != "CL001" || rep.Findings[0].Severity != "blocking" || rep.Findings[0].Line == 0 {
		t.Errorf("findings %+v", rep.Findings)
	}
	if rep.Stats.Files == 0 || rep.Stats.Rules == 0 || rep.Stats.ElapsedMS == nil {
		t.Errorf("stats %+v", rep.Stats)
	}
	for _, format := range []string{"text", "markdown", "sarif", "github"} {
		code, out, stderr := runCLI(t, "review", "--fixture", fx, "--format", format)
		if code != exitBlocking || out == "" {
			t.Errorf("%s: exit %d, %d bytes, stderr %s", format, code, len(out), stderr)
		}
		if format == "github" && !strings.HasPrefix(out, "::error file=") {
			t.Errorf("github format: %q", out)
		}
		if format == "markdown" && !strings.Contains(out, "<!-- reviewbot:finding rule=CL001") {
			t.Errorf("markdown lacks the finding marker:\n%s", out)
		}
	}
}

func TestReviewCleanFixtureExitsZero(t *testing.T) {
	fx := filepath.Join(fixtures, "cl-clean-no-pr-number")
	if _, err := os.Stat(fx); err != nil {
		t.Skip("fixture not present")
	}
	if code, out, stderr := runCLI(t, "review", "--fixture", fx); code != exitOK {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
}

func TestReviewDirs(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	log := "- config-keys:\n    - a-fp8-b200-vllm\n  description:\n    - \"x\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
	cfg := "a-fp8-b200-vllm:\n  image: vllm/vllm-openai:v1\n  model: m\n  model-prefix: a\n  runner: b200\n  precision: fp8\n  framework: vllm\n  multinode: false\n"
	for dir, files := range map[string]map[string]string{
		base: {"perf-changelog.yaml": log, "configs/nvidia-master.yaml": cfg},
		head: {"perf-changelog.yaml": log + "\n- config-keys:\n    - a-fp8-b200-vllm\n  description:\n    - \"y\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXXX\n", "configs/nvidia-master.yaml": cfg},
	} {
		for p, c := range files {
			full := filepath.Join(dir, p)
			os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, out, stderr := runCLI(t, "review", "--base-dir", base, "--head-dir", head, "--pr", "42", "--format", "github")
	if code != exitBlocking || !strings.Contains(out, "file=perf-changelog.yaml,line=11") || !strings.Contains(out, "CL001") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// gitRepo returns a new directory and a function that runs git in it,
// apart from the user's and the system's git configuration. The test is
// skipped when git is not installed.
func gitRepo(t *testing.T) (string, func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	return dir, func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func TestReviewGitRepo(t *testing.T) {
	dir, git := gitRepo(t)
	write := func(p, c string) {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	log := "- config-keys:\n    - k\n  description:\n    - \"x\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
	write("perf-changelog.yaml", log)
	git("add", ".")
	git("commit", "-q", "-m", "base")
	write("perf-changelog.yaml", log+"\n- config-keys:\n    - k\n  description:\n    - \"y\"\n  pr-link: TBD\n")
	git("commit", "-q", "-am", "pr")
	bare := filepath.Join(t.TempDir(), "bare.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	for _, repo := range []string{dir, bare} {
		code, out, stderr := runCLI(t, "review", "--repo", repo, "--base", "HEAD~1", "--head", "main", "--pr", "5", "--format", "text")
		if code != exitBlocking || !strings.Contains(out, "perf-changelog.yaml:11") {
			t.Errorf("%s: exit %d\n%s\n%s", repo, code, out, stderr)
		}
	}
	// The same revision on both sides: nothing to say.
	if code, out, stderr := runCLI(t, "review", "--repo", dir, "--base", "HEAD", "--head", "HEAD"); code != exitOK {
		t.Errorf("no-op review: exit %d\n%s\n%s", code, out, stderr)
	}
}

func TestReviewErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	notRepo := t.TempDir()
	repo, git := gitRepo(t)
	git("init", "-q")
	// Outside any repository, with no source given.
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"review"}, "the working directory is not in a git repository: give --repo DIR, --base-dir with --head-dir, or --fixture"},
		{"two sources", []string{"review", "--repo", ".", "--fixture", "x"}, "exactly one of"},
		{"missing repo", []string{"review", "--repo", missing, "--base", "HEAD"}, "no such directory"},
		{"not a repo", []string{"review", "--repo", notRepo, "--base", "HEAD"}, "not a git repository"},
		{"no base", []string{"review", "--repo", repo}, "--base is required: the branch the change goes into (e.g. --base origin/main)"},
		{"bad format", []string{"review", "--format", "xml", "--fixture", "x"}, `invalid value "xml" for flag -format: want text, json, markdown, sarif or github`},
		{"md is not a format", []string{"review", "--format", "md", "--fixture", "x"}, `invalid value "md"`},
		{"bad flag", []string{"review", "--frobnicate"}, "flag provided but not defined: -frobnicate (see reviewbot review -h)"},
		{"removed --author", []string{"review", "--author", "x"}, "flag provided but not defined: -author"},
		{"bad date", []string{"review", "--base-dir", notRepo, "--head-dir", notRepo, "--date", "yesterday"}, "YYYY-MM-DD"},
		{"half dirs", []string{"review", "--base-dir", notRepo}, "go together"},
		{"missing dir", []string{"review", "--base-dir", missing, "--head-dir", notRepo}, "nope"},
		{"missing fixture", []string{"review", "--fixture", missing}, "pr.json"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"stray arg", []string{"review", "extra"}, "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitError || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want it to contain %q", code, stderr, tc.want)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(stderr, "Usage") {
				t.Errorf("error must be one line: %q", stderr)
			}
		})
	}
}

func TestReviewUnknownRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("git", "-C", dir, "init", "-q")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	code, _, stderr := runCLI(t, "review", "--repo", dir, "--base", "does-not-exist")
	if code != exitError || !strings.Contains(stderr, `unknown revision "does-not-exist"`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

func TestRulesCommand(t *testing.T) {
	code, out, _ := runCLI(t, "rules")
	if code != exitOK || !strings.Contains(out, "CL001") || !strings.Contains(out, "🔴") {
		t.Errorf("rules text: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "rules", "--format", "json")
	var rules []struct{ ID, Severity, Title, Doc string }
	if code != exitOK || json.Unmarshal([]byte(out), &rules) != nil || len(rules) == 0 {
		t.Fatalf("rules json: %d %q", code, out)
	}
	for _, r := range rules {
		if r.Doc == "" || r.Title == "" || (r.Severity != "blocking" && r.Severity != "warning") {
			t.Errorf("incomplete rule %+v", r)
		}
	}
	if code, _, _ := runCLI(t, "rules", "--format", "yaml"); code != exitError {
		t.Error("bad format accepted")
	}
}

var rulesSection = regexp.MustCompile(`(?s)<!-- rules:start -->\n.*?<!-- rules:end -->`)

// TestREADMERules keeps the README's rule table equal to the registry.
func TestREADMERules(t *testing.T) {
	const readme = "../../docs/rules.md"
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := runCLI(t, "rules", "--format", "markdown")
	want := "<!-- rules:start -->\n" + table + "<!-- rules:end -->"
	if !rulesSection.Match(b) {
		t.Fatal("docs/rules.md has no <!-- rules:start --> ... <!-- rules:end --> section")
	}
	got := rulesSection.Find(b)
	if string(got) == want {
		return
	}
	if *update {
		if err := os.WriteFile(readme, rulesSection.ReplaceAllLiteral(b, []byte(want)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the rule table of docs/rules.md is stale; run go test ./cmd/reviewbot -run TestREADMERules -update")
}

// A build with -tags noserve is the CLI without the App: it links none of
// the packages only serve needs, still reviews, and says what serve and
// replay need.
func TestNoServeBuild(t *testing.T) {
	list := exec.Command("go", "list", "-tags", "noserve", "-deps", "./cmd/reviewbot")
	list.Dir = "../.."
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, serveOnly := range []string{"github.com/google/go-github/", "github.com/prometheus/", "github.com/redis/go-redis/", "github.com/go-chi/chi/",
			"github.com/reviewbot-dev/reviewbot/app"} {
			if strings.HasPrefix(pkg, serveOnly) && pkg != "github.com/reviewbot-dev/reviewbot/checks/signoff" {
				t.Errorf("the noserve build links %s", pkg)
			}
		}
	}
	if testing.Short() {
		return
	}
	bin := filepath.Join(t.TempDir(), "reviewbot")
	build := exec.Command("go", "build", "-tags", "noserve", "-o", bin, "./cmd/reviewbot")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags noserve: %v\n%s", err, out)
	}
	fx, _ := filepath.Abs(seed000)
	if err := exec.Command(bin, "review", "--fixture", fx).Run(); exitCode(err) != exitBlocking {
		t.Errorf("review: %v", err)
	}
	for _, cmd := range []string{"serve", "replay"} {
		out, err := exec.Command(bin, cmd).CombinedOutput()
		if exitCode(err) != exitError || !strings.Contains(string(out), "built without the GitHub App (-tags noserve)") {
			t.Errorf("%s: %v %s", cmd, err, out)
		}
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// A local tree with a named pipe and a link out of the tree is reviewed:
// the pipe named as not reviewed (never opened), the linked .github never
// read, the other files' findings printed.
func TestReviewDirsWithHostileFiles(t *testing.T) {
	base, head, outside := t.TempDir(), t.TempDir(), t.TempDir()
	log := "- config-keys:\n    - a-fp8-b200-vllm\n  description:\n    - \"x\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
	for dir, files := range map[string]map[string]string{
		base:    {"perf-changelog.yaml": log, "benchmarks/single_node/p_vllm.sh": "vllm serve m\n"},
		head:    {"perf-changelog.yaml": log + "\n- config-keys:\n    - a-fp8-b200-vllm\n  description:\n    - \"y\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXXX\n"},
		outside: {"reviewbot.yml": "rules:\n  CL001: off\n"},
	} {
		for p, c := range files {
			full := filepath.Join(dir, p)
			os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.MkdirAll(filepath.Join(head, "benchmarks", "single_node"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(head, "benchmarks", "single_node", "p_vllm.sh"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, dir := range []string{base, head} {
		if err := os.Symlink(outside, filepath.Join(dir, ".github")); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runCLI(t, "review", "--base-dir", base, "--head-dir", head, "--pr", "42", "--color", "never")
	if code != exitBlocking || !strings.Contains(out, "CL001") {
		t.Errorf("exit %d: CL001 must run (the linked configuration that disables it is outside the tree)\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "not reviewed: benchmarks/single_node/p_vllm.sh — a named pipe, not a regular file") ||
		!strings.Contains(out, "1 file not reviewed") {
		t.Errorf("output:\n%s", out)
	}
}

// serve and history keep caches for hours: they run with a smaller GC
// target than the one-shot commands.
func TestGCTarget(t *testing.T) {
	for args, want := range map[string]int{"serve": 50, "history --n 5": 100, "review --fixture x": 400, "": 400, "pipeline": 400} {
		if got := gcPercent(strings.Fields(args)); got != want {
			t.Errorf("gcPercent(%q) = %v, want %v", args, got, want)
		}
	}
}
