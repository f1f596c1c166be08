package pipeline

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/schema"
)

var pl007 = &checks.Rule{
	ID:       "PL007",
	Severity: checks.Blocking,
	Title:    "Master config breaks the repository's config schema",
	Doc: "The sweep generator loads every master config through the pydantic models of " +
		"`utils/matrix_logic/validation.py` before it builds any job, and a key that fails them stops the whole " +
		"sweep. This rule reads those models from the base branch as data (the field names of its `Fields` table, " +
		"which keys each level allows, their types and allowed values, which are required) together with the " +
		"cross-field checks its validators make (a concurrency list or range but not both, a KV-offload backend " +
		"exactly when offloading, a DRAM utilization for DRAM offload, an agentic config on a `cluster:` runner), " +
		"and reports what a key this PR adds or changes breaks, at the line it is on: exactly what the generator " +
		"will reject. A PR that also changes `validation.py` runs its sweep with its own version, so there only what " +
		"both versions reject is reported. Write the key as the schema says, or change the schema first.",
	Run: runPL007,
}

// schemaKind names parsed validation modules in the parse cache.
const schemaKind = "pipeline/schema/v1"

// loadSchema reads a tree's schema (nil when it has none the bot can
// read), once per change and side.
func loadSchema(p *checks.Pass, tree checks.Tree, side string) (*schema.Schema, error) {
	v, err := checks.Shared(p.Change, schemaKey, side, func() (*schema.Schema, error) {
		path, ok := firstExisting(p.Ctx, tree, validationPaths)
		if !ok {
			return (*schema.Schema)(nil), nil
		}
		s, err := checks.Parsed(p.Ctx, p.Change.Cache, tree, schemaKind, path, func(b []byte) (*schema.Schema, error) { return schema.Parse(path, b) })
		if err != nil {
			return (*schema.Schema)(nil), nil // not a layout the reader knows: no finding
		}
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// keyValueKind names parsed keys in the parse cache.
const keyValueKind = "pipeline/keyvalue/v1"

// cachedKeyValue is keyValue of a key of the file at p in tree, kept in the
// parse cache by the file's blob ID (the checker does not modify it).
func cachedKeyValue(p *checks.Pass, tree checks.Tree, file string, k *masterconfig.Key) *schema.Value {
	e, err := tree.Stat(p.Ctx, file)
	if err != nil {
		return nil
	}
	id := ""
	if e.ID != "" {
		id = fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d", e.ID, file, k.Name, k.Line, k.EndLine)
		if v, ok := p.Change.Cache.Get(keyValueKind, id); ok {
			sv, _ := v.(*schema.Value)
			return sv
		}
	}
	src, err := tree.ReadFile(p.Ctx, file)
	if err != nil {
		return nil
	}
	v := keyValue(src, k)
	p.Change.Cache.Put(keyValueKind, id, v)
	return v
}

// keyValue parses one key's lines of a master config, with the file's
// line numbers.
func keyValue(src []byte, k *masterconfig.Key) *schema.Value {
	lines := bytes.SplitAfter(src, []byte("\n"))
	if k.Line < 1 || k.EndLine > len(lines) || k.EndLine < k.Line {
		return nil
	}
	text := bytes.Join(lines[k.Line-1:k.EndLine], nil)
	doc, err := yamlx.Parse(text)
	if err != nil {
		return nil
	}
	pairs := yamlx.Pairs(yamlx.Root(doc))
	if len(pairs) != 1 {
		return nil
	}
	v := schema.ValueOf(pairs[0].Value)
	v.Shift(k.Line - 1)
	return v
}

func runPL007(p *checks.Pass) error {
	if p.Change.Config == nil {
		return nil
	}
	a, err := Load(p.Ctx, p.Change)
	if err != nil || len(a.Configs) == 0 {
		return err
	}
	s, err := loadSchema(p, p.Change.Base, "base")
	if err != nil || s == nil {
		return err
	}
	// A PR that changes the schema runs its sweep with its own: a problem
	// counts only where that schema rejects the key too.
	var headSchema *schema.Schema
	if len(a.Schema) > 0 {
		if headSchema, err = loadSchema(p, p.Change.Head, "head"); err != nil {
			return err
		}
		if headSchema == nil {
			return nil // the PR's schema is not one the bot can read
		}
	}
	if _, err := a.ChangedRows(); err != nil {
		return err
	}
	for _, ck := range a.changedKs {
		fc := p.Change.File(ck.Path)
		if fc == nil {
			continue
		}
		v := cachedKeyValue(p, p.Change.Head, ck.Path, ck.Key)
		if v == nil {
			continue
		}
		old := map[string]bool{}
		if ck.Base != nil {
			if bv := cachedKeyValue(p, p.Change.Base, basePath(fc), ck.Base); bv != nil {
				for _, pr := range s.Check(ck.Key.Name, bv) {
					old[pr.Path+"\x00"+pr.Msg] = true
				}
			}
		}
		headRejects := map[string]bool{}
		if headSchema != nil {
			for _, pr := range headSchema.Check(ck.Key.Name, v) {
				headRejects[pr.Path] = true
			}
		}
		for _, pr := range s.Check(ck.Key.Name, v) {
			if old[pr.Path+"\x00"+pr.Msg] || headSchema != nil && !headRejects[pr.Path] {
				continue
			}
			if !ck.New && !fc.IsAdded(pr.Line) && !fc.Touches(pr.Line, pr.Line) {
				continue
			}
			p.Report(pl007Finding(s, ck, pr))
		}
	}
	return nil
}

func basePath(fc *checks.FileChange) string {
	if fc.OldPath != "" {
		return fc.OldPath
	}
	return fc.Path
}

func pl007Finding(s *schema.Schema, ck masterconfig.ChangedKey, pr schema.Problem) checks.Finding {
	where := pr.Path
	if where == "" {
		where = "the key"
	}
	body := fmt.Sprintf("In %s at %s: %s. The sweep generator validates every master config with %s before it builds the matrix, so it rejects this key and the sweep of the PR does not start. Fix the setting as the schema says.",
		code(ck.Key.Name), code(where), pr.Msg, code(s.Path))
	ex := &checks.Explain{}
	ex.Problem()
	ex.Printf("In %s at %s: %s.", code(ck.Key.Name), code(where), pr.Msg)
	ex.Why()
	ex.Printf("`validate_master_config` loads all master configs through the pydantic models of %s; one key that fails stops the matrix generation, for every config, until the key is fixed.", code(s.Path))
	ex.Evidence()
	ex.Printf("The schema's part that rejects it (read from the base branch):")
	ex.Note("How the schema was read")
	ex.Printf("The module is not run: the bot reads its `Fields` table and the fields of its models (names, aliases, types, defaults) as data, and applies the cross-field checks of the validators the models name. What it cannot read is not judged.")
	ex.Fix()
	ex.Printf("Write the setting the way %s allows, or change the schema in a PR of its own first.", code(pr.Rule))
	f := checks.Finding{
		Path:    ck.Path,
		Line:    pr.Line,
		Title:   fmt.Sprintf("%s: %s rejected by the config schema", code(ck.Key.Name), code(lastPart(where))),
		Body:    body,
		Related: []checks.Location{{Path: s.Path, Line: pr.RuleLine, Side: checks.Base, Note: code(pr.Rule) + " in the base branch's schema"}},
		Key:     "PL007 " + ck.Key.Name + " " + pr.Path + " " + pr.Msg,
	}
	ex.Apply(&f)
	return f
}

func lastPart(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// schemaKey shares loadSchema within a change, by side.
var schemaKey = checks.NewMemoKey[*schema.Schema]("pipeline/schema")
