package llmreplay

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/history"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// Options tune a replay.
type Options struct {
	// Main is the branch merge bases are taken with (default "main").
	Main string
	// Workers is how many pull requests are replayed at once (default
	// GOMAXPROCS).
	Workers int
	// Relaxed also reviews the findings no commit of their day holds at
	// their line: on the newest commit of the day that holds the hunk's
	// lines elsewhere, or else on the newest commit of the PR (of any
	// day) that holds them. Such a finding stays unreplayable in the
	// figures; its result says where it was looked for (Result.Relaxed),
	// so a rule that would catch it once its line moved can be told from
	// one that would not.
	Relaxed bool
}

// Reason says why a finding could not be replayed.
type Reason string

const (
	// NoRef: the repository has no refs/pull/N/head for the finding's PR.
	NoRef Reason = "no refs/pull/N/head"
	// NoCommit: no commit of the PR, up to the thread's day, holds the
	// hunk at the finding's line.
	NoCommit Reason = "no matching commit"
)

// Result is the replay of one finding.
type Result struct {
	Finding *Finding `json:"finding"`
	// Reason is set when the finding could not be replayed; Note says
	// what the search for its commit saw.
	Reason Reason `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
	// Commit is the reviewed commit; Base its merge base with main.
	Commit string `json:"commit,omitempty"`
	Base   string `json:"base,omitempty"`
	// Span is where the finding sits in Commit's file (nil: the whole
	// file).
	Span *Span `json:"span,omitempty"`
	// HeaderLine is set when no commit held the hunk at the finding's
	// line but one held it at the line the hunk's header gives (see
	// Run): the line the span ends at instead.
	HeaderLine int `json:"header_line,omitempty"`
	// Relaxed is set on an unreplayable finding reviewed all the same
	// (Options.Relaxed): how its commit was found.
	Relaxed string `json:"relaxed,omitempty"`
	// Matches are our findings at its place.
	Matches []checks.Finding `json:"matches,omitempty"`
	// Review is the review of Commit, shared by the findings replayed on
	// it.
	Review *history.Record `json:"-"`
}

// Replayable reports whether the finding was replayed.
func (r *Result) Replayable() bool { return r.Reason == "" }

// Flagged reports whether we made a finding at its place.
func (r *Result) Flagged() bool { return len(r.Matches) > 0 }

// Red reports whether a finding of ours at its place is 🔴.
func (r *Result) Red() bool {
	for _, f := range r.Matches {
		if f.Severity == checks.Blocking {
			return true
		}
	}
	return false
}

// Replay is the outcome of a run.
type Replay struct {
	// Results follow the findings' order.
	Results []*Result
	// Reviews are the reviews made, one per PR, commit and date, in the
	// order of the findings that asked for them.
	Reviews []*history.Record
	Elapsed time.Duration
}

// Run replays each finding on repo. Its commit is the newest commit of
// refs/pull/N/head's ancestry, committed no later than the end of the
// thread's day (UTC), whose file at the finding's path holds the hunk's
// new-side lines ending at the finding's line (anywhere, for a finding
// without one; only the file, when the hunk has no new-side lines); when
// none does, the newest whose file holds them ending at the line the
// hunk's @@ header gives, which is where the finding is then placed.
// Commits already on opts.Main are not the PR's: their review would be
// of an empty change, so they are left out of the search. The
// commit is reviewed against its merge base with opts.Main, with the PR
// number and the thread's day as review date, once for all the findings
// that share them. Run fails on an I/O error of the repository; a review
// that fails is a Record with Error set.
func Run(ctx context.Context, repo *trees.Repo, reg *checks.Registry, findings []*Finding, opts Options) (*Replay, error) {
	start := time.Now()
	if opts.Main == "" {
		opts.Main = "main"
	}
	main, err := repo.Resolve(ctx, opts.Main)
	if err != nil {
		return nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	byPR := map[int][]int{}
	var prs []int
	for i, f := range findings {
		if byPR[f.PR] == nil {
			prs = append(prs, f.PR)
		}
		byPR[f.PR] = append(byPR[f.PR], i)
	}
	out := &Replay{Results: make([]*Result, len(findings))}
	cache := checks.NewParseCache(0)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, pr := range prs {
		g.Go(func() error {
			p := &prReplay{repo: repo, reg: reg, cache: cache, main: main, pr: pr, relaxed: opts.Relaxed, reviews: map[string]*history.Record{}}
			for _, i := range byPR[pr] {
				r, err := p.replay(gctx, findings[i])
				if err != nil {
					return fmt.Errorf("#%d, %s: %w", pr, findings[i].Path, err)
				}
				out.Results[i] = r
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	seen := map[*history.Record]bool{}
	for _, r := range out.Results {
		if r.Review != nil && !seen[r.Review] {
			seen[r.Review] = true
			out.Reviews = append(out.Reviews, r.Review)
		}
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// prReplay replays the findings of one PR, one at a time.
type prReplay struct {
	repo  *trees.Repo
	reg   *checks.Registry
	cache *checks.ParseCache
	main  string
	pr    int
	// relaxed: see Options.Relaxed.
	relaxed bool

	listed   bool
	hasRef   bool
	ancestry []trees.Commit             // the PR's commits, not on main
	files    map[string][]Candidate     // by path
	reviews  map[string]*history.Record // by commit and date
	bases    map[string]string          // merge base by commit
}

func (p *prReplay) replay(ctx context.Context, f *Finding) (*Result, error) {
	res := &Result{Finding: f}
	if !p.listed {
		p.listed = true
		ref := fmt.Sprintf("refs/pull/%d/head", p.pr)
		if p.hasRef = p.repo.HasRevision(ctx, ref); p.hasRef {
			var err error
			if p.ancestry, err = p.repo.Ancestry(ctx, ref, p.main); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case !p.hasRef:
		res.Reason = NoRef
		return res, nil
	case len(p.ancestry) == 0:
		res.Reason, res.Note = NoCommit, "every commit of the PR is already on main"
		return res, nil
	}
	cands, err := p.candidates(ctx, f.Path)
	if err != nil {
		return nil, err
	}
	h := ParseHunk(f.Hunk)
	want := WantOf(h, f.Line)
	cutoff := EndOfDay(f.Day())
	i, err := Select(cands, cutoff, p.holds(ctx, want, nil))
	if err != nil {
		return nil, err
	}
	line := f.Line
	if e := h.HeaderEnd(); i < 0 && want.End > 0 && e > 0 && e != want.End {
		// The thread's line may be that of a later head of the PR (the
		// host moves a thread's line along with the pushes that follow
		// it), while the hunk keeps the numbers of the commit the thread
		// was made on.
		at := Want{Lines: want.Lines, End: e}
		if i, err = Select(cands, cutoff, p.holds(ctx, at, nil)); err != nil {
			return nil, err
		}
		if i >= 0 {
			line, res.HeaderLine = e, e
		}
	}
	if i < 0 {
		res.Reason = NoCommit
		if res.Note, err = p.explain(ctx, cands, cutoff, want); err != nil || !p.relaxed {
			return res, err
		}
		if i, line, res.Relaxed, err = p.relax(ctx, cands, cutoff, want); err != nil || i < 0 {
			return res, err
		}
	}
	res.Commit = cands[i].SHA
	if res.Base, err = p.mergeBase(ctx, res.Commit); err != nil {
		return nil, err
	}
	res.Span = SpanOf(h, line)
	key := res.Commit + " " + f.ThreadDate
	rec := p.reviews[key]
	if rec == nil {
		rec = history.Review(ctx, p.repo, p.reg, p.cache,
			history.Target{Base: res.Base, Head: res.Commit, PR: p.pr, Date: f.Day()}, history.Options{})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.reviews[key] = rec
	}
	res.Review = rec
	res.Matches = Match(f.Path, res.Span, rec.Findings)
	return res, nil
}

// relax finds a commit for a finding the strict search found none for
// (Options.Relaxed): for a finding on a line, the newest commit of its day
// holding the hunk's lines elsewhere, else the newest of any day holding
// them at the finding's line, else anywhere; for one without a line, the
// newest of any day holding them. It returns the commit's index (-1:
// none), the line the finding's span then ends at (0 without a line), and
// how it was found.
func (p *prReplay) relax(ctx context.Context, cands []Candidate, cutoff time.Time, want Want) (int, int, string, error) {
	if len(want.Lines) == 0 {
		return -1, 0, "", nil
	}
	anywhere := Want{Lines: want.Lines}
	type try struct {
		want   Want
		cutoff time.Time
		how    string
	}
	tries := []try{
		{anywhere, cutoff, "the hunk at another line, same day"},
		{want, time.Time{}, "the hunk at its line, a later commit"},
		{anywhere, time.Time{}, "the hunk at another line, a later commit"},
	}
	if want.End == 0 {
		tries = []try{{anywhere, time.Time{}, "the hunk in a later commit"}}
	}
	for _, t := range tries {
		// Select asks holds last about the blob it returns, so end is
		// where that blob holds the lines.
		var end int
		i, err := Select(cands, t.cutoff, p.holds(ctx, t.want, &end))
		if err != nil {
			return -1, 0, "", err
		}
		if i >= 0 {
			if want.End == 0 {
				end = 0
			}
			return i, end, t.how, nil
		}
	}
	return -1, 0, "", nil
}

// candidates are the PR's commits with the blob of path in each.
func (p *prReplay) candidates(ctx context.Context, path string) ([]Candidate, error) {
	if c, ok := p.files[path]; ok {
		return c, nil
	}
	shas := make([]string, len(p.ancestry))
	for i, c := range p.ancestry {
		shas[i] = c.SHA
	}
	ids, err := p.repo.FileIDs(ctx, shas, path)
	if err != nil {
		return nil, err
	}
	cands := make([]Candidate, len(p.ancestry))
	for i, c := range p.ancestry {
		cands[i] = Candidate{SHA: c.SHA, Date: c.Date, Blob: ids[i]}
	}
	if p.files == nil {
		p.files = map[string][]Candidate{}
	}
	p.files[path] = cands
	return cands, nil
}

// holds is Select's question for want: whether a blob holds its lines.
// It records in end, when not nil, where the last lines it found end.
func (p *prReplay) holds(ctx context.Context, want Want, end *int) func(string) (bool, error) {
	return func(blob string) (bool, error) {
		if len(want.Lines) == 0 {
			return true, nil
		}
		b, err := p.repo.ReadBlob(ctx, blob)
		if err != nil {
			return false, err
		}
		e, ok := want.Find(b)
		if end != nil {
			*end = e
		}
		return ok, nil
	}
}

// explain says what the search for a finding's commit came closest to:
// the lines elsewhere in a commit of the day, or in a commit after it.
func (p *prReplay) explain(ctx context.Context, cands []Candidate, cutoff time.Time, want Want) (string, error) {
	anywhere := Want{Lines: want.Lines}
	var end int
	if want.End > 0 {
		i, err := Select(cands, cutoff, p.holds(ctx, anywhere, &end))
		if err != nil {
			return "", err
		}
		if i >= 0 {
			return fmt.Sprintf("%.10s (%s) holds the lines ending at line %d", cands[i].SHA, day(cands[i].Date), end), nil
		}
	}
	// The first commit after the day that holds them says how much later
	// the thread's version came.
	var later []Candidate
	for _, c := range cands {
		if c.Blob != "" && c.Date.After(cutoff) {
			later = append(later, c)
		}
	}
	sort.SliceStable(later, func(i, j int) bool { return later[i].Date.Before(later[j].Date) })
	for _, w := range []Want{want, anywhere} {
		holds := p.holds(ctx, w, &end)
		for _, c := range later {
			ok, err := holds(c.Blob)
			if err != nil {
				return "", err
			}
			if ok {
				where := ""
				if len(w.Lines) > 0 {
					where = fmt.Sprintf(", ending at line %d", end)
				}
				return fmt.Sprintf("only commits after the thread's day hold it, from %.10s (%s)%s", c.SHA, day(c.Date), where), nil
			}
		}
	}
	n := 0
	for _, c := range cands {
		if c.Blob != "" {
			n++
		}
	}
	if n == 0 {
		return "no commit of the PR has the file", nil
	}
	return fmt.Sprintf("none of the %d commits with the file holds the lines", n), nil
}

func (p *prReplay) mergeBase(ctx context.Context, commit string) (string, error) {
	if b, ok := p.bases[commit]; ok {
		return b, nil
	}
	b, ok, err := p.repo.MergeBase(ctx, commit, p.main)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%.12s and main share no commit", commit)
	}
	if p.bases == nil {
		p.bases = map[string]string{}
	}
	p.bases[commit] = b
	return b, nil
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }
