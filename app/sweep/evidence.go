package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
)

// The evidence of checks 1-4 lives on GitHub; this file reads it through
// the API and hands it to the signoff package's evaluators, which decide.

// Bounds on what one verification reads.
const (
	maxSweepCommits    = 30 // newest PR commits whose sweep runs are read
	maxCheckRunPages   = 20 // 2,000 check runs per commit
	maxUpstreamLinks   = 5
	maxUpstreamPages   = 3
	maxUpstreamDiff    = 1 << 20
	maxTeamMemberPages = 10
)

// Evidence reads, for one sign-off, the evidence of checks 1-4 through
// the API and hands it to the signoff package to decide.
type Evidence struct {
	rc       *ghapi.Repo
	ch       *checks.Change
	resolver *Resolver // shares what it read (commits, artifacts)
	login    string    // the bot's, whose comments are never commands
	// maxArtifactBytes bounds an artifact download; archives fetches it
	// (no GitHub credentials: the archive URL is signed).
	maxArtifactBytes int64
	archives         *http.Client
	// mayCommand is the one authorization rule of comment commands.
	mayCommand func(association string) bool
	// authors says why a comment's text is not its author's ("" when it
	// is): an edit by someone else carries no command.
	authors func(ctx context.Context, c *github.IssueComment) (string, error)
}

// Reader is what NewEvidence needs of the App besides the PR.
type Reader struct {
	MaxArtifactBytes int64
	Download         *http.Client
	MayCommand       func(association string) bool
	// Authors says why a comment's current text is not its author's, ""
	// when it is (nil: every comment is).
	Authors func(ctx context.Context, c *github.IssueComment) (string, error)
}

// NewEvidence reads the evidence of change ch of the PR resolver reads,
// login being the bot's.
func NewEvidence(rc *ghapi.Repo, ch *checks.Change, resolver *Resolver, login string, r Reader) *Evidence {
	return &Evidence{rc: rc, ch: ch, resolver: resolver, login: login,
		maxArtifactBytes: r.MaxArtifactBytes, archives: r.Download, mayCommand: r.MayCommand, authors: r.Authors}
}

// workflowDirs hold what defines a workflow run: a PR that changes them
// changes what its own runs report (a pull_request run executes the PR's
// version of the workflow), so those runs cannot vouch for it.
var workflowDirs = []string{".github/workflows/", ".github/actions/"}

