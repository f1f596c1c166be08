package signoff

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
)

func fixtureChecklist(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seed004", "base", "docs", "PR_REVIEW_CHECKLIST.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fixtureSignOff(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seed004", "signoff.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestVerifyTemplate(t *testing.T) {
	tmpl := fixtureChecklist(t)
	good := fixtureSignOff(t)
	tests := []struct {
		name   string
		body   string
		status Status
		want   string
	}{
		{"every item, unchecked ones explained", good, Pass, "each of the 5 unchecked items is explained"},
		{"an item missing (older template)", strings.Replace(good, "- [x] If this PR uses append-only, verified that every existing point stays unchanged\n", "", 1), Fail, "1 of 15 items"},
		{"an unchecked item nobody explains", strings.Replace(good, "- [x] Verified that the code quality is not made worse by this PR.", "- [ ] Verified that the code quality is not made worse by this PR.", 1), Fail, "not explained"},
		{"reworded link text still matches", strings.Replace(good, "latest version of PR_REVIEW_CHECKLIST.md", "latest version of [PR_REVIEW_CHECKLIST.md](https://example.invalid/x)", 1), Pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Parse(tt.body)
			if !ok {
				t.Fatal("not a sign-off")
			}
			c := VerifyTemplate(TemplateInput{Checklist: tmpl, SignOff: s})
			if c.Status != tt.status || !strings.Contains(c.Reason, tt.want) {
				t.Errorf("%v: %s", c.Status, c.Reason)
			}
		})
	}
	s, _ := Parse(good)
	if c := VerifyTemplate(TemplateInput{Checklist: "# no template here\n", SignOff: s}); c.Status != Fail {
		t.Errorf("no template: %v %s", c.Status, c.Reason)
	}
}

// The real checklist and the seed's own sign-off (read when ../shared is
// present): every item is there.
func TestVerifyTemplateRealChecklist(t *testing.T) {
	checklist, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "inferencex", "docs", "PR_REVIEW_CHECKLIST.md"))
	if err != nil {
		t.Skip("../shared not present")
	}
	seed, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "seeds", "004_9aaba700e0d78b55.txt"))
	if err != nil {
		t.Skip("../shared not present")
	}
	items := ParseTemplate(string(checklist))
	if len(items) != 15 {
		t.Errorf("%d template items, want 15", len(items))
	}
	s := seedSignOff(t, string(seed))
	c := VerifyTemplate(TemplateInput{Checklist: string(checklist), SignOff: s})
	// The seed's sign-off predates the append-only item of today's
	// template, so the current template is not satisfied.
	if c.Status != Fail || !strings.Contains(c.Reason, "append-only") {
		t.Errorf("%v: %s", c.Status, c.Reason)
	}
}

// seedSignOff cuts the sign-off comment out of seed 004's thread.
func seedSignOff(t *testing.T, seed string) *SignOff {
	t.Helper()
	i := strings.Index(seed, Phrase)
	j := strings.Index(seed[i:], "\n[Klaud-Cold]")
	if i < 0 || j < 0 {
		t.Fatal("seed 004 has no sign-off")
	}
	s, ok := Parse(seed[i : i+j])
	if !ok {
		t.Fatal("seed sign-off does not parse")
	}
	return s
}

type fakeTeams map[string][]string

func (f fakeTeams) Members(_ context.Context, org, team string) ([]string, bool, error) {
	m, ok := f[org+"/"+team]
	return m, ok, nil
}

