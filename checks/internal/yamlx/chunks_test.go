package yamlx

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTopLevelChunks(t *testing.T) {
	src := "# header comment\n" +
		"---\n" +
		"dsr1-fp8-h200-sglang:\n" + // 3
		"  image: lmsysorg/sglang:v0.5.5\n" +
		"  scenarios:\n" +
		"    fixed-seq-len:\n" +
		"    - isl: 8192\n" +
		"\n" +
		"# next one\n" + // 9
		"kimik2.5-fp4-b200-vllm:\n" + // 10
		"  image: vllm/vllm-openai:v0.11.0\n" +
		"scalar-key: 3\n" // 12
	got, ok := TopLevelChunks([]byte(src))
	if !ok {
		t.Fatal("ok = false")
	}
	type c struct {
		Key           string
		Line, EndLine int
	}
	var gotC []c
	var joined strings.Builder
	for _, ch := range got {
		gotC = append(gotC, c{ch.Key, ch.Line, ch.EndLine})
		joined.WriteString(ch.Text)
		if src[ch.Offset:ch.Offset+len(ch.Text)] != ch.Text {
			t.Errorf("chunk %s: Offset %d does not locate its text", ch.Key, ch.Offset)
		}
	}
	want := []c{{"dsr1-fp8-h200-sglang", 3, 9}, {"kimik2.5-fp4-b200-vllm", 10, 11}, {"scalar-key", 12, 12}}
	if d := cmp.Diff(want, gotC); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	if !strings.HasSuffix(src, joined.String()) || !strings.HasPrefix(got[0].Text, "dsr1-fp8-h200-sglang:\n") {
		t.Errorf("chunk texts do not tile the source after the preamble:\n%s", joined.String())
	}
	for _, ch := range got {
		doc, err := Parse([]byte(ch.Text))
		if err != nil {
			t.Errorf("chunk %s does not parse alone: %v", ch.Key, err)
			continue
		}
		if k := Pairs(Root(doc)); len(k) != 1 || k[0].Key.Value != ch.Key {
			t.Errorf("chunk %s parses to %d keys", ch.Key, len(k))
		}
	}
}

func TestTopLevelChunksRejectsOtherShapes(t *testing.T) {
	for name, src := range map[string]string{
		"list":                      "- a\n- b\n",
		"flow":                      "{a: 1}\n",
		"quoted key":                "\"a b\": 1\n",
		"tag":                       "!!map\na: 1\n",
		"directive":                 "%YAML 1.2\n---\na: 1\n",
		"no colon":                  "a: 1\nplain\n",
		"colon glued":               "a:b\n",
		"indented before first key": "  x\na: 1\n",
		"indented key first":        "  a: 1\nb: 2\n",
		"two document starts":       "---\n---\na: 1\n",
		"second document":           "a: 1\n---\nb: 2\n",
		"document end":              "a: 1\n...\n",
		"start with comment":        "--- # c\na: 1\n",
		"column-one continuation":   "a: [1,\n2]\n",
		"tab-indented value":        "a:\n\tb: 1\n",
	} {
		if _, ok := TopLevelChunks([]byte(src)); ok {
			t.Errorf("%s: ok = true", name)
		}
	}
	got, ok := TopLevelChunks([]byte("# c\n  # indented comment\n\n---\n# d\na: 1\n# after\n\nb:\n  c: 2\n"))
	if !ok || len(got) != 2 || got[0].Line != 6 || got[0].EndLine != 8 || got[0].Text != "a: 1\n# after\n\n" || got[1].Line != 9 {
		t.Errorf("comments around keys: %+v, %v", got, ok)
	}
	if got, ok := TopLevelChunks(nil); !ok || len(got) != 0 {
		t.Errorf("empty input: %v, %v", got, ok)
	}
	if got, ok := TopLevelChunks([]byte("a: 1")); !ok || len(got) != 1 || got[0].Text != "a: 1" || got[0].EndLine != 1 {
		t.Errorf("no final newline: %+v, %v", got, ok)
	}
}
