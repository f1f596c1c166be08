// Package ghexpr evaluates GitHub Actions expressions
// (`${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}`)
// the way the runner evaluates them, over the contexts a reader of the
// workflow can know (inputs, matrix, env, runner.name). secrets, vars and
// github are Unknown, and so is anything derived from them. Nothing is
// executed; the parse is bounded in depth.
package ghexpr

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Unknown is an expression value the reader cannot know.
type Unknown struct{}

// Partial is an object only some of whose properties the reader knows:
// the others are Unknown. Whatever an expression makes of it alone
// (comparing it, its truthiness, its text) is what it makes of any object
// agreeing with it on those properties; functions given it are Unknown.
type Partial map[string]any

// Context is what an expression can read: top-level context name →
// value (maps of any, as JSON decodes them).
type Context map[string]any

// maxExprDepth bounds the nesting of an expression's parse.
const maxExprDepth = 64

type exprParser struct {
	src   string
	pos   int
	depth int
	err   error
}

// node is a compiled expression: its value over a context.
type node func(ctx Context) any

// Eval evaluates the expression inside `${{ }}` (without the braces).
func Eval(src string, ctx Context) (any, error) {
	if v, ok := evalPath(src, ctx); ok {
		return v, nil
	}
	n, err := compiled(src)
	if err != nil {
		return nil, err
	}
	return n(ctx), nil
}

// compile parses an expression into the node that evaluates it (the
// parse fails alike whatever the context: only the text decides).
func compile(src string) (node, error) {
	p := &exprParser{src: src}
	n := p.or()
	p.space()
	if p.err == nil && p.pos < len(p.src) {
		p.fail("unexpected %q", p.src[p.pos:])
	}
	if p.err != nil {
		return nil, p.err
	}
	return n, nil
}

// The compiled expressions, by text: a workflow's expressions are
// evaluated once per row. At most maxCompiledBytes of text are kept (the
// cache is emptied past them).
var (
	compiledMu    sync.Mutex
	compiledExprs = map[string]compiledExpr{}
	compiledBytes int
)

const maxCompiledBytes = 1 << 20

// CompiledStats returns the bytes, the entries and the byte budget of the
// process-wide cache of compiled expressions, for the App's cache metrics.
func CompiledStats() (bytes int64, entries int, budget int64) {
	compiledMu.Lock()
	defer compiledMu.Unlock()
	return int64(compiledBytes), len(compiledExprs), maxCompiledBytes
}

type compiledExpr struct {
	n   node
	err error
}

func compiled(src string) (node, error) {
	compiledMu.Lock()
	c, ok := compiledExprs[src]
	compiledMu.Unlock()
	if ok {
		return c.n, c.err
	}
	n, err := compile(src)
	size := 32 * (len(src) + 4) // the text and its nodes
	if size > maxCompiledBytes {
		return n, err // larger than the whole cache: not kept
	}
	compiledMu.Lock()
	if _, dup := compiledExprs[src]; !dup {
		if compiledBytes+size > maxCompiledBytes {
			compiledExprs, compiledBytes = map[string]compiledExpr{}, 0
		}
		compiledExprs[src] = compiledExpr{n, err}
		compiledBytes += size
	}
	compiledMu.Unlock()
	return n, err
}

func constant(v any) node { return func(Context) any { return v } }

var unknownNode = constant(Unknown{})

func (p *exprParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("expression %q: %s", p.src, fmt.Sprintf(format, args...))
	}
}

func (p *exprParser) space() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *exprParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *exprParser) enter() bool {
	p.depth++
	if p.depth > maxExprDepth {
		p.fail("nested too deeply")
		return false
	}
	return true
}

func (p *exprParser) leave() { p.depth-- }

