// Package actions holds the example workflow of the reviewbot GitHub
// Action (action.yml at the repository root) and the test that runs the
// action's shell steps the way the Actions runner would.
package actions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const repoRoot = "../.."

// actionStep is a step of a composite action or a workflow job; decoding
// with known fields only, a misspelt key in action.yml fails the test.
type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	ContinueOnError  bool              `yaml:"continue-on-error"`
}

type action struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

func loadAction(t *testing.T) *action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func TestActionDefinition(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	var inputs []string
	for name, in := range a.Inputs {
		inputs = append(inputs, name)
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	for _, want := range []string{"fail-on", "config", "sarif-file", "version"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("input %q missing (have %v)", want, inputs)
		}
	}
	if a.Inputs["fail-on"].Default != "blocking" {
		t.Errorf("fail-on must default to blocking (fail only on 🔴)")
	}
	if out := a.Outputs["sarif-file"]; out.Value != "${{ steps.review.outputs.sarif-file }}" {
		t.Errorf("sarif-file output = %q", out.Value)
	}
	steps := a.Runs.Steps
	if len(steps) == 0 || steps[0].ID != "download" {
		t.Errorf("the first step must download the release: %+v", steps)
	}
	// The toolchain is set up only to build from source, the one go.mod
	// pins, under the same condition as the build.
	var setupGo, build *actionStep
	for i := range steps {
		switch {
		case strings.HasPrefix(steps[i].Uses, "actions/setup-go@v"):
			setupGo = &steps[i]
		case steps[i].ID == "build":
			build = &steps[i]
		}
	}
	if setupGo == nil || build == nil || setupGo.With["go-version-file"] != "${{ github.action_path }}/go.mod" ||
		setupGo.If != "steps.download.outputs.path == ''" || build.If != setupGo.If {
		t.Errorf("setup-go and the build run only when nothing was downloaded: %+v %+v", setupGo, build)
	}
	for _, s := range steps {
		if s.Uses != "" {
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %q: shell %q (composite run steps need one; the scripts are bash)", s.Name, s.Shell)
		}
		// Expressions are expanded before the shell sees the script: one in
		// the script would paste event data (a branch name, a title) into
		// shell code.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q expands an expression inside its script; pass it through env", s.Name)
		}
	}
}

// runner runs the action's run steps as the Actions runner would: each
// script through `bash --noprofile --norc -eo pipefail`, expressions in env
// evaluated against the inputs, the event payload and earlier steps'
// outputs, with the runner's files (GITHUB_OUTPUT, GITHUB_EVENT_PATH, ...)
// in a temporary directory.
type runner struct {
	t         *testing.T
	inputs    map[string]string
	event     map[string]any
	eventPath string
	workspace string
	temp      string
	outputs   map[string]map[string]string // step id → outputs
	pathDirs  []string                     // prepended to PATH
	// The action's repository and ref, the server it downloads releases
	// from, and the runner's platform.
	actionRepo, actionRef, serverURL string
	runnerOS, runnerArch             string
}

