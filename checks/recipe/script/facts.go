// Package script reads what a benchmark recipe or runner script does,
// from its mvdan.cc/sh syntax tree, without running it: the server and
// client commands with their options resolved through the arrays and
// variables they are built from, the JSON configs handed to them, the
// environment exported, strict mode, engine patches, architecture
// overrides, container images and heredocs. Every fact carries its line and
// the Branch of conditions it sits under (case arms, if branches,
// functions, loops), so a caller can ask "is this export on the path of
// that connector config" with Facts.Covers and cite the exact line.
//
// The API:
//   - Parse turns a script into Facts, or a *ParseError for a script the
//     shell parser rejects.
//   - Facts and its parts (Command, Flag, JSONConfig, Var, ...) are plain
//     values; helpers such as Facts.Exports, Facts.ExportedOn,
//     Facts.Option and Command.Flag answer the common questions.
//   - Facts.Atoms flattens facts into comparable keys (convention mining).
//   - VarRef says whether a value is just $X; ArchKeys which config keys
//     shape a model.
//
// The package knows nothing of reviews: checks/recipe loads facts per
// review, caches them by blob ID and judges them.
package script

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Facts is what one recipe script does, as far as static analysis can
// tell. Slices are in source order.
type Facts struct {
	// Path is the script's path in the repository.
	Path string
	// Engine is the inference engine the script serves with.
	Engine Engine
	// Shebang is the interpreter line without "#!" ("" when absent).
	Shebang string
	// Lines is the number of lines of the script.
	Lines int

	Sets      []SetCmd
	Vars      []Var
	Reads     []Read
	Arith     []Arith
	Comments  []Comment
	Servers   []*Command
	Clients   []*Command
	JSON      []*JSONConfig
	EnvChecks []EnvCheck
	Sources   []Source
	Patches   []Patch
	Overrides []Override
	Images    []Image
	// Git are the script's git clones, checkouts and resets.
	Git []GitOp
	// Masked are the script's functions whose trailing `set +x` hides the
	// exit status of the program run before it.
	Masked []MaskedStatus
	// Calls are invocations of the script's own functions.
	Calls []Call
	// LibCalls are invocations of the benchmark_lib.sh helpers of
	// LibFuncs (the script does not define them).
	LibCalls []Call
	// Heredocs are the bodies of the script's heredocs, in source order.
	Heredocs []Heredoc
	// Evals are the lines of eval commands and nameref declarations
	// (declare -n, local -n): code that reads variables by a name the
	// facts cannot see.
	Evals []int
	// Strays are the places where a command written over several lines
	// breaks (`--port 8000` run as a program of its own), at most
	// maxStrays.
	Strays []Stray
	// BareBraces are {NAME} groups written where ${NAME} reads a
	// variable, outside heredocs and single quotes, at most maxBareBraces.
	BareBraces []BareBrace
	// NameSubsts are command substitutions whose command is a name in
	// capitals that the script does not define as a function (`$(X)`,
	// `$( ISL * 2 )`): a variable run as a program, at most maxNameSubsts.
	NameSubsts []NameSubst

	// src is the script; facts' texts are substrings of it, so it is
	// held once rather than copied piecemeal.
	src        string
	lineStarts []int
	// condSlots is how many conditions the branch arrays hold (MemSize).
	condSlots int

	atomsOnce sync.Once
	atoms     []Atom

	// The queries by variable name (VarsNamed, Exports, ReadsOf,
	// Checked, ...) are asked once per fact by rules; scanning every fact
	// for each would cost the square of the script's size.
	indexOnce sync.Once
	index     *factIndex
	// words counts the script's identifier words (Mentions).
	wordsOnce sync.Once
	words     map[string]int32
	// asNames counts the words that stand alone, outside dashed words
	// (MentionsAsName), once, on first use.
	asNamesOnce sync.Once
	asNames     map[string]int32
}

// factIndex lists facts by name, in source order.
type factIndex struct {
	vars    map[string][]int // indexes into Vars
	reads   map[string][]int // indexes into Reads
	calls   map[string][]int // indexes into Calls
	checked map[string]bool  // names check_env_vars lists
	// firstBind is the first line that binds each name (with a value, or
	// as a loop or read variable), and whether a Bind does it there.
	firstBind map[string]firstBinding
}

