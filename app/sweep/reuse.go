package sweep

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// What a reuse command needs of a run, as the repository's merge tooling
// checks it (docs/app.md: "Reuse commands").
var (
	// reuseArtifacts are the aggregate result artifacts a merge can ingest
	// instead of running the sweep again; agentic runs leave
	// bmk_agentic_* artifacts instead.
	reuseArtifacts      = []string{"results_bmk", "eval_results_all"}
	reuseArtifactPrefix = "bmk_agentic_"
	// reuseBlockingLabels make a PR's sweep artifacts unfit for reuse
	// while they are applied.
	reuseBlockingLabels = []string{"evals-only", "agentx-fast"}
	// pinnedConclusions are what a pinned run may have concluded: a
	// maintainer's explicit choice may be an incomplete sweep (a fail-fast
	// sweep cancels its remaining jobs).
	pinnedConclusions = []string{"success", "failure", "cancelled"}
)

// Bounds on what one resolution reads.
const (
	maxRunPages        = 10 // 1,000 runs of the sweep workflow on the branch
	maxRunCandidates   = 20 // successful runs whose artifacts are listed
	maxArtifactPages   = 10
	maxPRCommitsListed = 250 // GitHub lists no more of a PR's commits
)

// Run is a workflow run that can be reused.
type Run struct {
	ID         int64
	URL        string
	HeadSHA    string
	Conclusion string
	// Artifacts are its unexpired reusable result artifacts.
	Artifacts []string
}

// Resolution is what a reuse command resolves to: a run, or why none can
// be used (Reason, and what to do about it in Todo), or the API error that
// kept the App from telling.
type Resolution struct {
	Run    *Run
	Reason string
	Todo   string
	Err    error
}

// Resolver resolves the reuse commands of one PR through the API.
// It reads each thing once per job: the PR's commits, the workflow, each
// run.
type Resolver struct {
	rc       *ghapi.Repo
	workflow string // the sweep workflow's file name
	pr       *github.PullRequest

	commits    []*github.RepositoryCommit
	commitsErr error
	commitSet  map[string]bool
	loaded     bool

	workflowID  int64
	workflowErr error
	wfLoaded    bool

	cache map[int64]Resolution // by run id; 0 is the bare command
	// arts are the runs' artifact listings (check 2 reads the same run's).
	arts map[int64][]*github.Artifact
}

func NewResolver(rc *ghapi.Repo, workflow string, pr *github.PullRequest) *Resolver {
	return &Resolver{rc: rc, workflow: workflow, pr: pr, cache: map[int64]Resolution{}, arts: map[int64][]*github.Artifact{}}
}

// PRCommits lists the PR's commits, oldest first (GitHub lists at most
// 250).
func (r *Resolver) PRCommits(ctx context.Context) ([]*github.RepositoryCommit, error) {
	if r.loaded {
		return r.commits, r.commitsErr
	}
	r.loaded = true
	commits, err := ghapi.ListUpTo(ctx, maxPRCommitsListed, func(opts *github.ListOptions) ([]*github.RepositoryCommit, *github.Response, error) {
		return r.rc.Client.PullRequests.ListCommits(ctx, r.rc.Owner, r.rc.Name, r.pr.GetNumber(), opts)
	})
	if err != nil {
		r.commitsErr = fmt.Errorf("list the commits of %s#%d: %w", r.rc.Slug(), r.pr.GetNumber(), err)
		return nil, r.commitsErr
	}
	r.commits = commits
	r.commitSet = map[string]bool{}
	for _, c := range r.commits {
		r.commitSet[c.GetSHA()] = true
	}
	return r.commits, nil
}

func (r *Resolver) inPR(ctx context.Context, sha string) (bool, error) {
	if _, err := r.PRCommits(ctx); err != nil {
		return false, err
	}
	return r.commitSet[sha], nil
}

