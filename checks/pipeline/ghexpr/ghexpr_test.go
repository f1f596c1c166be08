package ghexpr

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func testContext() Context {
	return Context{
		"inputs": map[string]any{"scenario-type": "agentic-coding", "tp": 8.0, "spec": "none", "list": []any{"a", "B"}},
		"matrix": map[string]any{"config": map[string]any{"conc": 64.0, "dp-attn": true}},
		"runner": map[string]any{"name": "b200-dgxc_03"},
		"github": Unknown{}, "secrets": Unknown{},
	}
}

// The expressions the workflow templates write, evaluated as the runner
// does: && and || yield an operand, == compares strings without case,
// unknown contexts stay unknown unless the other operand decides.
func TestEval(t *testing.T) {
	tests := []struct {
		expr string
		want any
	}{
		{"inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/'", "agentic/"},
		{"inputs.scenario-type == 'fixed-seq-len' && 'agentic/' || 'fixed_seq_len/'", "fixed_seq_len/"},
		{"inputs.spec == 'NONE'", true},
		{"inputs.tp > 4", true},
		{"inputs.tp >= 9", false},
		{"matrix.config.conc", 64.0},
		{"matrix.config['dp-attn']", true},
		{"!matrix.config['dp-attn']", false},
		{"inputs.missing", nil},
		{"inputs.missing || 'default'", "default"},
		{"contains(inputs.list, 'b')", true},
		{"contains('b200-dgxc', 'DGXC')", true},
		{"startsWith(runner.name, 'b200')", true},
		{"endsWith(runner.name, '_04')", false},
		{"format('{0}-{1}', inputs.spec, inputs.tp)", "none-8"},
		{"join(inputs.list, '+')", "a+B"},
		{"fromJSON('{\"a\": [1, 2]}').a[1]", 2.0},
		{"github.event_name", Unknown{}},
		{"github.event_name == 'push'", Unknown{}},
		{"secrets.TOKEN || 'x'", Unknown{}},
		{"false && secrets.TOKEN", false},
		{"format('{0}', secrets.TOKEN)", Unknown{}},
		{"noSuchFunction(1)", Unknown{}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := Eval(tc.expr, testContext())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Eval = %#v, want %#v", got, tc.want)
			}
		})
	}
}

// A malformed expression is an error, never a panic; a deep one is cut
// at the depth bound.
func TestEvalErrors(t *testing.T) {
	for _, expr := range []string{"inputs.tp ==", "'unterminated", "inputs.tp )", "((("} {
		if _, err := Eval(expr, testContext()); err == nil {
			t.Errorf("Eval(%q): no error", expr)
		}
	}
	deep := strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000)
	if v, err := Eval(deep, testContext()); err == nil && !IsUnknown(v) {
		t.Errorf("a 10000-deep expression evaluated to %#v", v)
	}
}

