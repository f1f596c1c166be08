package sheval

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Helpers shared by the table-driven tests of the evaluator. They run a
// script held in memory (never a fixture) and reduce the result to plain
// strings that a table can state.

// scriptPath is where the helpers put the script under test.
const scriptPath = "runners/t.sh"

// withFile returns a copy of files with p set to src.
func withFile(files map[string]string, p, src string) map[string]string {
	out := make(map[string]string, len(files)+1)
	for k, v := range files {
		out[k] = v
	}
	out[p] = src
	return out
}

// evalScript evaluates src as runners/t.sh next to files. The runner
// variables SLURM_JOB_ID and USER are unknown, as in evalIn.
func evalScript(t *testing.T, files map[string]string, src string, env Env) *Result {
	t.Helper()
	return evalIn(t, withFile(files, scriptPath, src), scriptPath, env)
}

// evalWith evaluates src with a configured evaluator (bounds, Unknown).
func evalWith(t *testing.T, ev Eval, files map[string]string, src string, env Env) *Result {
	t.Helper()
	tree := checks.NewMemTree(withFile(files, scriptPath, src))
	ev.Files = NewTreeFiles(context.Background(), tree, nil)
	res, err := ev.Run(scriptPath, env)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// probeScript is the tree path the probe runs: its env shows what the
// script left in OUT.
const probeScript = "probe.sh"

// probe evaluates src followed by `export OUT; bash probe.sh` and returns,
// sorted and once each, what OUT holds (DescribeValue) on every path that
// reaches the probe, and "exit N" for each path that failed before it.
func probe(t *testing.T, src string, env Env) []string {
	t.Helper()
	res := evalScript(t, nil, src+"\nexport OUT\nbash "+probeScript+"\n", env)
	var out []string
	for _, p := range res.Paths {
		for _, r := range p.Runs {
			if r.Path == probeScript {
				out = append(out, DescribeValue(r.Env["OUT"]))
			}
		}
		if p.Exit != nil {
			out = append(out, "exit "+p.Exit.Code)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// runsOf lists each path's runs as runPaths does, joined by " | ".
func runsOf(res *Result) string {
	return strings.Join(runPaths(res), " | ")
}

// findRun returns the first run of tree path p on any path.
func findRun(res *Result, p string) (Run, bool) {
	for _, path := range res.Paths {
		for _, r := range path.Runs {
			if r.Path == p {
				return r, true
			}
		}
	}
	return Run{}, false
}

// reqsOf lists the requirements of every path as "VAR how", sorted, once
// each.
func reqsOf(res *Result) []string {
	var out []string
	for _, p := range res.Paths {
		for _, r := range p.Reqs {
			out = append(out, r.Var+" "+r.How)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stdEnv is the env most tables use: V known, E set and empty, U set to
// something the bot cannot know, P a path to trim, N a number.
func stdEnv() Env {
	env := envOf("V", "v", "E", "", "P", "dir/sub/a.tar.gz", "N", "4", "EXP_NAME", "dsr1_8k1k")
	env["U"] = Opaque()
	return env
}

// evalFilesOf is a TreeFiles over an in-memory tree of files.
func evalFilesOf(t *testing.T, files map[string]string) *TreeFiles {
	t.Helper()
	return NewTreeFiles(context.Background(), checks.NewMemTree(files), nil)
}
