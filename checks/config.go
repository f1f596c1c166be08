package checks

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// ConfigPath is where the repository configuration lives (read from the
// base tree, so a PR cannot loosen the rules it is reviewed under).
const ConfigPath = ".github/reviewbot.yml"

// Config is the repository configuration.
type Config struct {
	// Rules overrides rule settings by ID.
	Rules map[string]RuleSetting `yaml:"rules"`
	// Paths locates the reviewed repository's files.
	Paths Paths `yaml:"paths"`
	// Conventions configures the mined conventions of CV001.
	Conventions Conventions `yaml:"conventions"`
	// ReviewDrafts makes the App review draft PRs too.
	ReviewDrafts bool `yaml:"review-drafts"`
	// ReportUnusedIgnores makes RB003 report `reviewbot:ignore` comments
	// the PR adds that silence nothing.
	ReportUnusedIgnores bool `yaml:"report-unused-ignores"`
	// Changelog extends the perf changelog's entry schema.
	Changelog ChangelogSchema `yaml:"changelog"`
	// Pipeline extends what the pipeline model (checks/pipeline) knows of
	// a benchmark job's environment.
	Pipeline PipelineConfig `yaml:"pipeline"`
	// Source says where the configuration came from (for messages).
	Source string `yaml:"-"`

	// ruleAt is where each rule ID was named, for Validate's messages.
	ruleAt map[string]position
}

type position struct{ line, column int }

// RuleSetting disables a rule or changes its severity.
type RuleSetting struct {
	Disabled bool
	Severity Severity // 0: the rule's default
}

// ruleSettingValues is what a rule's setting may be, as messages list it.
const ruleSettingValues = "off, on, blocking or warning, or a mapping {severity: blocking|warning, disabled: true|false}"

// Paths locates the files of the reviewed repository. Empty fields are
// filled in by autodetection (see ResolveLayout).
type Paths struct {
	// Changelog is the perf changelog file.
	Changelog string `yaml:"changelog"`
	// MasterConfigs are glob patterns of master config files.
	MasterConfigs []string `yaml:"master-configs"`
	// Recipes are glob patterns (** allowed) of benchmark recipe scripts.
	Recipes []string `yaml:"recipes"`
	// Runners are glob patterns of runner launch scripts.
	Runners []string `yaml:"runners"`
	// Models is the models policy file (MODELS.md).
	Models string `yaml:"models"`
	// GoldenAL is the directory of golden acceptance-length curves.
	GoldenAL string `yaml:"golden-al"`
	// Waivers is the directory of engine-patch waivers (<PR_NUMBER>.md).
	Waivers string `yaml:"waivers"`
	// Checklist is the sign-off checklist template.
	Checklist string `yaml:"checklist"`
	// Codeowners is the CODEOWNERS file.
	Codeowners string `yaml:"codeowners"`
	// EvalThresholds is the eval thresholds file.
	EvalThresholds string `yaml:"eval-thresholds"`
}

// ChangelogSchema extends the built-in perf-changelog entry schema of the
// CL rules, so that a key or scenario type the repository's own validator
// starts accepting needs no new release of reviewbot.
type ChangelogSchema struct {
	// Fields are entry keys beyond the built-in ones, by value type; a
	// built-in key listed here takes the given type instead.
	Fields map[string]ChangelogField `yaml:"fields"`
	// ScenarioTypes are accepted `scenario-type` values beyond the
	// built-in ones.
	ScenarioTypes []string `yaml:"scenario-types"`
}

// ChangelogFieldTypes are the value types a changelog entry field can have.
var ChangelogFieldTypes = []string{"string", "string-list", "boolean", "integer"}

// ChangelogField is the type of one entry key, written as the type name
// (`boolean`) or as {type: integer, min: 1, required: true}.
type ChangelogField struct {
	Type     string
	Min      *int
	Required bool
}

// NewerLayoutRoot is the directory the newer repository layout keeps the
// changelog, eval utilities and (sometimes) configs under.
const NewerLayoutRoot = "inferencex-e2e"

