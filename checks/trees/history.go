package trees

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// MergedPR is a first-parent commit of a branch whose subject names the
// pull request it merged ("Fix the thing (#123)"), the shape GitHub's
// squash and merge-commit buttons both leave.
type MergedPR struct {
	SHA     string
	Number  int
	Subject string
	Date    time.Time
}

var prSubject = regexp.MustCompile(`\(#([0-9]+)\)\s*$`)

// MergedPRs lists the last n first-parent commits of rev whose subject ends
// with "(#N)", newest first. n <= 0 lists them all.
func (r *Repo) MergedPRs(ctx context.Context, rev string, n int) ([]MergedPR, error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	// Commits without a PR number are skipped, so the log is read in full
	// and cut here rather than with -n.
	out, err := r.run(ctx, "log", "--first-parent", "--format=%H%x00%ct%x00%s", sha, "--")
	if err != nil {
		return nil, fmt.Errorf("list merged pull requests of %s: %w", rev, err)
	}
	var prs []MergedPR
	for _, line := range bytes.Split(out, []byte("\n")) {
		if n > 0 && len(prs) == n {
			break
		}
		fields := bytes.SplitN(line, []byte{0}, 3)
		if len(fields) != 3 {
			continue
		}
		m := prSubject.FindSubmatch(fields[2])
		if m == nil {
			continue
		}
		num, err := strconv.Atoi(string(m[1]))
		if err != nil || num <= 0 {
			continue
		}
		secs, err := strconv.ParseInt(string(fields[1]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("list merged pull requests of %s: bad commit time %q", rev, fields[1])
		}
		prs = append(prs, MergedPR{SHA: string(fields[0]), Number: num, Subject: string(fields[2]),
			Date: time.Unix(secs, 0).UTC()})
	}
	return prs, nil
}

// HasRevision reports whether rev names a commit in the repository (for
// example refs/pull/123/head, which only some clones carry).
func (r *Repo) HasRevision(ctx context.Context, rev string) bool {
	_, err := r.Resolve(ctx, rev)
	return err == nil
}

// OpenChange computes what a pull request from headRev into baseRev shows,
// as the package-level OpenChange does, on an already open repository.
// Closing the returned change closes r, so callers that review many changes
// on one repository keep r open and drop the changes instead.
func (r *Repo) OpenChange(ctx context.Context, baseRev, headRev string) (*GitChange, error) {
	return openChange(ctx, r, baseRev, headRev, false)
}

// Commit is a commit and its committer date.
type Commit struct {
	SHA  string
	Date time.Time
}

// Ancestry lists rev and every commit it descends from, leaving out the
// commits reachable from any of not, with their committer dates, in git
// rev-list's order: newest first, unless the committers' clocks disagree.
func (r *Repo) Ancestry(ctx context.Context, rev string, not ...string) ([]Commit, error) {
	sha, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	args := []string{"rev-list", "--timestamp", sha}
	if len(not) > 0 {
		args = append(args, "--not")
	}
	for _, x := range not {
		sha, err := r.Resolve(ctx, x)
		if err != nil {
			return nil, err
		}
		args = append(args, sha)
	}
	out, err := r.run(ctx, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("list the ancestry of %s: %w", rev, err)
	}
	var commits []Commit
	for _, line := range bytes.Split(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		ts, id, ok := bytes.Cut(line, []byte(" "))
		secs, err := strconv.ParseInt(string(ts), 10, 64)
		if !ok || err != nil || !isFullSHA(string(id)) {
			return nil, fmt.Errorf("list the ancestry of %s: unexpected line %q", rev, line)
		}
		commits = append(commits, Commit{SHA: string(id), Date: time.Unix(secs, 0).UTC()})
	}
	return commits, nil
}

// FileIDs returns the blob ID of the file at path in each of commits, ""
// where a commit has no file there (nothing, a directory or a submodule),
// in one exchange with git: callers looking for the commit that holds
// some text compare IDs and read each distinct version once.
func (r *Repo) FileIDs(ctx context.Context, commits []string, path string) ([]string, error) {
	path = checks.CleanPath(path)
	if path == "" || strings.ContainsAny(path, "\x00\n\r") {
		return nil, fmt.Errorf("file IDs of %q: not a file path", path)
	}
	if len(commits) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, c := range commits {
		if !isFullSHA(c) {
			return nil, fmt.Errorf("file IDs of %s: %q is not a commit ID", path, c)
		}
		in.WriteString(c + ":" + path + "\n")
	}
	cmd := r.command(ctx, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("file IDs of %s: %w", path, &gitError{args: []string{"cat-file"}, stderr: stderr.String(), err: err})
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(commits) {
		return nil, fmt.Errorf("file IDs of %s: git answered %d lines for %d commits", path, len(lines), len(commits))
	}
	ids := make([]string, len(commits))
	for i, line := range lines {
		// "<id> <type> <size>", or "<name> missing" (the name holds
		// the path, which may hold spaces).
		if f := strings.Fields(line); len(f) == 3 && f[1] == "blob" && isFullSHA(f[0]) {
			ids[i] = f[0]
		}
	}
	return ids, nil
}
