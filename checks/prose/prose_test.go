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

// Code keeps every value one code span that nothing inside can end: the
// fence outgrows the value's backticks, padding keeps its ends, line
// breaks are shown, not kept, and the length is bounded.
func TestCode(t *testing.T) {
	long := strings.Repeat("k", MaxName+10)
	for _, tc := range []struct{ in, want string }{
		{"x", "`x`"},
		{"dsv4-fp4-b300-vllm", "`dsv4-fp4-b300-vllm`"},
		{"", Empty},
		{"a`b", "`` a`b ``"},
		{"a``b", "``` a``b ```"},
		{"```", "```` ``` ````"},
		{"`lead", "`` `lead ``"},
		{"trail`", "`` trail` ``"},
		{" both ", "`  both  `"},
		{" lead", "` lead`"},
		{"   ", "`   `"},
		{"a\nb", "`a⏎b`"},
		{"a\n\nb", "`a⏎⏎b`"},
		{"a\r\nb\rc", "`a⏎b⏎c`"},
		{"a\u2028b\u2029c\u0085d\ve\ff", "`a⏎b⏎c⏎d⏎e⏎f`"},
		{"nul\x00", "`nul\uFFFD`"},
		{"@evil-user", "`@evil-user`"},
		{"[x](http://evil.example)", "`[x](http://evil.example)`"},
		{"<img src=x onerror=alert(1)>", "`<img src=x onerror=alert(1)>`"},
		{long, "`" + strings.Repeat("k", MaxName-1) + "…`"},
		{strings.Repeat("k", MaxName), "`" + strings.Repeat("k", MaxName) + "`"},
		// The cut happens before the fence is chosen: a backtick run cut
		// away does not lengthen it.
		{strings.Repeat("k", MaxName-1) + "```", "`" + strings.Repeat("k", MaxName-1) + "…`"},
		{strings.Repeat("k", MaxName-2) + "`xy", "`` " + strings.Repeat("k", MaxName-2) + "`… ``"},
	} {
		if got := Code(tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := CodeLine(strings.Repeat("l", MaxLine+1)); got != "`"+strings.Repeat("l", MaxLine-1)+"…`" {
		t.Errorf("CodeLine bound: %q", got)
	}
	if got, want := CodeMax("abc", 0), "`…`"; got != want {
		t.Errorf("CodeMax(abc, 0) = %q, want %q", got, want)
	}
	if got := CodeAt("a`b.sh", 3) + CodeAt("c.sh", 0); got != "`` a`b.sh:3 ```c.sh`" {
		t.Errorf("CodeAt = %q", got)
	}
	if got := CodeText("ab\ncd", 3); got != "ab…" {
		t.Errorf("CodeText = %q", got)
	}
}

func TestCodeBlock(t *testing.T) {
	for _, tc := range []struct{ info, in, want string }{
		{"suggestion", "set -euo pipefail", "```suggestion\nset -euo pipefail\n```"},
		{"", "echo ```", "````\necho ```\n````"},
		{"suggestion", "a\n`````\nb", "``````suggestion\na\n`````\nb\n``````"},
		{"yaml", "", "```yaml\n\n```"},
	} {
		if got := CodeBlock(tc.info, tc.in); got != tc.want {
			t.Errorf("CodeBlock(%q, %q) = %q, want %q", tc.info, tc.in, got, tc.want)
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
