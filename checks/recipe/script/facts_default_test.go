package script

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestDefaultVar(t *testing.T) {
	tests := []struct{ word, want string }{
		{`${SPEC:-$DEFAULT}`, "DEFAULT"},
		{`"${SPEC:-$DEFAULT}"`, "DEFAULT"},
		{`${SPEC-$DEFAULT}`, "DEFAULT"},
		{`${SPEC:-"$DEFAULT"}`, "DEFAULT"},
		{`${SPEC:-${DEFAULT}}`, "DEFAULT"},
		{`${SPEC:=$DEFAULT}`, ""},
		{`${SPEC:-x$DEFAULT}`, ""},
		{`${SPEC:-${DEFAULT:-y}}`, ""},
		{`${SPEC:-${#DEFAULT}}`, ""},
		{`${SPEC:-$DEFAULT}x`, ""},
		{`$DEFAULT`, ""},
	}
	for _, tc := range tests {
		f, err := syntax.NewParser().Parse(strings.NewReader("V="+tc.word+"\n"), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.word, err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Assigns[0].Value
		if got := defaultVar(w); got != tc.want {
			t.Errorf("defaultVar(%s) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// A flag's JSON is found through a variable whose value is the caller's
// override or, by default, another variable's JSON; a default that loops
// back or runs deeper than the bound finds none.
func TestFlagJSONThroughDefault(t *testing.T) {
	const spec = `{"method": "mtp", "num_speculative_tokens": 3}`
	tests := []struct {
		name, script string
		want         bool
	}{
		{"one default", "D='" + spec + "'\nS=\"${S:-$D}\"\nvllm serve m --speculative-config \"$S\"\n", true},
		{"heredoc default", "D=$(cat <<'EOF'\n" + spec + "\nEOF\n)\nexport S=\"${S:-$D}\"\nvllm serve m --speculative-config \"$S\"\n", true},
		{"two defaults", "D='" + spec + "'\nE=\"${E:-$D}\"\nS=\"${S:-$E}\"\nvllm serve m --speculative-config \"$S\"\n", true},
		{"a loop", "A=\"${A:-$B}\"\nB=\"${B:-$A}\"\nvllm serve m --speculative-config \"$A\"\n", false},
		{"too deep", "D='" + spec + "'\nC=\"${C:-$D}\"\nB=\"${B:-$C}\"\nA=\"${A:-$B}\"\nS=\"${S:-$A}\"\nvllm serve m --speculative-config \"$S\"\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("benchmarks/single_node/x_fp8_b200_vllm.sh", []byte("#!/usr/bin/env bash\n"+tc.script))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, srv := range f.Servers {
				for _, fl := range srv.FlagsNamed("--speculative-config") {
					if fl.JSON != nil && fl.JSON.Has("num_speculative_tokens") {
						found = true
					}
				}
			}
			if found != tc.want {
				t.Errorf("JSON found: %v, want %v", found, tc.want)
			}
		})
	}
}
