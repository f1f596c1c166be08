package script

import (
	"path"
	"strings"
)

// Engine is the inference engine a recipe serves with.
type Engine string

const (
	EngineUnknown Engine = ""
	VLLM          Engine = "vllm"
	SGLang        Engine = "sglang"
	TRTLLM        Engine = "trt"
	ATOM          Engine = "atom"
)

// String returns the engine's display name.
func (e Engine) String() string {
	switch e {
	case VLLM:
		return "vLLM"
	case SGLang:
		return "SGLang"
	case TRTLLM:
		return "TRT-LLM"
	case ATOM:
		return "ATOM"
	}
	return "unknown"
}

// nameTokens maps words of a recipe's file name (dsv4_fp4_b300_vllm.sh)
// and directories (srt-slurm-recipes/sglang/...) to engines.
var nameTokens = map[string]Engine{
	"vllm": VLLM, "sglang": SGLang, "trt": TRTLLM, "trtllm": TRTLLM,
	"tensorrt": TRTLLM, "atom": ATOM,
}

// envPrefixes are environment variable prefixes only one engine reads.
var envPrefixes = []struct {
	prefix string
	engine Engine
}{
	{"VLLM_", VLLM}, {"SGLANG_", SGLang}, {"SGL_", SGLang}, {"TLLM_", TRTLLM},
	{"TRTLLM_", TRTLLM}, {"TRT_LLM_", TRTLLM}, {"ATOM_", ATOM},
}

// EngineFromName guesses the engine from a recipe's path: a file name
// word (_vllm, _sglang, _trt, _atom), else a directory named after an
// engine.
func EngineFromName(p string) Engine {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	for _, tok := range strings.FieldsFunc(strings.ToLower(base), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if e, ok := nameTokens[tok]; ok {
			return e
		}
	}
	for _, seg := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if e, ok := nameTokens[seg]; ok {
			return e
		}
	}
	return EngineUnknown
}

// detectEngine decides a script's engine: from its server commands, else
// its file name, else the engine-specific environment it sets.
func detectEngine(p string, f *Facts) Engine {
	count := map[Engine]int{}
	best := EngineUnknown
	for _, s := range f.Servers {
		count[s.Engine]++
		if count[s.Engine] > count[best] || best == EngineUnknown {
			best = s.Engine
		}
	}
	if best != EngineUnknown {
		return best
	}
	if e := EngineFromName(p); e != EngineUnknown {
		return e
	}
	count = map[Engine]int{}
	for _, v := range f.Vars {
		if v.Kind != Export && v.Kind != EnvPrefix {
			continue
		}
		for _, ep := range envPrefixes {
			if strings.HasPrefix(v.Name, ep.prefix) {
				count[ep.engine]++
				if count[ep.engine] > count[best] {
					best = ep.engine
				}
			}
		}
	}
	return best
}

// EnvEngine is the engine that reads an environment variable by its name's
// prefix (VLLM_, SGLANG_, SGL_, TLLM_, TRTLLM_, TRT_LLM_, ATOM_), or
// EngineUnknown for a variable no one engine owns.
func EnvEngine(name string) Engine {
	for _, ep := range envPrefixes {
		if strings.HasPrefix(name, ep.prefix) {
			return ep.engine
		}
	}
	return EngineUnknown
}
