package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's quick start and walkthroughs are run exactly as written: a
// newcomer copies them, so they must work on a fresh clone. Each runnable
// block is a ```sh block after a line
//
//	<!-- readme-test: NAME [ci] [background=HOST:PORT] -->
//
// Blocks of one NAME form a walkthrough and run in README order; a
// background block is one command that keeps running (a terminal of its
// own) and is ready when HOST:PORT accepts connections. A ci walkthrough
// runs only when REVIEWBOT_README_RUN=1 (.ci/run sets it): the quick
// start's `go test ./...` is this test suite, which then runs once more
// around this test (which skips itself inside it).
//
// What each command must do is below, by its text; a command without an
// entry must exit 0. An entry no README command has is an error, so the
// README and this table cannot drift apart.

const readmeRunEnv = "REVIEWBOT_README_RUN"

type readmeExpect struct {
	exit int
	// out are phrases the output must hold.
	out []string
	// eventually reruns the command until its output holds them: it reads
	// the result of work the App does after acknowledging a delivery.
	eventually bool
}

var readmeExpects = map[string]readmeExpect{
	"go run -tags noserve ./cmd/reviewbot review --fixture testdata/prs/cl-seed000-other-pr-number": {exit: 1,
		out: []string{"perf-changelog.yaml:156: 🔴 [CL001]", "reviewbot: 1 🔴 blocking in 1 changed file"}},
	"go test ./...":              {out: []string{"ok  \tgithub.com/reviewbot-dev/reviewbot/cmd/reviewbot"}},
	"go install ./cmd/reviewbot": {},
	"reviewbot version":          {out: []string{"reviewbot "}},
	"go run ./cmd/reviewbot replay --url http://127.0.0.1:8080/webhook --secret local-secret /tmp/reviewbot-e2e/pull_request.opened.json": {
		out: []string{"pull_request ", "202 Accepted", `"outcome":"queued"`}},
	"curl -s http://127.0.0.1:9999/_fake/posted/SemiAnalysisAI/InferenceX/2232": {eventually: true,
		out: []string{"<!-- reviewbot:finding rule=SH003 ", "<!-- reviewbot:finding rule=SH001 ", "## status reviewbot on ", ": failure"}},
	"curl -s http://127.0.0.1:9999/_fake/calls":                                                           {out: []string{"POST /repos/SemiAnalysisAI/InferenceX/pulls/2232/reviews"}},
	"curl -s -X POST http://127.0.0.1:9999/_fake/signoff > /tmp/reviewbot-e2e/issue_comment.signoff.json": {},
	"sleep 3": {},
	"go run ./cmd/reviewbot replay --url http://127.0.0.1:8080/webhook --secret local-secret /tmp/reviewbot-e2e/issue_comment.signoff.json": {
		out: []string{"issue_comment ", "202 Accepted", `"outcome":"queued"`}},
	"curl -s http://127.0.0.1:9999/_fake/posted/SemiAnalysisAI/InferenceX/2512": {eventually: true,
		out: []string{"## ❌❌❌ **REJECTED** ❌❌❌", "2 blockers: check 3 (upstream recipe) and check 7 (deprecated models)",
			"✅ Check 2 (evals pass): PASS", "## status codeowner-signoff-verify on ", ": failure"}},
}

// readmeFiles are the README and the documents behind it, README first.
func readmeFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md beside the README (%v)", err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, "docs/"+filepath.Base(d))
	}
	return out
}

// The sections whose every sh block must be run.
var readmeRunSections = []string{"## Quick start", "## Install", "### Local end-to-end run with `replay`"}

type readmeBlock struct {
	file       string // README.md or docs/NAME.md
	name       string
	ci         bool
	background string // HOST:PORT
	line       int
	commands   []string
}

var (
	readmeMarker = regexp.MustCompile(`^<!-- readme-test: ([a-z0-9-]+)((?: [a-z]+(?:=\S+)?)*) -->$`)
	trailingNote = regexp.MustCompile(`\s+#.*$`)
)

