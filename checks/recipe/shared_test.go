package recipe

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// The facts fix this file's rules depend on: a key with dots in it
// ("lmcache.mp.port") is a direct child of its object.
func TestChildrenKeepsDottedKeys(t *testing.T) {
	f := mustFacts(t, `X='{"a":{"lmcache.mp.port":1,"b":{"c":2},"d":[1,2],"e.f":{"g":3}},"z":0}'
vllm serve m --kv-transfer-config "$X"
`)
	if len(f.JSON) != 1 {
		t.Fatalf("want one JSON config, got %d", len(f.JSON))
	}
	var got []string
	for _, e := range f.JSON[0].Children("a") {
		got = append(got, e.Key)
	}
	want := []string{"a.lmcache.mp.port", "a.b", "a.d", "a.e.f"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Children(a) (-want +got):\n%s", diff)
	}
	got = nil
	for _, e := range f.JSON[0].Children("a.e.f") {
		got = append(got, e.Key)
	}
	if diff := cmp.Diff([]string{"a.e.f.g"}, got); diff != "" {
		t.Errorf("Children(a.e.f) (-want +got):\n%s", diff)
	}
}

func TestJSONMember(t *testing.T) {
	tests := []struct {
		line, q, key string
		want         string
		ok           bool
	}{
		{`X='{"kv_connector":"A","kv_role":"kv_both"}'`, `"`, "kv_connector", `"A"`, true},
		{`X="{\"kv_connector\":\"A\"}"`, `\"`, "kv_connector", `\"A\"`, true},
		{`{"kv_connector": "A", "x": 1}`, `"`, "kv_connector", `"A"`, true},
		{`{"lazy_offload": false}`, `"`, "lazy_offload", `false`, true},
		{`{"lazy_offload":false,"b":1}`, `"`, "lazy_offload", `false`, true},
		{`{"n":'"${CPU}"',"lazy_offload":true}`, `"`, "lazy_offload", `true`, true},
		{`{"a":1,"a":2}`, `"`, "a", ``, false},
		{`{"a" 1}`, `"`, "a", ``, false},
		{`{"b":1}`, `"`, "a", ``, false},
	}
	for _, tc := range tests {
		vs, ve, ok := jsonMember(tc.line, tc.q, tc.key)
		if ok != tc.ok {
			t.Errorf("jsonMember(%s, %s): ok=%v, want %v", tc.line, tc.key, ok, tc.ok)
			continue
		}
		if ok && tc.line[vs:ve] != tc.want {
			t.Errorf("jsonMember(%s, %s) = %q, want %q", tc.line, tc.key, tc.line[vs:ve], tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	tests := []struct {
		s         string
		cands     []string
		best      string
		plausible bool
	}{
		{"cpu_bytes_to_use_per_rank", []string{"lazy_offload", "cpu_bytes_to_use"}, "cpu_bytes_to_use", true},
		{"lazy_ofload", []string{"cpu_bytes_to_use", "lazy_offload"}, "lazy_offload", true},
		{"zzz", []string{"cpu_bytes_to_use"}, "cpu_bytes_to_use", false},
		{"x", nil, "", false},
	}
	for _, tc := range tests {
		best, ok := closest(tc.s, tc.cands)
		if best != tc.best || ok != tc.plausible {
			t.Errorf("closest(%q) = %q, %v; want %q, %v", tc.s, best, ok, tc.best, tc.plausible)
		}
	}
	if d := prose.EditDistance("kitten", "sitting", -1); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}

func TestCommentBlocksWith(t *testing.T) {
	f := mustFacts(t, `# unrelated
x=1
# JSON form so that lazy_offload=true can be passed. Eager mode hits a
# popleft_n AssertionError at low
# concurrency.
y=2
# eager mode is fine here
`)
	got := commentBlocksWith(f, []string{"lazy_offload", "eager"}, []string{"popleft", "assert"})
	if len(got) != 1 || got[0].Line != 3 || got[0].EndLine != 5 {
		t.Fatalf("got %+v, want the block at lines 3-5", got)
	}
	if c, ok := commentAbove(f, 6, 0); !ok || c.Line != 3 {
		t.Errorf("commentAbove(6) = %+v, %v", c, ok)
	}
	if _, ok := commentAbove(f, 2, 0); !ok {
		t.Errorf("commentAbove(2): want the comment on line 1")
	}
	if _, ok := commentAbove(f, 7, 0); ok {
		t.Errorf("commentAbove(7): a comment on the line itself is not above it")
	}
}

func TestStmtLineAndSuggestions(t *testing.T) {
	f := mustFacts(t, `case "$B" in
    a)
        OFFLOAD_CONFIG=$(cat <<EOF
{
  "kv_connector": "X"
}
EOF
)
        ARGS=(
            --kv-transfer-config
            '{"kv_connector":"Y"}'
        )
        ;;
esac
vllm serve m "${ARGS[@]}"
`)
	tests := []struct{ line, want int }{{5, 3}, {11, 9}, {15, 15}, {2, 2}}
	for _, tc := range tests {
		if got := stmtLine(f, tc.line); got != tc.want {
			t.Errorf("stmtLine(%d) = %d, want %d", tc.line, got, tc.want)
		}
	}
	s := insertAbove(f, 9, "export V=1")
	want := "        export V=1\n        ARGS=("
	if s.Line != 9 || s.EndLine != 9 || s.Replacement != want {
		t.Errorf("insertAbove = %+v, want replacement %q", s, want)
	}
	if s := replaceOnce(f, 11, `"Y"`, `"Z"`); s == nil || s.Replacement != `            '{"kv_connector":"Z"}'` {
		t.Errorf("replaceOnce = %+v", s)
	}
	if s := replaceOnce(f, 11, `"`, `'`); s != nil {
		t.Errorf("replaceOnce of an ambiguous text = %+v, want nil", s)
	}
}

func TestProse(t *testing.T) {
	if got := prose.JoinAnd([]string{"a", "b", "c"}); got != "a, b and c" {
		t.Errorf("joinAnd = %q", got)
	}
	if got := prose.JoinAnd([]string{"a"}); got != "a" {
		t.Errorf("joinAnd = %q", got)
	}
	if got := prose.Count(1, "sibling", "siblings") + "/" + prose.Count(3, "sibling", "siblings"); got != "1 sibling/3 siblings" {
		t.Errorf("plural = %q", got)
	}
	if got := prose.Code("a`b"); got != "`` a`b ``" {
		t.Errorf("code = %q", got)
	}
	if n := branchName(nil); n != "the top level" {
		t.Errorf("branchName(nil) = %q", n)
	}
	// Paths of facts in the branches, via a variable read in each.
	f := mustFacts(t, `case "$B" in
    x|y) A=$Q ;;
esac
if [ "$DP_ATTENTION" = "true" ]; then A=$R; else A=$S; fi
`)
	want := map[string]string{
		"Q": "the `x|y)` arm",
		"R": "the `if [ \"$DP_ATTENTION\" = \"true\" ]` branch",
		"S": "the else branch of `[ \"$DP_ATTENTION\" = \"true\" ]`",
	}
	for _, r := range f.Reads {
		if w, ok := want[r.Name]; ok && branchName(r.Branch) != w {
			t.Errorf("branchName for %s = %q, want %q", r.Name, branchName(r.Branch), w)
		}
	}
}

func TestChangedRecipesSkipsUnparsableAndDeleted(t *testing.T) {
	base := kitTree()
	head := withFile(base, agenticDir+"a_b200_vllm.sh", "")
	head = withFile(head, agenticDir+"broken_vllm.sh", "#!/usr/bin/env bash\nif true; then\n")
	head = withFile(head, agenticDir+"README.md", "notes\n")
	head = withFile(head, kitTarget, edit(t, kitRecipe, "set -euo pipefail", "set -eo pipefail"))
	var got []string
	rule := &checks.Rule{ID: "T001", Severity: checks.Warning, Title: "t", Doc: "d", Run: func(p *checks.Pass) error {
		ts, err := changedRecipes(p)
		for _, x := range ts {
			got = append(got, x.Path)
			if x.Head == nil || x.Base == nil {
				t.Errorf("%s: missing facts", x.Path)
			}
		}
		return err
	}}
	reviewRule(t, rule, base, head)
	if diff := cmp.Diff([]string{kitTarget}, got); diff != "" {
		t.Errorf("changedRecipes (-want +got):\n%s", diff)
	}
}
