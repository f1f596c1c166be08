package changelog

import (
	"context"
	"errors"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Cache kinds of the master-config views this package parses.
const (
	chunksKind = "yamlx.TopLevelChunks/v1"
	docKind    = "changelog/yamlDoc/v2"
)

// chunked is a master config split into its top-level keys.
type chunked struct {
	Chunks []yamlx.Chunk
	OK     bool
}

func parseChunks(b []byte) (chunked, error) {
	c, ok := yamlx.TopLevelChunks(b)
	return chunked{c, ok}, nil
}

// yamlDoc is a whole parsed YAML file and its size, which bounds the work
// of comparing its values (yamlx.BudgetFor).
type yamlDoc struct {
	Node *yaml.Node
	Size int
}

func parseDoc(b []byte) (yamlDoc, error) {
	n, err := yamlx.Parse(b)
	return yamlDoc{n, len(b)}, err
}

// keyLoc is a top-level key of a master config.
type keyLoc struct {
	Key  string
	Path string
	Line int
}

// keyIndex holds the top-level keys of a set of config files.
type keyIndex struct {
	Keys  []keyLoc
	Files []string
	// Broken is true when some file's keys could not be read (it does not
	// parse); rules then stay quiet about keys they cannot find.
	Broken bool
}

// topKeys reads the top-level keys of one config file: by line scanning
// when the file has the plain shape, else by parsing it.
func topKeys(ctx context.Context, ch *checks.Change, t checks.Tree, p string) ([]keyLoc, bool, error) {
	c, err := checks.Parsed(ctx, ch.Cache, t, chunksKind, p, parseChunks)
	if err != nil {
		return nil, false, err
	}
	var out []keyLoc
	if c.OK {
		for _, k := range c.Chunks {
			out = append(out, keyLoc{Key: k.Key, Path: p, Line: k.Line})
		}
		return out, true, nil
	}
	doc, err := checks.Parsed(ctx, ch.Cache, t, docKind, p, parseDoc)
	if err != nil {
		var se *yamlx.SyntaxError
		if errors.As(err, &se) {
			return nil, false, nil
		}
		return nil, false, err
	}
	root := yamlx.Root(doc.Node)
	if root == nil {
		return nil, true, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, false, nil
	}
	for _, pr := range yamlx.Pairs(root) {
		out = append(out, keyLoc{Key: pr.Key.Value, Path: p, Line: pr.Key.Line})
	}
	return out, true, nil
}

// masterKeys returns the keys of every master config of the head or base
// tree, once per review.
func masterKeys(p *checks.Pass, base bool) (*keyIndex, error) {
	name, t := "changelog/masterkeys/head", p.Change.Head
	if base {
		name, t = "changelog/masterkeys/base", p.Change.Base
	}
	v, err := checks.Shared(p.Change, keyIndexKey, name, func() (*keyIndex, error) {
		files, err := checks.GlobFiles(p.Ctx, t, p.Config().Paths.MasterConfigs)
		if err != nil {
			return nil, err
		}
		return indexFiles(p.Ctx, p.Change, t, files)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// deprecatedDirs hold archived configs in either layout; changelog
// entries about them are history, not typos.
var deprecatedDirs = []string{"configs/deprecated", checks.NewerLayoutRoot + "/configs/deprecated"}

// deprecatedKeys returns the keys of the YAML files under the deprecated
// config directories of the head tree (or the base tree).
func deprecatedKeys(p *checks.Pass, base bool) (*keyIndex, error) {
	name, t := "changelog/masterkeys/deprecated", p.Change.Head
	if base {
		name, t = "changelog/masterkeys/deprecated/base", p.Change.Base
	}
	v, err := checks.Shared(p.Change, keyIndexKey, name, func() (*keyIndex, error) {
		var files []checks.Entry
		for _, d := range deprecatedDirs {
			fs, err := checks.Walk(p.Ctx, t, d)
			if err != nil {
				return nil, err
			}
			for _, f := range fs {
				if ext := path.Ext(f.Path); ext == ".yaml" || ext == ".yml" {
					files = append(files, f)
				}
			}
		}
		return indexFiles(p.Ctx, p.Change, t, files)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// keyValue returns the value of top-level key in the config file at p of
// tree t (the last definition when duplicated), or nil when the file does
// not define it or cannot be read.
func keyValue(ctx context.Context, ch *checks.Change, t checks.Tree, p, key string) (*yaml.Node, error) {
	v, _, err := keyValueAt(ctx, ch, t, p, key)
	return v, err
}

// keyValueAt is keyValue and what to add to the lines of its nodes to
// make them lines of the file (a key parsed alone numbers its lines from
// its own first line).
func keyValueAt(ctx context.Context, ch *checks.Change, t checks.Tree, p, key string) (*yaml.Node, int, error) {
	c, err := checks.Parsed(ctx, ch.Cache, t, chunksKind, p, parseChunks)
	if err != nil {
		if checks.IsNotExist(err) {
			return nil, 0, nil
		}
		return nil, 0, err
	}
	if c.OK {
		for i := len(c.Chunks) - 1; i >= 0; i-- {
			if c.Chunks[i].Key != key {
				continue
			}
			if v, ok := chunkValue(c.Chunks[i]); ok {
				return v, c.Chunks[i].Line - 1, nil
			}
			break // does not parse alone: read the whole file
		}
	}
	doc, err := checks.Parsed(ctx, ch.Cache, t, docKind, p, parseDoc)
	if err != nil {
		var se *yamlx.SyntaxError
		if errors.As(err, &se) {
			return nil, 0, nil
		}
		return nil, 0, err
	}
	return yamlx.Get(yamlx.Root(doc.Node), key), 0, nil
}

func indexFiles(ctx context.Context, ch *checks.Change, t checks.Tree, files []checks.Entry) (*keyIndex, error) {
	idx := &keyIndex{}
	for _, f := range files {
		keys, ok, err := topKeys(ctx, ch, t, f.Path)
		if err != nil {
			return nil, err
		}
		idx.Files = append(idx.Files, f.Path)
		if !ok {
			idx.Broken = true
			continue
		}
		idx.Keys = append(idx.Keys, keys...)
	}
	return idx, nil
}

// matchKey reports whether a changelog config-keys pattern names key.
// Patterns are shell globs (`dsr1*`, `70b-fp8-*-vllm`); a malformed
// pattern matches only itself.
func matchKey(pattern, key string) bool {
	if !strings.ContainsAny(pattern, "*?[\\") {
		return pattern == key
	}
	ok, err := path.Match(pattern, key)
	if err != nil {
		return pattern == key
	}
	return ok
}

// matches returns the keys of idx that pattern names.
func (idx *keyIndex) matches(pattern string) []keyLoc {
	var out []keyLoc
	for _, k := range idx.Keys {
		if matchKey(pattern, k.Key) {
			out = append(out, k)
		}
	}
	return out
}

// closest returns the key nearest to s by edit distance, when it is near
// enough to be a plausible typo.
func (idx *keyIndex) closest(s string) (keyLoc, int, bool) {
	best, bestD := keyLoc{}, -1
	for _, k := range idx.Keys {
		d := prose.EditDistance(s, k.Key, 64)
		if bestD < 0 || d < bestD || (d == bestD && k.Key < best.Key) {
			best, bestD = k, d
		}
	}
	limit := len(s) / 4
	if limit < 2 {
		limit = 2
	}
	if limit > 6 {
		limit = 6
	}
	return best, bestD, bestD >= 0 && bestD <= limit
}

// chunkValue parses one top-level chunk back into its key's value.
func chunkValue(c yamlx.Chunk) (*yaml.Node, bool) {
	doc, err := yamlx.Parse([]byte(c.Text))
	if err != nil {
		return nil, false
	}
	pairs := yamlx.Pairs(yamlx.Root(doc))
	if len(pairs) != 1 || pairs[0].Key.Value != c.Key {
		return nil, false
	}
	return pairs[0].Value, true
}

// keyIndexKey shares the key indexes of masterKeys and deprecatedKeys
// within a change, by name.
var keyIndexKey = checks.NewMemoKey[*keyIndex]("changelog/masterkeys")
