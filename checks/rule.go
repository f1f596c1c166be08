package checks

import (
	"context"
	"fmt"
	"sort"
)

// Rule is one check.
type Rule struct {
	// ID is stable once published (CL001, SH002, ...); repo configs and
	// comment markers refer to it.
	ID string
	// Severity is the default; .github/reviewbot.yml may override it.
	Severity Severity
	// Title is a one-line summary.
	Title string
	// Doc is a paragraph for the PR author who will read the finding: what
	// the rule looks for, why it matters, and what to do.
	Doc string
	// Run inspects the change and reports findings through the pass. It
	// returns an error only when it could not read what it needed (an I/O
	// failure); problems in the PR's files are findings, never errors.
	Run func(p *Pass) error
	// After lists the rules whose findings this rule reads through
	// Pass.Prior ("*" for every other rule): CV001 stays quiet where a
	// hand-written rule already spoke, RB003 looks for suppressions that
	// silenced nothing. The registry runs them first, whatever order the
	// rules are listed in.
	After []string
}

// Pass is what a rule sees while it runs.
type Pass struct {
	Ctx    context.Context
	Change *Change
	Rule   *Rule
	// Severity is the rule's effective severity (after the repo config).
	Severity Severity

	prior        []Finding
	report       func(Finding)
	inconclusive func(Inconclusive) // nil outside a review
	reg          *Registry          // the registry under review (nil in some tests)
}

// Config is the effective repository configuration.
func (p *Pass) Config() *Config { return p.Change.Config }

// Report records a finding. Rule and Severity default to the pass's rule
// and effective severity; a rule that reports at a different severity than
// its default (CV001's 🔴 at 100% confidence) sets Severity itself, and a
// configured override still wins.
func (p *Pass) Report(f Finding) {
	if f.Rule == "" {
		f.Rule = p.Rule.ID
	}
	if f.Severity == 0 || p.Severity != p.Rule.Severity {
		f.Severity = p.Severity
	}
	f.Path = CleanPath(f.Path)
	p.report(f)
}

// Inconclusive records that the rule had something to judge at path but
// too little evidence to judge it: a convention needs siblings and there
// were too few, a link needs the PR number and there was none. It reports
// nothing to the PR author; the review lists it so that the rule's silence
// is not read as "no problem here".
func (p *Pass) Inconclusive(path, reason string) {
	if p.inconclusive != nil {
		p.inconclusive(Inconclusive{Rule: p.Rule.ID, Path: CleanPath(path), Reason: reason})
	}
}

// Prior returns the findings reported by the rules that ran before this
// one (convention mining uses it to avoid reporting a fact twice).
func (p *Pass) Prior() []Finding { return p.prior }

// Registry is the set of rules, in the order they run: each after the
// rules its After names, otherwise in the order given.
type Registry struct {
	rules []*Rule
	byID  map[string]*Rule
}

// NewRegistry builds a registry; IDs must be unique, every rule must have
// a title, doc, severity and run function, and After must not make a
// cycle (IDs it names that the registry lacks are ignored).
func NewRegistry(rules ...*Rule) (*Registry, error) {
	r := &Registry{byID: map[string]*Rule{}}
	for _, rule := range rules {
		if rule.ID == "" || rule.Title == "" || rule.Doc == "" || rule.Run == nil || rule.Severity == 0 {
			return nil, fmt.Errorf("rule %q is incomplete (needs ID, title, doc, severity and run)", rule.ID)
		}
		if _, dup := r.byID[rule.ID]; dup {
			return nil, fmt.Errorf("duplicate rule ID %s", rule.ID)
		}
		r.byID[rule.ID] = rule
	}
	// Depth-first, in the given order: a rule is placed once every rule it
	// reads is placed. "*" reads every rule that does not itself say "*".
	deps := func(rule *Rule) []*Rule {
		var out []*Rule
		for _, id := range rule.After {
			if id == "*" {
				for _, o := range rules {
					if o != rule && !readsAll(o) {
						out = append(out, o)
					}
				}
				continue
			}
			// A rule left out of the registry has no findings to wait for.
			if o, ok := r.byID[id]; ok {
				out = append(out, o)
			}
		}
		return out
	}
	const (
		unvisited = iota
		visiting
		placed
	)
	state := map[*Rule]int{}
	var visit func(rule *Rule) error
	visit = func(rule *Rule) error {
		switch state[rule] {
		case placed:
			return nil
		case visiting:
			return fmt.Errorf("rules run after each other in a cycle through %s", rule.ID)
		}
		state[rule] = visiting
		for _, d := range deps(rule) {
			if err := visit(d); err != nil {
				return err
			}
		}
		state[rule] = placed
		r.rules = append(r.rules, rule)
		return nil
	}
	for _, rule := range rules {
		if err := visit(rule); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func readsAll(r *Rule) bool {
	for _, id := range r.After {
		if id == "*" {
			return true
		}
	}
	return false
}

// Rules returns the rules in run order.
func (r *Registry) Rules() []*Rule { return r.rules }

// Lookup returns the rule with the given ID, or nil.
func (r *Registry) Lookup(id string) *Rule { return r.byID[id] }

// SortedIDs returns every rule ID in lexical order.
func (r *Registry) SortedIDs() []string {
	ids := make([]string, 0, len(r.rules))
	for _, rule := range r.rules {
		ids = append(ids, rule.ID)
	}
	sort.Strings(ids)
	return ids
}
