// Package multinode checks the srt-slurm recipes multi-node rows run
// (MN rules): YAML files under benchmarks/multi_node/ that srtctl reads,
// with their own resources (GPUs per worker), engine settings per worker
// role and benchmark block. Each rule judges the recipes a PR adds or
// changes, and only what the PR introduced: a problem the base version
// already had is not this PR's.
package multinode

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// Rules returns the multi-node recipe rules in run order.
func Rules() []*checks.Rule {
	return []*checks.Rule{MN001, MN002, MN003, MN004, MN005, MN006, MN007, MN008}
}

// isRecipeYAML reports whether p is a YAML file of the multi-node recipes.
func isRecipeYAML(p string) bool {
	if ext := path.Ext(p); ext != ".yaml" && ext != ".yml" {
		return false
	}
	return strings.HasPrefix(p, "benchmarks/multi_node/") || strings.HasPrefix(p, checks.NewerLayoutRoot+"/benchmarks/multi_node/")
}

// recipeDoc is one side of a changed recipe: its parsed document (nil
// when it does not parse) and its raw root mapping.
type recipeDoc struct {
	root *yaml.Node
}

// read parses path p of tree t through the review's parse cache; a file
// that is absent or does not parse is a nil root.
func read(p *checks.Pass, t checks.Tree, file string) (*recipeDoc, error) {
	d, err := checks.Parsed(p.Ctx, p.Change.Cache, t, "multinode/doc/v1", file, func(b []byte) (*recipeDoc, error) {
		if len(b) > maxRecipeBytes {
			return &recipeDoc{}, nil
		}
		doc, err := yamlx.Parse(b)
		if err != nil {
			return &recipeDoc{}, nil // another rule's business; nothing to judge here
		}
		root := yamlx.Root(doc)
		if root == nil || root.Kind != yaml.MappingNode {
			return &recipeDoc{}, nil
		}
		return &recipeDoc{root: root}, nil
	})
	if checks.IsNotExist(err) {
		return &recipeDoc{}, nil
	}
	return d, err
}

// maxRecipeBytes bounds what a rule parses of one recipe; real ones are a
// few KB.
const maxRecipeBytes = 1 << 20

// changedRecipes returns the recipe files the PR adds or changes, with
// their base path ("" for a new file).
func changedRecipes(p *checks.Pass) []*checks.FileChange {
	var out []*checks.FileChange
	for _, fc := range p.Change.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || !isRecipeYAML(fc.Path) {
			continue
		}
		out = append(out, fc)
	}
	return out
}

// basePath is fc's path in the base tree ("" when the PR adds it).
func basePath(fc *checks.FileChange) string {
	switch {
	case fc.Status == checks.Added:
		return ""
	case fc.OldPath != "":
		return fc.OldPath
	}
	return fc.Path
}

// roleConfigs are the engine settings of each worker role: the mappings
// under backend.<engine>_config (prefill, decode, aggregated).
func roleConfigs(root *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	backend := yamlx.Get(root, "backend")
	for _, name := range []string{"sglang_config", "vllm_config", "trtllm_config"} {
		for _, kv := range yamlx.Pairs(yamlx.Get(backend, name)) {
			role := kv.Key.Value
			if role == "aggregated" {
				role = "agg"
			}
			if kv.Value != nil && kv.Value.Kind == yaml.MappingNode {
				out[role] = kv.Value
			}
		}
	}
	return out
}
