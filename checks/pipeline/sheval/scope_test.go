package sheval

import (
	"fmt"
	"maps"
	"math/rand"
	"testing"
)

// TestScopeAgainstMaps drives scopes and their clones with random sets,
// deletes and clones and checks each against a plain map: clones must
// never see each other's changes, whatever they share.
func TestScopeAgainstMaps(t *testing.T) {
	names := make([]string, 80)
	for i := range names {
		names[i] = fmt.Sprintf("V%d", i)
	}
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		init := Env{}
		for _, n := range names[:30] {
			init[n] = Str("base-" + n)
		}
		scopes := []scope{newScope(init)}
		models := []map[string]Value{maps.Clone(map[string]Value(init))}
		for step := 0; step < 1500; step++ {
			i := rng.Intn(len(scopes))
			n := names[rng.Intn(len(names))]
			switch op := rng.Intn(10); {
			case op < 5:
				v := Str(fmt.Sprint(seed, step))
				scopes[i].set(n, v)
				models[i][n] = v
			case op < 7:
				scopes[i].del(n)
				delete(models[i], n)
			case op < 8 && len(scopes) < 12:
				scopes = append(scopes, scopes[i].clone())
				models = append(models, maps.Clone(models[i]))
			case op < 9:
				_ = scopes[i].env()
			default:
				j := rng.Intn(len(scopes))
				if got, want := scopes[i].equal(&scopes[j]), maps.EqualFunc(models[i], models[j], equalValue); got != want {
					t.Fatalf("seed %d step %d: equal(%d, %d) = %v, want %v", seed, step, i, j, got, want)
				}
			}
			checkScope(t, fmt.Sprintf("seed %d step %d scope %d", seed, step, i), &scopes[i], models[i], names)
			if step%25 == 0 {
				for k := range scopes {
					checkScope(t, fmt.Sprintf("seed %d step %d scope %d", seed, step, k), &scopes[k], models[k], names)
				}
			}
		}
	}
}

func checkScope(t *testing.T, at string, s *scope, model map[string]Value, names []string) {
	t.Helper()
	for _, n := range names {
		v, ok := s.get(n)
		w, wok := model[n]
		if ok != wok || ok && !sameValue(v, w) {
			t.Fatalf("%s: get(%s) = %v %v, want %v %v", at, n, v, ok, w, wok)
		}
	}
	seen := map[string]bool{}
	s.each(func(k string, v Value) {
		if seen[k] {
			t.Fatalf("%s: each gives %s twice", at, k)
		}
		seen[k] = true
		if w, ok := model[k]; !ok || !sameValue(v, w) {
			t.Fatalf("%s: each gives %s = %v, want %v %v", at, k, v, w, ok)
		}
	})
	if len(seen) != len(model) {
		t.Fatalf("%s: each gives %d variables, want %d", at, len(seen), len(model))
	}
	env := s.env()
	if len(env) != len(model) {
		t.Fatalf("%s: env has %d variables, want %d", at, len(env), len(model))
	}
	for k, w := range model {
		if v, ok := env[k]; !ok || !sameValue(v, w) {
			t.Fatalf("%s: env[%s] = %v, want %v", at, k, v, w)
		}
	}
}
