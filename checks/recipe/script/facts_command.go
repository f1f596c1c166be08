package script

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// program is one entry of the table of commands the extractor recognizes.
// A command matches when, after wrappers (nohup, env, timeout, ...), its
// words start with argv (the first compared by base name, so
// /usr/bin/trtllm-serve matches), or it is a Python interpreter running
// module (-m; a trailing ".*" matches any submodule) or script (base
// name). To recognize a new engine or client, add a line.
type program struct {
	role   Role
	engine Engine
	name   string
	argv   []string
	module string
	script string
}

var programs = []program{
	{role: Server, engine: VLLM, name: "vllm serve", argv: []string{"vllm", "serve"}},
	{role: Server, engine: VLLM, name: "vllm.entrypoints.openai.api_server", module: "vllm.entrypoints.openai.api_server"},
	{role: Server, engine: SGLang, name: "sglang.launch_server", module: "sglang.launch_server"},
	{role: Server, engine: SGLang, name: "sglang serve", argv: []string{"sglang", "serve"}},
	{role: Server, engine: TRTLLM, name: "trtllm-serve", argv: []string{"trtllm-serve"}},
	{role: Server, engine: ATOM, name: "atom.entrypoints", module: "atom.entrypoints.*"},
	{role: Server, engine: ATOM, name: "atom serve", argv: []string{"atom", "serve"}},

	// Benchmark clients: benchmark_lib.sh's functions, the serving
	// benchmark scripts and the engines' own bench commands.
	{role: Client, name: "run_benchmark_serving", argv: []string{"run_benchmark_serving"}},
	{role: Client, name: "benchmark_serving.py", script: "benchmark_serving.py"},
	{role: Client, name: "vllm bench serve", argv: []string{"vllm", "bench", "serve"}},
	{role: Client, name: "sglang.bench_serving", module: "sglang.bench_serving"},
	{role: Client, name: "aiperf", argv: []string{"aiperf"}},
	{role: Client, name: "genai-perf", argv: []string{"genai-perf"}},
}

// wrapper is a command that runs another command given after its own
// options: values lists the options that take a separate value,
// positional how many words it takes before the command (timeout's
// duration), env whether VAR=val words come first, scan whether to look
// for a known program past options we do not model (mpirun, srun).
type wrapper struct {
	values     []string
	positional int
	env        bool
	scan       bool
}

var wrappers = map[string]wrapper{
	"nohup":                {},
	"exec":                 {},
	"command":              {},
	"setsid":               {},
	"unbuffer":             {},
	"time":                 {},
	"trtllm-llmapi-launch": {},
	"stdbuf":               {values: []string{"-i", "-o", "-e"}},
	"nice":                 {values: []string{"-n"}},
	"ionice":               {values: []string{"-c", "-n", "-p"}},
	"sudo":                 {values: []string{"-u", "-g"}},
	"timeout":              {values: []string{"-s", "-k", "--signal", "--kill-after"}, positional: 1},
	"env":                  {values: []string{"-u", "-C", "-S", "--unset", "--chdir"}, env: true},
	"numactl":              {values: []string{"-m", "-N", "-C", "-p", "-i"}},
	"taskset":              {positional: 1},
	"mpirun":               {scan: true},
	"mpiexec":              {scan: true},
	"srun":                 {scan: true},
	"torchrun":             {scan: true},
}

func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

// maxNameLen bounds the words compared with program and file names. A
// word holding a command substitution is as long as the substitution, and
// in a nest of them every level's command word holds all the levels
// below: taking path.Base of each (which scans back to the last slash)
// would cost the square of the nesting. No name the rules know is longer.
const maxNameLen = 256

// baseName is path.Base of a command or file word, or "" for a word too
// long to name anything the rules know.
func baseName(s string) string {
	if len(s) > maxNameLen {
		return ""
	}
	return path.Base(s)
}

