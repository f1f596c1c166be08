// Package schema reads the master-config schema of the reviewed
// repository's sweep generator (a Python module of pydantic models) as
// data, without running it, and checks a master-config key against it.
package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// The master-config schema the repository's sweep generator enforces,
// read from utils/matrix_logic/validation.py as data: its Fields table
// (the field names) and its pydantic models (which keys each level
// allows, their types and literals, which are required), plus the
// cross-field checks its validators make, each applied only where the
// model names the validator. The file is Python the bot must not run; the
// reader understands the declarative subset the file is written in and
// leaves anything else alone.

// Schema is the master-config schema of a tree.
type Schema struct {
	Path string
	// Fields maps the Fields enum's names to field names (TP → "tp").
	Fields map[string]string
	Models map[string]*Model
}

// Model is a pydantic model.
type Model struct {
	Name   string
	Line   int
	Forbid bool
	// ByName allows a field's Python name besides its alias.
	ByName     bool
	Fields     []*Field
	Validators []string
}

// Field is a field of a model.
type Field struct {
	Name, Alias string
	Type        *pyType
	Required    bool
	Strict      bool
	Gt, Ge      *float64
	Line        int
}

// Key is the field's name in YAML.
func (f *Field) Key() string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name
}

// pyType is a parsed type annotation.
type pyType struct {
	Name string // int, str, bool, float, Optional, List, Union, Literal, Dict, or a model
	Args []*pyType
	// Lits are a Literal's values.
	Lits []string
}

func (t *pyType) String() string {
	switch {
	case t == nil:
		return "?"
	case t.Name == "Literal":
		return "one of " + strings.Join(t.Lits, ", ")
	case len(t.Args) == 0:
		return t.Name
	}
	var a []string
	for _, x := range t.Args {
		a = append(a, x.String())
	}
	return t.Name + "[" + strings.Join(a, ", ") + "]"
}

var (
	classRe   = regexp.MustCompile(`^class (\w+)\((\w+)\):`)
	fieldRe   = regexp.MustCompile(`^    (\w+): ([^=]+?)(?:\s*=\s*(.*))?$`)
	enumRe    = regexp.MustCompile(`^    ([A-Z_][A-Z0-9_]*) = ['"]([^'"]*)['"]`)
	aliasRe   = regexp.MustCompile(`alias=(?:Fields\.(\w+)\.value|['"]([^'"]+)['"])`)
	numArgRe  = regexp.MustCompile(`\b(gt|ge)=(-?[0-9.]+)`)
	defaultRe = regexp.MustCompile(`\bdefault(?:_factory)?=`)
	callRe    = regexp.MustCompile(`\b(_?validate_\w+)\(`)
)

// maxSchemaBytes bounds the validation module the bot reads.
const maxSchemaBytes = 1 << 20

