package changelog

// The repository's own changelog validator is the reference for what the
// merge tooling accepts. Its verdicts on a systematic set of inputs were
// recorded once (testdata/*_verdicts.json, produced by running the
// validator of InferenceX main at 843c6254f on each input; nothing here
// was produced by the code under test), and these tests hold the rules to
// them: blocking exactly where the validator rejects.

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func readVerdicts(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaMatchesValidator: one entry per case, a field set to one of
// many YAML spellings (booleans, numbers, dates, quoted digits, lists,
// Python field names, the append-only conflicts).
func TestSchemaMatchesValidator(t *testing.T) {
	var cases []struct {
		Entry string
		Valid bool
	}
	readVerdicts(t, "schema_verdicts.json", &cases)
	s := DefaultSchema()
	for _, c := range cases {
		f, _ := ParseFile([]byte(c.Entry))
		if f.Err != nil || len(f.Entries) != 1 {
			t.Errorf("%q: parse %v", c.Entry, f.Err)
			continue
		}
		var blocking []string
		for _, p := range shapeProblems(s, f, f.Entries[0], true) {
			if !p.warn {
				blocking = append(blocking, p.what)
			}
		}
		if got := len(blocking) == 0; got != c.Valid {
			t.Errorf("%q: validator valid=%v, schema problems %q", c.Entry, c.Valid, blocking)
		}
	}
}

// TestLayoutMatchesValidator: the base ends in one of several blank and
// whitespace-only tails, and the head rewrites that tail or appends one
// or two entries after various separators and endings.
func TestLayoutMatchesValidator(t *testing.T) {
	var cases []struct {
		BaseTail string `json:"base_tail"`
		HeadTail string `json:"head_tail"`
		Valid    bool
	}
	readVerdicts(t, "layout_verdicts.json", &cases)
	body := strings.TrimSuffix(baseLog, "\n")
	entries := strings.NewReplacer(
		"{E1}", "- config-keys:\n    - dsv4-fp4-b200-vllm\n  description:\n    - \"x\"\n  pr-link: XXX\n",
		"{E2}", "- config-keys:\n    - dsv4-fp4-b300-vllm-agentic\n  description:\n    - \"y\"\n  pr-link: XXX\n")
	valid := 0
	for _, c := range cases {
		head := body + entries.Replace(c.HeadTail)
		r := runReview(t, withLog(body+c.BaseTail), withLog(head), 2301)
		var blocking []string
		for _, f := range r.findings {
			if f.Severity == checks.Blocking {
				blocking = append(blocking, f.Rule+" "+f.Title)
			}
		}
		if got := len(blocking) == 0; got != c.Valid {
			t.Errorf("base tail %q, head tail %q: validator valid=%v, blocking %q", c.BaseTail, c.HeadTail, c.Valid, blocking)
		}
		if c.Valid {
			valid++
		}
	}
	if valid == 0 || valid == len(cases) {
		t.Fatalf("%d of %d cases valid: the table tests nothing", valid, len(cases))
	}
}