// stripWrappers returns the index of the command a list of words runs
// after wrappers, and the indexes of `env VAR=val` words.
func stripWrappers(argv []string) (start int, env []int) {
	i := 0
	for depth := 0; i < len(argv) && depth < 8; depth++ {
		w, ok := wrappers[baseName(argv[i])]
		if !ok {
			return i, env
		}
		j := i + 1
		for j < len(argv) {
			a := argv[j]
			if w.env && isAssignWord(a) {
				env = append(env, j)
				j++
				continue
			}
			if len(a) < 2 || a[0] != '-' {
				break
			}
			j++
			if a == "--" {
				break
			}
			name, _, hasEq := strings.Cut(a, "=")
			if !hasEq && slices.Contains(w.values, name) {
				j++
			}
		}
		j += w.positional
		if w.scan {
			for k := j; k < len(argv); k++ {
				if p, _ := matchProgram(argv[k:]); p != nil {
					return k, env
				}
			}
		}
		i = j
	}
	if i > len(argv) {
		i = len(argv)
	}
	return i, env
}

func isPython(base string) bool {
	rest, ok := strings.CutPrefix(base, "python")
	if !ok {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if (rest[i] < '0' || rest[i] > '9') && rest[i] != '.' {
			return false
		}
	}
	return true
}

// pythonTarget finds what a python command line runs: a module (-m), a
// script, or inline code (-c). next is the index of the first argument
// of the module or script.
func pythonTarget(argv []string) (module, script string, code, next int) {
	code = -1
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-m":
			if i+1 < len(argv) {
				return argv[i+1], "", -1, i + 2
			}
			return "", "", -1, len(argv)
		case a == "-c":
			if i+1 < len(argv) {
				return "", "", i + 1, i + 2
			}
			return "", "", -1, len(argv)
		case a == "-X" || a == "-W":
			i++
		case len(a) > 1 && a[0] == '-':
		default:
			return "", a, -1, i + 1
		}
	}
	return "", "", -1, len(argv)
}

// matchProgram matches the start of argv against the program table and
// returns the index of the first word after the program.
func matchProgram(argv []string) (*program, int) {
	if len(argv) == 0 {
		return nil, 0
	}
	base := baseName(argv[0])
	if isPython(base) {
		mod, script, _, next := pythonTarget(argv)
		for i := range programs {
			p := &programs[i]
			switch {
			case p.module != "" && mod != "":
				if prefix, ok := strings.CutSuffix(p.module, "*"); ok && strings.HasPrefix(mod, prefix) || mod == p.module {
					return p, next
				}
			case p.script != "" && script != "":
				if baseName(script) == p.script {
					return p, next
				}
			}
		}
		return nil, 0
	}
	for i := range programs {
		p := &programs[i]
		if len(p.argv) == 0 || len(argv) < len(p.argv) || base != p.argv[0] {
			continue
		}
		if slices.Equal(argv[1:len(p.argv)], p.argv[1:]) {
			return p, len(p.argv)
		}
	}
	return nil, 0
}

// mayLaunch is the cheap first-phase test for commands worth resolving:
// a known program, an array or unquoted variable in command position, or
// eval.
func (x *extractor) mayLaunch(words []*syntax.Word, argv []string) bool {
	if len(words) == 0 {
		return false
	}
	if p, _ := matchProgram(argv); p != nil {
		return true
	}
	return arraySplice(words[0]) != "" || unquotedVar(words[0]) != "" || argv[0] == "eval"
}

// arg is one word of a command after resolving arrays and variables.
type arg struct {
	// t is the word's text; for a word split out of a variable's value
	// (OFFLOAD_ARGS="--kv-transfer-config {...}"), the field's own pieces.
	t      *text
	s      string
	static bool
	line   int
	path   Branch
	off    int          // where variables in this word are resolved
	via    string       // the array or variable it came from
	from   *assignRec   // the assignment it came from
	word   *syntax.Word // nil for split words
	opaque bool         // an array splice that could not be resolved
}

const (
	maxExpandDepth = 8
	// maxVariants bounds the alternative contents tracked for one array;
	// real recipes have one per case arm.
	maxVariants = 64
	// expandBudget bounds the words resolved per script.
	expandBudget = 1 << 13
	// scanBudget bounds the assignments looked at, per script, to find
	// what a variable or array holds where it is used: each use scans the
	// name's assignments, so n uses of a name assigned n times would cost
	// n². Real recipes look at a few thousand.
	scanBudget = 1 << 20
)

