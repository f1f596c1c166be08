package reviewer

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reviewbot-dev/reviewbot/checks"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/<name>, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

// hunk builds a diff hunk from a string of line ops (' ', '+', '-'), numbering
// the lines the way a unified diff does.
func hunk(oldStart, newStart int, ops string) checks.Hunk {
	h := checks.Hunk{OldStart: oldStart, NewStart: newStart}
	o, n := oldStart, newStart
	for _, op := range ops {
		l := checks.DiffLine{Op: checks.LineOp(op)}
		switch l.Op {
		case checks.OpContext:
			l.Old, l.New = o, n
			o++
			n++
			h.OldLines++
			h.NewLines++
		case checks.OpAdd:
			l.New = n
			n++
			h.NewLines++
		case checks.OpDelete:
			l.Old = o
			o++
			h.OldLines++
		}
		h.Lines = append(h.Lines, l)
	}
	return h
}

const (
	changelogPath = "inferencex-e2e/perf-changelog.yaml"
	b300Recipe    = "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh"
	b200Recipe    = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
)

// sampleFiles is the diff of a PR that adds a vllm-simple branch to the B300
// agentic recipe, rewrites the B200 server command, and appends a changelog
// entry.
func sampleFiles() []*checks.FileChange {
	return []*checks.FileChange{
		{Path: changelogPath, OldPath: changelogPath, Status: checks.Modified, Hunks: []checks.Hunk{
			hunk(4793, 4793, "    +++++++++"), // blank separator + 8-line entry at 4797-4805
		}},
		{Path: b200Recipe, OldPath: b200Recipe, Status: checks.Modified, Hunks: []checks.Hunk{
			hunk(223, 223, "   --------++++++   "),
		}},
		{Path: b300Recipe, OldPath: b300Recipe, Status: checks.Modified, Hunks: []checks.Hunk{
			hunk(1, 1, " -+ "),
			hunk(93, 93, "  ++++++++++++++++++++++++++  "),
		}},
	}
}

func prLinkFinding() checks.Finding {
	return checks.Finding{
		Rule: "CL001", Severity: checks.Blocking, Path: changelogPath, Line: 4805,
		Title: "pr-link is neither this PR's link nor an accepted placeholder",
		Body: "The entry appended for `dsv4-fp4-b300-vllm-agentic` links " +
			"`https://github.com/SemiAnalysisAI/InferenceX/pull/2202`, but this is PR #2225. " +
			"The merge tooling accepts only this PR's own link or the `XXX` placeholder for an " +
			"appended entry, so the reuse-merge stops with a validation error although the PR check " +
			"is green. Link `pull/2225` (or write `XXX`).",
		Why: "The PR-time changelog check validates only the shape of the link, so any " +
			"`pull/<number>` passes it. At merge, the canonicalize step compares every appended " +
			"entry with the number of the PR being merged and rejects anything else.",
		Steps: []string{
			"The PR is merged with the reuse tooling, which canonicalizes the changelog.",
			"The appended entry links `pull/2202`; the merging PR is #2225.",
			"Validation fails and the merge script exits before it creates the merge commit.",
		},
		Related: []checks.Location{
			{Path: changelogPath, Line: 4795, Note: "the previous entry links the PR that added it (`pull/2222`)"},
			{Path: "inferencex-e2e/utils/validate_perf_changelog.py", Line: 144, EndLine: 160,
				Note: "an appended entry must link the merging PR or use `XXX`"},
		},
		Suggestion: &checks.Suggestion{Line: 4805,
			Replacement: "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2225\n"},
		Key: "pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2202",
	}
}

func simpleOffloadFinding() checks.Finding {
	return checks.Finding{
		Rule: "SH002", Severity: checks.Blocking, Path: b300Recipe, Line: 98, EndLine: 116,
		Title: "SimpleCPUOffloadConnector without VLLM_USE_SIMPLE_KV_OFFLOAD=1",
		Body: "The new `vllm-simple` branch builds a `--kv-transfer-config` naming " +
			"`SimpleCPUOffloadConnector` but never exports `VLLM_USE_SIMPLE_KV_OFFLOAD=1`. Every " +
			"sibling recipe that uses this connector exports the variable first; without it the " +
			"server starts and the sweep reports numbers, possibly for the wrong offload path. " +
			"Export it at the top of the branch.",
		Why: "The run does not fail without the variable, which is what makes this costly: " +
			"the whole `vllm-simple` row of the sweep would look valid.",
		Related: []checks.Location{
			{Path: "benchmarks/single_node/agentic/kimik2.5_int4_h200.sh", Line: 51, Side: checks.Base,
				Note: "exports the variable on the line before the same JSON config"},
			{Path: "benchmarks/single_node/agentic/kimik2.5_fp4_b300_mtp.sh", Line: 74, Side: checks.Base,
				Note: "same explicit JSON form, same export"},
			{Path: b300Recipe, Line: 170, Note: "the mooncake branch of this file unsets it"},
		},
		Suggestion: &checks.Suggestion{Line: 99,
			Replacement: "  vllm-simple)\n    export VLLM_USE_SIMPLE_KV_OFFLOAD=1\n"},
		Key: "kv_connector SimpleCPUOffloadConnector without env VLLM_USE_SIMPLE_KV_OFFLOAD",
	}
}

