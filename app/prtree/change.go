package prtree

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// maxListedFiles is where GitHub's files API stops listing a PR's files.
const maxListedFiles = 3000

// Loaded is a PR read through the API, ready for the check library.
type Loaded struct {
	Change    *checks.Change
	MergeBase string
	// Listed is how many files the files API returned; Changed is how many
	// the PR changes. They differ past GitHub's 3,000-file limit (300 for
	// a comparison), which limit is.
	Listed, Changed int
	limit           int
}

// Loader reads PRs through the API as checks.Changes.
type Loader struct {
	Caches *Caches
	// MergeBases caches merge bases by base and head (both immutable).
	MergeBases *state.LRU[string]
	ParseCache *checks.ParseCache
	// Now is the review date of the changes.
	Now func() time.Time
}

// skippedFile is a file that could not be read (its patch did not parse,
// nor could its two versions be read): it goes to the change's Skip, so
// the rest of the PR is reviewed and the summary (and a sign-off's
// verdict) names it.
type skippedFile struct{ path, why string }

// Truncated reports whether GitHub listed only part of the PR's files.
func (l *Loaded) Truncated() bool {
	limit := l.limit
	if limit == 0 {
		limit = maxListedFiles
	}
	return l.Listed >= limit && l.Changed > l.Listed
}

// Load builds the checks.Change of pr: the diff from the files API,
// the base tree at the merge base (what the diff applies to), and the head
// tree from the head repository (a fork's, for a PR from a fork).
func (s *Loader) Load(ctx context.Context, gh *github.Client, pr *github.PullRequest) (*Loaded, error) {
	return s.LoadAt(ctx, gh, pr, pr.GetHead().GetSHA())
}

// LoadAt is Load with the PR's head at commit head (a signed
// commit the head has moved past): the diff then comes from comparing the
// merge base with it.
func (s *Loader) LoadAt(ctx context.Context, gh *github.Client, pr *github.PullRequest, head string) (*Loaded, error) {
	baseOwner, baseRepo := pr.GetBase().GetRepo().GetOwner().GetLogin(), pr.GetBase().GetRepo().GetName()
	headOwner, headRepo := baseOwner, baseRepo
	if r := pr.GetHead().GetRepo(); r != nil && r.GetName() != "" {
		headOwner, headRepo = r.GetOwner().GetLogin(), r.GetName()
	}
	// A deleted fork leaves head.repo null; GitHub keeps the head commits
	// in the base repository (refs/pull/N/head), so read them there. A fork
	// the App may not read falls back to the same (see apiTree.load).

	mb, mbTree, compared, err := s.mergeBase(ctx, gh, baseOwner, baseRepo, pr.GetBase().GetSHA(), head)
	if err != nil {
		return nil, err
	}
	var files []*github.CommitFile
	listLimit := maxListedFiles
	switch {
	case head == pr.GetHead().GetSHA() && compared != nil && len(compared) < maxComparedFiles && len(compared) == pr.GetChangedFiles():
		// The comparison that named the merge base listed every file the
		// PR changes, with the same patches: no files call.
		files = compared
	case head == pr.GetHead().GetSHA():
		files, err = listFiles(ctx, gh, baseOwner, baseRepo, pr.GetNumber())
	case compared != nil:
		files, listLimit = compared, maxComparedFiles
	default:
		files, err = compareFiles(ctx, gh, baseOwner, baseRepo, mb, head)
		listLimit = maxComparedFiles
	}
	if err != nil {
		return nil, err
	}

	// The merge base is read in one piece (its tarball): the rules read
	// much of it (every master config, the sibling recipes). The head is
	// the base plus the PR's files: its listing is one tree call, and its
	// changed files are rebuilt from the base and the patch.
	base := newAPITree(gh, baseOwner, baseRepo, mb, s.Caches)
	base.treeSHA = mbTree
	headTree := newAPITree(gh, headOwner, headRepo, head, s.Caches)
	if headOwner != baseOwner || headRepo != baseRepo {
		headTree.fallbackOwner, headTree.fallbackRepo = baseOwner, baseRepo
	}
	// Both listings are needed by every review: ask for them together,
	// while the files list is read.
	go func() { _ = base.load(ctx) }()
	go func() { _ = headTree.load(ctx) }()
	headTree.derive = map[string]derivation{}
	var changes []*checks.FileChange
	var skipped []skippedFile
	for _, f := range files {
		fc, patch, err := fileChange(f)
		if fc == nil && err == nil {
			continue
		}
		if err != nil {
			// One file's patch must not cost the review of the others:
			// compute its diff from its two versions instead.
			if fc, err = fallbackChange(ctx, base, headTree, f, err); err != nil {
				skipped = append(skipped, skippedFile{path: checks.CleanPath(f.GetFilename()), why: text.FirstLine(err.Error())})
				continue
			}
		}
		from := fc.OldPath
		if f.GetStatus() == "copied" {
			from = checks.CleanPath(f.GetPreviousFilename()) // the patch is against the copy's source
		}
		if patch == nil && fc.Hunks == nil && (f.GetAdditions() > 0 || f.GetDeletions() > 0) {
			// GitHub leaves out the patch of a very large diff; compute it.
			if err := diffContents(ctx, base, headTree, fc); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				skipped = append(skipped, skippedFile{path: fc.Path, why: text.FirstLine(err.Error())})
				continue
			}
		}
		if patch != nil && fc.Status != checks.Deleted {
			headTree.derive[fc.Path] = derivation{from: base, old: from, patch: patch}
		}
		changes = append(changes, fc)
	}

	labels := make([]string, 0, len(pr.Labels))
	for _, l := range pr.Labels {
		labels = append(labels, l.GetName())
	}
	ch := &checks.Change{
		Base: base, Head: headTree, Files: changes, Cache: s.ParseCache,
		Date: s.Now(),
		PR: checks.PRInfo{Number: pr.GetNumber(), Owner: baseOwner, Repo: baseRepo, Author: pr.GetUser().GetLogin(),
			Labels: labels, BaseSHA: mb, HeadSHA: head, Title: pr.GetTitle(), Body: pr.GetBody()},
	}
	lc := &Loaded{Change: ch, MergeBase: mb, Listed: len(files), Changed: max(pr.GetChangedFiles(), len(files)), limit: listLimit}
	for _, f := range skipped {
		ch.Skip(f.path, "it could not be read: "+f.why)
	}
	if head != pr.GetHead().GetSHA() {
		lc.Changed = len(files) // the PR's count is the current head's
		if len(files) >= maxComparedFiles {
			lc.Changed++ // more than GitHub lists; how many more is unknown
		}
	}
	return lc, nil
}

