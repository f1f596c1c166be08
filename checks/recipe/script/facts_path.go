package script

import (
	"path"
	"slices"
	"strings"
)

// CondKind says which construct a Cond stands for.
type CondKind uint8

const (
	// CondCase is an arm of a case statement.
	CondCase CondKind = iota + 1
	// CondIf is a branch of an if/elif/else, or the right-hand side of
	// `test && cmd` / `test || cmd`.
	CondIf
	// CondFunc is the body of a function: it runs where the function is
	// called, not where it is written.
	CondFunc
	// CondLoop is the body of a for/while/until loop, which may run zero
	// times.
	CondLoop
)

func (k CondKind) String() string {
	switch k {
	case CondCase:
		return "case"
	case CondIf:
		return "if"
	case CondFunc:
		return "func"
	case CondLoop:
		return "loop"
	}
	return "cond?"
}

// Cond is one condition a fact sits under.
//
// For a case arm, Var is the variable of the case word and Patterns the
// arm's patterns (`vllm-simple|native)` gives two). Except lists the
// patterns of earlier arms of the same case statement: a value they match
// never reaches this arm, which is what makes `*)` mean "anything else".
//
// For an if branch, Text is the test's source and, when the test compares
// one variable with a static value, Var, Op and Value describe it:
// `[ "$DP_ATTENTION" = "true" ]` gives Var DP_ATTENTION, Op "=", Value
// "true". `!=` is normalized to Op "=" with Negated set, and so are -eq
// and -ne against a number; -n, -z, -v, -gt and the like keep their
// operator, as do (( X > 1 )) comparisons. An else branch (and the right side of `||`) carries the
// condition it is the negation of, with Negated flipped. An elif branch
// carries the negation of every earlier condition of the chain, then its
// own.
type Cond struct {
	Kind     CondKind
	Var      string
	Patterns []string
	Except   []string
	Op       string
	Value    string
	Negated  bool
	// Name is the function name of a CondFunc.
	Name string
	// Text is the source of the condition: the test command, the case
	// word, the loop header or the function name.
	Text string
	// Line is where the condition is written (the arm's pattern line for
	// a case arm).
	Line int

	// id identifies the syntactic construct (one case arm, one if test,
	// one loop) so that two facts under the very same branch always agree.
	id int
	// clause identifies the case statement of a CondCase, when its arms
	// are mutually exclusive (no ;& or ;;& terminators).
	clause int
	// elseOf marks the branch taken when Text is false (else, ||), for
	// rendering: Negated alone may come from a != test.
	elseOf bool
}

// Branch is the list of conditions a fact sits under, outermost first. An
// empty path is the unconditional top level.
type Branch []Cond

// String renders the path for messages and debugging, e.g.
// `case $KV_OFFLOAD_BACKEND in vllm-simple) / if [ "$DP_ATTENTION" = "true" ]`.
func (p Branch) String() string {
	if len(p) == 0 {
		return "top level"
	}
	parts := make([]string, len(p))
	for i, c := range p {
		parts[i] = c.String()
	}
	return strings.Join(parts, " / ")
}

// String renders one condition.
func (c Cond) String() string {
	switch c.Kind {
	case CondCase:
		return "case " + c.Text + " in " + strings.Join(c.Patterns, "|") + ")"
	case CondFunc:
		return c.Name + "()"
	case CondLoop:
		return c.Text
	}
	if c.elseOf {
		return "not " + c.Text
	}
	return "if " + c.Text
}

// Arm returns the values varName must match on this path: the patterns
// of the innermost case arm on varName, or the value of an equality test
// (`[ "$X" = v ]`) on it. ok is false when the path does not constrain
// the variable that way.
func (p Branch) Arm(varName string) (patterns []string, ok bool) {
	for i := len(p) - 1; i >= 0; i-- {
		c := p[i]
		if c.Var != varName {
			continue
		}
		switch {
		case c.Kind == CondCase:
			return c.Patterns, true
		case c.Kind == CondIf && c.Op == "=" && !c.Negated:
			return []string{c.Value}, true
		}
	}
	return nil, false
}

// InFunc returns the name of the innermost function the path is in.
func (p Branch) InFunc() (string, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Kind == CondFunc {
			return p[i].Name, true
		}
	}
	return "", false
}

// Unconditional reports whether the path is the top level.
func (p Branch) Unconditional() bool { return len(p) == 0 }

// Covers reports whether code at p runs whenever code at q runs, ignoring
// the order of statements: every condition of p also holds on q. The top
// level covers everything; a case arm covers itself, and covers a later
// case arm on the same variable whose patterns are a subset of its own;
// an arm never covers a different arm. A function body is covered only by
// the same function (Facts.Covers also follows call sites).
//
// This is the question "is the export on the path of the connector
// config": export.Branch.Covers(config.Branch).
func (p Branch) Covers(q Branch) bool {
	for _, a := range p {
		if !slices.ContainsFunc(q, func(b Cond) bool { return implies(b, a) }) {
			return false
		}
	}
	return true
}

// Excludes reports whether code at p and code at q can never both run in
// one execution: they sit in different arms of one case, in the then and
// else branches of one test, or under contradictory tests of the same
// variable.
func (p Branch) Excludes(q Branch) bool {
	for _, a := range p {
		for _, b := range q {
			if exclusive(a, b) {
				return true
			}
		}
	}
	return false
}

// Compatible reports whether code at p and code at q can run in one
// execution (the negation of Excludes).
func (p Branch) Compatible(q Branch) bool { return !p.Excludes(q) }

