package script

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t *testing.T, src string) *Facts {
	t.Helper()
	f, err := Parse("benchmarks/single_node/x.sh", []byte(src))
	if err != nil {
		t.Fatalf("ParseFacts: %v", err)
	}
	return f
}

func parseTestdata(t testing.TB, name string) *Facts {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(name, b)
	if err != nil {
		t.Fatalf("ParseFacts(%s): %v", name, err)
	}
	return f
}

func flagNames(c *Command) []string {
	var out []string
	for _, f := range c.Flags {
		out = append(out, f.Name)
	}
	return out
}

// The realistic agentic vLLM recipe: every kind of fact, with lines.
func TestAgenticVLLMRecipe(t *testing.T) {
	f := parseTestdata(t, "agentic/dsv4_fp4_b300_vllm.sh")

	if f.Engine != VLLM || f.Shebang != "/usr/bin/env bash" || f.Lines != 101 {
		t.Errorf("engine %q shebang %q lines %d", f.Engine, f.Shebang, f.Lines)
	}
	strict, ok := f.StrictMode()
	if !ok || strict.Line != 2 || strict.Text != "set -euo pipefail" {
		t.Errorf("StrictMode = %+v, %v", strict, ok)
	}
	if on, line, set := f.Option("nounset"); !on || line != 2 || !set {
		t.Errorf("Option(nounset) = %v %d %v", on, line, set)
	}
	if len(f.Sources) != 1 || !f.Sources[0].Lib || f.Sources[0].Line != 7 {
		t.Errorf("Sources = %+v", f.Sources)
	}
	if len(f.EnvChecks) != 1 || f.EnvChecks[0].Line != 9 || !f.Checked("TOTAL_CPU_DRAM_GB") || f.Checked("KV_OFFLOAD_BACKEND") {
		t.Errorf("EnvChecks = %+v", f.EnvChecks)
	}

	// Exports and unsets, with their case arms.
	exp := f.Exports("VLLM_USE_SIMPLE_KV_OFFLOAD")
	if len(exp) != 1 || exp[0].Line != 38 || exp[0].Value != "1" || !exp[0].Static {
		t.Fatalf("exports = %+v", exp)
	}
	if arm, ok := exp[0].Branch.Arm("KV_OFFLOAD_BACKEND"); !ok || !slices.Equal(arm, []string{"vllm-simple"}) {
		t.Errorf("export arm = %v %v", arm, ok)
	}
	var unsets []int
	for _, v := range f.VarsNamed("VLLM_USE_SIMPLE_KV_OFFLOAD") {
		if v.Kind == Unset {
			unsets = append(unsets, v.Line)
		}
	}
	if !slices.Equal(unsets, []int{54, 58}) {
		t.Errorf("unset lines = %v", unsets)
	}

	// The server command, built in an array and run from it.
	if len(f.Servers) != 1 {
		t.Fatalf("servers = %d", len(f.Servers))
	}
	srv := f.Servers[0]
	if srv.Program != "vllm serve" || srv.Array != "VLLM_CMD" || srv.Line != 73 || srv.EndLine != 85 ||
		srv.RunLine != 91 || !srv.Background || srv.OneLine || !srv.Branch.Unconditional() {
		t.Errorf("server = %+v", srv)
	}
	if len(srv.Args) != 1 || srv.Args[0].Text != "$MODEL" || srv.Args[0].Line != 74 {
		t.Errorf("args = %+v", srv.Args)
	}
	for _, tc := range []struct {
		name, value, via string
		line             int
	}{
		{"--port", "$PORT", "", 76},
		{"--max-num-seqs", "$MAX_NUM_SEQS", "", 78},
		{"--gpu-memory-utilization", "0.92", "", 80},
		{"--tool-call-parser", "deepseek_v4", "", 82},
		{"--enable-auto-tool-choice", "", "", 83},
		{"--data-parallel-size", "$TP", "PARALLEL_ARGS", 21},
		{"--enable-expert-parallel", "", "PARALLEL_ARGS", 28},
		{"--kv-offloading-size", "$TOTAL_CPU_DRAM_GB", "VLLM_CMD", 88},
	} {
		fl, ok := srv.Flag(tc.name)
		if !ok || fl.Value != tc.value || fl.Via != tc.via || fl.Line != tc.line {
			t.Errorf("Flag(%s) = %+v, %v; want value %q via %q line %d", tc.name, fl, ok, tc.value, tc.via, tc.line)
		}
	}
	if !srv.HasFlag("--max_num_seqs") {
		t.Error("HasFlag does not normalize underscores")
	}
	tp := srv.FlagsNamed("--tensor-parallel-size")
	if len(tp) != 2 || tp[0].Line != 21 || tp[1].Line != 24 || !tp[1].Branch[0].Negated || tp[1].Branch[0].Var != "DP_ATTENTION" {
		t.Errorf("--tensor-parallel-size = %+v", tp)
	}
	if ep, _ := srv.Flag("--enable-expert-parallel"); len(srv.FlagsNamed("--enable-expert-parallel")) != 1 || ep.Branch[0].Var != "EP_SIZE" {
		t.Errorf("--enable-expert-parallel should appear once, guarded by EP_SIZE: %+v", srv.FlagsNamed("--enable-expert-parallel"))
	}

	// One --kv-transfer-config per arm, each in its JSON style.
	kv := srv.FlagsNamed("--kv-transfer-config")
	if len(kv) != 3 {
		t.Fatalf("--kv-transfer-config flags = %d", len(kv))
	}
	want := []struct {
		arm       string
		line      int
		style     JSONStyle
		variable  string
		connector string
		connLine  int
	}{
		{"vllm-simple", 51, JSONHeredoc, "OFFLOAD_CONFIG", "SimpleCPUOffloadConnector", 42},
		{"mooncake", 55, JSONDoubleQuoted, "", "MooncakeStoreConnector", 55},
		{"lmcache", 61, JSONSingleQuoted, "", "LMCacheMPConnector", 62},
	}
	for i, w := range want {
		fl := kv[i]
		arm, _ := fl.Branch.Arm("KV_OFFLOAD_BACKEND")
		if fl.Line != w.line || !slices.Equal(arm, []string{w.arm}) || fl.Via != "OFFLOAD_ARGS" || fl.JSON == nil {
			t.Errorf("kv flag %d = %+v (arm %v)", i, fl, arm)
			continue
		}
		j := fl.JSON
		if j.Style != w.style || j.Var != w.variable || j.Flag != "--kv-transfer-config" || !j.Parsed {
			t.Errorf("kv json %d: style %s var %q flag %q parsed %v err %q", i, j.Style, j.Var, j.Flag, j.Parsed, j.Err)
		}
		if v, line, ok := j.Get("kv_connector"); !ok || v != w.connector || line != w.connLine {
			t.Errorf("kv json %d kv_connector = %q line %d %v", i, v, line, ok)
		}
	}
	simple := kv[0].JSON
	if e, ok := simple.Entry("kv_connector_extra_config.cpu_bytes_to_use"); !ok || !e.Dynamic || e.Value != "${CPU_BYTES_PER_RANK}" || e.Line != 45 || e.Kind != JSONNumber {
		t.Errorf("cpu_bytes_to_use = %+v", e)
	}
	if v, line, ok := simple.Get("kv_connector_extra_config.lazy_offload"); v != "true" || line != 46 || !ok {
		t.Errorf("lazy_offload = %q %d %v", v, line, ok)
	}
	if got := keys(simple.Children("kv_connector_extra_config")); !slices.Equal(got, []string{"kv_connector_extra_config.cpu_bytes_to_use", "kv_connector_extra_config.lazy_offload"}) {
		t.Errorf("Children = %v", got)
	}
	if !kv[1].JSON.Escaped {
		t.Error("mooncake JSON should be marked as escaped")
	}
	if _, _, ok := kv[1].JSON.Get("kv_connector_module_path"); ok {
		t.Error("mooncake JSON has no kv_connector_module_path")
	}
	if !kv[2].JSON.Has("kv_connector_module_path") {
		t.Error("lmcache JSON has kv_connector_module_path")
	}

	// The export is on the vllm-simple config's path and no other.
	for i, fl := range kv {
		got := len(f.ExportedOn("VLLM_USE_SIMPLE_KV_OFFLOAD", fl.Branch)) == 1
		if got != (i == 0) {
			t.Errorf("ExportedOn for arm %d = %v", i, got)
		}
		if !exp[0].Branch.Compatible(fl.Branch) != (i != 0) {
			t.Errorf("Compatible for arm %d wrong", i)
		}
	}

	// MAX_NUM_SEQS under DP attention divides by TP, the else branch does not.
	var divides []bool
	for _, a := range f.Arith {
		if a.Target == "MAX_NUM_SEQS" {
			divides = append(divides, a.DividesBy("TP"))
			if !a.Uses("CONC") {
				t.Errorf("arith %q does not use CONC", a.Expr)
			}
		}
	}
	if !slices.Equal(divides, []bool{true, false}) {
		t.Errorf("MAX_NUM_SEQS divides by TP: %v", divides)
	}

	// Reads: the guarded SLURM_JOB_ID reads are not reported.
	for _, r := range f.ReadsOf("SLURM_JOB_ID") {
		if r.Line == 14 && !r.Defaulted {
			t.Errorf("line 14 read should be defaulted: %+v", r)
		}
	}
	if u := f.UnguardedReads(); len(u) != 0 {
		t.Errorf("UnguardedReads = %+v", u)
	}

	// The sibling-comment evidence, wrapped over two lines.
	cm := f.CommentsMentioning("popleft_n   assertionerror at low/mid CONC on DSv4")
	if len(cm) != 1 || cm[0].Line != 36 || cm[0].EndLine != 37 {
		t.Errorf("CommentsMentioning = %+v", cm)
	}

	// The benchmark client.
	if len(f.Clients) != 1 || f.Clients[0].Program != "run_benchmark_serving" || f.Clients[0].Line != 96 || f.Clients[0].EndLine != 101 {
		t.Fatalf("clients = %+v", f.Clients)
	}
	if fl, ok := f.Clients[0].Flag("--max-concurrency"); !ok || fl.Value != "$CONC" || fl.Line != 100 {
		t.Errorf("client --max-concurrency = %+v", fl)
	}
	if f.Clients[0].HasFlag("--use-chat-template") {
		t.Error("client has no --use-chat-template")
	}
}

