package fakegithub

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"
)

// Check runs, workflow runs and artifacts, as the Checks and Actions APIs
// list them, for the sign-off checks and the reuse commands. Tests add them
// with AddCheckRuns, AddWorkflowRun and AddArtifact.

// Routes of this file.
const (
	RouteCheckRuns       = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
	RouteWorkflow        = "GET /repos/{owner}/{repo}/actions/workflows/{workflow}"
	RouteWorkflowRuns    = "GET /repos/{owner}/{repo}/actions/workflows/{workflow}/runs"
	RouteWorkflowRun     = "GET /repos/{owner}/{repo}/actions/runs/{id}"
	RouteRunArtifacts    = "GET /repos/{owner}/{repo}/actions/runs/{id}/artifacts"
	RouteRunJobs         = "GET /repos/{owner}/{repo}/actions/runs/{id}/jobs"
	RouteArtifactArchive = "GET /repos/{owner}/{repo}/actions/artifacts/{id}/{format}"
	// RouteArtifactStorage is where an archive download redirects: a
	// signed URL on another "host" that takes no GitHub credentials.
	RouteArtifactStorage = "GET /_fake/artifact-storage/{id}"
)

type workflowRun struct {
	github.WorkflowRun
	workflowFile string
}

type artifact struct {
	github.Artifact
	repo  *Repo
	data  []byte
	runID int64
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) registerActionsRoutes() {
	handle := func(route string, h http.HandlerFunc) {
		method, pattern, _ := strings.Cut(route, " ")
		s.Handle(method, pattern, h)
	}
	handle(RouteCheckRuns, s.listCheckRuns)
	handle(RouteWorkflow, s.getWorkflow)
	handle(RouteWorkflowRuns, s.listWorkflowRuns)
	handle(RouteWorkflowRun, s.getWorkflowRun)
	handle(RouteRunArtifacts, s.listRunArtifacts)
	handle(RouteRunJobs, s.listRunJobs)
	handle(RouteArtifactArchive, s.downloadArtifact)
	handle(RouteArtifactStorage, s.serveArtifactStorage)
}

// CheckRunSpec is one check run of a commit.
type CheckRunSpec struct {
	Name string
	// Status defaults to completed.
	Status     string
	Conclusion string
	// RunID is the workflow run whose job the check run is; it appears in
	// the details URL, as for GitHub Actions jobs.
	RunID int64
}

// AddCheckRuns adds check runs to commit sha of repo, in order (a later
// run of the same name is a re-run: the latest filter lists only it).
func (s *Server) AddCheckRuns(repo *Repo, sha string, runs ...CheckRunSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range runs {
		id := s.newID()
		status := r.Status
		if status == "" {
			status = "completed"
		}
		cr := &github.CheckRun{ID: github.Int64(id), HeadSHA: github.String(sha), Name: github.String(r.Name),
			Status: github.String(status), ExternalID: github.String(strconv.FormatInt(id, 10)),
			App:     &github.App{ID: github.Int64(15368), Slug: github.String("github-actions"), Name: github.String("GitHub Actions")},
			HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/runs/%d", repo.FullName(), id)),
			URL:     github.String(fmt.Sprintf("%s/repos/%s/check-runs/%d", s.URL, repo.FullName(), id))}
		if status == "completed" {
			cr.Conclusion = github.String(r.Conclusion)
		}
		if r.RunID != 0 {
			cr.DetailsURL = github.String(fmt.Sprintf("https://github.com/%s/actions/runs/%d/job/%d", repo.FullName(), r.RunID, id))
		}
		repo.checkRuns[sha] = append(repo.checkRuns[sha], cr)
	}
}

