package app

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/internal/gfmtest"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// fileSet is a fixture tree as path → content, for a case to rewrite.
type fileSet map[string]string

// replace replaces old (which must be there) with new in every file whose
// path ends with suffix.
func (fs fileSet) replace(t *testing.T, suffix, old, new string) {
	t.Helper()
	found := false
	for p, c := range fs {
		if strings.HasSuffix(p, suffix) && strings.Contains(c, old) {
			fs[p] = strings.ReplaceAll(c, old, new)
			found = true
		}
	}
	if !found {
		t.Fatalf("no file *%s holds %q", suffix, old)
	}
}

// rename moves the file at from (which must exist) to to.
func (fs fileSet) rename(t *testing.T, from, to string) {
	t.Helper()
	c, ok := fs[from]
	if !ok {
		t.Fatalf("no file %s", from)
	}
	delete(fs, from)
	fs[to] = c
}

// ruleCase is a PR that makes one rule report values it controls.
type ruleCase struct {
	// fixture is a fixture PR of testdata/prs where the rule fires.
	fixture string
	// edit puts hostile values into the fixture's trees; the PR's
	// labels and metadata are edit's to change too.
	edit func(t *testing.T, base, head fileSet, pr *checks.PRInfo)
	// shows are the hostile values the rule's findings must show whole.
	shows []string
}

// ruleCases has a case for every rule of the registry: a rule added
// without one fails TestGFMRules. Each says, where it matters, which of
// the hostile values cannot reach the rule.
var ruleCases = map[string]ruleCase{}

const hostileFixtures = "../testdata/prs"

// hostileFP is the fingerprint of an earlier finding of a hostile path
// that the re-review reports as resolved.
const hostileFP = "0123456789abcdef"

// Every rule's findings, with values of the PR's choosing, render as the
// App posts them (inline comments, the summary with every finding outside
// the diff, a re-review's summary) without markup of the PR's making.
func TestGFMRules(t *testing.T) {
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	allow := gfmtest.Allow{Links: []string{"https://github.com/SemiAnalysisAI/InferenceX/"}}
	for _, rule := range reg.Rules() {
		t.Run(rule.ID, func(t *testing.T) {
			tc, ok := ruleCases[rule.ID]
			if !ok {
				t.Fatalf("rule %s has no hostile case in ruleCases", rule.ID)
			}
			ctx := context.Background()
			fx, err := trees.LoadFixture(ctx, filepath.Join(hostileFixtures, tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			b, err := checks.Snapshot(ctx, fx.Base)
			if err != nil {
				t.Fatal(err)
			}
			h, err := checks.Snapshot(ctx, fx.Head)
			if err != nil {
				t.Fatal(err)
			}
			base, head := fileSet(b), fileSet(h)
			pr := fx.PR
			tc.edit(t, base, head, &pr)
			bt, ht := checks.NewMemTree(base), checks.NewMemTree(head)
			files, err := trees.Diff(ctx, bt, ht)
			if err != nil {
				t.Fatal(err)
			}
			date := fx.Date
			if date.IsZero() {
				date = time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)
			}
			res, err := checks.Review(ctx, reg, &checks.Change{Base: bt, Head: ht, Files: files, PR: pr, Date: date})
			if err != nil {
				t.Fatal(err)
			}
			var mine []checks.Finding
			for _, f := range res.Findings {
				if f.Rule == rule.ID {
					mine = append(mine, f)
				}
			}
			if len(mine) == 0 {
				t.Fatalf("%s did not fire on its hostile case; findings: %v", rule.ID, res.Findings)
			}
			first := reviewer.BuildPlan(res.Findings, files, reviewer.PlanOptions{
				SweepLabels: &reviewer.SweepLabels{Applies: true, Labels: pr.Labels}, NotReviewed: res.NotReviewed})
			for _, c := range first.Inline {
				gfmtest.Check(t, "inline comment on "+c.Path, c.Body, allow)
			}
			gfmtest.Check(t, "summary", first.Summary, allow)
			// Nothing in the diff: every finding is listed, with its
			// reasoning, in the summary of a re-review that also reports a
			// finding of a hostile path as resolved.
			again := reviewer.BuildPlan(res.Findings, nil, reviewer.PlanOptions{ReReview: true, NotReviewed: res.NotReviewed,
				Previous: []reviewer.PostedFinding{{Fingerprint: hostileFP, Rule: rule.ID, Path: "benchmarks/@evil-user`x`.sh"}}})
			d := gfmtest.Check(t, "re-review summary", again.Summary, allow)
			if os.Getenv("GFM_DUMP") != "" {
				t.Log(again.Summary)
			}
			for _, v := range tc.shows {
				if !d.Shows(v) {
					t.Errorf("the findings do not show %q whole in a code span or block; spans: %q", v, d.Spans)
				}
			}
		})
	}
}

// The hostile values of internal/gfmtest, by the names the cases use.
const (
	hostileLink  = gfmtest.Link
	hostileTicks = gfmtest.Ticks
	hostileLines = gfmtest.Lines
)

// yamlString is s as a YAML double-quoted scalar, which can hold
// anything (Go's escapes are YAML's).
func yamlString(s string) string { return strconv.Quote(s) }

func init() {
	ruleCases["CL001"] = ruleCase{
		fixture: "cl-seed001-four-x",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", "pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXXX",
				"pr-link: "+yamlString(hostileLink+" "+hostileTicks+" "+hostileLines))
		},
		shows: []string{hostileLink + " " + hostileTicks + " " + hostileLines},
	}
}