// readmeBlocks reads the marked blocks; problems are marks that cannot be
// read and sh blocks of a run section without one.
func readmeBlocks(file, readme string) (blocks []readmeBlock, problems []string) {
	lines := strings.Split(readme, "\n")
	section := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "### ") {
			section = l
		}
		if !strings.HasPrefix(l, "```") {
			continue
		}
		fence := l
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		body := lines[i+1 : end]
		var m []string
		if i > 0 {
			m = readmeMarker.FindStringSubmatch(lines[i-1])
		}
		switch {
		case m != nil && fence != "```sh":
			problems = append(problems, fmt.Sprintf("%s:%d: a readme-test block must be a ```sh block", file, i+1))
		case m == nil && fence == "```sh" && contains(readmeRunSections, section):
			problems = append(problems, fmt.Sprintf("%s:%d: a command block of %q without a <!-- readme-test: NAME --> line: it would not be run", file, i+1, section))
		case m != nil:
			b := readmeBlock{file: file, name: m[1], line: i + 1}
			for _, opt := range strings.Fields(m[2]) {
				switch k, v, _ := strings.Cut(opt, "="); k {
				case "ci":
					b.ci = true
				case "background":
					b.background = v
				default:
					problems = append(problems, fmt.Sprintf("%s:%d: unknown readme-test option %q", file, i, opt))
				}
			}
			b.commands = readmeCommands(body)
			if b.background != "" && len(b.commands) != 1 {
				problems = append(problems, fmt.Sprintf("%s:%d: a background block holds one command, not %d", file, i+1, len(b.commands)))
			}
			blocks = append(blocks, b)
		}
		i = end
	}
	return blocks, problems
}