// mergeBase returns the merge base of a PR's base and head, the commit the
// files API diffs from, and its root tree SHA ("" if GitHub did not say),
// which a tarball of it is checked against. It is cached: both SHAs are
// immutable. When it asked GitHub, it also returns the files the
// comparison lists (up to maxComparedFiles): the PR's diff, when the
// base is the PR's.
func (s *Loader) mergeBase(ctx context.Context, gh *github.Client, owner, repo, base, head string) (string, string, []*github.CommitFile, error) {
	key := owner + "/" + repo + "\x00" + base + "..." + head
	if v, ok := s.MergeBases.Get(key); ok {
		mb, tree, _ := strings.Cut(v, " ")
		return mb, tree, nil, nil
	}
	cmp, _, err := gh.Repositories.CompareCommits(ctx, owner, repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", "", nil, fmt.Errorf("find the merge base of %.12s and %.12s in %s/%s: %w", base, head, owner, repo, err)
	}
	mb := cmp.GetMergeBaseCommit().GetSHA()
	if mb == "" {
		return "", "", nil, fmt.Errorf("compare %.12s...%.12s in %s/%s: no merge base", base, head, owner, repo)
	}
	tree := cmp.GetMergeBaseCommit().GetCommit().GetTree().GetSHA()
	s.MergeBases.Put(key, mb+" "+tree)
	files := cmp.Files
	if files == nil {
		files = []*github.CommitFile{} // listed, and empty
	}
	return mb, tree, files, nil
}

// maxComparedFiles is where the compare API stops listing files.
const maxComparedFiles = 300

// compareFiles lists the files changed between two commits.
func compareFiles(ctx context.Context, gh *github.Client, owner, repo, base, head string) ([]*github.CommitFile, error) {
	cmp, _, err := gh.Repositories.CompareCommits(ctx, owner, repo, base, head, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, fmt.Errorf("compare %.12s...%.12s in %s/%s: %w", base, head, owner, repo, err)
	}
	return cmp.Files, nil
}

