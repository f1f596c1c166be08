package fakegithub

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"
)

// Route names, for faults and call counting.
const (
	RoutePull           = "GET /repos/{owner}/{repo}/pulls/{number}"
	RouteFiles          = "GET /repos/{owner}/{repo}/pulls/{number}/files"
	RouteCompare        = "GET /repos/{owner}/{repo}/compare/{basehead}"
	RouteTree           = "GET /repos/{owner}/{repo}/git/trees/{sha}"
	RouteBlob           = "GET /repos/{owner}/{repo}/git/blobs/{sha}"
	RouteIssueComments  = "GET /repos/{owner}/{repo}/issues/{number}/comments"
	RouteCreateComment  = "POST /repos/{owner}/{repo}/issues/{number}/comments"
	RouteEditComment    = "PATCH /repos/{owner}/{repo}/issues/comments/{id}"
	RouteDeleteComment  = "DELETE /repos/{owner}/{repo}/issues/comments/{id}"
	RouteReviewComments = "GET /repos/{owner}/{repo}/pulls/{number}/comments"
	RouteCreateReview   = "POST /repos/{owner}/{repo}/pulls/{number}/reviews"
	RouteListReviews    = "GET /repos/{owner}/{repo}/pulls/{number}/reviews"
	RouteDeleteReview   = "DELETE /repos/{owner}/{repo}/pulls/{number}/reviews/{id}"
	RouteCreateStatus   = "POST /repos/{owner}/{repo}/statuses/{sha}"
	RouteListStatuses   = "GET /repos/{owner}/{repo}/commits/{ref}/statuses"
	RouteReaction       = "POST /repos/{owner}/{repo}/issues/comments/{id}/reactions"
	RouteAccessToken    = "POST /app/installations/{id}/access_tokens"
)

func (s *Server) registerRoutes() {
	s.registerAppRoutes()
	handle := func(route string, h http.HandlerFunc) {
		method, pattern, _ := strings.Cut(route, " ")
		s.Handle(method, pattern, h)
	}
	handle(RoutePull, s.getPull)
	handle(RouteFiles, s.listFiles)
	handle(RouteCompare, s.compare)
	handle(RouteTree, s.getTree)
	handle(RouteBlob, s.getBlob)
	handle(RouteIssueComments, s.listIssueComments)
	handle(RouteCreateComment, s.createIssueComment)
	handle(RouteEditComment, s.editIssueComment)
	handle(RouteDeleteComment, s.deleteIssueComment)
	handle("GET /repos/{owner}/{repo}/issues/comments/{id}", s.getIssueComment)
	handle(RouteReviewComments, s.listReviewComments)
	handle(RouteCreateReview, s.createReview)
	handle(RouteListReviews, s.listReviews)
	handle(RouteDeleteReview, s.deleteReview)
	handle(RouteCreateStatus, s.createStatus)
	handle(RouteListStatuses, s.listStatuses)
	handle(RouteReaction, s.createReaction)
	s.registerActionsRoutes()
	s.registerCommitRoutes()
	s.registerReviewRoutes()
	s.registerArchiveRoutes()
	s.registerBranchRoutes()
}

// authorizedPull authorizes the request (write: it changes something) and
// finds the PR it names, answering the error itself when either fails.
func (s *Server) authorizedPull(w http.ResponseWriter, r *http.Request, write bool) (*Repo, *PR, bool) {
	_, repo, ok := s.authorize(w, r, write)
	if !ok {
		return nil, nil, false
	}
	pr, ok := s.pullFor(w, r, repo)
	return repo, pr, ok
}

