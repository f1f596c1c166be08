package sheval

import "reflect"

// scope is a state's variables: a shared base that is never written once
// shared, and the state's own changes on top. Forking a path shares the
// changes too, until one side changes something (most forks of a
// launcher's tests change nothing on one side or both), which keeps
// following many paths of a long launcher cheap.
type scope struct {
	base map[string]Value
	over map[string]*slot
	// shared is set when over may be seen by another scope (a clone, or
	// the scope a clone was made from): the first change copies it.
	shared bool
	// flat is the variables as one map (env), kept until the next change
	// and shared with clones: a launcher hands the same env to several
	// commands, and a fork to both of its sides. Nobody writes it.
	flat Env
}

// slot is a change: a value, or a variable deleted from the base. A
// slot is never written once made: copying the changes (own) copies
// pointers, not values.
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

// own makes the changes the scope's own to write.
func (s *scope) own() {
	switch {
	case s.over == nil:
		s.over = map[string]*slot{}
	case s.shared:
		over := make(map[string]*slot, len(s.over)+4)
		for k, v := range s.over {
			over[k] = v
		}
		s.over = over
	}
	s.shared, s.flat = false, nil
}

func (s *scope) set(name string, v Value) {
	s.own()
	s.over[name] = &slot{v: v}
	if len(s.over) > flattenAt {
		s.flatten()
	}
}

func (s *scope) del(name string) {
	if _, ok := s.base[name]; !ok {
		if _, ok := s.over[name]; ok {
			s.own()
			delete(s.over, name)
		}
		return
	}
	s.own()
	s.over[name] = &slot{gone: true}
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
	s.base, s.over, s.shared, s.flat = base, nil, false, nil
}

// clone shares the base and the changes: both scopes copy the changes
// before they next write them.
func (s *scope) clone() scope {
	if len(s.over) == 0 {
		return scope{base: s.base, flat: s.flat}
	}
	s.shared = true
	return scope{base: s.base, over: s.over, shared: true, flat: s.flat}
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

// env returns the variables as one map, which the caller must not write:
// the scope and its clones hand it out until they change.
func (s *scope) env() Env {
	if s.flat == nil && len(s.over) == 0 {
		s.flat = s.base // never written once made (see flatten)
	}
	if s.flat == nil {
		out := make(Env, len(s.base)+len(s.over))
		s.each(func(k string, v Value) { out[k] = v })
		s.flat = out
	}
	return s.flat
}

// equal reports whether two scopes hold the same values.
func (s *scope) equal(o *scope) bool {
	if sameMap(s.base, o.base) {
		if sameSlots(s.over, o.over) {
			return true
		}
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

// sameEnv reports whether two envs are the same map.
func sameEnv(a, b Env) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// sameSlots reports whether two change sets are the same map, or both
// empty.
func sameSlots(a, b map[string]*slot) bool {
	return len(a) == 0 && len(b) == 0 || reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
