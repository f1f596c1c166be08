package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sharedTree = "../../testdata/trees/inferencex"

func TestConventionsSharedTree(t *testing.T) {
	if _, err := os.Stat(sharedTree); err != nil {
		t.Skip("shared tree not present")
	}
	agentic := "benchmarks/single_node/agentic"
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{
			name: "text, one directory",
			args: []string{"--dir", agentic},
			want: []string{
				"benchmarks/single_node/agentic — vLLM, 7 recipes:",
				"json:kv_connector=SimpleCPUOffloadConnector ≡ json:kv_connector_extra_config.lazy_offload=true ⇒ env:VLLM_USE_SIMPLE_KV_OFFLOAD=1\n      5/5 (100%), same branch",
				"flag:--enable-auto-tool-choice ⇔ flag:--enable-prefix-caching ⇔ flag:--reasoning-parser ⇔ flag:--tool-call-parser\n      7/7 (100%), same file",
				"env:MOONCAKE_CONFIG_PATH ≡ json:kv_connector=MooncakeStoreConnector ⇒ unset:VLLM_USE_SIMPLE_KV_OFFLOAD",
				"follows: dsv41flash_fp4_gb200_vllm.sh:42←40, dsv4_fp4_b200_vllm.sh:59←58",
				"env:SGLANG_SIMULATE_ACC_LEN ⇔ env:SGLANG_SIMULATE_ACC_METHOD=match-expected",
			},
			notWant: []string{
				"benchmarks/single_node —",   // other directories filtered out
				"LMCacheMPConnector",         // two siblings: below support
				"⇒ flag:--max-num-seqs",      // everyone passes it: no evidence
				"cpu_bytes_to_use ⇒ env:",    // shared with OffloadingConnector
				"flag:--served-model-name ⇒", // 3 of 7: chance
			},
		},
		{
			name: "every directory",
			args: nil,
			want: []string{
				"benchmarks/single_node — vLLM, 3 recipes:",
				"benchmarks/single_node/agentic — TRT-LLM, 4 recipes: 0 implications",
				"benchmarks/multi_node — SGLang, 2 recipes",
			},
		},
		{
			name:    "thresholds",
			args:    []string{"--dir", agentic, "--min-support", "2", "--min-confidence", "1"},
			want:    []string{"json:kv_connector=LMCacheMPConnector", "at least 100% of at least 2 siblings"},
			notWant: []string{"exceptions:"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"conventions", "--tree", sharedTree}, tc.args...)...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q\n%s", w, out)
				}
			}
		})
	}
}

type implJSON struct {
	X, Y                        string
	Support, Followed, Contrast int
	Confidence                  float64
	Local, Background           bool
	Followers                   []struct {
		Path         string
		XLine, YLine int `json:"-"`
		X            int `json:"x_line"`
		Y            int `json:"y_line"`
	}
}

type conventionsJSON struct {
	Thresholds struct {
		MinSupport    int
		MinConfidence float64
	}
	Groups []struct {
		Group struct {
			Dir, Engine string
			Recipes     int
		}
		Implications []implJSON
	}
}

