package recipe

// What a recipe runs: its engine servers, its model prefix, and the
// engine configs its heredocs write (TRT-LLM speculative_config).

import (
	"context"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// serversOf returns the server commands of an engine.
func serversOf(f *script.Facts, e script.Engine) []*script.Command {
	var out []*script.Command
	for _, c := range f.Servers {
		if c.Engine == e {
			out = append(out, c)
		}
	}
	return out
}

// heredocsAt returns the heredoc bodies of the script at p in tree
// (TRT-LLM recipes write their engine config this way; Facts does not
// model YAML), from the facts' one parse of the script.
func heredocsAt(ctx context.Context, ch *checks.Change, tree checks.Tree, side, p string) ([]script.Heredoc, error) {
	f, err := loadFacts(ctx, ch, side, tree, p)
	if err != nil || f == nil {
		if script.IsParseError(err) {
			return nil, nil
		}
		return nil, err
	}
	return f.Heredocs, nil
}

// modelPrefix is the model prefix of a recipe: the first segment of its
// file name (dsv4_fp4_b200_vllm.sh → dsv4).
func modelPrefix(p string) string {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if i := strings.IndexByte(base, '_'); i > 0 {
		return base[:i]
	}
	return base
}

// trtSpec is the speculative_config of a TRT-LLM engine config written
// from a heredoc (cat > "$EXTRA_CONFIG" <<EOF).
type trtSpec struct {
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

// trtSpecs finds speculative_config blocks in heredoc bodies that parse
// as YAML.
func trtSpecs(hs []script.Heredoc) []trtSpec {
	var out []trtSpec
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
			sp := trtSpec{Line: at(k), EndLine: at(k), StmtLine: h.StmtLine}
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
