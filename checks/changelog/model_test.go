package changelog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// realData finds a file of the real InferenceX data next to the
// repository (the shared directory beside /work/main, so also beside a
// worktree's parent), or in $REVIEWBOT_SHARED; "" when there is none.
func realData(rel string) string {
	if d := os.Getenv("REVIEWBOT_SHARED"); d != "" {
		return filepath.Join(d, "inferencex", rel)
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for ; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "inferencex", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

var realChangelog = realData("perf-changelog.yaml")

func readReal(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(realChangelog)
	if err != nil {
		t.Skipf("real changelog not available: %v", err)
	}
	return b
}

// slowCopy re-parses e with yaml.v3 only.
func slowCopy(f *File, e *Entry) *Entry {
	c := &Entry{Index: e.Index, Start: e.Start, End: e.End, ContentEnd: e.ContentEnd, Text: e.Text}
	parseSlow(f, c)
	return c
}

// agree checks the line reader against yaml.v3 on every entry it read.
func agree(t testing.TB, f *File) (fast int) {
	t.Helper()
	for _, e := range f.Entries {
		if !e.Fast {
			continue
		}
		fast++
		s := slowCopy(f, e)
		if s.Err != nil {
			t.Errorf("entry at line %d: fast reader accepted it, yaml.v3 says %v\n%s", e.Start, s.Err, f.Lines(e.Start, e.End))
			continue
		}
		if d := cmp.Diff(s.Fields, e.Fields); d != "" || s.Kind != e.Kind || !cmp.Equal(s.Dups, e.Dups) {
			t.Errorf("entry at line %d: fast and yaml.v3 readers disagree (-yaml +fast):\n%s\nkind %v/%v dups %v/%v\n%q", e.Start, d, s.Kind, e.Kind, s.Dups, e.Dups, f.Lines(e.Start, e.End))
		}
	}
	return fast
}

func TestRealChangelogParses(t *testing.T) {
	src := readReal(t)
	f, _ := ParseFile(src)
	if f.Err != nil || f.Shape != "" {
		t.Fatalf("real changelog: err %v shape %q", f.Err, f.Shape)
	}
	if n := len(f.Entries); n < 700 || n > 900 {
		t.Fatalf("got %d entries, want ~770", n)
	}
	fast := agree(t, f)
	t.Logf("%d entries, %d read by the line reader", len(f.Entries), fast)
	if fast < len(f.Entries)*8/10 {
		t.Errorf("line reader handled only %d of %d entries", fast, len(f.Entries))
	}
	// Aligning the file with itself: every entry unchanged.
	al := Align(f.Entries, f.Entries)
	if n := len(al.Index(Unchanged)); n != len(f.Entries) || len(al.Deleted()) != 0 {
		t.Errorf("self-alignment: %d unchanged of %d, %d deleted", n, len(f.Entries), len(al.Deleted()))
	}
	// The whole-file parse must see the same entries.
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	items := doc.Content[0].Content
	if len(items) != len(f.Entries) {
		t.Fatalf("yaml.v3 sees %d items, split gives %d", len(items), len(f.Entries))
	}
	for i, it := range items {
		if it.Line < f.Entries[i].Start || it.Line > f.Entries[i].ContentEnd {
			t.Errorf("item %d at line %d lies outside entry span %d-%d", i, it.Line, f.Entries[i].Start, f.Entries[i].ContentEnd)
		}
		var links []string
		for j := 0; j+1 < len(it.Content); j += 2 {
			if it.Content[j].Value == "pr-link" {
				links = append(links, it.Content[j+1].Value)
			}
		}
		got, _, _ := f.Entries[i].PRLink()
		if len(links) != 1 || links[0] != got {
			t.Errorf("entry %d: pr-link %q, yaml.v3 %q", i, got, links)
		}
	}
}

func TestParseReuseMatchesFreshParse(t *testing.T) {
	base := []byte(baseLog)
	if b, err := os.ReadFile(realChangelog); err == nil {
		base = b
	}
	prev, _ := ParseFile(base)
	// Shift every entry down, edit one and append one.
	head := "- config-keys:\n    - x\n  description:\n    - \"first\"\n  pr-link: XXX\n\n" +
		strings.Replace(string(base), "config-keys:", "config-keys:  ", 1) +
		"\n- config-keys:\n    - y\n  description:\n    - \"last\"\n  pr-link: XXX\n"
	fresh, _ := ParseFile([]byte(head))
	reused, _ := parseFile([]byte(head), prev)
	if d := cmp.Diff(fresh.Entries, reused.Entries); d != "" {
		t.Errorf("reusing the base's parse changes the result (-fresh +reused):\n%s", d)
	}
	if !cmp.Equal(fresh.Err, reused.Err) {
		t.Errorf("err %v vs %v", fresh.Err, reused.Err)
	}
}

func TestParseFileShapes(t *testing.T) {
	type span struct{ Start, End, ContentEnd int }
	for _, tc := range []struct {
		name    string
		src     string
		spans   []span
		errLine int
		shape   bool
	}{
		{name: "empty", src: ""},
		{name: "comments only", src: "# nothing yet\n\n"},
		{name: "preamble comment and marker", src: "# changelog\n---\n- config-keys: [a]\n  pr-link: XXX\n", spans: []span{{3, 4, 4}}},
		{name: "whitespace separators", src: "- a: b\n  \n\n- a: c\n \n", spans: []span{{1, 3, 1}, {4, 5, 4}}},
		{name: "no final newline", src: "- a: b\n- a: c", spans: []span{{1, 1, 1}, {2, 2, 2}}},
		{name: "crlf", src: "- a: b\r\n\r\n- a: c\r\n", spans: []span{{1, 2, 1}, {3, 3, 3}}},
		{name: "dash without space is a scalar continuation", src: "- a: b\n-x\n", spans: []span{{1, 2, 2}}, errLine: 2},
		{name: "bad entry does not hide the next", src: "- a: [b\n\n- a: c\n", spans: []span{{1, 2, 1}, {3, 3, 3}}, errLine: 2},
		{name: "second document", src: "- a: b\n---\n- a: c\n", spans: []span{{1, 2, 2}, {3, 3, 3}}, errLine: 2},
		{name: "mapping at top", src: "a: b\n", shape: true},
		{name: "flow list", src: "[{a: b}]\n", shape: true},
		{name: "indented list", src: "  - a: b\n", shape: true},
		{name: "garbage", src: "a: [\n", errLine: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFile([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []span
			for _, e := range f.Entries {
				got = append(got, span{e.Start, e.End, e.ContentEnd})
			}
			if d := cmp.Diff(tc.spans, got); d != "" {
				t.Errorf("spans (-want +got):\n%s", d)
			}
			gotErr := 0
			if f.Err != nil {
				gotErr = f.Err.Line
			}
			if gotErr != tc.errLine {
				t.Errorf("error line %d (%v), want %d", gotErr, f.Err, tc.errLine)
			}
			if (f.Shape != "") != tc.shape {
				t.Errorf("shape = %q", f.Shape)
			}
		})
	}
}

func TestFastReaderAgreesOnTrickyEntries(t *testing.T) {
	src := strings.Join([]string{
		"- config-keys:\n    - 70b-fp8-*-vllm\n    - \"123\"\n  description:\n    - 'it''s \"quoted\"'\n    - \"back\\\\slash \\\"q\\\"\"\n  pr-link: https://github.com/o/r/pull/1\n",
		"- config-keys:\n  - same-indent\n  description:\n   - three\n  pr-link: XXX\n  append-only: true\n  evals-only: false\n",
		"- config-keys:\n    - 2026-08-07\n    - 1e3\n    - 0x1F\n    - .5\n  description: []\n",
		"- config-keys:\n    - a # comment\n  description:\n    - b: c\n",
		"- config-keys:\n    - café ✓\n  description:\n    - \"日本語\"\n  pr-link: yes\n",
		"- config-keys:\n    - dup\n  config-keys:\n    - dup2\n  pr-link:\n",
	}, "\n")
	f, _ := ParseFile([]byte(src))
	if len(f.Entries) != 6 {
		t.Fatalf("%d entries", len(f.Entries))
	}
	if n := agree(t, f); n < 3 {
		t.Errorf("only %d entries took the fast path", n)
	}
	if !f.Entries[1].AppendOnly() {
		t.Error("append-only: true not read")
	}
	if v := f.Entries[0].Get(keyDescription).Items[1].Value; v != `back\slash "q"` {
		t.Errorf("escapes: %q", v)
	}
}
