package changelog

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// FieldType is the kind of value an entry field holds.
type FieldType string

// The field types, named as .github/reviewbot.yml names them.
const (
	TypeString     FieldType = "string"
	TypeStringList FieldType = "string-list"
	TypeBoolean    FieldType = "boolean"
	TypeInteger    FieldType = "integer"
)

// FieldSpec describes one key a changelog entry may have.
type FieldSpec struct {
	Key  string
	Type FieldType
	// Required fields must be present; the others may be left out.
	Required bool
	// Nullable fields may also be written with no value (`key:`), which
	// counts as leaving them out.
	Nullable bool
	// NonEmpty lists need at least one item.
	NonEmpty bool
	// Min bounds an integer from below.
	Min *int64
	// Values, when set, are the only items a string list may hold.
	Values []string
	// Example is the value shown in the expected shape of an entry.
	Example string
}

// Conflict says that when Key is set, none of With may be.
type Conflict struct {
	Key  string
	With []string
	Why  string
}

// Schema is what an entry of the perf changelog may hold: the one place
// the CL rules learn the entry format from. The repository's validator
// loads every entry into a model that forbids unknown keys, so the schema
// is closed; .github/reviewbot.yml (`changelog:`) extends it when the
// repository's model grows, without a release of reviewbot.
type Schema struct {
	Fields    []FieldSpec
	Conflicts []Conflict
}

// The keys of the built-in schema the rules read themselves.
const (
	keyConfigKeys   = "config-keys"
	keyDescription  = "description"
	keyPRLink       = "pr-link"
	keyScenarioType = "scenario-type"
	keyAppendOnly   = "append-only"
	keyEvalsOnly    = "evals-only"
	keyAllEvals     = "all-evals"
	keyEvalMinEP    = "eval-min-prefill-ep"
)

func int64p(v int64) *int64 { return &v }

// DefaultSchema returns the entry schema of the InferenceX repository as
// its validator has it today (August 2026).
func DefaultSchema() *Schema {
	return &Schema{
		Fields: []FieldSpec{
			{Key: keyConfigKeys, Type: TypeStringList, Required: true, NonEmpty: true, Example: "<config key or glob>"},
			{Key: keyScenarioType, Type: TypeStringList, Nullable: true, NonEmpty: true, Values: []string{"fixed-seq-len", "agentic-coding"}, Example: "agentic-coding"},
			{Key: keyDescription, Type: TypeStringList, Required: true, NonEmpty: true, Example: `"<what changed and why>"`},
			{Key: keyPRLink, Type: TypeString, Required: true, Example: "https://github.com/<owner>/<repo>/pull/<N>"},
			{Key: keyEvalsOnly, Type: TypeBoolean, Example: "true"},
			{Key: keyAllEvals, Type: TypeBoolean, Example: "true"},
			{Key: keyAppendOnly, Type: TypeBoolean, Example: "true"},
			{Key: keyEvalMinEP, Type: TypeInteger, Nullable: true, Min: int64p(1), Example: "8"},
		},
		Conflicts: []Conflict{{
			Key: keyAppendOnly, With: []string{keyEvalsOnly, keyAllEvals, keyEvalMinEP},
			Why: "an append-only entry adds throughput points to an existing curve and cannot also select evals",
		}},
	}
}