func keys(es []JSONEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key)
	}
	return out
}

func TestSGLangLineContinued(t *testing.T) {
	f := parseTestdata(t, "agentic/qwen3.5_fp8_h200_sglang.sh")
	if f.Engine != SGLang || len(f.Servers) != 1 {
		t.Fatalf("engine %s servers %d", f.Engine, len(f.Servers))
	}
	s := f.Servers[0]
	if s.Program != "sglang.launch_server" || s.Line != 24 || s.EndLine != 34 || s.OneLine || !s.Background || s.Array != "" {
		t.Errorf("server = %+v", s)
	}
	want := []string{"--model-path", "--host", "--port", "--tp", "--ep-size", "--enable-dp-attention", "--dp-size",
		"--speculative-algorithm", "--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens",
		"--cuda-graph-bs", "--mem-fraction-static", "--tool-call-parser", "--reasoning-parser", "--trust-remote-code"}
	if diff := cmp.Diff(want, flagNames(s)); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if fl, _ := s.Flag("--cuda-graph-bs"); fl.Value != "1 2 4 8 16" {
		t.Errorf("--cuda-graph-bs = %q", fl.Value)
	}
	if fl, _ := s.Flag("--mem-fraction-static"); fl.Value != "0.85" || !fl.Static || fl.Line != 31 {
		t.Errorf("--mem-fraction-static = %+v", fl)
	}
	if fl, _ := s.Flag("--dp-size"); fl.Via != "DP_ARGS" || fl.Line != 21 || fl.Branch[0].Var != "DP_ATTENTION" || fl.Value != "$TP" {
		t.Errorf("--dp-size = %+v", fl)
	}
	if fl, _ := s.Flag("--speculative-algorithm"); fl.Value != "EAGLE" || fl.Branch[0].Value != "mtp" {
		t.Errorf("--speculative-algorithm = %+v", fl)
	}
	acc := f.Exports("SGLANG_SIMULATE_ACC_LEN")
	if len(acc) != 1 || acc[0].Value != "2.8" || acc[0].Line != 13 {
		t.Errorf("SGLANG_SIMULATE_ACC_LEN = %+v", acc)
	}
	jit := f.Exports("SGLANG_ENABLE_JIT_DEEPGEMM")
	if len(jit) != 1 || jit[0].Kind != EnvPrefix || jit[0].Line != 24 || jit[0].Value != "0" {
		t.Errorf("env prefix = %+v", jit)
	}
	if !f.Clients[0].HasFlag("--use-chat-template") {
		t.Error("client lacks --use-chat-template")
	}
}

