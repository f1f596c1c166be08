package script

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

// The extractor takes shortcuts for speed: comments collected by the
// main walk rather than by a walk of their own, words' values without
// their texts, engine paths judged from a word's value, JSON read without
// encoding/json's token stream. Each must agree with the plain way; these
// tests and the fuzz targets hold them to it.

// walkComments collects comments the plain way: every comment node of
// the tree, in line order, the shebang apart.
func walkComments(file *syntax.File) (shebang string, out []Comment) {
	syntax.Walk(file, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok {
			return true
		}
		line := posLine(c.Pos())
		if line == 1 && c.Pos().Col() == 1 && strings.HasPrefix(c.Text, "!") {
			shebang = strings.TrimSpace(c.Text[1:])
			return true
		}
		out = append(out, Comment{Line: line, EndLine: line, Text: strings.TrimSpace(c.Text)})
		return true
	})
	slices.SortStableFunc(out, func(a, b Comment) int { return a.Line - b.Line })
	return shebang, out
}

// checkShortcuts compares the extractor's shortcuts on src with the plain
// way; a script that does not parse has nothing to compare.
func checkShortcuts(t testing.TB, p string, src []byte) {
	t.Helper()
	file, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), p)
	if err != nil {
		return
	}
	text := string(src)
	f, err := extractFacts(p, text, file)
	if err != nil {
		return // past a bound: Parse reports it
	}
	shebang, comments := walkComments(file)
	if f.Shebang != shebang {
		t.Errorf("%s: shebang %q, a walk says %q", p, f.Shebang, shebang)
	}
	if d := cmp.Diff(comments, f.Comments); d != "" {
		t.Errorf("%s: comments differ from a walk's (-walk +facts):\n%s", p, d)
	}
	x := newExtractor(&Facts{Path: p, src: text, lineStarts: lineStarts(text)}, text)
	syntax.Walk(file, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		tx := x.buildText(w)
		if s, static := x.wordString(w); s != tx.String() || static != tx.static() {
			t.Errorf("%s:%s: wordString = %q, %v; the text says %q, %v", p, w.Pos(), s, static, tx.String(), tx.static())
		}
		if got, want := x.isEnginePathWord(w), x.isEnginePath(tx); got != want {
			t.Errorf("%s:%s: isEnginePathWord = %v, isEnginePath of the text = %v", p, w.Pos(), got, want)
		}
		return true
	})
}

// shortcutScripts put comments and words wherever the grammar allows
// them.
var shortcutScripts = map[string]string{
	"comments.sh": "#!/usr/bin/env bash\n" +
		"# top\n" +
		"set -euo pipefail # trailing\n" +
		"A=( # after paren\n" +
		"  one # first\n" +
		"  # own line in array\n" +
		"  \"$(echo two # inside subst\n" +
		"  )\" [3]=x # idx\n" +
		"  # last in array\n" +
		")\n" +
		"case \"$(echo x # case word subst\n" +
		")\" in # case word\n" +
		"  # before arm\n" +
		"  a|b) # arm\n" +
		"    echo a\n" +
		"    # end of arm\n" +
		"    ;;\n" +
		"  $(echo c # in a pattern\n" +
		"  )) echo c ;;\n" +
		"  # before esac\n" +
		"esac # after esac\n" +
		"if true # cond\n" +
		"  # cond last\n" +
		"then # then\n" +
		"  echo y\n" +
		"  # then last\n" +
		"elif false; then # elif\n" +
		"  :\n" +
		"else # else\n" +
		"  :\n" +
		"  # else last\n" +
		"fi # fi\n" +
		"while false # while\n" +
		"  # while cond last\n" +
		"do\n" +
		"  : # body\n" +
		"  # do last\n" +
		"done\n" +
		"for i in 1 $(echo 3 # for item\n" +
		"); do # for\n" +
		"  echo \"$i\"\n" +
		"  # for last\n" +
		"done\n" +
		"for ((i=0; i<3; i++)); do :; # c-style for\n" +
		"done\n" +
		"{ echo block # block\n" +
		"  # block last\n" +
		"}\n" +
		"( echo sub # subshell\n" +
		"  # subshell last\n" +
		")\n" +
		"diff <(echo a # proc subst\n" +
		") <(echo b\n" +
		"  # proc subst last\n" +
		")\n" +
		"declare -f myfn $(echo # declare -f\n" +
		")\n" +
		"declare -p X=$(echo # declare -p\n" +
		")\n" +
		"f() { # function\n" +
		"  local Y=$(echo # local\n" +
		"  )\n" +
		"  # function last\n" +
		"}\n" +
		"X=${Y:-$(echo d # default\n" +
		")} ${Z/a/$(echo r # replace\n" +
		")} ${W:1:$(( $(echo 1 # slice\n" +
		") ))} ${ARR[$(echo 0 # index\n" +
		")]}\n" +
		"[[ -n \"$(echo t # test\n" +
		")\" ]] && echo ok # and\n" +
		"(( $(echo 5 # arithmetic\n" +
		") > 3 )) || echo no\n" +
		"let \"x = $(echo 1 # let\n" +
		")\"\n" +
		"echo `echo bq # backquote\n" +
		"`\n" +
		"# last\n" +
		"# comment",
	"words.sh": "#!/bin/bash\n" +
		"x=${#A} ${!B} ${C[@]} ${D[*]} ${E:2} ${F/x/y} ${G//x/$H} ${I#p} ${J%%s} ${K:=v} ${L:?err} ${M:+alt} ${!P*}\n" +
		"echo \"$((A[$i] + ${B[$((j+1))]}))\" \"a\\\"b\\$c\\\\d\" 'single' $'ansi\\n\\t\\'' a\\ b \"multi\n" +
		"line\" \"$(cat <<END\n" +
		"static heredoc\n" +
		"END\n" +
		")\" \"$(cat <<END\n" +
		"dynamic $X\n" +
		"END\n" +
		")\"\n" +
		"cp model.py \"$SITE/vllm/model_executor/x.py\"\n" +
		"cp \"$(python3 -c 'import vllm, os; print(os.path.dirname(vllm.__file__))')/x.py\" /tmp\n" +
		"SITE=$(python3 -c 'import site; print(site.getsitepackages()[0])')\n" +
		"tee \"$SITE/vllm/patched.py\" < fix.py\n" +
		"sed -i 's/a/b/' /usr/lib/python3/dist-packages/sglang/x.py \"${PKG}/atom/y.cu\" $LIB/pip/z.py\n",
}

