package multinode

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN006 reports a recipe whose file name names a concurrency its
// benchmark block does not run.
var MN006 = &checks.Rule{
	ID:       "MN006",
	Severity: checks.Warning,
	Title:    "Recipe's file name names a concurrency its benchmark does not run",
	Doc: "srt-slurm recipes that serve one point of a curve are named after it (`conc256.yaml`, " +
		"`disagg-gb300-4p1d-dep4-dep8-24-c4096.yaml`), and the master config's rows pick them by that name. This " +
		"rule reads the concurrencies a recipe's file name gives (`c<N>` or `conc<N>` between dashes or " +
		"underscores) and its `benchmark.concurrencies` (`\"16x512\"`, a list, one number), and reports a recipe the " +
		"PR adds or changes whose benchmark runs none of a named concurrency: a copied recipe whose benchmark block " +
		"was not updated runs another point than its name, and than the row that selects it, says. Every recipe of " +
		"the repository named this way runs the concurrency it names. Set the concurrencies, or rename the file.",
	Run: runMN006,
}

// namedConc matches a concurrency in a file name: c256, conc4096, between
// separators.
var namedConc = regexp.MustCompile(`(?:^|[-_])(?:c|conc)(\d{1,6})(?:$|[-_])`)

// namedConcs returns the concurrencies a recipe's file name names.
func namedConcs(p string) []int {
	name := strings.TrimSuffix(path.Base(p), path.Ext(p))
	var out []int
	// Overlapping matches share a separator: scan from each one's number.
	for i := 0; i < len(name); {
		loc := namedConc.FindStringSubmatchIndex(name[i:])
		if loc == nil {
			break
		}
		if v, err := strconv.Atoi(name[i+loc[2] : i+loc[3]]); err == nil && !slices.Contains(out, v) {
			out = append(out, v)
		}
		i += loc[3]
	}
	return out
}

// benchConcs reads benchmark.concurrencies: its values and its node; ok is
// false when it is absent or not numbers.
func benchConcs(root *yaml.Node) (vals []int, n *yaml.Node, ok bool) {
	n = yamlx.Get(yamlx.Get(root, "benchmark"), "concurrencies")
	if n == nil {
		return nil, nil, false
	}
	var parts []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			parts = append(parts, c.Value)
		}
	case yaml.ScalarNode:
		parts = strings.Split(n.Value, "x")
	default:
		return nil, n, false
	}
	for _, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, n, false
		}
		vals = append(vals, v)
	}
	return vals, n, len(vals) > 0
}

func runMN006(p *checks.Pass) error {
	for _, fc := range p.Change.Files {
		// A rename changes what the name says even when the content stays.
		if fc.Status == checks.Deleted || !isRecipeYAML(fc.Path) || !fc.Changed() && fc.Status != checks.Renamed {
			continue
		}
		named := namedConcs(fc.Path)
		if len(named) == 0 {
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
		var missing []string
		for _, c := range named {
			if !slices.Contains(runs, c) {
				missing = append(missing, strconv.Itoa(c))
			}
		}
		if len(missing) == 0 {
			continue
		}
		if bp := basePath(fc); bp != "" && path.Base(bp) == path.Base(fc.Path) {
			base, err := read(p, p.Change.Base, bp)
			if err != nil {
				return err
			}
			if b, _, ok := benchConcs(base.root); ok && slices.Equal(b, runs) {
				continue // the base ran the same points under the same name
			}
		}
		ran := ints(runs)
		p.Report(checks.Finding{
			Path:  fc.Path,
			Line:  n.Line,
			Title: fmt.Sprintf("Recipe named for concurrency %s runs %s", strings.Join(missing, " and "), prose.Code(strings.Join(ran, "x"))),
			Body: fmt.Sprintf("%s is named for concurrency %s, but its `benchmark.concurrencies` (line %d) runs %s. The "+
				"master config's rows select recipes by name, so the point published as %s is measured at another "+
				"concurrency. Set the concurrencies to what the name says, or rename the file (and the rows that "+
				"select it).", prose.Code(path.Base(fc.Path)), prose.JoinAnd(missing), n.Line, prose.Code(strings.Join(ran, "x")),
				prose.JoinAnd(missing)),
			Key:   "named-conc:" + strings.Join(missing, ","),
			Facts: []string{"concurrencies:" + strings.Join(ran, "x")},
		})
	}
	return nil
}
