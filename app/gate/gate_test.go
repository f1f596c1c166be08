package gate

import (
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

func commits(shas ...string) []*github.RepositoryCommit {
	var out []*github.RepositoryCommit
	for _, s := range shas {
		out = append(out, &github.RepositoryCommit{SHA: github.String(s)})
	}
	return out
}

func TestUpTo(t *testing.T) {
	list := commits("a1", "b2", "c3")
	for _, tc := range []struct {
		sha  string
		want int // commits kept; -1: none (the signed commit is not in the PR)
	}{
		{"a1", 1}, {"b2", 2}, {"c3", 3}, {"d4", -1}, {"", -1},
	} {
		got := upTo(list, tc.sha)
		if tc.want < 0 {
			if got != nil || inCommits(list, tc.sha) {
				t.Errorf("upTo(%q) = %d commits; a commit not in the PR keeps none", tc.sha, len(got))
			}
			continue
		}
		if len(got) != tc.want || got[len(got)-1].GetSHA() != tc.sha || !inCommits(list, tc.sha) {
			t.Errorf("upTo(%q) = %d commits, want %d ending at it", tc.sha, len(got), tc.want)
		}
	}
}

func TestKeysIgnoreCase(t *testing.T) {
	if Key("Org", "Repo", 7) != Key("org", "REPO", 7) || Key("o", "r", 7) == Key("o", "r", 8) {
		t.Fatal("one PR must have one ledger key, and two PRs two")
	}
	if ReplyMarker("Alice") != ReplyMarker("alice") || !strings.HasPrefix(ReplyMarker("x"), "<!--") {
		t.Fatal("the reply marker is an HTML comment, one per login whatever its case")
	}
}

func TestMentions(t *testing.T) {
	notes := []string{"The signed commit `abc` is no longer part of this PR", "other"}
	if !mentions(notes, "`abc`") || mentions(notes, "`def`") || mentions(nil, "") {
		t.Fatal("mentions finds a note that contains the text, and only then")
	}
}
