package script

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseFacts feeds arbitrary bytes to the extractor: it must never
// panic, and must either return facts or a *ParseError.
func FuzzParseFacts(f *testing.F) {
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sh") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(b)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"", "\x00", "#!/bin/sh\n", "A=(\"${A[@]}\")\n\"${A[@]}\"\n", "A=(${A[@]} \"${A[@]}\")\nA+=(\"${A[@]}\")\n\"${A[@]}\"\n",
		"X='{\"a\":'\"$X\"'}'\nvllm serve --c \"$X\"\n", "eval \"$X\"\n", "case $x in *) ;; esac\n",
		"f() { f; }\nf\n", "X=$(cat <<E\n{\"a\": $((\nE\n)\n", "set -o\n", "read -a\n", "sed -i\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		facts, err := Parse("benchmarks/fuzz_vllm.sh", src)
		if err != nil {
			if !IsParseError(err) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			return
		}
		checkShortcuts(t, "benchmarks/fuzz_vllm.sh", src)
		_ = facts.Atoms()
		_ = facts.UnguardedReads()
		_ = facts.CommentsMentioning("eager mode")
		var paths []Branch
		for _, v := range facts.Vars {
			paths = append(paths, v.Branch)
		}
		for _, c := range facts.Servers {
			for _, fl := range c.Flags {
				paths = append(paths, fl.Branch)
				_, _, _ = fl.JSON.Get("kv_connector")
			}
		}
		if len(paths) > 40 {
			paths = paths[:40]
		}
		for _, p := range paths {
			for _, q := range paths {
				_ = facts.Covers(p, q)
				_ = p.Excludes(q)
			}
			_, _ = p.Arm("KV_OFFLOAD_BACKEND")
			_ = p.String()
		}
		for n := 0; n <= facts.Lines+1; n++ {
			_ = facts.LineText(n)
		}
	})
}