func newRunner(t *testing.T, a *action, workspace string, event map[string]any, inputs map[string]string) *runner {
	t.Helper()
	r := &runner{t: t, inputs: map[string]string{}, event: event, workspace: workspace, temp: t.TempDir(),
		outputs:    map[string]map[string]string{},
		actionRepo: "reviewbot-dev/reviewbot", actionRef: "v0.0.0-actiontest",
		// Nothing listens there: no test reaches the network.
		serverURL: "http://127.0.0.1:1", runnerOS: "Linux", runnerArch: "X64"}
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	for k, v := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("no input %q in action.yml", k)
		}
		r.inputs[k] = v
	}
	b, _ := json.Marshal(event)
	r.eventPath = filepath.Join(r.temp, "event.json")
	if err := os.WriteFile(r.eventPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// eval evaluates the expressions the action uses; any other is a test
// failure, so the simulation cannot silently diverge from the action.
func (r *runner) eval(e string) string {
	abs, _ := filepath.Abs(repoRoot)
	switch {
	case strings.HasPrefix(e, "inputs."):
		v, ok := r.inputs[strings.TrimPrefix(e, "inputs.")]
		if !ok {
			r.t.Errorf("expression %q names an undeclared input", e)
		}
		return v
	case e == "github.action_path":
		return abs
	case e == "github.action_ref":
		return r.actionRef
	case e == "github.action_repository":
		return r.actionRepo
	case e == "github.server_url":
		return r.serverURL
	case e == "github.workspace":
		return r.workspace
	case strings.HasPrefix(e, "github.event."):
		var v any = r.event
		for _, k := range strings.Split(strings.TrimPrefix(e, "github.event."), ".") {
			m, ok := v.(map[string]any)
			if !ok {
				return ""
			}
			v = m[k]
		}
		switch v := v.(type) {
		case nil:
			return ""
		case string:
			return v
		case float64:
			return fmt.Sprint(int64(v))
		default:
			return fmt.Sprint(v)
		}
	case strings.HasPrefix(e, "steps."):
		parts := strings.Split(e, ".")
		if len(parts) == 4 && parts[2] == "outputs" {
			return r.outputs[parts[1]][parts[3]]
		}
	}
	r.t.Errorf("the test runner cannot evaluate ${{ %s }}", e)
	return ""
}

type stepResult struct {
	code           int
	stdout, stderr string
}

func (r *runner) run(s actionStep) stepResult {
	r.t.Helper()
	script := filepath.Join(r.temp, "step-"+s.ID+".sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	output := filepath.Join(r.temp, "output-"+s.ID)
	if err := os.WriteFile(output, nil, 0o644); err != nil {
		r.t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "RUNNER_") || name == "PATH" || name == "GOFLAGS" {
			continue
		}
		env = append(env, kv)
	}
	path := os.Getenv("PATH")
	if goBin, err := exec.LookPath("go"); err == nil {
		path = filepath.Dir(goBin) + string(os.PathListSeparator) + path
	}
	for _, d := range r.pathDirs {
		path = d + string(os.PathListSeparator) + path
	}
	abs, _ := filepath.Abs(repoRoot)
	env = append(env, "PATH="+path,
		// The runner downloads the action's source without .git; here it is a
		// checkout, so VCS stamping is off to build what the runner builds.
		"GOFLAGS=-buildvcs=false",
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_WORKSPACE="+r.workspace, "GITHUB_EVENT_PATH="+r.eventPath, "GITHUB_EVENT_NAME=pull_request",
		"GITHUB_OUTPUT="+output, "GITHUB_ENV="+filepath.Join(r.temp, "env"), "GITHUB_PATH="+filepath.Join(r.temp, "path"),
		"GITHUB_STEP_SUMMARY="+filepath.Join(r.temp, "summary"), "GITHUB_ACTION_PATH="+abs,
		"RUNNER_TEMP="+r.temp, "RUNNER_OS="+r.runnerOS, "RUNNER_ARCH="+r.runnerArch)
	for k, v := range s.Env {
		env = append(env, k+"="+expr.ReplaceAllStringFunc(v, func(m string) string {
			return r.eval(expr.FindStringSubmatch(m)[1])
		}))
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = r.workspace
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := stepResult{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			r.t.Fatalf("step %q: %v", s.Name, err)
		}
		res.code = ee.ExitCode()
	}
	r.outputs[s.ID] = parseOutputFile(r.t, output)
	return res
}

// parseOutputFile reads a GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER blocks.
func parseOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(line, "="); ok {
			out[name] = val
		} else if line != "" {
			t.Errorf("malformed GITHUB_OUTPUT line %q", line)
		}
	}
	return out
}