// ConfigError is a problem in a configuration file, with the position and
// the key it concerns.
type ConfigError struct {
	Source       string // the file, as the user knows it
	Line, Column int    // 1-based; 0 when unknown
	Key          string // dotted path of the offending key ("rules.SH009"), may be empty
	Msg          string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ParseConfig reads a .github/reviewbot.yml document.
func ParseConfig(b []byte) (*Config, error) { return ParseConfigFile(b, ConfigPath) }

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseConfigFile reads a configuration document; source names it in
// errors. Unknown keys are errors, so a typo does not silently leave a rule
// on; every error is a *ConfigError.
func ParseConfigFile(b []byte, source string) (*Config, error) {
	c := &Config{Source: source}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		ce := &ConfigError{Source: source, Msg: "not valid YAML: " + msg}
		if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
			ce.Line, _ = strconv.Atoi(m[1])
			ce.Msg = "not valid YAML: " + m[2]
		}
		return nil, ce
	}
	if len(doc.Content) == 0 {
		return c, nil // an empty file: the defaults
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	p := &configParser{source: source}
	p.top(c, root)
	if p.err != nil {
		return nil, p.err
	}
	return c, nil
}

// configParser walks the YAML nodes, keeping the first error.
type configParser struct {
	source string
	err    *ConfigError
}

func (p *configParser) fail(n *yaml.Node, key, format string, args ...any) {
	if p.err == nil {
		p.err = &ConfigError{Source: p.source, Line: n.Line, Column: n.Column, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
}

// entries returns a mapping's key/value pairs, rejecting duplicates and
// non-string keys.
func (p *configParser) entries(n *yaml.Node, key, what string) [][2]*yaml.Node {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, key, "want %s, got %s", what, nodeKind(n))
		return nil
	}
	seen := map[string]int{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.fail(k, key, "keys must be plain names")
			return nil
		}
		if line, dup := seen[k.Value]; dup {
			p.fail(k, join(key, k.Value), "defined twice (first at line %d)", line)
			return nil
		}
		seen[k.Value] = k.Line
		out = append(out, [2]*yaml.Node{k, deref(v)})
	}
	return out
}

// deref follows a YAML alias (*name) to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

var topKeys = []string{"rules", "paths", "conventions", "changelog", "pipeline", "review-drafts", "report-unused-ignores"}

func (p *configParser) top(c *Config, n *yaml.Node) {
	for _, kv := range p.entries(n, "", "a mapping of "+strings.Join(topKeys, ", ")) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "rules":
			p.rules(c, v)
		case "paths":
			p.paths(&c.Paths, v)
		case "conventions":
			p.conventions(&c.Conventions, v)
		case "changelog":
			p.changelog(&c.Changelog, v)
		case "pipeline":
			p.pipeline(&c.Pipeline, v)
		case "review-drafts":
			c.ReviewDrafts = p.boolean(v, k.Value)
		case "report-unused-ignores":
			c.ReportUnusedIgnores = p.boolean(v, k.Value)
		default:
			p.fail(k, "", "unknown key %q (want %s)", k.Value, strings.Join(topKeys, ", "))
		}
	}
}

func (p *configParser) boolean(n *yaml.Node, key string) bool {
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "true":
			return true
		case "false":
			return false
		}
	}
	p.fail(n, key, "want true or false, got %s", nodeKind(n))
	return false
}

func (p *configParser) rules(c *Config, n *yaml.Node) {
	if n.Tag == "!!null" {
		return
	}
	for _, kv := range p.entries(n, "rules", "a mapping of rule IDs to settings") {
		k, v := kv[0], kv[1]
		id := k.Value
		if c.Rules == nil {
			c.Rules = map[string]RuleSetting{}
			c.ruleAt = map[string]position{}
		}
		c.Rules[id] = p.ruleSetting(v, "rules."+id)
		c.ruleAt[id] = position{k.Line, k.Column}
	}
}

func (p *configParser) ruleSetting(n *yaml.Node, key string) RuleSetting {
	var s RuleSetting
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "off", "false":
			s.Disabled = true
		case "on", "true":
		case "blocking":
			s.Severity = Blocking
		case "warning":
			s.Severity = Warning
		default:
			p.fail(n, key, "unknown setting %s (want %s)", nodeKind(n), ruleSettingValues)
		}
		return s
	}
	for _, kv := range p.entries(n, key, ruleSettingValues) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "disabled":
			s.Disabled = p.boolean(v, key+".disabled")
		case "severity":
			switch {
			case v.Kind == yaml.ScalarNode && v.Value == "blocking":
				s.Severity = Blocking
			case v.Kind == yaml.ScalarNode && v.Value == "warning":
				s.Severity = Warning
			default:
				p.fail(v, key+".severity", "unknown severity %s (want blocking or warning)", nodeKind(v))
			}
		default:
			p.fail(k, key, "unknown key %q (want severity, disabled)", k.Value)
		}
	}
	return s
}

