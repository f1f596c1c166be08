package changelog

import (
	"path"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// templateDirs are where GitHub looks for pull request templates.
var templateDirs = []string{".github", "", "docs"}

// templateFiles lists the base tree's pull request templates in the order
// GitHub prefers them: a single pull_request_template.md, then the files of
// a PULL_REQUEST_TEMPLATE directory (names match case-insensitively).
func templateFiles(p *checks.Pass) []string {
	var single, multi []string
	for _, dir := range templateDirs {
		entries, err := p.Change.Base.ReadDir(p.Ctx, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := strings.ToLower(e.Name())
			switch {
			case !e.IsDir && (name == "pull_request_template.md" || name == "pull_request_template.txt"):
				single = append(single, e.Path)
			case e.IsDir && name == "pull_request_template":
				files, err := p.Change.Base.ReadDir(p.Ctx, e.Path)
				if err != nil {
					continue
				}
				var mds []string
				for _, f := range files {
					if !f.IsDir && strings.EqualFold(path.Ext(f.Path), ".md") {
						mds = append(mds, f.Path)
					}
				}
				sort.Strings(mds)
				multi = append(multi, mds...)
			}
		}
	}
	return append(single, multi...)
}

// templateItem returns the line of the base tree's pull request template
// that mentions the changelog (its checklist item), cleaned of markdown,
// and where it is. ok is false when no template mentions it: the rule
// then quotes nothing rather than wording the repository no longer has.
func templateItem(p *checks.Pass, changelog string) (quote string, loc checks.Location, ok bool) {
	name := path.Base(changelog)
	return quotedLine(p, templateFiles(p), func(l string) bool { return strings.Contains(l, name) }, "the PR template's changelog item")
}

// quotedLine returns the first line of the base tree's files (in order)
// that match accepts and that says something once cleaned of markdown,
// and where it is, noted as note; ok is false when none does. Files over
// 1 MiB are not read: instructions are short.
func quotedLine(p *checks.Pass, files []string, accept func(string) bool, note string) (string, checks.Location, bool) {
	for _, f := range files {
		b, err := p.Change.Base.ReadFile(p.Ctx, f)
		if err != nil || len(b) > 1<<20 {
			continue
		}
		for i, l := range strings.Split(string(b), "\n") {
			if !accept(l) {
				continue
			}
			if q := cleanMarkdownItem(l); q != "" {
				return q, checks.Location{Path: f, Line: i + 1, Side: checks.Base, Note: note}, true
			}
		}
	}
	return "", checks.Location{}, false
}

// cleanMarkdownItem strips a checklist item's bullet, box and emphasis.
func cleanMarkdownItem(l string) string {
	s := strings.TrimSpace(strings.TrimRight(l, "\r"))
	for _, p := range []string{"- ", "* ", "+ "} {
		s = strings.TrimPrefix(s, p)
	}
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		s = strings.TrimPrefix(s, box)
	}
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "__", "")
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}