// Sweep is check 1. Its evidence comes only from runs of the repository's
// sweep workflow (the configured file, in this repository, started by a
// pull_request event) on commits of the PR up to the signed one: a check
// run's name or a details URL proves nothing, since a workflow the PR adds
// can name its jobs anything. When a reuse command resolved to a run
// (check 4), that run is the one the merge reuses, so it is the only one
// that counts; otherwise the newest commit with a run whose sweep and
// eval jobs all succeeded. Check 2 reads the run this returns.
func (e *Evidence) Sweep(ctx context.Context, scope []*github.RepositoryCommit, total int, reused *Run) (signoff.Check, *signoff.SweepResult) {
	repo := e.rc.Slug()
	fail := func(format string, args ...any) (signoff.Check, *signoff.SweepResult) {
		return signoff.Check{N: signoff.CheckSweep, Status: signoff.Fail, Reason: fmt.Sprintf(format, args...)}, nil
	}
	var defining []string
	for _, f := range e.ch.Files {
		for _, p := range []string{f.Path, f.OldPath} {
			for _, d := range workflowDirs {
				if p != "" && strings.HasPrefix(p, d) && !slices.Contains(defining, p) {
					defining = append(defining, p)
				}
			}
		}
	}
	if len(defining) > 0 {
		return fail("the PR changes %s, which define%s the runs that would be the evidence: a pull_request run executes the PR's own version of the workflow, "+
			"so it cannot vouch for the PR; land the workflow change on its own first", text.CodeJoin(text.Limit(defining, 3)), text.Plural(len(defining), "s", ""))
	}
	wfID, err := e.resolver.sweepWorkflowID(ctx)
	switch {
	case err != nil:
		return signoff.VerifySweep(repo, nil, err)
	case wfID == 0:
		return fail("%s has no workflow `%s`, whose runs are the only evidence of a sweep", repo, e.resolver.workflow)
	}
	inScope := map[string]bool{}
	for _, c := range scope {
		inScope[c.GetSHA()] = true
	}
	if reused != nil {
		if !inScope[reused.HeadSHA] {
			return fail("the run the reuse command names, %s, ran on commit %s, which is not a commit of this PR up to the signed one", reused.URL, prose.ShortSHA(reused.HeadSHA))
		}
		jobs, err := e.jobs(ctx, reused.ID)
		if err != nil {
			return signoff.VerifySweep(repo, nil, err)
		}
		c, res := signoff.VerifySweep(repo, []signoff.CommitRuns{{SHA: reused.HeadSHA, Runs: jobs}}, nil)
		if res == nil {
			c.Reason = fmt.Sprintf("the run the reuse command names (%s) is the run the merge reuses, and it does not pass: %s", reused.URL, c.Reason)
		}
		return c, res
	}
	var read []signoff.CommitRuns // newest first, one per workflow run
	capped := false
	for i := len(scope) - 1; i >= 0; i-- {
		if len(scope)-i > maxSweepCommits {
			capped = true
			break
		}
		sha := scope[i].GetSHA()
		runs, err := e.sweepRuns(ctx, wfID, sha)
		if err != nil {
			return signoff.VerifySweep(repo, nil, err)
		}
		for _, run := range runs {
			jobs, err := e.jobs(ctx, run.GetID())
			if err != nil {
				return signoff.VerifySweep(repo, nil, err)
			}
			cr := signoff.CommitRuns{SHA: sha, Runs: jobs}
			read = append(read, cr)
			if c, res := signoff.VerifySweep(repo, []signoff.CommitRuns{cr}, nil); res != nil {
				return c, res
			}
		}
	}
	oldestFirst := make([]signoff.CommitRuns, len(read))
	for i, cr := range read {
		oldestFirst[len(read)-1-i] = cr
	}
	c, res := signoff.VerifySweep(repo, oldestFirst, nil)
	switch {
	case res == nil && capped:
		c.Reason += fmt.Sprintf(" (the sweep runs of the newest %d of the PR's %d commits were read)", maxSweepCommits, total)
	case res == nil && len(scope) < total:
		c.Reason += fmt.Sprintf(" (%d of the PR's %d commits are later than the signed one and were not considered)", total-len(scope), total)
	}
	return c, res
}

// sweepRuns lists the sweep workflow's pull_request runs of commit sha in
// this repository, newest first.
func (e *Evidence) sweepRuns(ctx context.Context, wfID int64, sha string) ([]*github.WorkflowRun, error) {
	opts := &github.ListWorkflowRunsOptions{HeadSHA: sha, Event: "pull_request", ListOptions: github.ListOptions{PerPage: 100}}
	list, _, err := e.rc.Client.Actions.ListWorkflowRunsByID(ctx, e.rc.Owner, e.rc.Name, wfID, opts)
	if err != nil {
		return nil, fmt.Errorf("list the runs of %s on %s: %w", e.resolver.workflow, prose.ShortSHA(sha), err)
	}
	var out []*github.WorkflowRun
	for _, r := range list.WorkflowRuns {
		// The API filters already; a run that answers otherwise is not
		// evidence.
		if r.GetWorkflowID() != wfID || r.GetHeadSHA() != sha || r.GetEvent() != "pull_request" ||
			(r.GetRepository() != nil && !strings.EqualFold(r.GetRepository().GetFullName(), e.rc.Slug())) {
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].GetCreatedAt().After(out[j].GetCreatedAt().Time) })
	return out, nil
}

