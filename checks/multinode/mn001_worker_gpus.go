package multinode

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN001 reports a worker role given fewer GPUs than its tensor-parallel
// size.
var MN001 = &checks.Rule{
	ID:       "MN001",
	Severity: checks.Blocking,
	Title:    "Recipe gives a worker fewer GPUs than its tensor-parallel size",
	Doc: "In an srt-slurm recipe, `resources.gpus_per_prefill` / `gpus_per_decode` / `gpus_per_agg` is how many " +
		"GPUs srtctl allocates to one worker of that role, and the role's engine settings " +
		"(`backend.sglang_config.decode.tensor-parallel-size`, `vllm_config`, `trtllm_config`'s " +
		"`tensor_parallel_size`) say how many ranks the engine starts. A worker with fewer GPUs than its " +
		"tensor-parallel size cannot start: the ranks past the allocation have no GPU, and the job fails at server " +
		"start-up after the allocation wait. Every recipe of the repository allocates at least the tensor-parallel " +
		"size. This rule reports a recipe the PR adds or changes where a role's GPUs are fewer than its " +
		"tensor-parallel size; raise the allocation (and the role's node count with it) or lower the parallelism.",
	Run: runMN001,
}

// tpKeys spell a role's tensor-parallel size in the engines' configs.
var tpKeys = []string{"tensor-parallel-size", "tensor_parallel_size", "tp-size", "tp"}

// shortfall is a role given fewer GPUs than its tensor-parallel size.
type shortfall struct {
	role          string
	gpus, tp      int
	gpuAt, tpLine int
}

func shortfalls(root *yaml.Node) []shortfall {
	if root == nil {
		return nil
	}
	res := yamlx.Get(root, "resources")
	var out []shortfall
	for _, role := range []string{"prefill", "decode", "agg"} {
		cfg := roleConfigs(root)[role]
		g := yamlx.Get(res, "gpus_per_"+role)
		if cfg == nil || g == nil {
			continue
		}
		gpus, err := strconv.Atoi(yamlx.Scalar(g))
		if err != nil || gpus <= 0 {
			continue
		}
		for _, k := range tpKeys {
			n := yamlx.Get(cfg, k)
			if n == nil {
				continue
			}
			if tp, err := strconv.Atoi(yamlx.Scalar(n)); err == nil && tp > gpus {
				out = append(out, shortfall{role: role, gpus: gpus, tp: tp, gpuAt: g.Line, tpLine: n.Line})
			}
			break
		}
	}
	return out
}

func runMN001(p *checks.Pass) error {
	for _, fc := range changedRecipes(p) {
		head, err := read(p, p.Change.Head, fc.Path)
		if err != nil {
			return err
		}
		var before map[string]bool
		if bp := basePath(fc); bp != "" {
			base, err := read(p, p.Change.Base, bp)
			if err != nil {
				return err
			}
			before = map[string]bool{}
			for _, s := range shortfalls(base.root) {
				before[fmt.Sprint(s.role, s.gpus, s.tp)] = true
			}
		}
		for _, s := range shortfalls(head.root) {
			if before[fmt.Sprint(s.role, s.gpus, s.tp)] {
				continue // the base had it: not this PR's
			}
			f := checks.Finding{
				Path:  fc.Path,
				Line:  s.gpuAt,
				Title: fmt.Sprintf("Recipe gives each %s worker %d GPUs for a tensor-parallel size of %d", s.role, s.gpus, s.tp),
				Body: fmt.Sprintf("%s allocates %s (line %d) but the %s workers run with a tensor-parallel size of %d (line %d): "+
					"the engine starts %d ranks on %d GPUs, so the %s server cannot come up and every point of the rows that select "+
					"this recipe fails after the allocation wait. Give each %s worker %d GPUs (and the nodes that takes), or run it at "+
					"tensor-parallel size %d.",
					prose.Code(fc.Path), prose.Code(fmt.Sprintf("gpus_per_%s: %d", s.role, s.gpus)), s.gpuAt, s.role, s.tp, s.tpLine,
					s.tp, s.gpus, s.role, s.role, s.tp, s.gpus),
				Related: []checks.Location{{Path: fc.Path, Line: s.tpLine, Note: fmt.Sprintf("the %s workers' tensor-parallel size", s.role)}},
				Key:     fmt.Sprintf("worker-gpus:%s:%d:%d", s.role, s.gpus, s.tp),
			}
			p.Report(f)
		}
	}
	return nil
}