func (p *exprParser) or() node {
	if !p.enter() {
		return unknownNode
	}
	defer p.leave()
	v := p.and()
	for p.err == nil && p.eat("||") {
		l, r := v, p.and()
		v = func(ctx Context) any {
			lv, rv := l(ctx), r(ctx)
			// An unknown left side may or may not be truthy: unknown.
			if t, ok := truthy(lv); ok && !t {
				return rv
			}
			return lv
		}
	}
	return v
}

func (p *exprParser) and() node {
	v := p.eq()
	for p.err == nil && p.eat("&&") {
		l, r := v, p.eq()
		v = func(ctx Context) any {
			lv, rv := l(ctx), r(ctx)
			if t, ok := truthy(lv); ok && t {
				return rv
			}
			return lv
		}
	}
	return v
}

// binary is the node comparing l's and r's values.
func binary(l, r node, ok func(int) bool) node {
	return func(ctx Context) any { return compare(l(ctx), r(ctx), ok) }
}

func (p *exprParser) eq() node {
	v := p.cmp()
	for p.err == nil {
		switch {
		case p.eat("=="):
			v = binary(v, p.cmp(), func(c int) bool { return c == 0 })
		case p.eat("!="):
			v = binary(v, p.cmp(), func(c int) bool { return c != 0 })
		default:
			return v
		}
	}
	return v
}

func (p *exprParser) cmp() node {
	v := p.unary()
	for p.err == nil {
		switch {
		case p.eat("<="):
			v = binary(v, p.unary(), func(c int) bool { return c <= 0 })
		case p.eat(">="):
			v = binary(v, p.unary(), func(c int) bool { return c >= 0 })
		case p.eat("<"):
			v = binary(v, p.unary(), func(c int) bool { return c < 0 })
		case p.eat(">"):
			v = binary(v, p.unary(), func(c int) bool { return c > 0 })
		default:
			return v
		}
	}
	return v
}

func (p *exprParser) unary() node {
	if p.eat("!") {
		if !p.enter() {
			return unknownNode
		}
		defer p.leave()
		x := p.unary()
		return func(ctx Context) any {
			v := x(ctx)
			if IsUnknown(v) {
				return Unknown{}
			}
			t, _ := truthy(v)
			return !t
		}
	}
	return p.postfix(p.primary())
}

func (p *exprParser) primary() node {
	p.space()
	if p.pos >= len(p.src) {
		p.fail("unexpected end")
		return unknownNode
	}
	c := p.src[p.pos]
	switch {
	case c == '(':
		p.pos++
		v := p.or()
		if !p.eat(")") {
			p.fail("missing )")
		}
		return v
	case c == '\'':
		p.pos++
		var b strings.Builder
		for p.pos < len(p.src) {
			if p.src[p.pos] == '\'' {
				if p.pos+1 < len(p.src) && p.src[p.pos+1] == '\'' {
					b.WriteByte('\'')
					p.pos += 2
					continue
				}
				p.pos++
				return constant(b.String())
			}
			b.WriteByte(p.src[p.pos])
			p.pos++
		}
		p.fail("unterminated string")
		return unknownNode
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		p.pos++
		for p.pos < len(p.src) && strings.IndexByte("0123456789.eExXabcdefABCDEF+-", p.src[p.pos]) >= 0 {
			if (p.src[p.pos] == '+' || p.src[p.pos] == '-') && !strings.ContainsAny(p.src[p.pos-1:p.pos], "eE") {
				break
			}
			p.pos++
		}
		f, err := strconv.ParseFloat(p.src[start:p.pos], 64)
		if err != nil {
			p.fail("bad number %q", p.src[start:p.pos])
			return unknownNode
		}
		return constant(f)
	case isIdentStart(c):
		name := p.ident()
		switch name {
		case "true":
			return constant(true)
		case "false":
			return constant(false)
		case "null":
			return constant(nil)
		}
		if p.eat("(") {
			var args []node
			if !p.eat(")") {
				for {
					args = append(args, p.or())
					if p.err != nil {
						return unknownNode
					}
					if p.eat(")") {
						break
					}
					if !p.eat(",") {
						p.fail("missing , or )")
						return unknownNode
					}
				}
			}
			fn := strings.ToLower(name)
			return func(ctx Context) any {
				vals := make([]any, len(args))
				for i, a := range args {
					vals[i] = a(ctx)
				}
				return callFunc(fn, vals)
			}
		}
		return func(ctx Context) any {
			v, ok := ctx[name]
			if !ok {
				return Unknown{}
			}
			return v
		}
	}
	p.fail("unexpected %q", string(c))
	return unknownNode
}