// hostileName is what a file or directory name can hold of the hostile
// values: anything but a slash, so no link destination with "//".
const hostileName = "@evil-user `evil` <img src=x onerror=alert(1)> www.evil.example"

// hostileKey is a config key: any YAML string.
var hostileKey = "dsr1-fp8-h200-sglang-" + hostileLink + " " + hostileTicks + " " + hostileLines

func init() {
	// A changed historical entry: CL002 quotes the changed line and the
	// entry's text. A line holds no line break; the YAML escapes carry
	// the hostile line breaks into the entry's text only.
	desc := hostileLink + " " + hostileTicks + " " + hostileLines
	ruleCases["CL002"] = ruleCase{
		fixture: "cl-history-edited",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", `    - "Append TP4 concurrency 1 and 2 points to the GPU-resident curve"`, "    - "+yamlString(desc))
		},
		shows: []string{"- " + yamlString(desc)},
	}
	// A config key (quoted YAML) and the master config's file name.
	ruleCases["CL003"] = ruleCase{
		fixture: "cl-config-without-entry",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.replace(t, "configs/nvidia-master.yaml", "\ndsr1-fp8-h200-sglang:", "\n"+yamlString(hostileKey)+":")
				fs.rename(t, "configs/nvidia-master.yaml", "configs/"+hostileName+"-master.yaml")
			}
		},
		shows: []string{hostileKey, "configs/" + hostileName + "-master.yaml"},
	}
	ruleCases["CL004"] = ruleCase{
		fixture: "cl-unknown-config-key",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", "    - dsv4-fp4-b300-vllm-agentc", "    - "+yamlString(hostileKey))
		},
		shows: []string{hostileKey},
	}
	ruleCases["CL005"] = ruleCase{
		fixture: "cl-scenario-type-unknown",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", "    - agentic\n", "    - "+yamlString("agentic "+desc)+"\n  "+yamlString(hostileKey)+": x\n")
		},
		shows: []string{"agentic " + desc, hostileKey},
	}
	ruleCases["CL006"] = ruleCase{
		fixture: "cl-append-only-mixed",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", "    - dsv4-fp4-b200-vllm\n  description:\n    - \"Retune", "    - "+yamlString(hostileKey)+"\n  description:\n    - \"Retune")
		},
		shows: []string{hostileKey},
	}
	// CL007 names lines by number; its suggestion carries the line.
	ruleCases["CL007"] = ruleCase{
		fixture: "cl-trailing-spaces",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", "    - agentic-coding   \n", "    - agentic-coding # "+hostileName+" ```` </details>   \n")
		},
		shows: []string{"    - agentic-coding # " + hostileName + " ```` </details>"},
	}
}

// renameKey renames config key old (a top-level key of the master
// configs, an item of changelog entries) to new, a YAML string.
func (fs fileSet) renameKey(t *testing.T, old, new string) {
	t.Helper()
	found := false
	for p, c := range fs {
		if !strings.HasSuffix(p, ".yaml") {
			continue
		}
		r := strings.NewReplacer("\n"+old+":", "\n"+yamlString(new)+":", "- "+old+"\n", "- "+yamlString(new)+"\n")
		if n := r.Replace(c); n != c {
			fs[p], found = n, true
		}
	}
	if !found {
		t.Fatalf("no config key %s", old)
	}
}