// sweepWorkflowID is the id of the sweep workflow; 0 with no error when
// the repository has no such workflow.
func (r *Resolver) sweepWorkflowID(ctx context.Context) (int64, error) {
	if !r.wfLoaded {
		r.wfLoaded = true
		wf, _, err := r.rc.Client.Actions.GetWorkflowByFileName(ctx, r.rc.Owner, r.rc.Name, r.workflow)
		switch {
		case ghapi.IsNotFound(err):
		case err != nil:
			r.workflowErr = fmt.Errorf("get the workflow %s of %s: %w", r.workflow, r.rc.Slug(), err)
		default:
			r.workflowID = wf.GetID()
		}
	}
	return r.workflowID, r.workflowErr
}

func (r *Resolver) runURL(id int64) string {
	return fmt.Sprintf("https://github.com/%s/actions/runs/%d", r.rc.Slug(), id)
}

// Resolve validates a command's run (pinned), or finds the run a bare
// command means.
func (r *Resolver) Resolve(ctx context.Context, c comment.Reuse) Resolution {
	if c.Invalid != "" {
		return Resolution{Reason: c.Invalid, Todo: "Pin a run with `/use <run_id>` (the number at the end of the run's URL, `…/actions/runs/<run_id>`)."}
	}
	if res, ok := r.cache[c.RunID]; ok {
		return res
	}
	var res Resolution
	if c.Pinned() {
		res = r.resolvePinned(ctx, c.RunID)
	} else {
		res = r.resolveLatest(ctx)
	}
	r.cache[c.RunID] = res
	return res
}

func (r *Resolver) resolvePinned(ctx context.Context, id int64) Resolution {
	run, _, err := r.rc.Client.Actions.GetWorkflowRunByID(ctx, r.rc.Owner, r.rc.Name, id)
	if ghapi.IsNotFound(err) {
		return Resolution{Reason: fmt.Sprintf("run %d does not exist in %s", id, r.rc.Slug()),
			Todo: "Copy the id from the run's URL (`…/actions/runs/<run_id>`) and edit this comment."}
	}
	if err != nil {
		return Resolution{Err: fmt.Errorf("get run %d: %w", id, err)}
	}
	wfID, err := r.sweepWorkflowID(ctx)
	if err != nil {
		return Resolution{Err: err}
	}
	switch {
	case wfID == 0:
		return Resolution{Reason: fmt.Sprintf("%s has no workflow `%s`, so no run can be checked against it", r.rc.Slug(), r.workflow),
			Todo: "Ask the App's operator to set the sweep workflow's file name (REVIEWBOT_SWEEP_WORKFLOW)."}
	case run.GetWorkflowID() != wfID:
		return Resolution{Reason: fmt.Sprintf("run %d is a run of the workflow %s, not of the sweep workflow `%s`", id, prose.Code(run.GetName()), r.workflow),
			Todo: "Pin a run of `" + r.workflow + "`."}
	case run.GetEvent() != "pull_request":
		return Resolution{Reason: fmt.Sprintf("run %d was started by a `%s` event, not by this PR (`pull_request`)", id, run.GetEvent()),
			Todo: "Pin a sweep run this PR started."}
	case run.GetStatus() != "completed":
		return Resolution{Reason: fmt.Sprintf("run %d is `%s`, not completed", id, run.GetStatus()),
			Todo: "Wait until it completes, then edit this comment: the App checks an edited command again."}
	case !slices.Contains(pinnedConclusions, run.GetConclusion()):
		return Resolution{Reason: fmt.Sprintf("run %d concluded `%s`; a pinned run must have concluded success, failure or cancelled", id, run.GetConclusion()),
			Todo: "Pin a run that ran its jobs, or run the sweep again."}
	}
	in, err := r.inPR(ctx, run.GetHeadSHA())
	if err != nil {
		return Resolution{Err: err}
	}
	if !in {
		return Resolution{Reason: fmt.Sprintf("run %d ran on commit %s, which is no longer one of this PR's commits (a force push removes them)", id, prose.ShortSHA(run.GetHeadSHA())),
			Todo: "Pin a run of a commit the PR still has, or run the sweep again on its head."}
	}
	arts, other, err := r.reusableArtifacts(ctx, id)
	if err != nil {
		return Resolution{Err: err}
	}
	if len(arts) == 0 {
		reason := fmt.Sprintf("run %d has no unexpired result artifact (`results_bmk`, `eval_results_all` or `bmk_agentic_*`)", id)
		if len(other) > 0 {
			reason += "; it has " + strings.Join(other, ", ")
		}
		return Resolution{Reason: reason, Todo: "Pin a run that produced benchmark or eval results (artifacts expire after the repository's retention period)."}
	}
	return Resolution{Run: &Run{ID: id, URL: r.runURL(id), HeadSHA: run.GetHeadSHA(), Conclusion: run.GetConclusion(), Artifacts: arts}}
}

