package recipe

// Helpers shared by SH006, SH008–SH014 and RN001 that rulekit.go does not
// have: variable resolution, number edits, heredoc bodies (TRT-LLM engine
// configs). Identifiers start with rk so they cannot collide with
// rulekit.go's.

import (
	"context"
	"path"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// rkVarName returns X for a value that is exactly $X, ${X} or ${X:-...}
// (the text facts keep for an expansion).
func rkVarName(s string) string {
	name, _ := script.VarRef(s)
	return name
}

// rkLiteral resolves the value variable name holds when code at line on
// path p reads it: the static assignments before line that can reach p.
// An assignment that runs whenever p runs replaces the earlier ones;
// assignments on other compatible paths are alternatives. It fails when
// an alternative is not a static scalar, or the alternatives disagree.
func rkLiteral(f *script.Facts, name string, line int, p script.Branch) (script.Var, bool) {
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

// rkValue resolves a value as facts give it: a literal as is, or a plain
// variable expansion through rkLiteral. line is where the variable
// assignment was resolved from (0 for a literal).
func rkValue(f *script.Facts, s string, static bool, line int, p script.Branch) (val string, from int, ok bool) {
	if static {
		return strings.Trim(s, `"'`), 0, true
	}
	name := rkVarName(s)
	if name == "" {
		return "", 0, false
	}
	v, ok := rkLiteral(f, name, line, p)
	if !ok {
		return "", 0, false
	}
	return strings.Trim(v.Value, `"'`), v.Line, true
}

// rkNumber parses a decimal number.
func rkNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil
}

// rkReplaceNumber replaces the one occurrence of the number old in line
// (not part of a longer number or a name) with repl; ok is false when old does not
// occur exactly once.
func rkReplaceNumber(line, old, repl string) (string, bool) {
	// Part of a longer number or of a name (X2=2: the first 2 is not it).
	isNum := func(c byte) bool {
		return c >= '0' && c <= '9' || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	at := -1
	for i := 0; ; {
		j := strings.Index(line[i:], old)
		if j < 0 {
			break
		}
		j += i
		end := j + len(old)
		if (j == 0 || !isNum(line[j-1])) && (end >= len(line) || !isNum(line[end])) {
			if at >= 0 {
				return "", false
			}
			at = j
		}
		i = j + 1
	}
	if at < 0 {
		return "", false
	}
	return line[:at] + repl + line[at+len(old):], true
}

// rkHeredocs returns the heredoc bodies of the script at p in tree
// (TRT-LLM recipes write their engine config this way; Facts does not
// model YAML), from the facts' one parse of the script.
func rkHeredocs(ctx context.Context, ch *checks.Change, tree checks.Tree, side, p string) ([]script.Heredoc, error) {
	f, err := loadFacts(ctx, ch, side, tree, p)
	if err != nil || f == nil {
		if script.IsParseError(err) {
			return nil, nil
		}
		return nil, err
	}
	return f.Heredocs, nil
}

// rkModelPrefix is the model prefix of a recipe: the first segment of its
// file name (dsv4_fp4_b200_vllm.sh → dsv4).
func rkModelPrefix(p string) string {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if i := strings.IndexByte(base, '_'); i > 0 {
		return base[:i]
	}
	return base
}

// rkTRTSpec is the speculative_config of a TRT-LLM engine config written
// from a heredoc (cat > "$EXTRA_CONFIG" <<EOF).
type rkTRTSpec struct {
	// Line is the speculative_config key's line in the script; EndLine
	// the last line of its block; StmtLine the first line of the
	// statement that writes the heredoc.
	Line, EndLine, StmtLine int
	// DecodingType is decoding_type (MTP, Eagle3, ...), "" when absent.
	DecodingType string
	// Draft is the draft length as written (num_nextn_predict_layers or
	// max_draft_len; "${NUM_NEXTN_LAYERS}" when interpolated), DraftKey
	// the key it came from and DraftLine its line.
	Draft     string
	DraftKey  string
	DraftLine int
}

// rkTRTSpecs finds speculative_config blocks in heredoc bodies that parse
// as YAML.
func rkTRTSpecs(hs []script.Heredoc) []rkTRTSpec {
	var out []rkTRTSpec
	for _, h := range hs {
		if !strings.Contains(h.Body, "speculative_config") {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal([]byte(h.Body), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		root := doc.Content[0]
		at := func(n *yaml.Node) int { return h.Line + n.Line - 1 }
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			if k.Value != "speculative_config" || v.Kind != yaml.MappingNode {
				continue
			}
			sp := rkTRTSpec{Line: at(k), EndLine: at(k), StmtLine: h.StmtLine}
			for j := 0; j+1 < len(v.Content); j += 2 {
				kk, vv := v.Content[j], v.Content[j+1]
				sp.EndLine = max(sp.EndLine, at(vv))
				switch kk.Value {
				case "decoding_type":
					sp.DecodingType = vv.Value
				case "num_nextn_predict_layers", "max_draft_len":
					if sp.DraftKey == "" || kk.Value == "num_nextn_predict_layers" {
						sp.Draft, sp.DraftKey, sp.DraftLine = vv.Value, kk.Value, at(kk)
					}
				}
			}
			out = append(out, sp)
		}
	}
	return out
}