// listFiles pages through the PR's files (GitHub stops at 3,000).
func listFiles(ctx context.Context, gh *github.Client, owner, repo string, number int) ([]*github.CommitFile, error) {
	all, err := ghapi.ListUpTo(ctx, maxListedFiles, func(opts *github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
		return gh.PullRequests.ListFiles(ctx, owner, repo, number, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the files of %s/%s#%d: %w", owner, repo, number, err)
	}
	return all, nil
}

// fileChange converts one entry of the files API. It returns nil for an
// entry that changes nothing.
func fileChange(f *github.CommitFile) (*checks.FileChange, *gitdiff.File, error) {
	fc := &checks.FileChange{Path: checks.CleanPath(f.GetFilename())}
	switch f.GetStatus() {
	case "added", "copied":
		fc.Status = checks.Added
	case "removed":
		fc.Status = checks.Deleted
	case "renamed":
		fc.Status, fc.OldPath = checks.Renamed, checks.CleanPath(f.GetPreviousFilename())
	case "modified", "changed":
		fc.Status, fc.OldPath = checks.Modified, fc.Path
	case "unchanged":
		return nil, nil, nil
	default:
		return nil, nil, fmt.Errorf("file %s: unknown status %q", f.GetFilename(), f.GetStatus())
	}
	if fc.Status == checks.Deleted {
		fc.OldPath = fc.Path
	}
	if f.Patch == nil {
		// No patch and no line counts: GitHub's answer for a binary file
		// (or a pure rename or mode change, which has no lines either).
		if fc.Status != checks.Renamed && f.GetAdditions() == 0 && f.GetDeletions() == 0 && f.GetChanges() == 0 {
			fc.Binary = f.GetStatus() != "changed"
		}
		return fc, nil, nil
	}
	patch, err := parseGitHubPatch(fc, f.GetPatch(), f.GetStatus() == "copied")
	if err != nil {
		return nil, nil, fmt.Errorf("file %s: %w", f.GetFilename(), err)
	}
	if len(patch.TextFragments) > 0 {
		// FromGitDiff numbers every hunk line in base and head.
		parsed := trees.FromGitDiff([]*gitdiff.File{patch})
		fc.Hunks = parsed[0].Hunks
	}
	return fc, patch, nil
}

// parseGitHubPatch parses the files API's patch, which is only the hunks,
// by giving it the file header git would have written. A copy's patch is
// against the file it copies. The names are
// placeholders: the paths come from the API fields, so no quoting rules
// apply.
func parseGitHubPatch(fc *checks.FileChange, patch string, copied bool) (*gitdiff.File, error) {
	oldName, newName := "a/file", "b/file"
	switch {
	case fc.Status == checks.Added && !copied:
		oldName = "/dev/null"
	case fc.Status == checks.Deleted:
		newName = "/dev/null"
	}
	var b strings.Builder
	b.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	b.WriteString(patch)
	if !strings.HasSuffix(patch, "\n") {
		b.WriteByte('\n')
	}
	files, _, err := gitdiff.Parse(strings.NewReader(b.String()))
	if err != nil {
		return nil, fmt.Errorf("parse patch: %w", err)
	}
	if len(files) != 1 {
		return nil, fmt.Errorf("parse patch: %d file diffs, want 1", len(files))
	}
	return files[0], nil
}

// fallbackChange builds the change of a file whose files-API entry could
// not be read (its patch did not parse, an unknown status) from the file's
// two versions; it fails when they cannot be read either.
func fallbackChange(ctx context.Context, base, head checks.Tree, f *github.CommitFile, cause error) (*checks.FileChange, error) {
	fc := &checks.FileChange{Path: checks.CleanPath(f.GetFilename())}
	switch f.GetStatus() {
	case "added", "copied":
		fc.Status = checks.Added
	case "removed":
		fc.Status, fc.OldPath = checks.Deleted, fc.Path
	case "renamed":
		fc.Status, fc.OldPath = checks.Renamed, checks.CleanPath(f.GetPreviousFilename())
	case "modified", "changed":
		fc.Status, fc.OldPath = checks.Modified, fc.Path
	default:
		return nil, cause
	}
	if err := diffContents(ctx, base, head, fc); err != nil {
		return nil, fmt.Errorf("%w; and its contents: %v", cause, err)
	}
	return fc, nil
}

// diffContents computes a file's hunks from its two versions.
func diffContents(ctx context.Context, base, head checks.Tree, fc *checks.FileChange) error {
	var a, b []byte
	var err error
	if fc.Status != checks.Added {
		if a, err = base.ReadFile(ctx, fc.OldPath); err != nil {
			return fmt.Errorf("read %s at the base: %w", fc.OldPath, err)
		}
	}
	if fc.Status != checks.Deleted {
		if b, err = head.ReadFile(ctx, fc.Path); err != nil {
			return fmt.Errorf("read %s at the head: %w", fc.Path, err)
		}
	}
	if bytes.IndexByte(a[:min(len(a), 8000)], 0) >= 0 || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		fc.Binary = true
		return nil
	}
	fc.Hunks = trees.LineHunks(a, b)
	return nil
}
