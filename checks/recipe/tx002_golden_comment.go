package recipe

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// TX002 reports a comment the PR writes in a recipe that cites the golden
// acceptance curve of another model than the one the recipe serves, when
// that model has a curve of its own.
var TX002 = &checks.Rule{
	ID:       "TX002",
	Severity: checks.Warning,
	Title:    "Comment cites another model's golden acceptance curve",
	Doc: "Speculative-decoding recipes say in a comment which golden acceptance-length curve their pinned value " +
		"comes from (`golden_al_distribution/<model>_<method>.yaml`). A recipe made by copying a sibling of " +
		"another model keeps the sibling's comment: it then tells the next reader that the value came from the " +
		"other model's curve, whatever the code pins. This rule reports a comment line the PR adds to a recipe " +
		"that names a golden file of another model prefix than the recipe's own (the first segment of its file " +
		"name), when the golden directory has a curve for the recipe's own model. A recipe whose model has no " +
		"curve is SH013's (a pinned value no curve of the model backs), and a golden path that does not exist is " +
		"TX001's. Name the model's own curve, or say in the comment why another model's applies.",
	Run: runTX002,
}

// maxTX002PerFile bounds the findings of one recipe.
const maxTX002PerFile = 3

func runTX002(p *checks.Pass) error {
	recipes, err := changedRecipes(p)
	if err != nil {
		return err
	}
	var golden []*GoldenAL
	var cite *regexp.Regexp
	loaded := false
	for _, t := range recipes {
		if !loaded {
			loaded = true
			if golden, err = GoldenALFiles(p.Ctx, p.Change); err != nil {
				return err
			}
			if len(golden) > 0 {
				cite = regexp.MustCompile(regexp.QuoteMeta(path.Dir(golden[0].Path)) + `/([A-Za-z0-9_.+-]+)\.ya?ml`)
			}
		}
		if cite == nil {
			return nil
		}
		prefix := modelPrefix(t.Path)
		own := SelectGoldenAny(golden, prefix, "")
		if len(own) == 0 {
			continue
		}
		n := 0
		for _, c := range t.Head.Comments {
			for i, text := range strings.Split(c.Text, "\n") {
				line := c.Line + i
				if n >= maxTX002PerFile || !t.added(line) {
					continue
				}
				g := citedOther(cite, text, golden, prefix)
				if g == nil {
					continue
				}
				n++
				p.Report(tx002Finding(t, line, g, own, prefix))
			}
		}
	}
	return nil
}

// citedOther is the first golden file a comment line names whose model
// prefix is not prefix.
func citedOther(cite *regexp.Regexp, text string, golden []*GoldenAL, prefix string) *GoldenAL {
	for _, m := range cite.FindAllStringSubmatch(text, maxPathsPerComment) {
		for _, g := range golden {
			if g.Stem == m[1] && normName(g.Prefix) != normName(prefix) {
				return g
			}
		}
	}
	return nil
}

// maxPathsPerComment bounds the golden paths read from one comment line.
const maxPathsPerComment = 4

func tx002Finding(t *target, line int, g *GoldenAL, own []*GoldenAL, prefix string) checks.Finding {
	var owns []string
	var related []checks.Location
	for _, o := range own {
		owns = append(owns, prose.Code(o.Path))
		if len(related) < maxEvidence {
			related = append(related, baseLoc(o.Path, firstModelLine(o), 0, "the golden curve of "+prefix))
		}
	}
	related = append(related, baseLoc(g.Path, firstModelLine(g), 0, "the golden curve the comment cites, of "+g.Prefix))
	curves := "curve is"
	if len(own) > 1 {
		curves = "curves are"
	}
	msg := fmt.Sprintf("The comment on line %d cites %s, the golden acceptance curve of %s, but this recipe serves %s "+
		"(by its file name), whose own %s %s. A comment carried over from another model's recipe tells the next "+
		"reader that the pinned acceptance length comes from that model's curve. Name the curve the value "+
		"comes from, or say why another model's applies.",
		line, prose.Code(g.Path), prose.Code(g.Prefix), prose.Code(prefix), curves, prose.JoinAnd(owns))
	ex := &checks.Explain{}
	ex.Problem().Printf("The comment cites %s's golden curve in a %s recipe.", prose.Code(g.Prefix), prose.Code(prefix))
	ex.Why().Printf("The comment is how a reviewer checks the pinned acceptance length against its curve; pointing at another model's curve makes the check wrong, or hides a value copied with it.")
	ex.Fix().Printf("Cite %s and the value it gives for the recipe's draft length.", prose.JoinOr(owns))
	f := checks.Finding{
		Path:    t.Path,
		Line:    line,
		Title:   fmt.Sprintf("Comment cites the golden curve of %s in a %s recipe", prose.Code(g.Prefix), prose.Code(prefix)),
		Body:    msg,
		Related: related,
		Key:     "golden-comment:" + g.Stem,
	}
	ex.Apply(&f)
	return f
}

// firstModelLine is the line of a golden file's first model key (1 when
// it has none).
func firstModelLine(g *GoldenAL) int {
	if len(g.Models) > 0 && g.Models[0].Line > 0 {
		return g.Models[0].Line
	}
	return 1
}