func TestOneLineAndWeakStrictMode(t *testing.T) {
	f := parseTestdata(t, "vllm_mtp_fixed.sh")
	if on, _, set := f.Option("nounset"); on || set {
		t.Errorf("nounset = %v %v", on, set)
	}
	if on, line, _ := f.Option("errexit"); !on || line != 2 {
		t.Errorf("errexit = %v %d", on, line)
	}
	s := f.Servers[0]
	if !s.OneLine || s.Line != 14 || !s.Background {
		t.Errorf("server = %+v", s)
	}
	spec, ok := s.Flag("--speculative-config")
	if !ok || spec.JSON == nil || spec.JSON.Var != "SPEC_CONFIG" || spec.JSON.Style != JSONSingleQuoted || spec.JSON.Line != 8 {
		t.Fatalf("--speculative-config = %+v", spec)
	}
	for k, v := range map[string]string{"rejection_sample_method": "synthetic", "synthetic_acceptance_length": "2.5", "num_speculative_tokens": "3", "method": "mtp"} {
		if got, _, _ := spec.JSON.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if fl, _ := s.Flag("--max-model-len"); fl.Value != "$((ISL + OSL + 256))" || fl.Static {
		t.Errorf("--max-model-len = %+v", fl)
	}
	// The read inside `if [[ -n "$MODEL_PATH" ]]` cannot fail once the test
	// has passed; the test itself is the unguarded read.
	u := f.UnguardedReads()
	if len(u) != 1 || u[0].Name != "MODEL_PATH" || u[0].Line != 10 {
		t.Errorf("UnguardedReads = %+v", u)
	}
}

func TestTRTAndATOM(t *testing.T) {
	trt := parseTestdata(t, "dsr1_fp4_b200_trt.sh")
	if trt.Engine != TRTLLM || len(trt.Servers) != 1 || trt.Servers[0].Program != "trtllm-serve" || trt.Servers[0].Line != 17 {
		t.Fatalf("trt servers = %+v", trt.Servers)
	}
	if fl, _ := trt.Servers[0].Flag("--tp_size"); fl.Value != "$TP" || fl.Line != 20 {
		t.Errorf("--tp_size = %+v", fl)
	}
	if e := trt.Exports("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"); len(e) != 1 || e[0].Value != "2" {
		t.Errorf("TLLM export = %+v", e)
	}
	if len(trt.Clients) != 1 || trt.Clients[0].Program != "benchmark_serving.py" || !trt.Clients[0].HasFlag("--use-chat-template") {
		t.Errorf("trt clients = %+v", trt.Clients)
	}

	atom := parseTestdata(t, "dsv4_fp8_mi355x_atom.sh")
	if atom.Engine != ATOM || len(atom.Servers) != 1 {
		t.Fatalf("atom = %s %+v", atom.Engine, atom.Servers)
	}
	s := atom.Servers[0]
	if fn, ok := s.Branch.InFunc(); !ok || fn != "start_server" || s.EndLine != 10 {
		t.Errorf("atom server path %v end %d", s.Branch, s.EndLine)
	}
	// The export inside start_server covers the launch next to it, and,
	// through the call site, the top level after the call.
	e := atom.Exports("ATOM_USE_TRITON_MOE")[0]
	if !atom.Covers(e.Branch, s.Branch) || !atom.Covers(e.Branch, nil) || e.Branch.Covers(nil) {
		t.Error("function export coverage wrong")
	}
	if !atom.Clients[0].HasFlag("--dsv4") {
		t.Error("client lacks --dsv4")
	}
}

func TestPatchingAndOverrides(t *testing.T) {
	f := parseTestdata(t, "patched_vllm.sh")
	type pk struct {
		Kind PatchKind
		Line int
	}
	var got []pk
	for _, p := range f.Patches {
		got = append(got, pk{p.Kind, p.Line})
	}
	want := []pk{
		{PatchPip, 10}, {PatchPip, 12}, {PatchWheel, 13},
		{PatchFile, 15}, {PatchGitApply, 15},
		{PatchCommand, 16}, {PatchFile, 16},
		{PatchSed, 18}, {PatchSed, 19},
		{PatchWrite, 22}, {PatchPython, 26},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patches (-want +got):\n%s", diff)
	}
	var ov []string
	for _, o := range f.Overrides {
		ov = append(ov, string(o.Kind)+"@"+strconv.Itoa(o.Line))
	}
	if diff := cmp.Diff([]string{"config-edit@33", "config-edit@34", "hf-overrides@37"}, ov); diff != "" {
		t.Errorf("overrides (-want +got):\n%s", diff)
	}
	if fl, ok := f.Servers[0].Flag("--hf-overrides"); !ok || fl.JSON == nil || !fl.JSON.Has("architectures[0]") {
		t.Errorf("--hf-overrides = %+v", fl)
	}
}

func TestRunnerImages(t *testing.T) {
	f := parseTestdata(t, "runners/launch_b300-nv.sh")
	if len(f.Images) != 2 {
		t.Fatalf("images = %+v", f.Images)
	}
	if im := f.Images[0]; im.Kind != ImageEnrootImport || im.Ref != "docker://$IMAGE" || im.Line != 6 {
		t.Errorf("enroot import = %+v", im)
	}
	if im := f.Images[1]; im.Kind != ImageContainer || im.Ref != "$SQUASH_FILE" || im.Line != 9 {
		t.Errorf("container image = %+v", im)
	}
}

func TestParseError(t *testing.T) {
	b, err := os.ReadFile("testdata/bad_syntax.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src  string
		line, col  int
		msg        string
		incomplete bool
	}{
		{"bad_syntax.sh", string(b), 4, 1, "`if` statement must end with `fi`", true},
		{"arith.sh", "X=$(( 1 +\n", 1, 9, "`+` must be followed by an expression", false},
		{"quote.sh", "echo \"abc\n", 1, 6, "reached EOF without closing quote `\"`", true},
	} {
		_, err := Parse(tc.name, []byte(tc.src))
		pe, ok := err.(*ParseError)
		if !ok || !IsParseError(err) {
			t.Errorf("%s: err = %v, want *ParseError", tc.name, err)
			continue
		}
		if pe.Line != tc.line || pe.Column != tc.col || pe.Msg != tc.msg || pe.Path != tc.name {
			t.Errorf("%s: %+v", tc.name, pe)
		}
		if tc.incomplete && !pe.Incomplete {
			t.Errorf("%s: want Incomplete", tc.name)
		}
	}
}

func TestSetCommands(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []SetOption
	}{
		{"set -euo pipefail", []SetOption{{"errexit", true}, {"nounset", true}, {"pipefail", true}}},
		{"set -eo pipefail", []SetOption{{"errexit", true}, {"pipefail", true}}},
		{"set -o nounset -o errexit", []SetOption{{"nounset", true}, {"errexit", true}}},
		{"set +u", []SetOption{{"nounset", false}}},
		{"set -x", []SetOption{{"xtrace", true}}},
		{"set -eux -o pipefail", []SetOption{{"errexit", true}, {"nounset", true}, {"xtrace", true}, {"pipefail", true}}},
		{"set +o pipefail", []SetOption{{"pipefail", false}}},
		{"set -- a b", nil},
	} {
		f := mustParse(t, tc.src+"\n")
		if len(f.Sets) != 1 {
			t.Errorf("%q: %d set commands", tc.src, len(f.Sets))
			continue
		}
		if diff := cmp.Diff(tc.want, f.Sets[0].Options); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.src, diff)
		}
	}
	f := mustParse(t, "set -euo pipefail\nset +u\nif [ -n \"${DEBUG:-}\" ]; then set -x; fi\n")
	if on, line, _ := f.Option("nounset"); on || line != 2 {
		t.Errorf("nounset after set +u = %v line %d", on, line)
	}
	if _, _, set := f.Option("xtrace"); set {
		t.Error("conditional set -x counted as unconditional")
	}
}

