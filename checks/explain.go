package checks

import (
	"fmt"
	"strings"
)

// Explain collects a finding's reasoning part by part, for rules that build
// it in prose as they walk their evidence: choose the part (Problem, Why,
// Evidence, Note, Step, Fix), then write to it with Printf. Writing to a part
// again appends to it. Apply stores the parts in a Finding; the reviewer
// renders them under its own headings, so a rule never writes one.
type Explain struct {
	problem, why, evidence, fix strings.Builder
	notes                       []*noteBuilder
	steps                       []*strings.Builder
	cur                         *strings.Builder
}

type noteBuilder struct {
	title string
	text  strings.Builder
}

// Problem selects the part that says what is wrong and where.
func (e *Explain) Problem() *Explain { e.cur = &e.problem; return e }

// Why selects the part that says what goes wrong because of it.
func (e *Explain) Why() *Explain { e.cur = &e.why; return e }

// Evidence selects the prose that introduces the finding's Related
// locations.
func (e *Explain) Evidence() *Explain { e.cur = &e.evidence; return e }

// Fix selects the part that says what to do.
func (e *Explain) Fix() *Explain { e.cur = &e.fix; return e }

// Note selects the note titled title, starting it if it is new.
func (e *Explain) Note(title string) *Explain {
	for _, n := range e.notes {
		if n.title == title {
			e.cur = &n.text
			return e
		}
	}
	n := &noteBuilder{title: title}
	e.notes = append(e.notes, n)
	e.cur = &n.text
	return e
}

// Step starts the next step of the step-by-step argument.
func (e *Explain) Step() *Explain {
	b := &strings.Builder{}
	e.steps = append(e.steps, b)
	e.cur = b
	return e
}

// Printf appends to the selected part (the problem when none is selected).
func (e *Explain) Printf(format string, args ...any) {
	if e.cur == nil {
		e.cur = &e.problem
	}
	fmt.Fprintf(e.cur, format, args...)
}

// Apply stores the parts in f, each trimmed; empty parts stay empty.
func (e *Explain) Apply(f *Finding) {
	f.Problem = strings.TrimSpace(e.problem.String())
	f.Why = strings.TrimSpace(e.why.String())
	f.Evidence = strings.TrimSpace(e.evidence.String())
	f.Fix = strings.TrimSpace(e.fix.String())
	f.Notes = nil
	for _, n := range e.notes {
		if t := strings.TrimSpace(n.text.String()); t != "" {
			f.Notes = append(f.Notes, Note{Title: n.title, Text: t})
		}
	}
	f.Steps = nil
	for _, s := range e.steps {
		if t := strings.TrimSpace(s.String()); t != "" {
			f.Steps = append(f.Steps, t)
		}
	}
}