type firstBinding struct {
	line int
	bind bool
}

func (f *Facts) byName() *factIndex {
	f.indexOnce.Do(func() {
		ix := &factIndex{vars: map[string][]int{}, reads: map[string][]int{}, calls: map[string][]int{},
			checked: map[string]bool{}, firstBind: map[string]firstBinding{}}
		for i, v := range f.Vars {
			ix.vars[v.Name] = append(ix.vars[v.Name], i)
			if v.Kind == Unset || !(v.HasValue || v.Kind == Bind) {
				continue
			}
			b, seen := ix.firstBind[v.Name]
			switch {
			case !seen || v.Line < b.line:
				ix.firstBind[v.Name] = firstBinding{v.Line, v.Kind == Bind}
			case v.Line == b.line && v.Kind == Bind:
				ix.firstBind[v.Name] = firstBinding{v.Line, true}
			}
		}
		for i, r := range f.Reads {
			ix.reads[r.Name] = append(ix.reads[r.Name], i)
		}
		for i, c := range f.Calls {
			ix.calls[c.Name] = append(ix.calls[c.Name], i)
		}
		for _, c := range f.EnvChecks {
			for _, v := range c.Vars {
				ix.checked[v] = true
			}
		}
		f.index = ix
	})
	return f.index
}

// ParseError is a script the shell parser rejects. Rules report it as
// SH014; every other rule skips the file.
type ParseError struct {
	Path   string
	Line   int
	Column int
	Msg    string
	// Incomplete is set when the script ends in the middle of a construct
	// (an unclosed quote, if or heredoc).
	Incomplete bool
	// Limit is set when the script was not parsed at all: too large, too
	// deeply nested or binary (see bounds.go). Msg says which.
	Limit Limit
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// IsParseError reports whether err is (or wraps) a *ParseError.
func IsParseError(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe)
}

// SetCmd is one `set` command.
type SetCmd struct {
	Line   int
	Branch Branch
	// Text is the command's source, e.g. "set -euo pipefail".
	Text string
	// Options are the options it turns on or off, in order. Names are the
	// long names of `set -o`: errexit, nounset, pipefail, xtrace, ...
	Options []SetOption
}

// SetOption is one option a set command changes.
type SetOption struct {
	Name string
	On   bool
}

// Sets reports whether the command turns the option on (on=true) or off
// (on=false); ok is false when it leaves the option alone.
func (s SetCmd) Sets(name string) (on, ok bool) {
	for i := len(s.Options) - 1; i >= 0; i-- {
		if s.Options[i].Name == name {
			return s.Options[i].On, true
		}
	}
	return false, false
}

// VarKind says how a Var fact binds its variable.
type VarKind uint8

const (
	// Assign is X=v, X+=v, A=(...), declare/local/readonly/typeset X=v.
	Assign VarKind = iota + 1
	// Export is export X=v, export X, declare -x X=v.
	Export
	// Unset is unset X.
	Unset
	// EnvPrefix is X=v cmd: set in cmd's environment only.
	EnvPrefix
	// Bind is a variable set by for, read, or an arithmetic command.
	Bind
)

func (k VarKind) String() string {
	switch k {
	case Assign:
		return "assign"
	case Export:
		return "export"
	case Unset:
		return "unset"
	case EnvPrefix:
		return "env-prefix"
	case Bind:
		return "bind"
	}
	return "var?"
}

// Var is one binding (or unbinding) of a variable.
type Var struct {
	Name string
	Kind VarKind
	// Value is the literal value when Static, else the value's text with
	// expansions kept as written ("$((2 * CONC))", "${TP}"). Arrays give
	// the source of the parenthesized list.
	Value string
	// HasValue is false for `export X`, `unset X` and naked declarations.
	HasValue bool
	Static   bool
	Append   bool // +=
	Array    bool
	Line     int
	EndLine  int
	Branch   Branch
	// Command is, for EnvPrefix, the command the binding applies to: its
	// first word after wrappers such as nohup and env, as written.
	Command string
}

