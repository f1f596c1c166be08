// Package actions holds the example workflow of the reviewbot GitHub
// Action (action.yml at the repository root) and the test that runs the
// action's shell steps the way the Actions runner would.
package actions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	if len(steps) == 0 || !strings.HasPrefix(steps[0].Uses, "actions/setup-go@v") ||
		steps[0].With["go-version-file"] != "${{ github.action_path }}/go.mod" {
		t.Errorf("first step must install the toolchain go.mod pins with actions/setup-go: %+v", steps)
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
}

func newRunner(t *testing.T, a *action, workspace string, event map[string]any, inputs map[string]string) *runner {
	t.Helper()
	r := &runner{t: t, inputs: map[string]string{}, event: event, workspace: workspace, temp: t.TempDir(),
		outputs: map[string]map[string]string{}}
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
		return "v0.0.0-actiontest"
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
		"RUNNER_TEMP="+r.temp, "RUNNER_OS=Linux")
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
	res := r.run(stepByID(t, a, "install"))
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
		clean := newFixtureRepo(t, "https://github.com/SemiAnalysisAI/InferenceX/pull/XXX")
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

// With the version input, the install step installs that release with go
// install; a stand-in go records the call (the test has no network).
func TestActionInstallVersion(t *testing.T) {
	a := loadAction(t)
	fakeBin := t.TempDir()
	record := filepath.Join(fakeBin, "calls")
	fakeGo := "#!/usr/bin/env bash\nprintf '%s GOBIN=%s\\n' \"$*\" \"$GOBIN\" >> " + record + "\n" +
		"printf '#!/bin/sh\\necho reviewbot v1.2.3\\n' > \"$GOBIN/reviewbot\"\nchmod +x \"$GOBIN/reviewbot\"\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, a, t.TempDir(), prEvent(1, strings.Repeat("a", 40), strings.Repeat("b", 40)), map[string]string{"version": "v1.2.3"})
	r.pathDirs = []string{fakeBin}
	res := r.run(stepByID(t, a, "install"))
	calls, _ := os.ReadFile(record)
	want := "install github.com/reviewbot-dev/reviewbot/cmd/reviewbot@v1.2.3 GOBIN=" + filepath.Join(r.temp, "reviewbot-bin") + "\n"
	if res.code != 0 || string(calls) != want || r.outputs["install"]["path"] != filepath.Join(r.temp, "reviewbot-bin", "reviewbot") {
		t.Errorf("exit %d, go calls %q (want %q), outputs %v\n%s", res.code, calls, want, r.outputs["install"], res.stderr)
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