// Parse reads validation.py. It fails when the file has neither
// master-config entry model (a layout the reader does not know).
func Parse(p string, b []byte) (*Schema, error) {
	if len(b) > maxSchemaBytes {
		return nil, fmt.Errorf("%s: too large", p)
	}
	s := &Schema{Path: p, Fields: map[string]string{}, Models: map[string]*Model{}}
	lines := strings.Split(string(b), "\n")
	var cur *Model
	inEnum := false
	var stmt strings.Builder
	stmtLine := 0
	flush := func() {
		if cur == nil || stmt.Len() == 0 {
			stmt.Reset()
			return
		}
		text := stmt.String()
		stmt.Reset()
		if strings.HasPrefix(text, "    model_config") {
			cur.Forbid = strings.Contains(text, "extra='forbid'") || strings.Contains(text, `extra="forbid"`)
			cur.ByName = strings.Contains(text, "populate_by_name=True")
			return
		}
		if m := fieldRe.FindStringSubmatch(text); m != nil && !strings.HasPrefix(m[1], "_") {
			f := &Field{Name: m[1], Line: stmtLine}
			f.Type = parseType(strings.TrimSpace(m[2]))
			def := strings.TrimSpace(m[3])
			f.Required = def == "" || strings.HasPrefix(def, "Field(") && !defaultRe.MatchString(def)
			if a := aliasRe.FindStringSubmatch(def); a != nil {
				if a[1] != "" {
					f.Alias = "\x00" + a[1] // resolved against Fields below
				} else {
					f.Alias = a[2]
				}
			}
			f.Strict = strings.Contains(def, "strict=True")
			for _, n := range numArgRe.FindAllStringSubmatch(def, -1) {
				v, err := strconv.ParseFloat(n[2], 64)
				if err != nil {
					continue
				}
				if n[1] == "gt" {
					f.Gt = &v
				} else {
					f.Ge = &v
				}
			}
			cur.Fields = append(cur.Fields, f)
		}
	}
	for i, line := range lines {
		if m := classRe.FindStringSubmatch(line); m != nil {
			flush()
			cur, inEnum = nil, m[1] == "Fields" && m[2] == "Enum"
			if m[2] == "BaseModel" {
				cur = &Model{Name: m[1], Line: i + 1}
				s.Models[m[1]] = cur
			}
			continue
		}
		if line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "#") {
			flush()
			cur, inEnum = nil, false
			continue
		}
		if inEnum {
			if m := enumRe.FindStringSubmatch(line); m != nil {
				s.Fields[m[1]] = m[2]
			}
			continue
		}
		if cur == nil {
			continue
		}
		for _, c := range callRe.FindAllStringSubmatch(line, -1) {
			cur.Validators = append(cur.Validators, c[1])
		}
		if strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "     ") {
			flush()
			stmt.WriteString(line)
			stmtLine = i + 1
			if strings.HasPrefix(line, "    def ") || strings.HasPrefix(line, "    @") || strings.HasPrefix(line, `    """`) {
				stmt.Reset()
			}
			continue
		}
		if stmt.Len() > 0 && strings.HasPrefix(line, "        ") {
			stmt.WriteString(" " + strings.TrimSpace(line))
		}
	}
	flush()
	for _, m := range s.Models {
		for _, f := range m.Fields {
			if strings.HasPrefix(f.Alias, "\x00") {
				name, ok := s.Fields[f.Alias[1:]]
				if !ok {
					return nil, fmt.Errorf("%s:%d: alias Fields.%s is not in the Fields table", p, f.Line, f.Alias[1:])
				}
				f.Alias = name
			}
		}
	}
	if s.Models["SingleNodeMasterConfigEntry"] == nil || s.Models["MultiNodeMasterConfigEntry"] == nil {
		return nil, fmt.Errorf("%s: no SingleNodeMasterConfigEntry/MultiNodeMasterConfigEntry models", p)
	}
	return s, nil
}

// parseType reads a type annotation.
func parseType(s string) *pyType {
	t, _ := parseTypeAt(strings.ReplaceAll(s, " ", ""), 0, 0)
	return t
}

func parseTypeAt(s string, i, depth int) (*pyType, int) {
	if depth > 16 {
		return &pyType{Name: "?"}, len(s)
	}
	j := i
	for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	name := s[i:j]
	if k := strings.LastIndexByte(name, '.'); k >= 0 {
		name = name[k+1:]
	}
	switch name {
	case "list":
		name = "List"
	case "dict":
		name = "Dict"
	}
	t := &pyType{Name: name}
	if j >= len(s) || s[j] != '[' {
		return t, j
	}
	j++
	if name == "Literal" {
		for j < len(s) && s[j] != ']' {
			k := j
			for k < len(s) && s[k] != ',' && s[k] != ']' {
				k++
			}
			t.Lits = append(t.Lits, strings.Trim(s[j:k], `'"`))
			j = k
			if j < len(s) && s[j] == ',' {
				j++
			}
		}
		return t, j + 1
	}
	for j < len(s) && s[j] != ']' {
		a, k := parseTypeAt(s, j, depth+1)
		t.Args = append(t.Args, a)
		j = k
		if j < len(s) && s[j] == ',' {
			j++
		}
	}
	return t, j + 1
}

// Problem is a place where a master config breaks the schema.
type Problem struct {
	Line int
	// Path is the setting's place in the key, dotted
	// (scenarios.fixed-seq-len[0].search-space[2].ep).
	Path string
	Msg  string
	// Rule names the model or validator that rejects it, with its line in
	// the schema file.
	Rule     string
	RuleLine int
}

// Value is a YAML value with its line, as the checker walks it.
type Value struct {
	v    any // map[string]*Value keys in order below, []*Value, or a scalar
	keys []string
	line int
	// keyLines are the lines of a mapping's keys.
	keyLines map[string]int
}