// Extend returns s with the repository configuration's additions: new
// fields (or built-in ones redefined) and more scenario types.
func (s *Schema) Extend(c checks.ChangelogSchema) *Schema {
	out := &Schema{Conflicts: s.Conflicts}
	out.Fields = append(out.Fields, s.Fields...)
	keys := make([]string, 0, len(c.Fields))
	for k := range c.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cf := c.Fields[k]
		spec := FieldSpec{Key: k, Type: FieldType(cf.Type), Required: cf.Required, Nullable: !cf.Required, NonEmpty: cf.Type == string(TypeStringList)}
		if cf.Min != nil {
			spec.Min = int64p(int64(*cf.Min))
		}
		spec.Example = map[FieldType]string{TypeString: `"<text>"`, TypeStringList: `"<item>"`, TypeBoolean: "true", TypeInteger: "1"}[spec.Type]
		if spec.Min != nil {
			spec.Example = strconv.FormatInt(*spec.Min, 10)
		}
		if i := out.index(k); i >= 0 {
			out.Fields[i] = spec
		} else {
			out.Fields = append(out.Fields, spec)
		}
	}
	if len(c.ScenarioTypes) > 0 {
		if i := out.index(keyScenarioType); i >= 0 {
			f := out.Fields[i]
			f.Values = append(append([]string{}, f.Values...), c.ScenarioTypes...)
			out.Fields[i] = f
		}
	}
	return out
}

func (s *Schema) index(key string) int {
	for i, f := range s.Fields {
		if f.Key == key {
			return i
		}
	}
	return -1
}

// Spec returns the field named key, or nil.
func (s *Schema) Spec(key string) *FieldSpec {
	if i := s.index(key); i >= 0 {
		return &s.Fields[i]
	}
	return nil
}

// Keys lists the field names in schema order.
func (s *Schema) Keys() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Key
	}
	return out
}

// schemaMemo shares the per-review schema (checks.Shared).
var schemaMemo = checks.NewMemoKey[*Schema]("changelog/schema")

// schemaOf returns the schema for the pass's repository: the built-in one
// extended by .github/reviewbot.yml.
func schemaOf(p *checks.Pass) *Schema {
	v, _ := checks.Shared(p.Change, schemaMemo, "", func() (*Schema, error) {
		s := DefaultSchema()
		if cfg := p.Config(); cfg != nil {
			s = s.Extend(cfg.Changelog)
		}
		return s, nil
	})
	return v
}

// lookup finds the field for spec in e. The validator's model also
// accepts a field under its Python name (`evals_only` for `evals-only`)
// when the hyphenated key is absent, so that spelling counts as the field.
func (e *Entry) lookup(spec *FieldSpec) *Field {
	if f := e.Get(spec.Key); f != nil {
		return f
	}
	if alt := strings.ReplaceAll(spec.Key, "-", "_"); alt != spec.Key {
		return e.Get(alt)
	}
	return nil
}

// schemaProblem is one way an entry breaks the schema.
type schemaProblem struct {
	line    int
	code    string
	what    string
	fix     string
	suggest string
	// warn marks problems the validator accepts (an empty description
	// item): worth saying, not worth blocking.
	warn bool
}

// laxBool reads a boolean the way the validator's model does: YAML
// booleans, 0 and 1, and the usual words as strings.
func laxBool(f *Field) (v, ok bool) {
	if f.Kind != yaml.ScalarNode {
		return false, false
	}
	switch f.Tag {
	case "!!bool":
		return bool11(f.Value), true
	case "!!int":
		n, ok := int11(f.Value)
		return n == 1, ok && (n == 0 || n == 1)
	case "!!float":
		x, ok := float11(f.Value)
		return x == 1, ok && (x == 0 || x == 1)
	case "!!str":
		switch strings.ToLower(f.Value) {
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		case "0", "off", "f", "false", "n", "no":
			return false, true
		}
	}
	return false, false
}

// laxInt reads an integer the way the validator's model does: YAML
// integers, booleans, floats without a fraction and numeric strings.
func laxInt(f *Field) (int64, bool) {
	if f.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch f.Tag {
	case "!!int":
		return int11(f.Value)
	case "!!bool":
		if bool11(f.Value) {
			return 1, true
		}
		return 0, true
	case "!!float":
		x, ok := float11(f.Value)
		if !ok || x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	case "!!str":
		// Digits, optionally with underscores and a zero fraction; the model
		// reads no exponents or radix prefixes in strings.
		t := strings.TrimSpace(f.Value)
		if !numericString.MatchString(t) {
			return 0, false
		}
		t = strings.ReplaceAll(t, "_", "")
		if i := strings.IndexByte(t, '.'); i >= 0 {
			t = t[:i]
		}
		n, err := strconv.ParseInt(t, 10, 64)
		return n, err == nil
	}
	return 0, false
}