func (s *Server) listCheckRuns(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	ref := chi.URLParam(r, "ref")
	if sha, ok := repo.branches[ref]; ok {
		ref = sha
	}
	if s.findCommitLocked(ref) == nil {
		s.mu.Unlock()
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return
	}
	all := repo.checkRuns[ref]
	var out []*github.CheckRun
	if q.Get("filter") == "all" {
		out = append(out, all...)
	} else {
		// latest: the newest run of each name, in the order names appeared.
		last := map[string]int{}
		for i, cr := range all {
			last[cr.GetName()] = i
		}
		for i, cr := range all {
			if last[cr.GetName()] == i {
				out = append(out, cr)
			}
		}
	}
	s.mu.Unlock()
	var kept []*github.CheckRun
	for _, cr := range out {
		if n := q.Get("check_name"); n != "" && cr.GetName() != n {
			continue
		}
		if st := q.Get("status"); st != "" && cr.GetStatus() != st {
			continue
		}
		kept = append(kept, cr)
	}
	writeJSON(w, http.StatusOK, &github.ListCheckRunsResults{Total: github.Int(len(kept)), CheckRuns: page(w, r, kept)})
}

// WorkflowRunSpec is one workflow run.
type WorkflowRunSpec struct {
	// ID names the run (0: a fresh id).
	ID int64
	// Workflow is the workflow's file name (default run-sweep.yml).
	Workflow string
	// Event defaults to pull_request, Status to completed.
	Event, Status, Conclusion string
	HeadSHA, HeadBranch       string
	// Created orders the runs (newest first in lists); default now.
	Created time.Time
}

// AddWorkflowRun adds a run of a workflow (created on first use) and
// returns its id.
func (s *Server) AddWorkflowRun(repo *Repo, spec WorkflowRunSpec) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spec.Workflow == "" {
		spec.Workflow = "run-sweep.yml"
	}
	if spec.Event == "" {
		spec.Event = "pull_request"
	}
	if spec.Status == "" {
		spec.Status = "completed"
	}
	if spec.ID == 0 {
		spec.ID = s.newID()
	}
	if spec.Created.IsZero() {
		spec.Created = s.now()
	}
	wf := s.workflowLocked(repo, spec.Workflow)
	at := github.Timestamp{Time: spec.Created.UTC().Truncate(time.Second)}
	run := &workflowRun{workflowFile: spec.Workflow, WorkflowRun: github.WorkflowRun{
		ID: github.Int64(spec.ID), Name: wf.Name, HeadBranch: github.String(spec.HeadBranch), HeadSHA: github.String(spec.HeadSHA),
		Event: github.String(spec.Event), Status: github.String(spec.Status), WorkflowID: wf.ID,
		RunNumber: github.Int(len(repo.runs) + 1), RunAttempt: github.Int(1),
		DisplayTitle: github.String(wf.GetName()), CreatedAt: &at, UpdatedAt: &at, RunStartedAt: &at,
		HTMLURL:      github.String(fmt.Sprintf("https://github.com/%s/actions/runs/%d", repo.FullName(), spec.ID)),
		URL:          github.String(fmt.Sprintf("%s/repos/%s/actions/runs/%d", s.URL, repo.FullName(), spec.ID)),
		ArtifactsURL: github.String(fmt.Sprintf("%s/repos/%s/actions/runs/%d/artifacts", s.URL, repo.FullName(), spec.ID)),
		WorkflowURL:  github.String(fmt.Sprintf("%s/repos/%s/actions/workflows/%d", s.URL, repo.FullName(), wf.GetID())),
		Repository:   s.repoJSON(repo), HeadRepository: s.repoJSON(repo),
	}}
	if spec.Status == "completed" {
		run.Conclusion = github.String(spec.Conclusion)
	}
	repo.runs[spec.ID] = run
	return spec.ID
}

func (s *Server) workflowLocked(repo *Repo, file string) *github.Workflow {
	if wf := repo.workflows[file]; wf != nil {
		return wf
	}
	id := s.newID()
	name := strings.TrimSuffix(strings.TrimSuffix(file, ".yml"), ".yaml")
	wf := &github.Workflow{ID: github.Int64(id), Name: github.String(name), Path: github.String(".github/workflows/" + file),
		State:   github.String("active"),
		HTMLURL: github.String(fmt.Sprintf("https://github.com/%s/blob/main/.github/workflows/%s", repo.FullName(), file)),
		URL:     github.String(fmt.Sprintf("%s/repos/%s/actions/workflows/%d", s.URL, repo.FullName(), id))}
	repo.workflows[file] = wf
	return wf
}