// jobs lists the jobs of a run's latest attempt as the sweep check reads
// them.
func (e *Evidence) jobs(ctx context.Context, runID int64) ([]signoff.CheckRun, error) {
	var out []signoff.CheckRun
	opts := &github.ListWorkflowJobsOptions{Filter: "latest"}
	ended, err := ghapi.Pages(maxCheckRunPages, func(lo *github.ListOptions) ([]*github.WorkflowJob, *github.Response, error) {
		opts.ListOptions = *lo
		res, resp, err := e.rc.Client.Actions.ListWorkflowJobs(ctx, e.rc.Owner, e.rc.Name, runID, opts)
		if err != nil {
			return nil, resp, err
		}
		return res.Jobs, resp, nil
	}, func(jobs []*github.WorkflowJob) bool {
		for _, j := range jobs {
			if j.GetRunID() != runID {
				continue
			}
			out = append(out, signoff.CheckRun{Name: j.GetName(), Status: j.GetStatus(), Conclusion: j.GetConclusion(), RunID: runID})
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("list the jobs of run %d: %w", runID, err)
	}
	if !ended {
		return nil, fmt.Errorf("run %d has more than %d jobs", runID, maxCheckRunPages*100)
	}
	return out, nil
}

// Evals is check 2: the eval_results_all artifact of the run check 1
// picked, downloaded with a size bound and read with bounded
// decompression.
func (e *Evidence) Evals(ctx context.Context, sweep *signoff.SweepResult) signoff.Check {
	in := signoff.EvalInput{Repo: e.rc.Slug(), ThresholdsPath: e.ch.Config.Paths.EvalThresholds}
	keys, err := masterconfig.ChangedKeys(ctx, e.ch)
	if err != nil {
		return signoff.Check{N: signoff.CheckEvals, Status: signoff.Fail, Reason: "could not read the changed configs: " + text.FirstLine(err.Error())}
	}
	in.Keys = keys
	th, err := e.ch.Base.ReadFile(ctx, e.ch.Config.Paths.EvalThresholds)
	switch {
	case checks.IsNotExist(err):
	case err != nil:
		return signoff.Check{N: signoff.CheckEvals, Status: signoff.Fail,
			Reason: fmt.Sprintf("could not read %s at base: %s", e.ch.Config.Paths.EvalThresholds, text.FirstLine(err.Error()))}
	default:
		in.Thresholds = th
	}
	switch {
	case sweep == nil && ctx.Err() != nil:
		// Check 1 found no run because the time ran out, which is what
		// the author must hear (not that there is no run).
		in.Err = fmt.Errorf("check 1 could not finish: %w", ctx.Err())
	case sweep == nil:
		in.Err = signoff.ErrNoRun
	case sweep.RunID == 0:
		in.Err = errors.New("the sweep of commit " + prose.ShortSHA(sweep.Commit) + " names no workflow run")
	default:
		in.RunID = sweep.RunID
		in.Rows, in.Err = e.evalRows(ctx, sweep.RunID)
	}
	return signoff.VerifyEvals(in)
}

func (e *Evidence) evalRows(ctx context.Context, runID int64) ([]signoff.EvalRow, error) {
	arts, err := e.resolver.artifacts(ctx, runID)
	if err != nil {
		return nil, err
	}
	var art *github.Artifact
	for _, a := range arts {
		if a.GetName() == signoff.EvalArtifactName {
			art = a
		}
	}
	limit := e.maxArtifactBytes
	switch {
	case art == nil:
		return nil, fmt.Errorf("the run has no artifact %s", signoff.EvalArtifactName)
	case art.GetExpired():
		return nil, fmt.Errorf("the artifact expired on %s", art.GetExpiresAt().Format("2006-01-02"))
	case art.GetSizeInBytes() > limit:
		return nil, fmt.Errorf("the artifact is %d bytes, over the %d-byte download limit", art.GetSizeInBytes(), limit)
	}
	archive, err := e.download(ctx, art.GetID(), limit)
	if err != nil {
		return nil, err
	}
	return signoff.ReadEvalArtifact(archive)
}

// download fetches an artifact's archive: GitHub answers with a redirect
// to a short-lived signed URL, which is fetched without GitHub's
// credentials (they must not reach the storage host).
func (e *Evidence) download(ctx context.Context, id, limit int64) ([]byte, error) {
	u, _, err := e.rc.Client.Actions.DownloadArtifact(ctx, e.rc.Owner, e.rc.Name, id, 1)
	if err != nil {
		return nil, fmt.Errorf("download artifact %d: %w", id, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("download artifact %d: GitHub redirected to a %q URL", id, u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("download artifact %d: %w", id, err)
	}
	resp, err := e.archives.Do(req)
	if err != nil {
		// The URL carries its signature: keep it out of the verdict.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("download artifact %d from %s: %w", id, u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download artifact %d: the storage host answered %s", id, resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("download artifact %d: %d bytes, over the %d-byte limit", id, resp.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download artifact %d: %w", id, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("download artifact %d: more than the %d-byte limit", id, limit)
	}
	return b, nil
}

// Recipe is check 3. The upstream recipe PRs the sign-off links are read
// only when the check applies (a single-node vLLM/SGLang recipe changed).
func (e *Evidence) Recipe(ctx context.Context, so *signoff.SignOff) signoff.Check {
	c := signoff.VerifyRecipe(ctx, signoff.RecipeInput{Change: e.ch, SignOff: so, Upstream: map[string]signoff.UpstreamPR{}})
	links := signoff.UpstreamLinks(so)
	if c.Status == signoff.NA || len(links) == 0 {
		return c
	}
	up := map[string]signoff.UpstreamPR{}
	for i, l := range links {
		if i == maxUpstreamLinks {
			break
		}
		up[l.URL] = e.upstreamPR(ctx, l)
	}
	for _, l := range links[min(len(links), maxUpstreamLinks):] {
		up[l.URL] = signoff.UpstreamPR{Err: fmt.Errorf("the sign-off links more than %d upstream PRs; only the first %d are read", maxUpstreamLinks, maxUpstreamLinks)}
	}
	return signoff.VerifyRecipe(ctx, signoff.RecipeInput{Change: e.ch, SignOff: so, Upstream: up})
}

func (e *Evidence) upstreamPR(ctx context.Context, l signoff.Link) signoff.UpstreamPR {
	pr, err := (&ghapi.Repo{Client: e.rc.Client, Owner: l.Owner, Name: l.Repo}).PR(ctx, int(l.Number))
	if err != nil {
		return signoff.UpstreamPR{Err: fmt.Errorf("the GitHub API could not read it: %w", err)}
	}
	out := signoff.UpstreamPR{State: "CLOSED", Draft: pr.GetDraft()}
	switch {
	case pr.GetMerged() || pr.MergedAt != nil:
		out.State = "MERGED"
	case pr.GetState() == "open":
		out.State = "OPEN"
	}
	var diff strings.Builder
	// A diff longer than maxUpstreamPages pages is read in part, as far as
	// it goes.
	if _, err := ghapi.Pages(maxUpstreamPages, func(opts *github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
		return e.rc.Client.PullRequests.ListFiles(ctx, l.Owner, l.Repo, int(l.Number), opts)
	}, func(files []*github.CommitFile) bool {
		for _, f := range files {
			if diff.Len() > maxUpstreamDiff {
				break
			}
			fmt.Fprintf(&diff, "+++ %s\n%s\n", f.GetFilename(), f.GetPatch())
		}
		return true
	}); err != nil {
		out.DiffErr = fmt.Errorf("listing its files failed: %w", err)
		return out
	}
	out.Diff = diff.String()
	if out.Diff == "" {
		out.DiffErr = errors.New("it changes no file GitHub shows a patch for")
	}
	return out
}

// Reuse is check 4: the PR's reuse commands, oldest first; the newest
// authorized one is resolved like its reply (section 5). A label that
// makes the merge refuse reuse fails it too. It returns the run the
// command resolved to (the run the merge would reuse), for check 1.
func (e *Evidence) Reuse(ctx context.Context, resolver *Resolver, pr *github.PullRequest, comments []*github.IssueComment) (signoff.Check, *Run) {
	var cmds []signoff.ReuseCommand
	var last *comment.Reuse
	lastIdx := -1
	for _, c := range sortedByCreation(comments) {
		if c.GetUser().GetType() == "Bot" || ghapi.IsUser(c.GetUser(), e.login) {
			continue
		}
		cmd, ok := comment.ParseReuse(c.GetBody())
		if !ok {
			continue
		}
		rc := signoff.ReuseCommand{URL: c.GetHTMLURL(), Author: c.GetUser().GetLogin(), Association: c.GetAuthorAssociation(),
			Command: cmd.Name, RunID: cmd.RunID, Authorized: e.mayCommand(c.GetAuthorAssociation())}
		if rc.Authorized && e.authors != nil {
			why, err := e.authors(ctx, c)
			if err != nil {
				return signoff.VerifyReuse(nil, fmt.Errorf("read who edited comment %d: %w", c.GetID(), err)), nil
			}
			// Someone else's edit speaks for no one: not the author's.
			rc.Authorized = why == ""
		}
		cmds = append(cmds, rc)
		if rc.Authorized {
			last, lastIdx = &cmd, len(cmds)-1
		}
	}
	var run *Run
	if last != nil {
		rc := &cmds[lastIdx]
		res := resolver.Resolve(ctx, *last)
		switch {
		case res.Err != nil:
			rc.Reason = "it could not be checked: " + text.FirstLine(res.Err.Error())
		case res.Run == nil:
			rc.Reason = res.Reason
		default:
			run = res.Run
			rc.Resolved = true
			rc.Evidence = fmt.Sprintf("it resolves to run %s (%s at %s, artifacts %s)", res.Run.URL, res.Run.Conclusion,
				prose.ShortSHA(res.Run.HeadSHA), text.CodeJoin(res.Run.Artifacts))
		}
		if rc.Resolved {
			if w := AnalyzeLabels(LabelNames(pr)).BlockingReason(); w != "" {
				rc.Resolved, rc.Reason = false, w
			}
		}
	}
	return signoff.VerifyReuse(cmds, nil), run
}

// Teams reads team membership for check 0, once per team per job. A
// team the token cannot see (403, 404) is unknown, and an unknown team
// grants nobody ownership.
type Teams struct {
	gh    *github.Client
	cache map[string]teamMembers
}

type teamMembers struct {
	logins []string
	known  bool
}

func NewTeams(gh *github.Client) *Teams {
	return &Teams{gh: gh, cache: map[string]teamMembers{}}
}

func (t *Teams) Members(ctx context.Context, org, team string) ([]string, bool, error) {
	key := strings.ToLower(org + "/" + team)
	if m, ok := t.cache[key]; ok {
		return m.logins, m.known, nil
	}
	var out []string
	opts := &github.TeamListTeamMembersOptions{}
	ended, err := ghapi.Pages(maxTeamMemberPages, func(lo *github.ListOptions) ([]*github.User, *github.Response, error) {
		opts.ListOptions = *lo
		return t.gh.Teams.ListTeamMembersBySlug(ctx, org, team, opts)
	}, func(users []*github.User) bool {
		for _, u := range users {
			out = append(out, u.GetLogin())
		}
		return true
	})
	if ghapi.IsStatus(err, http.StatusNotFound) || ghapi.IsStatus(err, http.StatusForbidden) {
		t.cache[key] = teamMembers{}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("list the members of %s/%s: %w", org, team, err)
	}
	if !ended {
		// A team this large was not read whole: membership is unknown.
		t.cache[key] = teamMembers{}
		return nil, false, nil
	}
	t.cache[key] = teamMembers{logins: out, known: true}
	return out, true, nil
}

// sortedByCreation returns comments oldest first.
func sortedByCreation(cs []*github.IssueComment) []*github.IssueComment {
	out := append([]*github.IssueComment(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].GetCreatedAt().Time.Before(out[j].GetCreatedAt().Time) })
	return out
}
