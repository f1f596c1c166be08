package trees

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Diff returns the changes from commit base to commit head, as git diff
// reports them with rename detection and 3 lines of context. Binary files
// carry no hunks. A file whose diff cannot be read is left out and named
// in skipped, with the reason: one file never fails the review of the
// others.
func (r *Repo) Diff(ctx context.Context, base, head string) (files []*checks.FileChange, skipped []checks.NotReviewed, err error) {
	for _, rev := range []string{base, head} {
		if err := checkRev(rev); err != nil {
			return nil, nil, err
		}
	}
	out, err := r.run(ctx, append(diffArgs(), base, head, "--")...)
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && missingObject(ge.stderr) && ctx.Err() == nil {
			// A clone that lacks some file's content (a partial clone, an
			// object store missing a large blob): diff file by file, and
			// name the files that cannot be read.
			if files, skipped, ok := r.diffEach(ctx, base, head); ok {
				return files, skipped, nil
			}
		}
		return nil, nil, fmt.Errorf("diff %.12s..%.12s in %s: %w", base, head, r.dir, err)
	}
	files, skipped = parseEachFile(out)
	return files, skipped, nil
}

// missingObject reports whether git failed for want of an object's
// content.
func missingObject(stderr string) bool {
	return strings.Contains(stderr, "unable to read") || strings.Contains(stderr, "missing blob") ||
		strings.Contains(stderr, "bad object") || strings.Contains(stderr, "not a valid object")
}

// maxEachDiffs bounds the files diffed one at a time.
const maxEachDiffs = 3000

// diffEach lists the changed files without reading their content, then
// diffs each one alone (renames are not paired: each side of one is a
// file of its own). ok is false when even the listing fails.
func (r *Repo) diffEach(ctx context.Context, base, head string) (files []*checks.FileChange, skipped []checks.NotReviewed, ok bool) {
	names, err := r.run(ctx, "diff", "--no-renames", "--name-only", "-z", "--no-ext-diff", "--ignore-submodules=none", base, head, "--")
	if err != nil {
		return nil, nil, false
	}
	var paths []string
	for _, p := range strings.Split(string(names), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	for i, p := range paths {
		if i >= maxEachDiffs || ctx.Err() != nil {
			skipped = append(skipped, checks.NotReviewed{Path: p, Reason: "more files than are diffed one at a time when the repository lacks some content"})
			continue
		}
		args := append(diffArgs(), "--no-renames", base, head, "--", ":(literal)"+p)
		out, err := r.run(ctx, args...)
		if err != nil {
			skipped = append(skipped, checks.NotReviewed{Path: p, Reason: "its content is missing from the repository (" + oneLine(err.Error()) + ")"})
			continue
		}
		fs, sk := parseEachFile(out)
		files = append(files, fs...)
		skipped = append(skipped, sk...)
	}
	sortChanges(files)
	return files, skipped, true
}

// parseEachFile parses git diff output one file at a time: a file whose
// part does not parse is named in skipped instead of failing the others.
func parseEachFile(out []byte) (files []*checks.FileChange, skipped []checks.NotReviewed) {
	for _, part := range splitFileDiffs(out) {
		fs, _, err := gitdiff.Parse(bytes.NewReader(part))
		if err != nil {
			skipped = append(skipped, checks.NotReviewed{Path: diffHeaderPath(part),
				Reason: "its diff could not be read (" + oneLine(err.Error()) + ")"})
			continue
		}
		files = append(files, FromGitDiff(fs)...)
	}
	sortChanges(files)
	return files, skipped
}

// splitFileDiffs cuts git diff output at each "diff --git" header.
func splitFileDiffs(out []byte) [][]byte {
	var parts [][]byte
	start := -1
	for off := 0; off < len(out); {
		end := bytes.IndexByte(out[off:], '\n')
		next := len(out)
		if end >= 0 {
			next = off + end + 1
		}
		if bytes.HasPrefix(out[off:], []byte("diff --git ")) {
			if start >= 0 {
				parts = append(parts, out[start:off])
			}
			start = off
		}
		off = next
	}
	if start >= 0 {
		parts = append(parts, out[start:])
	} else if len(bytes.TrimSpace(out)) > 0 {
		parts = append(parts, out)
	}
	return parts
}

// diffHeaderPath is the new path a "diff --git a/X b/Y" header names, as
// well as it can be read without parsing the rest.
func diffHeaderPath(part []byte) string {
	line, _, _ := bytes.Cut(part, []byte("\n"))
	s := strings.TrimPrefix(string(line), "diff --git ")
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return strings.Trim(s[i+3:], `"`)
	}
	return s
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// diffArgs are the options of every diff we ask git for.
func diffArgs() []string {
	return []string{"diff",
		"--no-color", "--no-ext-diff", "--no-textconv",
		"--find-renames", "--full-index", "-U3",
		// Pin what user config could otherwise change in the output.
		"--src-prefix=a/", "--dst-prefix=b/", "--no-relative",
		"--diff-algorithm=myers", "--indent-heuristic", "--inter-hunk-context=0",
		"--submodule=short", "--ignore-submodules=none",
	}
}

// ParsePatch parses a git-style unified diff of any number of files.
func ParsePatch(r io.Reader) ([]*checks.FileChange, error) {
	files, _, err := gitdiff.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("parse diff: %w", err)
	}
	return FromGitDiff(files), nil
}

