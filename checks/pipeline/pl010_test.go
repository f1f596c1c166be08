package pipeline

import "testing"

// TestFailing finds the path a run surely takes to a failing exit: the
// path the env decided, or any path when every path fails.
func TestFailing(t *testing.T) {
	fail := &Exit{At: Loc{File: "s.sh", Line: 9}, Code: "2"}
	tests := []struct {
		name  string
		paths []Path
		want  bool
	}{
		{"the decided path fails", []Path{{Certain: true, Exit: fail}}, true},
		{"the decided path succeeds", []Path{{Certain: true}}, false},
		{"the decided path hands over first", []Path{{Certain: true, Exit: fail, Runs: []Run{{Path: "x.sh"}}}}, false},
		{"an undecided test, one way fails", []Path{{Exit: fail}, {}}, false},
		{"an undecided test, both ways fail", []Path{{Exit: fail}, {Exit: fail}}, true},
		{"the decided path wins over the others", []Path{{Exit: fail}, {Certain: true}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := failing(&Result{Paths: tc.paths})
			if ok != tc.want || ok && p.Exit == nil {
				t.Errorf("failing = %v (%+v), want %v", ok, p, tc.want)
			}
		})
	}
}