// conventions reads `conventions: {confirmed: [belief IDs]}`.
func (p *configParser) conventions(cv *Conventions, n *yaml.Node) {
	if n.Tag == "!!null" {
		return
	}
	for _, kv := range p.entries(n, "conventions", "a mapping with the key confirmed") {
		k, v := kv[0], kv[1]
		if k.Value != "confirmed" {
			p.fail(k, "conventions", "unknown key %q (want confirmed)", k.Value)
			continue
		}
		for _, it := range p.scalars(v, "conventions.confirmed", "a belief ID or a list of them") {
			cv.Confirmed = append(cv.Confirmed, it.Value)
		}
		if p.err != nil {
			return
		}
		if err := cv.validate(); err != nil {
			p.fail(v, "conventions.confirmed", "%s", strings.TrimPrefix(err.Error(), "conventions.confirmed: "))
		}
	}
}

// changelog reads `changelog: {fields: {key: type | {type, min,
// required}}, scenario-types: [values]}`.
func (p *configParser) changelog(cs *ChangelogSchema, n *yaml.Node) {
	if n.Tag == "!!null" {
		return
	}
	for _, kv := range p.entries(n, "changelog", "a mapping with the keys fields, scenario-types") {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "fields":
			if v.Tag == "!!null" {
				continue
			}
			for _, fkv := range p.entries(v, "changelog.fields", "a mapping of entry keys to types") {
				name := fkv[0].Value
				f, ok := p.changelogField(fkv[1], "changelog.fields."+name)
				if !ok {
					return
				}
				if cs.Fields == nil {
					cs.Fields = map[string]ChangelogField{}
				}
				cs.Fields[name] = f
			}
		case "scenario-types":
			for _, it := range p.scalars(v, "changelog.scenario-types", "a scenario type or a list of them") {
				cs.ScenarioTypes = append(cs.ScenarioTypes, it.Value)
			}
		default:
			p.fail(k, "changelog", "unknown key %q (want fields, scenario-types)", k.Value)
		}
	}
}

// changelogField reads a field's type name or its {type, min, required}
// mapping.
func (p *configParser) changelogField(n *yaml.Node, key string) (ChangelogField, bool) {
	var f ChangelogField
	typeNode := n
	want := "a type (" + strings.Join(ChangelogFieldTypes, ", ") + ") or a mapping {type, min, required}"
	switch n.Kind {
	case yaml.ScalarNode:
		f.Type = n.Value
	case yaml.MappingNode:
		typeNode = nil
		for _, kv := range p.entries(n, key, want) {
			k, v := kv[0], kv[1]
			switch k.Value {
			case "type":
				typeNode, f.Type = v, v.Value
			case "min":
				var m int
				if v.Kind != yaml.ScalarNode || v.Decode(&m) != nil {
					p.fail(v, key+".min", "want an integer, got %s", nodeKind(v))
					return f, false
				}
				f.Min = &m
			case "required":
				f.Required = p.boolean(v, key+".required")
			default:
				p.fail(k, key, "unknown changelog field setting %q (want type, min, required)", k.Value)
				return f, false
			}
		}
		if p.err != nil {
			return f, false
		}
		if typeNode == nil {
			p.fail(n, key, "the mapping needs a type (%s)", strings.Join(ChangelogFieldTypes, ", "))
			return f, false
		}
	default:
		p.fail(n, key, "want %s, got %s", want, nodeKind(n))
		return f, false
	}
	if !slices.Contains(ChangelogFieldTypes, f.Type) {
		p.fail(typeNode, key, "unknown changelog field type %s (want one of %s)", nodeKind(typeNode), strings.Join(ChangelogFieldTypes, ", "))
		return f, false
	}
	if f.Min != nil && f.Type != "integer" {
		p.fail(n, key+".min", "`min` applies only to integer fields")
		return f, false
	}
	return f, true
}

// PipelineConfig extends the table of variables a benchmark job gets. The
// pipeline model reads them from the repository's workflow templates where
// it can, and from a built-in table where it cannot; a variable the
// repository adds in a way neither knows (a step outside the templates, a
// runner image) is declared here.
type PipelineConfig struct {
	// Env are variables every benchmark job gets, each a GitHub expression
	// over the job's inputs (`${{ inputs.my-field }}`) or a literal; a row's
	// field is the input of the same name.
	Env []PipelineVar
	// SingleNodeEnv and MultiNodeEnv are variables only single-node or
	// only multi-node jobs get.
	SingleNodeEnv []PipelineVar
	MultiNodeEnv  []PipelineVar
	// RunnerEnv are variables the runner machines set themselves: present,
	// with a value the bot cannot know.
	RunnerEnv []string
}