// workflowFor resolves the {workflow} of a route: a file name or an id.
func (s *Server) workflowFor(repo *Repo, ref string) (*github.Workflow, string) {
	if wf := repo.workflows[ref]; wf != nil {
		return wf, ref
	}
	for file, wf := range repo.workflows {
		if strconv.FormatInt(wf.GetID(), 10) == ref {
			return wf, file
		}
	}
	return nil, ""
}

func (s *Server) getWorkflow(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	wf, _ := s.workflowFor(repo, chi.URLParam(r, "workflow"))
	s.mu.Unlock()
	if wf == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, wf)
}

func (s *Server) listWorkflowRuns(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	wf, file := s.workflowFor(repo, chi.URLParam(r, "workflow"))
	var out []*github.WorkflowRun
	for _, run := range repo.runs {
		if wf == nil || run.workflowFile != file {
			continue
		}
		if v := q.Get("event"); v != "" && run.GetEvent() != v {
			continue
		}
		if v := q.Get("branch"); v != "" && run.GetHeadBranch() != v {
			continue
		}
		if v := q.Get("head_sha"); v != "" && run.GetHeadSHA() != v {
			continue
		}
		// GitHub's status filter takes a status or a conclusion.
		if v := q.Get("status"); v != "" && run.GetStatus() != v && run.GetConclusion() != v {
			continue
		}
		out = append(out, &run.WorkflowRun)
	}
	s.mu.Unlock()
	if wf == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := out[i].GetCreatedAt().Time, out[j].GetCreatedAt().Time
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return out[i].GetID() > out[j].GetID()
	})
	writeJSON(w, http.StatusOK, &github.WorkflowRuns{TotalCount: github.Int(len(out)), WorkflowRuns: page(w, r, out)})
}

