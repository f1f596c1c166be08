package trees

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"
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
