package checks

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// Result is the outcome of running the registry over a change.
type Result struct {
	Findings []Finding
	// Errors are failures to read what a rule needed. Each names the rule;
	// the other rules' findings are still in Findings.
	Errors []error
	// NotReviewed are the files (or parts of the review) that were not
	// judged, and why: what the change's builder could not diff
	// (Change.Skip), what the review's budget refused, and the changed
	// files no rule reached once it was spent.
	NotReviewed []NotReviewed
	Stats       Stats
}

// Stats describes a run.
type Stats struct {
	Files int `json:"files"`
	Rules int `json:"rules"`
	// Suppressed counts the findings reviewbot:ignore comments silenced.
	Suppressed int `json:"suppressed"`
	// Inconclusive lists what rules had too little evidence to judge, in
	// the order they said so, each once.
	Inconclusive []Inconclusive `json:"inconclusive,omitempty"`
	Elapsed      time.Duration  `json:"-"`
}

// Inconclusive is a rule's note that it could not judge something for lack
// of evidence (see Pass.Inconclusive).
type Inconclusive struct {
	Rule   string `json:"rule"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
}

// Blocking reports whether any finding blocks.
func (r *Result) Blocking() bool {
	for _, f := range r.Findings {
		if f.Severity == Blocking {
			return true
		}
	}
	return false
}

// Review runs every enabled rule of reg over ch. Trees are wrapped in a
// per-review read cache, the configuration is loaded from the base tree
// when ch.Config is nil, and the layout is autodetected. A rule that fails
// or panics is recorded in Result.Errors; the others still run.
func Review(ctx context.Context, reg *Registry, ch *Change) (*Result, error) {
	start := time.Now()
	budget := DefaultBudget
	if ch.Budget != nil {
		budget = *ch.Budget
	}
	m := newMeter(budget, ch.Skip)
	base, head := NewCachedTree(ch.Base), NewCachedTree(ch.Head)
	base.meter, head.meter = m, m
	base.skip, head.skip = ch.Skip, ch.Skip
	ch.Base, ch.Head = base, head
	if err := ch.Configure(ctx, reg); err != nil {
		return nil, err
	}

	res := &Result{}
	noted := map[Inconclusive]bool{}
	inconclusive := func(n Inconclusive) {
		if !noted[n] {
			noted[n] = true
			res.Stats.Inconclusive = append(res.Stats.Inconclusive, n)
		}
	}
	for _, rule := range reg.Rules() {
		set := ch.Config.Setting(rule.ID)
		if set.Disabled {
			continue
		}
		sev := rule.Severity
		if set.Severity != 0 {
			sev = set.Severity
		}
		res.Stats.Rules++
		var got []Finding
		pass := &Pass{Ctx: ctx, Change: ch, Rule: rule, Severity: sev, prior: res.Findings, reg: reg,
			report: func(f Finding) { got = append(got, f) }, inconclusive: inconclusive}
		// A read the budget refused, or of a path that is not a file (a
		// directory where the changelog should be), is in NotReviewed
		// (the meter or the tree put it there), not a rule error; the
		// findings the rule made before stand.
		if err := runRule(rule, pass); err != nil && AsBudgetError(err) == nil && AsNotRegular(err) == nil {
			res.Errors = append(res.Errors, fmt.Errorf("%s: %w", rule.ID, err))
		}
		res.Findings = append(res.Findings, got...)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for i := range res.Findings {
		if res.Findings[i].Key == "" {
			res.Findings[i].Key = lineKey(ctx, ch, res.Findings[i])
		}
	}
	res.Findings = dedupe(res.Findings)
	res.Findings, res.Stats.Suppressed = applySuppressions(ctx, ch, reg, res.Findings)
	SortFindings(res.Findings)
	if spent := m.spentReason(); spent != "" {
		// Rules stop at the first refused read: a changed file they would
		// have judged next was not reviewed either.
		for _, fc := range ch.Files {
			if fc.Status != Deleted && fc.Changed() && ch.Config.Reviewed(fc.Path) && !head.wasRead(fc.Path) {
				ch.Skip(fc.Path, spent)
			}
		}
	}
	noteDirectories(ch)
	res.NotReviewed = ch.NotReviewed()
	res.Stats.Files = len(ch.Files)
	res.Stats.Elapsed = time.Since(start)
	return res, nil
}

// noteDirectories names as not reviewed each directory the change puts
// where the layout expects a file the rules review (a recipe, a master
// config, the changelog): `configs/nvidia-master.yaml/x.yaml` is no
// master config, and no rule reads the directory as one.
func noteDirectories(ch *Change) {
	for _, fc := range ch.Files {
		if fc.Status == Deleted {
			continue
		}
		for d := path.Dir(fc.Path); d != "." && d != "/"; d = path.Dir(d) {
			if ch.Config.Reviewed(d) {
				n := (&NotRegularError{Kind: "directory"}).NotReviewed(d)
				ch.Skip(n.Path, n.Reason)
			}
		}
	}
}

func runRule(rule *Rule, pass *Pass) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report): %v\n%s", r, debug.Stack())
		}
	}()
	return rule.Run(pass)
}

// lineKey is the fallback fingerprint key: the reported lines' text with
// whitespace collapsed.
func lineKey(ctx context.Context, ch *Change, f Finding) string {
	t := ch.Head
	if f.Side == Base {
		t = ch.Base
	}
	b, err := t.ReadFile(ctx, f.Path)
	if err != nil || f.Line <= 0 {
		return f.Title
	}
	end := f.EndLine
	if end < f.Line {
		end = f.Line
	}
	lines := bytes.Split(b, []byte("\n"))
	if f.Line > len(lines) {
		return f.Title
	}
	if end > len(lines) {
		end = len(lines)
	}
	return NormalizeKey(string(bytes.Join(lines[f.Line-1:end], []byte("\n"))))
}

// NormalizeKey collapses runs of whitespace so that re-indenting a line
// does not change a finding's identity.
func NormalizeKey(s string) string { return strings.Join(strings.Fields(s), " ") }

func dedupe(fs []Finding) []Finding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", f.Rule, f.Path, f.Line, f.Side, f.Key)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// SortFindings orders findings by path, line, then rule ID.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
}
