package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The README's "How it works" draws the tree one line per package; every
// package of the module is on it, and nothing on it is gone, so a newcomer
// can trust it.
func TestReadmeTreeNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	drawn := readmeTree(t, string(b))
	var missing []string
	have := map[string]bool{}
	err = filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (name == "testdata" || name == ".git" || (strings.HasPrefix(name, ".") && p != "../..")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		dir, _ := filepath.Rel("../..", filepath.Dir(p))
		dir = filepath.ToSlash(dir) + "/"
		if !have[dir] {
			have[dir] = true
			if !drawn[dir] {
				missing = append(missing, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("README's How it works does not draw the package %s", m)
	}
	for d := range drawn {
		if _, err := os.Stat(filepath.Join("../..", d)); err != nil {
			t.Errorf("README's How it works draws %s, which does not exist", d)
		}
	}
}

// readmeTree returns the directories the first code block after "## How
// it works" draws: a line's first word ending in "/" names a directory,
// nested two spaces per level under the one above.
func readmeTree(t *testing.T, readme string) map[string]bool {
	_, after, ok := strings.Cut(readme, "\n## How it works\n")
	if !ok {
		t.Fatal(`docs/design.md has no "## How it works"`)
	}
	_, block, ok := strings.Cut(after, "```\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("How it works has no code block")
	}
	drawn := map[string]bool{}
	var stack []string
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		word, _, _ := strings.Cut(trimmed, " ")
		if !strings.HasSuffix(word, "/") {
			continue
		}
		depth := (len(line) - len(trimmed)) / 2
		if depth > len(stack) {
			t.Fatalf("README tree: %q is nested deeper than the line above", line)
		}
		stack = append(stack[:depth], word)
		drawn[strings.Join(stack, "")] = true
	}
	return drawn
}
