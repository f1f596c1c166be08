package trees

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// maxGitRead bounds the blob size ReadFile will load. The reviewed files
// are at most a few hundred KB; anything this large is not something a
// rule should hold in memory.
const maxGitRead = 64 << 20

// gitConfig pins every setting that could change what the commands we run
// print or make them execute something: the user's global config is still
// read (it may carry safe.directory), so its diff.* knobs are overridden.
var gitConfig = []string{
	"-c", "core.quotepath=off",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "color.ui=never",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "diff.suppressBlankEmpty=false",
	"-c", "protocol.allow=never",
}

// Repo is a local git repository, a clone or a bare one, read through the
// git command. It is safe for concurrent use. Close it to stop the
// background process that reads file contents.
type Repo struct {
	dir    string // as the caller named it, for messages
	abs    string // dir, absolute with symlinks resolved
	gitDir string // absolute
	bare   bool
	git    string
	env    []string

	mu     sync.Mutex // guards batch and closed
	batch  *catFile
	closed bool
}

// OpenRepo opens the repository at dir: the top of a working tree, its .git
// directory, or a bare repository. Parent directories are not searched, so
// a directory that merely sits inside some repository is rejected rather
// than silently reviewing the enclosing one; FindRepo finds that one, for a
// caller that says so.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	shown, abs, gitPath, err := locate(dir)
	if err != nil {
		return nil, err
	}
	r := &Repo{dir: shown, abs: abs, git: gitPath, env: gitEnv()}

	// The ceiling stops discovery at dir itself (git never climbs into a
	// ceiling directory).
	lines, err := revParse(ctx, gitPath, abs, shown, true, "--absolute-git-dir", "--is-bare-repository")
	if err != nil {
		if top, ferr := FindRepo(ctx, dir); ferr == nil {
			return nil, fmt.Errorf("repository %s: not the top of a git repository: it is inside %s", shown, top)
		}
		return nil, err
	}
	r.gitDir = lines[0]
	r.bare = lines[1] == "true"
	return r, nil
}