// Check validates a config key's value, as validate_master_config does.
func (s *Schema) Check(key string, v *Value) []Problem {
	c := &checker{s: s}
	if v == nil || v.keys == nil {
		return []Problem{{Line: v.lineOr(0), Path: key, Msg: "is not a mapping"}}
	}
	root := "SingleNodeMasterConfigEntry"
	if b, _ := v.get("multinode").scalar().(bool); b {
		root = "MultiNodeMasterConfigEntry"
	}
	c.model(s.Models[root], v, "", 0)
	c.crossChecks(v)
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Line < c.out[j].Line })
	return c.out
}

type checker struct {
	s   *Schema
	out []Problem
}

func (c *checker) add(line int, path, rule string, ruleLine int, format string, args ...any) {
	if len(c.out) >= 50 {
		return
	}
	c.out = append(c.out, Problem{Line: line, Path: path, Msg: fmt.Sprintf(format, args...), Rule: rule, RuleLine: ruleLine})
}

func (v *Value) lineOr(d int) int {
	if v == nil {
		return d
	}
	return v.line
}

func (v *Value) get(k string) *Value {
	if v == nil {
		return nil
	}
	m, ok := v.v.(map[string]*Value)
	if !ok {
		return nil
	}
	return m[k]
}

func (v *Value) scalar() any {
	if v == nil {
		return nil
	}
	switch v.v.(type) {
	case map[string]*Value, []*Value:
		return nil
	}
	return v.v
}

