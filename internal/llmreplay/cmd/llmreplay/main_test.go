package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunArguments(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"pr": 7, "thread_date": "2026-03-02", "path": "a"}`+"\n"+`{"pr": 7}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"help", []string{"-h"}, 0, "-findings FILE"},
		{"an unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"an argument", []string{"--repo", dir, "--findings", good, "x"}, 2, `unexpected argument "x"`},
		{"no repository", []string{"--findings", good}, 2, "--repo and --findings are required"},
		{"no findings", []string{"--repo", dir}, 2, "--repo and --findings are required"},
		{"a missing findings file", []string{"--repo", dir, "--findings", filepath.Join(dir, "none")}, 2, "no such file"},
		{"a bad line", []string{"--repo", dir, "--findings", bad}, 2, "bad.jsonl: line 2: thread_date"},
		{"not a repository", []string{"--repo", dir, "--findings", good}, 2, "not a git repository"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.name, code, stderr.String(), tt.code, tt.err)
		}
	}
}