func TestVariables(t *testing.T) {
	src := `export A=1
export B
declare -x C="two words"
D=plain
E+=more
F=( x y )
F+=( z )
unset G H
I=1 some_command
env J=2 K=3 other_command
readonly L=4
local_fn() { local M=5; }
for N in a b; do :; done
read -r O <<< "x"
(( P = 1 + 2 ))
declare -p Q >/dev/null 2>&1
Z[3]=v
`
	f := mustParse(t, src)
	type v struct {
		Name   string
		Kind   VarKind
		Value  string
		Line   int
		Append bool
		Array  bool
	}
	var got []v
	for _, x := range f.Vars {
		got = append(got, v{x.Name, x.Kind, x.Value, x.Line, x.Append, x.Array})
	}
	want := []v{
		{"A", Export, "1", 1, false, false},
		{"B", Export, "", 2, false, false},
		{"C", Export, "two words", 3, false, false},
		{"D", Assign, "plain", 4, false, false},
		{"E", Assign, "more", 5, true, false},
		{"F", Assign, "( x y )", 6, false, true},
		{"F", Assign, "( z )", 7, true, true},
		{"G", Unset, "", 8, false, false},
		{"H", Unset, "", 8, false, false},
		{"I", EnvPrefix, "1", 9, false, false},
		{"J", EnvPrefix, "2", 10, false, false},
		{"K", EnvPrefix, "3", 10, false, false},
		{"L", Assign, "4", 11, false, false},
		{"M", Assign, "5", 12, false, false},
		{"N", Bind, "N in a b", 13, false, false},
		{"O", Bind, "", 14, false, false},
		{"P", Bind, "P = 1 + 2", 15, false, false},
		{"Z", Assign, "v", 17, false, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if fn, ok := f.VarsNamed("M")[0].Branch.InFunc(); !ok || fn != "local_fn" {
		t.Errorf("M path = %v", f.VarsNamed("M")[0].Branch)
	}
	if r := f.ReadsOf("Q"); len(r) != 1 || !r[0].Defaulted || r[0].Op != "declare -p" {
		t.Errorf("declare -p read = %+v", r)
	}
	if e := f.Exports("I"); len(e) != 1 || e[0].Command != "some_command" {
		t.Errorf("env prefix = %+v", e)
	}
}

func TestReads(t *testing.T) {
	src := `echo $A ${B} ${C:-} ${D:-x} ${E-} ${F:=y} ${G:?missing} ${H:+alt} ${#I} ${J[@]} ${K%.sh}
[[ -v L ]] && [ -v M ]
X=$((N * 2 + $O))
echo "${P:-$Q}" $1 $@ $? ${!prefix*}
`
	f := mustParse(t, src)
	type r struct {
		Name      string
		Op        string
		Defaulted bool
		Line      int
	}
	var got []r
	for _, x := range f.Reads {
		got = append(got, r{x.Name, x.Op, x.Defaulted, x.Line})
	}
	want := []r{
		{"A", "", false, 1}, {"B", "", false, 1}, {"C", ":-", true, 1}, {"D", ":-", true, 1},
		{"E", "-", true, 1}, {"F", ":=", true, 1}, {"G", ":?", true, 1}, {"H", ":+", true, 1},
		{"I", "#len", false, 1}, {"J", "[@]", false, 1}, {"K", "%", false, 1},
		{"L", "-v", true, 2}, {"M", "-v", true, 2},
		{"N", "arith", false, 3}, {"O", "", false, 3},
		{"P", ":-", true, 4}, {"Q", "", false, 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	var bare []string
	for _, x := range f.UnguardedReads() {
		bare = append(bare, x.Name)
	}
	// J is an array expansion, Q a nested default; both are reported or not
	// by their own merits: J no (empty arrays are fine), Q yes.
	if diff := cmp.Diff([]string{"A", "B", "I", "K", "N", "O", "Q"}, bare); diff != "" {
		t.Errorf("UnguardedReads (-want +got):\n%s", diff)
	}
}

func TestGuardedReads(t *testing.T) {
	src := `set -euo pipefail
if declare -p MODEL_PATH >/dev/null 2>&1 && [ -n "$MODEL_PATH" ]; then echo ok; fi
declare -p SLURM_JOB_ID >/dev/null 2>&1 && echo "$SLURM_JOB_ID"
[[ -v HF_HOME ]] && echo "$HF_HOME"
case "${KV_OFFLOAD_BACKEND:-}" in
  "") ;;
  *) echo "$KV_OFFLOAD_BACKEND" ;;
esac
if [ -z "${SPEC:-}" ]; then echo "$SPEC"; fi
echo "$UNSAFE"
`
	f := mustParse(t, src)
	var got []string
	for _, r := range f.UnguardedReads() {
		got = append(got, r.Name+"@"+strconv.Itoa(r.Line))
	}
	if diff := cmp.Diff([]string{"SPEC@9", "UNSAFE@10"}, got); diff != "" {
		t.Errorf("UnguardedReads (-want +got):\n%s", diff)
	}
}

// A comparison written with its value first is recorded as the
// variable's: Op always reads "VAR Op Value".
func TestConditionValueFirst(t *testing.T) {
	for _, tc := range []struct{ src, op, value string }{
		{`[ 1 -lt "$EP_SIZE" ]`, "-gt", "1"},
		{`[ 1 -le "$EP_SIZE" ]`, "-ge", "1"},
		{`[[ 4 -gt $TP ]]`, "-lt", "4"},
		{`[[ 4 -ge $TP ]]`, "-le", "4"},
		{`[[ b < $NAME ]]`, ">", "b"},
		{`[ "$EP_SIZE" -lt 1 ]`, "-lt", "1"},
		{`[ 1 = "$EP_SIZE" ]`, "=", "1"},
		{`[ 2 -eq "$EP_SIZE" ]`, "=", "2"},
	} {
		f := mustParse(t, "if "+tc.src+"; then A=1; fi\n")
		a := f.VarsNamed("A")
		if len(a) != 1 || len(a[0].Branch) != 1 {
			t.Fatalf("%s: %+v", tc.src, a)
		}
		if c := a[0].Branch[0]; c.Op != tc.op || c.Value != tc.value || c.Text != tc.src {
			t.Errorf("%s: op %q value %q text %q, want %q %q", tc.src, c.Op, c.Value, c.Text, tc.op, tc.value)
		}
	}
}

func TestConditions(t *testing.T) {
	src := `if [ "$DP_ATTENTION" = "true" ]; then A=1
elif [[ $EP_SIZE -gt 1 ]]; then A=2
else A=3; fi
[ "$X" != "y" ] && B=1
[[ -n "${Y:-}" ]] || B=2
(( TP > 4 )) && B=3
case "$KV_OFFLOAD_BACKEND" in
  vllm-simple|native) C=1 ;;
  "") C=2 ;;
  *) C=3 ;;
esac
while read -r line; do D=1; done < f
`
	f := mustParse(t, src)
	paths := map[string][]string{}
	for _, v := range f.Vars {
		paths[v.Name] = append(paths[v.Name], v.Branch.String())
	}
	want := map[string][]string{
		"A": {
			`if [ "$DP_ATTENTION" = "true" ]`,
			`not [ "$DP_ATTENTION" = "true" ] / if [[ $EP_SIZE -gt 1 ]]`,
			`not [ "$DP_ATTENTION" = "true" ] / not [[ $EP_SIZE -gt 1 ]]`,
		},
		"B": {`if [ "$X" != "y" ]`, `not [[ -n "${Y:-}" ]]`, `if (( TP > 4 ))`},
		"C": {
			`case "$KV_OFFLOAD_BACKEND" in vllm-simple|native)`,
			`case "$KV_OFFLOAD_BACKEND" in )`,
			`case "$KV_OFFLOAD_BACKEND" in *)`,
		},
		"D":    {`while read -r line`},
		"line": {"top level"},
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	a := f.VarsNamed("A")
	if c := a[0].Branch[0]; c.Var != "DP_ATTENTION" || c.Op != "=" || c.Value != "true" || c.Negated || c.Line != 1 {
		t.Errorf("if cond = %+v", c)
	}
	if c := a[1].Branch[1]; c.Var != "EP_SIZE" || c.Op != "-gt" || c.Value != "1" {
		t.Errorf("elif cond = %+v", c)
	}
	b := f.VarsNamed("B")
	if c := b[0].Branch[0]; c.Var != "X" || c.Op != "=" || c.Value != "y" || !c.Negated {
		t.Errorf("!= cond = %+v", c)
	}
	if c := b[1].Branch[0]; c.Var != "Y" || c.Op != "-n" || !c.Negated {
		t.Errorf("|| cond = %+v", c)
	}
	if c := b[2].Branch[0]; c.Var != "TP" || c.Op != ">" || c.Value != "4" {
		t.Errorf("arith cond = %+v", c)
	}
	cs := f.VarsNamed("C")
	if c := cs[2].Branch[0]; c.Kind != CondCase || c.Var != "KV_OFFLOAD_BACKEND" || !slices.Equal(c.Except, []string{"vllm-simple", "native", ""}) || c.Line != 10 {
		t.Errorf("default arm = %+v", c)
	}
	if !cs[0].Branch.Excludes(cs[2].Branch) || !cs[0].Branch.Excludes(cs[1].Branch) || cs[0].Branch.Excludes(cs[0].Branch) {
		t.Error("case arms should exclude each other")
	}
	if !a[0].Branch.Excludes(a[2].Branch) || a[1].Branch.Excludes(nil) {
		t.Error("then and else should exclude each other")
	}
}

func TestPathCovers(t *testing.T) {
	arm := func(id int, pats ...string) Cond {
		return Cond{Kind: CondCase, Var: "KV", Patterns: pats, Text: `"$KV"`, id: id}
	}
	ifc := func(id int, v, op, val string, neg bool) Cond {
		return Cond{Kind: CondIf, Var: v, Op: op, Value: val, Negated: neg, Text: "[ test ]", id: id}
	}
	simple := arm(1, "vllm-simple")
	for _, tc := range []struct {
		name              string
		p, q              Branch
		covers, excludes  bool
		compatibleReverse bool
	}{
		{"top level covers an arm", nil, Branch{simple}, true, false, true},
		{"an arm covers itself", Branch{simple}, Branch{simple}, true, false, true},
		{"an arm does not cover the top level", Branch{simple}, nil, false, false, true},
		{"different arms", Branch{arm(2, "mooncake")}, Branch{simple}, false, true, false},
		{"same patterns in another case statement", Branch{arm(3, "vllm-simple")}, Branch{simple}, true, false, true},
		{"wider arm covers narrower", Branch{arm(4, "vllm-simple", "native")}, Branch{simple}, true, false, true},
		{"glob arm covers literal", Branch{arm(5, "vllm-*")}, Branch{simple}, true, false, true},
		{"default arm excludes earlier arms", Branch{{Kind: CondCase, Var: "KV", Patterns: []string{"*"}, Except: []string{"vllm-simple"}, id: 6}}, Branch{simple}, false, true, false},
		{"if = covers the matching arm", Branch{ifc(7, "KV", "=", "vllm-simple", false)}, Branch{simple}, true, false, true},
		{"if != excludes the matching arm", Branch{ifc(8, "KV", "=", "vllm-simple", true)}, Branch{simple}, false, true, false},
		{"then vs else of one test", Branch{ifc(9, "DP", "=", "true", false)}, Branch{ifc(9, "DP", "=", "true", true)}, false, true, false},
		{"-n covers a non-empty arm", Branch{ifc(10, "KV", "-n", "", false)}, Branch{simple}, true, false, true},
		{"-z excludes a non-empty arm", Branch{ifc(11, "KV", "-z", "", false)}, Branch{simple}, false, true, false},
		{"unrelated variable", Branch{ifc(12, "DP", "=", "true", false)}, Branch{simple}, false, false, true},
		{"nested: outer arm covers inner if", Branch{simple}, Branch{simple, ifc(13, "DP", "=", "true", false)}, true, false, true},
		{"function body only covers itself", Branch{{Kind: CondFunc, Name: "f", id: 14}}, nil, false, false, true},
		{"loop body does not cover outside", Branch{{Kind: CondLoop, id: 15}}, nil, false, false, true},
	} {
		if got := tc.p.Covers(tc.q); got != tc.covers {
			t.Errorf("%s: Covers = %v", tc.name, got)
		}
		if got := tc.p.Excludes(tc.q); got != tc.excludes {
			t.Errorf("%s: Excludes = %v", tc.name, got)
		}
		if got := tc.q.Compatible(tc.p); got != tc.compatibleReverse {
			t.Errorf("%s: reverse Compatible = %v", tc.name, got)
		}
	}
	if pats, ok := (Branch{ifc(1, "DP", "=", "true", false), simple}).Arm("KV"); !ok || !slices.Equal(pats, []string{"vllm-simple"}) {
		t.Errorf("Arm = %v %v", pats, ok)
	}
	if pats, ok := (Branch{ifc(1, "KV", "=", "mooncake", false)}).Arm("KV"); !ok || !slices.Equal(pats, []string{"mooncake"}) {
		t.Errorf("Arm(if =) = %v %v", pats, ok)
	}
	if _, ok := (Branch{simple}).Arm("DP"); ok {
		t.Error("Arm of an unconstrained variable")
	}
}

func TestCommandForms(t *testing.T) {
	for _, tc := range []struct {
		name    string
		src     string
		program string
		array   string
		flags   []string // name=value (value omitted for booleans), in order
		oneLine bool
		bg      bool
	}{
		{
			name:    "direct, equals and boolean flags",
			src:     "vllm serve m --tp 8 --max-num-seqs=64 --enforce-eager --dtype auto\n",
			program: "vllm serve", flags: []string{"--tp=8", "--max-num-seqs=64", "--enforce-eager", "--dtype=auto"}, oneLine: true,
		},
		{
			name:    "wrappers and redirects",
			src:     "nohup env VLLM_X=1 timeout -s INT 2h numactl --interleave=all vllm serve m \\\n  --port 1 > log 2>&1 &\n",
			program: "vllm serve", flags: []string{"--port=1"}, bg: true,
		},
		{
			name:    "python module api_server",
			src:     "python3 -u -m vllm.entrypoints.openai.api_server --model m --port 8000\n",
			program: "vllm.entrypoints.openai.api_server", flags: []string{"--model=m", "--port=8000"}, oneLine: true,
		},
		{
			name:    "sglang serve",
			src:     "sglang serve --model-path m --tp-size 4 --enable-dp-attention\n",
			program: "sglang serve", flags: []string{"--model-path=m", "--tp-size=4", "--enable-dp-attention"}, oneLine: true,
		},
		{
			name:    "array with appends under conditions",
			src:     "CMD=(vllm serve m --tp 4)\nif [ \"$EP\" -gt 1 ]; then\n  CMD+=(--enable-expert-parallel)\nfi\nCMD+=(--port 1)\n\"${CMD[@]}\" &\n",
			program: "vllm serve", array: "CMD", flags: []string{"--tp=4", "--enable-expert-parallel", "--port=1"}, oneLine: true, bg: true,
		},
		{
			name:    "array reassigned unconditionally drops earlier content",
			src:     "CMD=(vllm serve old --a 1)\nCMD=(vllm serve new --b 2)\n\"${CMD[@]}\"\n",
			program: "vllm serve", array: "CMD", flags: []string{"--b=2"}, oneLine: true,
		},
		{
			name:    "array never run still describes the server",
			src:     "SERVER_CMD=(\n  python3 -m sglang.launch_server\n  --tp 8\n)\nlaunch_with_retries SERVER_CMD\n",
			program: "sglang.launch_server", array: "SERVER_CMD", flags: []string{"--tp=8"},
		},
		{
			name:    "command in a string, eval'd",
			src:     "CMD=\"vllm serve m --tp $TP --enable-prefix-caching\"\neval \"$CMD\"\n",
			program: "vllm serve", flags: []string{"--tp=$TP", "--enable-prefix-caching"}, oneLine: true,
		},
		{
			name:    "unquoted option string splices",
			src:     "EXTRA=\"--enable-expert-parallel --max-model-len 4096\"\nvllm serve m $EXTRA --port 1\n",
			program: "vllm serve", flags: []string{"--enable-expert-parallel", "--max-model-len=4096", "--port=1"}, oneLine: true,
		},
		{
			name:    "negative number is a value",
			src:     "trtllm-serve m --max_seq_len -1 --kv_cache_free_gpu_memory_fraction 0.9\n",
			program: "trtllm-serve", flags: []string{"--max_seq_len=-1", "--kv_cache_free_gpu_memory_fraction=0.9"}, oneLine: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.src)
			if len(f.Servers) != 1 {
				t.Fatalf("servers = %d", len(f.Servers))
			}
			s := f.Servers[0]
			var got []string
			for _, fl := range s.Flags {
				if fl.HasValue {
					got = append(got, fl.Name+"="+fl.Value)
				} else {
					got = append(got, fl.Name)
				}
			}
			if diff := cmp.Diff(tc.flags, got); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
			if s.Program != tc.program || s.Array != tc.array || s.OneLine != tc.oneLine || s.Background != tc.bg {
				t.Errorf("command = %+v", s)
			}
		})
	}
}

func TestArrayAlternatives(t *testing.T) {
	src := `if [ "$DP_ATTENTION" = "true" ]; then
    VLLM_CMD=(vllm serve "$MODEL" --data-parallel-size "$TP")
else
    VLLM_CMD=(vllm serve "$MODEL" --tensor-parallel-size "$TP")
fi
VLLM_CMD+=(--port 8000)
"${VLLM_CMD[@]}" &
`
	f := mustParse(t, src)
	if len(f.Servers) != 2 {
		t.Fatalf("servers = %d", len(f.Servers))
	}
	for i, want := range [][]string{{"--data-parallel-size", "--port"}, {"--tensor-parallel-size", "--port"}} {
		s := f.Servers[i]
		if diff := cmp.Diff(want, flagNames(s)); diff != "" {
			t.Errorf("server %d flags (-want +got):\n%s", i, diff)
		}
		if s.RunLine != 7 || s.Line != 2+2*i || s.Branch[0].Negated != (i == 1) {
			t.Errorf("server %d = %+v", i, s)
		}
		if fl, _ := s.Flag("--port"); fl.Via != "VLLM_CMD" || fl.Line != 6 {
			t.Errorf("server %d --port = %+v", i, fl)
		}
	}
}

func TestJSONStyles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		style JSONStyle
		key   string
		value string
		line  int
		dyn   bool
	}{
		{"single quotes", `X='{"a": {"b": 1}}'`, JSONSingleQuoted, "a.b", "1", 1, false},
		{"double quotes with escapes", `X="{\"a\":\"$V\"}"`, JSONDoubleQuoted, "a", "$V", 1, true},
		{"bare expansion becomes a number", `X="{\"n\": ${N}}"`, JSONDoubleQuoted, "n", "${N}", 1, true},
		{"arithmetic in a heredoc", "X=$(cat <<EOF\n{\n  \"n\": $((A * 2)),\n  \"s\": \"x\"\n}\nEOF\n)", JSONHeredoc, "n", "$((A * 2))", 3, true},
		{"quoted heredoc keeps text", "read -r -d '' X <<'EOF' || true\n{\"k\": \"$NOT_EXPANDED\"}\nEOF", JSONHeredoc, "k", "$NOT_EXPANDED", 2, false},
		{"mixed quoting", `X='{"a": '"$V"'}'`, JSONMixed, "a", "$V", 1, true},
		{"arrays", `X='{"l": [1, {"m": true}]}'`, JSONSingleQuoted, "l[1].m", "true", 1, false},
		{"null", `X='{"z": null}'`, JSONSingleQuoted, "z", "null", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.src+"\n")
			if len(f.JSON) != 1 {
				t.Fatalf("JSON configs = %d", len(f.JSON))
			}
			j := f.JSON[0]
			if !j.Parsed || j.Style != tc.style || j.Var != "X" {
				t.Fatalf("json = %+v", j)
			}
			e, ok := j.Entry(tc.key)
			if !ok || e.Value != tc.value || e.Line != tc.line || e.Dynamic != tc.dyn {
				t.Errorf("entry %s = %+v %v", tc.key, e, ok)
			}
		})
	}
	// Not JSON even after substitution: recorded, not fatal.
	f := mustParse(t, `X='{"a": 1,,}'`+"\nY='{\"k\": 1} trailing'\nZ=\"{$BROKEN\"\n")
	if len(f.JSON) != 3 {
		t.Fatalf("JSON configs = %d", len(f.JSON))
	}
	for _, j := range f.JSON {
		if j.Parsed || j.Err == "" || len(j.Entries) != 0 || j.Raw == "" {
			t.Errorf("unparsed json = %+v", j)
		}
	}
	if f.JSON[0].Raw != `{"a": 1,,}` {
		t.Errorf("Raw = %q", f.JSON[0].Raw)
	}
	// Duplicate keys: the last one wins.
	f = mustParse(t, `X='{"a": 1, "a": 2}'`+"\n")
	if v, _, _ := f.JSON[0].Get("a"); v != "2" {
		t.Errorf("duplicate key Get = %q", v)
	}
}

