package sheval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestWordNodesAsWalked: the nodes kept of each word are those a walk of
// the word meets, in its order, where the walk would stop: for the
// command substitutions, the parameter expansions outside them, and the
// parameter expansions outside command and arithmetic substitutions with
// any of them stopped at.
func TestWordNodesAsWalked(t *testing.T) {
	srcs := []string{
		`X="${A:-$(cmd "$B")}" Y=$(( $C + ${D%x} ))`,
		`bash "${SCRIPT_BASE}_${FW:-${DEF:-x}}${SUF}.sh" "$(dirname "$0")/$(basename "${P#./}")"`,
		`echo "${arr[$i]}" "${!ref}" "${#len}" "${V/${W}/${X:-y}}" $'lit' "$(( $(f) ))"`,
	}
	files, _ := filepath.Glob("../../../testdata/trees/inferencex-pipeline/runners/*.sh")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	words := 0
	for _, src := range srcs {
		f, err := ParseShell("x.sh", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			w, ok := n.(*syntax.Word)
			if !ok {
				return true
			}
			words++
			wn := readWordNodes(w)
			var substs []*syntax.CmdSubst
			var reads []*syntax.ParamExp
			syntax.Walk(w, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.CmdSubst:
					substs = append(substs, n)
					return false
				case *syntax.ParamExp:
					reads = append(reads, n)
				}
				return true
			})
			if !slices.Equal(wn.substs, substs) || !slices.Equal(wn.reads, reads) {
				t.Errorf("%s: kept %d substitutions and %d expansions, a walk meets %d and %d", src, len(wn.substs), len(wn.reads), len(substs), len(reads))
			}
			// Stopping at every k-th expansion met.
			for k := 1; k <= 3; k++ {
				var walked []*syntax.ParamExp
				met := 0
				syntax.Walk(w, func(n syntax.Node) bool {
					switch n := n.(type) {
					case *syntax.CmdSubst, *syntax.ArithmExp:
						return false
					case *syntax.ParamExp:
						walked = append(walked, n)
						met++
						return met%k != 0
					}
					return true
				})
				var listed []*syntax.ParamExp
				met = 0
				for i := 0; i < len(wn.forms); {
					listed = append(listed, wn.forms[i].pe)
					met++
					if met%k == 0 {
						i = wn.forms[i].end
					} else {
						i++
					}
				}
				if !slices.Equal(walked, listed) {
					t.Errorf("%s, stopping at every %d: the list meets %d expansions, a walk %d", src, k, len(listed), len(walked))
				}
			}
			return false
		})
	}
	if words < 100 {
		t.Errorf("only %d words: the test tells little", words)
	}
}

// TestDecisionsShared: paths forked from one keep what it decided before
// and each its own decisions after, in the order made.
func TestDecisionsShared(t *testing.T) {
	var base *decisions
	for i := 1; i <= 3; i++ {
		base = base.with(Decision{label: string(rune('a' + i - 1))})
	}
	left, right := base.with(Decision{label: "l"}), base.with(Decision{label: "r"})
	labels := func(l *decisions) string {
		var s string
		for _, d := range l.list() {
			s += d.label
		}
		return s
	}
	if got := labels(left); got != "abcl" {
		t.Errorf("left = %q, want abcl", got)
	}
	if got := labels(right); got != "abcr" {
		t.Errorf("right = %q, want abcr", got)
	}
	if (*decisions)(nil).list() != nil || base.len() != 3 {
		t.Error("an empty list is not nil, or the length is wrong")
	}
}

// TestWordNodeMemoBounded: the process-wide memo of words' nodes stays
// within its bytes and entries whatever number of words it meets, and
// says so.
func TestWordNodeMemoBounded(t *testing.T) {
	var ev Eval
	var words []*syntax.Word
	src := strings.Repeat(`echo "${A:-x}" $(b "$C") "${D%%_*}" "${E[@]}"`+"\n", 7000)
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			words = append(words, w)
		}
		return true
	})
	for round := 0; round < 6; round++ {
		for _, w := range words {
			ev.nodesOf(w)
		}
		b, n, budget := WordNodeStats()
		if b > budget || n > maxWordNodes || b <= 0 || n <= 0 {
			t.Fatalf("round %d: %d bytes in %d entries, budget %d bytes / %d entries", round, b, n, budget, maxWordNodes)
		}
	}
}