// Read is one expansion of a variable.
type Read struct {
	Name   string
	Line   int
	Branch Branch
	// Op is "" for $X and ${X}; the operator for ${X<op>word} (":-",
	// "-", ":=", "=", ":?", "?", ":+", "+", "#", "%", ...); "-v" for
	// [[ -v X ]]; "declare -p" for that guard; "#len" for ${#X}; "[@]"
	// (or "[i]") for an indexed read; "!" for ${!X}; "arith" for a name
	// read inside $(( )) or (( )).
	Op string
	// Defaulted is set when the read cannot fail under `set -u`: a
	// default, alternate, assignment or error operator, or a test for
	// whether the variable is set.
	Defaulted bool
}

// Bare reports whether the read fails under `set -u` when the variable is
// unset.
func (r Read) Bare() bool { return !r.Defaulted }

// Arith is one arithmetic expression: $(( )) anywhere, (( )) and let.
type Arith struct {
	// Target is the variable assigned: X in X=$((...)) or (( X = ... )).
	// Empty when the value is used directly (a flag's argument).
	Target string
	// Expr is the expression's source without the $(( )).
	Expr string
	// Vars are the variables it reads, in order, without repeats.
	Vars []string
	// Ops are its operators in source order ("*", "/", "+", ...).
	Ops    []string
	Line   int
	Branch Branch

	divisors []string
}

// DividesBy reports whether the expression divides by something that
// involves name (`2 * CONC / TP`, `CONC / (TP * 2)`).
func (a Arith) DividesBy(name string) bool { return slices.Contains(a.divisors, name) }

// Divisors lists the variables on the right of a division.
func (a Arith) Divisors() []string { return a.divisors }

// Uses reports whether the expression reads name.
func (a Arith) Uses(name string) bool { return slices.Contains(a.Vars, name) }

// Comment is a comment, or (from CommentsMentioning) a block of
// consecutive comment lines.
type Comment struct {
	Line    int
	EndLine int
	// Text is the comment without "#" and surrounding space; a block's
	// lines are joined with "\n".
	Text string
}

// Role says whether a command is the server or the benchmark client.
type Role uint8

const (
	Server Role = iota + 1
	Client
)

func (r Role) String() string {
	switch r {
	case Server:
		return "server"
	case Client:
		return "client"
	}
	return "role?"
}

// Command is a recognized server launch or benchmark client invocation,
// with its flags resolved through the arrays and variables it is built
// from.
type Command struct {
	Role Role
	// Program names the table entry that matched: "vllm serve",
	// "sglang.launch_server", "run_benchmark_serving", ...
	Program string
	Engine  Engine
	// Line and EndLine span the statement that defines the command: the
	// launch statement itself, or the array assignment it starts in
	// (VLLM_CMD=( vllm serve ... )).
	Line    int
	EndLine int
	// OneLine is set when that defining statement sits on a single line.
	// Flags added from other lines (Via != "") do not count.
	OneLine bool
	// RunLine is where the command runs: Line for a direct command, the
	// line of "${VLLM_CMD[@]}" for an array; 0 when the array is never
	// seen running.
	RunLine int
	// Array is the array variable holding the command, "" for a direct
	// command.
	Array      string
	Background bool
	// Branch is where the command runs (for an array, merged with where it
	// is defined).
	Branch Branch
	// Args are the positional arguments after the program (the model).
	Args []Arg
	// Flags are the options, in order. A flag contributed on several paths
	// (per case arm) appears once per path.
	Flags []Flag
	// Opaque lists spliced arrays that could not be resolved
	// ("${EXTRA_ARGS[@]}" never assigned in the script).
	Opaque []string
	// Text is the source of the defining statement.
	Text string
}

// Arg is a positional argument.
type Arg struct {
	Text   string
	Static bool
	Line   int
}

// Flag is one option of a command.
type Flag struct {
	// Name is the option as written, "--max-num-seqs" (before any "=").
	Name string
	// Value is the literal value when Static, else its text with
	// expansions kept ("$MAX_NUM_SEQS"). Further numbers after a numeric
	// value (--cuda-graph-bs 1 2 4 8) are appended, space-separated.
	Value    string
	HasValue bool
	Static   bool
	// Line is the line of the option word; ValueLine that of its value.
	Line      int
	ValueLine int
	// Branch is the path the flag was added on.
	Branch Branch
	// Via is the array or variable the flag came from when it was not
	// written in the command's defining statement ("OFFLOAD_ARGS", or
	// "VLLM_CMD" for a later VLLM_CMD+=(...)).
	Via string
	// JSON is the parsed value when it is a JSON object (written inline,
	// or held in a variable: then the flag appears once per assignment of
	// that variable that can reach it).
	JSON *JSONConfig
}

