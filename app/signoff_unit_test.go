package app

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

func TestSignedCommit(t *testing.T) {
	t0 := time.Date(2026, 8, 7, 12, 0, 0, 0, time.UTC)
	commit := func(sha string, at time.Time) *github.RepositoryCommit {
		return &github.RepositoryCommit{SHA: github.String(sha),
			Commit: &github.Commit{Committer: &github.CommitAuthor{Date: &github.Timestamp{Time: at}}}}
	}
	commits := []*github.RepositoryCommit{commit("a", t0.Add(-2*time.Hour)), commit("b", t0.Add(-time.Hour)), commit("c", t0.Add(time.Hour))}
	tests := []struct {
		name    string
		req     signoffRequest
		head    string
		commits []*github.RepositoryCommit
		want    string
		note    string
		blocked bool
	}{
		{"comment on the head", signoffRequest{at: t0.Add(2 * time.Hour)}, "c", commits, "c", "", false},
		{"comment before the last push", signoffRequest{at: t0}, "c", commits, "b", "head moved to `c` after this sign-off", false},
		{"same second as the head commit", signoffRequest{at: t0.Add(time.Hour)}, "c", commits, "c", "", false},
		{"comment before every commit (rebased)", signoffRequest{at: t0.Add(-3 * time.Hour)}, "c", commits, "c", "cannot be told", true},
		{"review on an older commit", signoffRequest{commit: "a", at: t0.Add(2 * time.Hour)}, "c", commits, "a", "head moved to `c`", false},
		{"review of a commit force-pushed away", signoffRequest{commit: "z"}, "c", commits, "z", "no longer part of this PR", false},
		{"no time known", signoffRequest{}, "c", commits, "c", "", false},
		{"commits listed past GitHub's cap", signoffRequest{at: t0}, "d", commits, "d", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := signedCommit(&tt.req, tt.head, tt.commits)
			if got.sha != tt.want {
				t.Errorf("signed %q, want %q", got.sha, tt.want)
			}
			if note := strings.Join(got.notes, " "); (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) {
				t.Errorf("notes %q, want %q", note, tt.note)
			}
			if (len(got.blockers) > 0) != tt.blocked {
				t.Errorf("blockers %v", got.blockers)
			}
		})
	}
}

func TestRunIDOf(t *testing.T) {
	for in, want := range map[string]int64{
		"https://github.com/o/r/actions/runs/31147925932/job/8": 31147925932,
		"https://github.com/o/r/actions/runs/7":                 7,
		"https://example.invalid/ci/build/5":                    0,
		"":                                                      0,
		"https://github.com/o/r/actions/runs/99999999999999999999999/job/1": 0,
	} {
		if got := runIDOf(in); got != want {
			t.Errorf("runIDOf(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestLabelProblems(t *testing.T) {
	tests := []struct {
		labels   []string
		warnings int
		blocking string
	}{
		{[]string{"full-sweep-fail-fast"}, 0, ""},
		{[]string{"full-sweep-enabled", "all-evals"}, 0, ""},
		{[]string{"full-sweep-fail-fast", "agentx-fast"}, 1, "`agentx-fast`"},
		{[]string{"evals-only"}, 2, "`evals-only`"},
		{nil, 1, "none of the full-sweep labels"},
	}
	for _, tt := range tests {
		if w := labelWarnings(tt.labels); len(w) != tt.warnings {
			t.Errorf("%v: warnings %q", tt.labels, w)
		}
		got := blockingLabelProblem(tt.labels)
		if (tt.blocking == "") != (got == "") || !strings.Contains(got, tt.blocking) {
			t.Errorf("%v: blocking %q, want %q", tt.labels, got, tt.blocking)
		}
	}
}