// scan charges the scan budget for looking at n assignments, and reports
// whether it allows it; past it, uses stay unresolved.
func (x *extractor) scan(n int) bool {
	x.scans -= n
	return x.scans >= 0
}

// expand resolves a command's words: "${A[@]}" splices every element A
// can hold at that point (all case arms, each element keeping the path it
// was added on), and an unquoted $X whose value holds options is split
// into words.
func (x *extractor) expand(words []*syntax.Word, p Branch, off int, via string, from *assignRec, depth int) []arg {
	// A splice brings in the words of its array (a server command's
	// flags): room for a typical command up front.
	return x.expandInto(make([]arg, 0, max(2*len(words), 24)), words, p, off, via, from, depth)
}

// expandInto is expand appending to out, so that nested splices fill one
// slice instead of building one per level.
func (x *extractor) expandInto(out []arg, words []*syntax.Word, p Branch, off int, via string, from *assignRec, depth int) []arg {
	for i, w := range words {
		if x.budget--; x.budget < 0 {
			// A pathological script (splices of splices) could expand
			// exponentially; what is left stays unresolved.
			out = append(out, arg{s: x.src(w), line: posLine(w.Pos()), path: p, opaque: true, via: via, from: from})
			continue
		}
		if name := arraySplice(w); name != "" {
			if depth >= maxExpandDepth {
				out = append(out, arg{s: x.src(w), line: posLine(w.Pos()), path: p, opaque: true, via: via, from: from})
				continue
			}
			variants := x.arrayVariants(name, p, off, nil)
			if len(variants) == 0 {
				out = append(out, arg{s: x.src(w), line: posLine(w.Pos()), path: p, opaque: true, via: via, from: from})
				continue
			}
			for _, v := range variants {
				for _, rec := range v {
					out = x.expandInto(out, rec.words, merge(p, rec.path), rec.off, name, rec, depth+1)
				}
			}
			continue
		}
		if name := unquotedVar(w); name != "" && depth < maxExpandDepth {
			if recs := x.scalarRecs(name, p, off); len(recs) > 0 && (i == 0 && depth == 0 || holdsOptions(recs)) {
				for _, rec := range recs {
					out = splitFieldsInto(out, rec, merge(p, rec.path), name)
				}
				continue
			}
		}
		t := x.wordText(w)
		out = append(out, arg{t: t, s: t.String(), static: t.static(), line: posLine(w.Pos()), path: p, off: off, via: via, from: from, word: w})
	}
	return out
}

func holdsOptions(recs []*assignRec) bool {
	for _, r := range recs {
		if r.t != nil && strings.HasPrefix(strings.TrimSpace(r.t.String()), "-") {
			return true
		}
	}
	return false
}

// splitFieldsInto splits a scalar's value on whitespace, as an unquoted
// expansion does, appending the fields to out; each field keeps the line
// it is written on.
func splitFieldsInto(out []arg, rec *assignRec, p Branch, via string) []arg {
	if rec.t == nil {
		return out
	}
	var cur strings.Builder
	static, line, open := true, 0, false
	// The field's text keeps its expansions as pieces, so that a JSON
	// value among the fields parses with placeholders as a word would.
	var ft *text
	litStart := -1
	flushLit := func(ln int) {
		if litStart >= 0 {
			ft.addLit(cur.String()[litStart:], ln, noUnescape)
			litStart = -1
		}
	}
	flush := func(ln int) {
		if open {
			flushLit(ln)
			ft.q = rec.t.q
			out = append(out, arg{t: ft, s: cur.String(), static: static, line: line, path: p, off: rec.off, via: via, from: rec})
		}
		cur.Reset()
		static, open, ft, litStart = true, false, nil, -1
	}
	begin := func(ln int) {
		if !open {
			open, line, ft = true, ln, newText(rec.t.q)
		}
	}
	for _, pc := range rec.t.pieces {
		if pc.exp {
			begin(pc.line)
			flushLit(pc.line)
			ft.addExp(pc.s, pc.name, pc.line)
			cur.WriteString(pc.s)
			static = false
			continue
		}
		ln := pc.line
		for i := 0; i < len(pc.s); i++ {
			c := pc.s[i]
			if c == ' ' || c == '\t' || c == '\n' {
				flush(ln)
				if c == '\n' {
					ln++
				}
				continue
			}
			begin(ln)
			if litStart < 0 {
				litStart = cur.Len()
			}
			cur.WriteByte(c)
		}
		flushLit(ln)
	}
	flush(line)
	return out
}

