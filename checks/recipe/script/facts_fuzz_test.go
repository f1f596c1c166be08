package script

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	// Nesting at the depths that crashed the parser or took quadratic
	// time, scaled to what a fuzzer mutates (the bounds stop them the
	// same way at any depth past theirs).
	for _, n := range nestings {
		for _, depth := range []int{30, 600, 3000} {
			f.Add(n.build(depth))
		}
	}
	for _, op := range []string{" && ", " | ", " || "} {
		f.Add(chain("", "true", op, "", 3000))
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

// FuzzPieceParsers feeds arbitrary text to the parsers of script pieces
// (a command line, a value, an arithmetic expression, a bash -c string):
// each must stay within the bounds whole scripts have.
func FuzzPieceParsers(f *testing.F) {
	for _, s := range []string{"vllm serve m --x 1", "${X:-$(echo ${Y:-1})}", "$((1+(2*3)))", "1+(2*3)",
		strings.Repeat("(", 3000) + "1" + strings.Repeat(")", 3000), "$" + strings.Repeat("{X:-$", 1000),
		strings.Repeat("- ", 3000) + "1", "bash -c '" + strings.Repeat("$(", 500) + "enroot import docker://x" + strings.Repeat(")", 500) + "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, err := range []error{
			func() error { _, err := ParseLine(s); return err }(),
			func() error { _, err := ParseDocument(s); return err }(),
			func() error { _, err := ParseArithmetic(s); return err }(),
		} {
			if err != nil && !IsParseError(err) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
		}
		VarRef(s)
		if _, err := Parse("runners/launch_fuzz.sh", []byte("srun bash -c "+strconv.Quote(s)+"\n")); err != nil && !IsParseError(err) {
			t.Fatalf("error is not a *ParseError: %v", err)
		}
	})
}