// FromGitDiff converts parsed diffs to the checks representation, numbering
// every hunk line in base and head. Copies count as added files: their
// lines are new to the PR wherever they came from. The result is sorted by
// path, as trees.Diff sorts it.
func FromGitDiff(files []*gitdiff.File) []*checks.FileChange {
	out := make([]*checks.FileChange, 0, len(files))
	for _, f := range files {
		if f == nil {
			continue
		}
		fc := &checks.FileChange{Path: f.NewName, OldPath: f.OldName, Binary: f.IsBinary}
		switch {
		case f.IsNew, f.IsCopy:
			fc.Status, fc.OldPath = checks.Added, ""
		case f.IsDelete:
			fc.Status, fc.Path = checks.Deleted, f.OldName
		case f.IsRename:
			fc.Status = checks.Renamed
		default:
			fc.Status = checks.Modified
			if fc.Path == "" {
				fc.Path = fc.OldPath
			}
			if fc.OldPath == "" {
				fc.OldPath = fc.Path
			}
		}
		if !f.IsBinary {
			for _, frag := range f.TextFragments {
				if frag != nil {
					fc.Hunks = append(fc.Hunks, hunkFromFragment(frag))
				}
			}
		}
		out = append(out, fc)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func hunkFromFragment(frag *gitdiff.TextFragment) checks.Hunk {
	h := checks.Hunk{
		OldStart: int(frag.OldPosition), OldLines: int(frag.OldLines),
		NewStart: int(frag.NewPosition), NewLines: int(frag.NewLines),
		Lines: make([]checks.DiffLine, 0, len(frag.Lines)),
	}
	oldN, newN := h.OldStart, h.NewStart
	for _, l := range frag.Lines {
		// go-gitdiff keeps each line's newline and already dropped it
		// where git said "\ No newline at end of file".
		text := strings.TrimSuffix(l.Line, "\n")
		switch l.Op {
		case gitdiff.OpContext:
			h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpContext, Text: text, Old: oldN, New: newN})
			oldN++
			newN++
		case gitdiff.OpDelete:
			h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpDelete, Text: text, Old: oldN})
			oldN++
		case gitdiff.OpAdd:
			h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpAdd, Text: text, New: newN})
			newN++
		}
	}
	return h
}

// GitChange is a pull request reconstructed from two revisions of a local
// repository, or from a revision and the working tree. Close it when done.
type GitChange struct {
	Repo *Repo
	// Base is the tree the diff starts from: the merge base of the two
	// revisions.
	Base *GitTree
	// Head is the head commit's tree. When the change reviews the working
	// tree, it is the checked-out commit and Worktree holds what is reviewed;
	// HeadTree returns the right one.
	Head *GitTree
	// Worktree is the working tree (uncommitted and untracked changes
	// included) when the change was opened with OpenWorktreeChange.
	Worktree *WorktreeTree
	// Files is the diff from Base to HeadTree().
	Files []*checks.FileChange
	// BaseSHA is Base's commit; BaseTipSHA is what the base revision
	// resolved to. They differ when the base branch moved on after head
	// branched off it.
	BaseSHA    string
	BaseTipSHA string
	HeadSHA    string
	// HasMergeBase reports whether BaseSHA is a merge base. OpenChange
	// refuses revisions without one, so it is true for every change it
	// returns.
	HasMergeBase bool
	// NotReviewed are the files left out of Files because their diff or
	// content could not be read, and why (see checks.Change.Skip).
	NotReviewed []checks.NotReviewed
}

// HeadTree is the reviewed head: the working tree when there is one, else
// the head commit's tree.
func (c *GitChange) HeadTree() checks.Tree {
	if c.Worktree != nil {
		return c.Worktree
	}
	return c.Head
}

// Close releases the repository.
func (c *GitChange) Close() error { return c.Repo.Close() }

// Change returns the change to review: base, the reviewed head, the files,
// what could not be read named as not reviewed, and the revisions.
func (c *GitChange) Change() *checks.Change {
	ch := &checks.Change{Base: c.Base, Head: c.HeadTree(), Files: c.Files,
		PR: checks.PRInfo{BaseSHA: c.BaseSHA, HeadSHA: c.HeadSHA}}
	for _, n := range c.NotReviewed {
		ch.Skip(n.Path, n.Reason)
	}
	return ch
}