// resolveLatest finds what a bare command means: the newest successful
// pull_request run of the sweep workflow on the PR's branch whose head is
// one of the PR's commits and which left result artifacts (a gated no-op
// run succeeds without any).
func (r *Resolver) resolveLatest(ctx context.Context) Resolution {
	branch := r.pr.GetHead().GetRef()
	opts := &github.ListWorkflowRunsOptions{Event: "pull_request", Branch: branch, Status: "completed"}
	checked, candidates := 0, 0
	var found *Resolution
	_, err := ghapi.Pages(maxRunPages, func(lo *github.ListOptions) ([]*github.WorkflowRun, *github.Response, error) {
		opts.ListOptions = *lo
		runs, resp, err := r.rc.Client.Actions.ListWorkflowRunsByFileName(ctx, r.rc.Owner, r.rc.Name, r.workflow, opts)
		if err != nil {
			return nil, resp, err
		}
		return runs.WorkflowRuns, resp, nil
	}, func(runs []*github.WorkflowRun) bool {
		found = r.firstReusable(ctx, runs, &checked, &candidates)
		return found == nil
	})
	if ghapi.IsNotFound(err) {
		return Resolution{Reason: fmt.Sprintf("%s has no workflow `%s`", r.rc.Slug(), r.workflow),
			Todo: "Ask the App's operator to set the sweep workflow's file name (REVIEWBOT_SWEEP_WORKFLOW)."}
	}
	if err != nil {
		return Resolution{Err: fmt.Errorf("list the runs of %s on %s: %w", r.workflow, branch, err)}
	}
	if found != nil {
		return *found
	}
	return Resolution{
		Reason: fmt.Sprintf("no successful `pull_request` run of `%s` on branch %s ran on one of this PR's commits and left result artifacts (%d completed runs checked)", r.workflow, prose.Code(branch), checked),
		Todo:   "Run the sweep (a full-sweep label) and comment again when it is green, or pin a run: `/use <run_id>`."}
}

// firstReusable decides a page of runs, newest first: the resolution of
// the first that settles the command, or nil to read on. checked and
// candidates count across pages.
func (r *Resolver) firstReusable(ctx context.Context, runs []*github.WorkflowRun, checked, candidates *int) *Resolution {
	for _, run := range runs {
		*checked++
		if run.GetConclusion() != "success" || run.GetEvent() != "pull_request" {
			continue
		}
		in, err := r.inPR(ctx, run.GetHeadSHA())
		if err != nil {
			return &Resolution{Err: err}
		}
		if !in {
			continue
		}
		if *candidates++; *candidates > maxRunCandidates {
			return &Resolution{Reason: fmt.Sprintf("none of the %d newest successful runs of `%s` on this PR's commits left result artifacts", maxRunCandidates, r.workflow),
				Todo: "Pin the run to reuse: `/use <run_id>`."}
		}
		arts, _, err := r.reusableArtifacts(ctx, run.GetID())
		if err != nil {
			return &Resolution{Err: err}
		}
		if len(arts) > 0 {
			return &Resolution{Run: &Run{ID: run.GetID(), URL: r.runURL(run.GetID()), HeadSHA: run.GetHeadSHA(),
				Conclusion: run.GetConclusion(), Artifacts: arts}}
		}
	}
	return nil
}