func TestJSONThroughVariablePerArm(t *testing.T) {
	src := `case "$KV" in
  a) CFG='{"kv_connector":"A"}' ;;
  b) CFG='{"kv_connector":"B"}' ;;
esac
vllm serve m --kv-transfer-config "$CFG"
`
	f := mustParse(t, src)
	kv := f.Servers[0].FlagsNamed("--kv-transfer-config")
	if len(kv) != 2 {
		t.Fatalf("flags = %+v", kv)
	}
	for i, want := range []string{"A", "B"} {
		v, line, _ := kv[i].JSON.Get("kv_connector")
		arm, _ := kv[i].Branch.Arm("KV")
		if v != want || line != 2+i || kv[i].Line != 5 || len(arm) != 1 || arm[0] != strings.ToLower(want) {
			t.Errorf("flag %d: %q line %d arm %v", i, v, line, arm)
		}
	}
}

func TestEngineDetection(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		want      Engine
	}{
		{"benchmarks/x.sh", "vllm serve m\n", VLLM},
		{"benchmarks/x_sglang.sh", "vllm serve m\n", VLLM},
		{"benchmarks/dsr1_fp4_b200_sglang.sh", "echo\n", SGLang},
		{"benchmarks/dsr1_fp4_b200_trt_slurm.sh", "echo\n", TRTLLM},
		{"benchmarks/dsr1_fp8_mi355x_atom_mtp.sh", "echo\n", ATOM},
		{"benchmarks/multi_node/srt-slurm-recipes/vllm/run.sh", "echo\n", VLLM},
		{"benchmarks/x.sh", "export SGLANG_FOO=1\nexport SGLANG_BAR=1\nexport VLLM_X=1\n", SGLang},
		{"benchmarks/x.sh", "echo\n", EngineUnknown},
	} {
		f := mustParseAt(t, tc.path, tc.src)
		if f.Engine != tc.want {
			t.Errorf("%s %q: engine %q, want %q", tc.path, tc.src, f.Engine, tc.want)
		}
	}
	if VLLM.String() != "vLLM" || EngineUnknown.String() != "unknown" || TRTLLM.String() != "TRT-LLM" {
		t.Error("Engine.String")
	}
}

