package script

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// Each shortcut of the extractor (see facts_shortcuts_test.go) is kept
// because it pays: these benchmarks time the shortcut against the plain
// way it must agree with, on the generated 350-line recipe of
// BenchmarkParseFacts.

func benchFile(b *testing.B) (string, *syntax.File) {
	b.Helper()
	src := benchRecipe()
	file, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "bench.sh")
	if err != nil {
		b.Fatal(err)
	}
	return src, file
}

// Comments: collected by the extractor's one walk, or by a walk of their
// own (what the extractor saves is the second walk).
func BenchmarkShortcutComments(b *testing.B) {
	_, file := benchFile(b)
	b.Run("own-walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			walkComments(file)
		}
	})
}

// Word values: the value alone (wordString) or the full text with its
// pieces (buildText), for every word of the script.
func BenchmarkShortcutWordValues(b *testing.B) {
	src, file := benchFile(b)
	var words []*syntax.Word
	syntax.Walk(file, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			words = append(words, w)
		}
		return true
	})
	x := newExtractor(&Facts{Path: "bench.sh", src: src, lineStarts: lineStarts(src)}, src)
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, w := range words {
				x.wordString(w)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, w := range words {
				x.buildText(w)
			}
		}
	})
	// Engine paths: judged from the value, building the text only when an
	// expansion could matter, or from the text every time.
	b.Run("engine-path-from-value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, w := range words {
				x.isEnginePathWord(w)
			}
		}
	})
	b.Run("engine-path-from-text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, w := range words {
				x.isEnginePath(x.buildText(w))
			}
		}
	})
}

// JSON: the hand-rolled reader or encoding/json's token stream, for a
// KV-transfer config with an expansion.
func BenchmarkShortcutJSON(b *testing.B) {
	const doc = `{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":$BYTES,"lazy_offload":true,"nested":{"a":[1,2,3],"b":"x"}}}`
	t := newText(qSingle)
	parts := strings.SplitN(doc, "$BYTES", 2)
	t.addLit(parts[0], 1, noUnescape)
	t.addExp("$BYTES", "BYTES", 1)
	t.addLit(parts[1], 1, noUnescape)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parseJSONText(t, nil)
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			src, marks, ph := jsonSource(t)
			j := &JSONConfig{Line: 1}
			readJSONDecoder(j, src, ph, jsonLines(marks, j.Line))
		}
	})
}