// evalPath evaluates the commonest expression, a context's property path
// (inputs.exp-name, matrix.config.tp), as the parser would, without
// parsing; false for any other expression.
func evalPath(src string, ctx Context) (any, bool) {
	start, end := 0, len(src)
	for start < end && strings.IndexByte(" \t\r\n", src[start]) >= 0 {
		start++
	}
	for end > start && strings.IndexByte(" \t\r\n", src[end-1]) >= 0 {
		end--
	}
	var v any
	first := true
	for i := start; ; {
		j := i
		if j >= end || !isIdentStart(src[j]) {
			return nil, false
		}
		for j < end && src[j] != '.' {
			if c := src[j]; !isIdentStart(c) && !(c >= '0' && c <= '9') && c != '-' {
				return nil, false
			}
			j++
		}
		name := src[i:j]
		if first {
			switch name {
			case "true", "false", "null":
				return nil, false
			}
			x, ok := ctx[name]
			if !ok {
				x = Unknown{}
			}
			v, first = x, false
		} else {
			v = property(v, name)
		}
		if j == end {
			return v, true
		}
		i = j + 1
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ident reads a name; property names may hold dashes (inputs.exp-name).
func (p *exprParser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if isIdentStart(c) || c >= '0' && c <= '9' || c == '-' && p.pos > start {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *exprParser) postfix(v node) node {
	for p.err == nil {
		p.space()
		switch {
		case p.pos < len(p.src) && p.src[p.pos] == '.' && p.pos+1 < len(p.src) && isIdentStart(p.src[p.pos+1]):
			p.pos++
			x, name := v, p.ident()
			v = func(ctx Context) any { return property(x(ctx), name) }
		case p.pos < len(p.src) && p.src[p.pos] == '[':
			p.pos++
			k := p.or()
			if !p.eat("]") {
				p.fail("missing ]")
				return unknownNode
			}
			x := v
			v = func(ctx Context) any { return index(x(ctx), k(ctx)) }
		default:
			return v
		}
	}
	return v
}

func property(v any, name string) any {
	switch m := v.(type) {
	case map[string]any:
		if x, ok := m[name]; ok {
			return x
		}
		return nil
	case Partial:
		if x, ok := m[name]; ok {
			return x
		}
		return Unknown{}
	case Unknown:
		return Unknown{}
	}
	return nil
}

func index(v, k any) any {
	if IsUnknown(v) || IsUnknown(k) {
		return Unknown{}
	}
	switch c := v.(type) {
	case map[string]any:
		if s, ok := k.(string); ok {
			return property(c, s)
		}
	case Partial:
		if s, ok := k.(string); ok {
			return property(c, s)
		}
	case []any:
		if f := ToNumber(k); f >= 0 && int(f) < len(c) && f == float64(int(f)) {
			return c[int(f)]
		}
	}
	return nil
}

func IsUnknown(v any) bool {
	_, ok := v.(Unknown)
	return ok
}

// truthy is the expression language's truthiness; ok is false for an
// unknown value.
func truthy(v any) (t, ok bool) {
	switch x := v.(type) {
	case int:
		return x != 0, true
	case Unknown:
		return false, false
	case nil:
		return false, true
	case bool:
		return x, true
	case float64:
		return x != 0 && !math.IsNaN(x), true
	case string:
		return x != "", true
	}
	return true, true
}

// compare compares loosely as the runner does: equal types directly
// (strings case-insensitively), otherwise as numbers.
func compare(a, b any, ok func(int) bool) any {
	if IsUnknown(a) || IsUnknown(b) {
		return Unknown{}
	}
	if sa, isA := a.(string); isA {
		if sb, isB := b.(string); isB {
			return ok(strings.Compare(strings.ToLower(sa), strings.ToLower(sb)))
		}
	}
	if ba, isA := a.(bool); isA {
		if bb, isB := b.(bool); isB {
			return ok(boolInt(ba) - boolInt(bb))
		}
	}
	na, nb := ToNumber(a), ToNumber(b)
	if math.IsNaN(na) || math.IsNaN(nb) {
		return false
	}
	switch {
	case na < nb:
		return ok(-1)
	case na > nb:
		return ok(1)
	}
	return ok(0)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ToNumber(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case nil:
		return 0
	case bool:
		return float64(boolInt(x))
	case float64:
		return x
	case string:
		if strings.TrimSpace(x) == "" {
			return 0
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	return math.NaN()
}

func callFunc(name string, args []any) any {
	for _, a := range args {
		if _, partial := a.(Partial); partial || IsUnknown(a) {
			return Unknown{}
		}
	}
	switch name {
	case "tojson":
		if len(args) == 1 {
			b, err := json.MarshalIndent(args[0], "", "  ")
			if err != nil {
				return Unknown{}
			}
			return string(b)
		}
	case "fromjson":
		if len(args) == 1 {
			s, ok := args[0].(string)
			if !ok {
				return Unknown{}
			}
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				return Unknown{}
			}
			return v
		}
	case "join":
		if len(args) == 1 || len(args) == 2 {
			sep := ","
			if len(args) == 2 {
				sep = String(args[1])
			}
			list, ok := args[0].([]any)
			if !ok {
				return String(args[0])
			}
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = String(x)
			}
			return strings.Join(parts, sep)
		}
	case "contains":
		if len(args) == 2 {
			if list, ok := args[0].([]any); ok {
				for _, x := range list {
					if c, _ := compare(x, args[1], func(c int) bool { return c == 0 }).(bool); c {
						return true
					}
				}
				return false
			}
			return strings.Contains(strings.ToLower(String(args[0])), strings.ToLower(String(args[1])))
		}
	case "startswith", "endswith":
		if len(args) == 2 {
			a, b := strings.ToLower(String(args[0])), strings.ToLower(String(args[1]))
			if name == "startswith" {
				return strings.HasPrefix(a, b)
			}
			return strings.HasSuffix(a, b)
		}
	case "format":
		if len(args) >= 1 {
			out := String(args[0])
			for i, a := range args[1:] {
				out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", String(a))
			}
			return out
		}
	}
	return Unknown{}
}

// String converts a value to the string the runner substitutes.
func String(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case []any:
		return "Array"
	case map[string]any, Partial:
		return "Object"
	}
	return ""
}

// Interpolate substitutes every `${{ expr }}` of s; ok is false when one of
// them is unknown (or does not parse).
func Interpolate(s string, ctx Context) (string, bool) {
	i := strings.Index(s, "${{")
	if i < 0 {
		return s, true
	}
	if j := strings.Index(s[i:], "}}"); i == 0 && j == len(s)-2 && !strings.Contains(s[3:j], "${{") {
		// One expression, the whole text.
		v, err := Eval(s[3:j], ctx)
		if err != nil || IsUnknown(v) {
			return "", false
		}
		return String(v), true
	}
	var b strings.Builder
	known := true
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), known
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			b.WriteString(s)
			return b.String(), known
		}
		b.WriteString(s[:i])
		v, err := Eval(s[i+3:i+j], ctx)
		if err != nil || IsUnknown(v) {
			known = false
		} else {
			b.WriteString(String(v))
		}
		s = s[i+j+2:]
	}
}
