package sheval

import (
	"fmt"
	"sort"
	"strings"
)

// Value is what is known of a shell variable at some point of a script.
type Value struct {
	Str    string
	List   []string
	IsList bool
	// Set is false for a variable known to be unset.
	Set bool
	// Known is false when the value cannot be known statically (a
	// command's output, a runner machine's setting).
	Known    bool
	Exported bool
	// At is where the value was assigned (zero for the job's own env).
	At Loc

	// deps are the inputs the value was computed from: variables of the
	// env the evaluation started with, or forms of them (see depKey).
	deps []string
	// input is set for a value of that env, not reassigned since.
	input bool
	// partial is set for an array some of whose elements are unknown:
	// List holds the known ones and hole in place of the others.
	partial bool
	// maybeUnset is set for a variable that may be unset or set to any
	// value (see MaybeUnset).
	maybeUnset bool
}

// Input reports whether the value is the evaluation's starting env's,
// not reassigned since.
func (v Value) Input() bool { return v.input }

// AsInput is the value as an input of a new evaluation's env.
func (v Value) AsInput() Value { v.input = true; return v }

// Deps are the inputs the value was computed from (see depKey).
func (v Value) Deps() []string { return v.deps }

// hole stands for an unknown element in a partial array's List.
const hole = "\x00?\x00"

// Loc is a line of a file of the tree.
type Loc struct {
	File string
	Line int
}

func (l Loc) String() string {
	if l.Line <= 0 {
		return l.File
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// Str returns an exported variable with a known string value.
func Str(s string) Value { return Value{Str: s, Set: true, Known: true, Exported: true} }

// Opaque returns an exported variable that is set to a value the bot
// cannot know (a secret, a runner machine's setting).
func Opaque() Value { return Value{Set: true, Exported: true} }

// MaybeUnset returns a variable of an env that stands for many jobs'
// envs (Bound.OpenExpander) which some of them set, to any value, and
// others leave unset. Only readings take it; an evaluation's env never
// holds one.
func MaybeUnset() Value { return Value{Set: true, Exported: true, maybeUnset: true} }

// Env is a set of variables by name.
type Env map[string]Value

// EnvLookup gives an env's variables by name.
type EnvLookup func(name string) (Value, bool)

// Lookup is the env's variable name.
func (e Env) Lookup(name string) (Value, bool) {
	v, ok := e[name]
	return v, ok
}

// Clone copies the env (values are immutable).
func (e Env) Clone() Env {
	out := make(Env, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

// Get returns the known string value of name ("" and false when unset or
// unknown).
func (e Env) Get(name string) (string, bool) {
	v, ok := e[name]
	if !ok || !v.Set {
		return "", true
	}
	if !v.Known {
		return "", false
	}
	if v.IsList {
		return strings.Join(v.List, " "), true
	}
	return v.Str, true
}

// Provides reports whether name is set (to a known or an unknown value).
func (e Env) Provides(name string) bool {
	v, ok := e[name]
	return ok && v.Set
}

// Names returns the set variables in lexical order.
func (e Env) Names() []string {
	out := make([]string, 0, len(e))
	for k, v := range e {
		if v.Set {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// equalValue compares what two values say (not where they were set).
func equalValue(a, b Value) bool {
	if a.Set != b.Set || a.Known != b.Known || a.Exported != b.Exported || a.IsList != b.IsList || a.Str != b.Str {
		return false
	}
	if len(a.List) != len(b.List) {
		return false
	}
	for i := range a.List {
		if a.List[i] != b.List[i] {
			return false
		}
	}
	return true
}

// sameValue reports whether two values are the same in every field,
// their lists the same slices: setting one in place of the other changes
// nothing.
func sameValue(a, b Value) bool {
	return a.Str == b.Str && a.IsList == b.IsList && a.Set == b.Set && a.Known == b.Known && a.Exported == b.Exported &&
		a.At == b.At && a.input == b.input && a.partial == b.partial && a.maybeUnset == b.maybeUnset && sameSlice(a.List, b.List) && sameSlice(a.deps, b.deps)
}

func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// joinValue is the value a variable has after paths that set it to a and
// b meet: itself when they agree, unknown otherwise.
func joinValue(a, b Value) Value {
	if equalValue(a, b) {
		return a
	}
	return Value{Set: a.Set || b.Set, Exported: a.Exported || b.Exported, At: a.At}
}
