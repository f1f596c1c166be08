package fakegithub

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// Repo is one repository of the fake.
type Repo struct {
	Owner, Name string
	ID          int64
	Private     bool
	// Parent is the repository a fork was made from.
	Parent *Repo

	objects  *objects
	branches map[string]string // name → commit sha
	pulls    map[int]*PR

	issueComments []*github.IssueComment
	reviews       []*review
	statuses      map[string][]*github.RepoStatus // sha → newest last
	reactions     map[int64][]*github.Reaction    // comment id → reactions

	// Actions and checks (actions.go).
	checkRuns map[string][]*github.CheckRun // commit sha → check runs
	workflows map[string]*github.Workflow   // file name → workflow
	runs      map[int64]*workflowRun
	artifacts map[int64]*artifact
}

type review struct {
	number int
	github.PullRequestReview
	comments []*github.PullRequestComment
}

// FullName is owner/name.
func (r *Repo) FullName() string { return r.Owner + "/" + r.Name }

// PR is a pull request of the fake.
type PR struct {
	Number  int
	Base    *Repo
	BaseRef string
	BaseSHA string // the base branch's tip when the PR was last updated
	Head    *Repo
	HeadRef string
	HeadSHA string
	Title   string
	Body    string
	Author  string
	Labels  []string
	Draft   bool
	State   string // open, closed
	// AuthorAssociation is the author's relation to the base repository.
	AuthorAssociation string
	// Merged is set (with State "closed") once the PR is merged.
	Merged bool
	// Created and Updated are the PR's created_at and updated_at: GitHub
	// moves updated_at on every push and comment (zero: a fixed date).
	Created, Updated time.Time
	// Before is the head the last push replaced: a synchronize delivery's
	// "before" ("" until the first push).
	Before string

	diffs map[string][]*prFile // head sha → files (cached)
}

// AddRepo creates a repository ("owner/name"), or returns it.
func (s *Server) AddRepo(full string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addRepoLocked(full)
}

func (s *Server) addRepoLocked(full string) *Repo {
	if r := s.repos[strings.ToLower(full)]; r != nil {
		return r
	}
	owner, name, _ := strings.Cut(full, "/")
	r := &Repo{Owner: owner, Name: name, ID: s.newID(), objects: newObjects(), branches: map[string]string{},
		pulls: map[int]*PR{}, statuses: map[string][]*github.RepoStatus{}, reactions: map[int64][]*github.Reaction{},
		checkRuns: map[string][]*github.CheckRun{}, workflows: map[string]*github.Workflow{},
		runs: map[int64]*workflowRun{}, artifacts: map[int64]*artifact{}}
	s.repos[strings.ToLower(full)] = r
	return r
}

// Repo returns a repository by owner/name, or nil.
func (s *Server) Repo(full string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[strings.ToLower(full)]
}

// Commit stores a commit of tree in repo, on top of parent ("" for a root
// commit), named sha when given. It returns the commit's SHA.
func (s *Server) Commit(ctx context.Context, repo *Repo, tree checks.Tree, parent, sha, message string) (string, error) {
	files, err := readTree(ctx, tree)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitLocked(repo, files, parent, sha, message), nil
}

func (s *Server) commitLocked(repo *Repo, files map[string][]byte, parent, sha, message string) string {
	var parents []string
	if parent != "" {
		parents = []string{parent}
		// A fork shares its parent's history.
		if _, ok := repo.objects.commits[parent]; !ok {
			if c := s.findCommitLocked(parent); c != nil {
				s.copyCommitLocked(repo, c)
			}
		}
	}
	c := repo.objects.writeCommit(files, parents, message, sha)
	if c.date.IsZero() {
		c.date = s.now().UTC().Truncate(time.Second)
	}
	return c.sha
}

// findCommitLocked looks a commit up in every repository (a PR's head
// commits live in the head repository; GitHub also keeps them in the base
// repository's network).
func (s *Server) findCommitLocked(sha string) *commit {
	for _, r := range s.repos {
		if c := r.objects.commits[sha]; c != nil {
			return c
		}
	}
	return nil
}

func (s *Server) copyCommitLocked(dst *Repo, c *commit) {
	for c != nil {
		if _, ok := dst.objects.commits[c.sha]; ok {
			return
		}
		dst.objects.writeCommit(c.files, c.parents, c.message, c.sha).date = c.date
		if len(c.parents) == 0 {
			return
		}
		c = s.findCommitLocked(c.parents[0])
	}
}

