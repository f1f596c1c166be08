package masterconfig

import (
	"fmt"
	"strings"
	"testing"
)

// TestMC009Bounded: a key of thousands of identical rows with long
// concurrency lists costs what its points up to maxPoints cost (the rest
// of the key is not compared), and each repeating row is reported once.
func TestMC009Bounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Replace(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n", "", 1))
	b.WriteString("\ndsr1-fp8-b200-sglang:\n  image: lmsysorg/sglang:v0.5.16-cu130\n  model: deepseek-ai/DeepSeek-R1-0528\n" +
		"  model-prefix: dsr1\n  runner: b200\n  precision: fp8\n  framework: sglang\n  multinode: false\n  scenarios:\n" +
		"    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n")
	concs := make([]string, 200)
	for i := range concs {
		concs[i] = fmt.Sprint(i + 1)
	}
	row := "      - { tp: 8, ep: 1, conc-list: [" + strings.Join(concs, ", ") + "] }\n"
	const rows = 2000
	for range rows {
		b.WriteString(row)
	}
	md := modelsMD(t)
	base := map[string]string{"configs/nvidia-master.yaml": baseNV, "configs/amd-master.yaml": baseAMD, "MODELS.md": md}
	head := map[string]string{"configs/nvidia-master.yaml": b.String(), "configs/amd-master.yaml": baseAMD, "MODELS.md": md}
	res := reviewTrees(t, base, head, "", nil)
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "MC009" {
			n++
		}
	}
	// Rows 2..maxPointRows repeat row 1, until the points' bound stops
	// the key: 2000 rows of 200 points are 400,000.
	if want := maxPoints/len(concs) - 1; n != want {
		t.Errorf("%d MC009 findings, want %d (one per repeating row within the bounds)", n, want)
	}
}
