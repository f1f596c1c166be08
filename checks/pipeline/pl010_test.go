package pipeline

import (
	"context"
	"maps"
	"strings"
	"testing"
)

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

// TestPL010Concurrencies: a row's later concurrencies are evaluated when
// the PR changed the row, its script or its launcher, and only its first
// (which the model evaluates anyway) when the PR reaches it through a file
// every row reads.
func TestPL010Concurrencies(t *testing.T) {
	const script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_sglang.sh"
	base := fixtureFiles(t)
	src, ok := base[script]
	if !ok || !strings.Contains(src, "python3 -m sglang.launch_server") {
		t.Fatalf("fixture tree lacks %s", script)
	}
	// 128, the second concurrency of the DP-attention row, falls to the
	// failing arm.
	base[script] = strings.Replace(src, "python3 -m sglang.launch_server",
		"case \"$CONC\" in\n    4|8|16|32|64) GRAPH_BS=64 ;;\n    *) echo \"Unsupported CONC=$CONC\" >&2; exit 2 ;;\nesac\n\npython3 -m sglang.launch_server", 1)
	const cfg = "configs/nvidia-master.yaml"
	for _, c := range []struct {
		name string
		edit func(f map[string]string)
		wide bool
	}{
		{"a workflow template", func(f map[string]string) { f[TemplatePaths[SingleNode]] += "# note\n" }, false},
		{"the script", func(f map[string]string) { f[script] += "# tuned\n" }, true},
		{"the row", func(f map[string]string) {
			f[cfg] = strings.Replace(f[cfg], "conc-list: [64, 128] }", "conc-list: [64, 128, 256] }", 1)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			head := maps.Clone(base)
			c.edit(head)
			if maps.Equal(head, base) {
				t.Fatal("the edit changed nothing")
			}
			ch := configuredChange(t, base, head)
			a, err := Load(context.Background(), ch)
			if err != nil {
				t.Fatal(err)
			}
			m, err := a.Head()
			if err != nil {
				t.Fatal(err)
			}
			var row *Row
			for _, r := range m.Key("dsr1-fp4-b200-sglang") {
				if len(r.Concs) > 1 && r.Concs[0] == 64 {
					row = r
				}
			}
			if row == nil {
				t.Fatal("no DP-attention row of dsr1-fp4-b200-sglang")
			}
			changed, _ := a.ChangedRows()
			wide := everyConc(ch, a, changed)
			l := m.Resolve(row).Groups[0]
			if got := wide(row, l, script); got != c.wide {
				t.Fatalf("every concurrency evaluated: %v, want %v", got, c.wide)
			}
			budget := maxFailureEvals
			xs := failures(m, row, &budget, wide)
			evals := maxFailureEvals - budget
			if c.wide {
				// Every concurrency above 64 fails.
				if len(xs) != len(row.Concs)-1 || xs[0].conc != "128" || evals != len(row.Concs) {
					t.Errorf("%d failures (first %+v) after %d evaluations, want CONC=128 and up after %d", len(xs), xs, evals, len(row.Concs))
				}
			} else if len(xs) != 0 || evals != 1 {
				t.Errorf("failures %+v after %d evaluations, want none after the first", xs, evals)
			}
		})
	}
}