func mustParseAt(t *testing.T, p, src string) *Facts {
	t.Helper()
	f, err := Parse(p, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestIsAgentic(t *testing.T) {
	for p, want := range map[string]bool{
		"benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh":            true,
		"benchmarks/single_node/agentic/deprecated/kimik2.5_fp4_b300.sh":  true,
		"benchmarks/single_node/dsv4_fp4_b300_vllm.sh":                    false,
		"benchmarks/multi_node/srt-slurm-recipes/x/agentic/dynamo-agg.sh": true,
		"benchmarks/single_node/dsv4_agentic_vllm.sh":                     true,
	} {
		if IsAgentic(p) != want {
			t.Errorf("IsAgentic(%s) != %v", p, want)
		}
	}
}

func TestClients(t *testing.T) {
	for _, tc := range []struct {
		src, program string
		flag         string
	}{
		{"run_benchmark_serving --model m --use-chat-template\n", "run_benchmark_serving", "--use-chat-template"},
		{"python3 utils/bench_serving/benchmark_serving.py --use-chat-template\n", "benchmark_serving.py", "--use-chat-template"},
		{"vllm bench serve --model m --dataset-name random\n", "vllm bench serve", "--dataset-name"},
		{"python3 -m sglang.bench_serving --backend sglang\n", "sglang.bench_serving", "--backend"},
		{"aiperf profile --model m --streaming\n", "aiperf", "--streaming"},
	} {
		f := mustParse(t, tc.src)
		if len(f.Clients) != 1 || f.Clients[0].Program != tc.program || !f.Clients[0].HasFlag(tc.flag) || len(f.Servers) != 0 {
			t.Errorf("%q: clients %+v servers %d", tc.src, f.Clients, len(f.Servers))
		}
	}
}

func TestEnginePatchShapes(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []PatchKind
	}{
		{"pip install vllm==0.11.0\n", []PatchKind{PatchPip}},
		{"pip3 install -U 'sglang[all]>=0.5'\n", []PatchKind{PatchPip}},
		{"python3 -m pip install --no-cache-dir tensorrt_llm\n", []PatchKind{PatchPip}},
		{"uv pip install -e /workspace/vllm\n", []PatchKind{PatchPip}},
		{"pip install -r requirements.txt lmcache aiperf\n", nil},
		{"pip install ./dist/lmcache-0.5.1-cp312-linux_x86_64.whl\n", []PatchKind{PatchWheel}},
		{"sed -i 's/a/b/' /usr/lib/python3/dist-packages/sglang/srt/x.py\n", []PatchKind{PatchSed}},
		{"sed -i 's/a/b/' /tmp/vllm/notes.txt\n", nil},
		{"sed 's/a/b/' \"$SITE/site-packages/vllm/x.py\"\n", nil},
		{"sed -i \"s/a/b/\" \"$(python3 -c 'import sglang, os; print(os.path.dirname(sglang.__file__))')/srt/x.py\"\n", []PatchKind{PatchSed}},
		{"cp fixed.py /opt/venv/lib/python3.12/site-packages/vllm/x.py\n", []PatchKind{PatchWrite}},
		{"echo x >> \"$VLLM_ROOT/vllm/attention/backend.py\"\n", []PatchKind{PatchWrite}},
		{"python3 -c \"import vllm, pathlib; p = pathlib.Path(vllm.__file__).parent / 'x.py'; p.write_text('')\"\n", []PatchKind{PatchPython}},
		{"python3 - <<'EOF'\nimport vllm\nprint(vllm.__version__)\nEOF\n", nil},
		{"git apply fix.patch\n", []PatchKind{PatchFile, PatchGitApply}},
		{"git am < 0001-fix.patch\n", []PatchKind{PatchGitApply, PatchFile}},
		{"git clone https://github.com/vllm-project/vllm.git\n", nil},
	} {
		f := mustParse(t, tc.src)
		var got []PatchKind
		for _, p := range f.Patches {
			got = append(got, p.Kind)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.src, diff)
		}
	}
}

