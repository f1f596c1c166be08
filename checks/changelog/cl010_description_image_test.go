package changelog

import (
	"reflect"
	"strings"
	"testing"
)

func TestImageRefs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Image: lmsysorg/sglang:v0.5.16-cu130", []string{"lmsysorg/sglang:v0.5.16-cu130"}},
		{"Bump to vllm/vllm-openai:v0.21.0.", []string{"vllm/vllm-openai:v0.21.0"}},
		{"Use `nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc2.post1` (TRT)", []string{"nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc2.post1"}},
		{"from vllm/vllm-openai-rocm:v0.24.0 to v0.26.0: faster", []string{"vllm/vllm-openai-rocm:v0.24.0", "vllm/vllm-openai-rocm:v0.26.0"}},
		{"lmsysorg/sglang:v0.5.12 -> v0.5.13", []string{"lmsysorg/sglang:v0.5.12", "lmsysorg/sglang:v0.5.13"}},
		{"registry.example.com:5000/team/img:1.0", []string{"registry.example.com:5000/team/img:1.0"}},
		// Not images: links, paths, keys, flags, a bare tag after other words.
		{"see https://github.com/vllm-project/vllm/pull/35093", nil},
		{"benchmarks/single_node/x.sh: new arm", nil},
		{"--kv-cache-dtype fp8, TP8 at conc 4-64", nil},
		{"moved to v0.26.0", nil},
		{"Model: deepseek-ai/DeepSeek-V4-Pro", nil},
		{"Image: Lmsysorg/SGLang:v1", nil},
	} {
		if got := imageRefs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("imageRefs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNamesImage(t *testing.T) {
	for _, tc := range []struct {
		ref, image string
		want       bool
	}{
		{"vllm/vllm-openai:v0.21.0", "vllm/vllm-openai:v0.21.0", true},
		{"vllm/vllm-openai-rocm:nightly-3f0a91bb", "vllm/vllm-openai-rocm:nightly-3f0a91bb96f8d72e0498", true},
		{"vllm/vllm-openai-rocm:nightly", "vllm/vllm-openai-rocm:nightly-3f0a91bb96f8d72e0498", true},
		{"docker.io/lmsysorg/sglang:v0.5.5", "lmsysorg/sglang:v0.5.5", true},
		{"vllm/vllm-openai:v0.20.1", "vllm/vllm-openai:v0.21.0", false},
		{"lmsysorg/sglang:v0.5.8-cu130-runtime", "lmsysorg/sglang:v0.5.8-cu130", false},
		{"lmsysorg/sglang-rocm:v0.5.5", "lmsysorg/sglang:v0.5.5", false},
	} {
		if got := namesImage(tc.ref, tc.image); got != tc.want {
			t.Errorf("namesImage(%q, %q) = %v, want %v", tc.ref, tc.image, got, tc.want)
		}
	}
}

func TestCL010(t *testing.T) {
	key := []string{"dsr1-fp8-h200-sglang"}
	link := "https://github.com/SemiAnalysisAI/InferenceX/pull/2300"
	cfg := func(image string) string {
		return strings.Replace(masterCfg, "image: lmsysorg/sglang:v0.5.5", "image: "+image, 1)
	}
	log := func(desc string) string { return baseLog + "\n" + entry(key, desc, link) }
	twoEntries := baseLog + "\n" + entry(key, "Image: lmsysorg/sglang:v0.5.6", link) + "\n" +
		entry(key, "Bump again to lmsysorg/sglang:v0.5.7", link)
	for _, tc := range []struct {
		name       string
		baseImage  string
		headImage  string
		head       string
		want       []string
		phrases    []string
		otherRules bool
	}{
		{name: "description names the old image", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.5",
			head: log("Image: lmsysorg/sglang:v0.5.6"), want: []string{"CL010 perf-changelog.yaml:31"},
			phrases: []string{"names `lmsysorg/sglang:v0.5.6`", "but `dsr1-fp8-h200-sglang` runs `lmsysorg/sglang:v0.5.5` (configs/nvidia-master.yaml:2)"}},
		{name: "config bumped past the description", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.7",
			head: log("Update SGLang to lmsysorg/sglang:v0.5.6"), want: []string{"CL010 perf-changelog.yaml:31"}},
		{name: "only the image the key ran before", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.7",
			head: log("Replaces lmsysorg/sglang:v0.5.5"), want: []string{"CL010 perf-changelog.yaml:31"},
			phrases: []string{"(`lmsysorg/sglang:v0.5.5` is the image the key ran before this PR)"}},
		{name: "from and to, the new one right", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.6",
			head: log("Bump from lmsysorg/sglang:v0.5.5 to v0.5.6")},
		{name: "from and to the wrong way round", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.6",
			head: log("Bump from lmsysorg/sglang:v0.5.6 to lmsysorg/sglang:v0.5.5"), want: []string{"CL010 perf-changelog.yaml:31"},
			phrases: []string{"goes from `lmsysorg/sglang:v0.5.6` to `lmsysorg/sglang:v0.5.5`", "from `lmsysorg/sglang:v0.5.5` to `lmsysorg/sglang:v0.5.6`"}},
		{name: "the image as written", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.6",
			head: log("Image: lmsysorg/sglang:v0.5.6")},
		{name: "an abbreviated nightly", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:nightly-dev-20260402-d7256eb6",
			head: log("Image: lmsysorg/sglang:nightly-dev-20260402")},
		{name: "another repository is not judged", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.6",
			head: log("Recipe follows rocm/sgl-dev:v0.5.9-mi30x")},
		{name: "no image in the description", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.6",
			head: log("Retune chunked prefill")},
		{name: "a later entry describes the key", baseImage: "lmsysorg/sglang:v0.5.5", headImage: "lmsysorg/sglang:v0.5.7",
			head: twoEntries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := withLog(baseLog)
			base[nvCfg] = cfg(tc.baseImage)
			head := withLog(tc.head)
			head[nvCfg] = cfg(tc.headImage)
			r := runRules(t, base, head, 2300, CL010)
			if got := r.ids(); strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			for _, f := range r.findings {
				for _, ph := range tc.phrases {
					if !strings.Contains(f.Body, ph) {
						t.Errorf("message lacks %q:\n%s", ph, f.Body)
					}
				}
			}
		})
	}
}
