package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
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
	// ReviewDrafts makes the App review draft PRs too.
	ReviewDrafts bool `yaml:"review-drafts"`
	// Changelog extends the perf changelog's entry schema.
	Changelog ChangelogSchema `yaml:"changelog"`
	// Source says where the configuration came from (for messages).
	Source string `yaml:"-"`
}

// RuleSetting disables a rule or changes its severity.
type RuleSetting struct {
	Disabled bool
	Severity Severity // 0: the rule's default
}

// UnmarshalYAML accepts `off`/`false`/`disabled`, a severity name, or a
// mapping {disabled: bool, severity: name}.
func (s *RuleSetting) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "off", "false", "disabled", "disable", "no":
			s.Disabled = true
			return nil
		case "on", "true", "enabled", "enable", "yes":
			return nil
		}
		sev, err := ParseSeverity(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		s.Severity = sev
		return nil
	}
	var m struct {
		Disabled bool   `yaml:"disabled"`
		Severity string `yaml:"severity"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	s.Disabled = m.Disabled
	if m.Severity != "" {
		sev, err := ParseSeverity(m.Severity)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		s.Severity = sev
	}
	return nil
}

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

// UnmarshalYAML accepts a type name or a mapping and rejects unknown types.
func (f *ChangelogField) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		f.Type = n.Value
	} else {
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "type" && k != "min" && k != "required" {
				return fmt.Errorf("line %d: unknown changelog field setting %q (type, min, required)", n.Content[i].Line, k)
			}
		}
		var m struct {
			Type     string `yaml:"type"`
			Min      *int   `yaml:"min"`
			Required bool   `yaml:"required"`
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		f.Type, f.Min, f.Required = m.Type, m.Min, m.Required
	}
	for _, t := range ChangelogFieldTypes {
		if f.Type == t {
			if f.Min != nil && t != "integer" {
				return fmt.Errorf("line %d: `min` applies only to integer fields", n.Line)
			}
			return nil
		}
	}
	return fmt.Errorf("line %d: unknown changelog field type %q (want one of %s)", n.Line, f.Type, strings.Join(ChangelogFieldTypes, ", "))
}

// NewerLayoutRoot is the directory the newer repository layout keeps the
// changelog, eval utilities and (sometimes) configs under.
const NewerLayoutRoot = "inferencex-e2e"

// ParseConfig reads a .github/reviewbot.yml document. Unknown keys are
// errors, so a typo does not silently leave a rule on.
func ParseConfig(b []byte) (*Config, error) {
	c := &Config{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", ConfigPath, err)
	}
	for _, p := range append(append(append([]string{}, c.Paths.MasterConfigs...), c.Paths.Recipes...), c.Paths.Runners...) {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("%s: bad glob pattern %q", ConfigPath, p)
		}
	}
	c.Source = ConfigPath
	return c, nil
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

// Validate checks that every rule the configuration names exists.
func (c *Config) Validate(reg *Registry) error {
	for id := range c.Rules {
		if reg.Lookup(id) == nil {
			return fmt.Errorf("%s: unknown rule %q (see `reviewbot rules`)", c.Source, id)
		}
	}
	return nil
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
		p.MasterConfigs = both("configs/*-master.yaml")
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
