package checks

import (
	"strings"
	"testing"
)

func TestParseConfigConventions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
		wantErr   string
	}{
		{name: "absent", src: "rules:\n  SH009: off\n"},
		{name: "confirmed ids", src: "conventions:\n  confirmed:\n    - \"vllm: --tool-call-parser => --enable-auto-tool-choice\"\n    - \"--hicache-size ⇒ --enable-hierarchical-cache\"\n",
			want: []string{"vllm: --tool-call-parser => --enable-auto-tool-choice", "--hicache-size ⇒ --enable-hierarchical-cache"}},
		{name: "flow form", src: "conventions: {confirmed: [\"sglang: --speculative-algorithm => --speculative-num-steps\"]}\n",
			want: []string{"sglang: --speculative-algorithm => --speculative-num-steps"}},
		{name: "not an implication", src: "conventions:\n  confirmed: [\"--tool-call-parser\"]\n", wantErr: "is not a belief ID"},
		{name: "empty side", src: "conventions:\n  confirmed: [\"vllm: => x\"]\n", wantErr: "is not a belief ID"},
		{name: "unknown key", src: "conventions:\n  confirm: [\"a => b\"]\n", wantErr: "confirm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(c.Conventions.Confirmed, "|") != strings.Join(tc.want, "|") {
				t.Errorf("confirmed %q, want %q", c.Conventions.Confirmed, tc.want)
			}
		})
	}
}