// arrayVariants returns the alternative contents array name can have at
// offset off on path p: each variant is an assignment followed by the
// appends made to it. An assignment that runs whenever p runs replaces
// what came before; assignments on other paths are alternatives.
// Assignments on paths that exclude p are skipped. from, when set,
// restricts the result to the variant starting at that assignment.
func (x *extractor) arrayVariants(name string, p Branch, off int, from *assignRec) [][]*assignRec {
	var variants [][]*assignRec
	// conds[i] holds the distinct conditional paths of variants[i]: an
	// append joins a variant unless one of them excludes it, and asking
	// each earlier append of a long list would cost the square of it.
	var conds []branchSet
	if !x.scan(len(x.assigns[name])) {
		return nil
	}
	for _, r := range x.assigns[name] {
		if r.off >= off {
			break
		}
		if from != nil && r.off < from.off {
			continue
		}
		if r.path.Excludes(p) {
			continue
		}
		if !r.append {
			if from != nil && r != from {
				if r.path.Covers(from.path) {
					break // from is overwritten
				}
				continue
			}
			if r.path.Covers(p) {
				variants, conds = variants[:0], conds[:0]
			}
			if len(variants) < maxVariants {
				variants = append(variants, []*assignRec{r})
				conds = append(conds, branchSet{}.with(r.path))
			}
			continue
		}
		added := false
		for i, v := range variants {
			if !conds[i].excludes(r.path) {
				variants[i] = append(v, r)
				conds[i] = conds[i].with(r.path)
				added = true
			}
		}
		if !added && from == nil && len(variants) < maxVariants {
			variants = append(variants, []*assignRec{r})
			conds = append(conds, branchSet{}.with(r.path))
		}
	}
	return variants
}

// branchSet is the distinct conditional branches of a list of
// assignments, up to maxBranchSet of them (a list with more is taken to
// exclude nothing further: no recipe builds one array under that many
// conditions).
type branchSet []Branch

const maxBranchSet = 64

func (s branchSet) with(p Branch) branchSet {
	if len(p) == 0 || len(s) >= maxBranchSet {
		return s
	}
	for _, q := range s {
		if len(q) == len(p) && &q[0] == &p[0] {
			return s
		}
	}
	return append(s[:len(s):len(s)], p)
}

// excludes reports whether a branch of s excludes p.
func (s branchSet) excludes(p Branch) bool {
	for _, q := range s {
		if q.Excludes(p) {
			return true
		}
	}
	return false
}

// scalarRecs returns the assignments of a scalar that can be its value at
// offset off on path p.
func (x *extractor) scalarRecs(name string, p Branch, off int) []*assignRec {
	var out []*assignRec
	if !x.scan(len(x.assigns[name])) {
		return nil
	}
	for _, r := range x.assigns[name] {
		if r.off >= off {
			break
		}
		if r.array || r.t == nil || r.path.Excludes(p) {
			continue
		}
		if !r.append && r.path.Covers(p) {
			out = out[:0]
		}
		out = append(out, r)
	}
	return out
}