// FindRepo returns the repository dir is in, found the way git finds it:
// dir itself when it is the top of a working tree, a git directory or a
// bare repository, otherwise the top of the nearest enclosing working
// tree. Commands default to the repository of the working directory with
// it, as git does.
func FindRepo(ctx context.Context, dir string) (string, error) {
	shown, abs, gitPath, err := locate(dir)
	if err != nil {
		return "", err
	}
	lines, err := revParse(ctx, gitPath, abs, shown, false, "--is-bare-repository", "--is-inside-git-dir", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	if lines[0] == "true" || lines[1] == "true" {
		return lines[2], nil
	}
	top, err := revParse(ctx, gitPath, abs, shown, false, "--show-toplevel")
	if err != nil {
		return "", err
	}
	return top[0], nil
}

// locate checks that dir is a directory and git is installed; shown is dir
// as messages name it, abs its absolute path with symlinks resolved.
func locate(dir string) (shown, abs, gitPath string, err error) {
	shown = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "", "", fmt.Errorf("repository %s: no such directory", shown)
	case err != nil:
		return "", "", "", fmt.Errorf("repository %s: %v", shown, unwrapPathError(err))
	case !st.IsDir():
		return "", "", "", fmt.Errorf("repository %s: not a directory", shown)
	}
	if gitPath, err = exec.LookPath("git"); err != nil {
		return "", "", "", errors.New("git not found on PATH: reviewing a local repository needs the git command")
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return "", "", "", fmt.Errorf("repository %s: %v", shown, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return shown, abs, gitPath, nil
}

// revParse runs git rev-parse in abs and returns one line per query.
// atDir keeps git from looking above abs for the repository.
func revParse(ctx context.Context, gitPath, abs, shown string, atDir bool, queries ...string) ([]string, error) {
	env := gitEnv()
	if atDir {
		env = append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(abs))
	}
	cmd := exec.CommandContext(ctx, gitPath, append(append([]string{"--no-pager", "-C", abs}, gitConfig...),
		append([]string{"rev-parse"}, queries...)...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := firstLine(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return nil, fmt.Errorf("repository %s: not a git repository", shown)
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("repository %s: %s", shown, msg)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != len(queries) || lines[0] == "" {
		return nil, fmt.Errorf("repository %s: unexpected output from git rev-parse: %q", shown, stdout.String())
	}
	return lines, nil
}

// gitEnv is the environment git runs with: the caller's, minus every GIT_*
// variable (a GIT_DIR or GIT_INDEX_FILE inherited from a hook would
// redirect us to another repository), plus settings that keep git local,
// quiet and byte-exact.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_CONFIG_GLOBAL":
			// The user's choice of global config (tests point it at
			// /dev/null); it cannot redirect the repository.
		case strings.HasPrefix(name, "GIT_"), strings.HasPrefix(name, "LC_"), name == "LANG", name == "LANGUAGE":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_OPTIONAL_LOCKS=0",
		// A partial clone would otherwise fetch missing blobs from its
		// promisor remote.
		"GIT_NO_LAZY_FETCH=1",
		"GIT_ALLOW_PROTOCOL=none",
	)
}

// Dir is the repository directory as given to OpenRepo.
func (r *Repo) Dir() string { return r.dir }

// GitDir is the absolute path of the repository's git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// Bare reports whether git considers the repository bare (core.bare);
// opening a clone's .git directory is not bare.
func (r *Repo) Bare() bool { return r.bare }

func (r *Repo) command(ctx context.Context, args ...string) *exec.Cmd {
	return r.commandIn(ctx, "", args...)
}

// commandIn runs git with workTree as its working tree ("" for none:
// commands that only read objects never look at one).
func (r *Repo) commandIn(ctx context.Context, workTree string, args ...string) *exec.Cmd {
	full := []string{"--no-pager", "--git-dir=" + r.gitDir}
	dir := r.gitDir
	if workTree != "" {
		full = append(full, "--work-tree="+workTree)
		dir = workTree
	}
	full = append(full, gitConfig...)
	cmd := exec.CommandContext(ctx, r.git, append(full, args...)...)
	cmd.Env = r.env
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// gitError is a failed git command, with git's own explanation.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := firstLine(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return "git " + e.args[0] + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

// run runs git and returns its standard output.
func (r *Repo) run(ctx context.Context, args ...string) ([]byte, error) {
	return r.runIn(ctx, "", args...)
}

// runIn is run with a working tree (see commandIn).
func (r *Repo) runIn(ctx context.Context, workTree string, args ...string) ([]byte, error) {
	cmd := r.commandIn(ctx, workTree, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return stdout.Bytes(), &gitError{args: args, stderr: stderr.String(), err: err}
	}
	return stdout.Bytes(), nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.TrimPrefix(s, "fatal: ")
	return strings.TrimPrefix(s, "error: ")
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// checkRev refuses revisions git could take for an option or that cannot
// be passed as one argument.
func checkRev(rev string) error {
	switch {
	case rev == "":
		return errors.New("empty revision")
	case strings.HasPrefix(rev, "-"):
		return fmt.Errorf("invalid revision %q: must not start with '-'", rev)
	case strings.ContainsAny(rev, "\x00\n\r"):
		return fmt.Errorf("invalid revision %q: contains a control character", rev)
	}
	return nil
}

// Resolve turns a revision expression (HEAD~3, abc123^, main, origin/main,
// a tag) into the full SHA of the commit it names.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if err := checkRev(rev); err != nil {
		return "", err
	}
	out, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && exitCode(ge.err) == 1 {
			switch {
			case strings.TrimSpace(ge.stderr) == "":
				return "", fmt.Errorf("unknown revision %q in %s", rev, r.dir)
			case strings.Contains(ge.stderr, "expected commit type"):
				return "", fmt.Errorf("revision %q in %s is not a commit", rev, r.dir)
			}
		}
		return "", fmt.Errorf("resolve %q in %s: %w", rev, r.dir, err)
	}
	sha := strings.TrimSpace(string(out))
	if !isFullSHA(sha) {
		return "", fmt.Errorf("resolve %q in %s: unexpected output %q", rev, r.dir, sha)
	}
	return sha, nil
}

// MergeBase returns the best common ancestor of commits a and b; ok is
// false when the histories are unrelated.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (sha string, ok bool, err error) {
	for _, rev := range []string{a, b} {
		if err := checkRev(rev); err != nil {
			return "", false, err
		}
	}
	out, err := r.run(ctx, "merge-base", "--end-of-options", a, b)
	if err != nil {
		var ge *gitError
		// Exit 1 without a message is git's "no common ancestor".
		if errors.As(err, &ge) && exitCode(ge.err) == 1 && strings.TrimSpace(ge.stderr) == "" {
			return "", false, nil
		}
		return "", false, fmt.Errorf("merge base of %s and %s in %s: %w", a, b, r.dir, err)
	}
	sha = strings.TrimSpace(string(out))
	if !isFullSHA(sha) {
		return "", false, fmt.Errorf("merge base of %s and %s in %s: unexpected output %q", a, b, r.dir, sha)
	}
	return sha, true, nil
}