func init() {
	spec := "mtp " + hostileLink + " " + hostileTicks
	ruleCases["MC001"] = ruleCase{
		fixture: "mc-expname-collision",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			key := "dsv41flash-fp4-gb200-vllm-agentic-dspark-" + hostileLink
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsv41flash-fp4-gb200-vllm-agentic-dspark", key)
				fs.replace(t, "nvidia-master.yaml", "{ tp: 4, spec-decoding: mtp, conc-list: [1,", "{ tp: 4, spec-decoding: "+yamlString(spec)+", conc-list: [1,")
			}
			head.replace(t, "nvidia-master.yaml", "{ tp: 4, ep: 4, dp-attn: true, spec-decoding: mtp,",
				"{ tp: 4, ep: "+yamlString("@org/team")+", dp-attn: "+yamlString("true "+hostileLines)+", spec-decoding: "+yamlString(spec)+",")
		},
		shows: []string{"dsv41flash-fp4-gb200-vllm-agentic-dspark-" + hostileLink, spec, "@org/team", "true " + hostileLines},
	}
	image := "/scratch/" + hostileLink + " " + hostileTicks + " " + hostileLines
	ruleCases["MC002"] = ruleCase{
		fixture: "mc-image-local-path",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "nvidia-master.yaml", "image: /scratch/shared/images/vllm-dsv4-b200-patched", "image: "+yamlString(image))
		},
		shows: []string{"image: " + image},
	}
	fork := "ghcr.io#someorg/vllm-fork:" + hostileLink + " " + hostileTicks
	ruleCases["MC003"] = ruleCase{
		fixture: "mc-image-not-upstream",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "nvidia-master.yaml", "image: ghcr.io#someorg/vllm-fork:dsv4-offload-2", "image: "+yamlString(fork))
		},
		shows: []string{fork},
	}
	// The key's first segment and the model prefix; the precision
	// segment stays fp4, or the key would fail another way.
	ruleCases["MC004"] = ruleCase{
		fixture: "mc-key-prefix-mismatch",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "dsv41flash-fp4-b200-vllm-agentic-dspark", "dsv41flash-fp4-b200-vllm-agentic-dspark "+hostileTicks)
			head.replace(t, "nvidia-master.yaml", "  model-prefix: dsv4\n  runner: cluster:b200-dgxc", "  model-prefix: "+yamlString("dsv4 "+hostileLink)+"\n  runner: cluster:b200-dgxc")
		},
		shows: []string{"dsv41flash-fp4-b200-vllm-agentic-dspark " + hostileTicks, "dsv4 " + hostileLink},
	}
	// MODELS.md decides the model and precision; the key and the file
	// name are the PR's.
	ruleCases["MC005"] = ruleCase{
		fixture: "mc-deprecated-qwen35-bf16",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "qwen3.5-bf16-b200-sglang", "qwen3.5-bf16-b200-sglang-"+hostileLink+hostileLines)
			for _, fs := range []fileSet{base, head} {
				fs.rename(t, "configs/nvidia-master.yaml", "configs/"+hostileName+"-master.yaml")
			}
		},
		shows: []string{"qwen3.5-bf16-b200-sglang-" + hostileLink + hostileLines, "configs/" + hostileName + "-master.yaml"},
	}
	ruleCases["MC007"] = ruleCase{
		fixture: "mc007-last-dram-row-removed-pr2574",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsv4-fp4-mi355x-vllm-agentic", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	ruleCases["MC008"] = ruleCase{
		fixture: "mc008-ep-beyond-tp-pr1978",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsr1-fp4-b200-sglang", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	ruleCases["MC009"] = ruleCase{
		fixture: "mc009-repeated-point-pr1584",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "qwen3.5-fp8-mi355x-atom", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	// The image reference and the key reach the message.
	movingImage := "vllm/vllm-openai-rocm:" + hostileLink + "-latest"
	ruleCases["MC010"] = ruleCase{
		fixture: "mc010-nightly-tag-pr2674",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "amd-master.yaml", "image: vllm/vllm-openai-rocm:nightly", "image: "+yamlString(movingImage))
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsv4-fp4-mi355x-vllm-agentic", hostileKey)
			}
		},
		shows: []string{movingImage, hostileKey},
	}
	ruleCases["MC011"] = ruleCase{
		fixture: "mc011-conc-gap-pr1008",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsr1-fp4-gb200-dynamo-sglang", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	ruleCases["MC006"] = ruleCase{
		fixture: "mc-yaml-duplicate-key",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "glm5.2-fp4-b300-sglang-agentic-mtp", "glm5.2-fp4-b300-sglang-agentic-mtp "+hostileTicks)
			}
			dup := "  " + yamlString(hostileLink+hostileLines) + ": 1\n"
			head.replace(t, "nvidia-master.yaml", "  image: lmsysorg/sglang:v0.5.17-cu130\n", "  image: lmsysorg/sglang:v0.5.17-cu130\n"+dup+dup)
		},
		shows: []string{"glm5.2-fp4-b300-sglang-agentic-mtp " + hostileTicks, hostileLink + hostileLines},
	}
}

// hostileFile renames the file at p, in both trees where it exists, to a
// name that carries hostileName before its engine suffix (_vllm.sh, ...)
// or extension, and returns the new path.
func hostileFile(t *testing.T, base, head fileSet, p string) string {
	t.Helper()
	to := hostilePath(p)
	for _, fs := range []fileSet{base, head} {
		if _, ok := fs[p]; ok {
			fs.rename(t, p, to)
		}
	}
	return to
}

// hostilePath is p with hostileName before its engine suffix (a
// runner's launcher: before its extension, keeping launch_).
func hostilePath(p string) string {
	dir, name := path.Split(p)
	cut := strings.LastIndex(name, "_")
	if cut < 0 || strings.HasPrefix(name, "launch_") {
		cut = strings.LastIndex(name, ".")
	}
	return dir + name[:cut] + " " + hostileName + name[cut:]
}

// recipeCase is a case whose rule reports on the script at p: the script
// gets a hostile name, and edit, when set, hostile lines.
func recipeCase(fixture, p string, edit func(t *testing.T, base, head fileSet, p string), shows ...string) ruleCase {
	return ruleCase{
		fixture: fixture,
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			if edit != nil {
				edit(t, base, head, p)
			}
			hostileFile(t, base, head, p)
		},
		shows: append(shows, hostilePath(p)),
	}
}

