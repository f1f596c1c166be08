// Package history replays the check library over a repository's merged
// pull requests: "what would the bot have said on my last N merged PRs",
// the dry run a maintainer wants before installing the App.
//
// Each first-parent commit C of the branch whose subject ends with "(#N)"
// is one PR. When the repository carries refs/pull/N/head, that head is
// reviewed against C's first parent, taking the merge base as every review
// does, which is what GitHub showed for the PR at its last push; otherwise
// the merge commit itself is reviewed against its first parent. The review
// date is C's commit date, so date-dependent rules judge the PR as they
// would have on the day it merged.
package history

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// Options select the range to replay.
type Options struct {
	// Rev is the branch whose first-parent history is replayed (default
	// "main").
	Rev string
	// N is how many merged PRs to replay, newest first; <= 0 means all.
	N int
	// Owner and Repo name the repository for canonical links (default
	// SemiAnalysisAI/InferenceX).
	Owner, Repo string
	// Config, when set, replaces each base tree's .github/reviewbot.yml.
	Config *checks.Config
	// Budget bounds each review (nil: checks.DefaultBudget).
	Budget *checks.Budget
	// Progress, when set, is called after each review.
	Progress func(done, total int, rec *Record)
}

// Source says what was reviewed for a PR.
type Source string

const (
	// PRHead is refs/pull/N/head against the merge commit's first parent.
	PRHead Source = "pr-head"
	// MergeCommit is the merge commit against its first parent (the
	// repository has no refs/pull/N/head).
	MergeCommit Source = "merge-commit"
)

// Record is the replay of one merged PR.
type Record struct {
	SHA      string           `json:"sha"`
	PR       int              `json:"pr"`
	Subject  string           `json:"subject"`
	Date     time.Time        `json:"date"`
	Source   Source           `json:"source"`
	BaseSHA  string           `json:"base_sha,omitempty"`
	HeadSHA  string           `json:"head_sha,omitempty"`
	Files    int              `json:"files"`
	Findings []checks.Finding `json:"findings"`
	// NotReviewed are the files the review did not judge, and why.
	NotReviewed []checks.NotReviewed `json:"not_reviewed,omitempty"`
	Elapsed     time.Duration        `json:"-"`
	// ElapsedMS is Elapsed in milliseconds, for JSON.
	ElapsedMS float64 `json:"elapsed_ms"`
	// Error says why the PR could not be reviewed (or which rules failed);
	// the replay goes on with the next PR.
	Error string `json:"error,omitempty"`
}

// Blocking reports whether the review has a 🔴 finding.
func (r *Record) Blocking() bool {
	for _, f := range r.Findings {
		if f.Severity == checks.Blocking {
			return true
		}
	}
	return false
}

// Run replays the merged PRs of repo, handing each record to emit as soon
// as its review is done, and returns the summary of them all. Records are
// not kept: a replay of a repository's whole history holds one review at a
// time. Run returns an error when the range cannot be listed, emit fails
// or ctx ends; a PR that fails to review is a Record with Error set.
func Run(ctx context.Context, repo *trees.Repo, reg *checks.Registry, opts Options, emit func(*Record) error) (Summary, error) {
	if opts.Rev == "" {
		opts.Rev = "main"
	}
	var sum Summarizer
	prs, err := repo.MergedPRs(ctx, opts.Rev, opts.N)
	if err != nil {
		return sum.Summary(), err
	}
	// One parse cache for the whole replay: consecutive PRs share most of
	// their base files, and blob IDs never go stale. It is bounded in
	// bytes, so a long replay holds no more than one.
	cache := checks.NewParseCache(0)
	for i, pr := range prs {
		if err := ctx.Err(); err != nil {
			return sum.Summary(), err
		}
		rec := replayOne(ctx, repo, reg, cache, pr, opts)
		sum.Add(rec)
		if opts.Progress != nil {
			opts.Progress(i+1, len(prs), rec)
		}
		if err := emit(rec); err != nil {
			return sum.Summary(), err
		}
	}
	return sum.Summary(), nil
}

func replayOne(ctx context.Context, repo *trees.Repo, reg *checks.Registry, cache *checks.ParseCache, pr trees.MergedPR, opts Options) *Record {
	t := Target{Base: pr.SHA + "^", Head: pr.SHA, PR: pr.Number, Title: pr.Subject, Date: pr.Date}
	source := MergeCommit
	if ref := fmt.Sprintf("refs/pull/%d/head", pr.Number); repo.HasRevision(ctx, ref) {
		t.Head, source = ref, PRHead
	}
	rec := Review(ctx, repo, reg, cache, t, opts)
	rec.SHA, rec.Subject, rec.Source = pr.SHA, pr.Subject, source
	return rec
}

// Target is one change to review on an open repository.
type Target struct {
	// Base and Head are revisions; the diff starts at their merge base.
	Base, Head string
	// PR is the pull request's number (0: unknown), Title its title.
	PR    int
	Title string
	// Date is the review date for date-dependent rules.
	Date time.Time
}

