package llmreplay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// prRepo is a repository laid out like the reviewed one whose pull
// request 7 appends a changelog entry with a bad link (2026-03-02) and
// corrects it (2026-03-04), while main moves on (2026-03-03).
type prRepo struct {
	dir          string
	fork, a, b   string
	mainTip      string
	entryEndLine int
}

func newPRRepo(t *testing.T) *prRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	r := &prRepo{dir: t.TempDir()}
	git := func(date string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_AUTHOR_DATE="+date,
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE="+date)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(date, msg string) string {
		git(date, "add", "-A")
		git(date, "commit", "-q", "-m", msg)
		return git(date, "rev-parse", "HEAD")
	}
	git("", "init", "-q", "-b", "main")
	if err := os.CopyFS(r.dir, os.DirFS("../../testdata/trees/inferencex")); err != nil {
		t.Fatal(err)
	}
	r.fork = commit("2026-03-01T09:00:00Z", "The repository (#1)")
	changelog := filepath.Join(r.dir, "perf-changelog.yaml")
	base, err := os.ReadFile(changelog)
	if err != nil {
		t.Fatal(err)
	}
	r.entryEndLine = bytes.Count(base, []byte("\n")) + 6
	entry := func(link string) []byte {
		return fmt.Appendf(append([]byte(nil), base...),
			"\n- config-keys:\n    - dsv4-fp4-b200-vllm\n  description:\n    - \"Extend the DEP8 ladder\"\n  pr-link: %s\n", link)
	}
	git("", "checkout", "-q", "-b", "pr")
	write := func(b []byte) {
		if err := os.WriteFile(changelog, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(entry("XXXX"))
	r.a = commit("2026-03-02T10:00:00Z", "Extend the ladder")
	write(entry("https://github.com/SemiAnalysisAI/InferenceX/pull/7"))
	r.b = commit("2026-03-04T10:00:00Z", "The link")
	git("", "update-ref", "refs/pull/7/head", r.b)
	git("", "checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(r.dir, "README.md"), []byte("main moved on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.mainTip = commit("2026-03-03T10:00:00Z", "Elsewhere (#2)")
	return r
}

// hunk is the entry's hunk as a review thread on its pr-link line shows
// it.
func (r *prRepo) hunk(link string) string {
	start := r.entryEndLine - 6
	return fmt.Sprintf("@@ -%d,3 +%d,9 @@\n", start, start) + r.cutHunk(link)
}

// cutHunk is the hunk shown without its header.
func (r *prRepo) cutHunk(link string) string {
	return "   pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2222\n+\n" +
		"+- config-keys:\n+    - dsv4-fp4-b200-vllm\n+  description:\n+    - \"Extend the DEP8 ladder\"\n+  pr-link: " + link
}

// openRepo opens the repository at dir, closed when the test ends, and
// the registry of every rule.
func openRepo(t *testing.T, dir string) (*trees.Repo, *checks.Registry) {
	t.Helper()
	repo, err := trees.OpenRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	return repo, reg
}

func TestRun(t *testing.T) {
	r := newPRRepo(t)
	ctx := context.Background()
	repo, reg := openRepo(t, r.dir)
	line := r.entryEndLine
	canonical := "https://github.com/SemiAnalysisAI/InferenceX/pull/7"
	f := func(pr int, date string, line int, path, hunk string) *Finding {
		b, err := json.Marshal(map[string]any{"pr": pr, "thread_date": date, "path": path, "line": line,
			"severity": "red", "hunk": hunk, "class": "c", "real": "bug", "finding": strings.Repeat("The thread's text. ", 30)})
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Load(bytes.NewReader(bytes.ReplaceAll(b, []byte(`"line":0`), []byte(`"line":null`))))
		if err != nil {
			t.Fatal(err)
		}
		return fs[0]
	}
	type want struct {
		reason  Reason
		note    string
		commit  string
		flagged bool
		red     bool
		span    *Span
		header  int
	}
	tests := []struct {
		name    string
		finding *Finding
		want    want
	}{
		{"the thread's day: the bad link, flagged 🔴",
			f(7, "2026-03-02", line, "perf-changelog.yaml", r.hunk("XXXX")),
			want{commit: r.a, flagged: true, red: true, span: &Span{line - 6, line}}},
		{"no line: anything on the file",
			f(7, "2026-03-02", 0, "perf-changelog.yaml", r.hunk("XXXX")),
			want{commit: r.a, flagged: true, red: true}},
		{"the corrected link, two days on: nothing to flag",
			f(7, "2026-03-04", line, "perf-changelog.yaml", r.hunk(canonical)),
			want{commit: r.b, span: &Span{line - 6, line}}},
		{"no hunk: the newest commit of the day with the file",
			f(7, "2026-03-03", 0, "benchmarks/benchmark_lib.sh", ""),
			want{commit: r.a}},
		{"before the PR's first commit",
			f(7, "2026-03-01", line, "perf-changelog.yaml", r.hunk("XXXX")),
			want{reason: NoCommit, note: "only commits after the thread's day hold it, from " + r.a[:10] + " (2026-03-02), ending at line " + fmt.Sprint(line)}},
		{"the thread's line is a later head's: placed by the hunk's header",
			f(7, "2026-03-02", line+40, "perf-changelog.yaml", r.hunk("XXXX")),
			want{commit: r.a, flagged: true, red: true, span: &Span{line - 6, line}, header: line}},
		{"the lines are elsewhere, and no header says where",
			f(7, "2026-03-02", line+10, "perf-changelog.yaml", r.cutHunk("XXXX")),
			want{reason: NoCommit, note: r.a[:10] + " (2026-03-02) holds the lines ending at line " + fmt.Sprint(line)}},
		{"main's commits are not the PR's",
			f(7, "2026-03-01", 0, "benchmarks/benchmark_lib.sh", ""),
			want{reason: NoCommit, note: "only commits after the thread's day hold it, from " + r.a[:10] + " (2026-03-02)"}},
		{"the file is in no commit of the PR",
			f(7, "2026-03-04", 0, "nothing.yaml", ""),
			want{reason: NoCommit, note: "no commit of the PR has the file"}},
		{"no refs/pull/N/head",
			f(8, "2026-03-02", line, "perf-changelog.yaml", r.hunk("XXXX")),
			want{reason: NoRef}},
	}
	var findings []*Finding
	for _, tt := range tests {
		findings = append(findings, tt.finding)
	}
	rp, err := Run(ctx, repo, reg, findings, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		res := rp.Results[i]
		if res.Finding != tt.finding {
			t.Fatalf("%s: result %d is of another finding", tt.name, i)
		}
		got := want{reason: res.Reason, note: res.Note, commit: res.Commit, flagged: res.Flagged(), red: res.Red(), span: res.Span, header: res.HeaderLine}
		if got.reason != tt.want.reason || got.note != tt.want.note || got.commit != tt.want.commit || got.header != tt.want.header ||
			got.flagged != tt.want.flagged || got.red != tt.want.red || fmt.Sprint(got.span) != fmt.Sprint(tt.want.span) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
		if res.Replayable() {
			// The base is the fork point, not main's tip.
			if res.Base != r.fork || res.Review == nil || res.Review.BaseSHA != r.fork || res.Review.HeadSHA != res.Commit || res.Review.Error != "" ||
				!res.Review.Date.Equal(res.Finding.Day()) || res.Review.PR != 7 {
				t.Errorf("%s: base %.7s, review %+v", tt.name, res.Base, res.Review)
			}
		}
	}
	// One review per commit and date: the first two findings share one.
	if len(rp.Reviews) != 3 || rp.Results[0].Review != rp.Results[1].Review {
		t.Errorf("%d reviews", len(rp.Reviews))
	}
	// The review is the one `reviewbot review --pr 7` makes: the link
	// is judged against this PR's number.
	for _, o := range rp.Results[0].Matches {
		if o.Rule != "CL001" || o.Line != line {
			t.Errorf("match %s %s:%d", o.Rule, o.Path, o.Line)
		}
	}

	s := Summarize(rp)
	if s.Total != (Tally{Key: "total", N: 10, Replayable: 5, Flagged: 3, Red: 3}) || s.Unreplayable[NoCommit] != 4 ||
		s.Unreplayable[NoRef] != 1 || s.PRs != 2 || s.Reviews != 3 || len(s.ByClass) != 1 || s.ByClass[0].N != 10 || s.AtHeaderLine != 1 {
		t.Errorf("summary %+v", s)
	}
	var text, misses, js bytes.Buffer
	if err := WriteText(&text, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteMisses(&misses, rp); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Findings: 10 on 2 PRs; replayable 5 (3 reviews), unreplayable 5 (no refs/pull/N/head: 1, no matching commit: 4).\n" +
			"Replayed at the line of the hunk's header, no commit holding the hunk at the finding's own line: 1.\n" +
			"Flagged at the same place: 3 of 10 (30.0%); of the replayable: 3 of 5 (60.0%); with a 🔴 of ours there: 3.\n",
		"🔴 findings flagged: 3 of 10 (30.0%)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	// The second miss (the first is the corrected link) is the file
	// without a hunk; then the unreplayable ones.
	for _, want := range []string{
		"Missed (replayed, nothing of ours at the place): 2\n",
		fmt.Sprintf("#7 c 🔴 red perf-changelog.yaml:%d (line 1 of the findings file)\n  reviewed %.12s against base %.12s, date 2026-03-04; place: lines %d-%d\n", line, r.b, r.fork, line-6, line),
		"  text: " + strings.Repeat("The thread's text. ", 20)[:300] + " …\n",
		"    | +  pr-link: " + canonical + "\n",
		"  ours on this review (0):\n",
		"\nUnreplayable: 5\n",
		"  unreplayable: no refs/pull/N/head\n",
		"  hunk: (none)\n",
	} {
		if !strings.Contains(misses.String(), want) {
			t.Errorf("misses lack %q:\n%s", want, misses.String())
		}
	}
	if strings.Contains(js.String(), "thread's text") {
		t.Error("the JSON holds the findings' text")
	}
	var decoded struct {
		Summary  Summary
		Findings []struct {
			Flagged bool
			Commit  string
		}
		Reviews []struct{ Head string }
	}
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil || decoded.Summary.Total.Flagged != 3 ||
		len(decoded.Findings) != 10 || !decoded.Findings[0].Flagged || decoded.Findings[0].Commit != r.a || len(decoded.Reviews) != 3 {
		t.Errorf("JSON %v: %s", err, js.String())
	}

	if _, err := Run(ctx, repo, reg, findings, Options{Main: "trunk"}); err == nil {
		t.Error("an unknown main branch gave no error")
	}
}

// TestRunRelaxed: with Options.Relaxed, a finding no commit of its day
// holds at its line is reviewed on the commit that holds its hunk
// elsewhere that day, or on a later commit; it stays unreplayable in the
// figures and is tallied apart.
func TestRunRelaxed(t *testing.T) {
	r := newPRRepo(t)
	ctx := context.Background()
	repo, reg := openRepo(t, r.dir)
	line := r.entryEndLine
	var findings []*Finding
	for _, f := range []map[string]any{
		{"thread_date": "2026-03-01", "line": line, "hunk": r.hunk("XXXX")},         // before the PR's first commit
		{"thread_date": "2026-03-02", "line": line + 10, "hunk": r.cutHunk("XXXX")}, // lines elsewhere that day
		{"thread_date": "2026-03-02", "line": line, "hunk": r.hunk("XXXX")},         // strict: replayable
		{"thread_date": "2026-03-02", "line": line, "hunk": r.cutHunk("YYYY")},      // in no commit at all
		{"thread_date": "2026-03-01", "line": nil, "hunk": r.hunk("XXXX")},          // no line, before the PR's first commit
	} {
		f["pr"], f["path"], f["severity"], f["class"], f["real"], f["finding"] = 7, "perf-changelog.yaml", "red", "c", "bug", "x"
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Load(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		findings = append(findings, fs[0])
	}
	for _, relaxed := range []bool{false, true} {
		rp, err := Run(ctx, repo, reg, findings, Options{Relaxed: relaxed})
		if err != nil {
			t.Fatal(err)
		}
		type got struct {
			reason  Reason
			relaxed string
			commit  string
			flagged bool
			span    string
		}
		want := []got{
			{NoCommit, "the hunk at its line, a later commit", r.a, true, fmt.Sprint(&Span{line - 6, line})},
			{NoCommit, "the hunk at another line, same day", r.a, true, fmt.Sprint(&Span{line - 6, line})},
			{"", "", r.a, true, fmt.Sprint(&Span{line - 6, line})},
			{NoCommit, "", "", false, fmt.Sprint((*Span)(nil))},
			{NoCommit, "the hunk in a later commit", r.a, true, fmt.Sprint((*Span)(nil))},
		}
		if !relaxed {
			for _, i := range []int{0, 1, 4} {
				want[i] = got{reason: NoCommit, span: want[3].span}
			}
		}
		for i, res := range rp.Results {
			g := got{res.Reason, res.Relaxed, res.Commit, res.Flagged(), fmt.Sprint(res.Span)}
			if g != want[i] {
				t.Errorf("relaxed=%v, finding %d:\n got %+v\nwant %+v", relaxed, i, g, want[i])
			}
		}
		s := Summarize(rp)
		wantRelaxed := Tally{}
		if relaxed {
			wantRelaxed = Tally{Key: "relaxed", N: 3, Flagged: 3, Red: 3}
		}
		// The strict figures do not move.
		if s.Total != (Tally{Key: "total", N: 5, Replayable: 1, Flagged: 1, Red: 1}) || s.Relaxed != wantRelaxed {
			t.Errorf("relaxed=%v: total %+v, relaxed %+v", relaxed, s.Total, s.Relaxed)
		}
		var text, misses bytes.Buffer
		if err := WriteText(&text, s); err != nil {
			t.Fatal(err)
		}
		if err := WriteMisses(&misses, rp); err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(text.String(), "Relaxed (unreplayable, reviewed on a commit holding the hunk elsewhere or later; not in the figures below): 3, flagged 3, with a 🔴 of ours there 3.")
		if has != relaxed {
			t.Errorf("relaxed=%v: text %s", relaxed, text.String())
		}
		if relaxed && !strings.Contains(misses.String(), fmt.Sprintf("; relaxed (the hunk at another line, same day): lines %d-%d there, flagged\n", line-6, line)) {
			t.Errorf("misses: %s", misses.String())
		}
	}
}