func init() {
	const (
		sn = "benchmarks/single_node/"
		ag = "benchmarks/single_node/agentic/"
	)
	ruleCases["SH001"] = recipeCase("cv001-silent-env-and-strict-mode", sn+"dsr1_fp8_h200_sglang.sh", nil)
	ruleCases["SH002"] = recipeCase("cv001-defers-to-sh002", ag+"dsv4_fp4_mi355x_vllm.sh", nil)
	ruleCases["SH003"] = recipeCase("sh003-seed001-lmcache-arm", ag+"dsv4_fp4_b300_vllm.sh", nil)
	ruleCases["SH004"] = recipeCase("sh004-seed003-per-rank-key", ag+"dsv4_fp4_b200_vllm.sh", nil)
	ruleCases["SH005"] = recipeCase("sh005-comment-names-this-model", ag+"dsv4_fp4_b300_vllm.sh", nil)
	ruleCases["SH006"] = recipeCase("sh006-new-sglang-without-parser", ag+"glm5.2_fp4_b200_sglang.sh", nil)
	ruleCases["SH007"] = recipeCase("sh005-seed003-b200-refresh", ag+"dsv4_fp4_b200_vllm.sh", nil)
	ruleCases["SH008"] = recipeCase("sh008-hardcoded-in-array", ag+"dsv4_fp4_b300_vllm.sh", nil)
	ruleCases["SH009"] = recipeCase("rb002-ignore-without-reason", sn+"kimik2.5_fp4_b200_vllm.sh", nil)
	ruleCases["SH010"] = recipeCase("sh010-mtp-chat-template-dropped", sn+"dsv4_fp4_b200_vllm_mtp.sh", nil)
	ruleCases["SH011"] = recipeCase("sh011-patch-file-and-git-apply", ag+"kimik3_fp4_h200_vllm.sh", nil)
	ruleCases["SH012"] = recipeCase("sh012-config-copy-unknown-keys", sn+"kimik2.5_fp4_b200_vllm.sh", nil)
	ruleCases["SH013"] = recipeCase("sh013-sglang-without-simulate-acc-len", ag+"qwen3.5_fp8_b200_sglang.sh", nil)
	ruleCases["SH024"] = recipeCase("sh024-embedded-pipe-without-pipefail-pr2558", "runners/launch_mi300x-amds-srt.sh", nil)
	ruleCases["TX002"] = recipeCase("tx002-golden-comment-other-model-pr2756", ag+"glm5.2_fp4_b200_sglang.sh", nil)
	ruleCases["SH026"] = recipeCase("sh026-agentic-cap-at-conc-pr2496", ag+"kimik3_fp4_h200_vllm.sh", nil)
	// The stray option and the lost branch's test reach the messages.
	ruleCases["SH027"] = recipeCase("sh027-broken-continuation-pr1626", ag+"glm5.2_fp4_mi355x_atom.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "    --trust-remote-code \\", "    --'"+hostileName+" ```` </details>' \\")
		}, "--"+hostileName+" ```` </details>")
	ruleCases["SH028"] = recipeCase("sh028-source-path-after-move-pr1860", sn+"fixed_seq_len/dsv4_fp4_b200_vllm_mtp.sh", nil)
	// The variable's name cannot carry markup (a shell name); the path can.
	ruleCases["SH030"] = recipeCase("sh030-unbound-variable-pr2508", ag+"dsv4_fp4_mi355x_vllm.sh", nil)
	// The name is capitals and digits only; the line the suggestion
	// rewrites is the PR's, and a hostile comment on it rides along.
	ruleCases["SH031"] = recipeCase("sh031-brace-without-dollar-pr1566", "benchmarks/multi_node/sglang_disagg_worker.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "export SGLANG_MORI_COMBINE_DTYPE={COMBINE_DTYPE_DECODE}",
				"export SGLANG_MORI_COMBINE_DTYPE={COMBINE_DTYPE_DECODE} # "+hostileName+" ```` </details>")
		})
	// The substitution is quoted whole, hostile words and all; its name
	// is capitals only.
	ruleCases["SH032"] = recipeCase("sh032-variable-run-as-command-pr1210", sn+"dsv4_fp4_b200_vllm_mtp.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "MAX_NUM_BATCHED_TOKENS=$( ISL * 2 )", "MAX_NUM_BATCHED_TOKENS=$( ISL '"+hostileName+" ```` </details>' )")
		}, "$( ISL '"+hostileName+" ```` </details>' )")
	// The option's value is quoted whole, hostile words and all, in the
	// new recipe and in the FP8 recipe it names as the copy source.
	ruleCases["SH033"] = recipeCase("sh033-bf16-copy-keeps-fp8-kv-cache-pr1040", sn+"qwen3.5_bf16_mi355x_atom.sh",
		func(t *testing.T, base, head fileSet, p string) {
			const evil = "    --kv_cache_dtype 'fp8 " + hostileName + " ```` </details>' \\"
			head.replace(t, p, "    --kv_cache_dtype fp8 \\", evil)
			for _, fs := range []fileSet{base, head} {
				fs.replace(t, sn+"qwen3.5_fp8_mi355x_atom.sh", "    --kv_cache_dtype fp8 \\", evil)
			}
		}, "--kv_cache_dtype fp8 "+hostileName+" ```` </details>")
	ruleCases["SH029"] = recipeCase("sh029-args-reset-after-ep-branch-pr2199", ag+"glm5.2_fp4_mi355x_atom.sh",
		func(t *testing.T, base, head fileSet, p string) {
			for _, fs := range []fileSet{base, head} {
				fs.replace(t, p, `if [ "${EP_SIZE:-1}" -gt 1 ]; then`, `if [ "${EP_SIZE:-1}" -gt 1 ] && [ "$X" != '`+hostileName+" ```` </details>' ]; then")
			}
		}, hostileName+" ```` </details>")
	ruleCases["SH014"] = recipeCase("sh014-unterminated-case-plus-config", ag+"dsv4_fp4_b300_sglang.sh", nil)
	ruleCases["SH015"] = recipeCase("sh015-context-length-twice-in-eval-runs-pr1252", sn+"dsr1_fp8_h200_sglang.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, `--context-length "$CONTEXT_LENGTH"`, `--context-length '`+hostileName+" ```` </details>'")
		}, "--context-length "+hostileName+" ```` </details>")
	ruleCases["SH016"] = recipeCase("sh016-eval-context-never-passed-pr1078", sn+"dsr1_fp8_h200_sglang.sh", nil)
	ruleCases["SH017"] = recipeCase("sh017-unpinned-clone-pr2118", ag+"dsv4_fp4_mi355x_vllm.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "git clone https://github.com/LMCache/LMCache.git", "git clone '"+hostileName+" ```` </details>'")
		}, hostileName+" ```` </details>")
	// The siblings' value reaches the message and the suggested export.
	ruleCases["SH018"] = recipeCase("sh018-family-env-missing-pr1480", sn+"glm5_fp8_h200_mtp.sh",
		func(t *testing.T, base, head fileSet, p string) {
			for _, sib := range []string{"glm5_fp4_b200_mtp.sh", "glm5_fp8_b300_mtp.sh", "glm5_fp8_mi355x_mtp.sh"} {
				base.replace(t, sn+sib, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2='"+hostileName+" ```` </details>'")
				head.replace(t, sn+sib, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2='"+hostileName+" ```` </details>'")
			}
		}, "SGLANG_ENABLE_SPEC_V2="+hostileName+" ```` </details>")
	// The assignment's text reaches the fix and the suggested export.
	ruleCases["SH019"] = recipeCase("sh019-engine-variable-not-exported-pr1059", sn+"dsr1_fp4_b200_sglang_mtp.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2='"+hostileName+" ```` </details>'")
		}, "export SGLANG_ENABLE_SPEC_V2='"+hostileName+" ```` </details>'")
	// The eval call's line reaches the suggested staging.
	ruleCases["SH020"] = recipeCase("sh020-eval-only-not-staged-pr3264", sn+"fixed_seq_len/qwen3.827b_bf16_mi300x_mtp.sh",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "    run_eval --framework lm-eval --port \"$PORT\"\n    exit 0",
				"    run_eval --framework '"+hostileName+" ```` </details>' --port \"$PORT\"\n    exit 0")
		}, "run_eval --framework '"+hostileName+" ```` </details>'")
	// The command's first word, as written, reaches the title and message.
	ruleCases["SH021"] = recipeCase("sh021-masked-status-pr258", "benchmarks/benchmark_lib.sh",
		func(t *testing.T, base, head fileSet, p string) {
			const client = "    python3 \"${BENCH_CLIENT_DIR"
			const evil = "    '" + hostileName + " ```` </details>' \"${BENCH_CLIENT_DIR"
			base.replace(t, p, client, evil)
			head.replace(t, p, client, evil)
		}, "'"+hostileName+" ```` </details>'")
	// A sibling's option value reaches the fix.
	ruleCases["SH022"] = recipeCase("sh022-family-option-pr1680", sn+"qwen3.5_fp4_mi355x.sh",
		func(t *testing.T, base, head fileSet, p string) {
			for _, sib := range []string{"qwen3.5_fp8_b200.sh", "qwen3.5_fp8_h200.sh", "qwen3.5_fp8_mi355x.sh"} {
				base.replace(t, sn+sib, "--tokenizer-worker-num 6", "--tokenizer-worker-num '"+hostileName+" ```` </details>'")
				head.replace(t, sn+sib, "--tokenizer-worker-num 6", "--tokenizer-worker-num '"+hostileName+" ```` </details>'")
			}
		}, "--tokenizer-worker-num "+hostileName+" ```` </details>")
	// The GPU peers' option value reaches the fix.
	ruleCases["SH023"] = recipeCase("sh023-gpu-carried-pr1050", sn+"dsr1_fp8_b300.sh",
		func(t *testing.T, base, head fileSet, p string) {
			for _, peer := range []string{"dsr1_fp4_b300.sh", "qwen3.5_fp8_b300.sh", "qwen3.5_fp8_b300_mtp.sh"} {
				base.replace(t, sn+peer, "--enable-symm-mem", "--enable-symm-mem '"+hostileName+" ```` </details>'")
				head.replace(t, sn+peer, "--enable-symm-mem", "--enable-symm-mem '"+hostileName+" ```` </details>'")
			}
		}, "--enable-symm-mem "+hostileName+" ```` </details>")
	ruleCases["RN001"] = recipeCase("rn001-import-removed", "runners/launch_b300-nv.sh", nil)
	// The option's value (the PR's and the siblings') and the siblings'
	// test reach the title, the message and the evidence.
	ruleCases["SH025"] = recipeCase("sh025-gated-option-passed-everywhere-pr2138", ag+"dsv4_fp4_b200_vllm.sh",
		func(t *testing.T, base, head fileSet, p string) {
			evil := "'" + hostileName + " ```` </details>'"
			for _, sib := range []string{sn + "dsv4_fp4_b200_vllm.sh", sn + "dsv4_fp4_b200_vllm_mtp.sh", ag + "dsv4_fp4_b300_vllm.sh"} {
				for _, fs := range []fileSet{base, head} {
					fs.replace(t, sib, "--moe-backend deep_gemm_mega_moe", "--moe-backend "+evil)
					fs.replace(t, sib, `if [ "${DP_ATTENTION:-false}" = "true" ]; then`+"\n    MOE_ARGS", `if [ "${DP_ATTENTION:-false}" = `+evil+" ]; then\n    MOE_ARGS")
				}
			}
			head.replace(t, p, "--moe-backend deep_gemm_mega_moe", "--moe-backend "+evil)
		}, "--moe-backend "+hostileName+" ```` </details>")
}

