package pipeline

import (
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// What a benchmark script starts its inference server with, for a row's
// job: the script is evaluated with the env the job hands it, recording
// the server's command line, so that the server's limits can be held
// against the row's concurrency and sequence lengths.

// serverPrograms are the programs whose calls are recorded: vLLM's CLI,
// the Python interpreter (SGLang and ATOM start as modules) and
// TensorRT-LLM's server.
var serverPrograms = map[string]bool{"vllm": true, "python3": true, "python": true, "trtllm-serve": true}

// ServerCalls evaluates the run's benchmark script with its env and
// returns the result with each path's server calls (sheval.Path.Calls).
// The evaluation is memoized apart from the model's own, by the inputs
// the server's arguments are built from too.
func (m *Model) ServerCalls(run Run) (*Result, error) {
	if run.Path == "" || run.Kind != RunScript {
		return nil, nil
	}
	memo := m.memoByID("calls\x00" + m.files.Blob(run.Path) + "\x00" + run.Path)
	if r, ok := memo.Get(run.Env, m.files); ok {
		return r, nil
	}
	ev := *m.eval
	ev.Calls = func(p string) bool { return serverPrograms[p] }
	r, err := ev.Run(run.Path, run.Env)
	if err != nil {
		return nil, err
	}
	r.EnvSum = sheval.EnvSum(run.Env)
	memo.Put(r)
	return r, nil
}

// Server is an inference server's command line as a path gives it.
type Server struct {
	Engine string // "vllm", "sglang", "atom" or "trtllm"
	At     Loc
	// opts are the options by name, the last occurrence winning as the
	// engines' parsers do; a value is "" for a switch. unknown marks an
	// option whose value the bot cannot know.
	opts    map[string]string
	unknown map[string]bool
	// Opaque is set when an argument is unknown as a whole (an array the
	// bot cannot read may hold any option).
	Opaque bool
}

// AsServer reads a recorded call as a server command line; false for any
// other program (python3 running a script, vllm bench, ...).
func AsServer(c sheval.Call) (Server, bool) {
	a := c.Args
	if len(a) < 2 || !a[0].Known {
		return Server{}, false
	}
	s := Server{At: c.At, opts: map[string]string{}, unknown: map[string]bool{}}
	rest := 0
	switch a[0].Text {
	case "vllm":
		if a[1].Text != "serve" || !a[1].Known {
			return Server{}, false
		}
		s.Engine, rest = "vllm", 2
	case "python3", "python":
		if len(a) < 3 || a[1].Text != "-m" {
			return Server{}, false
		}
		switch a[2].Text {
		case "sglang.launch_server":
			s.Engine = "sglang"
		case "atom.entrypoints.openai_server":
			s.Engine = "atom"
		case "vllm.entrypoints.openai.api_server":
			s.Engine = "vllm"
		default:
			return Server{}, false
		}
		rest = 3
	case "trtllm-serve":
		s.Engine, rest = "trtllm", 1
	default:
		return Server{}, false
	}
	for i := rest; i < len(a); i++ {
		if !a[i].Known {
			if strings.HasPrefix(a[i].Text, "--") && !strings.ContainsAny(a[i].Text, "$`") {
				s.unknown[normOpt(a[i].Text)] = true
				continue
			}
			s.Opaque = true
			continue
		}
		t := a[i].Text
		if !strings.HasPrefix(t, "-") || t == "-" {
			continue // a positional argument (the model)
		}
		name, val, hasEq := strings.Cut(t, "=")
		name = normOpt(name)
		if !hasEq {
			val = ""
			if i+1 < len(a) && !(a[i+1].Known && strings.HasPrefix(a[i+1].Text, "-") && !isNumber(a[i+1].Text)) {
				i++
				if !a[i].Known {
					s.unknown[name] = true
					delete(s.opts, name)
					continue
				}
				val = a[i].Text
			}
		}
		s.opts[name] = val
		delete(s.unknown, name)
	}
	return s, true
}

func isNumber(t string) bool {
	_, err := strconv.ParseFloat(t, 64)
	return err == nil
}

// normOpt spells an option the way both engines accept it.
func normOpt(s string) string { return strings.ReplaceAll(s, "_", "-") }

// Int returns the value of the first of names the command passes, as a
// whole number: ok is false when it passes none of them, and known false
// when the value is not a number the bot knows.
func (s Server) Int(names ...string) (v int, ok, known bool) {
	for _, n := range names {
		if s.unknown[n] {
			return 0, true, false
		}
		t, has := s.opts[n]
		if !has {
			continue
		}
		x, err := strconv.Atoi(strings.TrimSpace(t))
		return x, true, err == nil
	}
	return 0, false, false
}

// Has reports whether the command passes one of the options.
func (s Server) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := s.opts[n]; ok || s.unknown[n] {
			return true
		}
	}
	return false
}

// envInt reads a whole number of a job's env.
func envInt(env Env, name string) (int, bool) {
	v, ok := env[name]
	if !ok || !v.Set || !v.Known || v.IsList {
		return 0, false
	}
	x, err := strconv.Atoi(strings.TrimSpace(v.Str))
	return x, err == nil
}
