package checks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		check     func(*testing.T, *Config)
		wantErr   string
	}{
		{name: "empty", src: "", check: func(t *testing.T, c *Config) {
			if len(c.Rules) != 0 {
				t.Error(c.Rules)
			}
		}},
		{name: "rule forms", src: "rules:\n  SH009: off\n  MC003: blocking\n  CL001: {severity: warning}\n  CV001: {disabled: true}\n  SH001: on\n",
			check: func(t *testing.T, c *Config) {
				if !c.Setting("SH009").Disabled || !c.Setting("CV001").Disabled {
					t.Error("off / disabled: true not honored")
				}
				if c.Setting("MC003").Severity != Blocking || c.Setting("CL001").Severity != Warning {
					t.Error("severity override not honored")
				}
				if s := c.Setting("SH001"); s.Disabled || s.Severity != 0 {
					t.Error("on must leave the rule at its defaults")
				}
			}},
		{name: "paths", src: "paths:\n  changelog: x/perf-changelog.yaml\n  master-configs: ['x/configs/*-master.yaml']\n  recipes: ['bench/**/*.sh']\nreview-drafts: true\n",
			check: func(t *testing.T, c *Config) {
				if c.Paths.Changelog != "x/perf-changelog.yaml" || !c.ReviewDrafts {
					t.Error(c.Paths)
				}
				if !c.IsMasterConfig("x/configs/amd-master.yaml") || c.IsMasterConfig("configs/amd-master.yaml") {
					t.Error("configured master-config glob not used")
				}
				if !c.IsRecipe("bench/a/b/c.sh") {
					t.Error("** must cross directories")
				}
			}},
		{name: "unknown key", src: "rulez:\n  SH009: off\n", wantErr: "rulez"},
		{name: "bad setting", src: "rules:\n  SH009: purple\n", wantErr: "unknown setting"},
		{name: "bad severity", src: "rules:\n  SH009: {severity: red}\n", wantErr: "unknown severity"},
		{name: "bad glob", src: "paths:\n  recipes: ['bench/[a']\n", wantErr: "bad glob"},
		{name: "not yaml", src: "rules: [\n", wantErr: "reviewbot.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// TestConfigErrors pins what a maintainer sees for a broken configuration:
// the file, line and column, the offending key, and every accepted value.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string
	}{
		{"setting", "rules:\n  SH009: of\n", `my.yml:2:10: rules.SH009: unknown setting "of" (want off, on, blocking or warning, or a mapping {severity: blocking|warning, disabled: true|false})`},
		{"severity", "rules:\n  CL004: {severity: red}\n", `my.yml:2:21: rules.CL004.severity: unknown severity "red" (want blocking or warning)`},
		{"mapping key", "rules:\n  CL004: {level: warning}\n", `my.yml:2:11: rules.CL004: unknown key "level" (want severity, disabled)`},
		{"top key", "rules: {}\nrulez:\n  SH009: off\n", `my.yml:2:1: unknown key "rulez" (want rules, paths, conventions, changelog, pipeline, review-drafts, report-unused-ignores)`},
		{"path key", "paths:\n  recipe: ['a/*.sh']\n", `my.yml:2:3: paths: unknown key "recipe" (want changelog, master-configs`},
		{"glob", "paths:\n  recipes: ['bench/[a']\n", `my.yml:2:13: paths.recipes: bad glob pattern "bench/[a"`},
		{"path type", "paths:\n  changelog: [a, b]\n", `my.yml:2:14: paths.changelog: want a path, got a list`},
		{"bool", "review-drafts: sometimes\n", `my.yml:1:16: review-drafts: want true or false, got "sometimes"`},
		{"duplicate", "rules:\n  SH009: off\n  SH009: warning\n", `my.yml:3:3: rules.SH009: defined twice (first at line 2)`},
		{"not a mapping", "- SH009\n", `my.yml:1:1: want a mapping of rules, paths`},
		{"syntax", "rules:\n  SH009: off\n bad: [\n", `my.yml:2: not valid YAML: did not find expected key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfigFile([]byte(tc.src), "my.yml")
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want a *ConfigError", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %s\nwant %s", err, tc.want)
			}
		})
	}
	// A single glob may be written without brackets; an alias is followed.
	c, err := ParseConfigFile([]byte("paths:\n  recipes: 'bench/**/*.sh'\n  runners: &r ['run/*.sh']\n  master-configs: *r\n"), "my.yml")
	if err != nil || !c.IsRecipe("bench/a/b.sh") || !c.IsMasterConfig("run/x.sh") {
		t.Errorf("%+v %v", c, err)
	}
	// Unknown rule IDs are reported where they are named.
	reg, err := NewRegistry(&Rule{ID: "T001", Severity: Warning, Title: "t", Doc: "d", Run: func(*Pass) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	c, err = ParseConfigFile([]byte("rules:\n  T001: off\n  ZZ999: warning\n  AA999: off\n"), "my.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(reg); err == nil || err.Error() != "my.yml:3:3: rules: unknown rule \"ZZ999\" (run `reviewbot rules` for the list)" {
		t.Errorf("Validate: %v", err)
	}
	// Empty documents are the defaults.
	for _, src := range []string{"", "# nothing\n", "~\n", "rules:\npaths:\n"} {
		if c, err := ParseConfigFile([]byte(src), "my.yml"); err != nil || len(c.Rules) != 0 {
			t.Errorf("%q: %+v %v", src, c, err)
		}
	}
}

func TestResolveLayout(t *testing.T) {
	ctx := context.Background()
	older := NewMemTree(map[string]string{
		"perf-changelog.yaml":        "[]\n",
		"configs/nvidia-master.yaml": "{}\n",
		"MODELS.md":                  "# Models\n",
	})
	newer := NewMemTree(map[string]string{
		"inferencex-e2e/perf-changelog.yaml":         "[]\n",
		"inferencex-e2e/utils/evals/thresholds.yaml": "default: {}\n",
		"configs/nvidia-master.yaml":                 "{}\n",
		"MODELS.md":                                  "# Models\n",
	})
	for _, tc := range []struct {
		name                          string
		trees                         []Tree
		changelog, thresholds, models string
	}{
		{"older", []Tree{older}, "perf-changelog.yaml", "utils/evals/thresholds.yaml", "MODELS.md"},
		{"newer", []Tree{newer}, "inferencex-e2e/perf-changelog.yaml", "inferencex-e2e/utils/evals/thresholds.yaml", "MODELS.md"},
		// A base without the file (a brand-new repository) falls back to head.
		{"head only", []Tree{NewMemTree(nil), newer}, "inferencex-e2e/perf-changelog.yaml", "inferencex-e2e/utils/evals/thresholds.yaml", "MODELS.md"},
		{"nothing", []Tree{NewMemTree(nil)}, "perf-changelog.yaml", "utils/evals/thresholds.yaml", "MODELS.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{}
			if err := c.ResolveLayout(ctx, tc.trees...); err != nil {
				t.Fatal(err)
			}
			if c.Paths.Changelog != tc.changelog || c.Paths.EvalThresholds != tc.thresholds || c.Paths.Models != tc.models {
				t.Errorf("got %+v", c.Paths)
			}
			for _, p := range []string{"configs/nvidia-master.yaml", "inferencex-e2e/configs/amd-master.yaml"} {
				if !c.IsMasterConfig(p) {
					t.Errorf("%s not a master config", p)
				}
			}
			if c.IsMasterConfig("configs/deprecated/nvidia-master.yaml") || c.IsMasterConfig("configs/runners.yaml") {
				t.Error("non-master file matched")
			}
			if !c.IsRecipe("benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh") || !c.IsRunner("runners/launch_b200-dgxc.sh") {
				t.Error("default recipe/runner globs")
			}
		})
	}
	// An explicit path is kept (cleaned), not autodetected.
	c := &Config{Paths: Paths{Changelog: "./custom/changelog.yaml"}}
	if err := c.ResolveLayout(ctx, older); err != nil || c.Paths.Changelog != "custom/changelog.yaml" {
		t.Error(c.Paths.Changelog, err)
	}
}

func TestGlobFiles(t *testing.T) {
	tr := NewMemTree(map[string]string{
		"configs/nvidia-master.yaml":            "",
		"configs/amd-master.yaml":               "",
		"configs/runners.yaml":                  "",
		"configs/deprecated/old-master.yaml":    "",
		"benchmarks/single_node/agentic/a.sh":   "",
		"benchmarks/single_node/b.sh":           "",
		"benchmarks/single_node/agentic/README": "",
	})
	got, err := GlobFiles(context.Background(), tr, []string{"configs/*-master.yaml", "benchmarks/**/*.sh", "missing/*.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got {
		paths = append(paths, e.Path)
	}
	want := "benchmarks/single_node/agentic/a.sh benchmarks/single_node/b.sh configs/amd-master.yaml configs/nvidia-master.yaml"
	if strings.Join(paths, " ") != want {
		t.Errorf("got %v", paths)
	}
}

func TestLoadConfigFromBase(t *testing.T) {
	ctx := context.Background()
	c, err := LoadConfig(ctx, NewMemTree(map[string]string{ConfigPath: "rules:\n  SH009: off\n"}))
	if err != nil || !c.Setting("SH009").Disabled || c.Source != ConfigPath {
		t.Fatal(c, err)
	}
	c, err = LoadConfig(ctx, NewMemTree(nil))
	if err != nil || c.Source != "defaults" {
		t.Fatal(c, err)
	}
}

// Configure is the one loader every caller goes through: the base's file
// (never the head's), checked against the rules, laid out over base then
// head; a configuration the caller set is kept, and a second call changes
// nothing.
func TestChangeConfigure(t *testing.T) {
	ctx := context.Background()
	reg, err := NewRegistry(&Rule{ID: "T001", Severity: Warning, Title: "t", Doc: "d", Run: func(*Pass) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	newer := map[string]string{"inferencex-e2e/perf-changelog.yaml": "[]\n"}
	given, err := ParseConfigFile([]byte("rules:\n  T001: off\n"), "flag.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		given      *Config
		reg        *Registry
		source     string
		changelog  string
		disabled   bool
		err        string
	}{
		{name: "defaults", base: map[string]string{}, head: map[string]string{ConfigPath: "rules:\n  T001: off\n"},
			reg: reg, source: "defaults", changelog: "perf-changelog.yaml"},
		{name: "from base", base: map[string]string{ConfigPath: "rules:\n  T001: off\n"}, head: newer,
			reg: reg, source: ConfigPath, changelog: "inferencex-e2e/perf-changelog.yaml", disabled: true},
		{name: "given", base: map[string]string{ConfigPath: "rules:\n  ZZ9: off\n"}, head: nil, given: given,
			reg: reg, source: "flag.yml", changelog: "perf-changelog.yaml", disabled: true},
		{name: "unknown rule", base: map[string]string{ConfigPath: "rules:\n  ZZ9: off\n"}, head: map[string]string{},
			reg: reg, err: ".github/reviewbot.yml:2:3: rules: unknown rule \"ZZ9\" (run `reviewbot rules` for the list)"},
		{name: "unknown rule, not checked", base: map[string]string{ConfigPath: "rules:\n  ZZ9: off\n"}, head: map[string]string{},
			source: ConfigPath, changelog: "perf-changelog.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &Change{Base: NewMemTree(tc.base), Config: tc.given}
			if tc.head != nil {
				ch.Head = NewMemTree(tc.head)
			}
			err := ch.Configure(ctx, tc.reg)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			first := ch.Config
			if err := ch.Configure(ctx, tc.reg); err != nil || ch.Config != first {
				t.Fatalf("second Configure: %v, config replaced: %v", err, ch.Config != first)
			}
			if tc.given != nil && first != tc.given {
				t.Error("the given configuration was replaced")
			}
			if first.Source != tc.source || first.Paths.Changelog != tc.changelog || first.Setting("T001").Disabled != tc.disabled {
				t.Errorf("source %q changelog %q T001 off %v", first.Source, first.Paths.Changelog, first.Setting("T001").Disabled)
			}
			// Rules then read the settled configuration itself.
			if ch.Settings(ctx) != first {
				t.Error("Settings is not the configured configuration")
			}
		})
	}
	// Outside Review, Settings lays the defaults out over the base once,
	// without configuring the change.
	ch := &Change{Base: NewMemTree(newer)}
	s := ch.Settings(ctx)
	if ch.Config != nil || s.Paths.Changelog != "inferencex-e2e/perf-changelog.yaml" || len(s.Paths.Recipes) == 0 || ch.Settings(ctx) != s {
		t.Errorf("Settings outside Review: config %v, %+v", ch.Config, s.Paths)
	}
}

// Missing names the reviewed kinds no tree has, so a review of a
// repository laid out otherwise can say the rules had nothing to check.
func TestConfigMissing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		trees []Tree
		want  string
	}{
		{"nothing", []Tree{NewMemTree(map[string]string{"README.md": "x\n", "src/main.go": "package main\n"})},
			"perf changelog (perf-changelog.yaml)|master configs (configs/*-master.yaml, inferencex-e2e/configs/*-master.yaml, .github/configs/*-master.yaml)|" +
				"recipes (benchmarks/**/*.sh, inferencex-e2e/benchmarks/**/*.sh)|runners (runners/launch_*.sh, inferencex-e2e/runners/launch_*.sh)"},
		{"newer layout", []Tree{NewMemTree(map[string]string{"inferencex-e2e/perf-changelog.yaml": "[]\n",
			"inferencex-e2e/configs/nvidia-master.yaml": "{}\n", "benchmarks/single_node/a.sh": "x\n"})},
			"runners (runners/launch_*.sh, inferencex-e2e/runners/launch_*.sh)"},
		{"only the head has them", []Tree{NewMemTree(nil), NewMemTree(map[string]string{"perf-changelog.yaml": "[]\n",
			"configs/amd-master.yaml": "{}\n", "benchmarks/x/y/z.sh": "x\n", "runners/launch_b200.sh": "x\n"})}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{}
			if err := c.ResolveLayout(ctx, tc.trees...); err != nil {
				t.Fatal(err)
			}
			missing, err := c.Missing(ctx, tc.trees...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range missing {
				got = append(got, k.String())
			}
			if strings.Join(got, "|") != tc.want {
				t.Errorf("missing\n got %q\nwant %q", strings.Join(got, "|"), tc.want)
			}
		})
	}
}

// BenchmarkConfigMissing surveys a tree of the real repository's shape (a
// changelog, master configs, ~400 recipes, runners) for the reviewed kinds,
// what every CLI review does after its rules ran.
func BenchmarkConfigMissing(b *testing.B) {
	files := map[string]string{"perf-changelog.yaml": "[]\n", "configs/nvidia-master.yaml": "{}\n", "configs/amd-master.yaml": "{}\n",
		"runners/launch_b200.sh": "x\n"}
	for i := range 400 {
		files[fmt.Sprintf("benchmarks/single_node/dir%d/recipe%d.sh", i%8, i)] = "x\n"
	}
	for i := range 2000 {
		files[fmt.Sprintf("docs/page%d.md", i)] = "x\n"
	}
	tree := NewMemTree(files)
	c := &Config{}
	ctx := context.Background()
	if err := c.ResolveLayout(ctx, tree); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if m, err := c.Missing(ctx, tree, tree); err != nil || len(m) != 0 {
			b.Fatal(m, err)
		}
	}
}

func TestConfigPipeline(t *testing.T) {
	c, err := ParseConfig([]byte(`pipeline:
  env:
    MY_FLAG: "${{ inputs.my-field }}"
    LITERAL: "1"
  multi-node-env: {SRT_FRONTEND_PORT: "8000"}
  runner-env: [SLURM_ACCOUNT, SLURM_PARTITION]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Pipeline
	if len(p.Env) != 2 || p.Env[0] != (PipelineVar{"MY_FLAG", "${{ inputs.my-field }}", 3}) || p.Env[1].Expr != "1" ||
		len(p.MultiNodeEnv) != 1 || p.MultiNodeEnv[0].Name != "SRT_FRONTEND_PORT" || len(p.SingleNodeEnv) != 0 ||
		len(p.RunnerEnv) != 2 || p.RunnerEnv[1] != "SLURM_PARTITION" {
		t.Errorf("pipeline config: %+v", p)
	}
	for _, tc := range []struct{ src, want string }{
		{"pipeline: {envs: {}}\n", `unknown key "envs" (want env, single-node-env, multi-node-env, runner-env)`},
		{"pipeline: {env: {1X: a}}\n", `"1X" is not a variable name`},
		{"pipeline: {env: {X: [a]}}\n", `pipeline.env.X: want an expression`},
		{"pipeline: {env: {X: \"${{ inputs.a\"}}\n", `unbalanced ${{ }}`},
		{"pipeline: {runner-env: [\"A B\"]}\n", `"A B" is not a variable name`},
	} {
		_, err := ParseConfig([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}
