package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

const sharedTree = "../../testdata/trees/inferencex"

func TestConventionsSharedTree(t *testing.T) {
	if _, err := os.Stat(sharedTree); err != nil {
		t.Skip("shared tree not present")
	}
	cfg := filepath.Join(t.TempDir(), "reviewbot.yml")
	if err := os.WriteFile(cfg, []byte("conventions:\n  confirmed: [\"sglang: --speculative-algorithm => --speculative-num-steps\", \"vllm: --speculativ-config => method\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{
			name: "every engine",
			want: []string{
				"vLLM: 10 recipes in 6 model families",
				"--kv-offloading-backend and --kv-offloading-size are passed together: a server command with one has the other.",
				"Model families that pass --kv-offloading-size: 3; of them, 3 pass --kv-offloading-backend",
				"A --kv-transfer-config JSON whose kv_connector is LMCacheMPConnector sets kv_connector_module_path in the same object.",
				"SH003 judges this, so CV001 does not report it.",
				"--speculative-algorithm, --speculative-eagle-topk, --speculative-num-draft-tokens and --speculative-num-steps are passed together",
				"id: vllm: --kv-offloading-backend => --kv-offloading-size",
				"Seen in: benchmarks/single_node/agentic/dsv4_fp4_mi355x_vllm.sh:46",
			},
			// Plain words: no arrows between lines, no unexplained terms.
			notWant: []string{"←", "contrast", "Confirmed", "json:", "flag:"},
		},
		{
			name:    "one engine",
			args:    []string{"--engine", "SGLang"},
			want:    []string{"SGLang: 10 recipes"},
			notWant: []string{"vLLM:", "TRT-LLM:"},
		},
		{
			name: "confirmed beliefs",
			args: []string{"--config", cfg},
			want: []string{"Confirmed in the configuration: its findings block.",
				"Confirmed in the configuration but not a belief here (a typo, or no longer supported by the recipes):\n  vllm: --speculativ-config => method\n"},
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

// lowerKeys reports the first JSON object key that is not lower case.
func lowerKeys(v any) string {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			for _, r := range k {
				if unicode.IsUpper(r) {
					return k
				}
			}
			if bad := lowerKeys(e); bad != "" {
				return bad
			}
		}
	case []any:
		for _, e := range x {
			if bad := lowerKeys(e); bad != "" {
				return bad
			}
		}
	}
	return ""
}

type conventionsJSON struct {
	Engines []struct {
		Engine      string `json:"engine"`
		Recipes     int    `json:"recipes"`
		Families    int    `json:"families"`
		Conventions []struct {
			Statement string   `json:"statement"`
			Together  []string `json:"together"`
			JudgedBy  string   `json:"judged_by"`
			Beliefs   []struct {
				ID         string  `json:"id"`
				Template   string  `json:"template"`
				Families   int     `json:"families"`
				Followed   float64 `json:"followed"`
				LowerBound float64 `json:"lower_bound"`
				Others     int     `json:"others"`
				Lift       float64 `json:"lift"`
				Followers  []struct {
					Path   string `json:"path"`
					Line   int    `json:"line"`
					Family string `json:"family"`
				} `json:"followers"`
			} `json:"beliefs"`
		} `json:"conventions"`
	} `json:"engines"`
}

func TestConventionsJSON(t *testing.T) {
	if _, err := os.Stat(sharedTree); err != nil {
		t.Skip("shared tree not present")
	}
	code, out, stderr := runCLI(t, "conventions", "--tree", sharedTree, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var raw any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if bad := lowerKeys(raw); bad != "" {
		t.Errorf("key %q is not lower case", bad)
	}
	var got conventionsJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range got.Engines {
		for _, c := range e.Conventions {
			for _, b := range c.Beliefs {
				if b.ID != "vllm: --kv-transfer-config kv_connector=LMCacheMPConnector => kv_connector_module_path" {
					continue
				}
				found = true
				if e.Engine != "vllm" || b.Template != "object-key" || b.Families != 2 || b.Followed != 2 ||
					b.Others != 4 || b.LowerBound < 0.4 || b.Lift <= 0 || c.JudgedBy != "SH003" || len(b.Followers) != 2 {
					t.Errorf("belief %+v in %+v", b, c)
				}
				if f := b.Followers[0]; f.Path != "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh" || f.Family != "dsv4/nvidia" {
					t.Errorf("follower %+v", f)
				}
			}
		}
	}
	if !found {
		t.Errorf("LMCacheMPConnector ⇒ kv_connector_module_path not mined:\n%s", out)
	}
}

func TestConventionsErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no source outside a repository", []string{}, "the working directory is not in a git repository: give --repo DIR, --tree DIR or --fixture DIR"},
		{"two sources", []string{"--tree", ".", "--repo", ".", "--rev", "HEAD"}, "give one of --repo (with --rev), --tree and --fixture"},
		{"rev without repo", []string{"--tree", ".", "--rev", "HEAD"}, "give one of --repo (with --rev), --tree and --fixture"},
		{"tree and fixture", []string{"--tree", ".", "--fixture", "."}, "give one of --repo (with --rev), --tree and --fixture"},
		{"base without fixture", []string{"--tree", ".", "--base"}, "--base goes with --fixture"},
		{"empty rev", []string{"--rev", ""}, "--rev: empty revision"},
		{"bad format", []string{"--tree", ".", "--format", "yaml"}, `unknown --format "yaml"`},
		{"bad engine", []string{"--tree", ".", "--engine", "tgi"}, `unknown --engine "tgi"`},
		{"missing tree", []string{"--tree", filepath.Join(t.TempDir(), "nope")}, "tree directory"},
		{"not a repo", []string{"--repo", t.TempDir(), "--rev", "HEAD"}, "not a git repository"},
		{"extra argument", []string{"--tree", ".", "x"}, `unexpected argument "x"`},
	}
	t.Chdir(t.TempDir())
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
// the pairing exists at the first and is gone once one of its three
// families breaks it.
func TestConventionsGitRepo(t *testing.T) {
	dir, git := gitRepo(t)
	if _, err := os.Stat(sharedTree); err != nil {
		t.Skip("shared tree not present")
	}
	agentic := "benchmarks/single_node/agentic"
	names := []string{"dsv4_fp4_mi355x_vllm.sh", "kimik3_fp4_h200_vllm.sh", "minimaxm3_fp4_b300_vllm.sh", "dsv4_fp4_b300_vllm.sh"}
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
	copyFile("kimik3_fp4_h200_vllm.sh", func(s string) string {
		return strings.Replace(s, ` --kv_offloading_size "$TOTAL_CPU_DRAM_GB"`, "", 1)
	})
	git("commit", "-q", "-am", "drop a size")

	id := "vllm: --kv-offloading-backend => --kv-offloading-size"
	for rev, want := range map[string]bool{"HEAD~1": true, "main": false} {
		code, out, stderr := runCLI(t, "conventions", "--repo", dir, "--rev", rev, "--engine", "vllm", "--format", "json")
		if code != exitOK {
			t.Fatalf("%s: exit %d %s", rev, code, stderr)
		}
		if has := strings.Contains(out, `"id": "`+id+`"`); has != want {
			t.Errorf("%s: %s mined = %v, want %v", rev, id, has, want)
		}
	}
	// Like review, --rev defaults to HEAD and --repo to the repository of
	// the working directory.
	t.Chdir(filepath.Join(dir, agentic))
	if code, out, stderr := runCLI(t, "conventions", "--engine", "vllm", "--format", "json"); code != exitOK || strings.Contains(out, `"id": "`+id+`"`) {
		t.Errorf("defaults: exit %d, %s mined at HEAD\n%s", code, id, stderr)
	}
	code, _, stderr := runCLI(t, "conventions", "--repo", dir, "--rev", "no-such-rev")
	if code != exitError || !strings.Contains(stderr, "no-such-rev") {
		t.Errorf("unknown revision: exit %d %q", code, stderr)
	}
}
