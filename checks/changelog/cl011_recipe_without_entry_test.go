package changelog

import "testing"

func TestSameMeaning(t *testing.T) {
	const script = "#!/usr/bin/env bash\n# serve\nvllm serve \"$MODEL\" \\\n    --max-num-seqs 64 \\\n    --port 8000\n"
	const recipe = "name: r\nbackend:\n  decode:\n    max-num-seqs: 64\nbenchmark:\n  type: sa-bench\n  concurrencies: \"4x8\"\n  env:\n    WARMUP: \"1\"\n"
	for _, tc := range []struct {
		name, path, a, b string
		want             bool
	}{
		{"comment reworded", "r.sh", script, "#!/usr/bin/env bash\n# serve the model\n\nvllm serve \"$MODEL\" \\\n    --max-num-seqs 64 \\\n    --port 8000  # the default\n", true},
		{"continuation rewrapped", "r.sh", script, "#!/usr/bin/env bash\nvllm serve \"$MODEL\" --max-num-seqs 64 --port 8000\n", true},
		{"option value", "r.sh", script, "#!/usr/bin/env bash\nvllm serve \"$MODEL\" --max-num-seqs 128 --port 8000\n", false},
		{"option added", "r.sh", script, "#!/usr/bin/env bash\nvllm serve \"$MODEL\" --max-num-seqs 64 --port 8000 --enforce-eager\n", false},
		{"script stops parsing", "r.sh", script, "vllm serve \"$MODEL\" (\n", false},
		{"recipe comment and order", "r.yaml", recipe, "# a comment\nname: r\nbenchmark:\n  concurrencies: \"4x8\"\n  type: sa-bench\n  env:\n    WARMUP: \"1\"\nbackend:\n  decode:\n    max-num-seqs: 64\n", true},
		{"client env only", "r.yaml", recipe, "name: r\nbackend:\n  decode:\n    max-num-seqs: 64\nbenchmark:\n  type: sa-bench\n  concurrencies: \"4x8\"\n  env:\n    WARMUP: \"0\"\n    CACHE: /c\n", true},
		{"telemetry added", "r.yaml", recipe, recipe + "telemetry:\n  enabled: true\n", true},
		{"server setting", "r.yaml", recipe, "name: r\nbackend:\n  decode:\n    max-num-seqs: 128\nbenchmark:\n  type: sa-bench\n  concurrencies: \"4x8\"\n  env:\n    WARMUP: \"1\"\n", false},
		{"concurrencies", "r.yaml", recipe, "name: r\nbackend:\n  decode:\n    max-num-seqs: 64\nbenchmark:\n  type: sa-bench\n  concurrencies: \"4x8x16\"\n  env:\n    WARMUP: \"1\"\n", false},
		{"recipe stops parsing", "r.yaml", recipe, "name: [r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameMeaning(tc.path, []byte(tc.a), []byte(tc.b)); got != tc.want {
				t.Errorf("sameMeaning = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAsksForEntry(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"- Every change that can affect benchmark performance and every recipe addition or modification requires a new `perf-changelog.yaml` entry.", true},
		{"Update the image tag in `configs/*-master.yaml` and/or `benchmarks/*.sh`, and append a `perf-changelog.yaml` entry (required):", true},
		{"A stale branch with a `perf-changelog.yaml` conflict waits; the resolution recipe is in the debug notes.", false},
		{"Add entries to `configs/nvidia-master.yaml`, append to `perf-changelog.yaml`, then validate.", false},
		{"- `perf-changelog.yaml` - benchmark trigger log; append-only.", false},
		{"Every recipe change requires an entry in the changelog.", false}, // does not name the file
	} {
		if got := asksForEntry(tc.line, "perf-changelog.yaml"); got != tc.want {
			t.Errorf("asksForEntry(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
