package pipeline

import "reflect"

// scope is a state's variables: a shared base that is never written once
// shared, and the state's own changes on top. Forking a path copies only
// the changes, which keeps following many paths of a long launcher cheap.
type scope struct {
	base map[string]Value
	over map[string]slot
}

// slot is a change: a value, or a variable deleted from the base.
type slot struct {
	v    Value
	gone bool
}

// flattenAt is how many changes a scope keeps before folding them into a
// new base.
const flattenAt = 48

func newScope(env Env) scope {
	base := make(map[string]Value, len(env))
	for k, v := range env {
		base[k] = v
	}
	return scope{base: base}
}

func (s *scope) get(name string) (Value, bool) {
	if sl, ok := s.over[name]; ok {
		return sl.v, !sl.gone
	}
	v, ok := s.base[name]
	return v, ok
}

func (s *scope) set(name string, v Value) {
	if s.over == nil {
		s.over = map[string]slot{}
	}
	s.over[name] = slot{v: v}
	if len(s.over) > flattenAt {
		s.flatten()
	}
}

func (s *scope) del(name string) {
	if _, ok := s.base[name]; !ok {
		delete(s.over, name)
		return
	}
	if s.over == nil {
		s.over = map[string]slot{}
	}
	s.over[name] = slot{gone: true}
}

// flatten folds the changes into a new base, leaving the old base (which
// other states may share) untouched.
func (s *scope) flatten() {
	base := make(map[string]Value, len(s.base)+len(s.over))
	for k, v := range s.base {
		base[k] = v
	}
	for k, sl := range s.over {
		if sl.gone {
			delete(base, k)
		} else {
			base[k] = sl.v
		}
	}
	s.base, s.over = base, nil
}

// clone copies the changes; the base stays shared.
func (s scope) clone() scope {
	if len(s.over) == 0 {
		return scope{base: s.base}
	}
	over := make(map[string]slot, len(s.over)+4)
	for k, v := range s.over {
		over[k] = v
	}
	return scope{base: s.base, over: over}
}

// each calls fn for every variable.
func (s *scope) each(fn func(name string, v Value)) {
	for k, v := range s.base {
		if _, changed := s.over[k]; !changed {
			fn(k, v)
		}
	}
	for k, sl := range s.over {
		if !sl.gone {
			fn(k, sl.v)
		}
	}
}

// env returns the variables as a map of their own.
func (s *scope) env() Env {
	out := make(Env, len(s.base)+len(s.over))
	s.each(func(k string, v Value) { out[k] = v })
	return out
}

// equal reports whether two scopes hold the same values.
func (s *scope) equal(o *scope) bool {
	if sameMap(s.base, o.base) {
		// Only the changes can differ.
		for k, sl := range s.over {
			v, ok := o.get(k)
			if ok == sl.gone || ok && !equalValue(v, sl.v) {
				return false
			}
		}
		for k, sl := range o.over {
			v, ok := s.get(k)
			if ok == sl.gone || ok && !equalValue(v, sl.v) {
				return false
			}
		}
		return true
	}
	n, same := 0, true
	s.each(func(k string, v Value) {
		n++
		if same {
			w, ok := o.get(k)
			same = ok && equalValue(v, w)
		}
	})
	if !same {
		return false
	}
	m := 0
	o.each(func(string, Value) { m++ })
	return n == m
}

// sameMap reports whether two maps are the same map (not merely equal).
func sameMap(a, b map[string]Value) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
