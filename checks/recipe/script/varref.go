package script

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// VarRef answers "is this value just $X?" for the texts facts keep of
// expansions ("$MAX_NUM_SEQS", "${AL}", `"${AL:-3}"`), by parsing the text
// as one shell word: the name when the word is a single parameter
// expansion of a named variable, with plain set when it has no operator
// (a default such as ${AL:-3} still names AL, but is not plain).
// Positional and special parameters, indexes, lengths and anything around
// the expansion give "".
func VarRef(s string) (name string, plain bool) {
	s = strings.TrimSpace(s)
	// Document parses text as the inside of double quotes (as in a
	// heredoc): the quotes themselves go first.
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if !strings.HasPrefix(s, "$") {
		return "", false
	}
	w, err := ParseDocument(s)
	if err != nil || w == nil || len(w.Parts) != 1 {
		return "", false
	}
	pe, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || !syntax.ValidName(pe.Param.Value) || pe.Excl || pe.Length || pe.Width ||
		pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 {
		return "", false
	}
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			return pe.Param.Value, false
		}
		return "", false
	}
	return pe.Param.Value, true
}
