package masterconfig

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc004 = &checks.Rule{
	ID:       "MC004",
	Severity: checks.Blocking,
	Title:    "Config key does not match its model-prefix or precision",
	Doc: "A master config key is named `{model-prefix}-{precision}-{hardware}-{framework}[-suffix...]`, and tools " +
		"select and group configs by those parts (MODELS.md's prefix column is the `model-prefix` of the configs). The " +
		"key must start with the config's `model-prefix` followed by `-`, and the segment after it must equal " +
		"`precision`. A key whose name says one model or precision while its fields say another is filed under the " +
		"wrong model or precision. Fix the key or the field so they agree.",
	Run: runMC004,
}

// keyShapeProblem returns what is wrong with the key's name, or "".
// Model prefixes contain dots (qwen3.5, kimik2.5) but never dashes, so the
// prefix ends at the first dash after it; every key of the real NVIDIA and
// AMD master configs has this shape (TestRealConfigsKeyShape).
func keyShapeProblem(k *Key) (problem string, field Field) {
	prefix, prec := k.ModelPrefix.Value, k.Precision.Value
	if prefix == "" || prec == "" {
		return "", Field{}
	}
	if !strings.HasPrefix(k.Name, prefix+"-") {
		first := k.Name
		if i := strings.Index(first, "-"); i >= 0 {
			first = first[:i]
		}
		return fmt.Sprintf("the key starts with %s, but `model-prefix` is %s", prose.Code(first), prose.Code(prefix)), k.ModelPrefix
	}
	if seg, _ := segment(k.Name[len(prefix)+1:]); seg != prec {
		return fmt.Sprintf("the key's precision segment is %s, but `precision` is %s", prose.Code(seg), prose.Code(prec)), k.Precision
	}
	return "", Field{}
}

// segment splits s at its first dash: the segment before it and the rest.
func segment(s string) (seg, rest string) {
	seg, rest, _ = strings.Cut(s, "-")
	return seg, rest
}

// Hardware is the key's hardware segment, in lower case: the one after
// its model prefix and precision. "" when the key does not have the
// {model-prefix}-{precision}-{hardware}-... shape.
func (k *Key) Hardware() string {
	prefix, prec := k.ModelPrefix.Value, k.Precision.Value
	if prefix == "" || prec == "" || !strings.HasPrefix(k.Name, prefix+"-") {
		return ""
	}
	seg, rest := segment(k.Name[len(prefix)+1:])
	if seg != prec {
		return ""
	}
	hw, _ := segment(rest)
	return strings.ToLower(hw)
}

func runMC004(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		k := ks.key
		if k.Malformed {
			return
		}
		if !ks.isNew && !fs.fieldChanged(ks, func(k *Key) Field { return k.ModelPrefix }) &&
			!fs.fieldChanged(ks, func(k *Key) Field { return k.Precision }) {
			return
		}
		problem, field := keyShapeProblem(k)
		if problem == "" {
			return
		}
		line := k.Line
		if !fs.fc.IsAdded(line) && field.Line > 0 {
			line = field.Line // the key kept its name; the field changed
		}
		p.Report(checks.Finding{
			Path:  fs.path,
			Line:  line,
			Title: fmt.Sprintf("%s: key does not match its fields", prose.Code(k.Name)),
			Body: fmt.Sprintf("Config key %s does not match its own fields: %s. Keys are "+
				"`{model-prefix}-{precision}-{hardware}-{framework}[-suffix...]`, and configs are selected and grouped "+
				"by those parts, so this config would be filed under a model or precision other than the one it runs. "+
				"Fix: rename the key or correct the field so they agree (and use the same key in the perf changelog entry).",
				prose.Code(k.Name), problem),
			Evidence: fmt.Sprintf("%s (line %d), %s (line %d).",
				prose.Code("model-prefix: "+k.ModelPrefix.Value), k.ModelPrefix.Line, prose.Code("precision: "+k.Precision.Value), k.Precision.Line),
			Notes: []checks.Note{{Title: "How the key was read", Text: "Model prefixes may contain dots (`qwen3.5`, `glm5.2`) but no dashes, so the key must begin with " +
				"the model prefix and a dash, and the next dash-separated segment is the precision (`fp4`, `fp8`, `bf16`, ...)."}},
			Key: "MC004 " + k.Name + " " + k.ModelPrefix.Value + " " + k.Precision.Value,
		})
	})
}