// resolve is the second phase: function call sites, then commands.
func (x *extractor) resolve() {
	for _, c := range x.calls {
		if x.funcs[c.argv0] {
			x.f.Calls = append(x.f.Calls, Call{Name: c.argv0, Line: c.line, Branch: c.path})
			if c.off > x.funcUse[c.argv0] {
				x.funcUse[c.argv0] = c.off
			}
		} else if LibFuncs[c.argv0] {
			x.f.LibCalls = append(x.f.LibCalls, Call{Name: c.argv0, Line: c.line, Branch: c.path})
		}
	}
	for _, s := range x.calls {
		c := s.rec
		if c == nil {
			continue
		}
		off := c.off
		if use, ok := x.funcUse[c.fn]; ok && c.fn != "" && use > off {
			off = use
		}
		for _, args := range x.callArgs(c, off) {
			x.runSite(c, args)
		}
	}
	// Arrays that hold a command but are never seen running (run through a
	// helper function, say) still describe the server. An array that does
	// run somewhere is fully described by its run sites: its other
	// assignments were overwritten.
	names := make([]string, 0, len(x.assigns))
	for name := range x.assigns {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, def := range x.assigns[name] {
			if !def.array || def.append || x.usedDefs[def] || x.runArrays[def.name] || !x.mayHoldCommand(def) {
				continue
			}
			args := make([]arg, 0, 24)
			for _, v := range x.arrayVariants(def.name, def.path, int(^uint(0)>>1), def) {
				for _, rec := range v {
					args = x.expandInto(args, rec.words, rec.path, rec.off, def.name, rec, 1)
				}
			}
			start, _ := stripWrappers(argStrings(args))
			if start >= len(args) {
				continue
			}
			prog, next := matchProgram(argStrings(args[start:]))
			if prog == nil || args[start].from != def {
				continue
			}
			cmd := &Command{Role: prog.role, Program: prog.name, Engine: prog.engine, Array: def.name,
				Line: def.line, EndLine: def.endLine, OneLine: def.line == def.endLine, Branch: def.path, Text: def.src}
			x.addCommand(cmd, args[start+next:], def)
		}
	}
}

// runSite files the command a call runs, if it is a known program.
func (x *extractor) runSite(c *callRec, args []arg) {
	start, _ := stripWrappers(argStrings(args))
	if start >= len(args) {
		return
	}
	prog, next := matchProgram(argStrings(args[start:]))
	if prog == nil {
		return
	}
	cmd := &Command{Role: prog.role, Program: prog.name, Engine: prog.engine, Background: c.bg, RunLine: c.line}
	head := args[start]
	if head.from != nil && head.from.array {
		def := head.from
		x.usedDefs[def] = true
		x.runArrays[def.name] = true
		cmd.Array = def.name
		cmd.Line, cmd.EndLine, cmd.Text = def.line, def.endLine, def.src
		cmd.Branch = head.path
	} else {
		cmd.Line, cmd.EndLine, cmd.Text = c.line, c.endLine, x.src(c.call)
		cmd.Branch = c.path
	}
	cmd.OneLine = cmd.Line == cmd.EndLine
	x.addCommand(cmd, args[start+next:], head.from)
}

// mayHoldCommand is a cheap test that an array's first words can start a
// known program.
func (x *extractor) mayHoldCommand(def *assignRec) bool {
	var argv []string
	for i, w := range def.words {
		if i == 0 && unquotedVar(w) != "" {
			return true
		}
		if arraySplice(w) != "" && len(argv) == 0 {
			continue // a spliced prefix (env or wrapper words), look past it
		}
		t := x.wordText(w)
		if !t.static() {
			break
		}
		argv = append(argv, t.String())
	}
	start, _ := stripWrappers(argv)
	if start >= len(argv) {
		return false
	}
	p, _ := matchProgram(argv[start:])
	return p != nil || isPython(baseName(argv[start]))
}

// callArgs expands a command's words. A command held in an array that is
// assigned differently on different paths (if/else) yields one
// alternative per assignment; eval's arguments are re-split, as eval
// does.
func (x *extractor) callArgs(c *callRec, off int) [][]arg {
	words := c.call.Args
	if c.argv0 == "eval" {
		return [][]arg{x.evalArgs(c, off)}
	}
	for k, w := range words {
		name := arraySplice(w)
		if name == "" {
			continue
		}
		pre := make([]string, k)
		for i := range pre {
			t := x.wordText(words[i])
			if !t.static() {
				return [][]arg{x.expand(words, c.path, off, "", nil, 0)}
			}
			pre[i] = t.String()
		}
		if start, _ := stripWrappers(pre); start != k {
			break
		}
		variants := x.arrayVariants(name, c.path, off, nil)
		if len(variants) < 2 {
			break
		}
		head := x.expand(words[:k], c.path, off, "", nil, 0)
		tail := x.expand(words[k+1:], c.path, off, "", nil, 0)
		alts := make([][]arg, 0, len(variants))
		for _, v := range variants {
			args := slices.Clone(head)
			for _, rec := range v {
				args = x.expandInto(args, rec.words, merge(c.path, rec.path), rec.off, name, rec, 1)
			}
			alts = append(alts, append(args, tail...))
		}
		return alts
	}
	return [][]arg{x.expand(words, c.path, off, "", nil, 0)}
}