func TestOverrideShapes(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []OverrideKind
	}{
		{"vllm serve m --hf-overrides '{\"a\": 1}'\n", []OverrideKind{OverrideHFFlag}},
		{"EXTRA=\"--hf_overrides {}\"\n", []OverrideKind{OverrideHFFlag}},
		{"HF_OVERRIDES='{\"architectures\": [\"X\"]}'\n", []OverrideKind{OverrideMention}},
		{"python3 -m sglang.launch_server --json-model-override-args '{}'\n", []OverrideKind{OverrideModelArgs}},
		{"sed -i 's/\"num_layers\": 61/\"num_layers\": 4/' \"$MODEL_DIR/config.json\"\n", []OverrideKind{OverrideConfigEdit}},
		{"jq -r .num_hidden_layers \"$MODEL/config.json\"\n", nil},
		{"# no hf_overrides needed here\necho ok\n", nil},
		{"cat > \"$MODEL/config.json\" <<EOF\n{}\nEOF\n", []OverrideKind{OverrideConfigEdit}},
	} {
		f := mustParse(t, tc.src)
		var got []OverrideKind
		for _, o := range f.Overrides {
			got = append(got, o.Kind)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.src, diff)
		}
	}
}

func TestAtoms(t *testing.T) {
	f := parseTestdata(t, "agentic/dsv4_fp4_b300_vllm.sh")
	atoms := map[string][]int{}
	for _, a := range f.Atoms() {
		atoms[a.Key] = append(atoms[a.Key], a.Line)
	}
	for key, lines := range map[string][]int{
		"set:nounset":                                         {2},
		"set:pipefail":                                        {2},
		"env:VLLM_USE_SIMPLE_KV_OFFLOAD":                      {38},
		"env:VLLM_USE_SIMPLE_KV_OFFLOAD=1":                    {38},
		"unset:VLLM_USE_SIMPLE_KV_OFFLOAD":                    {54, 58},
		"server:vllm serve":                                   {73},
		"flag:--enable-auto-tool-choice":                      {83},
		"flag:--tool-call-parser=deepseek_v4":                 {82},
		"flag:--kv-transfer-config":                           {51, 55, 61},
		"json:kv_connector=LMCacheMPConnector":                {62},
		"json-key:kv_connector_module_path":                   {62},
		"json:kv_connector_extra_config.lazy_offload=true":    {46},
		"json-key:kv_connector_extra_config.cpu_bytes_to_use": {45},
		"client:run_benchmark_serving":                        {96},
		"client-flag:--max-concurrency":                       {100},
		"check-env:TOTAL_CPU_DRAM_GB":                         {9},
		"source:benchmark_lib.sh":                             {7},
	} {
		if diff := cmp.Diff(lines, atoms[key]); diff != "" {
			t.Errorf("atom %s lines (-want +got):\n%s", key, diff)
		}
	}
	for _, absent := range []string{"set:xtrace", "json:kv_connector_extra_config.cpu_bytes_to_use=${CPU_BYTES_PER_RANK}", "flag:--kv-transfer-config=$OFFLOAD_CONFIG"} {
		if _, ok := atoms[absent]; ok {
			t.Errorf("unexpected atom %s", absent)
		}
	}
}

