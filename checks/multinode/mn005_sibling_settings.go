package multinode

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN005 reports a worker role of a recipe that lacks an engine setting or
// an environment variable every sibling worker of its shape sets.
var MN005 = &checks.Rule{
	ID:       "MN005",
	Severity: checks.Warning,
	Title:    "Recipe's worker lacks a setting every sibling worker of its shape has",
	Doc: "The srt-slurm recipes of one directory (one model, engine and sequence length) are copies of one another " +
		"with the worker counts and parallelism changed, and each worker role (prefill, decode, aggregated) carries " +
		"its engine settings (`backend.<engine>_config.<role>`) and its environment (`backend.<role>_environment` " +
		"and the recipe's `environment`). This rule compares a recipe the PR adds, or a setting the PR deletes from " +
		"one, with the other recipes of its directory (as the PR leaves them) that run the same engine on the same " +
		"GPU type with the same kind of worker: DP attention or not, expert parallelism or not. When at least three " +
		"such workers all set an engine option or a variable that this worker lacks (`max-num-batched-tokens` in " +
		"every DEP8 decode worker), it reports the missing one to three of them (on the role's environment block when all are variables): more " +
		"missing than that is a recipe written from another template, not a copy that lost a line. Parallel sizes are not compared (they are the " +
		"recipe's own), nor a prefill worker's output streaming (`stream-interval`). Set them as the siblings do, or say in a comment that names them why this worker does not.",
	Run: runMN005,
}

// mn005MinSiblings is how many sibling workers must agree, and
// mn005MaxMissing the most settings a worker may lack and still be a copy
// that lost some.
const (
	mn005MinSiblings = 3
	mn005MaxMissing  = 3
	// maxSiblingRecipes bounds the recipes of one directory read.
	maxSiblingRecipes = 256
)

// parallelKeys are the parallel sizes and layout switches of a worker:
// the recipe's own choice, not a convention.
var parallelKeys = map[string]bool{}

func init() {
	for _, k := range []string{"tensor-parallel-size", "data-parallel-size", "pipeline-parallel-size", "expert-parallel-size",
		"enable-expert-parallel", "enable-dp-attention", "tp-size", "dp-size", "ep-size", "pp-size", "data-parallel-rpc-port",
		"data-parallel-size-local", "data-parallel-hybrid-lb", "data-parallel-address", "moe-dense-tp-size", "enable-dp-lm-head",
		"moe-expert-parallel-size", "enable-attention-dp", "context-parallel-size", "decode-context-parallel-size",
		"prefill-context-parallel-size", "dcp-size", "attn-cp-size", "dist-init-addr", "nnodes", "node-rank", "port",
		"host", "served-model-name", "model-path", "model", "disaggregation-mode", "disaggregation-bootstrap-port"} {
		parallelKeys[k] = true
	}
}

// decodeOnly are settings that change nothing on a prefill worker, which
// hands its first token to the decode workers: copies carry them along or
// drop them at will.
var decodeOnly = map[string]bool{"stream-interval": true}

// worker is one role of a recipe as MN005 compares it.
type worker struct {
	role string
	// cfg is the role's engine settings by normalized name, with their
	// key nodes; env its environment, the recipe's own included.
	cfg, env map[string]*yaml.Node
	// at is the line of the role's settings mapping; envAt and envEnd
	// the first and last lines of the role's own environment block (0
	// when it has none).
	at, envAt, envEnd int
	// shape is the kind of worker: engine, GPU type, DP attention, EP.
	shape string
}

// normKey spells a setting the way the engines accept it either way.
func normKey(k string) string { return strings.ReplaceAll(k, "_", "-") }

// workers reads the roles of a recipe.
func workers(root *yaml.Node) map[string]*worker {
	out := map[string]*worker{}
	if root == nil {
		return out
	}
	backend := yamlx.Get(root, "backend")
	engine := yamlx.Scalar(yamlx.Get(backend, "type"))
	gpu := yamlx.Scalar(yamlx.Get(yamlx.Get(root, "resources"), "gpu_type"))
	top := yamlx.Get(root, "environment")
	for role, m := range roleConfigs(root) {
		w := &worker{role: role, cfg: map[string]*yaml.Node{}, env: map[string]*yaml.Node{}, at: m.Line}
		for _, kv := range yamlx.Pairs(m) {
			w.cfg[normKey(kv.Key.Value)] = kv.Key
		}
		envName := role + "_environment"
		if role == "agg" {
			envName = "aggregated_environment"
		}
		own := yamlx.Get(backend, envName)
		if own != nil && own.Kind == yaml.MappingNode && len(own.Content) > 0 {
			w.envAt, w.envEnd = own.Content[0].Line, yamlx.EndLine(own)
		}
		for _, src := range []*yaml.Node{top, own} {
			for _, kv := range yamlx.Pairs(src) {
				w.env[kv.Key.Value] = kv.Key
			}
		}
		w.shape = fmt.Sprintf("%s|%s|dp=%t|ep=%t", engine, gpu, w.dpAttention(m), w.expertParallel(m))
		out[role] = w
	}
	return out
}

