package changelog

import (
	"fmt"
	"strconv"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl008Doc = "The `XXX` placeholder (`pr-link: XXX` or `.../pull/XXX`) is how an entry is written before " +
	"its pull request exists. Once the PR is open its number is known, and the entry should link it: a placeholder " +
	"that is never replaced leaves a link that goes nowhere whenever the entry is read outside the merge tooling " +
	"(which rewrites it only when it merges with reuse). This is a warning, not a blocker: the merge tooling accepts " +
	"the placeholder. The finding names the exact link to write."

// CL008 asks for this PR's link where an appended entry still holds the
// placeholder.
var CL008 = &checks.Rule{
	ID:       "CL008",
	Severity: checks.Warning,
	Title:    "New changelog entry still holds the XXX placeholder",
	Doc:      cl008Doc,
	Run:      runCL008,
}

func runCL008(p *checks.Pass) error {
	pr := p.Change.PR
	if pr.Number <= 0 {
		return nil // the number to write is not known: the placeholder is right
	}
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	slug := pr.RepoSlug()
	want := pullPrefix(slug) + strconv.Itoa(pr.Number)
	for i, e := range a.NewEntries() {
		if e.Err != nil || e.Kind != yamlMapping {
			continue
		}
		link, line, ok := e.PRLink()
		if !ok || !isPlaceholder(link, slug) {
			continue // CL001 judges every other value
		}
		keys := ""
		if names := e.KeyNames(); len(names) > 0 {
			keys = " (for " + codeList(names, 3) + ")"
		}
		f := checks.Finding{
			Path:  a.Path,
			Line:  line,
			Title: "New changelog entry still holds the XXX placeholder",
			Body: fmt.Sprintf("The entry this PR adds to %s at line %d%s still links the placeholder %s. This PR is #%d, so its link is known: set `pr-link: %s`. "+
				"Optional: the merge tooling accepts the placeholder and rewrites it when it merges with reuse.",
				prose.Code(a.Path), e.Start, keys, prose.Code(link), pr.Number, want),
			// The entry's place among the new ones, not its text: another
			// rule's fix (a key name) leaves this finding the same one.
			Key: "pr-link-placeholder:" + strconv.Itoa(i) + ":" + link,
		}
		x := &checks.Explain{}
		x.Why()
		x.Printf("The placeholder stands for a PR that does not exist yet. Left in after the PR is opened, it is a link to `pull/XXX` wherever the entry is read before or without the merge tooling's rewrite: the changelog is how a published result is traced back to the change that made it.")
		// No one-click edit of an entry CL002 moves or separates anew:
		// its suggestion replaces those lines.
		if fld := e.Get(keyPRLink); fld != nil && !moved(p.Prior(), a.Path, e) {
			f.Suggestion = linkSuggestion(a.Head, e, fld, want)
		}
		if f.Suggestion == nil {
			x.Fix()
			x.Printf("Set `pr-link: %s`.", want)
		}
		x.Apply(&f)
		p.Report(f)
	}
	return nil
}

// moved reports whether CL002 says entry e is misplaced or not separated
// as it must be.
func moved(prior []checks.Finding, path string, e *Entry) bool {
	for _, f := range prior {
		if f.Path == path && f.Rule == "CL002" &&
			f.Line >= e.Start-1 && f.Line <= e.ContentEnd {
			return true
		}
	}
	return false
}