// merge returns the path of something written at inner and reached from
// outer: outer's conditions plus those of inner that outer lacks.
func merge(outer, inner Branch) Branch {
	if len(inner) == 0 {
		return outer
	}
	if len(outer) == 0 {
		return inner
	}
	out := slices.Clone(outer)
	for _, c := range inner {
		if !slices.ContainsFunc(out, func(o Cond) bool { return sameBranch(o, c) }) {
			out = append(out, c)
		}
	}
	return out
}

func sameBranch(a, b Cond) bool {
	return a.id != 0 && a.id == b.id && a.Negated == b.Negated && a.Kind == b.Kind
}

// implies reports whether b holding guarantees a holds.
func implies(b, a Cond) bool {
	if sameBranch(a, b) {
		return true
	}
	if siblingArms(a, b) {
		return false
	}
	switch a.Kind {
	case CondFunc:
		return b.Kind == CondFunc && a.Name == b.Name
	case CondLoop:
		return false
	}
	if b.Kind == CondFunc || b.Kind == CondLoop {
		return false
	}
	if a.Var != "" && a.Var == b.Var {
		pa, okA := a.pred()
		pb, okB := b.pred()
		if okA && okB {
			return pb.implies(pa)
		}
	}
	return a.Kind == CondIf && b.Kind == CondIf && a.Text != "" && a.Text == b.Text && a.Negated == b.Negated
}

// siblingArms reports whether a and b are different arms of one case
// statement whose arms exclude each other.
func siblingArms(a, b Cond) bool {
	return a.clause != 0 && a.clause == b.clause && a.id != b.id
}

func exclusive(a, b Cond) bool {
	if siblingArms(a, b) {
		return true
	}
	if a.id != 0 && a.id == b.id && a.Kind == b.Kind && a.Kind == CondIf {
		return a.Negated != b.Negated
	}
	if a.Var == "" || a.Var != b.Var {
		return a.Kind == CondIf && b.Kind == CondIf && a.Text != "" && a.Text == b.Text && a.Negated != b.Negated
	}
	pa, okA := a.pred()
	pb, okB := b.pred()
	if !okA || !okB {
		return false
	}
	return pa.disjoint(pb)
}

// pred is the set of values a condition admits for its variable: values
// matching a pattern of in (any value when any is set) and no pattern of
// notIn.
type pred struct {
	any   bool
	in    []string
	notIn []string
}

func (c Cond) pred() (pred, bool) {
	switch c.Kind {
	case CondCase:
		if slices.Contains(c.Patterns, "*") {
			return pred{any: true, notIn: c.Except}, true
		}
		return pred{in: c.Patterns, notIn: c.Except}, true
	case CondIf:
		var p pred
		switch c.Op {
		case "=":
			p = pred{in: []string{c.Value}}
		case "-z":
			p = pred{in: []string{""}}
		case "-n":
			p = pred{any: true, notIn: []string{""}}
		default:
			return pred{}, false
		}
		if c.Negated {
			if p.any {
				p = pred{in: p.notIn}
			} else if len(p.in) == 1 {
				p = pred{any: true, notIn: p.in}
			} else {
				return pred{}, false
			}
		}
		return p, true
	}
	return pred{}, false
}

func isGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// IsPattern reports whether a case pattern is a glob (*, ? or [...])
// rather than one literal value.
func IsPattern(s string) bool { return isGlob(s) }

// Else reports whether the condition is the branch taken when its test is
// false (an else branch, the right side of ||).
func (c Cond) Else() bool { return c.elseOf }

// Holds says whether the condition can hold when its variable has value v
// (a case arm matching v, a test such as [ "$X" = v ] or its negation);
// known is false when the condition does not constrain the variable that
// way.
func (c Cond) Holds(v string) (holds, known bool) {
	p, ok := c.pred()
	if !ok {
		return false, false
	}
	return p.holds(v), true
}

func globMatch(pattern, v string) bool {
	if !isGlob(pattern) {
		return pattern == v
	}
	ok, err := path.Match(pattern, v)
	if err != nil {
		return pattern == v
	}
	return ok
}

func matchAny(patterns []string, v string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return globMatch(p, v) })
}

func (p pred) holds(v string) bool {
	return (p.any || matchAny(p.in, v)) && !matchAny(p.notIn, v)
}

// finite returns the literal values p admits when they are finitely many.
func (p pred) finite() ([]string, bool) {
	if p.any || slices.ContainsFunc(p.in, isGlob) {
		return nil, false
	}
	return p.in, true
}

// implies reports whether every value p admits is admitted by a.
func (p pred) implies(a pred) bool {
	if lits, ok := p.finite(); ok {
		for _, v := range lits {
			if p.holds(v) && !a.holds(v) {
				return false
			}
		}
		return true
	}
	if !a.any && !slices.Contains(a.in, "*") {
		if p.any {
			return false
		}
		// p admits glob patterns: a must list each of them.
		for _, g := range p.in {
			if !slices.Contains(a.in, g) {
				return false
			}
		}
	}
	for _, x := range a.notIn {
		if isGlob(x) {
			if !slices.Contains(p.notIn, x) {
				return false
			}
			continue
		}
		if p.holds(x) {
			return false
		}
	}
	return true
}

func (p pred) disjoint(q pred) bool {
	if lits, ok := p.finite(); ok {
		for _, v := range lits {
			if p.holds(v) && q.holds(v) {
				return false
			}
		}
		return true
	}
	if lits, ok := q.finite(); ok {
		for _, v := range lits {
			if q.holds(v) && p.holds(v) {
				return false
			}
		}
		return true
	}
	return false
}