// NoMergeBaseError says the base and head revisions share no commit in the
// local repository. Diffing from the base tip instead would present every
// difference between the two histories (in a shallow clone: all of main's
// recent history) as the PR's change, so the review stops.
type NoMergeBaseError struct {
	Dir              string
	BaseRev, HeadRev string
	BaseSHA, HeadSHA string
	// Shallow is set when the repository is a shallow clone, the usual
	// cause: the common ancestor exists but was not fetched.
	Shallow bool
}

func (e *NoMergeBaseError) Error() string {
	what := fmt.Sprintf("no merge base between --base %s (%.12s) and --head %s (%.12s) in %s", e.BaseRev, e.BaseSHA, e.HeadRev, e.HeadSHA, e.Dir)
	if e.Shallow {
		return what + ": the repository is a shallow clone, so their common history is missing; " +
			"fetch it (actions/checkout with fetch-depth: 0, or git fetch --unshallow) or pass the merge-base SHA as --base"
	}
	return what + ": the histories are unrelated; pass the commit the PR branched from (the merge-base SHA) as --base"
}

// shallowHint adds what to do to an unknown-revision error in a shallow
// clone, where the revision most likely exists upstream but was not
// fetched.
func shallowHint(ctx context.Context, repo *Repo, err error) error {
	if shallow, serr := repo.Shallow(ctx); serr == nil && shallow {
		return fmt.Errorf("%w (the repository is a shallow clone: fetch the full history with actions/checkout fetch-depth: 0 or git fetch --unshallow)", err)
	}
	return err
}

// OpenChange opens the repository at dir and computes what a pull request
// from headRev into baseRev would show. Like GitHub's pull request diff
// (base...head), it diffs from the merge base: commits that landed on the
// base branch after head branched off are not the PR's doing, and
// diffing against the base tip would show them reverted (main's new
// changelog entries as deletions). The Base tree is the merge base's too,
// so rules see the files the diff applies to. Revisions without a merge
// base are a *NoMergeBaseError.
func OpenChange(ctx context.Context, dir, baseRev, headRev string) (*GitChange, error) {
	repo, err := OpenRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	c, err := openChange(ctx, repo, baseRev, headRev, false)
	if err != nil {
		_ = repo.Close()
		return nil, err
	}
	return c, nil
}

// OpenWorktreeChange is OpenChange with the working tree of the clone at
// dir as the head: the checked-out commit plus every uncommitted change,
// staged or not, and the untracked files git does not ignore. The diff
// starts from the merge base of baseRev and the checked-out commit.
func OpenWorktreeChange(ctx context.Context, dir, baseRev string) (*GitChange, error) {
	repo, err := OpenRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	c, err := openChange(ctx, repo, baseRev, "HEAD", true)
	if err != nil {
		_ = repo.Close()
		return nil, err
	}
	return c, nil
}

func openChange(ctx context.Context, repo *Repo, baseRev, headRev string, worktree bool) (*GitChange, error) {
	c := &GitChange{Repo: repo}
	var err error
	if worktree {
		// Before resolving anything: a bare repository has no working tree,
		// and saying so beats an unknown-HEAD error.
		if c.Worktree, err = repo.Worktree(ctx); err != nil {
			return nil, err
		}
	}
	if c.BaseTipSHA, err = repo.Resolve(ctx, baseRev); err != nil {
		return nil, shallowHint(ctx, repo, err)
	}
	if c.HeadSHA, err = repo.Resolve(ctx, headRev); err != nil {
		return nil, shallowHint(ctx, repo, err)
	}
	mb, ok, err := repo.MergeBase(ctx, c.BaseTipSHA, c.HeadSHA)
	if err != nil {
		return nil, err
	}
	if !ok {
		shallow, err := repo.Shallow(ctx)
		if err != nil {
			return nil, err
		}
		return nil, &NoMergeBaseError{Dir: repo.dir, BaseRev: baseRev, HeadRev: headRev,
			BaseSHA: c.BaseTipSHA, HeadSHA: c.HeadSHA, Shallow: shallow}
	}
	c.BaseSHA, c.HasMergeBase = mb, true
	if worktree {
		c.Files, c.NotReviewed, err = repo.diffWorktree(ctx, c.BaseSHA, c.Worktree)
	} else {
		c.Files, c.NotReviewed, err = repo.Diff(ctx, c.BaseSHA, c.HeadSHA)
	}
	if err != nil {
		return nil, err
	}
	if c.Base, err = repo.Tree(ctx, c.BaseSHA); err != nil {
		return nil, err
	}
	if c.Head, err = repo.Tree(ctx, c.HeadSHA); err != nil {
		return nil, err
	}
	return c, nil
}