func TestConventionsJSON(t *testing.T) {
	if _, err := os.Stat(sharedTree); err != nil {
		t.Skip("shared tree not present")
	}
	code, out, stderr := runCLI(t, "conventions", "--tree", sharedTree, "--dir", "benchmarks/single_node/agentic/", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got conventionsJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Thresholds.MinSupport != 3 || got.Thresholds.MinConfidence != 0.9 || len(got.Groups) != 4 {
		t.Fatalf("thresholds %+v, %d groups", got.Thresholds, len(got.Groups))
	}
	want := map[string]func(im implJSON) bool{
		"json:kv_connector=SimpleCPUOffloadConnector ⇒ env:VLLM_USE_SIMPLE_KV_OFFLOAD=1": func(im implJSON) bool {
			f := im.Followers[1]
			return im.Support == 5 && im.Followed == 5 && im.Local &&
				f.Path == "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh" && f.X == 59 && f.Y == 58
		},
		"flag:--tool-call-parser ⇒ flag:--enable-auto-tool-choice": func(im implJSON) bool {
			return im.Support == 7 && im.Confidence == 1 && !im.Local && im.Background && im.Contrast == 3
		},
	}
	found := map[string]bool{}
	for _, g := range got.Groups {
		if g.Group.Engine != "vllm" {
			continue
		}
		if g.Group.Recipes != 7 {
			t.Errorf("vLLM group %+v", g.Group)
		}
		for _, im := range g.Implications {
			k := im.X + " ⇒ " + im.Y
			if check, ok := want[k]; ok {
				found[k] = true
				if !check(im) {
					t.Errorf("%s: %+v", k, im)
				}
			}
		}
	}
	for k := range want {
		if !found[k] {
			t.Errorf("%s not mined", k)
		}
	}
}

func TestConventionsErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{}, "give exactly one of --repo (with --rev) or --tree"},
		{"two sources", []string{"--tree", ".", "--repo", ".", "--rev", "HEAD"}, "give exactly one of"},
		{"repo without rev", []string{"--repo", "."}, "--repo needs --rev"},
		{"rev without repo", []string{"--tree", ".", "--rev", "HEAD"}, "--rev goes with --repo"},
		{"bad format", []string{"--tree", ".", "--format", "yaml"}, `unknown --format "yaml"`},
		{"bad confidence", []string{"--tree", ".", "--min-confidence", "1.5"}, "--min-confidence 1.5: must be in (0, 1]"},
		{"bad support", []string{"--tree", ".", "--min-support", "0"}, "--min-support 0: must be at least 1"},
		{"missing tree", []string{"--tree", filepath.Join(t.TempDir(), "nope")}, "tree directory"},
		{"missing dir", []string{"--tree", sharedTree, "--dir", "benchmarks/nope"}, "benchmarks/nope: no such directory"},
		{"not a repo", []string{"--repo", t.TempDir(), "--rev", "HEAD"}, "not a git repository"},
		{"extra argument", []string{"--tree", ".", "x"}, `unexpected argument "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"conventions"}, tc.args...)...)
			if code != exitError || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if !strings.HasPrefix(stderr, "reviewbot conventions: ") || !strings.Contains(stderr, tc.want) ||
				strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", stderr, tc.want)
			}
		})
	}
	if code, _, _ := runCLI(t, "conventions", "-h"); code != exitOK {
		t.Errorf("-h exits %d", code)
	}
}

// TestConventionsGitRepo mines two revisions of a throwaway repository:
// the convention exists at the first and is gone once a sibling breaks
// it (1 of 3 below 90%).
func TestConventionsGitRepo(t *testing.T) {
	dir, git := gitRepo(t)
	if _, err := os.Stat(sharedTree); err != nil {
		t.Skip("shared tree not present")
	}
	agentic := "benchmarks/single_node/agentic"
	names := []string{"dsv4_fp4_b200_vllm.sh", "dsv4_fp4_b300_vllm.sh", "kimik3_fp4_b300_vllm.sh", "dsv4_fp4_mi355x_vllm.sh"}
	copyFile := func(name string, edit func(string) string) {
		b, err := os.ReadFile(filepath.Join(sharedTree, agentic, name))
		if err != nil {
			t.Fatal(err)
		}
		full := filepath.Join(dir, agentic, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := func(s string) string { return s }
	git("init", "-q", "-b", "main")
	for _, n := range names {
		copyFile(n, same)
	}
	git("add", ".")
	git("commit", "-q", "-m", "base")
	copyFile("kimik3_fp4_b300_vllm.sh", func(s string) string {
		return strings.Replace(s, "        unset VLLM_USE_SIMPLE_KV_OFFLOAD\n", "", 1)
	})
	git("commit", "-q", "-am", "drop an unset")

	rule := "json:kv_connector=MooncakeStoreConnector ⇒ unset:VLLM_USE_SIMPLE_KV_OFFLOAD"
	for rev, want := range map[string]bool{"HEAD~1": true, "main": false} {
		code, out, stderr := runCLI(t, "conventions", "--repo", dir, "--rev", rev, "--dir", agentic, "--format", "json")
		if code != exitOK {
			t.Fatalf("%s: exit %d %s", rev, code, stderr)
		}
		var got conventionsJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		has := false
		for _, g := range got.Groups {
			for _, im := range g.Implications {
				if im.X+" ⇒ "+im.Y == rule {
					has = true
				}
			}
		}
		if has != want {
			t.Errorf("%s: %s mined = %v, want %v", rev, rule, has, want)
		}
	}
	code, _, stderr := runCLI(t, "conventions", "--repo", dir, "--rev", "no-such-rev")
	if code != exitError || !strings.Contains(stderr, "no-such-rev") {
		t.Errorf("unknown revision: exit %d %q", code, stderr)
	}
}
