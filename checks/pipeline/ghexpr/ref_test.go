package ghexpr

import (
	"fmt"
	"strconv"
	"strings"
)

type refParser struct {
	src   string
	pos   int
	ctx   Context
	depth int
	err   error
}

// refEval is Eval as it was, parsing and evaluating at once: what the
// compiled expressions must agree with.
func refEval(src string, ctx Context) (any, error) {
	p := &refParser{src: src, ctx: ctx}
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

func (p *refParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("expression %q: %s", p.src, fmt.Sprintf(format, args...))
	}
}

func (p *refParser) space() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *refParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *refParser) enter() bool {
	p.depth++
	if p.depth > maxExprDepth {
		p.fail("nested too deeply")
		return false
	}
	return true
}

func (p *refParser) leave() { p.depth-- }

func (p *refParser) or() any {
	if !p.enter() {
		return Unknown{}
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

func (p *refParser) and() any {
	v := p.eq()
	for p.err == nil && p.eat("&&") {
		r := p.eq()
		if t, ok := truthy(v); ok && t {
			v = r
		}
	}
	return v
}

func (p *refParser) eq() any {
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

func (p *refParser) cmp() any {
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

func (p *refParser) unary() any {
	if p.eat("!") {
		if !p.enter() {
			return Unknown{}
		}
		defer p.leave()
		v := p.unary()
		if IsUnknown(v) {
			return Unknown{}
		}
		t, _ := truthy(v)
		return !t
	}
	return p.postfix(p.primary())
}

func (p *refParser) primary() any {
	p.space()
	if p.pos >= len(p.src) {
		p.fail("unexpected end")
		return Unknown{}
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
		return Unknown{}
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
			return Unknown{}
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
						return Unknown{}
					}
					if p.eat(")") {
						break
					}
					if !p.eat(",") {
						p.fail("missing , or )")
						return Unknown{}
					}
				}
			}
			return callFunc(strings.ToLower(name), args)
		}
		v, ok := p.ctx[name]
		if !ok {
			return Unknown{}
		}
		return v
	}
	p.fail("unexpected %q", string(c))
	return Unknown{}
}

func (p *refParser) ident() string {
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

func (p *refParser) postfix(v any) any {
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
				return Unknown{}
			}
			v = index(v, k)
		default:
			return v
		}
	}
	return v
}