var numericString = regexp.MustCompile(`^[-+]?[0-9](?:_?[0-9])*(?:\.0+)?$`)

// isNull reports a field written without a value (or as null).
func isNull(f *Field) bool { return f.Kind == yaml.ScalarNode && f.Tag == "!!null" }

// isSet: the field is present with a value that makes it take effect (a
// true boolean, or anything not null).
func (s *Schema) isSet(e *Entry, key string) (*Field, bool) {
	spec := s.Spec(key)
	if spec == nil {
		return nil, false
	}
	f := e.lookup(spec)
	if f == nil || isNull(f) {
		return f, false
	}
	if spec.Type == TypeBoolean {
		v, ok := laxBool(f)
		return f, ok && v
	}
	return f, true
}

// Check lists what is wrong with e under the schema. e must parse.
func (s *Schema) Check(h *File, e *Entry) []schemaProblem {
	var out []schemaProblem
	if e.Kind != yaml.MappingNode {
		return append(out, schemaProblem{line: e.Start, code: "not-mapping",
			what: "is " + kindName(e.Kind) + ", not a mapping with `config-keys`, `description` and `pr-link`",
			fix:  "Write the entry as `- config-keys: ...` with its keys indented by two spaces."})
	}
	for i := range s.Fields {
		spec := &s.Fields[i]
		f := e.lookup(spec)
		if f == nil {
			if spec.Required {
				out = append(out, schemaProblem{line: e.Start, code: "missing:" + spec.Key,
					what: "has no " + prose.Code(spec.Key),
					fix:  "Add " + prose.Code(spec.Key+":") + " with " + typeName(spec) + "."})
			}
			continue
		}
		out = append(out, s.checkField(h, spec, f)...)
	}
	for _, c := range s.Conflicts {
		kf, on := s.isSet(e, c.Key)
		if !on {
			continue
		}
		for _, w := range c.With {
			wf, set := s.isSet(e, w)
			if !set {
				continue
			}
			out = append(out, schemaProblem{line: wf.KeyLine, code: "conflict:" + c.Key + ":" + w,
				what: fmt.Sprintf("sets both %s (line %d) and %s; %s", prose.Code(c.Key), kf.KeyLine, prose.Code(w), c.Why),
				fix:  fmt.Sprintf("Drop %s, or drop %s and make this a regular entry.", prose.Code(w), prose.Code(c.Key))})
		}
	}
	for _, f := range e.Fields {
		if s.accepts(e, f.Key) {
			continue
		}
		sp := schemaProblem{line: f.KeyLine, code: "unknown:" + f.Key,
			what: "has the key " + prose.Code(f.Key) + ", which entries cannot have",
			fix:  "Entries have only " + codeList(s.Keys(), 0) + " (the validator rejects any other key); remove it."}
		if k, ok := s.nearestKey(f.Key); ok {
			sp.fix = "Did you mean " + prose.Code(k) + "?"
			text := h.Line(f.KeyLine)
			if i := strings.Index(text, f.Key+":"); i >= 0 {
				sp.suggest = text[:i] + k + text[i+len(f.Key):]
			}
		}
		out = append(out, sp)
	}
	return out
}

// accepts reports whether key names a schema field in e (under its own
// name, or under the Python name when the hyphenated key is absent).
func (s *Schema) accepts(e *Entry, key string) bool {
	if s.Spec(key) != nil {
		return true
	}
	for _, f := range s.Fields {
		if alt := strings.ReplaceAll(f.Key, "-", "_"); alt == key && alt != f.Key {
			return e.Get(f.Key) == nil
		}
	}
	return false
}

