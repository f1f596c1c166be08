package script

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A word's value as the shell would see it, minus what only the run can
// know: literal text is unquoted and unescaped; expansions ($X, ${X:-d},
// $(...), $((...))) are kept as their source text and marked, so callers
// can show them, substitute placeholders (JSON) or look the variable up.

type piece struct {
	s    string // literal text, or the source of an expansion
	exp  bool
	name string // the variable of a plain $X / ${X} expansion
	line int
}

// quoting records which quoting styles a value was written in.
type quoting uint8

const (
	qUnquoted quoting = 1 << iota
	qDouble
	qSingle
	qHeredoc
	qEscaped // \" inside double quotes
)

type text struct {
	pieces []piece
	q      quoting
	// str caches String() of a text of several pieces (strOK): a word's
	// text is asked for its string by several facts.
	str   string
	strOK bool
	// first holds the first piece, so that a one-piece text (most words)
	// is one allocation.
	first [1]piece
}

func newText(q quoting) *text {
	t := &text{q: q}
	t.pieces = t.first[:0]
	return t
}

func (t *text) String() string {
	switch len(t.pieces) {
	case 0:
		return ""
	case 1:
		return t.pieces[0].s
	}
	if t.strOK {
		return t.str
	}
	n := 0
	for _, p := range t.pieces {
		n += len(p.s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range t.pieces {
		b.WriteString(p.s)
	}
	t.str, t.strOK = b.String(), true
	return t.str
}

// static reports whether the value has no expansions.
func (t *text) static() bool {
	for _, p := range t.pieces {
		if p.exp {
			return false
		}
	}
	return true
}

// soleVar returns the variable when the whole value is one plain
// expansion ("$X", ${X}).
func (t *text) soleVar() string {
	var name string
	for _, p := range t.pieces {
		switch {
		case p.exp && p.name != "" && name == "":
			name = p.name
		case !p.exp && p.s == "":
		default:
			return ""
		}
	}
	return name
}

// after returns the value from byte n of String() on.
func (t *text) after(n int) *text {
	out := newText(t.q)
	for _, p := range t.pieces {
		if n >= len(p.s) {
			n -= len(p.s)
			continue
		}
		if n > 0 {
			if p.exp {
				// Cutting into an expansion leaves a fragment of source.
				p = piece{s: p.s[n:], line: p.line}
			} else {
				p.s = p.s[n:]
			}
			n = 0
		}
		out.pieces = append(out.pieces, p)
	}
	return out
}

func (t *text) line() int {
	if len(t.pieces) == 0 {
		return 0
	}
	return t.pieces[0].line
}

type unescaper func(string) string

// addLit appends literal text that starts at line, one piece per source
// line so that positions inside multi-line values stay known.
func (t *text) addLit(s string, line int, unesc unescaper) {
	t.strOK = false
	if n := strings.Count(s, "\n"); n > 0 {
		t.pieces = slices.Grow(t.pieces, n+1)
	}
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			if s != "" {
				t.pieces = append(t.pieces, piece{s: unesc(s), line: line})
			}
			return
		}
		seg := s[:i+1]
		t.pieces = append(t.pieces, piece{s: unesc(seg), line: line})
		s = s[i+1:]
		line++
	}
}

func (t *text) addExp(src, name string, line int) {
	t.strOK = false
	t.pieces = append(t.pieces, piece{s: src, exp: true, name: name, line: line})
}

func (t *text) append(o *text) {
	t.strOK = false
	t.pieces = append(t.pieces, o.pieces...)
	t.q |= o.q
}

func noUnescape(s string) string { return s }

