package changelog

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// schemaCases are entries and the problems the schema finds in them
// ("code@line"; warnings end in "~"). Each verdict was checked against
// the repository's own entry model.
var schemaCases = []struct {
	name  string
	entry string
	want  []string
}{
	{"minimal", "- config-keys:\n    - a\n  description:\n    - d\n  pr-link: XXX\n", nil},
	{"every field", "- config-keys:\n    - a\n  scenario-type:\n    - fixed-seq-len\n    - agentic-coding\n  description:\n    - d\n  pr-link: XXX\n  evals-only: true\n  all-evals: false\n  eval-min-prefill-ep: 8\n", nil},
	{"all-evals and eval-min-prefill-ep are fields", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  all-evals: true\n  eval-min-prefill-ep: 1\n", nil},
	{"scenario-type agentic is not a value", "- config-keys: [a]\n  scenario-type:\n    - agentic\n  description: [d]\n  pr-link: XXX\n", []string{"value:scenario-type:agentic@3"}},
	{"scenario-type empty list", "- config-keys: [a]\n  scenario-type: []\n  description: [d]\n  pr-link: XXX\n", []string{"empty:scenario-type@2"}},
	{"scenario-type null is left out", "- config-keys: [a]\n  scenario-type:\n  description: [d]\n  pr-link: XXX\n", nil},
	{"scenario-type as a string", "- config-keys: [a]\n  scenario-type: agentic-coding\n  description: [d]\n  pr-link: XXX\n", []string{"not-list:scenario-type@2"}},
	{"eval-min-prefill-ep zero", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  eval-min-prefill-ep: 0\n", []string{"type:eval-min-prefill-ep@4"}},
	{"eval-min-prefill-ep fraction", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  eval-min-prefill-ep: 2.5\n", []string{"type:eval-min-prefill-ep@4"}},
	{"eval-min-prefill-ep numeric string and whole float", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  eval-min-prefill-ep: \"3\"\n- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  eval-min-prefill-ep: 2.0\n", nil},
	{"eval-min-prefill-ep word", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  eval-min-prefill-ep: eight\n", []string{"type:eval-min-prefill-ep@4"}},
	{"booleans the model converts", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  evals-only: yes\n  all-evals: \"false\"\n  append-only: 0\n", nil},
	{"boolean out of range and null", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  evals-only: 2\n  all-evals:\n", []string{"type:all-evals@5", "type:evals-only@4"}},
	{"append-only with an eval field", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  append-only: true\n  all-evals: true\n", []string{"conflict:append-only:all-evals@5"}},
	{"append-only with eval fields off", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  append-only: true\n  evals-only: false\n  eval-min-prefill-ep:\n", nil},
	{"append-only false with evals", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  append-only: false\n  evals-only: true\n", nil},
	{"unknown key", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  notes: [x]\n", []string{"unknown:notes@4"}},
	{"Python field name stands for the field", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  evals_only: true\n", nil},
	{"Python field name next to the field is extra", "- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n  evals-only: true\n  evals_only: true\n", []string{"unknown:evals_only@5"}},
	{"YAML 1.1 scalars that are not strings", "- config-keys:\n    - 2026-08-07\n  description:\n    - yes\n  pr-link: 2201\n", []string{"item:config-keys:2026-08-07@2", "item:description:yes@4", "type:pr-link@5"}},
	{"YAML 1.2 numbers that YAML 1.1 reads as strings", "- config-keys:\n    - 1e3\n    - 0o17\n  description:\n    - 1.5e3\n  pr-link: XXX\n", nil},
	{"empty description item is a warning", "- config-keys: [a]\n  description:\n    - \"\"\n  pr-link: XXX\n", []string{"blank:description@3~"}},
	{"missing required fields", "- config-keys: [a]\n", []string{"missing:description@1", "missing:pr-link@1"}},
	{"not a mapping", "- just text\n", []string{"not-mapping@1"}},
}

func problemIDs(ps []schemaProblem) []string {
	var out []string
	for _, p := range ps {
		s := p.code + "@" + strconv.Itoa(p.line)
		if p.warn {
			s += "~"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func TestSchemaCheck(t *testing.T) {
	s := DefaultSchema()
	for _, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := ParseFile([]byte(tc.entry))
			if f.Err != nil {
				t.Fatalf("parse: %v", f.Err)
			}
			var got []string
			for _, e := range f.Entries {
				got = append(got, problemIDs(s.Check(f, e))...)
			}
			sort.Strings(got)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

func TestSchemaExtend(t *testing.T) {
	min2 := 2
	s := DefaultSchema().Extend(checks.ChangelogSchema{
		Fields: map[string]checks.ChangelogField{
			"eval-max-decode-ep": {Type: "integer", Min: &min2},
			"skip-evals":         {Type: "boolean"},
			"evals-only":         {Type: "string"},
		},
		ScenarioTypes: []string{"long-context"},
	})
	for _, tc := range []struct {
		name, extra string
		want        []string
	}{
		{"new integer field", "  eval-max-decode-ep: 4\n", nil},
		{"new integer field below its minimum", "  eval-max-decode-ep: 1\n", []string{"type:eval-max-decode-ep@4"}},
		{"new boolean field", "  skip-evals: true\n", nil},
		{"new boolean field, wrong type", "  skip-evals: [x]\n", []string{"type:skip-evals@4"}},
		{"redefined built-in field", "  evals-only: all\n", nil},
		{"new scenario type", "  scenario-type: [long-context, agentic-coding]\n", nil},
		{"still unknown", "  scenario-type: [long]\n", []string{"value:scenario-type:long@4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := ParseFile([]byte("- config-keys: [a]\n  description: [d]\n  pr-link: XXX\n" + tc.extra))
			got := problemIDs(s.Check(f, f.Entries[0]))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
	if ex := s.ExampleEntry(); !strings.Contains(ex, "eval-max-decode-ep: 2") || !strings.Contains(ex, "skip-evals: true") {
		t.Errorf("example entry lacks the new fields:\n%s", ex)
	}
	if d := DefaultSchema().Spec(keyScenarioType).Values; len(d) != 2 {
		t.Errorf("Extend changed the default schema: %v", d)
	}
}

func TestResolve11(t *testing.T) {
	for in, want := range map[string]string{
		"": "!!null", "~": "!!null", "null": "!!null", "yes": "!!bool", "Off": "!!bool", "y": "!!str",
		"12": "!!int", "0x1F": "!!int", "017": "!!int", "08": "!!str", "1_000": "!!int", "1:30": "!!int",
		"1.5": "!!float", "1.5e3": "!!str", "1.5e+3": "!!float", ".inf": "!!float", "1e3": "!!str", "0o17": "!!str",
		"2026-08-07": "!!timestamp", "2026-8-7": "!!str", "2026-08-07T10:00:00Z": "!!timestamp",
		"agentic-coding": "!!str", "<<": "!!merge", "XXX": "!!str",
	} {
		if got := resolve11(in); got != want {
			t.Errorf("resolve11(%q) = %s, want %s", in, got, want)
		}
	}
}