func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Tree returns the tree of a commit. sha should come from Resolve; any
// other revision expression is resolved first. The file list is read on
// first use.
func (r *Repo) Tree(ctx context.Context, sha string) (*GitTree, error) {
	if !isFullSHA(sha) {
		var err error
		if sha, err = r.Resolve(ctx, sha); err != nil {
			return nil, err
		}
	}
	return &GitTree{repo: r, commit: sha}, nil
}

// Close stops the content reader. Trees of a closed repository can no
// longer read files.
func (r *Repo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.batch != nil {
		r.batch.stop()
		r.batch = nil
	}
	return nil
}

// GitTree is the tree of one commit, a checks.Tree. Entry IDs are git
// object IDs: blob SHAs for files, tree SHAs for directories, the
// submodule commit for a gitlink.
type GitTree struct {
	repo   *Repo
	commit string

	mu    sync.Mutex
	index *gitIndex
	err   error
}

// Commit is the SHA of the commit the tree belongs to.
func (t *GitTree) Commit() string { return t.commit }

const (
	modeDir     = 0o040000
	modeGitlink = 0o160000
)

type gitEntry struct {
	mode uint32
	id   string
	size int64
	// missing is set when the repository lacks the blob (ls-tree shows its
	// size as BAD): a clone of a repository whose large files it did not
	// fetch.
	missing bool
}

// missingContent is why a file whose blob the repository lacks is not
// reviewed.
const missingContent = "its content is missing from the repository (a clone without its large files?)"

type gitIndex struct {
	entries  map[string]gitEntry
	children map[string][]string // directory → child paths, sorted
}

// load lists the whole commit once: the reviewed repository has a few
// thousand paths, and one ls-tree is cheaper than a process per directory.
func (t *GitTree) load(ctx context.Context) (*gitIndex, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.index != nil || t.err != nil {
		return t.index, t.err
	}
	out, err := t.repo.run(ctx, "ls-tree", "-r", "-t", "-l", "-z", "--full-tree", t.commit)
	if err != nil {
		err = fmt.Errorf("list %s in %s: %w", t.commit, t.repo.dir, err)
		if ctx.Err() == nil {
			t.err = err // a cancelled listing may be retried
		}
		return nil, err
	}
	idx, err := parseLsTree(out)
	if err != nil {
		t.err = fmt.Errorf("list %s in %s: %w", t.commit, t.repo.dir, err)
		return nil, t.err
	}
	t.index = idx
	return idx, nil
}

// parseLsTree reads `ls-tree -r -t -l -z` records:
// "<mode> <type> <oid> <size>\t<path>\0", size right-aligned or "-".
func parseLsTree(out []byte) (*gitIndex, error) {
	idx := &gitIndex{
		entries:  map[string]gitEntry{"": {mode: modeDir}},
		children: map[string][]string{"": nil},
	}
	for len(out) > 0 {
		rec := out
		if i := bytes.IndexByte(out, 0); i >= 0 {
			rec, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || p == "" {
			return nil, fmt.Errorf("unexpected ls-tree record %q", rec)
		}
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("unexpected ls-tree mode %q", f[0])
		}
		e := gitEntry{mode: uint32(mode), id: f[2]}
		if f[3] == "BAD" {
			e.missing = true
		} else if f[3] != "-" {
			if e.size, err = strconv.ParseInt(f[3], 10, 64); err != nil {
				return nil, fmt.Errorf("unexpected ls-tree size %q", f[3])
			}
		}
		idx.entries[p] = e
		parent := path.Dir(p)
		if parent == "." {
			parent = ""
		}
		idx.children[parent] = append(idx.children[parent], p)
		if e.mode == modeDir {
			if _, ok := idx.children[p]; !ok {
				idx.children[p] = nil
			}
		}
	}
	for _, c := range idx.children {
		sort.Strings(c)
	}
	return idx, nil
}