// unescapeWith drops the backslash before any byte in special (every byte
// when special is ""), and joins lines ending in an unescaped backslash.
func unescapeWith(s, special string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++ // line continuation
		case special == "" || strings.IndexByte(special, n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func unescapeUnquoted(s string) string { return unescapeWith(s, "") }
func unescapeDouble(s string) string   { return unescapeWith(s, "$`\"\\") }
func unescapeHeredoc(s string) string  { return unescapeWith(s, "$`\\") }

// unescapeANSI handles the escapes of $'...' that recipes use.
func unescapeANSI(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"', '?':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// wordText reconstructs a word's value. Words are looked at several
// times (facts, command resolution, conditions), so the result is kept;
// callers must not modify it.
func (x *extractor) wordText(w *syntax.Word) *text {
	if w == nil {
		return newText(0)
	}
	if t, ok := x.texts[w]; ok {
		return t
	}
	t := x.buildText(w)
	x.texts[w] = t
	return t
}

func (x *extractor) buildText(w *syntax.Word) *text {
	t := newText(0)
	for _, part := range w.Parts {
		x.partText(t, part, false)
	}
	return t
}

// wordString is wordText(w).String() and .static() without building the
// text: the facts of most commands need only their words' values. A
// word of one part costs no allocation.
func (x *extractor) wordString(w *syntax.Word) (string, bool) {
	var buf [8]string
	parts, static := x.partStrings(buf[:0], w.Parts, false)
	switch len(parts) {
	case 0:
		return "", static
	case 1:
		return parts[0], static
	}
	return strings.Join(parts, ""), static
}

// partStrings appends the strings partText would make pieces of, and
// reports whether they are all literal.
func (x *extractor) partStrings(dst []string, parts []syntax.WordPart, dq bool) ([]string, bool) {
	static := true
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if dq {
				dst = append(dst, unescapeDouble(p.Value))
			} else {
				dst = append(dst, unescapeUnquoted(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				dst = append(dst, unescapeANSI(p.Value))
			} else {
				dst = append(dst, p.Value)
			}
		case *syntax.DblQuoted:
			var st bool
			dst, st = x.partStrings(dst, p.Parts, true)
			static = static && st
		case *syntax.CmdSubst:
			if r := catHeredoc(p); r != nil {
				ht := x.heredocText(r)
				dst = append(dst, ht.String())
				static = static && ht.static()
				continue
			}
			dst = append(dst, x.src(p))
			static = false
		default:
			dst = append(dst, x.src(part))
			static = false
		}
	}
	return dst, static
}

func (x *extractor) partText(t *text, part syntax.WordPart, dq bool) {
	line := posLine(part.Pos())
	switch p := part.(type) {
	case *syntax.Lit:
		if dq {
			if strings.Contains(p.Value, `\"`) {
				t.q |= qEscaped
			}
			t.addLit(p.Value, line, unescapeDouble)
			return
		}
		if p.Value != "" {
			t.q |= qUnquoted
		}
		t.addLit(p.Value, line, unescapeUnquoted)
	case *syntax.SglQuoted:
		t.q |= qSingle
		if p.Dollar {
			t.addLit(p.Value, line, unescapeANSI)
		} else {
			t.addLit(p.Value, line, noUnescape)
		}
	case *syntax.DblQuoted:
		t.q |= qDouble
		for _, pp := range p.Parts {
			x.partText(t, pp, true)
		}
	case *syntax.CmdSubst:
		if r := catHeredoc(p); r != nil {
			t.append(x.heredocText(r))
			return
		}
		t.addExp(x.src(p), "", line)
	case *syntax.ParamExp:
		t.addExp(x.src(p), plainParam(p), line)
	default:
		t.addExp(x.src(part), "", line)
	}
}

// plainParam returns the name of a $X / ${X} expansion ("" for anything
// with an operator, index or length).
func plainParam(p *syntax.ParamExp) string {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Exp != nil || p.Names != 0 || p.NestedParam != nil {
		return ""
	}
	if !syntax.ValidName(p.Param.Value) {
		return ""
	}
	return p.Param.Value
}

// arraySplice returns the array of a "${A[@]}" / ${A[*]} word.
func arraySplice(w *syntax.Word) string {
	pe := soleParamExp(w)
	if pe == nil || pe.Length || pe.Excl || pe.Slice != nil || pe.Repl != nil {
		return ""
	}
	idx, ok := pe.Index.(*syntax.Word)
	if !ok {
		return ""
	}
	if l := idx.Lit(); l != "@" && l != "*" {
		return ""
	}
	if pe.Exp != nil && pe.Exp.Op != syntax.DefaultUnset && pe.Exp.Op != syntax.DefaultUnsetOrNull {
		return ""
	}
	return pe.Param.Value
}

// unquotedVar returns X for a word that is exactly $X or ${X} (unquoted,
// so the shell splits its value into words).
func unquotedVar(w *syntax.Word) string {
	if w == nil || len(w.Parts) != 1 {
		return ""
	}
	pe, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok {
		return ""
	}
	return plainParam(pe)
}

// catHeredoc returns the heredoc of a `$(cat <<EOF ... EOF)` substitution.
func catHeredoc(cs *syntax.CmdSubst) *syntax.Redirect {
	if len(cs.Stmts) != 1 {
		return nil
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "cat" {
		return nil
	}
	if len(call.Args) > 2 || (len(call.Args) == 2 && call.Args[1].Lit() != "-") {
		return nil
	}
	return stmtHeredoc(st)
}

// stmtHeredoc returns a statement's heredoc redirect, if any.
func stmtHeredoc(st *syntax.Stmt) *syntax.Redirect {
	for _, r := range st.Redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			return r
		}
	}
	return nil
}

// heredocText reconstructs a heredoc body. A quoted delimiter (<<'EOF')
// keeps the body verbatim. A heredoc is read by several facts (its
// statement, the substitution around it), so the result is kept; callers
// must not modify it.
func (x *extractor) heredocText(r *syntax.Redirect) *text {
	if t, ok := x.heredocs[r]; ok {
		return t
	}
	t := x.buildHeredoc(r)
	if x.heredocs == nil {
		x.heredocs = map[*syntax.Redirect]*text{}
	}
	x.heredocs[r] = t
	return t
}

func (x *extractor) buildHeredoc(r *syntax.Redirect) *text {
	t := newText(qHeredoc)
	if r.Hdoc == nil {
		return t
	}
	quoted := heredocQuoted(r.Word)
	for _, part := range r.Hdoc.Parts {
		line := posLine(part.Pos())
		switch p := part.(type) {
		case *syntax.Lit:
			if quoted {
				t.addLit(p.Value, line, noUnescape)
			} else {
				t.addLit(p.Value, line, unescapeHeredoc)
			}
		case *syntax.ParamExp:
			t.addExp(x.src(p), plainParam(p), line)
		default:
			t.addExp(x.src(part), "", line)
		}
	}
	return t
}

func heredocQuoted(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				return true
			}
		}
	}
	return false
}

func posLine(p syntax.Pos) int { return int(p.Line()) }