func TestExtractorShortcuts(t *testing.T) {
	for name, src := range shortcutScripts {
		checkShortcuts(t, name, []byte(src))
	}
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sh") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checkShortcuts(t, p, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkShortcuts(t, "bench_vllm.sh", []byte(benchRecipe()))
}

// jsonBoth reads a JSON value written in a script from line 1 both ways.
// $NAME in s stands for a shell expansion.
func jsonBoth(s string) (fast, decoder *JSONConfig) {
	t := newText(qSingle)
	line := 1
	for i, part := range strings.Split(s, "$") {
		if i > 0 {
			n := 0
			for n < len(part) && (part[n] == '_' || 'A' <= part[n] && part[n] <= 'Z') {
				n++
			}
			t.addExp("$"+part[:n], part[:n], line)
			part = part[n:]
		}
		t.addLit(part, line, noUnescape)
		line += strings.Count(part, "\n")
	}
	fast = parseJSONText(t, nil)
	src, marks, ph := jsonSource(t)
	decoder = &JSONConfig{Style: fast.Style, Escaped: fast.Escaped, Raw: fast.Raw, Line: fast.Line, EndLine: fast.EndLine}
	readJSONDecoder(decoder, src, ph, jsonLines(marks, decoder.Line))
	return fast, decoder
}

func TestJSONFastMatchesDecoder(t *testing.T) {
	cases := []string{
		`{}`, `{ }`, `{"a":[]}`, `{"a":{}}`,
		`{"a":[1,2,3],"b":[{"c":1},{"d":[true,false,null]}]}`,
		"{\"a\":[\n1\n,\n2\n  ,3],\n\"b\"\n:\n{\"c\" : \"x\"}\n}",
		"{\"a\":\n  [\n    1,\n    2\n  ],\n  \"b\": -0.5e+10, \"c\": 0, \"d\": 1E5, \"e\": -12.25e-3}",
		`{"a":"\u00e9\n\t\"q\"","b":"\ud83d\ude00","c\u002e":"x"}`,
		"{\"a\":\"\xff\xfe\"}",
		`{"a":{"b":{"c":{"d":1}}},"a":2}`, `{"":1,"x":{"":2}}`, `{"a.b":1,"a":{"b":2}}`,
		`{"a":$X,"b":"$Y-z","c":[$P,$Q],"$K":1}`, `{"a":$X$Y}`,
		"\r\n{\"a\":1,\r\n\"b\":2}\r\n", `  {"a":1}  `,
		`[` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `]`,
		strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70),
		// Invalid: the decoder's error must come through.
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1,}`, `{"a" 1}`, `{"a":tru}`, `{"a":truex}`,
		`{"a":1} x`, `{"a":1}{"b":2}`, "{\"a\":\"x\ny\"}", "{\"a\":1\n", `{"a"`, `{`, `{"a":"\`,
		`{"a":[1,]}`, `{"a":[,1]}`, `{"a":"\u12"}`, `{"a":"\x"}`, `{"a":1e}`, `{"a":-01}`, `{"a":+1}`,
		`{"a":.5}`, `{"a":NaN}`, `{"a":[1 2]}`, `{"a":1 "b":2}`, `{1:2}`, `{"a":1}]`, ``, `  `,
	}
	for _, c := range cases {
		fast, dec := jsonBoth(c)
		if d := cmp.Diff(dec, fast); d != "" {
			t.Errorf("%q: the fast path differs from the decoder (-decoder +fast):\n%s", c, d)
		}
	}
}

func FuzzJSONFast(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c"}],"d":$X}`, "{\n\"a\"\n:\n[\n1\n,\n2]}", `{"a":"\u00e9"}`, `{"a":1e5,"b":-0.1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, dec := jsonBoth(s)
		if d := cmp.Diff(dec, fast); d != "" {
			t.Errorf("%q: the fast path differs from the decoder (-decoder +fast):\n%s", s, d)
		}
	})
}
