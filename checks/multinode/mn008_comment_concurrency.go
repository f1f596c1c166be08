package multinode

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN008 reports a comment the PR writes in a recipe that names
// concurrencies the recipe's benchmark does not run.
var MN008 = &checks.Rule{
	ID:       "MN008",
	Severity: checks.Warning,
	Title:    "Recipe comment names concurrencies its benchmark does not run",
	Doc: "An srt-slurm recipe's header often says which points of the curve it serves (\"8k1k concurrency " +
		"1024/2048/3072\", \"only the smallest concurrencies (1,4,8)\"). A recipe copied from a sibling and " +
		"narrowed keeps the sibling's comment, and the next reader, comparing it with the master config's rows, " +
		"believes the comment. This rule reads the comment lines a PR adds to a recipe that has a " +
		"`benchmark.concurrencies`, takes the numbers written right after the word concurrency (or " +
		"concurrencies; an `only`, `of`, `at`, `is`, `are`, `=` or `:` between them is allowed), alone or as a list (`/`, `,`, `and`, in parentheses or not), and reports a line naming a " +
		"concurrency the benchmark does not run. Fix the comment, or the concurrencies.",
	Run: runMN008,
}

// commentConcs matches the concurrencies a comment names: the word and
// the numbers right after it.
var commentConcs = regexp.MustCompile(`(?i)\bconcurrenc(?:y|ies)\s*(?:(?:only|of|at|are|is)\s+|[=:]\s*)?\(?(\d{1,6}(?:\s*(?:/|,|\band\b)\s*\d{1,6})*)\)?`)

var digits = regexp.MustCompile(`\d+`)

// maxMN008Lines bounds the added lines read from one recipe.
const maxMN008Lines = 20000

func runMN008(p *checks.Pass) error {
	for _, fc := range p.Change.Files {
		if fc.Status == checks.Deleted || !isRecipeYAML(fc.Path) || !fc.Changed() {
			continue
		}
		head, err := read(p, p.Change.Head, fc.Path)
		if err != nil {
			return err
		}
		runs, n, ok := benchConcs(head.root)
		if !ok {
			continue
		}
		src, err := p.Change.Head.ReadFile(p.Ctx, fc.Path)
		if err != nil {
			if checks.IsNotExist(err) {
				continue
			}
			return err
		}
		if len(src) > maxRecipeBytes {
			continue
		}
		lines := strings.Split(string(src), "\n")
		seen := 0
		for _, ln := range fc.AddedLines() {
			if ln < 1 || ln > len(lines) {
				continue
			}
			if seen++; seen > maxMN008Lines {
				break
			}
			text := strings.TrimSpace(lines[ln-1])
			if !strings.HasPrefix(text, "#") {
				continue
			}
			said, missing := namedInComment(text, runs)
			if len(missing) == 0 {
				continue
			}
			p.Report(mn008Finding(fc.Path, ln, n.Line, said, missing, runs))
		}
	}
	return nil
}

// namedInComment returns the concurrencies a comment line names and those
// of them runs lacks.
func namedInComment(text string, runs []int) (said, missing []int) {
	for _, m := range commentConcs.FindAllStringSubmatch(text, 4) {
		for _, f := range digits.FindAllString(m[1], -1) {
			v, err := strconv.Atoi(f)
			if err != nil || slices.Contains(said, v) {
				continue
			}
			said = append(said, v)
			if !slices.Contains(runs, v) {
				missing = append(missing, v)
			}
		}
	}
	return said, missing
}

func mn008Finding(p string, line, concLine int, said, missing, runs []int) checks.Finding {
	ran := joinInts(runs, "x")
	msg := fmt.Sprintf("The comment on line %d names concurrency %s, but this recipe's `benchmark.concurrencies` (line %d) "+
		"runs %s, so %s %s not measured here. A comment kept from the recipe this one was copied from tells the next "+
		"reader, and whoever matches the recipe with the master config's rows, the wrong points. Fix the comment, or "+
		"the concurrencies.",
		line, prose.JoinAnd(ints(said)), concLine, prose.Code(ran), prose.JoinAnd(ints(missing)), prose.Pick(len(missing), "is", "are"))
	ex := &checks.Explain{}
	ex.Problem().Printf("Line %d names concurrency %s; the benchmark runs %s.", line, prose.JoinAnd(ints(said)), prose.Code(ran))
	ex.Why().Printf("Readers take a recipe's header for what it runs; a stale one sends a reviewer looking for points the recipe never produces.")
	ex.Fix().Printf("Make the comment say %s, or run what it says.", prose.Code(ran))
	f := checks.Finding{
		Path:    p,
		Line:    line,
		Title:   fmt.Sprintf("Comment names concurrency %s, the benchmark runs %s", prose.JoinAnd(ints(missing)), prose.Code(ran)),
		Body:    msg,
		Related: []checks.Location{{Path: p, Line: concLine, Note: "benchmark.concurrencies"}},
		Key:     "comment-conc:" + joinInts(missing, ","),
	}
	ex.Apply(&f)
	return f
}

func ints(vs []int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Itoa(v)
	}
	return out
}

func joinInts(vs []int, sep string) string { return strings.Join(ints(vs), sep) }