func (s *Server) runFor(w http.ResponseWriter, r *http.Request, repo *Repo) *workflowRun {
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	run := repo.runs[id]
	s.mu.Unlock()
	if run == nil {
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return run
}

func (s *Server) getWorkflowRun(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	if run := s.runFor(w, r, repo); run != nil {
		writeJSON(w, http.StatusOK, &run.WorkflowRun)
	}
}

// listRunJobs lists a run's jobs. An Actions job is a check run: the
// check runs added with the run's id are its jobs, in order (filter=latest,
// the default, keeps the newest attempt of each name).
func (s *Server) listRunJobs(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	run := s.runFor(w, r, repo)
	if run == nil {
		return
	}
	all := r.URL.Query().Get("filter") == "all"
	s.mu.Lock()
	var crs []*github.CheckRun
	for _, list := range repo.checkRuns {
		for _, cr := range list {
			if strings.Contains(cr.GetDetailsURL(), fmt.Sprintf("/actions/runs/%d/job/", run.GetID())) {
				crs = append(crs, cr)
			}
		}
	}
	s.mu.Unlock()
	sort.Slice(crs, func(i, j int) bool { return crs[i].GetID() < crs[j].GetID() })
	if !all {
		last := map[string]int{}
		for i, cr := range crs {
			last[cr.GetName()] = i
		}
		var kept []*github.CheckRun
		for i, cr := range crs {
			if last[cr.GetName()] == i {
				kept = append(kept, cr)
			}
		}
		crs = kept
	}
	jobs := make([]*github.WorkflowJob, 0, len(crs))
	for _, cr := range crs {
		jobs = append(jobs, &github.WorkflowJob{ID: cr.ID, RunID: run.ID, HeadSHA: cr.HeadSHA, Name: cr.Name,
			Status: cr.Status, Conclusion: cr.Conclusion, WorkflowName: run.Name, HeadBranch: run.HeadBranch,
			HTMLURL: cr.DetailsURL, RunURL: run.URL, CheckRunURL: cr.URL})
	}
	writeJSON(w, http.StatusOK, &github.Jobs{TotalCount: github.Int(len(jobs)), Jobs: page(w, r, jobs)})
}

// ArtifactSpec is one artifact of a workflow run.
type ArtifactSpec struct {
	Name string
	// Data is the archive (a zip) the download serves.
	Data    []byte
	Expired bool
	// Size is the size the API reports (default len(Data)).
	Size int64
}

// AddArtifact adds an artifact to workflow run runID and returns its id.
func (s *Server) AddArtifact(repo *Repo, runID int64, spec ArtifactSpec) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.newID()
	size := spec.Size
	if size == 0 {
		size = int64(len(spec.Data))
	}
	created := github.Timestamp{Time: s.now().UTC().Truncate(time.Second)}
	expires := github.Timestamp{Time: created.Add(90 * 24 * time.Hour)}
	if spec.Expired {
		expires = github.Timestamp{Time: created.Add(-time.Hour)}
	}
	a := &artifact{repo: repo, data: spec.Data, runID: runID, Artifact: github.Artifact{
		ID: github.Int64(id), Name: github.String(spec.Name), SizeInBytes: github.Int64(size),
		Expired: github.Bool(spec.Expired), CreatedAt: &created, UpdatedAt: &created, ExpiresAt: &expires,
		URL:                github.String(fmt.Sprintf("%s/repos/%s/actions/artifacts/%d", s.URL, repo.FullName(), id)),
		ArchiveDownloadURL: github.String(fmt.Sprintf("%s/repos/%s/actions/artifacts/%d/zip", s.URL, repo.FullName(), id)),
	}}
	if run := repo.runs[runID]; run != nil {
		a.WorkflowRun = &github.ArtifactWorkflowRun{ID: run.ID, RepositoryID: github.Int64(repo.ID),
			HeadRepositoryID: github.Int64(repo.ID), HeadBranch: run.HeadBranch, HeadSHA: run.HeadSHA}
	}
	repo.artifacts[id] = a
	return id
}

func (s *Server) listRunArtifacts(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	run := s.runFor(w, r, repo)
	if run == nil {
		return
	}
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	var out []*github.Artifact
	for _, a := range repo.artifacts {
		if a.runID == run.GetID() && (name == "" || a.GetName() == name) {
			out = append(out, &a.Artifact)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].GetID() < out[j].GetID() })
	writeJSON(w, http.StatusOK, &github.ArtifactList{TotalCount: github.Int64(int64(len(out))), Artifacts: page(w, r, out)})
}

// downloadArtifact answers as GitHub does: a 302 to a short-lived signed
// URL on blob storage, or 410 for an expired artifact.
func (s *Server) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	a := repo.artifacts[id]
	sig := s.storageSig
	s.mu.Unlock()
	switch {
	case a == nil:
		writeError(w, http.StatusNotFound, "Not Found")
		return
	case chi.URLParam(r, "format") != "zip":
		writeError(w, http.StatusNotFound, "Not Found")
		return
	case a.GetExpired():
		writeError(w, http.StatusGone, "Artifact has expired")
		return
	}
	w.Header().Set("Location", fmt.Sprintf("%s/_fake/artifact-storage/%d?sig=%s", s.URL, id, sig))
	w.WriteHeader(http.StatusFound)
}

func (s *Server) serveArtifactStorage(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	var a *artifact
	for _, repo := range s.repos {
		if x := repo.artifacts[id]; x != nil {
			a = x
		}
	}
	sig := s.storageSig
	s.mu.Unlock()
	// The signed URL is the credential; a client that sends its GitHub
	// token along leaks it to the storage host.
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "the signed URL takes no Authorization header", http.StatusBadRequest)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("sig")), []byte(sig)) != 1 || a == nil {
		http.Error(w, "AuthenticationFailed", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(a.data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.data)
}
