package prose

import (
	"strings"
	"testing"
)

func TestProse(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a|b": "a and b", "a|b|c": "a, b and c"} {
		var items []string
		if in != "" {
			items = append(items, splitBar(in)...)
		}
		if got := JoinAnd(items); got != want {
			t.Errorf("JoinAnd(%q) = %q", items, got)
		}
		if got, want := JoinOr(items), strings.ReplaceAll(want, " and ", " or "); got != want {
			t.Errorf("JoinOr(%q) = %q, want %q", items, got, want)
		}
	}
	if Count(1, "sibling", "siblings") != "1 sibling" || Count(3, "sibling", "siblings") != "3 siblings" || Pick(2, "runs", "run") != "run" {
		t.Error("Count/Pick")
	}
	if Code("a`b") != "`` a`b ``" || Code("x") != "`x`" {
		t.Error("Code")
	}
	for _, tc := range []struct {
		a, b string
		max  int
		want int
	}{
		{"lazy_offload", "lazy_ofload", -1, 1}, {"kitten", "sitting", -1, 3}, {"kitten", "sitting", 1, 2},
		{"", "abc", -1, 3}, {"same", "same", 0, 0},
	} {
		if got := EditDistance(tc.a, tc.b, tc.max); got != tc.want {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.max, got, tc.want)
		}
	}
}

func splitBar(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '|' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
