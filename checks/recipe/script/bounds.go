package script

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A PR controls every byte of the scripts it adds, and mvdan.cc/sh parses
// them by recursive descent: 150,000 nested parentheses recurse until Go's
// stack limit, a fatal error no recover catches. So nothing here hands
// text to the shell parser without bounds:
//
//   - size: a script larger than MaxBytes is not parsed at all;
//   - parser recursion: the parser reads its input through depthReader,
//     which measures the goroutine's call depth before every small chunk
//     and ends the input when the parser has recursed too deep. The
//     measure is the stack itself, not a guess at which bytes nest, so
//     no quoting or heredoc trick can get past it;
//   - tree depth: lists the parser builds by iteration (a && b && c,
//     a | b | c, 1+1+1, elif chains) still make a tree as deep as they
//     are long, and every walk over it recurses; astDepth bounds it
//     before anything walks the tree.
//
// Every parse in this package and in checks/recipe goes through
// parseFile, ParseDocument or ParseArithmetic (a test holds them to it).

// MaxBytes is the largest script the reviewer parses. The largest shell
// file of the reviewed repository is under 90 KiB.
const MaxBytes = 1 << 20

// MaxDepth bounds how deep a script's syntax tree may nest: the levels of
// tree nodes from the file to its deepest leaf (a statement in an if in a
// function is about six). No shell file in the reviewed repository's
// history is deeper than 82; a chain of 1,000 commands joined by && is
// 2,000.
const MaxDepth = 1000

// maxParseFrames bounds the parser's recursion, in Go call frames above
// the parse's entry. One level of nesting costs the parser 4 to 22 frames
// (arithmetic in $(( )) the most, about 13 KiB of stack a level), so this
// is a few hundred levels and under 8 MiB of stack. The parser also
// recurses once per line of a run of consecutive comment lines; real
// scripts stay under 300 frames, and a comment block of 9,000 lines still
// parses.
const maxParseFrames = 10000

// parseChunk is how many bytes the parser gets between two depth checks.
// A check walks the whole stack (about 30 ns a frame), so checking every
// few hundred bytes would cost a tenth of a parse; every 2 KiB costs a
// fiftieth. Within one chunk the parser recurses at most one level per
// byte (arithmetic parentheses, about 7 KiB of stack each), so past the
// bound the stack grows by 14 MiB at worst before the next check stops it.
const parseChunk = 2048

// Limit says why a script was not reviewed even though it may be valid
// shell: it is too large, too deeply nested, or not text at all.
type Limit uint8

const (
	// NoLimit is a script the parser rejected on its own.
	NoLimit Limit = iota
	// TooLarge is a script larger than MaxBytes.
	TooLarge
	// TooDeep is a script nested deeper than the parser may recurse.
	TooDeep
	// Binary is a file with NUL bytes: not a script.
	Binary
)

func (l Limit) String() string {
	switch l {
	case TooLarge:
		return "too large"
	case TooDeep:
		return "too deeply nested"
	case Binary:
		return "binary"
	}
	return ""
}

// errTooDeep ends the parser's input when it has recursed too deep.
var errTooDeep = errors.New("nested too deeply")

// depthReader hands src to the parser parseChunk bytes at a time and ends
// it with errTooDeep once the parser's call depth passes its bound.
type depthReader struct {
	src []byte
	off int
	// pcs has room for the frames the parse may use; runtime.Callers
	// filling it means the stack is deeper than that. nil for a text of
	// one chunk, which cannot nest deep enough to matter.
	pcs []uintptr
	buf *[]uintptr // pcs's pooled buffer, if it has one
	// stop is where the parser was stopped, or -1: the end of the chunk
	// that took it past the bound, which it had read through when the
	// next check found it too deep.
	stop int
}

// newDepthReader measures the caller's depth: the parser's frames are
// counted from there.
func newDepthReader(src []byte) *depthReader {
	if len(src) <= parseChunk {
		return &depthReader{src: src, stop: -1}
	}
	buf := pcsPool.Get().(*[]uintptr)
	n := runtime.Callers(1, *buf)
	if n+maxParseFrames > len(*buf) {
		// Called from unusually deep: a buffer of its own.
		pcsPool.Put(buf)
		all := make([]uintptr, 2*len(*buf))
		for n = runtime.Callers(1, all); n == len(all); n = runtime.Callers(1, all) {
			all = make([]uintptr, 2*len(all))
		}
		return &depthReader{src: src, pcs: make([]uintptr, n+maxParseFrames), stop: -1}
	}
	return &depthReader{src: src, pcs: (*buf)[:n+maxParseFrames], buf: buf, stop: -1}
}

// pcsPool holds the depth checks' frame buffers (80 KiB each): a review
// parses hundreds of scripts.
var pcsPool = sync.Pool{New: func() any { b := make([]uintptr, maxParseFrames+1024); return &b }}

// release returns the reader's buffer to the pool once the parse is done.
func (r *depthReader) release() {
	if r.buf != nil {
		pcsPool.Put(r.buf)
		r.buf, r.pcs = nil, nil
	}
}

