package recipe

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

func TestLiteralOf(t *testing.T) {
	f := mustFacts(t, `N=2
N=3
if [ "$X" = a ]; then
    M=1
else
    M=2
fi
if [ "$X" = a ]; then
    K=5
fi
K=${K:-5}
export E=4.5
unset U
U=1
unset U
J=(1 2)
echo "$N $M $K $E $U $J" "$ALWAYS"
`)
	tests := []struct {
		name, val string
		ok        bool
	}{
		{"N", "3", true},   // the later top-level assignment replaces the first
		{"M", "", false},   // two branches disagree
		{"K", "", false},   // not a literal in the end
		{"E", "4.5", true}, // exports count
		{"U", "", false},   // unset last
		{"J", "", false},   // arrays do not resolve
		{"NOPE", "", false},
	}
	for _, tc := range tests {
		v, ok := literalOf(f, tc.name, 17, nil)
		if ok != tc.ok || ok && v.Value != tc.val {
			t.Errorf("literalOf(%s) = %q, %v; want %q, %v", tc.name, v.Value, ok, tc.val, tc.ok)
		}
	}
	// Inside the then-branch, only that branch's assignment reaches.
	if v, ok := literalOf(f, "M", 5, f.Vars[2].Branch); !ok || v.Value != "1" {
		t.Errorf("literalOf(M) inside the branch = %q, %v", v.Value, ok)
	}
}