func (s *Server) pullFor(w http.ResponseWriter, r *http.Request, repo *Repo) (*PR, bool) {
	n, _ := strconv.Atoi(chi.URLParam(r, "number"))
	s.mu.Lock()
	pr := repo.pulls[n]
	s.mu.Unlock()
	if pr == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil, false
	}
	return pr, true
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	_, pr, ok := s.authorizedPull(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	_, err := s.filesLocked(r.Context(), pr, pr.HeadSHA)
	out := s.prJSON(pr)
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	_, pr, ok := s.authorizedPull(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	files, err := s.filesLocked(r.Context(), pr, pr.HeadSHA)
	head, omitOver, maxFiles := pr.Head, s.OmitPatchOver, s.MaxFiles
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if maxFiles > 0 && len(files) > maxFiles {
		files = files[:maxFiles]
	}
	out := make([]*github.CommitFile, 0, len(files))
	for _, f := range files {
		cf := s.commitFile(head, pr.HeadSHA, f)
		if omitOver > 0 && len(f.patch) > omitOver {
			cf.Patch = nil
		}
		out = append(out, cf)
	}
	writeJSON(w, http.StatusOK, page(w, r, out))
}

// commitFile is one file of a diff as the files and compare APIs list it.
func (s *Server) commitFile(repo *Repo, ref string, f *prFile) *github.CommitFile {
	cf := &github.CommitFile{SHA: github.String(f.sha), Filename: github.String(f.path), Status: github.String(f.status),
		Additions: github.Int(f.additions), Deletions: github.Int(f.deletions), Changes: github.Int(f.additions + f.deletions),
		BlobURL:     github.String(fmt.Sprintf("https://github.com/%s/blob/%s/%s", repo.FullName(), ref, f.path)),
		RawURL:      github.String(fmt.Sprintf("https://github.com/%s/raw/%s/%s", repo.FullName(), ref, f.path)),
		ContentsURL: github.String(fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.URL, repo.FullName(), f.path, ref))}
	if f.patch != "" {
		cf.Patch = github.String(f.patch)
	}
	if f.previous != "" {
		cf.PreviousFilename = github.String(f.previous)
	}
	return cf
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	base, head, found := strings.Cut(chi.URLParam(r, "basehead"), "...")
	if !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	resolve := func(ref string) string {
		if _, name, fork := strings.Cut(ref, ":"); fork {
			ref = name
		}
		if sha, ok := repo.branches[ref]; ok {
			return sha
		}
		return ref
	}
	base, head = resolve(base), resolve(head)
	bc, hc := s.findCommitLocked(base), s.findCommitLocked(head)
	if bc == nil || hc == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	mb := mergeBase(s.findCommitLocked, base, head)
	mbc := s.findCommitLocked(mb)
	if mbc == nil {
		writeError(w, http.StatusNotFound, "No common ancestor between "+base+" and "+head+".")
		return
	}
	ahead, behind := 0, 0
	for c := hc; c != nil && c.sha != mb; c = s.parentLocked(c) {
		ahead++
	}
	for c := bc; c != nil && c.sha != mb; c = s.parentLocked(c) {
		behind++
	}
	status := "diverged"
	switch {
	case ahead == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case ahead == 0:
		status = "behind"
	}
	rc := func(c *commit) *github.RepositoryCommit {
		return &github.RepositoryCommit{SHA: github.String(c.sha),
			Commit: &github.Commit{SHA: github.String(c.sha), Message: github.String(c.message), Tree: &github.Tree{SHA: github.String(c.tree)}}}
	}
	files, err := s.diffLocked(r.Context(), mbc, hc)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	// GitHub lists at most 300 files of a comparison.
	if len(files) > 300 {
		files = files[:300]
	}
	cfs := make([]*github.CommitFile, 0, len(files))
	for _, f := range files {
		cf := s.commitFile(repo, head, f)
		if s.OmitPatchOver > 0 && len(f.patch) > s.OmitPatchOver {
			cf.Patch = nil // as the files API does
		}
		cfs = append(cfs, cf)
	}
	writeJSON(w, http.StatusOK, &github.CommitsComparison{BaseCommit: rc(bc), MergeBaseCommit: rc(mbc),
		Status: github.String(status), AheadBy: github.Int(ahead), BehindBy: github.Int(behind),
		TotalCommits: github.Int(ahead), Commits: []*github.RepositoryCommit{}, Files: cfs})
}

func (s *Server) parentLocked(c *commit) *commit {
	if len(c.parents) == 0 {
		return nil
	}
	return s.findCommitLocked(c.parents[0])
}