func (e gitEntry) isDir() bool { return e.mode == modeDir }

func (e gitEntry) entry(p string) checks.Entry {
	return checks.Entry{Path: p, IsDir: e.isDir(), Size: e.size, ID: e.id}
}

// Stat implements checks.Tree.
func (t *GitTree) Stat(ctx context.Context, p string) (checks.Entry, error) {
	idx, err := t.load(ctx)
	if err != nil {
		return checks.Entry{}, err
	}
	p = checks.CleanPath(p)
	e, ok := idx.entries[p]
	if !ok {
		return checks.Entry{}, checks.NotExist(p)
	}
	return e.entry(p), nil
}

// ReadDir implements checks.Tree.
func (t *GitTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	idx, err := t.load(ctx)
	if err != nil {
		return nil, err
	}
	dir = checks.CleanPath(dir)
	e, ok := idx.entries[dir]
	if !ok {
		return nil, checks.NotExist(dir)
	}
	if !e.isDir() {
		return nil, checks.NotDir(dir)
	}
	children := idx.children[dir]
	out := make([]checks.Entry, 0, len(children))
	for _, c := range children {
		out = append(out, idx.entries[c].entry(c))
	}
	return out, nil
}

// ReadFile implements checks.Tree. A symlink reads as its target path, as
// git stores it; a submodule has no content here and is an error.
func (t *GitTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	idx, err := t.load(ctx)
	if err != nil {
		return nil, err
	}
	p = checks.CleanPath(p)
	e, ok := idx.entries[p]
	switch {
	case !ok:
		return nil, checks.NotExist(p)
	case e.isDir():
		return nil, checks.NotRegular(p, "directory")
	case e.mode == modeGitlink:
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("is a submodule (commit %s); its files are not in this repository", e.id)}
	case e.size > maxGitRead:
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("file is %d bytes, over the %d MiB limit", e.size, maxGitRead>>20)}
	case e.missing:
		return nil, checks.Unreadable(p, missingContent)
	}
	b, err := t.repo.ReadBlob(ctx, e.id)
	if err != nil {
		return nil, fmt.Errorf("read %s at %.12s: %w", p, t.commit, err)
	}
	return b, nil
}

// ReadFiles reads many files in one pipelined exchange with git, which
// costs about as much as a single ReadFile: callers about to read a whole
// directory of siblings should prefer it. Paths that are not readable
// files (absent, directories, submodules, oversized) are left out of the
// result; ReadFile says why. The error reports a failure of the whole
// read.
func (t *GitTree) ReadFiles(ctx context.Context, paths []string) (map[string][]byte, error) {
	idx, err := t.load(ctx)
	if err != nil {
		return nil, err
	}
	var ids, found []string
	for _, p := range paths {
		p = checks.CleanPath(p)
		e, ok := idx.entries[p]
		if !ok || e.isDir() || e.mode == modeGitlink || e.size > maxGitRead || e.missing {
			continue
		}
		ids = append(ids, e.id)
		found = append(found, p)
	}
	out := make(map[string][]byte, len(found))
	if len(ids) == 0 {
		return out, nil
	}
	data, errs, err := t.repo.readBlobs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read %d files at %.12s: %w", len(ids), t.commit, err)
	}
	for i, p := range found {
		if errs[i] == nil {
			out[p] = data[i]
		}
	}
	return out, nil
}