func (x *extractor) evalArgs(c *callRec, off int) []arg {
	var out []arg
	for _, w := range c.call.Args[1:] {
		t := x.wordText(w)
		if name := t.soleVar(); name != "" {
			if recs := x.scalarRecs(name, c.path, off); len(recs) > 0 {
				for _, rec := range recs {
					out = splitFieldsInto(out, rec, merge(c.path, rec.path), name)
				}
				continue
			}
		}
		out = splitFieldsInto(out, &assignRec{t: t, off: off, path: c.path}, c.path, "")
	}
	return out
}

func argStrings(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a.opaque {
			out[i] = "\x00" + a.s // never a program or an option
			continue
		}
		out[i] = a.s
	}
	return out
}

// isOption reports whether a word is an option (not a negative number).
func isOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	c := s[1]
	return !(c >= '0' && c <= '9') && c != '.'
}

// isDecimal reports whether s is digits and dots only (0.9, 8192): an
// option's value, never a flag.
func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// addCommand parses a command's arguments into positionals and flags and
// files it under Servers or Clients. def is the assignment that defines
// it (nil for a direct command): words from it count as written in the
// command itself.
func (x *extractor) addCommand(cmd *Command, args []arg, def *assignRec) {
	// An append made to every alternative of an array shows up once per
	// alternative; it is one flag. Flags are few per command, so the
	// duplicates are found by comparing with those kept, the path (the
	// costly part, compared as rendered) last.
	type kept struct {
		word *syntax.Word
		flag int
	}
	var seen []kept
	var buf []Flag
	// Every option word is at most one flag (more only for a JSON held in
	// a variable assigned per branch).
	nopt := 0
	for _, a := range args {
		if !a.opaque && isOption(a.s) {
			nopt++
		}
	}
	if nopt > 0 {
		cmd.Flags = make([]Flag, 0, nopt)
	}
	dup := func(w *syntax.Word, g Flag) bool {
		for _, k := range seen {
			h := cmd.Flags[k.flag]
			if k.word == w && h.Name == g.Name && h.Value == g.Value && h.Line == g.Line && h.JSON == g.JSON &&
				h.Branch.String() == g.Branch.String() {
				return true
			}
		}
		return false
	}
	viaOf := func(a arg) string {
		if a.from == def {
			return ""
		}
		return a.via
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.opaque {
			cmd.Opaque = append(cmd.Opaque, a.s)
			continue
		}
		if a.s == "--" {
			for _, r := range args[i+1:] {
				cmd.Args = append(cmd.Args, Arg{Text: r.s, Static: r.static, Line: r.line})
			}
			break
		}
		if !isOption(a.s) {
			cmd.Args = append(cmd.Args, Arg{Text: a.s, Static: a.static, Line: a.line})
			continue
		}
		fl := Flag{Name: a.s, Line: a.line, Branch: a.path, Via: viaOf(a)}
		var val *text
		valOff := a.off
		valKey := jsonKey{word: a.word}
		if a.word == nil && a.from != nil {
			valKey = jsonKey{from: a.from, s: a.s}
		}
		if name, v, ok := strings.Cut(a.s, "="); ok {
			fl.Name, fl.Value, fl.HasValue, fl.Static, fl.ValueLine = name, v, true, a.static, a.line
			if a.t != nil {
				val = a.t.after(len(name) + 1)
			}
		} else if i+1 < len(args) && !args[i+1].opaque && !isOption(args[i+1].s) {
			v := args[i+1]
			i++
			fl.Value, fl.HasValue, fl.Static, fl.ValueLine = v.s, true, v.static, v.line
			val, valOff = v.t, v.off
			valKey = jsonKey{word: v.word}
			if v.word == nil && v.from != nil {
				valKey = jsonKey{from: v.from, s: v.s}
			}
			// Options taking several numbers (capture sizes) keep them all.
			for isDecimal(v.s) && i+1 < len(args) && !args[i+1].opaque && isDecimal(args[i+1].s) {
				i++
				fl.Value += " " + args[i].s
			}
		}
		buf = x.flagJSON(buf[:0], fl, val, valKey, valOff)
		for _, g := range buf {
			if !dup(a.word, g) {
				seen = append(seen, kept{a.word, len(cmd.Flags)})
				cmd.Flags = append(cmd.Flags, g)
			}
		}
	}
	if len(cmd.Flags) == 0 {
		cmd.Flags = nil
	}
	if cmd.Role == Server {
		x.f.Servers = append(x.f.Servers, cmd)
	} else {
		x.f.Clients = append(x.f.Clients, cmd)
	}
}