// NormFlag normalizes an option name for comparison: "--max_num_seqs"
// and "--max-num-seqs" are the same option to vLLM and SGLang.
func NormFlag(name string) string {
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	return strings.ReplaceAll(name, "_", "-")
}

// Flag returns the first occurrence of the option (names are compared
// after NormFlag).
func (c *Command) Flag(name string) (Flag, bool) {
	n := NormFlag(name)
	for _, f := range c.Flags {
		if NormFlag(f.Name) == n {
			return f, true
		}
	}
	return Flag{}, false
}

// FlagsNamed returns every occurrence of the option.
func (c *Command) FlagsNamed(name string) []Flag {
	n := NormFlag(name)
	var out []Flag
	for _, f := range c.Flags {
		if NormFlag(f.Name) == n {
			out = append(out, f)
		}
	}
	return out
}

// HasFlag reports whether the option occurs on any path.
func (c *Command) HasFlag(name string) bool {
	_, ok := c.Flag(name)
	return ok
}

// EnvCheck is a `check_env_vars A B C` call.
type EnvCheck struct {
	Line   int
	Branch Branch
	Vars   []string
}

// Source is a `source file` / `. file`.
type Source struct {
	Line   int
	Branch Branch
	// Target is the sourced path as written (expansions kept).
	Target string
	// Lib is set when it sources benchmark_lib.sh.
	Lib bool
}

// Stray is a word where bash starts a new command the author meant as a
// continuation of the one above: a command whose first word is an option,
// or the word after a comment inside a continued command.
type Stray struct {
	Line int
	// Word is the word as written; Static says it holds no expansion.
	Word   string
	Static bool
	Branch Branch
	// Comment is the line of the comment that ends the command above (0
	// for a stray option).
	Comment int
}

// BareBrace is a {NAME} group of a word that no $ opens.
type BareBrace struct {
	Name   string
	Line   int
	Branch Branch
}

// maxBareBraces bounds the bare {NAME} groups kept for one script.
const maxBareBraces = 16

// NameSubst is a command substitution that runs a capitalized name.
type NameSubst struct {
	// Name is the command word; Text the substitution as written.
	Name, Text string
	Line       int
	// Args are the command's other words, as written; Arith says they
	// are all arithmetic: operators, numbers and names (`$( ISL * 2 )`).
	Args  []string
	Arith bool
	// Backquoted is the `X` form.
	Backquoted bool
	Branch     Branch
}

// maxNameSubsts bounds the NameSubsts kept for one script, and
// maxNameSubstText the length of one (a finding quotes it).
const (
	maxNameSubsts    = 16
	maxNameSubstText = 160
)

// maxStrays bounds the stray commands kept for one script.
const maxStrays = 16

// Heredoc is the body of a heredoc, as written (expansions kept).
type Heredoc struct {
	// Line and EndLine span the body.
	Line, EndLine int
	Body          string
	// Target is the file the statement writes the body to (cat > X), as
	// written; "" when it writes nowhere.
	Target string
	// StmtLine is the first line of the statement the heredoc belongs to.
	StmtLine int
	Branch   Branch
}

// LibFuncs are the helpers of benchmark_lib.sh whose calls the facts
// record: what a rule needs to know a script asked for.
var LibFuncs = map[string]bool{"setup_eval_context": true, "run_eval": true, "append_lm_eval_summary": true}

// LibCall returns the first call of the helper name, if any.
func (f *Facts) LibCall(name string) (Call, bool) {
	for _, c := range f.LibCalls {
		if c.Name == name {
			return c, true
		}
	}
	return Call{}, false
}

// Call is an invocation of a function the script defines.
type Call struct {
	Name   string
	Line   int
	Branch Branch
}

// Parse parses a recipe script. A script the shell parser rejects, or
// one the reviewer does not parse (too large, too deeply nested, binary:
// ParseError.Limit), yields a *ParseError; nothing else is an error.
func Parse(p string, src []byte) (*Facts, error) {
	file, err := parseFile(p, src, syntax.KeepComments(true), syntax.Variant(syntax.LangBash))
	if err != nil {
		return nil, err
	}
	return extractFacts(p, string(src), file)
}