// PipelineVar is one configured variable and where it was configured.
type PipelineVar struct {
	Name, Expr string
	Line       int
}

var pipelineKeys = []string{"env", "single-node-env", "multi-node-env", "runner-env"}

// pipeline reads `pipeline: {env: {VAR: expr}, single-node-env: {...},
// multi-node-env: {...}, runner-env: [VAR]}`.
func (p *configParser) pipeline(pc *PipelineConfig, n *yaml.Node) {
	if n.Tag == "!!null" {
		return
	}
	for _, kv := range p.entries(n, "pipeline", "a mapping of "+strings.Join(pipelineKeys, ", ")) {
		k, v := kv[0], kv[1]
		key := "pipeline." + k.Value
		var dst *[]PipelineVar
		switch k.Value {
		case "env":
			dst = &pc.Env
		case "single-node-env":
			dst = &pc.SingleNodeEnv
		case "multi-node-env":
			dst = &pc.MultiNodeEnv
		case "runner-env":
			for _, it := range p.scalars(v, key, "a variable name or a list of them") {
				if !validEnvName(it.Value) {
					p.fail(it, key, "%q is not a variable name", it.Value)
					return
				}
				pc.RunnerEnv = append(pc.RunnerEnv, it.Value)
			}
			continue
		default:
			p.fail(k, "pipeline", "unknown key %q (want %s)", k.Value, strings.Join(pipelineKeys, ", "))
			return
		}
		if v.Tag == "!!null" {
			continue
		}
		for _, e := range p.entries(v, key, "a mapping of variable names to expressions") {
			name, val := e[0], e[1]
			if !validEnvName(name.Value) {
				p.fail(name, key, "%q is not a variable name", name.Value)
				return
			}
			if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
				p.fail(val, key+"."+name.Value, "want an expression such as \"${{ inputs.ep }}\" or a literal, got %s", nodeKind(val))
				return
			}
			if strings.Count(val.Value, "${{") != strings.Count(val.Value, "}}") {
				p.fail(val, key+"."+name.Value, "unbalanced ${{ }} in %q", val.Value)
				return
			}
			*dst = append(*dst, PipelineVar{Name: name.Value, Expr: val.Value, Line: name.Line})
		}
	}
}

// validEnvName reports whether s is a shell variable name.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

var pathKeys = []string{"changelog", "master-configs", "recipes", "runners", "models", "golden-al",
	"waivers", "checklist", "codeowners", "eval-thresholds"}

func (p *configParser) paths(ps *Paths, n *yaml.Node) {
	if n.Tag == "!!null" {
		return
	}
	files := map[string]*string{"changelog": &ps.Changelog, "models": &ps.Models, "golden-al": &ps.GoldenAL,
		"waivers": &ps.Waivers, "checklist": &ps.Checklist, "codeowners": &ps.Codeowners,
		"eval-thresholds": &ps.EvalThresholds}
	globs := map[string]*[]string{"master-configs": &ps.MasterConfigs, "recipes": &ps.Recipes, "runners": &ps.Runners}
	for _, kv := range p.entries(n, "paths", "a mapping of "+strings.Join(pathKeys, ", ")) {
		k, v := kv[0], kv[1]
		key := "paths." + k.Value
		if str, ok := files[k.Value]; ok {
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Value == "" {
				p.fail(v, key, "want a path, got %s", nodeKind(v))
				continue
			}
			*str = v.Value
			continue
		}
		list, ok := globs[k.Value]
		if !ok {
			p.fail(k, "paths", "unknown key %q (want %s)", k.Value, strings.Join(pathKeys, ", "))
			continue
		}
		for _, it := range p.scalars(v, key, "a glob pattern or a list of them") {
			if !doublestar.ValidatePattern(it.Value) {
				p.fail(it, key, "bad glob pattern %q", it.Value)
				break
			}
			*list = append(*list, it.Value)
		}
	}
}

// scalars reads one value or a list of them (a single one may be written
// without the list brackets), each a non-empty scalar; on the first that
// is not, it fails with want and returns what came before it.
func (p *configParser) scalars(v *yaml.Node, key, want string) []*yaml.Node {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var out []*yaml.Node
	for _, it := range items {
		it = deref(it)
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" || it.Value == "" {
			p.fail(it, key, "want %s, got %s", want, nodeKind(it))
			break
		}
		out = append(out, it)
	}
	return out
}