func init() {
	ruleCases["CL008"] = ruleCase{
		fixture: "cl008-bare-xxx-left-pr1432",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "qwen3.5-fp8-mi355x-atom", hostileKey)
		},
		shows: []string{hostileKey},
	}
}

func init() {
	const fsl = "benchmarks/single_node/fixed_seq_len/"
	// The row's key and its model prefix reach the finding and the env
	// the launcher was followed with.
	prefix := "kimik3" + hostileTicks
	ruleCases["PL001"] = ruleCase{
		fixture: "pl001-new-model-launcher-rejects",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "kimik3-fp4-b200-sglang", hostileKey)
			head.replace(t, "nvidia-master.yaml", "model-prefix: kimik3\n", "model-prefix: "+yamlString(prefix)+"\n")
		},
		shows: []string{hostileKey, "MODEL_PREFIX=" + prefix},
	}
	ruleCases["PL002"] = recipeCase("pl002-new-recipe-misnamed", fsl+"glm52_fp4_b200_sglang.sh", nil)
	// The key and the runner label it names are the PR's.
	label := "cluster:mi355x-amd " + hostileLink + hostileTicks
	ruleCases["PL008"] = ruleCase{
		fixture: "pl008-new-config-on-undefined-label",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "amd-master.yaml", "runner: cluster:mi355x-amd\n", "runner: "+yamlString(label)+"\n")
			head.renameKey(t, "qwen3.5-fp8-mi355x-atom", hostileKey)
		},
		shows: []string{hostileKey, label},
	}
	ruleCases["PL009"] = ruleCase{
		fixture: "pl009-script-forces-expert-parallel-pr1144",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "kimik2.5-fp4-b200-vllm", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	// The recipe's path stays: the launcher splits CONFIG_FILE= on
	// blanks.
	ruleCases["PL003"] = ruleCase{
		fixture: "pl003-recipe-offloads-row-declares-none",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "glm5.2-fp4-gb200-dynamo-trt-agentic-c32", hostileKey)
		},
		shows: []string{hostileKey},
	}
	ruleCases["PL004"] = ruleCase{
		fixture: "pl004-ep-row-script-only-prints-ep",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "glm5.2-fp4-b200-sglang", hostileKey)
		},
		shows: []string{hostileKey},
	}
	ruleCases["PL005"] = ruleCase{
		fixture: "pl005-docker-launch-does-not-pass-ep-size",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "qwen3.5-fp8-h100-sglang", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	// The test PL006 quotes is a line of the script.
	test := `[ "${DP_ATTENTION:-0}" = '1 ` + hostileName + " ```` </details>' ]"
	// The rows must still reach the script, so its name stays.
	ruleCases["PL010"] = ruleCase{
		fixture: "pl010-conc-falls-to-unsupported-arm",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsr1-fp4-b200-sglang", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	ruleCases["PL011"] = ruleCase{
		fixture: "pl011-recipe-concs-pr2462",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsr1-fp4-gb200-dynamo-sglang", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
	ruleCases["PL006"] = ruleCase{
		fixture: "pl006-dp-attention-compared-with-1",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, fsl+"dsr1_fp4_b200_sglang.sh", `[ "${DP_ATTENTION:-0}" = "1" ]`, test)
		},
		shows: []string{test},
	}
	spec := "eagle " + hostileLink + " " + hostileTicks
	ruleCases["PL007"] = ruleCase{
		fixture: "pl007-spec-decoding-value-not-allowed",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "dsr1-fp4-b200-sglang-mtp", hostileKey)
			head.replace(t, "nvidia-master.yaml", "spec-decoding: eagle", "spec-decoding: "+yamlString(spec))
		},
		shows: []string{hostileKey, spec},
	}
}

