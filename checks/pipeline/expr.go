package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// GitHub Actions expressions (`${{ inputs.scenario-type == 'agentic-coding'
// && 'agentic/' || 'fixed_seq_len/' }}`), evaluated the way the runner
// evaluates them, over the contexts the bot can know (inputs, matrix, env,
// runner.name). secrets, vars and github are unknown, and so is anything
// derived from them.

// unknownValue is an expression value the bot cannot know.
type unknownValue struct{}

// exprContext is what an expression can read: top-level context name →
// value (maps of any, as JSON decodes them).
type exprContext map[string]any

// maxExprDepth bounds the nesting of an expression's parse.
const maxExprDepth = 64

type exprParser struct {
	src   string
	pos   int
	ctx   exprContext
	depth int
	err   error
}

// evalExpr evaluates the expression inside `${{ }}`.
func evalExpr(src string, ctx exprContext) (any, error) {
	p := &exprParser{src: src, ctx: ctx}
	v := p.or()
	p.space()
	if p.err == nil && p.pos < len(p.src) {
		p.fail("unexpected %q", p.src[p.pos:])
	}
	if p.err != nil {
		return nil, p.err
	}
	return v, nil
}

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

func (p *exprParser) or() any {
	if !p.enter() {
		return unknownValue{}
	}
	defer p.leave()
	v := p.and()
	for p.err == nil && p.eat("||") {
		r := p.and()
		// An unknown left side may or may not be truthy: unknown.
		if t, ok := truthy(v); ok && !t {
			v = r
		}
	}
	return v
}

func (p *exprParser) and() any {
	v := p.eq()
	for p.err == nil && p.eat("&&") {
		r := p.eq()
		if t, ok := truthy(v); ok && t {
			v = r
		}
	}
	return v
}

func (p *exprParser) eq() any {
	v := p.cmp()
	for p.err == nil {
		switch {
		case p.eat("=="):
			r := p.cmp()
			v = compare(v, r, func(c int) bool { return c == 0 })
		case p.eat("!="):
			r := p.cmp()
			v = compare(v, r, func(c int) bool { return c != 0 })
		default:
			return v
		}
	}
	return v
}

func (p *exprParser) cmp() any {
	v := p.unary()
	for p.err == nil {
		switch {
		case p.eat("<="):
			v = compare(v, p.unary(), func(c int) bool { return c <= 0 })
		case p.eat(">="):
			v = compare(v, p.unary(), func(c int) bool { return c >= 0 })
		case p.eat("<"):
			v = compare(v, p.unary(), func(c int) bool { return c < 0 })
		case p.eat(">"):
			v = compare(v, p.unary(), func(c int) bool { return c > 0 })
		default:
			return v
		}
	}
	return v
}

func (p *exprParser) unary() any {
	if p.eat("!") {
		if !p.enter() {
			return unknownValue{}
		}
		defer p.leave()
		v := p.unary()
		if isUnknown(v) {
			return unknownValue{}
		}
		t, _ := truthy(v)
		return !t
	}
	return p.postfix(p.primary())
}

func (p *exprParser) primary() any {
	p.space()
	if p.pos >= len(p.src) {
		p.fail("unexpected end")
		return unknownValue{}
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
				return b.String()
			}
			b.WriteByte(p.src[p.pos])
			p.pos++
		}
		p.fail("unterminated string")
		return unknownValue{}
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
			return unknownValue{}
		}
		return f
	case isIdentStart(c):
		name := p.ident()
		switch name {
		case "true":
			return true
		case "false":
			return false
		case "null":
			return nil
		}
		if p.eat("(") {
			var args []any
			if !p.eat(")") {
				for {
					args = append(args, p.or())
					if p.err != nil {
						return unknownValue{}
					}
					if p.eat(")") {
						break
					}
					if !p.eat(",") {
						p.fail("missing , or )")
						return unknownValue{}
					}
				}
			}
			return callFunc(strings.ToLower(name), args)
		}
		v, ok := p.ctx[name]
		if !ok {
			return unknownValue{}
		}
		return v
	}
	p.fail("unexpected %q", string(c))
	return unknownValue{}
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

func (p *exprParser) postfix(v any) any {
	for p.err == nil {
		p.space()
		switch {
		case p.pos < len(p.src) && p.src[p.pos] == '.' && p.pos+1 < len(p.src) && isIdentStart(p.src[p.pos+1]):
			p.pos++
			v = property(v, p.ident())
		case p.pos < len(p.src) && p.src[p.pos] == '[':
			p.pos++
			k := p.or()
			if !p.eat("]") {
				p.fail("missing ]")
				return unknownValue{}
			}
			v = index(v, k)
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
	case unknownValue:
		return unknownValue{}
	}
	return nil
}

func index(v, k any) any {
	if isUnknown(v) || isUnknown(k) {
		return unknownValue{}
	}
	switch c := v.(type) {
	case map[string]any:
		if s, ok := k.(string); ok {
			return property(c, s)
		}
	case []any:
		if f := toNumber(k); f >= 0 && int(f) < len(c) && f == float64(int(f)) {
			return c[int(f)]
		}
	}
	return nil
}

func isUnknown(v any) bool {
	_, ok := v.(unknownValue)
	return ok
}

// truthy is the expression language's truthiness; ok is false for an
// unknown value.
func truthy(v any) (t, ok bool) {
	switch x := v.(type) {
	case int:
		return x != 0, true
	case unknownValue:
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
	if isUnknown(a) || isUnknown(b) {
		return unknownValue{}
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
	na, nb := toNumber(a), toNumber(b)
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

func toNumber(v any) float64 {
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
		if isUnknown(a) {
			return unknownValue{}
		}
	}
	switch name {
	case "tojson":
		if len(args) == 1 {
			b, err := json.MarshalIndent(args[0], "", "  ")
			if err != nil {
				return unknownValue{}
			}
			return string(b)
		}
	case "fromjson":
		if len(args) == 1 {
			s, ok := args[0].(string)
			if !ok {
				return unknownValue{}
			}
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				return unknownValue{}
			}
			return v
		}
	case "join":
		if len(args) == 1 || len(args) == 2 {
			sep := ","
			if len(args) == 2 {
				sep = exprString(args[1])
			}
			list, ok := args[0].([]any)
			if !ok {
				return exprString(args[0])
			}
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = exprString(x)
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
			return strings.Contains(strings.ToLower(exprString(args[0])), strings.ToLower(exprString(args[1])))
		}
	case "startswith", "endswith":
		if len(args) == 2 {
			a, b := strings.ToLower(exprString(args[0])), strings.ToLower(exprString(args[1]))
			if name == "startswith" {
				return strings.HasPrefix(a, b)
			}
			return strings.HasSuffix(a, b)
		}
	case "format":
		if len(args) >= 1 {
			out := exprString(args[0])
			for i, a := range args[1:] {
				out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", exprString(a))
			}
			return out
		}
	}
	return unknownValue{}
}

// exprString converts a value to the string the runner substitutes.
func exprString(v any) string {
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
	case map[string]any:
		return "Object"
	}
	return ""
}

// interpolate substitutes every `${{ expr }}` of s; ok is false when one of
// them is unknown (or does not parse).
func interpolate(s string, ctx exprContext) (string, bool) {
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
		v, err := evalExpr(s[i+3:i+j], ctx)
		if err != nil || isUnknown(v) {
			known = false
		} else {
			b.WriteString(exprString(v))
		}
		s = s[i+j+2:]
	}
}
