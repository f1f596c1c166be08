package recipe

import (
	"fmt"
	"path"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH033 reports a BF16 recipe whose server runs an FP8 KV cache or FP8
// quantization: a copy of the model's FP8 recipe that kept its options.
var SH033 = &checks.Rule{
	ID:       "SH033",
	Severity: checks.Warning,
	Title:    "BF16 recipe runs an FP8 KV cache or FP8 quantization",
	Doc: "A recipe's file name carries the precision its configs publish (`qwen3.5_bf16_mi355x_atom.sh` runs " +
		"`precision: bf16` rows), and a BF16 result is read as the model served in BF16, next to the other BF16 " +
		"results. This rule reports a BF16 recipe whose server command, on a line the PR writes, passes an FP8 " +
		"KV-cache dtype (`--kv-cache-dtype fp8`, `--kv_cache_dtype fp8_e4m3`) or FP8 quantization " +
		"(`--quantization fp8`): the run would measure FP8 attention or FP8 weights under the BF16 label. Such an " +
		"option usually comes with a copy of the same model's FP8 recipe; the finding names that recipe when one " +
		"in the directory passes the same option. Values held in variables are not judged. Drop the option, or " +
		"publish the recipe under the precision it runs.",
	Run: runSH033,
}

// fp8Options are the server options that quantize, by normalized name.
var fp8Options = map[string]string{
	"--kv-cache-dtype": "an FP8 KV cache",
	"--quantization":   "FP8 quantization",
}

// precisionOf is the precision a recipe's file name carries
// ({model}_{precision}_{gpu}...), "" when it has no such shape.
func precisionOf(p string) string {
	parts := strings.Split(strings.TrimSuffix(path.Base(p), path.Ext(p)), "_")
	if len(parts) < 3 {
		return ""
	}
	return parts[1]
}

// fp8Flag is a server option of a script that quantizes to FP8.
type fp8Flag struct {
	fl   script.Flag
	what string
}

// fp8Flags are the statically written FP8 options of a script's servers.
func fp8Flags(f *script.Facts) []fp8Flag {
	var out []fp8Flag
	for _, c := range f.Servers {
		for _, fl := range c.Flags {
			what, ok := fp8Options[script.NormFlag(fl.Name)]
			if ok && strings.HasPrefix(strings.ToLower(strings.Trim(fl.Value, `"'`)), "fp8") {
				out = append(out, fp8Flag{fl, what})
			}
		}
	}
	return out
}

func runSH033(p *checks.Pass) error {
	scripts, err := changedRecipes(p)
	if err != nil {
		return err
	}
	for _, s := range scripts {
		if precisionOf(s.Path) != "bf16" {
			continue
		}
		reported := map[string]bool{}
		for _, ff := range fp8Flags(s.Head) {
			name := script.NormFlag(ff.fl.Name)
			if reported[name] || !s.added(ff.fl.Line) && !s.added(ff.fl.ValueLine) {
				continue
			}
			reported[name] = true
			src, err := fp8CopySource(p, s, ff.fl)
			if err != nil {
				return err
			}
			p.Report(sh033Finding(s, ff, src))
		}
	}
	return nil
}

// fp8CopySource is a recipe of the same model, GPU and engine in the
// script's directory, of another precision, that passes the same option
// with the same value (nil when none does).
func fp8CopySource(p *checks.Pass, s *target, fl script.Flag) (*checks.Location, error) {
	model, gpu, ok := familyOf(s.Path)
	if !ok {
		return nil, nil
	}
	sibs, err := Siblings(p.Ctx, p.Change, s.Path)
	if err != nil {
		return nil, err
	}
	for _, sib := range sibs {
		m, g, ok := familyOf(sib.Path)
		if !ok || m != model || g != gpu || precisionOf(sib.Path) == "bf16" || sib.Facts.Engine != s.Head.Engine {
			continue
		}
		for _, other := range fp8Flags(sib.Facts) {
			if script.NormFlag(other.fl.Name) == script.NormFlag(fl.Name) && other.fl.Value == fl.Value {
				return &checks.Location{Path: sib.Path, Line: other.fl.Line, Note: "passes " + prose.Code(other.fl.Name+" "+other.fl.Value)}, nil
			}
		}
	}
	return nil, nil
}

func sh033Finding(s *target, ff fp8Flag, src *checks.Location) checks.Finding {
	opt := prose.Code(ff.fl.Name + " " + ff.fl.Value)
	copied := ""
	if src != nil {
		copied = fmt.Sprintf(" The same model's %s passes the same option: it looks carried over from that recipe.", prose.Code(src.Path))
	}
	f := checks.Finding{
		Path:  s.Path,
		Line:  ff.fl.Line,
		Title: fmt.Sprintf("BF16 recipe passes %s: %s", opt, ff.what),
		Body: fmt.Sprintf("%s is a BF16 recipe by its file name, but line %d passes "+
			"%s, so its server runs %s: the results would be published as BF16 while measuring FP8 arithmetic, and "+
			"they would not compare with the other BF16 results.%s Drop the option, or publish the recipe under the "+
			"precision it runs.", prose.Code(path.Base(s.Path)), ff.fl.Line, opt, ff.what, copied),
		Key: "SH033 " + script.NormFlag(ff.fl.Name),
	}
	if src != nil {
		f.Related = append(f.Related, *src)
	}
	return f
}