func init() {
	const mn = "benchmarks/multi_node/srt-slurm-recipes/"
	ruleCases["MN001"] = recipeCase("mn001-decode-gpus-below-tp-pr1232", mn+"sglang/deepseek-v4/8k1k/conc256.yaml", nil)
	// A key set twice: the key and both values are the recipe's (the
	// finding names the key and the lines).
	key, value := "moe-runner-backend "+hostileTicks, "flashinfer_trtllm "+hostileLink
	ruleCases["MN002"] = recipeCase("mn002-backend-set-twice-pr1514", mn+"sglang/deepseek-v4/8k1k/lowlat.yaml",
		func(t *testing.T, base, head fileSet, p string) {
			head.replace(t, p, "      moe-runner-backend: flashinfer_cutedsl\n", "      "+yamlString(key)+": flashinfer_cutedsl\n")
			head.replace(t, p, "      moe-runner-backend: flashinfer_trtllm\n", "      "+yamlString(key)+": "+yamlString(value)+"\n")
		}, key)
	ruleCases["MN003"] = recipeCase("mn003-capture-size-8196-pr1938", mn+"vllm/minimax-m3/1k1k/1p1d-dep4-tep8.yaml", nil)
	ruleCases["MN004"] = recipeCase("mn004-decode-worker-without-nodes", mn+"sglang/dsr1/gb200-fp4/8k1k/p1-dep4-d2-tep8.yaml", nil)
}

