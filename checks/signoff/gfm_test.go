package signoff

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/gfmtest"
)

// The values of the verdict's lines a pull request controls, or the
// people and runs around it: config keys, images, the CODEOWNERS it is
// judged by, check-run names, eval rows, the sign-off's own text.
const (
	hostileLink  = gfmtest.Link
	hostileTicks = gfmtest.Ticks
	hostileLines = gfmtest.Lines
)

func replaceIn(t *testing.T, files map[string]string, p, old, new string) {
	t.Helper()
	if !strings.Contains(files[p], old) {
		t.Fatalf("%s lacks %q", p, old)
	}
	files[p] = strings.ReplaceAll(files[p], old, new)
}

// Every line of a verdict on a hostile PR renders, through GitHub's
// markdown, without a mention, link, image or HTML element of the PR's
// making; the only mention is the signer's, on a rejection.
func TestVerdictGFM(t *testing.T) {
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, "testdata/seed004")
	if err != nil {
		t.Fatal(err)
	}
	base, err := checks.Snapshot(ctx, fx.Base)
	if err != nil {
		t.Fatal(err)
	}
	head, err := checks.Snapshot(ctx, fx.Head)
	if err != nil {
		t.Fatal(err)
	}
	key := "kimik2.5-fp4-b200-vllm-" + hostileLink + " " + hostileTicks + " " + hostileLines
	image := "vllm/vllm-openai:nightly " + hostileLink + " " + hostileTicks
	for _, files := range []map[string]string{base, head} {
		replaceIn(t, files, "configs/nvidia-master.yaml", "\nkimik2.5-fp4-b200-vllm:", "\n"+strconv.Quote(key)+":")
		replaceIn(t, files, ".github/CODEOWNERS", "configs/nvidia-master.yaml @ankur-singh", "configs/nvidia-master.yaml @evil-user @org/evil-team @ankur-singh")
	}
	replaceIn(t, head, "perf-changelog.yaml", "    - kimik2.5-fp4-b200-vllm\n", "    - "+strconv.Quote(key)+"\n")
	replaceIn(t, head, "configs/nvidia-master.yaml", "image: vllm/vllm-openai:nightly-e2fa28594f7b", "image: "+strconv.Quote(image))
	bt, ht := checks.NewMemTree(base), checks.NewMemTree(head)
	files, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		t.Fatal(err)
	}
	ch := &checks.Change{Base: bt, Head: ht, Files: files, PR: fx.PR, Date: fx.Date, Cache: checks.NewParseCache(0)}
	body := fixtureSignOff(t) + "\n- upstream: https://github.com/vllm-project/recipes/pull/412?x=" + strings.ReplaceAll(hostileLink, " ", "%20") + "\n"
	so, ok := Parse(body)
	if !ok {
		t.Fatal("sign-off does not parse")
	}
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := changedKeysOf(ctx, t, ch)
	if err != nil {
		t.Fatal(err)
	}
	job := "single-node 8k1k / " + key
	sweep, _ := VerifySweep("SemiAnalysisAI/InferenceX", []CommitRuns{
		{SHA: "8d034aa96d340b569de06f4e45886179210f00ed", Runs: append(runs(3, job, "failure", 31147925932), runs(2, "eval / "+hostileLink, "success", 31147925932)...)},
	}, nil)
	rows := []EvalRow{{ModelPrefix: "kimik2.5", Model: hostileLink, HW: "B200 " + hostileTicks, Framework: "vllm", Precision: "fp4",
		SpecDecoding: "none", Task: "gsm8k " + hostileLink, ScoreName: hostileTicks, TP: 8, EP: 1, DPAttention: "false"}}
	evals := VerifyEvals(EvalInput{Repo: "SemiAnalysisAI/InferenceX", RunID: 31147925932, Rows: rows,
		Thresholds: []byte("default:\n  gsm8k: 0.90\n"), ThresholdsPath: "utils/evals/thresholds.yaml", Keys: keys})
	upstream := map[string]UpstreamPR{}
	for _, l := range UpstreamLinks(so) {
		upstream[l.URL] = UpstreamPR{State: "OPEN", Diff: "+ " + hostileLink + "\n"}
	}
	recipe := VerifyRecipe(ctx, RecipeInput{Change: ch, SignOff: so, Upstream: upstream})
	reuse := VerifyReuse([]ReuseCommand{
		{URL: "https://github.com/SemiAnalysisAI/InferenceX/pull/2512#issuecomment-1", Author: "evil-user", Association: "CONTRIBUTOR", Command: "/reuse-sweep-run"},
		{URL: "https://github.com/SemiAnalysisAI/InferenceX/pull/2512#issuecomment-2", Author: "Ankur-singh", Association: "COLLABORATOR",
			Command: "/use", RunID: 31147925932, Authorized: true, Reason: "run 31147925932 is a run of the workflow " + prose.Code(hostileLink+hostileLines) + ", not of the sweep workflow"},
	}, nil)
	allow := gfmtest.Allow{Links: []string{"https://github.com/SemiAnalysisAI/InferenceX/", "https://github.com/vllm-project/recipes/pull/412"},
		Mentions: []string{"Ankur-singh"}}
	for _, signer := range []string{"Ankur-singh", "Ankur-singh " + hostileLink} {
		so.Signer = signer
		v, err := Verify(ctx, Input{Change: ch, Registry: reg, SignOff: so, SHA: "8d034aa96d340b569de06f4e45886179210f00ed",
			GitHub: []Check{sweep, evals, recipe, reuse}, Teams: fakeTeams{}, Author: "Ankur-singh"})
		if err != nil {
			t.Fatal(err)
		}
		if v.Pass() {
			t.Fatalf("a hostile PR passes:\n%s", v.Render())
		}
		d := gfmtest.Check(t, "verdict signed "+strconv.Quote(signer), v.Render(), allow)
		for _, want := range []string{key, image} {
			if !d.Shows(want) {
				t.Errorf("the verdict does not show %q whole in a code span; spans %q", want, d.Spans)
			}
		}
		for _, c := range v.Checks {
			gfmtest.Check(t, "check "+Name(c.N), c.line(), allow)
		}
	}
}