// truthy reads a YAML switch.
func truthy(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(n.Value)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// above1 reads a size greater than one.
func above1(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	v, err := strconv.Atoi(strings.TrimSpace(n.Value))
	return err == nil && v > 1
}

func (w *worker) dpAttention(m *yaml.Node) bool {
	for _, k := range []string{"enable-dp-attention", "enable_dp_attention", "enable_attention_dp"} {
		if truthy(yamlx.Get(m, k)) {
			return true
		}
	}
	for _, k := range []string{"data-parallel-size", "data_parallel_size", "dp-size", "dp_size"} {
		if above1(yamlx.Get(m, k)) {
			return true
		}
	}
	return false
}

func (w *worker) expertParallel(m *yaml.Node) bool {
	if truthy(yamlx.Get(m, "enable-expert-parallel")) || truthy(yamlx.Get(m, "enable_expert_parallel")) {
		return true
	}
	for _, k := range []string{"expert-parallel-size", "ep-size", "ep_size", "moe_expert_parallel_size"} {
		if above1(yamlx.Get(m, k)) {
			return true
		}
	}
	return false
}

// siblingRecipe is another recipe of the directory, as the PR leaves it.
type siblingRecipe struct {
	path    string
	changed bool
	workers map[string]*worker
}

func runMN005(p *checks.Pass) error {
	byDir := map[string][]siblingRecipe{}
	for _, fc := range changedRecipes(p) {
		head, err := read(p, p.Change.Head, fc.Path)
		if err != nil {
			return err
		}
		mine := workers(head.root)
		if len(mine) == 0 {
			continue
		}
		var base map[string]*worker
		if bp := basePath(fc); bp != "" {
			b, err := read(p, p.Change.Base, bp)
			if err != nil {
				return err
			}
			base = workers(b.root)
		}
		dir := path.Dir(fc.Path)
		sibs, ok := byDir[dir]
		if !ok {
			if sibs, err = siblingRecipes(p, dir); err != nil {
				return err
			}
			byDir[dir] = sibs
		}
		roles := make([]string, 0, len(mine))
		for r := range mine {
			roles = append(roles, r)
		}
		sort.Strings(roles)
		for _, role := range roles {
			w := mine[role]
			var peers []*worker
			var cites []siblingRecipe
			for _, s := range sibs {
				if s.path == fc.Path {
					continue
				}
				if o := s.workers[role]; o != nil && o.shape == w.shape {
					peers = append(peers, o)
					cites = append(cites, s)
				}
			}
			if len(peers) < mn005MinSiblings {
				continue
			}
			missing := lacking(w, peers, base[role])
			if len(missing) == 0 || len(missing) > mn005MaxMissing {
				continue
			}
			kept := missing[:0]
			for _, m := range missing {
				if !commentNames(head.root, m.name, 0) {
					kept = append(kept, m)
				}
			}
			if missing = kept; len(missing) == 0 {
				continue
			}
			p.Report(mn005Finding(fc, w, base[role], missing, peers, cites))
		}
	}
	return nil
}

// siblingRecipes reads the recipes of a directory as the PR leaves them.
func siblingRecipes(p *checks.Pass, dir string) ([]siblingRecipe, error) {
	entries, err := p.Change.Head.ReadDir(p.Ctx, dir)
	if err != nil {
		if checks.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []siblingRecipe
	for _, e := range entries {
		if e.IsDir || !isRecipeYAML(e.Path) {
			continue
		}
		if len(out) >= maxSiblingRecipes {
			break
		}
		d, err := read(p, p.Change.Head, e.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, siblingRecipe{path: e.Path, changed: p.Change.File(e.Path) != nil, workers: workers(d.root)})
	}
	return out, nil
}

// missingSetting is a setting every peer has and the worker lacks.
type missingSetting struct {
	env  bool
	name string
	// was is the base line the PR deleted it from (0 for a new recipe).
	was int
}

// lacking returns what every peer sets and w does not: for a recipe the
// PR changes (base non-nil), only what the PR deleted.
func lacking(w *worker, peers []*worker, base *worker) []missingSetting {
	var out []missingSetting
	for _, kind := range []bool{false, true} {
		pick := func(x *worker) map[string]*yaml.Node {
			if kind {
				return x.env
			}
			return x.cfg
		}
		var names []string
		for n := range pick(peers[0]) {
			names = append(names, n)
		}
		sort.Strings(names)
	next:
		for _, n := range names {
			if !kind && (parallelKeys[n] || w.role == "prefill" && decodeOnly[n]) {
				continue
			}
			if _, ok := pick(w)[n]; ok {
				continue
			}
			for _, o := range peers[1:] {
				if _, ok := pick(o)[n]; !ok {
					continue next
				}
			}
			ms := missingSetting{env: kind, name: n}
			if base != nil {
				b, ok := pick(base)[n]
				if !ok {
					continue // an old absence the PR did not make
				}
				ms.was = b.Line
			}
			out = append(out, ms)
		}
	}
	return out
}

func mn005Finding(fc *checks.FileChange, w, base *worker, missing []missingSetting, peers []*worker, cites []siblingRecipe) checks.Finding {
	roleName := map[string]string{"prefill": "prefill", "decode": "decode", "agg": "aggregated"}[w.role]
	var names, facts []string
	was := 0
	for _, m := range missing {
		if m.env {
			names = append(names, "variable "+prose.Code(m.name))
			facts = append(facts, "env:"+m.name)
		} else {
			names = append(names, prose.Code(m.name))
			facts = append(facts, "setting:"+m.name)
		}
		if m.was > 0 && (was == 0 || m.was < was) {
			was = m.was
		}
	}
	line, end := w.at, 0
	what := fmt.Sprintf("The %s worker of this recipe (line %d) does not set %s", roleName, w.at, prose.JoinAnd(names))
	if onlyEnv(missing) && w.envAt > 0 {
		// Variables go in the role's environment block: the finding spans it.
		line, end = w.envAt, w.envEnd
		what = fmt.Sprintf("The %s worker's environment (lines %d–%d) does not set %s", roleName, w.envAt, w.envEnd, prose.JoinAnd(names))
	}
	if was > 0 {
		end = 0
		line = fc.HeadLine(was)
		what = fmt.Sprintf("This PR deletes %s from the %s worker of this recipe", prose.JoinAnd(names), roleName)
	}
	var related []checks.Location
	var refs []string
	for i, s := range cites {
		if i >= 4 {
			break
		}
		first := missing[0]
		n := peers[i].cfg[first.name]
		if first.env {
			n = peers[i].env[first.name]
		}
		note := "sets " + prose.Code(first.name)
		if s.changed {
			note += " (changed in this PR)"
		}
		l := checks.Location{Path: s.path, Note: note}
		if n != nil {
			l.Line = n.Line
		}
		related = append(related, l)
		refs = append(refs, prose.CodeAt(s.path, l.Line))
	}
	them := "it"
	if len(missing) > 1 {
		them = "them"
	}
	f := checks.Finding{
		Path:    fc.Path,
		Line:    line,
		EndLine: end,
		Title:   fmt.Sprintf("%s worker lacks %s, which every sibling %s worker of its shape sets", capitalize(roleName), prose.JoinAnd(names), roleName),
		Body: fmt.Sprintf("%s, which every other %s worker of the same shape in this directory sets (%s, e.g. %s). The "+
			"recipes of a directory are copies of one another; a setting all of them agree on that this one lacks is "+
			"usually a line lost in the copy, and the worker then runs the engine's default where the others are tuned. "+
			"Set %s as they do, or say in a comment why this worker does not.",
			what, roleName, prose.Count(len(peers), "recipe", "recipes"), strings.Join(refs, ", "), them),
		Related: related,
		Key:     "sibling-settings:" + w.role,
		Facts:   facts,
	}
	return f
}

// onlyEnv reports whether every missing setting is a variable.
func onlyEnv(missing []missingSetting) bool {
	for _, m := range missing {
		if !m.env {
			return false
		}
	}
	return true
}

// commentNames reports whether a comment of the document names a setting:
// the author said why it is left out.
func commentNames(n *yaml.Node, name string, depth int) bool {
	if n == nil || depth > 64 {
		return false
	}
	for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
		if c != "" && strings.Contains(c, name) {
			return true
		}
	}
	for _, c := range n.Content {
		if commentNames(c, name, depth+1) {
			return true
		}
	}
	return false
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