// install runs the action's steps up to and including "install" as the
// runner would: a step whose if: is false is skipped, and the setup-go
// step stands for the toolchain the test already has. It returns the
// install step's result and the names of the steps that ran.
func (r *runner) install(a *action) (stepResult, []string) {
	r.t.Helper()
	var ran []string
	for _, s := range a.Runs.Steps {
		if s.If != "" && !r.condition(s.If) {
			continue
		}
		ran = append(ran, s.Name)
		if s.Uses != "" {
			continue
		}
		res := r.run(s)
		if s.ID == "install" || res.code != 0 {
			return res, ran
		}
	}
	r.t.Fatal("action.yml has no install step")
	return stepResult{}, nil
}

var outputIsEmpty = regexp.MustCompile(`^steps\.([a-z-]+)\.outputs\.([a-z-]+) == ''$`)

// condition evaluates the if: conditions the action uses.
func (r *runner) condition(c string) bool {
	m := outputIsEmpty.FindStringSubmatch(c)
	if m == nil {
		r.t.Fatalf("the test runner cannot evaluate if: %s", c)
	}
	return r.outputs[m[1]][m[2]] == ""
}

func stepByID(t *testing.T, a *action, id string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step %q", id)
	return actionStep{}
}

// fixtureRepo is a clone-like repository whose main has a perf changelog
// and whose PR branch appends an entry with the given pr-link.
type fixtureRepo struct {
	dir              string
	baseSHA, headSHA string
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

const baseLog = "- config-keys:\n    - k\n  description:\n    - \"x\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"

func newFixtureRepo(t *testing.T, prLink string) fixtureRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "workspace")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	write := func(p, c string) {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("perf-changelog.yaml", baseLog)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	base := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "-b", "pr")
	write("perf-changelog.yaml", baseLog+"\n- config-keys:\n    - k\n  description:\n    - \"y\"\n  pr-link: "+prLink+"\n")
	write(".github/reviewbot-ci.yml", "rules:\n  CL001: off\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "pr")
	head := git(t, dir, "rev-parse", "HEAD")
	// actions/checkout leaves the PR's merge commit checked out.
	git(t, dir, "checkout", "-q", "main")
	git(t, dir, "merge", "-q", "--no-ff", "-m", "merge pr", "pr")
	return fixtureRepo{dir: dir, baseSHA: base, headSHA: head}
}

func prEvent(number int, base, head string) map[string]any {
	return map[string]any{"action": "synchronize", "number": number, "pull_request": map[string]any{
		"number": number,
		"base":   map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"name": "InferenceX", "owner": map[string]any{"login": "SemiAnalysisAI"}}},
		"head":   map[string]any{"sha": head, "ref": "pr"},
	}}
}

