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