// LoadConfig reads the configuration from the base tree; a missing file
// yields the defaults.
func LoadConfig(ctx context.Context, base Tree) (*Config, error) {
	b, err := base.ReadFile(ctx, ConfigPath)
	if err != nil {
		if IsNotExist(err) {
			return &Config{Source: "defaults"}, nil
		}
		return nil, fmt.Errorf("read %s: %w", ConfigPath, err)
	}
	return ParseConfig(b)
}

// Configure settles ch's configuration; it is the one way a review, the
// App's sign-off, the CLI and the convention miner come by it. When
// ch.Config is nil it is loaded from .github/reviewbot.yml of ch.Base
// (the PR must not configure its own review). The configuration is then
// checked against reg (nil: not checked) and its layout resolved over
// ch.Base, then ch.Head. Both steps are idempotent, so a caller that needs
// the configuration before the review (the CLI lays its flags over it)
// configures the change first and the review finds it settled.
func (ch *Change) Configure(ctx context.Context, reg *Registry) error {
	if ch.Config == nil {
		cfg, err := LoadConfig(ctx, ch.Base)
		if nr := AsNotRegular(err); nr != nil {
			// A directory (or, on disk, a named pipe) where the file
			// should be holds no configuration: said, not fatal.
			n := nr.NotReviewed(ConfigPath)
			ch.Skip(n.Path, n.Reason+", so the default configuration applies")
			cfg, err = &Config{Source: "defaults"}, nil
		}
		if err != nil {
			return err
		}
		ch.Config = cfg
	}
	if reg != nil {
		if err := ch.Config.Validate(reg); err != nil {
			return err
		}
	}
	trees := []Tree{ch.Base}
	if ch.Head != nil {
		trees = append(trees, ch.Head)
	}
	if err := ch.Config.ResolveLayout(ctx, trees...); err != nil {
		return fmt.Errorf("detect repository layout: %w", err)
	}
	return nil
}

// Settings is the configuration rules read: ch.Config once Configure has
// settled it. A rule run outside Review (a test, a tool) gets the change's
// configuration, or the defaults, laid out over ch.Base: once per change,
// and never by changing ch.Config.
func (ch *Change) Settings(ctx context.Context) *Config {
	if ch.Config != nil && len(ch.Config.Paths.Recipes) > 0 {
		return ch.Config
	}
	v, _ := Shared(ch, settingsKey, "", func() (*Config, error) {
		c := &Config{Source: "defaults"}
		if ch.Config != nil {
			cp := *ch.Config
			c = &cp
		}
		if err := c.ResolveLayout(ctx, ch.Base); err != nil || len(c.Paths.Recipes) == 0 {
			// An unreadable base still has the default globs.
			_ = c.ResolveLayout(ctx)
		}
		return c, nil
	})
	return v
}