func (s *Schema) checkField(h *File, spec *FieldSpec, f *Field) []schemaProblem {
	key := f.Key
	bad := func(what, fix string) []schemaProblem {
		return []schemaProblem{{line: f.KeyLine, code: "type:" + key, what: what, fix: fix}}
	}
	if isNull(f) {
		if spec.Nullable {
			return nil
		}
		return bad("has an empty "+prose.Code(key), "Give it "+typeName(spec)+", or remove the line.")
	}
	switch spec.Type {
	case TypeString:
		if f.Kind != yaml.ScalarNode || f.Tag != "!!str" {
			return bad(fmt.Sprintf("has %s as %s, not a string", prose.Code(key), valueName(f.Kind, f.Tag, f.Value)),
				"Write it as a string (quote it if YAML reads it as something else).")
		}
	case TypeBoolean:
		if _, ok := laxBool(f); !ok {
			return bad(fmt.Sprintf("sets %s to %s, which is not a boolean", prose.Code(key), valueName(f.Kind, f.Tag, f.Value)),
				"Write "+prose.Code(key+": true")+", or remove the line.")
		}
	case TypeInteger:
		n, ok := laxInt(f)
		if !ok {
			return bad(fmt.Sprintf("sets %s to %s, which is not an integer", prose.Code(key), valueName(f.Kind, f.Tag, f.Value)),
				"Write a whole number, or remove the line.")
		}
		if spec.Min != nil && n < *spec.Min {
			return bad(fmt.Sprintf("sets %s, below the minimum %d", prose.Code(key+": "+f.Value), *spec.Min),
				fmt.Sprintf("Use a value of at least %d, or remove the line.", *spec.Min))
		}
	case TypeStringList:
		return s.checkList(h, spec, f)
	}
	return nil
}

func (s *Schema) checkList(h *File, spec *FieldSpec, f *Field) []schemaProblem {
	key := f.Key
	if f.Kind != yaml.SequenceNode {
		return []schemaProblem{{line: f.KeyLine, code: "not-list:" + key,
			what: fmt.Sprintf("has %s as %s, not a list of strings", prose.Code(key), valueName(f.Kind, f.Tag, f.Value)),
			fix:  "Write it as a list: " + prose.Code(key+":") + " followed by `    - <value>` lines."}}
	}
	var out []schemaProblem
	if spec.NonEmpty && len(f.Items) == 0 {
		out = append(out, schemaProblem{line: f.KeyLine, code: "empty:" + key,
			what: "has an empty " + prose.Code(key) + " list", fix: "List at least one value."})
	}
	for _, it := range f.Items {
		switch {
		case !it.IsString():
			what := fmt.Sprintf("has a %s item that is %s", prose.Code(key), kindName(it.Kind))
			if it.Kind == yaml.ScalarNode {
				what = fmt.Sprintf("has a %s item %s that YAML reads as %s, not a string", prose.Code(key), prose.Code(it.Value), tagName(it.Tag))
			}
			out = append(out, schemaProblem{line: it.Line, code: "item:" + key + ":" + it.Value, what: what,
				fix: "Quote the value (" + prose.Code("- \""+it.Value+"\"") + ")."})
		case len(spec.Values) > 0 && !contains(spec.Values, it.Value):
			fix, best := valueFix(spec, it.Value)
			sp := schemaProblem{line: it.Line, code: "value:" + key + ":" + it.Value,
				what: fmt.Sprintf("lists %s under %s, which accepts only %s", prose.Code(it.Value), prose.Code(key), orList(spec.Values)),
				fix:  fix}
			if text := h.Line(it.Line); best != "" && strings.Count(text, it.Value) == 1 {
				sp.suggest = strings.Replace(text, it.Value, best, 1)
			}
			out = append(out, sp)
		case strings.TrimSpace(it.Value) == "":
			out = append(out, schemaProblem{line: it.Line, code: "blank:" + key, warn: true,
				what: "has an empty " + prose.Code(key) + " item", fix: "Remove it or fill it in."})
		}
	}
	return out
}