// jsonKey identifies where a flag's JSON value is written, so that a
// command expanded more than once records it once: the word, or for a
// field split out of a variable's value, the assignment and the field.
type jsonKey struct {
	word *syntax.Word
	from *assignRec
	s    string
}

func (k jsonKey) none() bool { return k.word == nil && k.from == nil }

// maxDefaultHops bounds how many `${V:-$W}` defaults defaultJSON follows.
const maxDefaultHops = 3

// defaultJSON is the JSON a variable holds through its default: an
// assignment V="${V:-$W}" (the caller may set V; the recipe's own value is
// W's) yields the JSON of W's assignment that reaches it, following such
// defaults at most maxDefaultHops times.
func (x *extractor) defaultJSON(rec *assignRec, p Branch, hops int) *JSONConfig {
	if hops >= maxDefaultHops || rec.array || len(rec.words) != 1 {
		return nil
	}
	w := defaultVar(rec.words[0])
	if w == "" || w == rec.name {
		return nil
	}
	for _, r := range x.scalarRecs(w, p, rec.off) {
		if r.json != nil {
			return r.json
		}
		if j := x.defaultJSON(r, p, hops+1); j != nil {
			return j
		}
	}
	return nil
}

// defaultVar is W when a word is "${V:-$W}" or "${V-$W}" (quoted or not),
// else "".
func defaultVar(w *syntax.Word) string {
	pe, ok := soleExpansion(w.Parts)
	if !ok || pe.Exp == nil || pe.Exp.Word == nil || (pe.Exp.Op != syntax.DefaultUnsetOrNull && pe.Exp.Op != syntax.DefaultUnset) {
		return ""
	}
	ip, ok := soleExpansion(pe.Exp.Word.Parts)
	if !ok || ip.Param == nil || ip.Exp != nil || ip.Slice != nil || ip.Repl != nil || ip.Length || ip.Excl || ip.Index != nil {
		return ""
	}
	return ip.Param.Value
}

// soleExpansion is the one parameter expansion parts hold, quoted or not.
func soleExpansion(parts []syntax.WordPart) (*syntax.ParamExp, bool) {
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return nil, false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	return pe, ok
}

// flagJSON attaches JSON to a flag whose value is a JSON object, inline
// or through a variable. A variable assigned differently per case arm
// gives one flag per assignment that can reach it.
//
// The flags are appended to dst.
func (x *extractor) flagJSON(dst []Flag, fl Flag, val *text, key jsonKey, off int) []Flag {
	if val == nil {
		return append(dst, fl)
	}
	if looksLikeJSON(val) {
		j := x.jsonByWord[key]
		if j == nil || key.none() {
			j = parseJSONText(val, fl.Branch)
			if !key.none() {
				x.jsonByWord[key] = j
				x.f.JSON = append(x.f.JSON, j)
			}
		}
		if j.Flag == "" {
			j.Flag = fl.Name
		}
		fl.JSON = j
		return append(dst, fl)
	}
	name := val.soleVar()
	if name == "" {
		return append(dst, fl)
	}
	out := dst
	for _, rec := range x.scalarRecs(name, fl.Branch, off) {
		j := rec.json
		if j == nil {
			j = x.defaultJSON(rec, fl.Branch, 0)
		}
		if j == nil {
			continue
		}
		if j.Flag == "" {
			j.Flag = fl.Name
		}
		g := fl
		g.JSON = j
		g.Branch = merge(fl.Branch, rec.path)
		out = append(out, g)
	}
	if len(out) == len(dst) {
		return append(dst, fl)
	}
	return out
}
