package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/signoff"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
)

// The evidence of checks 1-4 lives on GitHub; this file reads it through
// the API and hands it to the signoff package's evaluators, which decide.

// Bounds on what one verification reads.
const (
	maxSweepCommits    = 100 // newest PR commits whose check runs are read
	maxCheckRunPages   = 20  // 2,000 check runs per commit
	maxUpstreamLinks   = 5
	maxUpstreamPages   = 3
	maxUpstreamDiff    = 1 << 20
	maxTeamMemberPages = 10
)

type evidence struct {
	s        *Server
	rc       *repoClient
	ch       *checks.Change
	resolver *reuseResolver // shares what it read (commits, artifacts)
}

var runIDRe = regexp.MustCompile(`/actions/runs/(\d+)`)

// runIDOf is the workflow run of an Actions job's check run, from its
// details URL (…/actions/runs/<id>/job/<job>).
func runIDOf(detailsURL string) int64 {
	m := runIDRe.FindStringSubmatch(detailsURL)
	if m == nil {
		return 0
	}
	id, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// sweep is check 1. It reads the check runs of the commits newest first and
// stops at the first whose sweep and evals all succeeded: that is the
// commit VerifySweep picks, and what it says of newer commits is about
// commits already read.
func (e *evidence) sweep(ctx context.Context, commits []*github.RepositoryCommit, total int) (signoff.Check, *signoff.SweepResult) {
	repo := e.rc.slug()
	var read []signoff.CommitRuns // newest first
	capped := false
	for i := len(commits) - 1; i >= 0; i-- {
		if len(read) == maxSweepCommits {
			capped = true
			break
		}
		sha := commits[i].GetSHA()
		runs, err := e.checkRuns(ctx, sha)
		if err != nil {
			return signoff.VerifySweep(repo, nil, err)
		}
		cr := signoff.CommitRuns{SHA: sha, Runs: runs}
		read = append(read, cr)
		if _, res := signoff.VerifySweep(repo, []signoff.CommitRuns{cr}, nil); res != nil {
			break
		}
	}
	oldestFirst := make([]signoff.CommitRuns, len(read))
	for i, cr := range read {
		oldestFirst[len(read)-1-i] = cr
	}
	c, res := signoff.VerifySweep(repo, oldestFirst, nil)
	switch {
	case res == nil && capped:
		c.Reason += fmt.Sprintf(" (the check runs of the %d newest of the PR's %d commits were read)", maxSweepCommits, total)
	case res == nil && len(commits) < total:
		c.Reason += fmt.Sprintf(" (%d of the PR's %d commits are later than the signed one and were not considered)", total-len(commits), total)
	}
	return c, res
}

func (e *evidence) checkRuns(ctx context.Context, sha string) ([]signoff.CheckRun, error) {
	var out []signoff.CheckRun
	opts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100}}
	for pages := 0; ; pages++ {
		if pages == maxCheckRunPages {
			return nil, fmt.Errorf("commit %s has more than %d check runs", short(sha), maxCheckRunPages*100)
		}
		res, resp, err := e.rc.gh.Checks.ListCheckRunsForRef(ctx, e.rc.owner, e.rc.repo, sha, opts)
		if err != nil {
			return nil, fmt.Errorf("list the check runs of %s: %w", short(sha), err)
		}
		for _, r := range res.CheckRuns {
			out = append(out, signoff.CheckRun{Name: r.GetName(), Status: r.GetStatus(), Conclusion: r.GetConclusion(),
				RunID: runIDOf(r.GetDetailsURL())})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// evals is check 2: the eval_results_all artifact of the run check 1
// picked, downloaded with a size bound and read with bounded
// decompression.
func (e *evidence) evals(ctx context.Context, sweep *signoff.SweepResult) signoff.Check {
	in := signoff.EvalInput{Repo: e.rc.slug(), ThresholdsPath: e.ch.Config.Paths.EvalThresholds}
	keys, err := masterconfig.ChangedKeys(ctx, e.ch)
	if err != nil {
		return signoff.Check{N: signoff.CheckEvals, Status: signoff.Fail, Reason: "could not read the changed configs: " + firstLine(err.Error())}
	}
	in.Keys = keys
	th, err := e.ch.Base.ReadFile(ctx, e.ch.Config.Paths.EvalThresholds)
	switch {
	case checks.IsNotExist(err):
	case err != nil:
		return signoff.Check{N: signoff.CheckEvals, Status: signoff.Fail,
			Reason: fmt.Sprintf("could not read %s at base: %s", e.ch.Config.Paths.EvalThresholds, firstLine(err.Error()))}
	default:
		in.Thresholds = th
	}
	switch {
	case sweep == nil:
		in.Err = signoff.ErrNoRun
	case sweep.RunID == 0:
		in.Err = errors.New("the eval check runs of commit " + short(sweep.Commit) + " name no workflow run")
	default:
		in.RunID = sweep.RunID
		in.Rows, in.Err = e.evalRows(ctx, sweep.RunID)
	}
	return signoff.VerifyEvals(in)
}

func (e *evidence) evalRows(ctx context.Context, runID int64) ([]signoff.EvalRow, error) {
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
	limit := e.s.cfg.MaxArtifactBytes
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
func (e *evidence) download(ctx context.Context, id, limit int64) ([]byte, error) {
	u, _, err := e.rc.gh.Actions.DownloadArtifact(ctx, e.rc.owner, e.rc.repo, id, 1)
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
	resp, err := e.s.download.Do(req)
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

// recipe is check 3. The upstream recipe PRs the sign-off links are read
// only when the check applies (a single-node vLLM/SGLang recipe changed).
func (e *evidence) recipe(ctx context.Context, so *signoff.SignOff) signoff.Check {
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

func (e *evidence) upstreamPR(ctx context.Context, l signoff.Link) signoff.UpstreamPR {
	pr, _, err := e.rc.gh.PullRequests.Get(ctx, l.Owner, l.Repo, int(l.Number))
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
	opts := &github.ListOptions{PerPage: 100}
	for pages := 0; pages < maxUpstreamPages; pages++ {
		files, resp, err := e.rc.gh.PullRequests.ListFiles(ctx, l.Owner, l.Repo, int(l.Number), opts)
		if err != nil {
			out.DiffErr = fmt.Errorf("listing its files failed: %w", err)
			return out
		}
		for _, f := range files {
			if diff.Len() > maxUpstreamDiff {
				break
			}
			fmt.Fprintf(&diff, "+++ %s\n%s\n", f.GetFilename(), f.GetPatch())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	out.Diff = diff.String()
	if out.Diff == "" {
		out.DiffErr = errors.New("it changes no file GitHub shows a patch for")
	}
	return out
}

// reuse is check 4: the PR's reuse commands, oldest first; the newest
// authorized one is resolved like its reply (section 5). A label that
// makes the merge refuse reuse fails it too.
func (e *evidence) reuse(ctx context.Context, resolver *reuseResolver, pr *github.PullRequest, comments []*github.IssueComment) signoff.Check {
	var cmds []signoff.ReuseCommand
	var last *slashCommand
	lastIdx := -1
	for _, c := range sortedByCreation(comments) {
		if c.GetUser().GetType() == "Bot" {
			continue
		}
		cmd, ok := parseSlashCommand(c.GetBody())
		if !ok {
			continue
		}
		rc := signoff.ReuseCommand{URL: c.GetHTMLURL(), Author: c.GetUser().GetLogin(), Association: c.GetAuthorAssociation(),
			Command: cmd.Name, RunID: cmd.RunID, Authorized: associationAllowed(e.s.cfg.ReuseAssociations, c.GetAuthorAssociation())}
		cmds = append(cmds, rc)
		if rc.Authorized {
			last, lastIdx = &cmd, len(cmds)-1
		}
	}
	if last != nil {
		rc := &cmds[lastIdx]
		res := resolver.resolve(ctx, *last)
		switch {
		case res.Err != nil:
			rc.Reason = "it could not be checked: " + firstLine(res.Err.Error())
		case res.Run == nil:
			rc.Reason = res.Reason
		default:
			rc.Resolved = true
			rc.Evidence = fmt.Sprintf("it resolves to run %s (%s at %s, artifacts %s)", res.Run.URL, res.Run.Conclusion,
				short(res.Run.HeadSHA), codeJoin(res.Run.Artifacts))
		}
		if rc.Resolved {
			if w := blockingLabelProblem(labelNames(pr)); w != "" {
				rc.Resolved, rc.Reason = false, w
			}
		}
	}
	return signoff.VerifyReuse(cmds, nil)
}

// blockingLabelProblem says why the PR's labels make the merge refuse
// reuse, or "".
func blockingLabelProblem(labels []string) string {
	for _, l := range labels {
		if contains(reuseBlockingLabels, l) {
			return fmt.Sprintf("the PR carries `%s`, which blocks reuse at merge while applied", l)
		}
	}
	for _, w := range labelWarnings(labels) {
		if strings.Contains(w, "none of the full-sweep labels") {
			return "the PR carries none of the full-sweep labels, which reuse at merge requires"
		}
	}
	return ""
}

// apiTeams reads team membership for check 0. A team the token cannot
// see (403, 404) is unknown, which is not held against the signer.
type apiTeams struct{ gh *github.Client }

func (t *apiTeams) Members(ctx context.Context, org, team string) ([]string, bool, error) {
	var out []string
	opts := &github.TeamListTeamMembersOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for pages := 0; pages < maxTeamMemberPages; pages++ {
		users, resp, err := t.gh.Teams.ListTeamMembersBySlug(ctx, org, team, opts)
		if isStatus(err, http.StatusNotFound) || isStatus(err, http.StatusForbidden) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("list the members of %s/%s: %w", org, team, err)
		}
		for _, u := range users {
			out = append(out, u.GetLogin())
		}
		if resp.NextPage == 0 {
			return out, true, nil
		}
		opts.Page = resp.NextPage
	}
	// A team this large was not read whole: membership is unknown.
	return nil, false, nil
}