// Review reviews one change as `reviewbot review --base B --head H --pr N
// --date D` does: from the merge base to the head, with the base tree's
// configuration unless opts.Config replaces it, under opts.Budget.
// Owner and Repo of opts name the repository. cache may be shared by many
// reviews (it is keyed by blob ID). A change that cannot be reviewed, or
// whose rules failed, is a Record with Error set; the findings made
// before a failure stand.
func Review(ctx context.Context, repo *trees.Repo, reg *checks.Registry, cache *checks.ParseCache, t Target, opts Options) *Record {
	rec := &Record{PR: t.PR, Date: t.Date, Findings: []checks.Finding{}}
	start := time.Now()
	defer func() {
		rec.Elapsed = time.Since(start)
		rec.ElapsedMS = float64(rec.Elapsed.Microseconds()) / 1000
	}()
	defer func() {
		if r := recover(); r != nil {
			rec.Error = fmt.Sprintf("internal error (please report): %v", r)
		}
	}()

	gc, err := repo.OpenChange(ctx, t.Base, t.Head)
	if err != nil {
		rec.Error = err.Error()
		return rec
	}
	rec.BaseSHA, rec.HeadSHA, rec.Files = gc.BaseSHA, gc.HeadSHA, len(gc.Files)
	ch := gc.Change()
	ch.Date, ch.Cache, ch.Budget = t.Date, cache, opts.Budget
	ch.PR.Number, ch.PR.Owner, ch.PR.Repo, ch.PR.Title = t.PR, opts.Owner, opts.Repo, t.Title
	if opts.Config != nil {
		cfg := *opts.Config
		ch.Config = &cfg
	}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		rec.Error = err.Error()
		return rec
	}
	if res.Findings != nil {
		rec.Findings = res.Findings
	}
	rec.NotReviewed = res.NotReviewed
	if len(res.Errors) > 0 {
		msg := res.Errors[0].Error()
		if len(res.Errors) > 1 {
			msg += fmt.Sprintf(" (and %d more)", len(res.Errors)-1)
		}
		rec.Error = msg
	}
	return rec
}

// RuleCount is how often one rule fired in a replay.
type RuleCount struct {
	Rule     string `json:"rule"`
	Blocking int    `json:"blocking"`
	Warning  int    `json:"warning"`
	// PRs is the number of PRs with at least one finding of the rule.
	PRs int `json:"prs"`
}

// Summary aggregates a replay.
type Summary struct {
	PRs          int           `json:"prs"`
	Reviewed     int           `json:"reviewed"`
	Errors       int           `json:"errors"`
	BlockingPRs  int           `json:"blocking_prs"`
	WarningPRs   int           `json:"warning_prs"`
	Rules        []RuleCount   `json:"rules"`
	Median       time.Duration `json:"-"`
	P95          time.Duration `json:"-"`
	FromPRHeads  int           `json:"from_pr_heads"`
	FromCommits  int           `json:"from_merge_commits"`
	MedianMS     float64       `json:"median_ms"`
	P95MS        float64       `json:"p95_ms"`
	BlockingRate float64       `json:"blocking_rate"`
}

// Summarize counts findings per rule and severity and the review times.
func Summarize(recs []*Record) Summary {
	var s Summarizer
	for _, r := range recs {
		s.Add(r)
	}
	return s.Summary()
}

// Summarizer builds a Summary one record at a time, keeping counts and
// review times only. The zero value is ready to use.
type Summarizer struct {
	s      Summary
	byRule map[string]*RuleCount
	times  []time.Duration
}

// Add counts one record.
func (z *Summarizer) Add(r *Record) {
	s := &z.s
	s.PRs++
	if z.byRule == nil {
		z.byRule = map[string]*RuleCount{}
	}
	switch r.Source {
	case PRHead:
		s.FromPRHeads++
	case MergeCommit:
		s.FromCommits++
	}
	if r.Error != "" {
		s.Errors++
	}
	if r.HeadSHA != "" {
		s.Reviewed++
		z.times = append(z.times, r.Elapsed)
	}
	seen := map[string]bool{}
	warn := false
	for _, f := range r.Findings {
		rc := z.byRule[f.Rule]
		if rc == nil {
			rc = &RuleCount{Rule: f.Rule}
			z.byRule[f.Rule] = rc
		}
		if f.Severity == checks.Blocking {
			rc.Blocking++
		} else {
			rc.Warning++
			warn = true
		}
		if !seen[f.Rule] {
			seen[f.Rule] = true
			rc.PRs++
		}
	}
	if r.Blocking() {
		s.BlockingPRs++
	} else if warn {
		s.WarningPRs++
	}
}

// Summary returns the summary of the records added so far.
func (z *Summarizer) Summary() Summary {
	s := z.s
	s.Rules = nil
	for _, rc := range z.byRule {
		s.Rules = append(s.Rules, *rc)
	}
	sort.Slice(s.Rules, func(i, j int) bool { return s.Rules[i].Rule < s.Rules[j].Rule })
	s.Median, s.P95 = percentile(z.times, 0.5), percentile(z.times, 0.95)
	s.MedianMS = float64(s.Median.Microseconds()) / 1000
	s.P95MS = float64(s.P95.Microseconds()) / 1000
	if s.PRs > 0 {
		s.BlockingRate = float64(s.BlockingPRs) / float64(s.PRs)
	}
	return s
}

// AllFailed reports whether every review of the replay failed: a replay
// that reviewed nothing is no result, and says so with its exit status.
func (s Summary) AllFailed() bool { return s.PRs > 0 && s.Errors == s.PRs }

// percentile is the nearest-rank percentile of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	rank := int(p*float64(len(sorted))+0.999999) - 1
	if rank < 0 {
		rank = 0
	}
	if rank >= len(sorted) {
		rank = len(sorted) - 1
	}
	return sorted[rank]
}
