package checks

import (
	"strings"
	"testing"
)

func TestParseConfigChangelogSchema(t *testing.T) {
	for _, tc := range []struct {
		name, src, wantErr string
		check              func(*testing.T, *Config)
	}{
		{name: "fields and scenario types",
			src: "changelog:\n  fields:\n    skip-evals: boolean\n    eval-max-decode-ep: {type: integer, min: 1}\n    owner: {type: string, required: true}\n  scenario-types: [long-context]\n",
			check: func(t *testing.T, c *Config) {
				f := c.Changelog.Fields
				if f["skip-evals"].Type != "boolean" || f["eval-max-decode-ep"].Min == nil || *f["eval-max-decode-ep"].Min != 1 || !f["owner"].Required {
					t.Errorf("fields: %+v", f)
				}
				if len(c.Changelog.ScenarioTypes) != 1 || c.Changelog.ScenarioTypes[0] != "long-context" {
					t.Errorf("scenario types: %v", c.Changelog.ScenarioTypes)
				}
			}},
		{name: "unknown type", src: "changelog:\n  fields:\n    x: float\n", wantErr: `unknown changelog field type "float"`},
		{name: "min on a boolean", src: "changelog:\n  fields:\n    x: {type: boolean, min: 1}\n", wantErr: "only to integer"},
		{name: "misspelled setting", src: "changelog:\n  fields:\n    x: {type: integer, minimum: 1}\n", wantErr: `"minimum"`},
		{name: "misspelled section key", src: "changelog:\n  scenario-type: [x]\n", wantErr: "scenario-type"},
		{name: "error names the position", src: "rules: {}\nchangelog:\n  fields:\n    x: {type: integer, min: one}\n", wantErr: "4:29: changelog.fields.x.min: want an integer"},
		{name: "mapping without a type", src: "changelog:\n  fields:\n    x: {min: 1}\n", wantErr: "3:8: changelog.fields.x: the mapping needs a type"},
		{name: "list is not a type", src: "changelog:\n  fields:\n    x: [string]\n", wantErr: "changelog.fields.x: want a type"},
		{name: "scenario type not a string", src: "changelog:\n  scenario-types: [{a: b}]\n", wantErr: "changelog.scenario-types: want a scenario type"},
		{name: "one scenario type", src: "changelog:\n  scenario-types: long-context\n",
			check: func(t *testing.T, c *Config) {
				if len(c.Changelog.ScenarioTypes) != 1 {
					t.Errorf("scenario types: %v", c.Changelog.ScenarioTypes)
				}
			}},
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