// installReviewbot runs the action's install step once per test; the
// review cases reuse the binary it built.
func installReviewbot(t *testing.T, a *action, r *runner) string {
	t.Helper()
	res, _ := r.install(a)
	if res.code != 0 {
		t.Fatalf("install step: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	bin := r.outputs["install"]["path"]
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("install step output path %q: %v", bin, err)
	}
	if !strings.HasPrefix(res.stdout, "reviewbot v0.0.0-actiontest (") {
		t.Errorf("installed binary's version: %q (want the action ref)", res.stdout)
	}
	return bin
}

func TestActionSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds reviewbot")
	}
	a := loadAction(t)
	bad := newFixtureRepo(t, "TBD")
	installer := newRunner(t, a, bad.dir, prEvent(42, bad.baseSHA, bad.headSHA), nil)
	bin := installReviewbot(t, a, installer)

	review := stepByID(t, a, "review")
	runReview := func(t *testing.T, repo fixtureRepo, event map[string]any, inputs map[string]string) (stepResult, *runner) {
		t.Helper()
		r := newRunner(t, a, repo.dir, event, inputs)
		r.outputs["install"] = map[string]string{"path": bin}
		return r.run(review), r
	}

	t.Run("blocking finding fails the step", func(t *testing.T) {
		res, r := runReview(t, bad, prEvent(42, bad.baseSHA, bad.headSHA), nil)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stdout, "::error file=perf-changelog.yaml,line=11,title=[CL001]") {
			t.Errorf("annotations:\n%s", res.stdout)
		}
		sarif := r.outputs["review"]["sarif-file"]
		if sarif != filepath.Join(bad.dir, "reviewbot.sarif") {
			t.Errorf("sarif-file output %q", sarif)
		}
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Version string `json:"version"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		b, err := os.ReadFile(sarif)
		if err != nil || json.Unmarshal(b, &log) != nil || log.Version != "2.1.0" || len(log.Runs) != 1 ||
			len(log.Runs[0].Results) != 1 || log.Runs[0].Results[0].RuleID != "CL001" || log.Runs[0].Tool.Driver.Version != "v0.0.0-actiontest" {
			t.Errorf("SARIF log %s: %v\n%s", sarif, err, b)
		}
	})

	t.Run("fail-on never reports without failing", func(t *testing.T) {
		res, _ := runReview(t, bad, prEvent(42, bad.baseSHA, bad.headSHA), map[string]string{"fail-on": "never", "sarif-file": "out/findings.sarif"})
		if res.code != 0 || !strings.Contains(res.stdout, "::error file=perf-changelog.yaml") {
			t.Errorf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(bad.dir, "out", "findings.sarif")); err != nil {
			t.Errorf("relative sarif-file: %v", err)
		}
	})

	t.Run("config input", func(t *testing.T) {
		res, _ := runReview(t, bad, prEvent(42, bad.baseSHA, bad.headSHA), map[string]string{"config": ".github/reviewbot-ci.yml"})
		if res.code != 0 || strings.Contains(res.stdout, "::error") {
			t.Errorf("CL001 turned off by the config input: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
	})

	t.Run("clean pull request", func(t *testing.T) {
		clean := newFixtureRepo(t, "https://github.com/SemiAnalysisAI/InferenceX/pull/43")
		res, r := runReview(t, clean, prEvent(43, clean.baseSHA, clean.headSHA), nil)
		if res.code != 0 || strings.Contains(res.stdout, "::error") || strings.Contains(res.stdout, "::warning") {
			t.Errorf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		if b, err := os.ReadFile(r.outputs["review"]["sarif-file"]); err != nil || !bytes.Contains(b, []byte(`"results": []`)) {
			t.Errorf("clean SARIF: %v %s", err, b)
		}
	})

	t.Run("shallow checkout", func(t *testing.T) {
		// actions/checkout's default, fetch-depth: 1, of the merge commit.
		shallow := filepath.Join(t.TempDir(), "workspace")
		git(t, t.TempDir(), "clone", "-q", "--depth", "1", "file://"+bad.dir, shallow)
		repo := fixtureRepo{dir: shallow, baseSHA: bad.baseSHA, headSHA: bad.headSHA}
		res, _ := runReview(t, repo, prEvent(42, bad.baseSHA, bad.headSHA), nil)
		if res.code != 2 || !strings.Contains(res.stdout, "::error title=reviewbot::") || !strings.Contains(res.stdout, "fetch-depth: 0") {
			t.Errorf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
	})

	t.Run("not a pull request", func(t *testing.T) {
		res, _ := runReview(t, bad, map[string]any{"ref": "refs/heads/main", "after": bad.headSHA}, nil)
		if res.code != 2 || !strings.Contains(res.stdout, "::error title=reviewbot::reviewbot reviews pull requests") {
			t.Errorf("push event: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
	})
}

// With a version the release does not have (or the server does not
// answer), the action builds that version from source with go install; a
// stand-in go records the call (the test has no network).
func TestActionInstallVersion(t *testing.T) {
	a := loadAction(t)
	fakeBin, record := fakeGo(t)
	r := newRunner(t, a, t.TempDir(), prEvent(1, strings.Repeat("a", 40), strings.Repeat("b", 40)), map[string]string{"version": "v1.2.3"})
	r.pathDirs = []string{fakeBin}
	res, _ := r.install(a)
	calls, _ := os.ReadFile(record)
	want := "install -tags noserve github.com/reviewbot-dev/reviewbot/cmd/reviewbot@v1.2.3 GOBIN=" + filepath.Join(r.temp, "reviewbot-bin") + "\n"
	if res.code != 0 || string(calls) != want || r.outputs["install"]["path"] != filepath.Join(r.temp, "reviewbot-bin", "reviewbot") {
		t.Errorf("exit %d, go calls %q (want %q), outputs %v\n%s", res.code, calls, want, r.outputs["install"], res.stderr)
	}
}

// fakeGo is a directory with a stand-in go that records its calls in the
// returned file and "installs" a reviewbot printing v1.2.3.
func fakeGo(t *testing.T) (dir, record string) {
	t.Helper()
	dir = t.TempDir()
	record = filepath.Join(dir, "calls")
	script := "#!/usr/bin/env bash\nprintf '%s GOBIN=%s\\n' \"$*\" \"$GOBIN\" >> " + record + "\n" +
		"printf '#!/bin/sh\\necho reviewbot v1.2.3\\n' > \"$GOBIN/reviewbot\"\nchmod +x \"$GOBIN/reviewbot\"\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, record
}

// TestActionDownloadsRelease builds release archives with the release
// script (deploy/release/build.sh), serves them as GitHub serves a
// release's assets, and runs the action's install steps against them: the
// release binary is downloaded, checked against checksums.txt and run; a
// tampered archive stops the step; a release without the runner's platform
// falls back to building from source.
func TestActionDownloadsRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release archive")
	}
	for _, tool := range []string{"curl", "tar", "gzip", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || runnerArch == "" {
		t.Skipf("no runner like %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dist := t.TempDir()
	build := exec.Command("bash", filepath.Join(repoRoot, "deploy", "release", "build.sh"), "v1.2.3", dist, runtime.GOOS+"/"+runtime.GOARCH)
	// The CLI alone: the test is about the archives and their download, and
	// it shares the compiled packages of the action's own source build.
	build.Env = append(os.Environ(), "GOFLAGS=-tags=noserve")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	archive := "reviewbot_1.2.3_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil || !regexp.MustCompile(`^[0-9a-f]{64}  `+regexp.QuoteMeta(archive)+"\n$").Match(sums) {
		t.Fatalf("checksums.txt: %v %q", err, sums)
	}
	assets := map[string][]byte{}
	for _, name := range []string{archive, "checksums.txt"} {
		if assets[name], err = os.ReadFile(filepath.Join(dist, name)); err != nil {
			t.Fatal(err)
		}
	}
	var served []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		served = append(served, req.URL.Path)
		name, ok := strings.CutPrefix(req.URL.Path, "/reviewbot-dev/reviewbot/releases/download/v1.2.3/")
		if b, found := assets[name]; ok && found {
			w.Write(b)
			return
		}
		http.NotFound(w, req)
	}))
	defer srv.Close()

	a := loadAction(t)
	fakeBin, record := fakeGo(t)
	install := func(t *testing.T, ref, version, runnerOS string) (stepResult, *runner, []string) {
		t.Helper()
		r := newRunner(t, a, t.TempDir(), prEvent(1, strings.Repeat("a", 40), strings.Repeat("b", 40)), map[string]string{"version": version})
		r.serverURL, r.actionRef, r.runnerOS, r.runnerArch = srv.URL, ref, runnerOS, runnerArch
		r.pathDirs = []string{fakeBin}
		os.Remove(record)
		res, ran := r.install(a)
		return res, r, ran
	}

	t.Run("the version input", func(t *testing.T) {
		res, r, ran := install(t, "main", "v1.2.3", "Linux")
		if res.code != 0 || !strings.HasPrefix(res.stdout, "reviewbot v1.2.3 (") ||
			r.outputs["install"]["path"] != filepath.Join(r.temp, "reviewbot-release", "reviewbot") {
			t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		if strings.Join(ran, "|") != "Download the reviewbot release|Install reviewbot" {
			t.Errorf("steps run: %v (nothing is built when the release is downloaded)", ran)
		}
	})
	t.Run("the release the action's ref names", func(t *testing.T) {
		if res, r, _ := install(t, "v1.2.3", "", "Linux"); res.code != 0 || r.outputs["download"]["path"] == "" {
			t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
		}
	})
	t.Run("a tampered archive is not run", func(t *testing.T) {
		good := assets[archive]
		assets[archive] = append(append([]byte(nil), good...), 0)
		defer func() { assets[archive] = good }()
		res, r, ran := install(t, "main", "v1.2.3", "Linux")
		if res.code != 1 || !strings.Contains(res.stdout, "::error title=reviewbot::"+archive+" of release v1.2.3 does not match the release's checksums.txt") ||
			r.outputs["install"]["path"] != "" || len(ran) != 1 {
			t.Fatalf("exit %d, steps %v\n%s\n%s", res.code, ran, res.stdout, res.stderr)
		}
	})
	t.Run("no release binary for the runner", func(t *testing.T) {
		res, _, ran := install(t, "main", "v1.2.3", "Windows")
		calls, _ := os.ReadFile(record)
		if res.code != 0 || !strings.Contains(string(calls), "install -tags noserve github.com/reviewbot-dev/reviewbot/cmd/reviewbot@v1.2.3") || len(ran) != 4 {
			t.Fatalf("exit %d, steps %v, go calls %q\n%s", res.code, ran, calls, res.stderr)
		}
	})
	t.Run("a release that does not exist", func(t *testing.T) {
		res, _, _ := install(t, "main", "v9.9.9", "Linux")
		calls, _ := os.ReadFile(record)
		if res.code != 0 || !strings.Contains(string(calls), "@v9.9.9") {
			t.Fatalf("exit %d, go calls %q\n%s\n%s", res.code, calls, res.stdout, res.stderr)
		}
	})
	if len(served) == 0 {
		t.Error("nothing was downloaded")
	}
}

// TestExampleWorkflow checks the example the README points to: full
// history, the action, and the SARIF upload of its output.
func TestExampleWorkflow(t *testing.T) {
	b, err := os.ReadFile("reviewbot.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if _, ok := wf.On["pull_request"]; !ok {
		t.Errorf("the example must run on pull_request: %v", wf.On)
	}
	if wf.Permissions["security-events"] != "write" {
		t.Errorf("upload-sarif needs security-events: write")
	}
	var steps []actionStep
	for _, j := range wf.Jobs {
		steps = append(steps, j.Steps...)
	}
	var checkout, bot, upload *actionStep
	for i := range steps {
		s := &steps[i]
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			checkout = s
		case strings.HasPrefix(s.Uses, "reviewbot-dev/reviewbot@"):
			bot = s
		case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@"):
			upload = s
		}
	}
	if checkout == nil || checkout.With["fetch-depth"] != "0" {
		t.Errorf("checkout must fetch the full history (fetch-depth: 0): %+v", checkout)
	}
	if bot == nil || bot.ID == "" {
		t.Fatalf("the example must use the action with an id: %+v", bot)
	}
	a := loadAction(t)
	for k := range bot.With {
		if _, ok := a.Inputs[k]; !ok {
			t.Errorf("the example passes %q, which action.yml does not declare", k)
		}
	}
	if upload == nil || upload.With["sarif_file"] != "${{ steps."+bot.ID+".outputs.sarif-file }}" {
		t.Errorf("upload-sarif must upload the action's sarif-file output: %+v", upload)
	}
}