// reusableArtifacts lists a run's unexpired reusable result artifacts, and
// (for the explanation) its other artifacts.
func (r *Resolver) reusableArtifacts(ctx context.Context, runID int64) (reusable, other []string, err error) {
	arts, err := r.artifacts(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range arts {
		name := a.GetName()
		switch {
		case a.GetExpired():
			other = append(other, prose.Code(name)+" (expired)")
		case slices.Contains(reuseArtifacts, name) || strings.HasPrefix(name, reuseArtifactPrefix):
			reusable = append(reusable, name)
		default:
			other = append(other, prose.Code(name))
		}
	}
	sort.Strings(reusable)
	return reusable, other, nil
}

// artifacts lists a run's artifacts, once per job.
func (r *Resolver) artifacts(ctx context.Context, runID int64) ([]*github.Artifact, error) {
	if a, ok := r.arts[runID]; ok {
		return a, nil
	}
	a, err := listArtifacts(ctx, r.rc, runID)
	if err == nil {
		r.arts[runID] = a
	}
	return a, err
}

func listArtifacts(ctx context.Context, rc *ghapi.Repo, runID int64) ([]*github.Artifact, error) {
	// A run with more than maxArtifactPages pages is read as far as that.
	var all []*github.Artifact
	if _, err := ghapi.Pages(maxArtifactPages, func(opts *github.ListOptions) ([]*github.Artifact, *github.Response, error) {
		list, resp, err := rc.Client.Actions.ListWorkflowRunArtifacts(ctx, rc.Owner, rc.Name, runID, opts)
		if err != nil {
			return nil, resp, err
		}
		return list.Artifacts, resp, nil
	}, func(page []*github.Artifact) bool {
		all = append(all, page...)
		return true
	}); err != nil {
		return nil, fmt.Errorf("list the artifacts of run %d: %w", runID, err)
	}
	return all, nil
}

// LabelState is what a PR's labels mean for reuse at merge.
type LabelState struct {
	// blocking are reuse-blocking labels the PR carries.
	blocking []string
	// noFullSweep: the PR carries none of the full-sweep labels, which
	// reuse at merge requires.
	noFullSweep bool
}

func AnalyzeLabels(labels []string) LabelState {
	var st LabelState
	primary := false
	for _, l := range labels {
		if slices.Contains(reuseBlockingLabels, l) {
			st.blocking = append(st.blocking, l)
		}
		primary = primary || slices.Contains(reviewer.PrimarySweepLabels, l)
	}
	st.noFullSweep = !primary
	return st
}

// BlockingReason says why the labels make the merge refuse reuse, or "".
func (st LabelState) BlockingReason() string {
	switch {
	case len(st.blocking) > 0:
		return fmt.Sprintf("the PR carries %s, which blocks reuse at merge while applied", prose.Code(st.blocking[0]))
	case st.noFullSweep:
		return "the PR carries none of the full-sweep labels, which reuse at merge requires"
	}
	return ""
}

// Warnings are the reply's warnings about the labels.
func (st LabelState) Warnings() []string {
	var out []string
	if len(st.blocking) > 0 {
		out = append(out, fmt.Sprintf("The PR carries %s, which blocks reuse while applied: remove it before merging, or the merge runs no reuse.",
			strings.Join(text.CodeQuote(st.blocking), " and ")))
	}
	if st.noFullSweep {
		out = append(out, "The PR carries none of the full-sweep labels ("+strings.Join(text.CodeQuote(reviewer.PrimarySweepLabels), ", ")+"); reuse at merge requires one.")
	}
	return out
}

func LabelNames(pr *github.PullRequest) []string {
	out := make([]string, 0, len(pr.Labels))
	for _, l := range pr.Labels {
		out = append(out, l.GetName())
	}
	return out
}