// extractFacts reads the facts of a parsed script.
func extractFacts(p, src string, file *syntax.File) (*Facts, error) {
	f := &Facts{Path: p, src: src, lineStarts: lineStarts(src)}
	f.Lines = len(f.lineStarts)
	if len(src) > 0 && src[len(src)-1] == '\n' {
		f.Lines--
	}
	x := newExtractor(f, src)
	x.file(file)
	f.condSlots = x.condSlots
	if x.tooDeep > 0 {
		return nil, limitError(p, TooDeep, x.tooDeep, fmt.Sprintf("nested too deeply for the reviewer to track its conditions (around line %d)", x.tooDeep))
	}
	f.Engine = detectEngine(p, f)
	return f, nil
}

func toParseError(p string, err error) error {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Path: p, Line: int(pe.Pos.Line()), Column: int(pe.Pos.Col()), Msg: pe.Text, Incomplete: pe.Incomplete}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		msg := le.Error()
		if i := strings.Index(msg, ": "); i >= 0 && le.Filename == "" {
			msg = msg[i+2:]
		} else if le.Filename != "" {
			msg = strings.TrimPrefix(msg, le.Filename+":"+le.Pos.String()+": ")
		}
		return &ParseError{Path: p, Line: int(le.Pos.Line()), Column: int(le.Pos.Col()), Msg: msg}
	}
	return &ParseError{Path: p, Line: 1, Column: 1, Msg: err.Error()}
}