func TestVerifyOwners(t *testing.T) {
	owners := []byte("* @InferenceX/core\nconfigs/nvidia-master.yaml @ankur-singh @InferenceX/core\nconfigs/amd-master.yaml @amd-one\nMODELS.md @ankur-singh\n")
	tests := []struct {
		name   string
		files  []string
		signer string
		teams  Teams
		status Status
		want   string
	}{
		{"owner of the config, catch-all rest", []string{"configs/nvidia-master.yaml", "perf-changelog.yaml"}, "Ankur-singh", nil, Pass, "CODEOWNERS:2"},
		{"last match wins: nvidia owner does not own amd", []string{"configs/amd-master.yaml"}, "Ankur-singh", nil, Fail, "`configs/amd-master.yaml` (CODEOWNERS:3: `@amd-one`)"},
		{"catch-all only, listed owner", []string{"benchmarks/x.sh"}, "amd-one", nil, Pass, "catch-all"},
		{"not listed anywhere, team unreadable", []string{"configs/amd-master.yaml"}, "stranger", nil, Fail, "not a CODEOWNER"},
		{"team member by the API", []string{"configs/nvidia-master.yaml"}, "core-dev", fakeTeams{"InferenceX/core": {"core-dev"}}, Pass, "owns"},
		{"team readable, not a member", []string{"configs/nvidia-master.yaml"}, "stranger", fakeTeams{"InferenceX/core": {"core-dev"}}, Fail, "not a CODEOWNER"},
		// An unreadable team grants nobody ownership (the repository's
		// own verifier): not a specific path, and not the catch-all.
		{"team unreadable: grants nothing", []string{"configs/nvidia-master.yaml"}, "someone-else", nil, Fail, "Members: read"},
		{"team unreadable, random login", []string{"configs/nvidia-master.yaml", "benchmarks/x.sh"}, "random-outsider", nil, Fail, "not a CODEOWNER of `benchmarks/x.sh`"},
		{"team unreadable, catch-all only", []string{"benchmarks/x.sh"}, "someone-else", nil, Fail, "not a CODEOWNER of `benchmarks/x.sh`"},
		{"team unreadable, not held against a named owner", []string{"configs/nvidia-master.yaml"}, "ankur-singh", nil, Pass, "could not be read; they grant nothing"},
		{"team readable through the API, catch-all", []string{"benchmarks/x.sh"}, "core-dev", fakeTeams{"InferenceX/core": {"core-dev"}}, Pass, "catch-all"},
		{"no signer", []string{"a"}, "", nil, Fail, "no `Signed:`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := VerifyOwners(context.Background(), OwnerInput{CODEOWNERS: owners, Files: tt.files, Signer: tt.signer, Teams: tt.teams})
			if c.Status != tt.status || !strings.Contains(c.Reason, tt.want) {
				t.Errorf("%v: %s", c.Status, c.Reason)
			}
		})
	}
	if c := VerifyOwners(context.Background(), OwnerInput{Files: []string{"a"}, Signer: "x"}); c.Status != Fail {
		t.Errorf("no CODEOWNERS: %v", c)
	}
}

func runs(n int, name, conclusion string, run int64) []CheckRun {
	var out []CheckRun
	for i := 0; i < n; i++ {
		out = append(out, CheckRun{Name: name, Status: "completed", Conclusion: conclusion, RunID: run})
	}
	return out
}

