package pipeline

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// TestPL011 compares a multi-node row's concurrencies with its recipe's:
// the declared points the recipe never runs are 🔴, the points it runs
// beyond them 🟡, a recipe that runs the row's list (in any order or
// spelling) is silent, and so is a difference the base already had.
func TestPL011(t *testing.T) {
	const (
		cfg    = "configs/nvidia-master.yaml"
		recipe = "benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/p1-dep4-d2-tep8.yaml"
		row    = "conc-list: [64, 256, 512]"
		concs  = `concurrencies: "64x256x512"`
	)
	base := fixtureFiles(t)
	if !strings.Contains(base[cfg], row) || !strings.Contains(base[recipe], concs) {
		t.Fatal("fixture tree lacks the GB200 disagg row or its recipe")
	}
	setRow := func(v string) func(map[string]string) {
		return func(f map[string]string) { f[cfg] = strings.Replace(f[cfg], row, "conc-list: "+v, 1) }
	}
	setRecipe := func(v string) func(map[string]string) {
		return func(f map[string]string) { f[recipe] = strings.Replace(f[recipe], concs, "concurrencies: "+v, 1) }
	}
	tests := []struct {
		name      string
		base      func(map[string]string) // nil: the fixture tree
		head      func(map[string]string)
		want      string // "rule severity path" of the one finding, "" none
		wantTitle string
	}{
		{"the row adds a point the recipe does not run", nil, setRow("[64, 128, 256, 512]"),
			"PL011 blocking " + cfg, "declares conc 128, its recipe never runs it"},
		{"the recipe drops two of the row's points", nil, setRecipe(`"64"`),
			"PL011 blocking " + recipe, "declares conc 256 and 512, its recipe never runs them"},
		{"the recipe runs one point more", nil, setRecipe(`"32x64x256x512"`),
			"PL011 warning " + recipe, "also runs conc 32"},
		{"the recipe lists the row's points", nil, setRecipe("[512, 64, 256]"), "", ""},
		{"the row lists the recipe's points in another order", nil, setRow("[512, 256, 64]"), "", ""},
		{"the difference was there before", setRecipe(`"64"`), func(f map[string]string) {
			setRecipe(`"64"`)(f)
			f[recipe] += "# tuned\n"
		}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := maps.Clone(base)
			if tc.base != nil {
				tc.base(b)
			}
			h := maps.Clone(base)
			tc.head(h)
			if maps.Equal(b, h) {
				t.Fatal("the edit changed nothing")
			}
			res := checktest.Review(t, configuredChange(t, b, h), pl011)
			var got []string
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.Path))
				if tc.wantTitle != "" && !strings.Contains(f.Title, tc.wantTitle) {
					t.Errorf("title %q, want it to say %q", f.Title, tc.wantTitle)
				}
			}
			want := []string{}
			if tc.want != "" {
				want = []string{tc.want}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings %q, want %q", got, want)
			}
		})
	}
}