// PRSpec describes a pull request to serve.
type PRSpec struct {
	Repo     string // base repository, owner/name
	HeadRepo string // fork the head lives in; "" for the base repository
	Number   int
	Base     checks.Tree
	Head     checks.Tree
	// BaseSHA and HeadSHA name the commits (webhook payloads carry fixed
	// SHAs); empty means their real git hashes.
	BaseSHA, HeadSHA string
	BaseRef, HeadRef string
	Title, Body      string
	Author           string
	Labels           []string
	Draft            bool
	// AuthorAssociation defaults to CONTRIBUTOR.
	AuthorAssociation string
	// HeadDate is the head commit's committer date (default now).
	HeadDate time.Time
}

// AddPR serves a pull request: a base commit of Base on the base branch
// and a head commit of Head on top of it.
func (s *Server) AddPR(ctx context.Context, spec PRSpec) (*PR, error) {
	baseFiles, err := readTree(ctx, spec.Base)
	if err != nil {
		return nil, fmt.Errorf("base tree: %w", err)
	}
	headFiles, err := readTree(ctx, spec.Head)
	if err != nil {
		return nil, fmt.Errorf("head tree: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.addRepoLocked(spec.Repo)
	head := base
	if spec.HeadRepo != "" && !strings.EqualFold(spec.HeadRepo, spec.Repo) {
		head = s.addRepoLocked(spec.HeadRepo)
		head.Parent = base
	}
	pr := &PR{Number: spec.Number, Base: base, Head: head, BaseRef: spec.BaseRef, HeadRef: spec.HeadRef,
		Title: spec.Title, Body: spec.Body, Author: spec.Author, Labels: append([]string(nil), spec.Labels...),
		Draft: spec.Draft, State: "open", AuthorAssociation: spec.AuthorAssociation, diffs: map[string][]*prFile{}}
	if pr.BaseRef == "" {
		pr.BaseRef = "main"
	}
	if pr.HeadRef == "" {
		pr.HeadRef = fmt.Sprintf("pr-%d", spec.Number)
	}
	if pr.Author == "" {
		pr.Author = "contributor"
	}
	if pr.AuthorAssociation == "" {
		pr.AuthorAssociation = "CONTRIBUTOR"
	}
	if pr.Title == "" {
		pr.Title = fmt.Sprintf("Fixture PR %d", spec.Number)
	}
	pr.BaseSHA = s.commitLocked(base, baseFiles, "", spec.BaseSHA, "base")
	base.branches[pr.BaseRef] = pr.BaseSHA
	if head != base {
		s.copyCommitLocked(head, base.objects.commits[pr.BaseSHA])
	}
	pr.HeadSHA = s.commitLocked(head, headFiles, pr.BaseSHA, spec.HeadSHA, pr.Title)
	if !spec.HeadDate.IsZero() {
		head.objects.commits[pr.HeadSHA].date = spec.HeadDate.UTC()
		pr.Created, pr.Updated = spec.HeadDate.UTC(), spec.HeadDate.UTC()
	}
	head.branches[pr.HeadRef] = pr.HeadSHA
	if head != base {
		// GitHub keeps a fork PR's head in the base repository as well
		// (refs/pull/N/head).
		s.copyCommitLocked(base, head.objects.commits[pr.HeadSHA])
	}
	base.pulls[pr.Number] = pr
	return pr, nil
}

// AddFixturePR serves a fixture PR directory (testdata/prs/NAME) as PR
// number of repo; spec supplies what the fixture does not say (zero
// fields of spec are filled from the fixture's pr.json).
func (s *Server) AddFixturePR(ctx context.Context, dir string, spec PRSpec) (*PR, error) {
	fx, err := trees.LoadFixture(ctx, dir)
	if err != nil {
		return nil, err
	}
	spec.Base, spec.Head = fx.Base, fx.Head
	if spec.Repo == "" {
		spec.Repo = fx.PR.RepoSlug()
	}
	if spec.Number == 0 {
		spec.Number = fx.PR.Number
	}
	if spec.Title == "" {
		spec.Title = fx.PR.Title
	}
	if spec.Body == "" {
		spec.Body = fx.PR.Body
	}
	if spec.Author == "" {
		spec.Author = fx.PR.Author
	}
	if spec.Labels == nil {
		spec.Labels = fx.PR.Labels
	}
	return s.AddPR(ctx, spec)
}

// Push moves the PR's head to a new commit of tree (a synchronize) and
// returns its SHA.
func (s *Server) Push(ctx context.Context, pr *PR, tree checks.Tree, sha string) (string, error) {
	return s.PushAt(ctx, pr, tree, sha, time.Time{})
}

// PushAt is Push at time date, which is also the new commit's committer
// date (zero: now).
func (s *Server) PushAt(ctx context.Context, pr *PR, tree checks.Tree, sha string, date time.Time) (string, error) {
	return s.push(ctx, pr, tree, sha, date, date, false)
}

// PushDated pushes at time pushed a commit whose committer date the
// author set to committed: a committer date is whatever the author wrote.
func (s *Server) PushDated(ctx context.Context, pr *PR, tree checks.Tree, sha string, pushed, committed time.Time) (string, error) {
	return s.push(ctx, pr, tree, sha, pushed, committed, false)
}

// ForcePush replaces the PR's commits with one new commit of tree on top
// of its base: the old head commits are no longer part of the PR.
func (s *Server) ForcePush(ctx context.Context, pr *PR, tree checks.Tree, sha string, date time.Time) (string, error) {
	return s.push(ctx, pr, tree, sha, date, date, true)
}

func (s *Server) push(ctx context.Context, pr *PR, tree checks.Tree, sha string, pushed, date time.Time, force bool) (string, error) {
	files, err := readTree(ctx, tree)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	parent := pr.HeadSHA
	if force {
		parent = pr.BaseSHA
	}
	pr.Before = pr.HeadSHA
	pr.HeadSHA = s.commitLocked(pr.Head, files, parent, sha, "push")
	if !date.IsZero() {
		pr.Head.objects.commits[pr.HeadSHA].date = date.UTC()
	}
	if pushed.IsZero() {
		pushed = s.now()
	}
	pr.touch(pushed)
	pr.Head.branches[pr.HeadRef] = pr.HeadSHA
	if pr.Head != pr.Base {
		s.copyCommitLocked(pr.Base, pr.Head.objects.commits[pr.HeadSHA])
	}
	return pr.HeadSHA, nil
}

// ForcePushTo moves the PR's head back to commit sha, one it had before
// (a force push returning a branch to an earlier commit), at time at.
func (s *Server) ForcePushTo(pr *PR, sha string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.findCommitLocked(sha) == nil {
		return fmt.Errorf("unknown commit %s", sha)
	}
	pr.Before, pr.HeadSHA = pr.HeadSHA, sha
	if at.IsZero() {
		at = s.now()
	}
	pr.touch(at)
	pr.Head.branches[pr.HeadRef] = sha
	return nil
}

// Retarget changes the PR's base to branch ref, whose tip becomes a new
// commit of tree on top of the current base (as a release branch holding
// more than main), at time at: the merge base, and with it the diff and
// the changed files' owners, are the new base's.
func (s *Server) Retarget(ctx context.Context, pr *PR, ref string, tree checks.Tree, at time.Time) (string, error) {
	files, err := readTree(ctx, tree)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pr.BaseSHA = s.commitLocked(pr.Base, files, pr.BaseSHA, "", "retarget")
	pr.BaseRef = ref
	pr.Base.branches[ref] = pr.BaseSHA
	if pr.Head != pr.Base {
		s.copyCommitLocked(pr.Head, pr.Base.objects.commits[pr.BaseSHA])
	}
	pr.diffs = map[string][]*prFile{}
	if at.IsZero() {
		at = s.now()
	}
	pr.touch(at)
	return pr.BaseSHA, nil
}

// touch moves updated_at to at if that is later.
func (pr *PR) touch(at time.Time) {
	if at = at.UTC().Truncate(time.Second); at.After(pr.Updated) {
		pr.Updated = at
	}
}

// SetState sets the PR's state ("open" or "closed") and whether it was
// merged.
func (s *Server) SetState(pr *PR, state string, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr.State, pr.Merged = state, merged
}

// SetDraft marks the PR as a draft or ready for review.
func (s *Server) SetDraft(pr *PR, draft bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr.Draft = draft
}

// SetLabels replaces the PR's labels.
func (s *Server) SetLabels(pr *PR, labels ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr.Labels = append([]string(nil), labels...)
}

// RejectComments makes every review holding a comment for which reject
// returns true fail with 422, as GitHub answers for a comment it cannot
// place on the diff.
func (s *Server) RejectComments(reject func(path string, line int) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectors = append(s.rejectors, reject)
}

// mergeBaseLocked is the merge base of the PR's base tip and head.
func (s *Server) mergeBaseLocked(pr *PR, head string) string {
	return mergeBase(s.findCommitLocked, pr.BaseSHA, head)
}

// filesLocked computes (once per head) what the files API lists.
func (s *Server) filesLocked(ctx context.Context, pr *PR, head string) ([]*prFile, error) {
	if f, ok := pr.diffs[head]; ok {
		return f, nil
	}
	hc := s.findCommitLocked(head)
	bc := s.findCommitLocked(s.mergeBaseLocked(pr, head))
	if hc == nil || bc == nil {
		return nil, fmt.Errorf("unknown commit %s", head)
	}
	files, err := s.diffLocked(ctx, bc, hc)
	if err != nil {
		return nil, err
	}
	pr.diffs[head] = files
	return files, nil
}

func user(login string) *github.User {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return &github.User{Login: github.String(login), Type: github.String(typ), ID: github.Int64(int64(len(login)) * 7919)}
}

func (s *Server) repoJSON(r *Repo) *github.Repository {
	if r == nil {
		return nil
	}
	out := &github.Repository{ID: github.Int64(r.ID), Name: github.String(r.Name), FullName: github.String(r.FullName()),
		Owner: user(r.Owner), Private: github.Bool(r.Private), Fork: github.Bool(r.Parent != nil),
		HTMLURL: github.String("https://github.com/" + r.FullName()), DefaultBranch: github.String("main"),
		URL: github.String(s.URL + "/repos/" + r.FullName())}
	return out
}

func (s *Server) prJSON(pr *PR) *github.PullRequest {
	labels := make([]*github.Label, len(pr.Labels))
	for i, l := range pr.Labels {
		labels[i] = &github.Label{Name: github.String(l)}
	}
	files := pr.diffs[pr.HeadSHA]
	adds, dels := 0, 0
	for _, f := range files {
		adds += f.additions
		dels += f.deletions
	}
	now := github.Timestamp{Time: time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)}
	created, updated := now, now
	if !pr.Updated.IsZero() {
		created, updated = github.Timestamp{Time: pr.Created}, github.Timestamp{Time: pr.Updated}
	}
	return &github.PullRequest{
		ID: github.Int64(int64(pr.Number) + pr.Base.ID*100000), Number: github.Int(pr.Number),
		State: github.String(pr.State), Title: github.String(pr.Title), Body: github.String(pr.Body),
		User: user(pr.Author), Labels: labels, Draft: github.Bool(pr.Draft),
		AuthorAssociation: github.String(pr.AuthorAssociation),
		HTMLURL:           github.String(fmt.Sprintf("https://github.com/%s/pull/%d", pr.Base.FullName(), pr.Number)),
		URL:               github.String(fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, pr.Base.FullName(), pr.Number)),
		CreatedAt:         &created, UpdatedAt: &updated, Merged: github.Bool(pr.Merged),
		Head: &github.PullRequestBranch{Label: github.String(pr.Head.Owner + ":" + pr.HeadRef), Ref: github.String(pr.HeadRef),
			SHA: github.String(pr.HeadSHA), Repo: s.repoJSON(pr.Head), User: user(pr.Head.Owner)},
		Base: &github.PullRequestBranch{Label: github.String(pr.Base.Owner + ":" + pr.BaseRef), Ref: github.String(pr.BaseRef),
			SHA: github.String(pr.BaseSHA), Repo: s.repoJSON(pr.Base), User: user(pr.Base.Owner)},
		ChangedFiles: github.Int(len(files)), Additions: github.Int(adds), Deletions: github.Int(dels),
		Commits: github.Int(len(s.prCommitsLocked(pr))),
	}
}

// PRJSON is the PR as the API returns it (for building webhook payloads).
func (s *Server) PRJSON(ctx context.Context, pr *PR) (*github.PullRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.filesLocked(ctx, pr, pr.HeadSHA); err != nil {
		return nil, err
	}
	return s.prJSON(pr), nil
}

// RepoJSON is the repository as the API returns it.
func (s *Server) RepoJSON(r *Repo) *github.Repository {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repoJSON(r)
}