func init() {
	const sn = "benchmarks/single_node/"
	ruleCases["CV001"] = recipeCase("cv001-confirmed-blocks", sn+"dsr1_fp8_h200_sglang.sh", nil)
	// The config file is the PR's: a rule ID and a value of its choosing.
	ruleCases["RB001"] = ruleCase{
		fixture: "rb001-config-invalid",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, ".github/reviewbot.yml", "  MC003: warn\n", "  MC003: "+yamlString("warn "+hostileLink+hostileLines)+"\n")
		},
		// The loader's error quotes the value Go-escaped, in a code span.
		shows: []string{strconv.Quote("warn " + hostileLink + hostileLines)},
	}
	ruleCases["RB002"] = recipeCase("rb002-ignore-without-reason", sn+"kimik2.5_fp4_b200_vllm.sh", nil)
	ruleCases["RB003"] = recipeCase("rb003-unused-ignore", sn+"kimik2.5_fp4_b200_vllm.sh", nil)
}

// A reuse command's reply quotes what the API says of the run: its
// workflow's file name and its artifacts' names, which the PR's own
// workflows choose. None of it becomes markup of the reply.
func TestGFMCommandReplies(t *testing.T) {
	evilName := "x `evil` @evil-user <img src=x onerror=alert(1)> [x](http://evil.example) www.evil.example"
	tests := []struct {
		name  string
		body  string
		setup func(t *testing.T, sd *seed004)
		shows []string
	}{
		{name: "run of another workflow", body: "/use 555",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 555, Workflow: evilName + ".yml", Conclusion: "success", HeadSHA: seed004Head})
			},
			shows: []string{evilName}},
		{name: "artifacts", body: "/use 560",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 560, Conclusion: "success", HeadSHA: seed004Head})
				sd.h.fake.AddArtifact(sd.pr.Base, 560, fakegithub.ArtifactSpec{Name: "results_" + evilName, Data: []byte("PK"), Expired: true})
				sd.h.fake.AddArtifact(sd.pr.Base, 560, fakegithub.ArtifactSpec{Name: evilName, Data: []byte("PK")})
			},
			shows: []string{"results_" + evilName, evilName}},
		{name: "reusable run", body: "/use 561",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 561, Conclusion: "success", HeadSHA: seed004Head})
				sd.h.fake.AddArtifact(sd.pr.Base, 561, fakegithub.ArtifactSpec{Name: "results_" + evilName, Data: []byte("PK")})
			},
			shows: []string{"results_" + evilName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
			sd := serveSeed004(t, h, nil)
			tt.setup(t, sd)
			c := sd.postComment(t, "someone", "MEMBER", tt.body, time.Time{})
			h.wait()
			reply := replyTo(t, h, sd.pr, c.GetID())
			d := gfmtest.Check(t, "reply", reply, gfmtest.Allow{Links: []string{"https://github.com/SemiAnalysisAI/InferenceX/"}, Mentions: []string{"someone"}})
			for _, v := range tt.shows {
				if !d.Shows(v) {
					t.Errorf("the reply does not show %q whole in a code span: spans %q\n%s", v, d.Spans, reply)
				}
			}
		})
	}
}

func init() {
	// An unfinished description line is quoted in the finding.
	desc := "TODO " + hostileLink + " " + hostileTicks + " " + hostileLines
	ruleCases["CL009"] = ruleCase{
		fixture: "cl009-todo-description-pr2132",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", `    - "TODO & update image"`, "    - "+yamlString(desc))
			head.renameKey(t, "qwen3.5-fp8-mi355x-atom", hostileKey)
		},
		shows: []string{desc, hostileKey},
	}
}

// globFreeKey is a hostile key that a changelog's config-keys item can
// name: no shell-glob character ([x](...) would be a character class).
var globFreeKey = "dsv4-fp4-b200-vllm-@evil-user <img src=x onerror=alert(1)> " + hostileTicks + " " + hostileLines

func init() {
	// The description's line and the key are the PR's; the image
	// references the rule quotes are shaped like registry paths.
	desc := "Update to vllm/vllm-openai:v0.25.1-ubuntu2404 " + hostileLink + " " + hostileTicks
	ruleCases["CL010"] = ruleCase{
		fixture: "cl010-description-image-pr1354",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "perf-changelog.yaml", `    - "Update DeepSeek-V4 FP4 B200 vLLM to vllm/vllm-openai:v0.25.1-ubuntu2404"`, "    - "+yamlString(desc))
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsv4-fp4-b200-vllm", globFreeKey)
			}
		},
		shows: []string{globFreeKey},
	}
}

