package script

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGitOps: the clones, checkouts and resets a script makes, with the
// repository, destination and pinned ref each names, and whether a later
// checkout pins a clone.
func TestGitOps(t *testing.T) {
	type op struct {
		Kind            GitKind
		Line            int
		Repo, Ref, Dir  string
		PinnedLaterLine bool
	}
	cases := []struct {
		name string
		src  string
		want []op
	}{
		{"bare clone", "git clone https://github.com/LMCache/LMCache.git\ncd LMCache\n",
			[]op{{GitClone, 1, "https://github.com/LMCache/LMCache.git", "", "", false}}},
		{"clone then checkout", "git clone https://github.com/a/b.git\ncd b\ngit checkout 9229067cec\n",
			[]op{{GitClone, 1, "https://github.com/a/b.git", "", "", true}, {GitCheckout, 3, "", "9229067cec", "", false}}},
		{"branch option and destination", "git clone --branch v1.0.50 --single-branch https://github.com/a/s.git \"$DIR\" || exit 1\n",
			[]op{{GitClone, 1, "https://github.com/a/s.git", "v1.0.50", "$DIR", false}}},
		{"short option joined", "git clone -q --depth 1 -b=main https://x/y.git y\n",
			[]op{{GitClone, 1, "https://x/y.git", "main", "y", false}}},
		{"revision", "git clone --revision=abc123 https://x/y.git\n",
			[]op{{GitClone, 1, "https://x/y.git", "abc123", "", false}}},
		{"git -C checkout", "git clone https://x/y.git y\ngit -C y checkout -q abc\n",
			[]op{{GitClone, 1, "https://x/y.git", "", "y", true}, {GitCheckout, 2, "", "abc", "y", false}}},
		{"a later clone's pin is its own", "git clone https://x/a.git\ngit clone https://x/b.git\ncd b && git checkout v2\n",
			[]op{{GitClone, 1, "https://x/a.git", "", "", false}, {GitClone, 2, "https://x/b.git", "", "", true}, {GitCheckout, 3, "", "v2", "", false}}},
		{"reset to a commit", "git clone https://x/y.git\n(cd y && git fetch origin && git reset --hard abc)\n",
			[]op{{GitClone, 1, "https://x/y.git", "", "", true}, {GitReset, 2, "", "abc", "", false}}},
		{"checkout of no ref pins nothing", "git clone https://x/y.git\ngit checkout -- file.py\n",
			[]op{{GitClone, 1, "https://x/y.git", "", "", false}, {GitCheckout, 2, "", "", "", false}}},
		{"other git commands are not recorded", "git apply fix.patch\ngit status\ngit\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("benchmarks/single_node/x.sh", []byte("#!/usr/bin/env bash\n"+tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []op
			for _, g := range f.Git {
				if !strings.HasPrefix(g.Text, "git") {
					t.Errorf("text %q", g.Text)
				}
				got = append(got, op{g.Kind, g.Line - 1, g.Repo, g.Ref, g.Dir, g.Kind == GitClone && f.PinnedLater(g.Line)})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("git ops (-want +got):\n%s", diff)
			}
		})
	}
}
