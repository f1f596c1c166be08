package recipe

// Values as a script gives them: variable references resolved to
// literals, numbers, and the wording helpers of names.

import (
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// closest returns the candidate nearest to s by edit distance (ties: the
// earlier candidate) and whether it is a plausible intended spelling: one
// contains the other, or they differ in at most half of the longer one.
func closest(s string, candidates []string) (best string, plausible bool) {
	bestD := -1
	for _, c := range candidates {
		if d := prose.EditDistance(s, c, -1); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return "", false
	}
	longer := max(len(s), len(best))
	plausible = strings.Contains(s, best) || strings.Contains(best, s) || 2*bestD <= longer
	return best, plausible
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// varRefName returns X for a value that is exactly $X, ${X} or ${X:-...}
// (the text facts keep for an expansion).
func varRefName(s string) string {
	name, _ := script.VarRef(s)
	return name
}

// literalOf resolves the value variable name holds when code at line on
// path p reads it: the static assignments before line that can reach p.
// An assignment that runs whenever p runs replaces the earlier ones;
// assignments on other compatible paths are alternatives. It fails when
// an alternative is not a static scalar, or the alternatives disagree.
func literalOf(f *script.Facts, name string, line int, p script.Branch) (script.Var, bool) {
	var cands []script.Var
	for _, v := range f.VarsNamed(name) {
		if v.Line >= line || v.Kind == script.EnvPrefix || v.Branch.Excludes(p) {
			continue
		}
		if v.Kind != script.Unset && !v.HasValue {
			continue // `export X` keeps the value already there
		}
		if f.Covers(v.Branch, p) {
			cands = cands[:0]
		}
		cands = append(cands, v)
	}
	if len(cands) == 0 {
		return script.Var{}, false
	}
	last := cands[len(cands)-1]
	for _, v := range cands {
		if v.Kind == script.Unset || v.Kind == script.Bind || !v.Static || v.Array || v.Append || v.Value != last.Value {
			return script.Var{}, false
		}
	}
	return last, true
}

// resolveValue resolves a value as facts give it: a literal as is, or a plain
// variable expansion through literalOf. line is where the variable
// assignment was resolved from (0 for a literal).
func resolveValue(f *script.Facts, s string, static bool, line int, p script.Branch) (val string, from int, ok bool) {
	if static {
		return strings.Trim(s, `"'`), 0, true
	}
	name := varRefName(s)
	if name == "" {
		return "", 0, false
	}
	v, ok := literalOf(f, name, line, p)
	if !ok {
		return "", 0, false
	}
	return strings.Trim(v.Value, `"'`), v.Line, true
}

// parseNumber parses a decimal number.
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil
}