func TestInterpolate(t *testing.T) {
	tests := []struct {
		in, want string
		known    bool
	}{
		{"launch_${{ runner.name }}.sh", "launch_b200-dgxc_03.sh", true},
		{"${{ inputs.tp }}x${{ matrix.config.conc }}", "8x64", true},
		{"token=${{ secrets.TOKEN }}", "token=", false},
		{"no expression", "no expression", true},
		{"open ${{ inputs.tp", "open ${{ inputs.tp", true},
	}
	for _, tc := range tests {
		got, known := Interpolate(tc.in, testContext())
		if got != tc.want || known != tc.known {
			t.Errorf("Interpolate(%q) = %q, %v; want %q, %v", tc.in, got, known, tc.want, tc.known)
		}
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{{8.0, "8"}, {0.5, "0.5"}, {true, "true"}, {nil, ""}, {[]any{1}, "Array"}, {map[string]any{}, "Object"}, {"s", "s"}} {
		if got := String(tc.v); got != tc.want {
			t.Errorf("String(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestEvalPathAgrees: the property paths Eval reads without the parser
// evaluate as the parser evaluates them, and what is not one is left to it.
func TestEvalPathAgrees(t *testing.T) {
	ctx := testContext()
	ctx["env"] = map[string]any{"EXP_NAME": "dsr1_1k1k"}
	for _, src := range []string{
		"inputs.scenario-type", " inputs.tp ", "\tinputs.list\n", "inputs.missing", "inputs.missing.deeper", "matrix.config.conc",
		"matrix.config.dp-attn", "runner.name", "env.EXP_NAME", "env.NONE", "github.event_name", "secrets.TOKEN.x", "nosuch",
		"nosuch.x", "true", "false", "null", "true.x", "inputs", "inputs.", ".inputs", "inputs..tp", "inputs.-x", "inputs.1x",
		"-inputs", "inputs .tp", "inputs. tp", "inputs.tp-", "inputs_x.y", "x9.a-b_c", "", " ", "inputs.tp == 8",
	} {
		wantV, wantErr := refEval(src, ctx)
		gotV, gotErr := Eval(src, ctx)
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(gotV, wantV) {
			t.Errorf("Eval(%q) = %#v, %v; the parser: %#v, %v", src, gotV, gotErr, wantV, wantErr)
		}
	}
}

// TestInterpolateAgrees: Interpolate's shortcuts (no expression, one
// expression the whole text) substitute as its loop does.
func TestInterpolateAgrees(t *testing.T) {
	loop := func(s string, ctx Context) (string, bool) {
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
	for _, s := range []string{
		"", "plain", "${{ inputs.tp }}", "${{ inputs.spec }}x", "x${{ inputs.tp }}", "${{ secrets.T }}", "${{ inputs.tp }}${{ inputs.spec }}",
		"${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}", "${{ ${{ inputs.tp }}", "${{ inputs.tp",
		"${{ bad ( }}", "${{}}", "${{ inputs.list }}",
	} {
		gotS, gotOK := Interpolate(s, testContext())
		wantS, wantOK := loop(s, testContext())
		if gotS != wantS || gotOK != wantOK {
			t.Errorf("Interpolate(%q) = %q, %v; want %q, %v", s, gotS, gotOK, wantS, wantOK)
		}
	}
}

// TestPartialAgrees: an expression over a Partial object is Unknown or
// what it is over any full object agreeing with it on what it knows.
func TestPartialAgrees(t *testing.T) {
	full := map[string]any{"scenario-type": "agentic-coding", "tp": 8.0, "spec": "none", "list": []any{"a", "B"}, "on": true, "empty": ""}
	exprs := []string{
		"inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/'",
		"inputs.tp > 4 && inputs.spec || 'x'",
		"inputs.missing || inputs.spec",
		"inputs['tp']", "inputs[inputs.spec]", "inputs.empty || 'default'", "!inputs.on",
		"inputs", "inputs == inputs", "inputs && 'yes'", "toJSON(inputs)", "join(inputs)", "format('{0}', inputs)",
		"contains(inputs.list, 'b')", "format('{0}-{1}', inputs.spec, inputs.tp)", "inputs.list[1]",
	}
	keys := []string{"scenario-type", "tp", "spec", "list", "on", "empty"}
	known := 0
	for mask := 0; mask < 1<<len(keys); mask++ {
		part := Partial{}
		for i, k := range keys {
			if mask&(1<<i) != 0 {
				part[k] = full[k]
			}
		}
		for _, e := range exprs {
			want, err := Eval(e, Context{"inputs": full})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Eval(e, Context{"inputs": part})
			if err != nil {
				t.Fatal(err)
			}
			if _, obj := got.(Partial); obj {
				got, want = String(got), String(want) // the object's text
			}
			if !IsUnknown(got) && !reflect.DeepEqual(got, want) {
				t.Errorf("%s over %v = %#v, over the full inputs %#v", e, part, got, want)
			}
			if !IsUnknown(got) && mask == 1<<len(keys)-1 {
				known++
			}
		}
	}
	if known < len(exprs)/2 {
		t.Errorf("over every input only %d of %d expressions are known: the test tells little", known, len(exprs))
	}
}

// TestCompiledAgrees: an expression compiled once and evaluated over
// many contexts evaluates as the parser that evaluated while it parsed
// (refEval), errors and their messages alike.
func TestCompiledAgrees(t *testing.T) {
	exprs := []string{
		"inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/'",
		"matrix.config['recipe-fingerprint'] || ''", "matrix.config.router && toJson(matrix.config.router) || ''",
		"inputs.require-power && '1' || '0'", "!inputs.eval-only && inputs.scenario-type != 'agentic-coding'",
		"inputs.pp != '' && inputs.pp != '1' && format('/PP{0}', inputs.pp) || ''", "join(fromJson(inputs.list), ' ')",
		"inputs.tp > 4", "inputs.tp >= 8", "inputs.tp < 8", "inputs.tp <= 4", "(inputs.tp)", "((inputs.tp == 8))", "!!inputs.on",
		"contains(inputs.names, 'b')", "startsWith(runner.name, 'b200')", "endsWith(runner.name, '_0')", "inputs['exp-name']",
		"inputs[inputs.key]", "matrix.config.list[1]", "fromJSON('{\"a\": [1, 2]}').a[1]", "'it''s'", "-1.5e3", "0x10", "null",
		"true || secrets.x", "secrets.x || true", "false && secrets.x", "secrets.x && false", "noSuchFunction(1)", "toJSON(secrets)",
		"format('{0}-{1}', inputs.spec, 'x')", "inputs.missing.deeper", "github.event_name == 'push'",
		// errors
		"", "(", "inputs.tp ==", "'open", "1.2.3e", "f(1", "f(1 2)", "inputs[1", "inputs.tp )", "@", strings.Repeat("(", 70) + "1" + strings.Repeat(")", 70),
		strings.Repeat("!", 70) + "true",
	}
	ctxs := []Context{
		testContext(),
		{"inputs": map[string]any{"scenario-type": "fixed-seq-len", "tp": 4.0, "pp": "2", "require-power": true, "eval-only": false,
			"list": `["a","b"]`, "names": []any{"a", "B"}, "key": "tp", "on": true, "exp-name": "dsr1_1k1k"},
			"matrix": map[string]any{"config": map[string]any{"router": map[string]any{"x": 1.0}, "list": []any{"p", "q"}}},
			"runner": map[string]any{"name": "b200-nb_0"}, "secrets": Unknown{}, "github": Unknown{}},
		{"inputs": Unknown{}, "matrix": Unknown{}, "runner": Unknown{}},
		{},
	}
	for _, src := range exprs {
		for i, ctx := range ctxs {
			wantV, wantErr := refEval(src, ctx)
			gotV, gotErr := Eval(src, ctx)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("Eval(%q) over context %d = %#v, %v; the parser: %#v, %v", src, i, gotV, gotErr, wantV, wantErr)
			}
		}
	}
}

// TestCompiledBounded: the process-wide cache of compiled expressions
// keeps at most its budget of bytes, and one larger than the budget is
// compiled without being kept.
func TestCompiledBounded(t *testing.T) {
	for i := 0; i < 20000; i++ {
		if _, err := compiled(fmt.Sprintf("inputs.tp == %d && matrix.config.conc != '%d'", i, i)); err != nil {
			t.Fatal(err)
		}
		if b, _, budget := CompiledStats(); b > budget {
			t.Fatalf("after %d: %d bytes, budget %d", i, b, budget)
		}
	}
	huge := "inputs.x == '" + strings.Repeat("a", maxCompiledBytes) + "'"
	before, n, _ := CompiledStats()
	if _, err := compiled(huge); err != nil {
		t.Fatal(err)
	}
	if after, m, _ := CompiledStats(); after != before || m != n {
		t.Errorf("an expression over the budget was kept: %d→%d bytes, %d→%d entries", before, after, n, m)
	}
}