func (v *Value) list() []*Value {
	if v == nil {
		return nil
	}
	l, _ := v.v.([]*Value)
	return l
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func (c *checker) model(m *Model, v *Value, path string, depth int) {
	if m == nil || depth > 12 {
		return
	}
	mp, ok := v.v.(map[string]*Value)
	if !ok {
		c.add(v.line, path, m.Name, m.Line, "must be a mapping (%s)", m.Name)
		return
	}
	known := map[string]*Field{}
	for _, f := range m.Fields {
		known[f.Key()] = f
		if m.ByName {
			known[f.Name] = f
		}
	}
	for _, k := range v.keys {
		f, ok := known[k]
		if !ok {
			if m.Forbid {
				var names []string
				for _, f := range m.Fields {
					names = append(names, f.Key())
				}
				c.add(v.keyLines[k], joinPath(path, k), m.Name, m.Line, "%s is not a field the schema allows here (%s takes %s)", prose.Code(k), m.Name, strings.Join(names, ", "))
			}
			continue
		}
		c.value(f, f.Type, mp[k], joinPath(path, k), depth)
	}
	for _, f := range m.Fields {
		if !f.Required {
			continue
		}
		if _, ok := mp[f.Key()]; ok {
			continue
		}
		if _, ok := mp[f.Name]; ok && m.ByName {
			continue
		}
		c.add(v.line, joinPath(path, f.Key()), m.Name, f.Line, "the required field %s is missing (%s)", prose.Code(f.Key()), m.Name)
	}
}

// value checks a value against a type; ok reports whether it fits.
func (c *checker) value(f *Field, t *pyType, v *Value, path string, depth int) bool {
	if t == nil || v == nil {
		return true
	}
	fail := func(format string, args ...any) bool {
		c.add(v.line, path, f.Name, f.Line, format, args...)
		return false
	}
	x := v.scalar()
	switch t.Name {
	case "Optional":
		if x == nil && v.keys == nil && v.list() == nil {
			return true
		}
		if len(t.Args) == 1 {
			return c.value(f, t.Args[0], v, path, depth)
		}
	case "Union":
		for _, a := range t.Args {
			probe := &checker{s: c.s}
			if probe.value(f, a, v, path, depth) {
				c.out = append(c.out, probe.out...)
				return true
			}
		}
		return fail("%s is not %s", prose.Code(describeYV(v)), t)
	case "Literal":
		s := fmt.Sprint(x)
		if b, ok := x.(bool); ok {
			s = "False" // Python's spelling
			if b {
				s = "True"
			}
		}
		for _, l := range t.Lits {
			if l == s {
				return true
			}
		}
		return fail("%s is not one of %s", prose.Code(describeYV(v)), strings.Join(t.Lits, ", "))
	case "int":
		n, ok := ToInt(x, f.Strict)
		if !ok {
			return fail("%s is not an integer", prose.Code(describeYV(v)))
		}
		if f.Gt != nil && float64(n) <= *f.Gt {
			return fail("must be greater than %v, got %d", *f.Gt, n)
		}
		if f.Ge != nil && float64(n) < *f.Ge {
			return fail("must be at least %v, got %d", *f.Ge, n)
		}
	case "float":
		if _, ok := ToFloat(x); !ok {
			return fail("%s is not a number", prose.Code(describeYV(v)))
		}
	case "bool":
		switch b := x.(type) {
		case bool:
		case int:
			if b != 0 && b != 1 {
				return fail("%s is not a boolean", prose.Code(describeYV(v)))
			}
		default:
			return fail("%s is not a boolean", prose.Code(describeYV(v)))
		}
	case "str":
		if x == nil || v.keys != nil {
			return fail("%s is not a string", prose.Code(describeYV(v)))
		}
	case "List":
		l, ok := v.v.([]*Value)
		if !ok {
			return fail("must be a list")
		}
		if len(t.Args) == 1 {
			for i, it := range l {
				c.value(f, t.Args[0], it, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	case "Dict":
		if v.keys == nil {
			return fail("must be a mapping")
		}
	default:
		if m := c.s.Models[t.Name]; m != nil {
			before := len(c.out)
			c.model(m, v, path, depth+1)
			c.validators(m, v, path)
			return len(c.out) == before
		}
	}
	return true
}

func describeYV(v *Value) string {
	switch x := v.v.(type) {
	case map[string]*Value:
		return "{...}"
	case []*Value:
		return "[...]"
	case nil:
		return "null"
	default:
		return fmt.Sprint(x)
	}
}

// ToInt reads x as an integer the way the generator's models accept one:
// strict, only a YAML integer; otherwise also a whole float or a decimal
// string.
func ToInt(x any, strict bool) (int, bool) {
	switch n := x.(type) {
	case int:
		return n, true
	case float64:
		if !strict && n == float64(int(n)) {
			return int(n), true
		}
	case string:
		if !strict {
			i, err := strconv.Atoi(strings.TrimSpace(n))
			return i, err == nil
		}
	}
	return 0, false
}

// validators applies the cross-field checks a model's validators make,
// for the validators the bot knows by name.
func (c *checker) validators(m *Model, v *Value, path string) {
	has := func(name string) bool {
		for _, x := range m.Validators {
			if x == name {
				return true
			}
		}
		return false
	}
	if has("_validate_conc_fields") {
		c.concFields(m, v, path)
	}
	if has("_validate_kv_offload_fields") {
		c.kvFields(m, v, path)
	}
	if has("validate_dram_offload_capacity") && v.get(c.field("DRAM_UTILIZATION", "dram-utilization")) == nil {
		kvKey := c.field("KV_OFFLOADING", "kv-offloading")
		for i, e := range v.get(c.field("SEARCH_SPACE", "search-space")).list() {
			if kv := e.get(kvKey); kv != nil && fmt.Sprint(kv.scalar()) == "dram" {
				c.add(kv.line, fmt.Sprintf("%s.search-space[%d].%s", path, i, kvKey), "validate_dram_offload_capacity", m.Line,
					"%s: dram needs the block's dram-utilization (the DRAM budget is computed from it)", kvKey)
			}
		}
	}
	if has("_validate_tp_context_topology") {
		tp, ok1 := ToInt(v.get("tp").scalar(), false)
		dcp, ok2 := ToInt(v.get(c.field("DCP_SIZE", "dcp-size")).scalar(), false)
		if ok1 && ok2 && dcp > 0 && tp%dcp != 0 {
			c.add(v.get("tp").line, joinPath(path, "tp"), "_validate_tp_context_topology", m.Line, "tp (%d) must be divisible by dcp-size (%d)", tp, dcp)
		}
	}
}

// field returns the name the Fields table gives NAME, or def.
func (c *checker) field(name, def string) string {
	if f, ok := c.s.Fields[name]; ok {
		return f
	}
	return def
}

func (c *checker) concFields(m *Model, v *Value, path string) {
	list, start, end := v.get(c.field("CONC_LIST", "conc-list")), v.get(c.field("CONC_START", "conc-start")), v.get(c.field("CONC_END", "conc-end"))
	hasList := list != nil && len(list.list()) > 0
	hasRange := start != nil && end != nil
	switch {
	case hasList && hasRange:
		c.add(list.line, path, "_validate_conc_fields", m.Line, "gives both conc-list and conc-start/conc-end; the generator takes one or the other")
	case !hasList && !hasRange:
		c.add(v.line, path, "_validate_conc_fields", m.Line, "gives neither conc-list nor both conc-start and conc-end")
	case hasRange:
		s, ok1 := ToInt(start.scalar(), false)
		e, ok2 := ToInt(end.scalar(), false)
		if ok1 && ok2 && (s <= 0 || e <= 0) {
			c.add(start.line, path, "_validate_conc_fields", m.Line, "conc-start and conc-end must be greater than 0")
		} else if ok1 && ok2 && s > e {
			c.add(start.line, path, "_validate_conc_fields", m.Line, "conc-start (%d) is above conc-end (%d)", s, e)
		}
	case hasList:
		for _, it := range list.list() {
			if n, ok := ToInt(it.scalar(), false); ok && n <= 0 {
				c.add(it.line, path, "_validate_conc_fields", m.Line, "conc-list entries must be greater than 0, got %d", n)
			}
		}
	}
}

func (c *checker) kvFields(m *Model, v *Value, path string) {
	kvKey, beKey := c.field("KV_OFFLOADING", "kv-offloading"), c.field("KV_OFFLOAD_BACKEND", "kv-offload-backend")
	kv, be := v.get(kvKey), v.get(beKey)
	switch {
	case kv == nil && be != nil:
		c.add(be.line, joinPath(path, beKey), "_validate_kv_offload_fields", m.Line, "%s requires %s", beKey, kvKey)
	case kv != nil && fmt.Sprint(kv.scalar()) == "none" && be != nil:
		c.add(be.line, joinPath(path, beKey), "_validate_kv_offload_fields", m.Line, "%s can only be set when %s is not none", beKey, kvKey)
	case kv != nil && kv.scalar() != nil && fmt.Sprint(kv.scalar()) != "none" && be == nil:
		c.add(kv.line, joinPath(path, kvKey), "_validate_kv_offload_fields", m.Line, "%s is required when %s is %v", beKey, kvKey, kv.scalar())
	}
}

// crossChecks are the key-level checks of validate_master_config's
// models: an agentic config runs on a cluster: runner, and offloading to
// DRAM needs the block's dram-utilization.
func (c *checker) crossChecks(v *Value) {
	sc := v.get("scenarios")
	agentic := sc.get(c.field("AGENTIC_CODING", "agentic-coding"))
	if agentic == nil {
		return
	}
	root := c.s.Models["SingleNodeMasterConfigEntry"]
	for _, m := range []*Model{root, c.s.Models["MultiNodeMasterConfigEntry"]} {
		for _, name := range m.Validators {
			if name == "_validate_agentic_runner_is_cluster" {
				r := v.get("runner")
				if s, ok := r.scalar().(string); ok && !strings.HasPrefix(s, "cluster:") {
					c.add(r.line, "runner", name, m.Line, "an agentic-coding config must run on a `cluster:<name>` runner, got %q", s)
					return
				}
			}
		}
	}
}

// ValueOf converts a YAML node for the checker, with lines and the YAML 1.1
// scalars the generator's loader reads; aliases are followed within a
// budget.
func ValueOf(n *yaml.Node) *Value {
	budget := 20000
	return toYV(n, &budget, 0)
}

func toYV(n *yaml.Node, budget *int, depth int) *Value {
	if n == nil || *budget <= 0 || depth > 64 {
		return nil
	}
	*budget--
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return toYV(n.Content[0], budget, depth+1)
		}
		return nil
	case yaml.AliasNode:
		return toYV(n.Alias, budget, depth+1)
	case yaml.MappingNode:
		m := map[string]*Value{}
		v := &Value{v: m, line: n.Line, keys: []string{}, keyLines: map[string]int{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; !dup {
				v.keys = append(v.keys, k)
			}
			m[k] = toYV(n.Content[i+1], budget, depth+1)
			v.keyLines[k] = n.Content[i].Line
		}
		return v
	case yaml.SequenceNode:
		l := []*Value{}
		for _, c := range n.Content {
			l = append(l, toYV(c, budget, depth+1))
		}
		return &Value{v: l, line: n.Line}
	}
	return &Value{v: masterconfig.PlainScalar(n), line: n.Line}
}

// Shift moves v's lines (and its children's) by d: a key parsed on its
// own is placed back at its lines in the file.
func (v *Value) Shift(d int) {
	if v == nil {
		return
	}
	v.line += d
	for k := range v.keyLines {
		v.keyLines[k] += d
	}
	switch x := v.v.(type) {
	case map[string]*Value:
		for _, c := range x {
			c.Shift(d)
		}
	case []*Value:
		for _, c := range x {
			c.Shift(d)
		}
	}
}

// ToFloat reads v as a number: a YAML integer or float, or a string that
// parses as one.
func ToFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}