func init() {
	// The setting the siblings share is a key of the PR's choosing.
	name := "compilation-config-" + hostileLink + " " + hostileTicks + " " + hostileLines
	ruleCases["MN005"] = ruleCase{
		fixture: "mn005-decode-setting-lost-pr2462",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.replace(t, "-eagle3-8k1k.yaml", `      compilation-config: '{"cudagraph_mode":"FULL_DECODE_ONLY"}'`, "      "+yamlString(name)+": 1")
			}
		},
		shows: []string{name},
	}
}

func init() {
	// The key and the script's path are the PR's; the limits are numbers.
	for id, fixture := range map[string]string{"PL012": "pl012-context-below-isl-osl", "PL013": "pl013-running-requests-below-conc-pr897", "PL014": "pl014-dp-attention-row-without-ep-pr2268"} {
		ruleCases[id] = ruleCase{
			fixture: fixture,
			edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
				for _, fs := range []fileSet{base, head} {
					fs.renameKey(t, "dsr1-fp4-b200-sglang", globFreeKey)
				}
			},
			shows: []string{globFreeKey},
		}
	}
}

func init() {
	// The comment around the path is the PR's; the rule quotes only the
	// path, whose characters cannot make markup, and the recipe's name.
	ruleCases["TX001"] = ruleCase{
		fixture: "tx001-stale-relative-path-pr1370",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.replace(t, "-c1.yaml", "# The 8k/1k low-latency point: the same 1P1D TP8 layout as",
				"# "+hostileLink+" "+hostileTicks+" the same layout as")
		},
	}
}

func init() {
	// The file name is the PR's: a name that says a concurrency and
	// carries markup around it.
	ruleCases["MN006"] = ruleCase{
		fixture: "mn006-named-conc-not-run-pr1301",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			const dir = "benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k/"
			head.rename(t, dir+"disagg-gb300-4p1d-dep4-dep16-8-c1024.yaml", dir+"@evil-user`x`<img src=x>-c1024.yaml")
		},
		shows: []string{"@evil-user`x`<img src=x>-c1024.yaml"},
	}
}

func init() {
	// The recipe's path stays (the launcher splits CONFIG_FILE= on
	// blanks and expands it); the key that runs it is the PR's.
	ruleCases["CL011"] = ruleCase{
		fixture: "cl011-srt-recipe-serving-change-pr2395",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			for _, fs := range []fileSet{base, head} {
				fs.renameKey(t, "dsr1-fp4-gb200-dynamo-sglang", hostileKey)
			}
		},
		shows: []string{hostileKey},
	}
}

func init() {
	// The roles and values are the rule's own words; the recipe's name is
	// the PR's.
	const dir = "benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/"
	// The comment is not quoted; the recipe's name reaches the summary.
	ruleCases["MN008"] = ruleCase{
		fixture: "mn008-comment-names-other-concurrencies-pr1560",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			const d = "benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m2.5-b300/1k1k/"
			head.replace(t, d+"tp8-1p1d.yaml", "# Only the smallest", "# "+hostileLink+" Only the smallest")
			head.rename(t, d+"tp8-1p1d.yaml", d+"@evil-user`x`<img src=x>-1p1d.yaml")
		},
		shows: []string{"@evil-user`x`<img src=x>-1p1d.yaml"},
	}
	ruleCases["MN007"] = ruleCase{
		fixture: "mn007-decode-copied-from-prefill",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.rename(t, dir+"p1-dep4-d2-tep8.yaml", dir+"@evil-user`x`<img src=x>-d2.yaml")
		},
		shows: []string{"@evil-user`x`<img src=x>-d2.yaml"},
	}
}

func init() {
	// The key past its hardware segment and the runner label are the PR's;
	// the GPU names the rule quotes come from the key's shape and the
	// label's first segment.
	suffix := "atom-" + hostileLink + " " + hostileTicks + " " + hostileLines
	label := "cluster:b300-nv " + hostileName + " " + hostileTicks
	machine := "b300-nv_9 " + hostileLink + " " + hostileTicks
	ruleCases["PL015"] = ruleCase{
		fixture: "pl015-key-on-another-gpus-runner-pr1654",
		edit: func(t *testing.T, base, head fileSet, pr *checks.PRInfo) {
			head.renameKey(t, "qwen3.5-fp8-mi355x-atom-agentic", "qwen3.5-fp8-mi355x-"+suffix)
			head.replace(t, "amd-master.yaml", "runner: cluster:b300-nv\n", "runner: "+yamlString(label)+"\n")
			// runners.yaml defines the label, so its first machine is
			// quoted as evidence: a machine name the PR wrote.
			for _, fs := range []fileSet{base, head} {
				fs.replace(t, "runners.yaml", "labels:\n", "labels:\n  "+yamlString(label)+":\n    - "+yamlString(machine)+"\n")
			}
		},
		shows: []string{suffix, label, machine},
	}
}