// Validate checks that every rule the configuration names exists. The error
// is a *ConfigError naming the first unknown ID in file order.
func (c *Config) Validate(reg *Registry) error {
	var bad []string
	for id := range c.Rules {
		if reg.Lookup(id) == nil {
			bad = append(bad, id)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Slice(bad, func(i, j int) bool {
		a, b := c.ruleAt[bad[i]], c.ruleAt[bad[j]]
		if a.line != b.line {
			return a.line < b.line
		}
		return bad[i] < bad[j]
	})
	at := c.ruleAt[bad[0]]
	return &ConfigError{Source: c.Source, Line: at.line, Column: at.column, Key: "rules",
		Msg: fmt.Sprintf("unknown rule %q (run `reviewbot rules` for the list)", bad[0])}
}

// Setting returns the configured setting for a rule.
func (c *Config) Setting(id string) RuleSetting {
	if c == nil {
		return RuleSetting{}
	}
	return c.Rules[id]
}

// ResolveLayout fills every empty path of c by looking at the trees: the
// newer layout (files under inferencex-e2e/) is preferred when the base
// tree (or, failing that, the head tree) has it. Globs cover both layouts.
func (c *Config) ResolveLayout(ctx context.Context, trees ...Tree) error {
	pick := func(dst *string, rel string) error {
		if *dst != "" {
			*dst = CleanPath(*dst)
			return nil
		}
		candidates := []string{path.Join(NewerLayoutRoot, rel), rel}
		for _, t := range trees {
			for _, cand := range candidates {
				ok, err := Exists(ctx, t, cand)
				if err != nil {
					return err
				}
				if ok {
					*dst = cand
					return nil
				}
			}
		}
		*dst = rel
		return nil
	}
	p := &c.Paths
	for _, f := range []struct {
		dst *string
		rel string
	}{
		{&p.Changelog, "perf-changelog.yaml"},
		{&p.Models, "MODELS.md"},
		{&p.GoldenAL, "golden_al_distribution"},
		{&p.Waivers, "docs/waiver"},
		{&p.Checklist, "docs/PR_REVIEW_CHECKLIST.md"},
		{&p.Codeowners, ".github/CODEOWNERS"},
		{&p.EvalThresholds, "utils/evals/thresholds.yaml"},
	} {
		if err := pick(f.dst, f.rel); err != nil {
			return err
		}
	}
	both := func(rel ...string) []string {
		var out []string
		for _, r := range rel {
			out = append(out, r, path.Join(NewerLayoutRoot, r))
		}
		return out
	}
	if len(p.MasterConfigs) == 0 {
		// .github/configs/ is where master configs lived before mid-2026.
		p.MasterConfigs = append(both("configs/*-master.yaml"), ".github/configs/*-master.yaml")
	}
	if len(p.Recipes) == 0 {
		p.Recipes = both("benchmarks/**/*.sh")
	}
	if len(p.Runners) == 0 {
		p.Runners = both("runners/launch_*.sh")
	}
	return nil
}

// MatchAny reports whether p matches one of the glob patterns (** crosses
// directories).
func MatchAny(patterns []string, p string) bool {
	for _, pat := range patterns {
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
	}
	return false
}

// IsMasterConfig reports whether p is a master config.
func (c *Config) IsMasterConfig(p string) bool { return MatchAny(c.Paths.MasterConfigs, p) }

// Reviewed reports whether some rule judges the file at p: a master
// config, recipe, runner, the changelog, or the repository configuration.
func (c *Config) Reviewed(p string) bool {
	p = CleanPath(p)
	return c.IsMasterConfig(p) || c.IsRecipe(p) || c.IsRunner(p) || p == CleanPath(c.Paths.Changelog) || p == ConfigPath
}

// IsRecipe reports whether p is a benchmark recipe script.
func (c *Config) IsRecipe(p string) bool { return MatchAny(c.Paths.Recipes, p) }

// IsRunner reports whether p is a runner launch script.
func (c *Config) IsRunner(p string) bool { return MatchAny(c.Paths.Runners, p) }

// GlobFiles lists the files of t matching any pattern, in path order. It
// walks only the static prefix directory of each pattern.
func GlobFiles(ctx context.Context, t Tree, patterns []string) ([]Entry, error) {
	seen := map[string]bool{}
	var out []Entry
	for _, pat := range patterns {
		root, _ := doublestar.SplitPattern(pat)
		if root == "." {
			root = ""
		}
		files, err := Walk(ctx, t, root)
		if err != nil {
			return nil, err
		}
		for _, e := range files {
			if !seen[e.Path] && MatchAny([]string{pat}, e.Path) {
				seen[e.Path] = true
				out = append(out, e)
			}
		}
	}
	sortEntries(out)
	return out, nil
}

func sortEntries(es []Entry) {
	sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
}

// Conventions configures CV001, the conventions mined from sibling
// recipes. A mined belief is a warning: the bot cannot know why the
// siblings agree. A maintainer who knows it is a rule of the repository
// lists it here, and its findings block.
type Conventions struct {
	// Confirmed are belief IDs as `reviewbot conventions` prints them,
	// "<engine>: X => Y" (the engine may be left out to confirm the
	// belief for every engine).
	Confirmed []string `yaml:"confirmed"`
}

func (c Conventions) validate() error {
	for _, id := range c.Confirmed {
		x, y, ok := strings.Cut(strings.ReplaceAll(id, "⇒", "=>"), "=>")
		if engine, rest, found := strings.Cut(x, ":"); found && !strings.ContainsAny(strings.TrimSpace(engine), " -") {
			x = rest
		}
		if !ok || strings.TrimSpace(x) == "" || strings.TrimSpace(y) == "" {
			return fmt.Errorf("conventions.confirmed: %q is not a belief ID (want \"<engine>: X => Y\", as `reviewbot conventions` prints it)", id)
		}
	}
	return nil
}

// settingsKey shares Settings within a change.
var settingsKey = NewMemoKey[*Config]("checks.settings")