func (s *Server) getTree(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	sha := chi.URLParam(r, "sha")
	recursive := r.URL.Query().Get("recursive") != ""
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := repo.objects.commits[sha]; c != nil {
		sha = c.tree
	} else if b, ok := repo.branches[sha]; ok {
		sha = repo.objects.commits[b].tree
	}
	t := repo.objects.trees[sha]
	if t == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	entries := t.entries
	if recursive {
		entries = repo.objects.flatten(sha, "")
	}
	truncated := false
	if recursive && s.TruncateTreesOver > 0 && len(entries) > s.TruncateTreesOver {
		entries, truncated = entries[:s.TruncateTreesOver], true
	}
	out := &github.Tree{SHA: github.String(sha), Truncated: github.Bool(truncated)}
	for _, e := range entries {
		te := &github.TreeEntry{Path: github.String(e.name), Mode: github.String(e.mode), Type: github.String(e.typ),
			SHA: github.String(e.sha), URL: github.String(fmt.Sprintf("%s/repos/%s/git/%ss/%s", s.URL, repo.FullName(), e.typ, e.sha))}
		if e.typ == "blob" {
			te.Size = github.Int(e.size)
		}
		out.Entries = append(out.Entries, te)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getBlob(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	sha := chi.URLParam(r, "sha")
	s.mu.Lock()
	b, found := repo.objects.blobs[sha]
	s.mu.Unlock()
	if !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "raw") {
		w.Header().Set("Content-Type", "application/vnd.github.raw")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
		return
	}
	writeJSON(w, http.StatusOK, &github.Blob{SHA: github.String(sha), Size: github.Int(len(b)),
		Encoding: github.String("base64"), Content: github.String(base64.StdEncoding.EncodeToString(b))})
}

func (s *Server) listIssueComments(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	n, _ := strconv.Atoi(chi.URLParam(r, "number"))
	s.mu.Lock()
	var out []*github.IssueComment
	for _, c := range repo.issueComments {
		if issueNumber(c) == n {
			out = append(out, c)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, page(w, r, out))
}

func issueNumber(c *github.IssueComment) int {
	u := c.GetIssueURL()
	n, _ := strconv.Atoi(u[strings.LastIndexByte(u, '/')+1:])
	return n
}

const maxCommentChars = 65536

// readCommentBody decodes a comment's JSON and validates its body as
// GitHub does (present, at most 65,536 characters), answering 422 if not.
func readCommentBody(w http.ResponseWriter, r *http.Request) (github.IssueComment, bool) {
	var in github.IssueComment
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.GetBody() == "" {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "body is missing")
		return in, false
	}
	if len([]rune(in.GetBody())) > maxCommentChars {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "body is too long (maximum is 65536 characters)")
		return in, false
	}
	return in, true
}

func (s *Server) createIssueComment(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	in, ok := readCommentBody(w, r)
	if !ok {
		return
	}
	n, _ := strconv.Atoi(chi.URLParam(r, "number"))
	s.mu.Lock()
	c := s.addIssueCommentLocked(repo, n, who.login, in.GetBody())
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

// AddIssueComment posts a conversation comment as login (a human's
// comment, for tests).
func (s *Server) AddIssueComment(repo *Repo, number int, login, body string) *github.IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addIssueCommentLocked(repo, number, login, body)
}

func (s *Server) addIssueCommentLocked(repo *Repo, number int, login, body string) *github.IssueComment {
	id := s.newID()
	now := github.Timestamp{Time: s.now().UTC().Truncate(time.Second)}
	c := &github.IssueComment{ID: github.Int64(id), Body: github.String(body), User: user(login),
		CreatedAt: &now, UpdatedAt: &now, AuthorAssociation: github.String("NONE"),
		IssueURL: github.String(fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, repo.FullName(), number)),
		HTMLURL:  github.String(fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", repo.FullName(), number, id)),
		URL:      github.String(fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, repo.FullName(), id))}
	repo.issueComments = append(repo.issueComments, c)
	return c
}