func TestVerifySweep(t *testing.T) {
	good := CommitRuns{SHA: "11b75f153aaaa", Runs: append(append(runs(42, "single-node 8k1k / kimik2.5-fp4-b200-vllm", "success", 31147925932),
		runs(9, "eval / kimik2.5 gsm8k", "success", 31147925932)...), CheckRun{Name: "collect-evals", Status: "completed", Conclusion: "success"})}
	skipped := CommitRuns{SHA: "8d034aa96bbbb", Runs: append(runs(42, "single-node 8k1k / x", "skipped", 31204430170), runs(9, "eval / x", "skipped", 31204430170)...)}
	aggregatorOnly := CommitRuns{SHA: "cccccccccccc", Runs: []CheckRun{{Name: "collect-evals", Status: "completed", Conclusion: "success"}}}
	tests := []struct {
		name    string
		commits []CommitRuns
		err     error
		status  Status
		want    string
		run     int64
	}{
		{"older commit passes, head skipped", []CommitRuns{good, skipped}, nil, Pass, "in-PR commit 11b75f153 has a sweep run whose 42/42", 31147925932},
		{"only skipped runs", []CommitRuns{skipped}, nil, Fail, "skipped", 0},
		{"an aggregator is not a sweep", []CommitRuns{aggregatorOnly}, nil, Fail, "no commit still in the PR", 0},
		{"API error", nil, errors.New("HTTP 502"), Fail, "HTTP 502", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, res := VerifySweep("SemiAnalysisAI/InferenceX", tt.commits, tt.err)
			if c.Status != tt.status || !strings.Contains(c.Reason, tt.want) {
				t.Errorf("%v: %s", c.Status, c.Reason)
			}
			if tt.run != 0 && (res == nil || res.RunID != tt.run) {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func evalZip(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for name, content := range files {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(content))
	}
	w.Close()
	return b.Bytes()
}

func TestReadEvalArtifact(t *testing.T) {
	rows, err := ReadEvalArtifact(evalZip(t, map[string]string{"results/agg_eval_all.json": `[{"model_prefix":"kimik2.5","hw":"b200","framework":"vllm","precision":"fp4","task":"gsm8k","score":0.97}]`}))
	if err != nil || len(rows) != 1 || *rows[0].Score != 0.97 {
		t.Fatalf("%v %+v", err, rows)
	}
	for name, archive := range map[string][]byte{
		"not a zip":      []byte("PK\x03\x04 garbage"),
		"no eval file":   evalZip(t, map[string]string{"other.json": "[]"}),
		"not JSON":       evalZip(t, map[string]string{"agg_eval_all.json": "{oops"}),
		"too many files": manyFiles(t),
	} {
		if _, err := ReadEvalArtifact(archive); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A zip bomb: a small archive that inflates past the limit.
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, _ := w.Create("agg_eval_all.json")
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < (maxEvalBytes>>20)+2; i++ {
		f.Write(chunk)
	}
	w.Close()
	if _, err := ReadEvalArtifact(b.Bytes()); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("zip bomb: %v", err)
	}
}

func manyFiles(t *testing.T) []byte {
	files := map[string]string{}
	for i := 0; i <= maxZipFiles; i++ {
		files[filepath.Join("d", strings.Repeat("x", 1)+itoa(i))] = ""
	}
	return evalZip(t, files)
}

func itoa(i int) string { return strconv.Itoa(i) }

// evalKey is a changed config of seed 004's shape: fixed sequence length,
// TP8 and TP4 rows, on runner b200.
func evalKey(name, spec string) masterconfig.ChangedKey {
	key := &masterconfig.Key{Name: name, ModelPrefix: masterconfig.Field{Value: "kimik2.5"}, Runner: masterconfig.Field{Value: "b200"},
		Precision: masterconfig.Field{Value: "fp4"}, Framework: masterconfig.Field{Value: "vllm"},
		Scenarios: []*masterconfig.Scenario{{Kind: masterconfig.FixedSeqLen, Rows: []*masterconfig.Row{
			{TP: "8", EP: "1", SpecDecoding: spec}, {TP: "4", SpecDecoding: spec}}}}}
	return masterconfig.ChangedKey{Key: key, New: true}
}

func TestVerifyEvals(t *testing.T) {
	keys := []masterconfig.ChangedKey{evalKey("kimik2.5-fp4-b200-vllm", "")}
	th := []byte("default:\n  gsm8k: 0.90\nmodels:\n  kimik2.5:\n    gsm8k: 0.95\n")
	score := func(v float64) *float64 { return &v }
	row := func(s *float64) EvalRow {
		return EvalRow{ModelPrefix: "kimik2.5", HW: "B200", Framework: "vllm", Precision: "fp4", SpecDecoding: "none",
			TP: 8.0, EP: 1.0, DPAttention: "false", Task: "gsm8k", Score: s}
	}
	with := func(f func(r *EvalRow)) []EvalRow {
		r := row(score(0.99))
		f(&r)
		return []EvalRow{r}
	}
	tests := []struct {
		name   string
		keys   []masterconfig.ChangedKey
		rows   []EvalRow
		err    error
		status Status
		want   string
	}{
		{"all above the model's threshold", keys, []EvalRow{row(score(0.969)), row(score(0.974))}, nil, Pass, "0.969–0.974"},
		{"hardware by the key's name", keys, with(func(r *EvalRow) { r.HW = "b200" }), nil, Pass, "0.990"},
		{"tp given as a string, dp-attention as a boolean", keys, with(func(r *EvalRow) { r.TP, r.DPAttention = "4", false }), nil, Pass, "0.990"},
		{"below the model's own threshold", keys, []EvalRow{row(score(0.93))}, nil, Fail, "0.930 < 0.95"},
		{"no score", keys, []EvalRow{row(nil)}, nil, Fail, "no score"},
		{"no row for the config", keys, with(func(r *EvalRow) { r.ModelPrefix = "dsv4" }), nil, Fail, "no eval row"},
		// Another config's evals vouch for nothing (issue: a TP8
		// non-spec row vouched for a changed MTP config; "" matched any
		// hardware; "b" matched b200 and b300).
		{"a non-spec row for an MTP config", []masterconfig.ChangedKey{evalKey("kimik2.5-fp4-b200-vllm-mtp", "mtp")}, []EvalRow{row(score(0.99))}, nil, Fail, "no eval row of `kimik2.5-fp4-b200-vllm-mtp`"},
		{"empty hardware", keys, with(func(r *EvalRow) { r.HW = "" }), nil, Fail, "no eval row"},
		{"hardware prefix", keys, with(func(r *EvalRow) { r.HW = "b" }), nil, Fail, "no eval row"},
		{"other hardware", keys, with(func(r *EvalRow) { r.HW = "b300" }), nil, Fail, "no eval row"},
		{"another tp", keys, with(func(r *EvalRow) { r.TP = 2.0 }), nil, Fail, "no eval row"},
		{"another ep", keys, with(func(r *EvalRow) { r.EP = 8.0 }), nil, Fail, "no eval row"},
		{"dp-attention on", keys, with(func(r *EvalRow) { r.DPAttention = "true" }), nil, Fail, "no eval row"},
		{"missing tp", keys, with(func(r *EvalRow) { r.TP = nil }), nil, Fail, "no eval row"},
		{"missing spec decoding", keys, with(func(r *EvalRow) { r.SpecDecoding = "" }), nil, Fail, "no eval row"},
		{"other framework", keys, with(func(r *EvalRow) { r.Framework = "sglang" }), nil, Fail, "no eval row"},
		{"other precision", keys, with(func(r *EvalRow) { r.Precision = "fp8" }), nil, Fail, "no eval row"},
		{"artifact unreadable", keys, nil, errors.New("artifact expired"), Fail, "artifact expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := VerifyEvals(EvalInput{Repo: "o/r", RunID: 7, Rows: tt.rows, Err: tt.err, Thresholds: th, Keys: tt.keys})
			if c.Status != tt.status || !strings.Contains(c.Reason, tt.want) {
				t.Errorf("%v: %s", c.Status, c.Reason)
			}
		})
	}
}

// A multi-node row is identified by both worker pools.
func TestEvalRowsForMultinode(t *testing.T) {
	key := &masterconfig.Key{Name: "dsr1-fp4-gb200-dynamo-trt", ModelPrefix: masterconfig.Field{Value: "dsr1"}, Runner: masterconfig.Field{Value: "gb200"},
		Precision: masterconfig.Field{Value: "fp4"}, Framework: masterconfig.Field{Value: "dynamo-trt"}, Multinode: true,
		Scenarios: []*masterconfig.Scenario{{Kind: masterconfig.FixedSeqLen, Rows: []*masterconfig.Row{{SpecDecoding: "mtp",
			Prefill: &masterconfig.Worker{TP: "4", EP: "4", DPAttn: "true"}, Decode: &masterconfig.Worker{TP: "8", EP: "8", DPAttn: "true"}}}}}}
	good := EvalRow{ModelPrefix: "dsr1", HW: "GB200", Framework: "dynamo-trt", Precision: "fp4", SpecDecoding: "mtp",
		PrefillTP: 4.0, PrefillEP: 4.0, PrefillDPAttention: "true", DecodeTP: 8.0, DecodeEP: 8.0, DecodeDPAttention: "true"}
	other := good
	other.DecodeTP = 4.0
	got := EvalRowsFor([]EvalRow{good, other}, masterconfig.ChangedKey{Key: key, New: true})
	if len(got) != 1 || got[0].DecodeTP != 8.0 {
		t.Fatalf("rows %+v", got)
	}
}

func TestVerifyReuse(t *testing.T) {
	tests := []struct {
		name   string
		cmds   []ReuseCommand
		status Status
		want   string
	}{
		{"pinned by a collaborator", []ReuseCommand{{Author: "xinli-sw", Association: "CONTRIBUTOR", Command: "/reuse-sweep-run"},
			{Author: "Ankur-singh", Association: "COLLABORATOR", Command: "/reuse-sweep-run", RunID: 31147925932, Authorized: true, Resolved: true}},
			Pass, "`/reuse-sweep-run 31147925932` posted by Ankur-singh (COLLABORATOR)"},
		{"only unauthorized", []ReuseCommand{{Author: "x", Association: "NONE", Command: "/use", RunID: 1}}, Fail, "1 from others were ignored"},
		{"newest authorized cannot be used", []ReuseCommand{{Author: "a", Association: "MEMBER", Command: "/use", RunID: 5, Authorized: true, Reason: "its head_sha is no longer a commit of the PR"}},
			Fail, "no longer a commit"},
	}
	for _, tt := range tests {
		c := VerifyReuse(tt.cmds, nil)
		if c.Status != tt.status || !strings.Contains(c.Reason, tt.want) {
			t.Errorf("%s: %v: %s", tt.name, c.Status, c.Reason)
		}
	}
}

func TestRender(t *testing.T) {
	v := &Verdict{SHA: "8d034aa96d340b569de06f4e45886179210f00ed", Signer: "Ankur-singh", Checks: []Check{
		{N: 0, Status: Pass, Reason: "ok"}, {N: 3, Status: Fail, Reason: "no\nrecipe"}, {N: 9, Status: NA, Reason: "none"}}}
	out := v.Render()
	for _, want := range []string{
		"## ❌❌❌ **REJECTED** ❌❌❌\n",
		"@Ankur-singh — one blocker: check 3 (upstream recipe).",
		"✅ Check 0 (CODEOWNER): PASS — ok\n",
		"❌ Check 3 (upstream recipe): FAIL — no recipe\n",
		"➖ Check 9 (spec-decode chat templates): N/A — none\n",
		"<!-- codeowner-signoff-verify sha=8d034aa96d340b569de06f4e45886179210f00ed -->",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "## ") {
		t.Error("the header is not the first line")
	}
	if sha, ok := ParseMarker(out); !ok || sha != v.SHA {
		t.Errorf("marker %q %v", sha, ok)
	}
	v.Checks[1].Status = Pass
	if !v.Pass() || !strings.HasPrefix(v.Render(), "## ✅✅✅ **Verdict: PASS** ✅✅✅") || strings.Contains(v.Render(), "@Ankur") {
		t.Errorf("pass render:\n%s", v.Render())
	}
}

type masterChangedKey = masterconfig.ChangedKey

func changedKeys(ctx context.Context, ch *checks.Change) ([]masterconfig.ChangedKey, error) {
	return masterconfig.ChangedKeys(ctx, ch)
}

// What the App adds to the evidence: a missing thresholds file, the run
// check 1 could not find, an unreadable upstream diff, the resolved run.
func TestGitHubEvidenceDetails(t *testing.T) {
	keys := []masterconfig.ChangedKey{evalKey("kimik2.5-fp4-b200-vllm", "")}
	if c := VerifyEvals(EvalInput{Repo: "o/r", RunID: 7, Keys: keys, ThresholdsPath: "utils/evals/thresholds.yaml"}); c.Status != Fail || !strings.Contains(c.Reason, "no eval thresholds file utils/evals/thresholds.yaml") {
		t.Errorf("no thresholds: %v %s", c.Status, c.Reason)
	}
	if c := VerifyEvals(EvalInput{Repo: "o/r", Err: ErrNoRun, Keys: keys}); c.Status != Fail || strings.Contains(c.Reason, "runs/0") || !strings.Contains(c.Reason, "the sweep run") {
		t.Errorf("no run: %v %s", c.Status, c.Reason)
	}
	// Agentic configs are evaluated too (the repository's eval selection
	// runs SWE-bench or GSM8K for them): without evidence, the check fails.
	agentic := []masterconfig.ChangedKey{{Key: &masterconfig.Key{Name: "x", Scenarios: []*masterconfig.Scenario{{Kind: masterconfig.AgenticCoding}}}}}
	if c := VerifyEvals(EvalInput{Repo: "o/r", Err: ErrNoRun, Keys: agentic}); c.Status != Fail {
		t.Errorf("agentic only: %v %s", c.Status, c.Reason)
	}
	if c := VerifyEvals(EvalInput{Repo: "o/r", Err: ErrNoRun}); c.Status != NA {
		t.Errorf("no changed config: %v %s", c.Status, c.Reason)
	}
	c := VerifyReuse([]ReuseCommand{{Author: "a", Association: "MEMBER", Command: "/use", RunID: 5, Authorized: true, Resolved: true,
		Evidence: "run 5 concluded success at abc"}}, nil)
	if c.Status != Pass || !strings.HasSuffix(c.Reason, "; run 5 concluded success at abc") {
		t.Errorf("evidence: %v %s", c.Status, c.Reason)
	}
}
