package checks

import (
	"context"
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
		{name: "bad severity", src: "rules:\n  SH009: purple\n", wantErr: "unknown severity"},
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
