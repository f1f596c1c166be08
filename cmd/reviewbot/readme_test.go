package main

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	usageCommand = regexp.MustCompile(`(?m)^  reviewbot ([a-z][a-z-]*)\b`)
	helpFlag     = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)(?: (\S+))?$`)
	sectionHead  = regexp.MustCompile("(?m)^### `reviewbot ([a-z][a-z-]*)`(?: flags)?$")
	anyHeading   = regexp.MustCompile(`(?m)^#{1,3} `)
	tableRow     = regexp.MustCompile("(?m)^\\| `([^|]+)` \\|")
	docFlag      = regexp.MustCompile("--([a-z][a-z0-9-]*)(?: ([A-Z][^ `]*))?")
	commandLine  = regexp.MustCompile("reviewbot ([a-z][a-z-]*)((?: [^`\\n|#]*)?)")
	codeSpanFlag = regexp.MustCompile("`(--[a-z][a-z0-9-]*)")
)

// binaryFlags is what `reviewbot CMD -h` documents: flag name → argument
// placeholder ("" for a boolean).
func binaryFlags(t *testing.T, cmd string) map[string]string {
	t.Helper()
	code, out, stderr := runCLI(t, cmd, "-h")
	if code != exitOK || stderr != "" {
		t.Fatalf("%s -h: exit %d, stderr %q", cmd, code, stderr)
	}
	flags := map[string]string{}
	for _, m := range helpFlag.FindAllStringSubmatch(out, -1) {
		flags[m[1]] = m[2]
	}
	return flags
}

// TestREADMEFlags checks that the README documents exactly the binary's
// commands and flags: every command `reviewbot -h` lists has a
// "### `reviewbot CMD`" section whose table names every flag of
// `reviewbot CMD -h` with the same argument, and nothing else; every flag
// a README command line or a section's prose passes to a command exists.
func TestREADMEFlags(t *testing.T) {
	var all []string
	for _, file := range readmeFiles(t) {
		b, err := os.ReadFile("../../" + file)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, string(b))
	}
	readme := strings.Join(all, "\n")
	// The generated rule documentation quotes rule docs, not flags.
	if i, j := strings.Index(readme, "<!-- rules:start -->"), strings.Index(readme, "<!-- rules:end -->"); i >= 0 && j > i {
		readme = readme[:i] + readme[j:]
	}

	_, usage, _ := runCLI(t, "-h")
	var commands []string
	for _, m := range usageCommand.FindAllStringSubmatch(usage, -1) {
		commands = append(commands, m[1])
	}
	if len(commands) < 4 {
		t.Fatalf("reviewbot -h lists %v", commands)
	}
	flagsOf := map[string]map[string]string{}
	for _, c := range commands {
		flagsOf[c] = binaryFlags(t, c)
	}

	// The sections.
	documented := map[string]bool{}
	heads := sectionHead.FindAllStringSubmatchIndex(readme, -1)
	for _, h := range heads {
		cmd := readme[h[2]:h[3]]
		body := readme[h[1]:]
		if next := anyHeading.FindStringIndex(body); next != nil {
			body = body[:next[0]]
		}
		documented[cmd] = true
		want, ok := flagsOf[cmd]
		if !ok {
			t.Errorf("README documents `reviewbot %s`, which reviewbot -h does not list", cmd)
			continue
		}
		got := map[string]string{}
		for _, row := range tableRow.FindAllStringSubmatch(body, -1) {
			for _, m := range docFlag.FindAllStringSubmatch(row[1], -1) {
				got[m[1]] = m[2]
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("README's `reviewbot %s` flag table differs from `reviewbot %s -h` (-binary +README):\n%s", cmd, cmd, d)
		}
		for _, m := range codeSpanFlag.FindAllStringSubmatch(body, -1) {
			if _, ok := want[strings.TrimPrefix(m[1], "--")]; !ok {
				t.Errorf("README's `reviewbot %s` section mentions %s, which is not a flag of it", cmd, m[1])
			}
		}
	}
	for _, c := range commands {
		if !documented[c] {
			t.Errorf("README has no \"### `reviewbot %s`\" section for a command reviewbot -h lists", c)
		}
	}

	// Command lines anywhere in the README.
	var bad []string
	for _, m := range commandLine.FindAllStringSubmatch(readme, -1) {
		flags, ok := flagsOf[m[1]]
		if !ok {
			continue // prose such as "reviewbot reviews"
		}
		for _, f := range docFlag.FindAllStringSubmatch(m[2], -1) {
			if _, ok := flags[f[1]]; !ok && f[1] != "help" {
				bad = append(bad, "reviewbot "+m[1]+" --"+f[1])
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("README shows %q, which the binary does not accept", b)
	}
}