func lineStarts(src string) []int {
	starts := make([]int, 1, strings.Count(src, "\n")+1)
	for i := 0; ; {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// LineText returns line n of the script without its newline ("" when out
// of range); rules quote it in suggestions.
func (f *Facts) LineText(n int) string {
	if n < 1 || n > len(f.lineStarts) {
		return ""
	}
	start := f.lineStarts[n-1]
	end := len(f.src)
	if n < len(f.lineStarts) {
		end = f.lineStarts[n] - 1
	}
	if start > end {
		return ""
	}
	return strings.TrimSuffix(f.src[start:end], "\r")
}

// Mentions counts the places the script's text names name as a whole
// word (not inside a longer name), in code, strings, heredocs and comments
// alike: what a rule needs to know that nothing it cannot parse (a trap
// string, a single-quoted `bash -c` script) reads a variable. The words
// are counted once, on first use.
func (f *Facts) Mentions(name string) int {
	f.wordsOnce.Do(func() { f.words = countWords(f.src, false) })
	return int(f.words[name])
}

// MentionsAsName counts the places the script's text names name as a
// word that is not part of a dashed word (`--max-concurrency`, `tp-size`):
// Mentions without the option names and hyphenated prose that share a
// word with a variable. The counts are taken in one pass, on first use.
func (f *Facts) MentionsAsName(name string) int {
	f.asNamesOnce.Do(func() { f.asNames = countWords(f.src, true) })
	return int(f.asNames[name])
}

// countWords counts the name words of src; standalone leaves out the
// words a dash joins to a neighbour.
func countWords(src string, standalone bool) map[string]int32 {
	out := map[string]int32{}
	for i := 0; i < len(src); {
		if !isNameByte(src[i]) {
			i++
			continue
		}
		j := i
		for j < len(src) && isNameByte(src[j]) {
			j++
		}
		if !standalone || (i == 0 || src[i-1] != '-') && (j == len(src) || src[j] != '-') {
			out[src[i:j]]++
		}
		i = j
	}
	return out
}

// isNameByte reports whether b can be part of a shell variable name.
func isNameByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// VarsNamed returns every binding of name, in source order.
func (f *Facts) VarsNamed(name string) []Var {
	var out []Var
	for _, i := range f.byName().vars[name] {
		out = append(out, f.Vars[i])
	}
	return out
}

// Exports returns the bindings that put name in the environment: export,
// declare -x, and X=v prefixes of commands.
func (f *Facts) Exports(name string) []Var {
	var out []Var
	for _, i := range f.byName().vars[name] {
		if v := f.Vars[i]; v.Kind == Export || v.Kind == EnvPrefix {
			out = append(out, v)
		}
	}
	return out
}

// ExportedOn returns the exports of name whose path covers p (the export
// runs whenever code at p runs), following function call sites.
func (f *Facts) ExportedOn(name string, p Branch) []Var {
	var out []Var
	for _, v := range f.Exports(name) {
		if f.Covers(v.Branch, p) {
			out = append(out, v)
		}
	}
	return out
}

// ReadsOf returns every read of name.
func (f *Facts) ReadsOf(name string) []Read {
	var out []Read
	for _, i := range f.byName().reads[name] {
		out = append(out, f.Reads[i])
	}
	return out
}

// Checked reports whether a check_env_vars call lists name.
func (f *Facts) Checked(name string) bool { return f.byName().checked[name] }

// assignedBefore reports whether the script binds name before line. A
// loop header binds its variable before its own condition reads it
// (`for ((i = 1; i <= N; i++))`), so a Bind counts on its own line too.
func (f *Facts) assignedBefore(name string, line int) bool {
	first, ok := f.byName().firstBind[name]
	return ok && (first.line < line || first.bind && first.line == line)
}

// Bound reports whether the script binds name anywhere: an assignment
// with a value, a loop or read variable, a declaration that gives it one.
func (f *Facts) Bound(name string) bool {
	_, ok := f.byName().firstBind[name]
	return ok
}

// NounsetAt reports whether `set -u` is in effect at line n as far as the
// unconditional set commands before it go (at top level, or in a function
// the top level calls).
func (f *Facts) NounsetAt(n int) bool {
	on := false
	for _, s := range f.Sets {
		if s.Line >= n || !f.Covers(s.Branch, nil) {
			continue
		}
		if v, ok := s.Sets("nounset"); ok {
			on = v
		}
	}
	return on
}

// shellVars are set by bash itself; reading them bare is always safe.
var shellVars = map[string]bool{
	"HOME": true, "PATH": true, "PWD": true, "OLDPWD": true, "SHELL": true, "USER": true,
	"HOSTNAME": true, "RANDOM": true, "SECONDS": true, "LINENO": true, "BASH_SOURCE": true,
	"BASH_VERSION": true, "BASHPID": true, "FUNCNAME": true, "IFS": true, "PPID": true,
	"UID": true, "EUID": true, "PIPESTATUS": true, "OSTYPE": true, "HOSTTYPE": true,
	"SHLVL": true, "REPLY": true, "OPTARG": true, "OPTIND": true, "BASH_REMATCH": true,
	"EPOCHSECONDS": true, "EPOCHREALTIME": true, "GROUPS": true, "MACHTYPE": true,
}

// ShellVariable reports whether bash itself sets name (PWD, PIPESTATUS,
// RANDOM, ...).
func ShellVariable(name string) bool { return shellVars[name] }

// UnguardedReads returns the bare reads of variables that come from
// outside the script and are not validated: the script does not bind
// them earlier, check_env_vars does not list them, and bash does not set
// them. Under `set -u` each is an "unbound variable" abort when the
// matrix leaves it unset; `${X:-}` is the fix. Reads inside a branch that
// tests the variable for being non-empty are not reported. Variables that
// benchmark_lib.sh sets are not known here: compare with the base version
// or the siblings before blaming a read.
func (f *Facts) UnguardedReads() []Read {
	var out []Read
	for _, r := range f.Reads {
		if r.Defaulted || shellVars[r.Name] || f.Checked(r.Name) || f.assignedBefore(r.Name, r.Line) || setOn(r.Branch, r.Name) {
			continue
		}
		if r.Op == "[@]" || r.Op == "[*]" {
			// Expanding an empty array is fine under set -u since bash 4.4.
			continue
		}
		out = append(out, r)
	}
	return out
}

// setOn reports whether the path only runs when name is set and not
// empty (inside `if [ -n "${X:-}" ]`, or a case arm that cannot match "").
func setOn(p Branch, name string) bool {
	for _, c := range p {
		if c.Var != name {
			continue
		}
		if c.Op == "-v" && !c.Negated {
			return true
		}
		if pr, ok := c.pred(); ok && !pr.holds("") {
			return true
		}
	}
	return false
}

// Option returns the state of a shell option (errexit, nounset, pipefail,
// xtrace) after the script's unconditional set commands (at top level, or
// in a function the top level calls), and the line of the command that
// decided it. set is false when no such command touches it.
func (f *Facts) Option(name string) (on bool, line int, set bool) {
	for _, s := range f.Sets {
		if !f.Covers(s.Branch, nil) {
			continue
		}
		if v, ok := s.Sets(name); ok {
			on, line, set = v, s.Line, true
		}
	}
	return on, line, set
}

// StrictMode returns the first unconditional set command that enables
// errexit, nounset or pipefail (the script's strict-mode line).
func (f *Facts) StrictMode() (SetCmd, bool) {
	for _, s := range f.Sets {
		if !f.Covers(s.Branch, nil) {
			continue
		}
		for _, o := range s.Options {
			if o.On && (o.Name == "errexit" || o.Name == "nounset" || o.Name == "pipefail") {
				return s, true
			}
		}
	}
	return SetCmd{}, false
}

// CommentsMentioning returns the comment blocks (consecutive comment
// lines) that contain phrase, compared case-insensitively with runs of
// whitespace collapsed, so a phrase wrapped across two comment lines is
// still found. Each result spans the lines the phrase occupies.
func (f *Facts) CommentsMentioning(phrase string) []Comment {
	want := strings.Join(strings.Fields(strings.ToLower(phrase)), " ")
	if want == "" {
		return nil
	}
	var out []Comment
	for i := 0; i < len(f.Comments); {
		j := i + 1
		for j < len(f.Comments) && f.Comments[j].Line == f.Comments[j-1].Line+1 {
			j++
		}
		out = append(out, matchBlock(f.Comments[i:j], want)...)
		i = j
	}
	return out
}

func matchBlock(block []Comment, want string) []Comment {
	var joined strings.Builder
	starts := make([]int, len(block))
	for k, c := range block {
		if k > 0 {
			joined.WriteByte(' ')
		}
		starts[k] = joined.Len()
		joined.WriteString(strings.Join(strings.Fields(strings.ToLower(c.Text)), " "))
	}
	s := joined.String()
	lineAt := func(off int) int {
		k := 0
		for k+1 < len(starts) && starts[k+1] <= off {
			k++
		}
		return k
	}
	var out []Comment
	for from := 0; ; {
		i := strings.Index(s[from:], want)
		if i < 0 {
			return out
		}
		i += from
		a, b := lineAt(i), lineAt(i+len(want)-1)
		texts := make([]string, 0, b-a+1)
		for k := a; k <= b; k++ {
			texts = append(texts, block[k].Text)
		}
		out = append(out, Comment{Line: block[a].Line, EndLine: block[b].Line, Text: strings.Join(texts, "\n")})
		from = i + len(want)
	}
}

// Covers is Branch.Covers, with function bodies resolved through their
// call sites: an export inside setup_env() covers the code at q when some
// call of setup_env covers it.
func (f *Facts) Covers(p, q Branch) bool {
	budget := 256 // call chains fan out; a pathological script must not hang
	return f.covers(p, q, &budget)
}

func (f *Facts) covers(p, q Branch, budget *int) bool {
	fn := -1
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Kind == CondFunc {
			fn = i
			break
		}
	}
	if fn < 0 {
		return p.Covers(q)
	}
	if *budget--; *budget < 0 {
		return false
	}
	inner := p[fn+1:]
	name := p[fn].Name
	if slices.ContainsFunc(q, func(c Cond) bool { return c.Kind == CondFunc && c.Name == name }) {
		// q is inside the same function: compare within the body.
		return inner.Covers(q)
	}
	for _, i := range f.byName().calls[name] {
		if f.covers(merge(f.Calls[i].Branch, inner), q, budget) {
			return true
		}
	}
	return false
}

// ServerFlag returns the first occurrence of an option across all server
// commands.
func (f *Facts) ServerFlag(name string) (Flag, *Command, bool) {
	for _, c := range f.Servers {
		if fl, ok := c.Flag(name); ok {
			return fl, c, true
		}
	}
	return Flag{}, nil, false
}

// JSONWith returns the JSON configs that have key path k.
func (f *Facts) JSONWith(k string) []*JSONConfig {
	var out []*JSONConfig
	for _, j := range f.JSON {
		if j.Has(k) {
			out = append(out, j)
		}
	}
	return out
}

// IsAgentic reports whether a recipe belongs to the agentic-coding
// scenario (benchmarks/single_node/agentic/...).
func IsAgentic(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "agentic" {
			return true
		}
	}
	return strings.Contains(path.Base(p), "agentic")
}
