package masterconfig

import "testing"

// TestMovingImage: the references that name one build and those that
// follow a branch or expire.
func TestMovingImage(t *testing.T) {
	for _, tc := range []struct {
		ref    string
		moving bool
	}{
		{"vllm/vllm-openai:v0.25.0", false},
		{"vllm/vllm-openai-rocm:nightly-49f31d7cee425a6d38f8c5bc76877986daf832ed", false},
		{"lmsysorg/sglang:nightly-dev-cu13-20260719-99f5a6f4", false},
		{"lmsysorg/sglang@sha256:0123abcd", false},
		{"nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1", false},
		{"localhost:5000/team/vllm:v1", false},
		{"vllm/vllm-openai-rocm:nightly", true},
		{"lmsysorg/sglang:latest", true},
		{"rocm/vllm-dev:deepseek-v4-latest", true},
		{"vllm/vllm-openai", true},
		{"localhost:5000/team/vllm", true},
		{"ttl.sh/someone-vllm-pr53087-20260901:24h", true},
		{"/scratch/images/vllm.sqsh", false}, // MC002's
		{"", false},
	} {
		if got := movingImage(tc.ref) != ""; got != tc.moving {
			t.Errorf("movingImage(%q) = %q, want moving %v", tc.ref, movingImage(tc.ref), tc.moving)
		}
	}
}
