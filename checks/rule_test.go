package checks

import (
	"strings"
	"testing"
)

// Rules that read others' findings run after them whatever the order of
// the list; a cycle is an error.
func TestRegistryOrder(t *testing.T) {
	mk := func(id string, after ...string) *Rule {
		return &Rule{ID: id, Title: id, Doc: id, Severity: Warning, Run: func(*Pass) error { return nil }, After: after}
	}
	reg, err := NewRegistry(mk("RB003", "*"), mk("CV001", "SH002", "SH999"), mk("SH002"), mk("CL001"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reg.Rules() {
		got = append(got, r.ID)
	}
	if strings.Join(got, " ") != "SH002 CV001 CL001 RB003" {
		t.Errorf("run order %v", got)
	}
	if _, err := NewRegistry(mk("A", "B"), mk("B", "A")); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
}