// readmeCommands splits a block into commands: comment lines dropped,
// continued lines joined.
func readmeCommands(lines []string) []string {
	var out []string
	cur := ""
	for _, l := range lines {
		if (cur == "" && strings.HasPrefix(strings.TrimSpace(l), "#")) || strings.TrimSpace(l) == "" {
			continue
		}
		if s, ok := strings.CutSuffix(l, `\`); ok {
			cur += strings.TrimSpace(s) + " "
			continue
		}
		out = append(out, cur+strings.TrimSpace(l))
		cur = ""
	}
	return out
}

// readmeKey is how readmeExpects names a command: its words, without a
// trailing note.
func readmeKey(cmd string) string {
	return strings.Join(strings.Fields(trailingNote.ReplaceAllString(cmd, "")), " ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestREADMECommands(t *testing.T) {
	if os.Getenv(readmeRunEnv) == "nested" {
		t.Skip("inside the README's own go test ./...")
	}
	var blocks []readmeBlock
	for _, file := range readmeFiles(t) {
		b, err := os.ReadFile(filepath.Join("../..", file))
		if err != nil {
			t.Fatal(err)
		}
		bs, problems := readmeBlocks(file, string(b))
		for _, p := range problems {
			t.Error(p)
		}
		blocks = append(blocks, bs...)
	}
	var names []string
	byName := map[string][]readmeBlock{}
	used := map[string]bool{}
	for _, bl := range blocks {
		if byName[bl.name] == nil {
			names = append(names, bl.name)
		}
		byName[bl.name] = append(byName[bl.name], bl)
		for _, c := range bl.commands {
			used[readmeKey(c)] = true
		}
	}
	for key := range readmeExpects {
		if !used[key] {
			t.Errorf("no README command %q: the README changed, change readmeExpects with it", key)
		}
	}
	for _, want := range []string{"quick-start", "install", "replay-review", "replay-signoff"} {
		if byName[want] == nil {
			t.Errorf("README has no %s walkthrough", want)
		}
	}
	if t.Failed() || testing.Short() {
		return
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			w := byName[name]
			if w[0].ci && os.Getenv(readmeRunEnv) != "1" {
				t.Skipf("run by .ci/run (%s=1)", readmeRunEnv)
			}
			runWalkthrough(t, root, w)
		})
	}
}

// runWalkthrough runs the blocks of one walkthrough in order, keeping the
// background commands up until it ends.
func runWalkthrough(t *testing.T, root string, blocks []readmeBlock) {
	bin := t.TempDir()
	env := []string{readmeRunEnv + "=nested", "GOBIN=" + bin, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" && k != "GOBIN" && k != readmeRunEnv && !strings.HasPrefix(k, "GITHUB_") {
			env = append(env, kv)
		}
	}
	for _, b := range blocks {
		if b.background != "" {
			if c, err := net.DialTimeout("tcp", b.background, time.Second); err == nil {
				c.Close()
				t.Skipf("%s:%d: %s is in use by another process", b.file, b.line, b.background)
			}
			startBackground(t, root, env, b)
			continue
		}
		for _, cmd := range b.commands {
			if prog, _, _ := strings.Cut(cmd, " "); prog == "curl" {
				if _, err := exec.LookPath("curl"); err != nil {
					t.Skipf("%s:%d: curl is not installed (.ci/run installs it)", b.file, b.line)
				}
			}
			want := readmeExpects[readmeKey(cmd)]
			deadline := time.Now().Add(2 * time.Minute)
			for {
				code, out := runShell(root, env, cmd)
				missing := ""
				for _, phrase := range want.out {
					if !strings.Contains(out, phrase) {
						missing = phrase
						break
					}
				}
				if code == want.exit && missing == "" {
					break
				}
				if !want.eventually || time.Now().After(deadline) {
					t.Fatalf("%s:%d: %s\nexit %d (want %d), output lacks %q:\n%s", b.file, b.line, cmd, code, want.exit, missing, out)
				}
				time.Sleep(500 * time.Millisecond)
			}
		}
	}
}

func runShell(dir string, env []string, cmd string) (int, string) {
	c := exec.Command("bash", "-c", cmd)
	c.Dir, c.Env = dir, env
	out, err := c.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		return -1, string(out) + err.Error()
	}
	return 0, string(out)
}

// startBackground starts a background block in a process group of its own
// (go run starts the program as a child) and waits until its address
// answers; the test's cleanup interrupts the group, as Ctrl-C would.
func startBackground(t *testing.T, root string, env []string, b readmeBlock) {
	t.Helper()
	var out bytes.Buffer
	c := exec.Command("bash", "-c", b.commands[0])
	c.Dir, c.Env = root, env
	c.Stdout, c.Stderr = &out, &out
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("%s:%d: output of %s:\n%s", b.file, b.line, b.commands[0], out.String())
		}
	})
	deadline := time.Now().Add(5 * time.Minute) // go run compiles first
	for {
		if conn, err := net.DialTimeout("tcp", b.background, time.Second); err == nil {
			conn.Close()
			return
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("%s:%d: %s exited (%v) before %s answered:\n%s", b.file, b.line, b.commands[0], err, b.background, out.String())
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s:%d: %s did not answer on %s", b.file, b.line, b.commands[0], b.background)
		}
	}
}

// TestREADMECommandParsing checks the reading of blocks on a small README.
func TestREADMECommandParsing(t *testing.T) {
	readme := "## Quick start\n\n<!-- readme-test: q ci -->\n```sh\n# a comment\ngo run x \\\n  --flag y   # note\ngo test ./...\n```\n" +
		"### Local end-to-end run with `replay`\n<!-- readme-test: r background=127.0.0.1:1 -->\n```sh\nserve\n```\n"
	got, problems := readmeBlocks("README.md", readme)
	if len(problems) > 0 {
		t.Errorf("problems %q", problems)
	}
	want := `[{README.md q true  4 [go run x --flag y   # note go test ./...]} {README.md r false 127.0.0.1:1 12 [serve]}]`
	if fmt.Sprint(got) != want {
		t.Errorf("blocks\n got %v\nwant %s", got, want)
	}
	if k := readmeKey(got[0].commands[0]); k != "go run x --flag y" {
		t.Errorf("key %q", k)
	}
	if _, problems := readmeBlocks("README.md", "## Install\n```sh\ngo install x\n```\n"); len(problems) != 1 {
		t.Errorf("an unmarked block of a run section: %q", problems)
	}
}