func TestResolveValueAndVarRefName(t *testing.T) {
	f := mustFacts(t, "AL=2.74\necho x\n")
	for _, tc := range []struct {
		in     string
		static bool
		want   string
		from   int
		ok     bool
	}{
		{"2.39", true, "2.39", 0, true},
		{`"2.39"`, true, "2.39", 0, true},
		{"${AL}", false, "2.74", 1, true},
		{"$AL", false, "2.74", 1, true},
		{"${AL:-3}", false, "2.74", 1, true},
		{"${AL}x", false, "", 0, false},
		{"$(cat al)", false, "", 0, false},
	} {
		v, from, ok := resolveValue(f, tc.in, tc.static, 2, nil)
		if v != tc.want || from != tc.from || ok != tc.ok {
			t.Errorf("resolveValue(%q) = %q %d %v", tc.in, v, from, ok)
		}
	}
	for in, want := range map[string]string{"$X": "X", "${X}": "X", `"${X:-1}"`: "X", "${X[@]}": "", "x": "", "$1": ""} {
		if got := varRefName(in); got != want {
			t.Errorf("varRefName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReplaceNumber(t *testing.T) {
	tests := []struct {
		line, old, repl, want string
		ok                    bool
	}{
		{`"synthetic_acceptance_length": 2.39}'`, "2.39", "2.80", `"synthetic_acceptance_length": 2.80}'`, true},
		{"export X=2", "2", "3", "export X=3", true},
		{"export X2=2", "2", "3", "export X2=3", true}, // the 2 of X2 is part of a name
		{"A=12 B=2", "2", "3", "A=12 B=3", true},
		{"A=2 B=2", "2", "3", "", false},
		{"A=2.39", "2.3", "9", "", false},
		{"nothing", "2", "3", "", false},
	}
	for _, tc := range tests {
		got, ok := replaceNumber(tc.line, tc.old, tc.repl)
		if ok != tc.ok || got != tc.want {
			t.Errorf("replaceNumber(%q, %q) = %q, %v; want %q, %v", tc.line, tc.old, got, ok, tc.want, tc.ok)
		}
	}
}

func TestHeredocsAndTRTSpecs(t *testing.T) {
	src := `#!/usr/bin/env bash
NUM_NEXTN_LAYERS=3
cat > "$EXTRA_CONFIG" <<EOF
enable_attention_dp: ${ENABLE_ATTENTION_DP}
speculative_config:
  decoding_type: MTP
  num_nextn_predict_layers: ${NUM_NEXTN_LAYERS}
print_iter_log: false
EOF
cat <<-'END' > other.yml
	speculative_config:
	  decoding_type: Eagle3
	  max_draft_len: 4
	END
cat <<EOF
not: [yaml
speculative_config: x
EOF
`
	f, err := script.Parse("x.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	hs := f.Heredocs
	for i := range hs {
		hs[i].Branch = nil
	}
	if len(hs) != 3 {
		t.Fatalf("heredocs: %+v", hs)
	}
	if hs[0].Line != 4 || hs[0].EndLine != 8 || hs[0].StmtLine != 3 || hs[0].Target != `"$EXTRA_CONFIG"` || strings.Contains(hs[0].Body, "EOF") {
		t.Errorf("first heredoc %+v", hs[0])
	}
	if strings.Contains(hs[1].Body, "END") || hs[1].Target != "other.yml" {
		t.Errorf("second heredoc %+v", hs[1])
	}
	got := trtSpecs(hs)
	want := []trtSpec{
		{Line: 5, EndLine: 7, StmtLine: 3, DecodingType: "MTP", Draft: "${NUM_NEXTN_LAYERS}", DraftKey: "num_nextn_predict_layers", DraftLine: 7},
		{Line: 11, EndLine: 13, StmtLine: 10, DecodingType: "Eagle3", Draft: "4", DraftKey: "max_draft_len", DraftLine: 13},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trtSpecs (-want +got):\n%s", diff)
	}
}

func TestModelPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"benchmarks/single_node/agentic/glm5.2_fp4_b300_sglang.sh": "glm5.2",
		"benchmarks/single_node/dsv4_fp4_b200_vllm_mtp.sh":         "dsv4",
		"x.sh": "x",
	} {
		if got := modelPrefix(in); got != want {
			t.Errorf("modelPrefix(%s) = %q", in, got)
		}
	}
}

// myRules are the rules of this file's author.
var myRules = []*checks.Rule{SH006, SH008, SH009, SH010, SH011, SH012, SH013, SH014, RN001}

// The shared tree is the repository as it should be: adding every script
// of it as a new file, or touching every script, is silent.
func TestSharedTreeIsQuiet(t *testing.T) {
	tree := readTree(t)
	scripts := func(p string) bool {
		return strings.HasSuffix(p, ".sh") && (strings.HasPrefix(p, "benchmarks/") || strings.HasPrefix(p, "runners/"))
	}
	withoutScripts := map[string]string{}
	touched := map[string]string{}
	for p, c := range tree {
		touched[p] = c
		if scripts(p) {
			touched[p] = c + "# touched\n"
			continue
		}
		withoutScripts[p] = c
	}
	for _, rule := range myRules {
		for name, pair := range map[string][2]map[string]string{
			"all scripts new":     {withoutScripts, tree},
			"all scripts touched": {tree, touched},
		} {
			if fs := reviewRule(t, rule, pair[0], pair[1]); len(fs) > 0 {
				t.Errorf("%s, %s: %v", rule.ID, name, locs(fs))
			}
		}
	}
}

func TestVarRef(t *testing.T) {
	for _, tc := range []struct {
		in    string
		name  string
		plain bool
	}{
		{"$X", "X", true}, {"${X}", "X", true}, {`"$X"`, "X", true}, {`"${X:-1}"`, "X", false},
		{"${X:=2}", "X", false}, {"${X:?unset}", "X", false}, {"${X#pre}", "", false},
		{"${X[@]}", "", false}, {"${#X}", "", false}, {"${!X}", "", false}, {"$1", "", false},
		{"$X$Y", "", false}, {"x$X", "", false}, {"$(cat f)", "", false}, {"", "", false}, {"${X", "", false},
	} {
		if name, plain := script.VarRef(tc.in); name != tc.name || plain != tc.plain {
			t.Errorf("VarRef(%q) = %q, %v; want %q, %v", tc.in, name, plain, tc.name, tc.plain)
		}
	}
}
