package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileSecret is planted outside the reviewed trees: in a file a PR's
// link points at, and in the environment /proc/self/environ shows. No
// output of a review may hold it.
const hostileSecret = "SECRET-TOKEN-123"

// hostileTrees lays out one review of a local tree in the mode under test
// (--base-dir/--head-dir, --worktree, --fixture): the shared fixture tree
// as the base, and a head with two ordinary findings (CL001 in the
// changelog, SH001 in an agentic recipe) that a hostile file must not
// hide. head is where the hostile case writes: the head tree, the working
// tree, or the fixture's head/ layer.
type hostileTrees struct {
	head, outside string
	args          []string
}

const (
	hostileRecipe = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
	hostileEntry  = "\n- config-keys:\n    - dsv4-fp4-b200-vllm\n  description:\n    - \"Extend the DEP8 ladder\"\n  pr-link: XXXX\n"
)

// ordinaryChange writes the head's two ordinary findings into dir, over
// the files of tree.
func ordinaryChange(t *testing.T, tree, dir string) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(tree, "perf-changelog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	recipe, err := os.ReadFile(filepath.Join(tree, hostileRecipe))
	if err != nil {
		t.Fatal(err)
	}
	source := "source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n"
	if !strings.Contains(string(recipe), source) {
		t.Fatalf("%s has no line %q", hostileRecipe, source)
	}
	for p, c := range map[string]string{
		"perf-changelog.yaml": string(log) + hostileEntry,
		hostileRecipe:         strings.Replace(string(recipe), source, source+"set +u\n", 1),
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newHostileTrees(t *testing.T, mode string) hostileTrees {
	t.Helper()
	shared := filepath.Join("..", "..", "testdata", "trees", "inferencex")
	top := t.TempDir()
	h := hostileTrees{outside: filepath.Join(top, "outside")}
	for p, c := range map[string]string{
		"secret.sh":   "#!/usr/bin/env bash\necho " + hostileSecret + "\n",
		"secret.yaml": "# " + hostileSecret + "\n" + hostileSecret + ":\n  image: " + hostileSecret + "\n",
		// A directory a link may point at: files named like the ones
		// the rules read, holding the secret.
		"nvidia-master.yaml":     "# " + hostileSecret + "\n" + hostileSecret + ":\n  image: " + hostileSecret + "\n",
		"x_b200_vllm.sh":         "#!/usr/bin/env bash\nset -euo pipefail\necho " + hostileSecret + "\n",
		"agentic/a_b200_vllm.sh": "#!/usr/bin/env bash\necho " + hostileSecret + "\n",
	} {
		full := filepath.Join(h.outside, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	switch mode {
	case "dirs":
		base := filepath.Join(top, "base")
		h.head = filepath.Join(top, "head")
		copyTree(t, shared, base)
		copyTree(t, shared, h.head)
		ordinaryChange(t, shared, h.head)
		h.args = []string{"--base-dir", base, "--head-dir", h.head}
	case "worktree":
		dir, git := gitRepo(t)
		copyTree(t, shared, dir)
		git("init", "-q", "-b", "main")
		git("add", ".")
		git("commit", "-q", "-m", "base")
		ordinaryChange(t, shared, dir)
		h.head = dir
		h.args = []string{"--repo", dir, "--base", "HEAD", "--worktree"}
	case "fixture":
		fx := filepath.Join(top, "fixture")
		tree, err := filepath.Abs(shared)
		if err != nil {
			t.Fatal(err)
		}
		h.head = filepath.Join(fx, "head")
		ordinaryChange(t, shared, h.head)
		if err := os.WriteFile(filepath.Join(fx, "pr.json"), []byte(`{"tree": "`+filepath.ToSlash(tree)+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		h.args = []string{"--fixture", fx}
	}
	return h
}

// replace puts a hostile file at p of the head: make creates it at full.
func (h hostileTrees) replace(t *testing.T, p string, make func(full string) error) {
	t.Helper()
	full := filepath.Join(h.head, filepath.FromSlash(p))
	if err := os.RemoveAll(full); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := make(full); err != nil {
		if strings.Contains(err.Error(), "mkfifo") {
			t.Skipf("%v", err)
		}
		t.Fatal(err)
	}
}

// relativeLink links full to target with a relative target that climbs
// out of the tree.
func relativeLink(target, full string) error {
	rel, err := filepath.Rel(filepath.Dir(full), target)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is not outside %s", target, full)
	}
	return os.Symlink(rel, full)
}

func mkfifo(full string) error {
	if err := syscall.Mkfifo(full, 0o644); err != nil {
		return &os.PathError{Op: "mkfifo", Path: full, Err: err}
	}
	return nil
}

func mkdirWithFile(full string) error {
	if err := os.MkdirAll(full, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(full, "inner.sh"), []byte("#!/usr/bin/env bash\nset -euo pipefail\necho inner\n"), 0o644)
}

// Every local tree a review reads is the PR's, links and special files
// included. Whatever the head holds, the review never reads outside the
// trees (a link is its target text, as git stores it), never opens a
// named pipe, names what is not a file as not reviewed, and still reports
// the head's other findings, in every output format.
func TestReviewHostileLocalTrees(t *testing.T) {
	t.Setenv("REVIEWBOT_TEST_ENV_SECRET", hostileSecret) // what /proc/self/environ shows
	type hostile struct {
		name string
		// make creates the hostile file at path of the head.
		path string
		make func(h hostileTrees, full string) error
		// note is the "not reviewed:" line the text output holds ("":
		// none is required); notIn lists the modes without it.
		note  string
		notIn string
		// changelog is set when the case replaces the changelog, whose
		// CL001 is then gone.
		changelog bool
	}
	link := func(target string) func(hostileTrees, string) error {
		return func(_ hostileTrees, full string) error { return os.Symlink(target, full) }
	}
	outside := func(name string, relative bool) func(hostileTrees, string) error {
		return func(h hostileTrees, full string) error {
			target := filepath.Join(h.outside, name)
			if relative {
				return relativeLink(target, full)
			}
			return os.Symlink(target, full)
		}
	}
	pipe := func(_ hostileTrees, full string) error { return mkfifo(full) }
	dir := func(_ hostileTrees, full string) error { return mkdirWithFile(full) }
	const (
		sn     = "benchmarks/single_node/"
		recipe = sn + "dsr1_fp4_b200_sglang.sh"
		master = "configs/nvidia-master.yaml"
		log    = "perf-changelog.yaml"
	)
	cases := []hostile{
		{name: "new recipe links to /etc/passwd", path: sn + "evil_b200_vllm.sh", make: link("/etc/passwd")},
		{name: "recipe becomes a link to a secret outside", path: recipe, make: outside("secret.sh", false)},
		{name: "new recipe links to /proc/self/environ", path: sn + "env_b200_vllm.sh", make: link("/proc/self/environ")},
		{name: "relative link climbs out with ../", path: sn + "rel_b200_vllm.sh", make: outside("secret.sh", true)},
		{name: "link to another file of the tree", path: sn + "copy_b200_sglang.sh", make: link("dsr1_fp8_h200_sglang.sh")},
		{name: "master config links to a secret outside", path: master, make: outside("secret.yaml", false)},
		{name: "changelog links out with ../", path: log, make: outside("secret.yaml", true), changelog: true},
		{name: "new directory links outside", path: sn + "linked", make: outside("", false)},
		{name: "configs directory becomes a link outside", path: "configs", make: outside("", false)},
		{name: "recipe directory becomes a link outside", path: "benchmarks/multi_node", make: outside("agentic", false)},
		// git lists no untracked named pipe: not in the working tree.
		{name: "new recipe is a named pipe", path: sn + "x_b200.sh", make: pipe,
			note: sn + "x_b200.sh — a named pipe, not a regular file", notIn: "worktree"},
		{name: "recipe becomes a named pipe", path: recipe, make: pipe, note: recipe + " — a named pipe, not a regular file"},
		{name: "master config becomes a named pipe", path: master, make: pipe, note: master + " — a named pipe, not a regular file"},
		{name: "changelog becomes a named pipe", path: log, make: pipe, note: log + " — a named pipe, not a regular file", changelog: true},
		{name: "new directory named like a recipe", path: sn + "dir_b200_vllm.sh", make: dir,
			note: sn + "dir_b200_vllm.sh/ — a directory, not a regular file"},
		{name: "recipe becomes a directory", path: recipe, make: dir, note: recipe + "/ — a directory, not a regular file"},
		{name: "master config becomes a directory", path: master, make: dir, note: master + "/ — a directory, not a regular file"},
		{name: "changelog becomes a directory", path: log, make: dir, note: log + "/ — a directory, not a regular file", changelog: true},
	}
	for _, mode := range []string{"dirs", "worktree", "fixture"} {
		for _, tc := range cases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				h := newHostileTrees(t, mode)
				h.replace(t, tc.path, func(full string) error { return tc.make(h, full) })
				args := append([]string{"review"}, h.args...)
				args = append(args, "--pr", "2240", "--date", "2026-08-01", "--color", "never", "--fail-on", "warning")
				code, out, stderr := runCLIWithin(t, time.Minute, args...)
				if code != exitBlocking {
					t.Errorf("exit %d, want %d (findings, no error)\nstderr: %s\n%s", code, exitBlocking, stderr, out)
				}
				// The head's other findings are reported.
				if !strings.Contains(out, hostileRecipe+":10: 🟡 [SH001]") {
					t.Errorf("SH001 on %s is missing:\n%s", hostileRecipe, out)
				}
				if !tc.changelog && !strings.Contains(out, "[CL001]") {
					t.Errorf("CL001 is missing:\n%s", out)
				}
				if tc.note != "" && !strings.Contains(tc.notIn, mode) && !strings.Contains(out, "not reviewed: "+tc.note+"\n") {
					t.Errorf("no line %q:\n%s", "not reviewed: "+tc.note, out)
				}
				outputs := map[string]string{"text": out + stderr}
				formats := []string{"json", "markdown", "sarif", "github"}
				if mode != "dirs" {
					formats = formats[:1] // the same report: one other format is enough
				}
				for _, format := range formats {
					code, o, e := runCLIWithin(t, time.Minute, append(args, "--format", format)...)
					if code != exitBlocking {
						t.Errorf("--format %s: exit %d\n%s", format, code, e)
					}
					outputs[format] = o + e
				}
				for format, o := range outputs {
					for _, leak := range []string{hostileSecret, "root:x:0:0"} {
						if strings.Contains(o, leak) {
							t.Errorf("--format %s quotes %q, which is outside the trees:\n%s", format, leak, o)
						}
					}
				}
			})
		}
	}
}

// runCLIWithin is runCLI that fails the test when the command has not
// returned in d (a named pipe opened for reading blocks forever).
func runCLIWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, stderr := runCLI(t, args...)
		done <- result{code, out, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.stderr
	case <-time.After(d):
		t.Fatalf("reviewbot %s has not returned in %s: blocked on a special file", strings.Join(args, " "), d)
		return 0, "", ""
	}
}

// A base tree whose configuration path is not a file (a directory, a
// named pipe) holds no configuration: the defaults apply, the review says
// so, and the head's findings are reported.
func TestReviewBaseConfigNotAFile(t *testing.T) {
	for _, tc := range []struct {
		name, note string
		make       func(string) error
	}{
		{"directory", ".github/reviewbot.yml/ — a directory, not a regular file, so the default configuration applies", mkdirWithFile},
		// The diff names the pipe first, and the first reason stands.
		{"named pipe", ".github/reviewbot.yml — a named pipe, not a regular file", mkfifo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileTrees(t, "dirs")
			base := h.args[1]
			hostileTrees{head: base}.replace(t, ".github/reviewbot.yml", tc.make)
			args := append(append([]string{"review"}, h.args...), "--pr", "2240", "--date", "2026-08-01", "--color", "never")
			code, out, stderr := runCLIWithin(t, time.Minute, args...)
			if code != exitBlocking || !strings.Contains(out, "[CL001]") || !strings.Contains(out, "[SH001]") {
				t.Errorf("exit %d, want the head's findings\nstderr: %s\n%s", code, stderr, out)
			}
			if !strings.Contains(out, "not reviewed: "+tc.note+"\n") {
				t.Errorf("no line %q:\n%s", "not reviewed: "+tc.note, out)
			}
		})
	}
}
