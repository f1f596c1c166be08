package reviewer

import (
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Sides of a pull-request review comment, as GitHub spells them.
const (
	SideRight = "RIGHT"
	SideLeft  = "LEFT"
)

// maxCommentSpan bounds how many lines a multi-line comment may cover; past
// it the finding is anchored on one line, which reads better anyway.
const maxCommentSpan = 200

// InlineComment is one comment of the pull-request review, in the terms of
// GitHub's API (line/start_line/side; never the deprecated position).
type InlineComment struct {
	Path string
	Line int
	// StartLine is the first line of a multi-line comment, 0 for a
	// single-line one. A multi-line comment stays on one side: start_side
	// is Side.
	StartLine int
	Side      string
	Body      string
	Finding   checks.Finding
}

// PostedFinding is a finding an earlier review reported, recovered from the
// marker of its inline comment (ParseFindingMarker, with the comment's path)
// or from the previous summary (ParseSummaryFindings).
type PostedFinding struct {
	Fingerprint string
	Rule        string
	Path        string
	// InSummary is set when the finding was listed in the summary rather
	// than posted inline; the rewritten summary lists it again while it
	// reproduces.
	InSummary bool
}

// PlanOptions carries what the earlier reviews of the PR posted.
type PlanOptions struct {
	Previous []PostedFinding
	// ReReview marks a review of a PR the bot has reviewed before (its
	// summary comment exists), even if that review found nothing.
	ReReview bool
	// Notes are extra paragraphs for the summary, about the review rather
	// than a finding (e.g. that GitHub listed only part of a huge PR's
	// files). They follow the headline.
	Notes []string
	// SweepLabels, when set, adds the sweep-label section, which label
	// events later rewrite in place (UpdateLabelSection).
	SweepLabels *SweepLabels
	// NotReviewed are the files the review did not judge, and why
	// (checks.Result.NotReviewed): the summary lists them under "Not
	// reviewed" and the status counts them.
	NotReviewed []checks.NotReviewed
}

// Status is the commit status the app sets on the head SHA.
type Status struct {
	State       string // "success" or "failure"
	Description string // at most 140 characters, GitHub's limit
}

// Plan is everything one review posts.
type Plan struct {
	// Inline are the new comments of the review, on diff lines.
	Inline []InlineComment
	// Outside are the findings listed in the summary under "Additional
	// findings (outside current diff)".
	Outside []checks.Finding
	// AlreadyPosted are open findings an earlier review already reported;
	// they get no new comment.
	AlreadyPosted []checks.Finding
	// Resolved are earlier findings that no longer reproduce.
	Resolved []PostedFinding
	// Summary is the body of the summary comment (posted once, then edited
	// in place; it carries the hidden summary marker).
	Summary string
	Status  Status

	open        []checks.Finding
	isNew       map[string]bool // fingerprint → reported for the first time
	inline      map[string]bool // fingerprint → has an inline comment (now or before)
	reReview    bool
	notes       []string
	sweep       *SweepLabels
	notReviewed []checks.NotReviewed
}

// BuildPlan decides where each finding goes and renders every body.
//
// A finding goes inline when GitHub accepts a comment on its line: a line
// the PR added or changed (RIGHT), or, for a finding about the base version,
// a removed line (LEFT). A multi-line finding gets a multi-line comment only
// when the whole range is added; otherwise it is anchored on its first
// added line. Everything else is listed in the summary.
func BuildPlan(findings []checks.Finding, changes []*checks.FileChange, opts PlanOptions) *Plan {
	p := &Plan{
		open:     append([]checks.Finding(nil), findings...),
		isNew:    map[string]bool{},
		inline:   map[string]bool{},
		reReview: opts.ReReview || len(opts.Previous) > 0,
		notes:    opts.Notes,
		sweep:    opts.SweepLabels,

		notReviewed: opts.NotReviewed,
	}
	checks.SortFindings(p.open)

	previous := map[string]PostedFinding{}
	for _, pf := range opts.Previous {
		if pf.Fingerprint == "" {
			continue
		}
		if old, seen := previous[pf.Fingerprint]; seen && !old.InSummary {
			continue // an inline comment outranks a summary listing
		}
		previous[pf.Fingerprint] = pf
	}

	files := fileIndex(changes)
	current := map[string]bool{}
	for _, f := range p.open {
		fp := Fingerprint(f)
		current[fp] = true
		if pf, posted := previous[fp]; posted {
			p.AlreadyPosted = append(p.AlreadyPosted, f)
			if pf.InSummary {
				p.Outside = append(p.Outside, f)
			} else {
				p.inline[fp] = true
			}
			continue
		}
		p.isNew[fp] = true
		if c, ok := place(f, files); ok {
			p.Inline = append(p.Inline, c)
			p.inline[fp] = true
		} else {
			p.Outside = append(p.Outside, f)
		}
	}

	for _, pf := range opts.Previous {
		if pf.Fingerprint != "" && !current[pf.Fingerprint] {
			current[pf.Fingerprint] = true // list each resolved finding once
			p.Resolved = append(p.Resolved, pf)
		}
	}
	sort.SliceStable(p.Resolved, func(i, j int) bool {
		a, b := p.Resolved[i], p.Resolved[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Rule < b.Rule
	})

	p.Status = buildStatus(p.open, len(p.notReviewed))
	p.Summary = p.renderSummary()
	return p
}

// MoveToSummary takes the inline comments at the given indexes out of the
// review and lists their findings in the summary instead. The app calls it
// when GitHub rejects a comment (a 422 for a line it does not consider part
// of the diff), so the finding is not lost.
func (p *Plan) MoveToSummary(indexes ...int) {
	drop := map[int]bool{}
	for _, i := range indexes {
		if i >= 0 && i < len(p.Inline) {
			drop[i] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	kept := p.Inline[:0]
	for i, c := range p.Inline {
		if !drop[i] {
			kept = append(kept, c)
			continue
		}
		delete(p.inline, Fingerprint(c.Finding))
		p.Outside = append(p.Outside, c.Finding)
	}
	p.Inline = kept
	checks.SortFindings(p.Outside)
	p.Summary = p.renderSummary()
}

// fileIndex maps every path a finding may name to its diff: the head path,
// and the base path of a renamed or deleted file.
func fileIndex(files []*checks.FileChange) map[string]*checks.FileChange {
	idx := make(map[string]*checks.FileChange, 2*len(files))
	for _, fc := range files {
		if fc == nil {
			continue
		}
		idx["head\x00"+fc.Path] = fc
		if fc.Status != checks.Added && fc.OldPath != "" {
			idx["base\x00"+fc.OldPath] = fc
		}
	}
	for _, fc := range files {
		if fc == nil || fc.Status == checks.Added {
			continue // an added file has no base lines to comment on
		}
		if _, taken := idx["base\x00"+fc.Path]; !taken {
			idx["base\x00"+fc.Path] = fc
		}
	}
	return idx
}

// place finds the inline anchor of f, if GitHub accepts one.
func place(f checks.Finding, files map[string]*checks.FileChange) (InlineComment, bool) {
	c := InlineComment{Finding: f}
	if f.Line <= 0 {
		return c, false
	}
	end := f.EndLine
	if end < f.Line {
		end = f.Line
	}
	if f.Side == checks.Base {
		fc := files["base\x00"+f.Path]
		if fc == nil || !contains(fc.RemovedLines(), f.Line) {
			return c, false
		}
		c.Path, c.Side, c.Line = fc.Path, SideLeft, f.Line
		if end > f.Line && end-f.Line <= maxCommentSpan && allIn(fc.RemovedLines(), f.Line, end) {
			c.StartLine, c.Line = f.Line, end
		}
		c.Body = renderInline(f, false)
		return c, true
	}

	fc := files["head\x00"+f.Path]
	if fc == nil || fc.Status == checks.Deleted {
		return c, false
	}
	c.Path, c.Side = fc.Path, SideRight
	if f.Suggestion != nil {
		// Anchoring on the replaced lines makes the fix one click.
		s := suggestionRange(f)
		if s.EndLine-s.Line <= maxCommentSpan && allAdded(fc, s.Line, s.EndLine) {
			c.Line = s.EndLine
			if s.EndLine > s.Line {
				c.StartLine = s.Line
			}
			c.Body = renderInline(f, true)
			return c, true
		}
	}
	switch {
	case end > f.Line && end-f.Line <= maxCommentSpan && allAdded(fc, f.Line, end):
		c.StartLine, c.Line = f.Line, end
	case fc.IsAdded(f.Line):
		c.Line = f.Line
	default:
		first := firstAdded(fc, f.Line, end)
		if first == 0 {
			return c, false
		}
		c.Line = first
	}
	// A comment on a single line of a multi-line suggestion, or on other
	// lines, must not offer GitHub's "apply suggestion".
	c.Body = renderInline(f, false)
	return c, true
}

func allAdded(fc *checks.FileChange, start, end int) bool {
	if start <= 0 {
		return false
	}
	for n := start; n <= end; n++ {
		if !fc.IsAdded(n) {
			return false
		}
	}
	return true
}

func firstAdded(fc *checks.FileChange, start, end int) int {
	if fc.Status == checks.Added {
		return start
	}
	added := fc.AddedLines()
	i := sort.SearchInts(added, start)
	if i < len(added) && added[i] <= end {
		return added[i]
	}
	return 0
}

func contains(sorted []int, n int) bool {
	i := sort.SearchInts(sorted, n)
	return i < len(sorted) && sorted[i] == n
}

func allIn(sorted []int, start, end int) bool {
	i := sort.SearchInts(sorted, start)
	j := sort.SearchInts(sorted, end+1)
	return j-i == end-start+1
}
