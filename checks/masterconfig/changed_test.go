package masterconfig

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

func TestChangedKeys(t *testing.T) {
	const cfg = `dsr1-fp8-h200-sglang:
  image: lmsysorg/sglang:v0.5.5
  model-prefix: dsr1
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - {tp: 8, conc-list: [4, 8]}
      - {tp: 4, conc-list: [4]}

    agentic-coding:
    - search-space:
      - {tp: 8, conc-list: [1]}

dsr1-fp8-b200-sglang:
  image: lmsysorg/sglang:v0.5.5
  model-prefix: dsr1
`
	type want struct {
		key                     string
		new, header, blocks     bool
		rows, removed, removed2 int
	}
	for _, tc := range []struct {
		name string
		head string
		want []want
	}{
		{"comments and reordered rows change nothing",
			strings.Replace(strings.Replace(cfg, "      - {tp: 8, conc-list: [4, 8]}\n", "", 1), "      - {tp: 4, conc-list: [4]}\n", "      - {tp: 4, conc-list: [4]}  # smaller\n      - {conc-list: [4, 8], tp: 8}\n", 1), nil},
		{"the key's last scenario block dropped, a blank line before the next key", strings.Replace(cfg, "\n    agentic-coding:\n    - search-space:\n      - {tp: 8, conc-list: [1]}\n", "\n", 1),
			[]want{{key: "dsr1-fp8-h200-sglang", removed: 1, removed2: 1}}},
		{"the last key's last field dropped", strings.TrimSuffix(cfg, "  model-prefix: dsr1\n"),
			[]want{{key: "dsr1-fp8-b200-sglang", header: true}}},
		{"a dropped row", strings.Replace(cfg, "      - {tp: 4, conc-list: [4]}\n", "", 1),
			[]want{{key: "dsr1-fp8-h200-sglang", removed: 1}}},
		{"a dropped first row", strings.Replace(cfg, "      - {tp: 8, conc-list: [4, 8]}\n", "", 1),
			[]want{{key: "dsr1-fp8-h200-sglang", removed: 1}}},
		{"a rewritten row", strings.Replace(cfg, "{tp: 4, conc-list: [4]}", "{tp: 4, conc-list: [4, 16]}", 1),
			[]want{{key: "dsr1-fp8-h200-sglang", rows: 1, removed: 1}}},
		{"a block setting", strings.Replace(cfg, "osl: 1024", "osl: 8192", 1),
			[]want{{key: "dsr1-fp8-h200-sglang", blocks: true, rows: 2, removed: 2, removed2: 1}}},
		{"a dropped row and a reformatted neighbour", strings.TrimSuffix(strings.Replace(cfg, "      - {tp: 4, conc-list: [4]}\n", "", 1), "image: lmsysorg/sglang:v0.5.5\n  model-prefix: dsr1\n") + "image: 'lmsysorg/sglang:v0.5.5'\n  model-prefix: dsr1\n",
			[]want{{key: "dsr1-fp8-h200-sglang", removed: 1}}},
		{"a header setting", strings.Replace(cfg, "v0.5.5", "v0.5.6", 1),
			[]want{{key: "dsr1-fp8-h200-sglang", header: true}}},
		{"a new key", cfg + "dsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.5\n",
			[]want{{key: "dsr1-fp4-b200-sglang", new: true, header: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := checks.NewMemTree(map[string]string{nv: cfg})
			head := checks.NewMemTree(map[string]string{nv: tc.head})
			ch := checktest.Change(t, base, head)
			cfg, err := checks.LoadConfig(context.Background(), base)
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.ResolveLayout(context.Background(), base, head); err != nil {
				t.Fatal(err)
			}
			ch.Config = cfg
			keys, err := ChangedKeys(context.Background(), ch)
			if err != nil {
				t.Fatal(err)
			}
			var got []want
			for _, k := range keys {
				if !k.Changed() {
					t.Errorf("%s: listed but not Changed()", k.Key.Name)
				}
				got = append(got, want{key: k.Key.Name, new: k.New, header: k.HeaderChanged, blocks: k.BlocksChanged,
					rows: len(k.Rows), removed: k.RemovedRows, removed2: k.RemovedBlocks})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("got %+v, want %+v", got[i], tc.want[i])
				}
			}
		})
	}
}
