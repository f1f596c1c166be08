package signoff

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

var update = flag.Bool("update", false, "rewrite the verdict goldens")

// seed004GitHub is what the App would gather for seed 004: the sweep ran
// on in-PR commit 11b75f153 (run 31147925932) and the head's own run
// skipped it, the eval artifact has nine GSM8K rows above the threshold,
// and a COLLABORATOR pinned the run with /reuse-sweep-run.
func seed004GitHub(t *testing.T, ch *checks.Change, so *SignOff) []Check {
	t.Helper()
	sweep, res := VerifySweep("SemiAnalysisAI/InferenceX", []CommitRuns{
		{SHA: "11b75f153a1b2c3d4e5f60718293a4b5c6d7e8f9", Runs: append(runs(42, "single-node 8k1k / kimik2.5-fp4-b200-vllm", "success", 31147925932),
			runs(9, "eval / kimik2.5-fp4-b200-vllm gsm8k", "success", 31147925932)...)},
		{SHA: "8d034aa96d340b569de06f4e45886179210f00ed", Runs: append(runs(42, "single-node 8k1k / kimik2.5-fp4-b200-vllm", "skipped", 31204430170),
			CheckRun{Name: "reuse-sweep-gate", Status: "completed", Conclusion: "success", RunID: 31204430170})},
	}, nil)
	if res == nil {
		t.Fatalf("check 1: %+v", sweep)
	}
	var rowsJSON strings.Builder
	rowsJSON.WriteString("[")
	for i, s := range []string{"0.969", "0.970", "0.971", "0.972", "0.972", "0.973", "0.973", "0.974", "0.974"} {
		if i > 0 {
			rowsJSON.WriteString(",")
		}
		rowsJSON.WriteString(`{"model_prefix":"kimik2.5","model":"nvidia/Kimi-K2.5-NVFP4","hw":"B200","framework":"vllm","precision":"fp4",` +
			`"spec_decoding":"none","tp":` + []string{"8", "4"}[i%2] + `,"ep":1,"dp_attention":"false","task":"gsm8k","score":` + s + `,"score_name":"exact_match"}`)
	}
	rowsJSON.WriteString("]")
	rows, err := ReadEvalArtifact(evalZip(t, map[string]string{"agg_eval_all.json": rowsJSON.String()}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	keys, err := changedKeysOf(ctx, t, ch)
	if err != nil {
		t.Fatal(err)
	}
	evals := VerifyEvals(EvalInput{Repo: "SemiAnalysisAI/InferenceX", RunID: res.RunID, Rows: rows,
		Thresholds: []byte("default:\n  gsm8k: 0.90\nmodels:\n  kimik2.5:\n    gsm8k: 0.90\n"), ThresholdsPath: "utils/evals/thresholds.yaml", Keys: keys})
	recipe := VerifyRecipe(ctx, RecipeInput{Change: ch, SignOff: so, Upstream: map[string]UpstreamPR{}})
	reuse := VerifyReuse([]ReuseCommand{
		{Author: "xinli-sw", Association: "CONTRIBUTOR", Command: "/reuse-sweep-run"},
		{Author: "Ankur-singh", Association: "COLLABORATOR", Command: "/reuse-sweep-run", RunID: 31147925932, Authorized: true, Resolved: true},
	}, nil)
	return []Check{sweep, evals, recipe, reuse}
}

func loadSeed004(t *testing.T) *checks.Change {
	t.Helper()
	fx, err := trees.LoadFixture(context.Background(), filepath.Join("testdata", "seed004"))
	if err != nil {
		t.Fatal(err)
	}
	ch := fx.Change()
	ch.Cache = checks.NewParseCache(0)
	return ch
}

// changedKeysOf resolves the change's layout (as Review does) and lists
// its changed config keys.
func changedKeysOf(ctx context.Context, t *testing.T, ch *checks.Change) ([]masterChangedKey, error) {
	t.Helper()
	if ch.Config == nil {
		cfg, err := checks.LoadConfig(ctx, ch.Base)
		if err != nil {
			return nil, err
		}
		if err := cfg.ResolveLayout(ctx, ch.Base, ch.Head); err != nil {
			return nil, err
		}
		ch.Config = cfg
	}
	return changedKeys(ctx, ch)
}

func TestVerifySeed004(t *testing.T) {
	ch := loadSeed004(t)
	so, ok := Parse(fixtureSignOff(t))
	if !ok {
		t.Fatal("fixture sign-off does not parse")
	}
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	gh := seed004GitHub(t, ch, so)
	v, err := Verify(context.Background(), Input{Change: ch, Registry: reg, SignOff: so, SHA: "8d034aa96d340b569de06f4e45886179210f00ed", GitHub: gh})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]Status{0: Pass, 1: Pass, 2: Pass, 3: Fail, 4: Pass, 5: Pass, 6: Pass, 7: Fail, 8: Pass, 9: NA, 10: Pass, 11: NA, 12: NA}
	if len(v.Checks) != len(want) {
		t.Fatalf("%d checks:\n%s", len(v.Checks), v.Render())
	}
	for _, c := range v.Checks {
		if c.Status != want[c.N] {
			t.Errorf("check %d: %v, want %v — %s", c.N, c.Status, want[c.N], c.Reason)
		}
	}
	if v.Pass() {
		t.Error("verdict passes")
	}
	golden(t, "seed004.verdict.md", v.Render())
	for _, want := range []string{"`--attention-config`", "`--linear-backend`", "`VLLM_USE_V2_MODEL_RUNNER=0`", "MODELS.md:39", "2026-08-07", "CODEOWNERS:6"} {
		if !strings.Contains(v.Render(), want) {
			t.Errorf("verdict lacks %q", want)
		}
	}
}

// Without GitHub (verify-signoff): checks 1-4 are named as not run.
func TestVerifyLocal(t *testing.T) {
	ch := loadSeed004(t)
	so, _ := Parse(fixtureSignOff(t))
	reg, _ := all.Registry()
	v, err := Verify(context.Background(), Input{Change: ch, Registry: reg, SignOff: so, SHA: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Checks) != 9 || !strings.Contains(v.Render(), "Checks 1-4 (sweep runs, evals, upstream recipe state, reuse command) need GitHub and were not run here.") {
		t.Errorf("local verdict:\n%s", v.Render())
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update and review):\n--- want\n%s\n--- got\n%s", p, want, got)
	}
}

// A sign-off posted by someone else than its Signed: login fails check 0;
// a blocker rejects whatever the checks say.
func TestVerifyAuthorAndBlockers(t *testing.T) {
	ch := loadSeed004(t)
	so, _ := Parse(fixtureSignOff(t))
	reg, _ := all.Registry()
	v, err := Verify(context.Background(), Input{Change: ch, Registry: reg, SignOff: so, SHA: "abc", Author: "mallory",
		Blockers: []string{"the signed commit cannot be told"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := v.Checks[0]; c.Status != Fail || !strings.Contains(c.Reason, "signed `Ankur-singh` but was posted by `mallory`") {
		t.Errorf("check 0: %v %s", c.Status, c.Reason)
	}
	if v.Pass() || !strings.Contains(v.Render(), "the signed commit cannot be told") {
		t.Errorf("blocker not rendered:\n%s", v.Render())
	}
	// The same login in another case is the same account.
	ch = loadSeed004(t)
	v, _ = Verify(context.Background(), Input{Change: ch, Registry: reg, SignOff: so, SHA: "abc", Author: "ankur-SINGH"})
	if c := v.Checks[0]; c.Status != Pass {
		t.Errorf("case-insensitive author: %v %s", c.Status, c.Reason)
	}
	passing := &Verdict{SHA: "abc", Checks: []Check{{N: 0, Status: Pass}}, Blockers: []string{"stale"}}
	if passing.Pass() || passing.Description() != "Sign-off rejected: a fresh sign-off is needed" {
		t.Errorf("blocked verdict: %v %q", passing.Pass(), passing.Description())
	}
}

// What the review did not judge rejects the sign-off: a file the App could
// not read, or what the review's budget refused, could hide what the
// checks look for.
func TestVerifyNotReviewedBlocks(t *testing.T) {
	so, _ := Parse(fixtureSignOff(t))
	reg, _ := all.Registry()
	for _, tc := range []struct {
		name  string
		setup func(ch *checks.Change)
		want  string
	}{
		{"unreadable file", func(ch *checks.Change) {
			ch.Skip("benchmarks/single_node/x_vllm.sh", "it could not be read: 404 Not Found")
		}, "`benchmarks/single_node/x_vllm.sh` was not reviewed (it could not be read: 404 Not Found)"},
		{"budget refused", func(ch *checks.Change) {
			b := checks.DefaultBudget
			b.Files = 1
			ch.Budget = &b
		}, "was not reviewed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := loadSeed004(t)
			tc.setup(ch)
			v, err := Verify(context.Background(), Input{Change: ch, Registry: reg, SignOff: so, SHA: "abc", Author: "ankur-singh"})
			if err != nil {
				t.Fatal(err)
			}
			if v.Pass() || !strings.Contains(v.Render(), tc.want) {
				t.Errorf("a review that did not see every file passed or did not say so:\n%s", v.Render())
			}
		})
	}
	// The same change, whole, is not blocked by this.
	v, _ := Verify(context.Background(), Input{Change: loadSeed004(t), Registry: reg, SignOff: so, SHA: "abc", Author: "ankur-singh"})
	if strings.Contains(v.Render(), "was not reviewed") {
		t.Errorf("whole review blocked:\n%s", v.Render())
	}
}

// A verification that could not finish fails closed: the checks already
// decided keep their result, every other fails with the first line of the
// cause, and a deadline is named as such.
func TestUnfinished(t *testing.T) {
	owner := Check{N: CheckOwner, Status: Pass, Reason: "owner"}
	for _, tc := range []struct {
		name    string
		cause   error
		decided []Check
		reason  string
	}{
		{name: "nothing decided", cause: errors.New("list commits: 502\nbody"), reason: "not verified: list commits: 502"},
		{name: "owner decided", cause: errors.New("boom"), decided: []Check{owner}, reason: "not verified: boom"},
		{name: "deadline", cause: fmt.Errorf("get run: %w", context.DeadlineExceeded),
			reason: "not verified: the verification ran out of time (get run: context deadline exceeded)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Unfinished("abc", "alice", tc.cause, []string{"n"}, tc.decided)
			if v.Pass() || v.SHA != "abc" || v.Signer != "alice" || len(v.Notes) != 1 {
				t.Fatalf("%+v", v)
			}
			if len(v.Checks) != CheckAppendOnly-CheckOwner+1 {
				t.Fatalf("%d checks", len(v.Checks))
			}
			for i, c := range v.Checks {
				if c.N != CheckOwner+i {
					t.Fatalf("check %d is #%d", i, c.N)
				}
				if len(tc.decided) > 0 && c.N == CheckOwner {
					if c != owner {
						t.Errorf("decided check changed: %+v", c)
					}
					continue
				}
				if c.Status != Fail || c.Reason != tc.reason {
					t.Errorf("#%d: %v %q", c.N, c.Status, c.Reason)
				}
			}
		})
	}
}
