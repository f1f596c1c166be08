package multinode

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN004 reports a recipe whose workers need more GPUs than the nodes it
// asks for hold.
var MN004 = &checks.Rule{
	ID:       "MN004",
	Severity: checks.Blocking,
	Title:    "Recipe's workers need more GPUs than its nodes hold",
	Doc: "An srt-slurm recipe's `resources` block asks Slurm for `prefill_nodes` + `decode_nodes` (or `agg_nodes`) " +
		"nodes of `gpus_per_node` GPUs, and places `prefill_workers` workers of `gpus_per_prefill` GPUs, " +
		"`decode_workers` of `gpus_per_decode` (and `agg_workers` of `gpus_per_agg`) on them; roles may share a " +
		"node. When the workers need more GPUs than the nodes hold, some worker has no GPUs to start on and the job " +
		"fails after its allocation wait, usually because a worker count was raised (a 1P2D recipe copied to 1P3D) " +
		"without the node count. Every recipe of the repository fits its workers in its nodes. This rule reports a " +
		"recipe the PR adds or changes whose workers do not fit; raise the node count or lower the workers.",
	Run: runMN004,
}

// nodeRoles are the worker roles of a recipe's resources block.
var nodeRoles = []string{"prefill", "decode", "agg"}

// overcommit is a recipe whose workers need more GPUs than its nodes hold.
type overcommit struct {
	need, nodes, perNode int
	terms                []string // "3 decode workers × 8 GPUs"
	line                 int      // the workers line of the role furthest over its own nodes
}

func (o overcommit) key() string { return fmt.Sprint(o.need, o.nodes, o.perNode) }

// overcommitted reads a recipe's resources; false when they fit or a value
// is missing or not a number (nothing to judge).
func overcommitted(root *yaml.Node) (overcommit, bool) {
	res := yamlx.Get(root, "resources")
	if res == nil || res.Kind != yaml.MappingNode {
		return overcommit{}, false
	}
	num := func(k string) (int, int, bool) {
		n := yamlx.Get(res, k)
		if n == nil {
			return 0, 0, false
		}
		v, err := strconv.Atoi(strings.TrimSpace(yamlx.Scalar(n)))
		return v, n.Line, err == nil && v >= 0
	}
	perNode, _, ok := num("gpus_per_node")
	if !ok || perNode == 0 {
		return overcommit{}, false
	}
	o := overcommit{perNode: perNode}
	worst := 0
	for _, role := range nodeRoles {
		workers, wLine, ok := num(role + "_workers")
		if !ok {
			if yamlx.Get(res, role+"_workers") != nil {
				return overcommit{}, false
			}
			continue
		}
		gpus, _, okG := num("gpus_per_" + role)
		nodes, _, okN := num(role + "_nodes")
		if !okG || !okN {
			return overcommit{}, false
		}
		if workers > 1<<16 || gpus > 1<<16 || nodes > 1<<16 {
			return overcommit{}, false // not a real allocation; no arithmetic past it
		}
		o.need += workers * gpus
		o.nodes += nodes
		if workers > 0 {
			o.terms = append(o.terms, fmt.Sprintf("%d %s worker%s × %d GPUs", workers, role, plural(workers), gpus))
		}
		if over := workers*gpus - nodes*perNode; o.line == 0 || over > worst {
			o.line, worst = wLine, over
		}
	}
	return o, o.need > o.nodes*o.perNode
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func runMN004(p *checks.Pass) error {
	for _, fc := range changedRecipes(p) {
		head, err := read(p, p.Change.Head, fc.Path)
		if err != nil {
			return err
		}
		o, ok := overcommitted(head.root)
		if !ok {
			continue
		}
		if bp := basePath(fc); bp != "" {
			base, err := read(p, p.Change.Base, bp)
			if err != nil {
				return err
			}
			if b, ok := overcommitted(base.root); ok && b.key() == o.key() {
				continue // the base had it: not this PR's
			}
		}
		p.Report(checks.Finding{
			Path:  fc.Path,
			Line:  o.line,
			Title: fmt.Sprintf("Recipe's workers need %d GPUs, its %d nodes hold %d", o.need, o.nodes, o.nodes*o.perNode),
			Body: fmt.Sprintf("%s places %s: %d GPUs, on %d node%s of %s (%d GPUs). A worker past the allocation has no GPUs "+
				"to start on, so the job fails after its allocation wait. Raise the node count to %d, or lower the workers.",
				prose.Code(fc.Path), prose.JoinAnd(o.terms), o.need, o.nodes, plural(o.nodes),
				prose.Code(fmt.Sprintf("gpus_per_node: %d", o.perNode)), o.nodes*o.perNode, (o.need+o.perNode-1)/o.perNode),
			Key: "nodes:" + o.key(),
		})
	}
	return nil
}