// ReadBlob reads one blob, by its ID, through the repository's long-lived
// `cat-file --batch` process.
func (r *Repo) ReadBlob(ctx context.Context, id string) ([]byte, error) {
	if !isFullSHA(id) {
		// The batch process would take any object name, and a name with a
		// newline in it would put its answers out of step.
		return nil, fmt.Errorf("read blob %q: not an object ID", id)
	}
	data, errs, err := r.readBlobs(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if errs[0] != nil {
		return nil, errs[0]
	}
	return data[0], nil
}

// readBlobs reads blobs in one pipelined exchange with the cat-file
// process, starting it (again) when needed. errs holds per-object
// failures (a missing object); err a failure of the whole exchange.
func (r *Repo) readBlobs(ctx context.Context, ids []string) (data [][]byte, errs []error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if r.closed {
			return nil, nil, fmt.Errorf("repository %s is closed", r.dir)
		}
		if r.batch == nil {
			b, err := r.startBatch()
			if err != nil {
				return nil, nil, err
			}
			r.batch = b
		}
		data, errs, err = r.batch.read(ctx, ids)
		if err == nil {
			return data, errs, nil
		}
		// The stream is out of step: discard the process. A cancelled
		// read is not retried; a process that died on its own gets one
		// fresh start.
		r.batch.stop()
		r.batch = nil
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if attempt > 0 {
			return nil, nil, err
		}
	}
}

// catFile is a running `git cat-file --batch`.
type catFile struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *tailBuffer
}

// objectError is an answer about one object, after which the batch
// process remains usable.
type objectError struct{ msg string }

func (e *objectError) Error() string { return e.msg }

func (r *Repo) startBatch() (*catFile, error) {
	// Not CommandContext: the process outlives any one request and is
	// killed per request by read when that request's context ends.
	cmd := r.command(context.Background(), "cat-file", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = stdin.Close()
		return nil, err
	}
	c := &catFile{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10), stderr: &tailBuffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return c, nil
}

// read requests every id, then collects the answers in order. Requests
// are written while answers are read: a long list would otherwise fill
// both pipes and deadlock with git.
func (c *catFile) read(ctx context.Context, ids []string) ([][]byte, []error, error) {
	stop := context.AfterFunc(ctx, func() { _ = c.cmd.Process.Kill() })
	defer stop()
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(id)
		b.WriteByte('\n')
	}
	written := make(chan error, 1)
	if b.Len() <= 4096 {
		// Fits in any pipe: git has read all earlier requests, so the
		// write cannot block, and a goroutine would cost a third of a
		// single read's time.
		_, err := io.WriteString(c.stdin, b.String())
		written <- err
	} else {
		go func() {
			_, err := io.WriteString(c.stdin, b.String())
			written <- err
		}()
	}
	data := make([][]byte, len(ids))
	errs := make([]error, len(ids))
	var err error
	for i, id := range ids {
		var oe *objectError
		data[i], err = c.next(id)
		if errors.As(err, &oe) {
			errs[i], err = oe, nil
		}
		if err != nil {
			_ = c.cmd.Process.Kill() // unblocks the writer
			break
		}
	}
	if werr := <-written; err == nil && werr != nil {
		err = werr
	}
	if ctx.Err() != nil {
		// Killed mid-exchange, or the kill raced with a completed read:
		// either way the process is gone and readBlobs discards it.
		return nil, nil, ctx.Err()
	}
	if err != nil {
		if msg := firstLine(c.stderr.String()); msg != "" {
			return nil, nil, fmt.Errorf("git cat-file: %s (%w)", msg, err)
		}
		return nil, nil, fmt.Errorf("git cat-file: %w", err)
	}
	return data, errs, nil
}

// next reads the answer about id.
func (c *catFile) next(id string) ([]byte, error) {
	header, err := c.stdout.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(header)
	switch {
	case len(f) == 2 && (f[1] == "missing" || f[1] == "ambiguous"):
		return nil, &objectError{msg: fmt.Sprintf("object %s is %s", id, f[1])}
	case len(f) != 3:
		return nil, fmt.Errorf("unexpected header %q", header)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 || size > maxGitRead {
		return nil, fmt.Errorf("unexpected object size in %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(c.stdout, data); err != nil {
		return nil, err
	}
	if data[size] != '\n' {
		return nil, fmt.Errorf("object %s not terminated by a newline", id)
	}
	if f[1] != "blob" {
		return nil, &objectError{msg: fmt.Sprintf("object %s is a %s, not a file", id, f[1])}
	}
	return data[:size:size], nil
}

func (c *catFile) stop() {
	_ = c.stdin.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// tailBuffer keeps the last few KB written to it: enough of git's stderr to
// explain a failure without growing without bound.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	const max = 4 << 10
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > max {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