func TestAtomsOfBareExport(t *testing.T) {
	f := mustParse(t, "VLLM_X=1\nexport VLLM_X\nY=$Z\nexport Y\n")
	var keys []string
	for _, a := range f.Atoms() {
		keys = append(keys, a.Key+"@"+strconv.Itoa(a.Line))
	}
	if diff := cmp.Diff([]string{"env:VLLM_X@2", "env:VLLM_X=1@2", "env:Y@4"}, keys); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLineText(t *testing.T) {
	f := mustParse(t, "a\r\nb\n\nc")
	for n, want := range map[int]string{0: "", 1: "a", 2: "b", 3: "", 4: "c", 5: ""} {
		if got := f.LineText(n); got != want {
			t.Errorf("LineText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCommentsMentioning(t *testing.T) {
	f := mustParse(t, "# first block mentions\n# the Eager Mode assertion\necho\n# eager mode again\n")
	got := f.CommentsMentioning("eager mode")
	if len(got) != 2 || got[0].Line != 2 || got[0].EndLine != 2 || got[1].Line != 4 {
		t.Errorf("got %+v", got)
	}
	got = f.CommentsMentioning("mentions the eager")
	if len(got) != 1 || got[0].Line != 1 || got[0].EndLine != 2 || got[0].Text != "first block mentions\nthe Eager Mode assertion" {
		t.Errorf("got %+v", got)
	}
	if f.CommentsMentioning("  ") != nil {
		t.Error("empty phrase matched")
	}
}

func TestEnvEngine(t *testing.T) {
	for name, want := range map[string]Engine{
		"SGLANG_ENABLE_SPEC_V2":      SGLang,
		"SGL_ENABLE_JIT_DEEPGEMM":    SGLang,
		"VLLM_USE_SIMPLE_KV_OFFLOAD": VLLM,
		"TRTLLM_ENABLE_PDL":          TRTLLM,
		"ATOM_USE_TRITON_MOE":        ATOM,
		"PYTHONHASHSEED":             EngineUnknown,
		"SGLANGX":                    EngineUnknown,
	} {
		if got := EnvEngine(name); got != want {
			t.Errorf("EnvEngine(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestMentionsAndEvals(t *testing.T) {
	tests := []struct {
		src      string
		name     string
		mentions int
		evals    int
	}{
		{"X=1\necho \"$X\"\n", "X", 2, 0},
		{"XY=1\nX_2=3\necho $XX\n", "X", 0, 0},
		{"M=1\ntrap 'rm \"$M\"' EXIT\n# M is the marker\n", "M", 3, 0},
		{"K=1\neval \"$HOOK\"\n", "K", 1, 1},
		{"K=1\ndeclare -n ref=K\nlocal -rn other=K\n", "K", 3, 2},
		{"declare -x K=1\nexport -n K\n", "K", 2, 0},
	}
	for _, tc := range tests {
		f, err := Parse("x.sh", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Mentions(tc.name); got != tc.mentions {
			t.Errorf("%q: Mentions(%s) = %d, want %d", tc.src, tc.name, got, tc.mentions)
		}
		if len(f.Evals) != tc.evals {
			t.Errorf("%q: Evals = %v, want %d", tc.src, f.Evals, tc.evals)
		}
	}
}

// TestMentionsAsName: a name counts where it stands as a word of its own,
// not inside a dashed option or hyphenated text.
func TestMentionsAsName(t *testing.T) {
	f, err := Parse("r.sh", []byte("#!/usr/bin/env bash\n# concurrency sweep\nvllm serve m --max-concurrency \"$CONC\"\nif [ \"${concurrency}\" -le 8 ]; then :; fi\necho max-concurrency-test concurrency_x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.MentionsAsName("concurrency"); got != 2 {
		t.Errorf("MentionsAsName(concurrency) = %d, want 2 (the comment and the read)", got)
	}
	if got := f.Mentions("concurrency"); got != 4 {
		t.Errorf("Mentions(concurrency) = %d, want 4", got)
	}
	if got := f.MentionsAsName(""); got != 0 {
		t.Errorf("MentionsAsName(\"\") = %d", got)
	}
}

// TestBareBraces: {NAME} groups no $ opens are recorded; brace
// expansions, ${NAME}, templates, single quotes, escapes and heredoc
// bodies are not.
func TestBareBraces(t *testing.T) {
	src := "#!/usr/bin/env bash\nX=fp8\nCMD=\"A={MORI_DTYPE} ${X} python3 -m sglang.launch_server\"\n" +
		"echo {a,b} {1..3} ${X}{SUFFIX} \"{{ MODEL }}\" '{LITERAL}' {NOPE} \\${ESC} {{JINJA}} {lower} {1ST}\n" +
		"find . -exec rm {} \\;\npython3 - <<PY\nprint(f\"{HDOC_NAME}\")\nPY\n"
	f, err := Parse("r.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range f.BareBraces {
		got = append(got, fmt.Sprintf("%s:%d", b.Name, b.Line))
	}
	want := []string{"MORI_DTYPE:3", "SUFFIX:4", "NOPE:4"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("BareBraces %v, want %v", got, want)
	}
}

// TestNameSubsts: a command substitution whose one command is a name in
// capitals is recorded, with whether its words are arithmetic; programs,
// functions the script defines (before or after), $(( )) and compound
// commands are not.
func TestNameSubsts(t *testing.T) {
	src := "#!/usr/bin/env bash\nset -euo pipefail\nSTAMP() { date +%s; }\n" +
		"A=$(TOTAL_CPU_DRAM_GB)\n" +
		"B=$( ISL * 2 )\n" +
		"C=$((ISL * 2))\n" +
		"D=$(nproc)\n" +
		"E=\"$(STAMP) $(LATER)\"\n" +
		"F=`MAX_LEN`\n" +
		"G=$(MODEL_PATH --version)\n" +
		"H=$(X) $(NO_ARGS | cat) $(V=1 CMD) $(OUT > f) $(\"QUOTED\")\n" +
		"echo \"$(CONC / TP + ${EXTRA})\"\n" +
		"T=$(MYTOOL list)\n" +
		"LATER() { :; }\n"
	f, err := Parse("r.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ns := range f.NameSubsts {
		got = append(got, fmt.Sprintf("%s:%d:%v:%v:%s:%q", ns.Name, ns.Line, ns.Arith, ns.Backquoted, ns.Text, ns.Args))
	}
	want := []string{
		`TOTAL_CPU_DRAM_GB:4:false:false:$(TOTAL_CPU_DRAM_GB):[]`,
		`ISL:5:true:false:$( ISL * 2 ):["*" "2"]`,
		"MAX_LEN:9:false:true:`MAX_LEN`:[]",
		`MODEL_PATH:10:false:false:$(MODEL_PATH --version):["--version"]`,
		`CONC:12:true:false:$(CONC / TP + ${EXTRA}):["/" "TP" "+" "${EXTRA}"]`,
		`MYTOOL:13:false:false:$(MYTOOL list):["list"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("NameSubsts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNameSubstsBounded: the facts keep at most maxNameSubsts of them.
func TestNameSubstsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	for i := 0; i < 3*maxNameSubsts; i++ {
		fmt.Fprintf(&b, "V%d=$(NAME_%d)\n", i, i)
	}
	f, err := Parse("r.sh", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.NameSubsts) != maxNameSubsts {
		t.Errorf("kept %d NameSubsts, want %d", len(f.NameSubsts), maxNameSubsts)
	}
}
