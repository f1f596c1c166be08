package changelog

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// FuzzParseChangelog feeds arbitrary text to the parser and, as the head of
// a PR against a small changelog, to every CL rule. Nothing may panic or
// fail; spans must tile the entries; and wherever the line reader accepts
// an entry, yaml.v3 must read it identically.
func FuzzParseChangelog(f *testing.F) {
	f.Add(baseLog)
	f.Add(baseLog + "\n" + entry([]string{"dsv4-*"}, "x", testSlug+"XXXX"))
	f.Add("- config-keys: [a]\n  description: \"b\"\n  pr-link: 1\n")
	f.Add("- a: 'x''y'\n- b: \"c\\\"d\"\n-\n- - x\n")
	f.Add("a: b\n")
	f.Add("- a: b\r\n\t- c\x00\xff\n")
	if b, err := os.ReadFile("../../testdata/trees/inferencex/perf-changelog.yaml"); err == nil {
		f.Add(string(b))
	}
	ctx := context.Background()
	reg, err := checks.NewRegistry(Rules()...)
	if err != nil {
		f.Fatal(err)
	}
	base := checks.NewMemTree(withLog(baseLog))
	prev, _ := ParseFile([]byte(baseLog))
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		file, err := ParseFile([]byte(src))
		if err != nil || file == nil {
			t.Fatalf("ParseFile: %v", err)
		}
		last := 0
		for _, e := range file.Entries {
			if e.Start <= last || e.ContentEnd < e.Start || e.End < e.ContentEnd || e.End > file.NumLines() {
				t.Fatalf("bad span %d-%d-%d after %d (of %d lines)", e.Start, e.ContentEnd, e.End, last, file.NumLines())
			}
			last = e.End
		}
		agree(t, file)
		reused, _ := parseFile([]byte(src), prev)
		if len(reused.Entries) != len(file.Entries) {
			t.Fatalf("reuse changed the entry count")
		}

		head := checks.NewMemTree(withLog(src))
		files, err := trees.Diff(ctx, base, head)
		if err != nil {
			t.Fatal(err)
		}
		ch := &checks.Change{Base: base, Head: head, Files: files, PR: checks.PRInfo{Number: 2301}}
		res, err := checks.Review(ctx, reg, ch)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Errors {
			if strings.Contains(e.Error(), "internal error") {
				t.Fatalf("rule panicked: %v", e)
			}
			t.Fatalf("rule error: %v", e)
		}
		for _, fd := range res.Findings {
			if fd.Line < 1 || fd.Body == "" || fd.Title == "" {
				t.Fatalf("malformed finding %+v", fd)
			}
		}
	})
}