func strictModeFinding() checks.Finding {
	return checks.Finding{
		Rule: "SH001", Severity: checks.Warning, Path: b300Recipe, Line: 2,
		Title: "strict mode weakened to set -eo pipefail",
		Body: "Line 2 drops `-u` from `set -euo pipefail`, so a misspelled or unset matrix " +
			"variable now expands to an empty string instead of stopping the run. The siblings keep " +
			"`-u` and guard the optional variables with `${VAR:-}`; do the same here.",
		Why: "With `-u` gone for the whole script, a typo such as `$KV_OFFLAD_BACKEND` " +
			"silently selects the default branch of the backend switch.",
		Related: []checks.Location{
			{Path: b200Recipe, Line: 2, Side: checks.Base, Note: "keeps `set -euo pipefail`"},
			{Path: b200Recipe, Line: 88, Side: checks.Base, Note: "reads the optional backend as `${KV_OFFLOAD_BACKEND:-}`"},
		},
		Key: "set -eo pipefail",
	}
}

func maxSeqsFinding() checks.Finding {
	return checks.Finding{
		Rule: "SH007", Severity: checks.Warning, Path: b200Recipe, Line: 206,
		Title: "MAX_NUM_SEQS not divided by the DP world size",
		Body: "`MAX_NUM_SEQS=$((2 * CONC))` is used for every topology, but with " +
			"`DP_ATTENTION=true` each of the `$TP` ranks is its own engine and sees about `CONC/TP` " +
			"sessions. The B300 sibling divides by `TP` in that case.",
		Why: "`--max-num-seqs` is a per-engine cap, so at `tp: 8`, `conc: 72` every rank is " +
			"configured for 144 sequences while it serves about 9.",
		Related: []checks.Location{
			{Path: b300Recipe, Line: 131, EndLine: 135, Note: "divides by `TP` when `DP_ATTENTION` is true"},
		},
		Key: "MAX_NUM_SEQS=$((2 * CONC))",
	}
}

func sampleFindings() []checks.Finding {
	return []checks.Finding{simpleOffloadFinding(), maxSeqsFinding(), prLinkFinding(), strictModeFinding()}
}

func sampleRules() []*checks.Rule {
	run := func(*checks.Pass) error { return nil }
	return []*checks.Rule{
		{ID: "CL001", Severity: checks.Blocking, Title: "pr-link is neither this PR's link nor an accepted placeholder",
			Doc: "An entry you append to the perf changelog must link this PR or use the XXX placeholder; the merge tooling rejects anything else.", Run: run},
		{ID: "SH001", Severity: checks.Warning, Title: "strict mode weakened",
			Doc: "Keep `set -euo pipefail`; guard optional variables with ${VAR:-} instead of dropping -u.", Run: run},
		{ID: "SH002", Severity: checks.Blocking, Title: "SimpleCPUOffloadConnector without VLLM_USE_SIMPLE_KV_OFFLOAD=1",
			Doc: "A branch that configures SimpleCPUOffloadConnector must export VLLM_USE_SIMPLE_KV_OFFLOAD=1, as every sibling does.", Run: run},
		{ID: "SH007", Severity: checks.Warning, Title: "MAX_NUM_SEQS not divided by the DP world size",
			Doc: "Under DP attention each rank is an engine of its own; divide per-engine caps by the DP world size.", Run: run},
	}
}

func sampleReport() *Report {
	return &Report{
		Findings: sampleFindings(),
		Files:    sampleFiles(),
		Rules:    sampleRules(),
		Stats:    checks.Stats{Files: 3, Rules: 4, Elapsed: 42 * time.Millisecond},
	}
}

func TestHunkHelper(t *testing.T) {
	fc := &checks.FileChange{Path: "x", Status: checks.Modified, Hunks: []checks.Hunk{hunk(10, 10, " -++ ")}}
	if got := fc.AddedLines(); !cmp.Equal(got, []int{11, 12}) {
		t.Errorf("added = %v", got)
	}
	if got := fc.RemovedLines(); !cmp.Equal(got, []int{11}) {
		t.Errorf("removed = %v", got)
	}
}

var errSample = errors.New("SH013: read golden_al_distribution/dsv4.yaml: file does not exist")
