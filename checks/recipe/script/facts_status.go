package script

import "mvdan.cc/sh/v3/syntax"

// MaskedStatus is a function whose last command is `set +x` (bare, or as
// `{ set +x; } 2>/dev/null`) right after a program it runs: `set +x`
// always succeeds and a function returns the status of its last command,
// so the function reports success whatever the program did, and a caller
// that tests it (or runs under `set -e`) goes on as if it had worked.
type MaskedStatus struct {
	// Func is the function's name; FuncLine and FuncEnd its first and
	// last lines.
	Func              string
	FuncLine, FuncEnd int
	// Line is the line of the trailing `set +x`.
	Line int
	// CmdLine is the first line of the command whose status is lost and
	// Cmd its first word as written (`python3`, `"${cmd[@]}"`).
	CmdLine int
	Cmd     string
}

// statusless are builtins whose failure is no result a caller waits for:
// they print, declare or set shell state.
var statusless = map[string]bool{
	"echo": true, "printf": true, "local": true, "declare": true, "typeset": true, "export": true,
	"readonly": true, "set": true, "shift": true, "true": true, ":": true, "unset": true, "trap": true,
	"shopt": true, "return": true, "exit": true, "false": true, "sleep": true,
}

// maskedStatus records c when its body ends in a status-masking `set +x`.
func (x *extractor) maskedStatus(c *syntax.FuncDecl) {
	var body []*syntax.Stmt
	switch b := c.Body.Cmd.(type) {
	case *syntax.Block:
		body = b.Stmts
	case *syntax.Subshell:
		body = b.Stmts
	}
	if len(body) < 2 || !isSetPlusX(body[len(body)-1], 0) {
		return
	}
	prev := body[len(body)-2]
	if prev.Background || prev.Negated || prev.Coprocess {
		return
	}
	call, ok := prev.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	first, static := x.wordString(call.Args[0])
	if static && statusless[first] {
		return
	}
	x.f.Masked = append(x.f.Masked, MaskedStatus{
		Func: c.Name.Value, FuncLine: posLine(c.Pos()), FuncEnd: posLine(c.End()),
		Line: posLine(body[len(body)-1].Pos()), CmdLine: posLine(prev.Pos()), Cmd: firstLine(x.src(call.Args[0])),
	})
}

// isSetPlusX reports whether s is `set +x`, alone or in a brace group of
// its own (the `{ set +x; } 2>/dev/null` spelling that keeps the trace
// quiet). depth bounds the nesting it looks through.
func isSetPlusX(s *syntax.Stmt, depth int) bool {
	if s == nil || s.Background || s.Negated || depth > 2 {
		return false
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) != 2 || len(c.Assigns) > 0 {
			return false
		}
		return c.Args[0].Lit() == "set" && c.Args[1].Lit() == "+x"
	case *syntax.Block:
		return len(c.Stmts) == 1 && isSetPlusX(c.Stmts[0], depth+1)
	}
	return false
}