func (s *Server) findIssueComment(w http.ResponseWriter, r *http.Request, repo *Repo) *github.IssueComment {
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	for _, c := range repo.issueComments {
		if c.GetID() == id {
			return c
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
	return nil
}

func (s *Server) getIssueComment(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.findIssueComment(w, r, repo); c != nil {
		writeJSON(w, http.StatusOK, c)
	}
}

func (s *Server) editIssueComment(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	in, ok := readCommentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.findIssueComment(w, r, repo)
	if c == nil {
		return
	}
	if c.GetUser().GetLogin() != who.login {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	c.Body = github.String(in.GetBody())
	c.UpdatedAt = &github.Timestamp{Time: time.Now().UTC().Truncate(time.Second)}
	writeJSON(w, http.StatusOK, c)
}

// deleteIssueComment answers as GitHub does: 204 and no body; 404 for a
// comment that is not (or no longer) there. An App may delete only its
// own comments here (the installation is not given moderation rights).
func (s *Server) deleteIssueComment(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.findIssueComment(w, r, repo)
	if c == nil {
		return
	}
	if c.GetUser().GetLogin() != who.login {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	for i, o := range repo.issueComments {
		if o == c {
			repo.issueComments = append(repo.issueComments[:i], repo.issueComments[i+1:]...)
			break
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	n, _ := strconv.Atoi(chi.URLParam(r, "number"))
	s.mu.Lock()
	var out []*github.PullRequestComment
	for _, rv := range repo.reviews {
		if rv.number == n && rv.GetState() != "PENDING" {
			out = append(out, rv.comments...)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, page(w, r, out))
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	pr, ok := s.pullFor(w, r, repo)
	if !ok {
		return
	}
	var in github.PullRequestReviewRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	commitID := in.GetCommitID()
	if commitID == "" {
		commitID = pr.HeadSHA
	}
	files, err := s.filesLocked(r.Context(), pr, commitID)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "commit_id is not part of the pull request")
		return
	}
	state := "COMMENTED"
	switch in.GetEvent() {
	case "":
		state = "PENDING"
		for _, rv := range repo.reviews {
			if rv.number == pr.Number && rv.GetState() == "PENDING" && rv.GetUser().GetLogin() == who.login {
				writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "User can only have one pending review per pull request")
				return
			}
		}
	case "COMMENT":
	case "APPROVE":
		state = "APPROVED"
	case "REQUEST_CHANGES":
		state = "CHANGES_REQUESTED"
	default:
		writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "event is not valid")
		return
	}
	if state == "COMMENTED" && in.GetBody() == "" && len(in.Comments) == 0 {
		writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "Review body is required for a comment review without comments")
		return
	}
	byPath := map[string]*prFile{}
	for _, f := range files {
		byPath[f.path] = f
	}
	for _, c := range in.Comments {
		if c.Position != nil {
			writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "the fake only accepts line/side comments")
			return
		}
		side := c.GetSide()
		if side == "" {
			side = "RIGHT"
		}
		f := byPath[c.GetPath()]
		if f == nil || !f.onDiff(side, c.GetStartLine(), c.GetLine()) || (c.StartSide != nil && c.GetStartSide() != side) {
			writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "Line could not be resolved")
			return
		}
		if len([]rune(c.GetBody())) > maxCommentChars {
			writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "body is too long (maximum is 65536 characters)")
			return
		}
		for _, reject := range s.rejectors {
			if reject(c.GetPath(), c.GetLine()) {
				writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity",
					"Pull request review thread line must be part of the diff and Pull request review thread start line must be part of the same hunk as the line.")
				return
			}
		}
	}
	now := github.Timestamp{Time: time.Now().UTC().Truncate(time.Second)}
	rv := &review{number: pr.Number, PullRequestReview: github.PullRequestReview{ID: github.Int64(s.newID()),
		User: user(who.login), Body: github.String(in.GetBody()), CommitID: github.String(commitID),
		State: github.String(state), SubmittedAt: &now,
		HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/pull/%d", repo.FullName(), pr.Number))}}
	for _, c := range in.Comments {
		id := s.newID()
		side := c.GetSide()
		if side == "" {
			side = "RIGHT"
		}
		pc := &github.PullRequestComment{ID: github.Int64(id), PullRequestReviewID: rv.ID, Path: github.String(c.GetPath()),
			Line: github.Int(c.GetLine()), Side: github.String(side), Body: github.String(c.GetBody()),
			CommitID: github.String(commitID), OriginalCommitID: github.String(commitID), User: user(who.login),
			CreatedAt: &now, UpdatedAt: &now,
			HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", repo.FullName(), pr.Number, id))}
		if c.StartLine != nil {
			pc.StartLine = github.Int(c.GetStartLine())
			pc.StartSide = github.String(side)
		}
		rv.comments = append(rv.comments, pc)
	}
	repo.reviews = append(repo.reviews, rv)
	writeJSON(w, http.StatusOK, &rv.PullRequestReview)
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	n, _ := strconv.Atoi(chi.URLParam(r, "number"))
	s.mu.Lock()
	var out []*github.PullRequestReview
	for _, rv := range repo.reviews {
		// Pending reviews are visible to their author only.
		if rv.number == n && (rv.GetState() != "PENDING" || rv.GetUser().GetLogin() == who.login) {
			out = append(out, &rv.PullRequestReview)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, page(w, r, out))
}

func (s *Server) deleteReview(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, rv := range repo.reviews {
		if rv.GetID() != id {
			continue
		}
		if rv.GetState() != "PENDING" {
			writeError(w, http.StatusUnprocessableEntity, "Unprocessable Entity", "Can not delete a non-pending pull request review")
			return
		}
		if rv.GetUser().GetLogin() != who.login {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		repo.reviews = append(repo.reviews[:i], repo.reviews[i+1:]...)
		writeJSON(w, http.StatusOK, &rv.PullRequestReview)
		return
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	var in github.RepoStatus
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	switch in.GetState() {
	case "error", "failure", "pending", "success":
	default:
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "state is not included in the list")
		return
	}
	if len([]rune(in.GetDescription())) > 140 {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "description is too long (maximum is 140 characters)")
		return
	}
	sha := chi.URLParam(r, "sha")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.findCommitLocked(sha) == nil {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "No commit found for SHA: "+sha)
		return
	}
	ctxName := in.GetContext()
	if ctxName == "" {
		ctxName = "default"
	}
	now := github.Timestamp{Time: time.Now().UTC().Truncate(time.Second)}
	st := &github.RepoStatus{ID: github.Int64(s.newID()), State: github.String(in.GetState()),
		Description: github.String(in.GetDescription()), Context: github.String(ctxName),
		TargetURL: in.TargetURL, Creator: user(who.login), CreatedAt: &now, UpdatedAt: &now}
	repo.statuses[sha] = append(repo.statuses[sha], st)
	writeJSON(w, http.StatusCreated, st)
}

func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	list := repo.statuses[chi.URLParam(r, "ref")]
	out := make([]*github.RepoStatus, len(list))
	for i := range list {
		out[i] = list[len(list)-1-i] // newest first, as GitHub lists them
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, page(w, r, out))
}

func (s *Server) createReaction(w http.ResponseWriter, r *http.Request) {
	who, repo, ok := s.authorize(w, r, true)
	if !ok {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	switch in.Content {
	case "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes":
	default:
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", "content is not included in the list")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.findIssueComment(w, r, repo)
	if c == nil {
		return
	}
	for _, re := range repo.reactions[c.GetID()] {
		if re.GetContent() == in.Content && re.GetUser().GetLogin() == who.login {
			writeJSON(w, http.StatusOK, re) // GitHub answers 200 with the existing reaction
			return
		}
	}
	re := &github.Reaction{ID: github.Int64(s.newID()), Content: github.String(in.Content), User: user(who.login)}
	repo.reactions[c.GetID()] = append(repo.reactions[c.GetID()], re)
	writeJSON(w, http.StatusCreated, re)
}