func (r *depthReader) Read(p []byte) (int, error) {
	if r.stop >= 0 {
		return 0, errTooDeep
	}
	if r.off >= len(r.src) {
		return 0, io.EOF
	}
	if r.pcs != nil && runtime.Callers(1, r.pcs) == len(r.pcs) {
		r.stop = max(r.off-1, 0)
		return 0, errTooDeep
	}
	n := copy(p[:min(len(p), parseChunk)], r.src[r.off:])
	r.off += n
	return n, nil
}

// limitError is the *ParseError for a script that was not parsed.
func limitError(p string, l Limit, line int, msg string) *ParseError {
	return &ParseError{Path: p, Line: max(line, 1), Column: 1, Msg: msg, Limit: l}
}

// TooLargeError is the error of a script of size bytes, over MaxBytes:
// what Parse says of one, for callers that refused to read it at all.
func TooLargeError(p string, size int64) *ParseError {
	return limitError(p, TooLarge, 1, fmt.Sprintf("the file is %s, larger than the %s the reviewer parses", sizeOf(int(size)), sizeOf(MaxBytes)))
}

// checkText rejects what is not a script the reviewer may parse: too large
// or binary.
func checkText(p string, src []byte) error {
	if len(src) > MaxBytes {
		return TooLargeError(p, int64(len(src)))
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return limitError(p, Binary, 1+bytes.Count(src[:i], []byte("\n")), "the file holds NUL bytes: it is binary, not a script")
	}
	return nil
}

// sizeOf spells a byte count for a message.
func sizeOf(n int) string {
	unit, div := "bytes", 1
	switch {
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	if n%div == 0 {
		return fmt.Sprintf("%d %s", n/div, unit)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(div), unit)
}

// parseFile parses a whole script within the bounds above.
func parseFile(p string, src []byte, opts ...syntax.ParserOption) (*syntax.File, error) {
	if err := checkText(p, src); err != nil {
		return nil, err
	}
	r := newDepthReader(src)
	defer r.release()
	file, err := syntax.NewParser(opts...).Parse(r, p)
	if err != nil {
		return nil, r.parseError(p, err)
	}
	if err := checkDepth(p, file); err != nil {
		return nil, err
	}
	return file, nil
}

// ParseScript parses a whole bash script within the bounds every parse
// has (size, binary, parser recursion, tree depth), for readers of scripts
// other than the facts extractor (the pipeline model's evaluator).
func ParseScript(p string, src []byte, keepComments bool) (*syntax.File, error) {
	return parseFile(p, src, syntax.Variant(syntax.LangBash), syntax.KeepComments(keepComments))
}

// ParseLine parses one line of shell (or a few) the way Parse parses a
// script, within the same bounds: rules that rewrite a command line use it.
func ParseLine(src string) (*syntax.File, error) {
	return parseFile("", []byte(src), syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}

// ParseDocument parses text as the inside of double quotes, within the
// parser's bounds (see VarRef).
func ParseDocument(src string) (*syntax.Word, error) {
	if err := checkText("", []byte(src)); err != nil {
		return nil, err
	}
	r := newDepthReader([]byte(src))
	defer r.release()
	w, err := syntax.NewParser().Document(r)
	if err != nil {
		return nil, r.parseError("", err)
	}
	if w != nil {
		if err := checkDepth("", w); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// ParseArithmetic parses a shell arithmetic expression within the
// parser's bounds.
func ParseArithmetic(src string) (syntax.ArithmExpr, error) {
	if err := checkText("", []byte(src)); err != nil {
		return nil, err
	}
	r := newDepthReader([]byte(src))
	defer r.release()
	e, err := syntax.NewParser().Arithmetic(r)
	if err != nil {
		return nil, r.parseError("", err)
	}
	if e != nil {
		if err := checkDepth("", e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// parseError turns the parser's error into a *ParseError, saying where
// the depth check stopped the parser when it did.
func (r *depthReader) parseError(p string, err error) error {
	if r.stop >= 0 {
		line := 1 + bytes.Count(r.src[:r.stop], []byte("\n"))
		return limitError(p, TooDeep, line, fmt.Sprintf("nested too deeply for the reviewer to parse (about line %d)", line))
	}
	return toParseError(p, err)
}

// checkDepth rejects a tree deeper than MaxDepth, without recursing past
// it: the walk does not descend below the bound.
func checkDepth(p string, n syntax.Node) error {
	depth, deepest := 0, syntax.Node(nil)
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil {
			depth--
			return true
		}
		if deepest != nil {
			return false
		}
		if depth >= MaxDepth {
			deepest = n
			return false
		}
		depth++
		return true
	})
	if deepest == nil {
		return nil
	}
	line := int(deepest.Pos().Line())
	return limitError(p, TooDeep, line, fmt.Sprintf("nested more than %d levels deep at line %d (subshells, substitutions, blocks, or a chain of && / | / arithmetic operators)", MaxDepth, line))
}

// IsLimit reports whether err is a script that was not parsed because of
// a bound (size, depth, binary), and which.
func IsLimit(err error) (Limit, bool) {
	var pe *ParseError
	if errors.As(err, &pe) && pe.Limit != NoLimit {
		return pe.Limit, true
	}
	return NoLimit, false
}