// valueFix suggests the allowed value nearest to v (best, when one is
// near enough to be the intended one).
func valueFix(spec *FieldSpec, v string) (fix, near string) {
	best, bestD := "", -1
	for _, x := range spec.Values {
		d := prose.EditDistance(strings.ToLower(v), x, 32)
		if strings.HasPrefix(x, strings.ToLower(v)) {
			d = 0
		}
		if bestD < 0 || d < bestD {
			best, bestD = x, d
		}
	}
	fix = "Use " + orList(spec.Values) + "."
	if best != "" && bestD <= len(best)/2 {
		fix = "Did you mean " + prose.Code(best) + "?"
		near = best
	}
	return fix + " A new value has to be added to the repository's validator first (reviewbot then learns it from `changelog: {scenario-types: [...]}` in `.github/reviewbot.yml`).", near
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (s *Schema) nearestKey(k string) (string, bool) {
	best, bestD := "", 4
	for _, f := range s.Fields {
		if d := prose.EditDistance(strings.ToLower(k), f.Key, 4); d < bestD {
			best, bestD = f.Key, d
		}
	}
	return best, best != "" && bestD <= 3
}

// typeName describes what a field's value must be.
func typeName(spec *FieldSpec) string {
	switch spec.Type {
	case TypeString:
		return "a string"
	case TypeBoolean:
		return "`true` or `false`"
	case TypeInteger:
		if spec.Min != nil {
			return fmt.Sprintf("a whole number of at least %d", *spec.Min)
		}
		return "a whole number"
	case TypeStringList:
		if len(spec.Values) > 0 {
			return "a list of " + orList(spec.Values)
		}
		return "a list of strings"
	}
	return "a value"
}

// valueName describes a value for messages.
func valueName(k yaml.Kind, tag, v string) string {
	if k != yaml.ScalarNode {
		return kindName(k)
	}
	return prose.CodeLine(clip(v)) + " (" + tagName(tag) + ")"
}

// ExampleEntry renders the expected shape of an entry, for messages.
func (s *Schema) ExampleEntry() string {
	var b strings.Builder
	first := true
	for _, f := range s.Fields {
		lead := "  "
		if first {
			lead = "- "
			first = false
		}
		comment := ""
		if !f.Required {
			comment = "# optional"
			if f.Type != TypeStringList || len(f.Values) > 0 {
				comment += ": " + strings.ReplaceAll(strings.TrimPrefix(typeName(&f), "a "), "`", "")
			}
		}
		if f.Type == TypeStringList {
			line := lead + f.Key + ":"
			if comment != "" {
				line = fmt.Sprintf("%-22s %s", line, comment)
			}
			b.WriteString(line + "\n    - " + f.Example + "\n")
			continue
		}
		line := lead + f.Key + ": " + f.Example
		if comment != "" {
			line = fmt.Sprintf("%-30s %s", line, comment)
		}
		b.WriteString(line + "\n")
	}
	for _, c := range s.Conflicts {
		fmt.Fprintf(&b, "# %s excludes %s\n", c.Key, prose.JoinAnd(c.With))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Describe lists the fields in prose, for the rule's documentation.
func (s *Schema) Describe() string {
	var req, opt []string
	for i := range s.Fields {
		f := &s.Fields[i]
		t := typeName(f)
		if f.Type == TypeStringList && f.NonEmpty {
			t = strings.Replace(t, "a list", "a non-empty list", 1)
		}
		if f.Type == TypeBoolean {
			t = "a boolean"
		}
		d := prose.Code(f.Key) + " (" + t + ")"
		if f.Required {
			req = append(req, d)
		} else {
			opt = append(opt, d)
		}
	}
	out := "required " + prose.JoinAnd(req)
	if len(opt) > 0 {
		out += "; optional " + prose.JoinAnd(opt)
	}
	for _, c := range s.Conflicts {
		out += "; " + prose.Code(c.Key) + " cannot be combined with " + codeList(c.With, 0)
	}
	return out
}
