package changelog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl001Doc = "An entry this PR adds to the perf changelog must link this PR: `pr-link` is exactly " +
	"`https://github.com/<owner>/<repo>/pull/<this PR's number>`, or one of the placeholders `XXX` and " +
	"`https://github.com/<owner>/<repo>/pull/XXX` (three X, exactly), which the merge tooling rewrites to the " +
	"real link. Anything else - `pull/XXXX`, `pull/TBD`, a bare `XXXX`, another PR's number left over from a " +
	"split or copied from the entry above, a `/changes` suffix, `http://` - passes the PR-time check, which " +
	"never compares the link with the PR's number, and then makes the merge tooling (`merge_with_reuse.sh` " +
	"canonicalizing appended links with `--pr-number`) abort. Write the placeholder when you don't know the number yet."

// CL001 checks the pr-link of every entry the PR adds.
var CL001 = &checks.Rule{
	ID:       "CL001",
	Severity: checks.Blocking,
	Title:    "New changelog entry's pr-link is neither this PR's link nor the XXX placeholder",
	Doc:      cl001Doc,
	Run:      runCL001,
}

func runCL001(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	pr := p.Change.PR
	slug := pr.RepoSlug()
	for _, e := range a.NewEntries() {
		if e.Err != nil || e.Kind != yamlMapping {
			continue // CL005 reports entries that do not parse
		}
		link, line, ok := e.PRLink()
		if ok && linkAccepted(link, slug, pr.Number) {
			if pr.Number == 0 && !isPlaceholder(link, slug) {
				p.Inconclusive(a.Path, fmt.Sprintf("line %d links %s: the PR number is unknown, so only the link's shape was checked, not that it is this PR's", line, link))
			}
			continue
		}
		p.Report(cl001Finding(a, e, link, line, ok, pr))
	}
	return nil
}

// linkAccepted mirrors the merge tooling: with the PR's number, the exact
// canonical link or a placeholder; without one, the canonical shape.
func linkAccepted(link, slug string, number int) bool {
	if isPlaceholder(link, slug) {
		return true
	}
	n, ok := canonicalNumber(link, slug)
	if !ok {
		return false
	}
	return number == 0 || n == strconv.Itoa(number)
}

// linkProblem explains, in a clause, why link is not accepted.
func linkProblem(link string, present bool, slug string, number int) string {
	prefix := pullPrefix(slug)
	rest, inRepo := strings.CutPrefix(link, prefix)
	switch {
	case !present:
		return "has no `pr-link` string"
	case strings.TrimSpace(link) == "":
		return "has an empty `pr-link`"
	case inRepo && isDigits(rest):
		return fmt.Sprintf("links %s, another PR's number (this is PR #%d)", prose.Code("pull/"+rest), number)
	case inRepo && isXs(rest):
		return fmt.Sprintf("links %s (%s), which is not the placeholder", prose.Code("pull/"+rest), xCount(rest))
	case isXs(link):
		return fmt.Sprintf("sets %s (%s), which is not the placeholder", prose.Code("pr-link: "+link), xCount(link))
	case inRepo && leadingDigits(rest) != "":
		return fmt.Sprintf("links %s; the link must end at the PR number", prose.Code("pull/"+rest))
	case inRepo:
		return fmt.Sprintf("links %s, which is neither a PR number nor the `XXX` placeholder", prose.Code("pull/"+rest))
	case strings.HasPrefix(link, "http://"):
		return fmt.Sprintf("links %s; only the exact `https://` form is accepted", prose.Code(link))
	case strings.HasPrefix(link, "https://github.com/") && strings.Index(link, "/pull/") > len("https://github.com/"):
		other := link[len("https://github.com/"):strings.Index(link, "/pull/")]
		return fmt.Sprintf("links a pull request of %s, not of %s", prose.Code(other), prose.Code(slug))
	case isDigits(strings.TrimPrefix(link, "#")):
		return fmt.Sprintf("sets %s, a bare number instead of the full link", prose.Code("pr-link: "+link))
	}
	return fmt.Sprintf("sets %s, which is not a link to this PR", prose.Code("pr-link: "+link))
}

func xCount(s string) string {
	names := []string{"", "one X", "two X's", "three X's", "four X's", "five X's", "six X's"}
	if len(s) < len(names) {
		if s != strings.ToUpper(s) {
			return names[len(s)] + ", lower-case"
		}
		return names[len(s)]
	}
	return strconv.Itoa(len(s)) + " X's"
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isXs: an X run that is not the exact placeholder.
func isXs(s string) bool {
	if s == "" || s == "XXX" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != 'X' && s[i] != 'x' {
			return false
		}
	}
	return true
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func cl001Finding(a *Analysis, e *Entry, link string, line int, present bool, pr checks.PRInfo) checks.Finding {
	slug := pr.RepoSlug()
	placeholder := pullPrefix(slug) + "XXX"
	want := placeholder
	if pr.Number > 0 {
		want = pullPrefix(slug) + strconv.Itoa(pr.Number)
	}
	fld := e.Get(keyPRLink)
	at := e.Start
	if fld != nil {
		at = fld.KeyLine
	}
	problem := linkProblem(link, present, slug, pr.Number)
	verb := "adds to"
	if a.Align.Head[e.Index] == Appended {
		verb = "appends to"
	}
	keys := ""
	if names := e.KeyNames(); len(names) > 0 {
		keys = " (for " + codeList(names, 3) + ")"
	}

	var msg string
	if pr.Number > 0 {
		msg = fmt.Sprintf("The entry this PR %s %s at line %d%s %s. For an appended entry the merge tooling accepts only this PR's own link %s or the placeholder `XXX` / %s (three X, exactly) and aborts the merge on anything else; the PR-time check never compares the link with the PR number, so CI stays green. Fix: set %s (or the placeholder, which the merge tooling rewrites to the real link).",
			verb, prose.Code(a.Path), e.Start, keys, problem, prose.Code(want), prose.Code(placeholder), prose.Code("pr-link: "+want))
	} else {
		msg = fmt.Sprintf("The entry this PR %s %s at line %d%s %s. The changelog accepts only a canonical link %s or the placeholder `XXX` / %s (three X, exactly); this review has no PR number, so only that shape is checked. Fix: set %s until the PR number is known.",
			verb, prose.Code(a.Path), e.Start, keys, problem, prose.Code(pullPrefix(slug)+"<number>"), prose.Code(placeholder), prose.Code("pr-link: "+placeholder))
	}

	x := &checks.Explain{}
	w := x.Printf
	x.Why()
	if pr.Number > 0 {
		w("When the PR is merged with `utils/merge_with_reuse.sh`, the script runs `prepare_perf_changelog_merge.py canonicalize --pr-number %d` unconditionally. That step compares the base's entries with the head's and checks every appended entry's `pr-link`: it must equal %s or be one of the placeholders `XXX` and %s, which it then rewrites to %s. ", pr.Number, prose.Code(want), prose.Code(placeholder), prose.Code(want))
		w("Any other value raises a changelog validation error, and the script, running under `set -e`, stops before the merge commit is prepared: the merge needs a manual fix and a new push.")
		x.Note("Why CI does not catch it")
		w("The PR-time `check-changelog` job runs the validator without `--pr-number`. Without a number it never compares the link with the PR (at most it checks the generic shape `.../pull/<digits>`), so ")
		if _, ok := canonicalNumber(link, slug); ok {
			w("%s passes and the PR looks green; the mismatch surfaces only in the merge tooling.", prose.Code(shortLink(link)))
		} else {
			w("the PR looks green; the value is rejected only when the merge tooling runs with the real PR number.")
		}
	} else {
		w("The merge tooling rewrites only the placeholders `XXX` and %s to the real link and requires every other appended link to be the PR's own canonical link; a value of another shape is rejected whatever the PR number turns out to be.", prose.Code(placeholder))
	}

	var related []checks.Location
	x.Evidence()
	if prev := a.lastHistorical(e); prev != nil {
		if pl, pline, ok := prev.PRLink(); ok {
			note := "the entry above links its own PR: " + prose.Code(shortLink(pl))
			if pl == link {
				note = "the entry above has the same link; this one looks copied from it"
			}
			related = append(related, checks.Location{Path: a.Path, Line: pline, Note: note})
			w("Every entry links the PR that introduced it; the changelog is how a published result is traced back to its change")
			if _, other := canonicalNumber(link, slug); other {
				w(", so a link to another PR also misattributes this change")
			}
			w(".")
		}
	}
	if loc, ok := a.placeholderPrecedent(slug); ok {
		related = append(related, loc)
		w(" When the number is not known yet, the placeholder is the established way.")
	}

	if pr.Number > 0 {
		x.Step()
		w("A maintainer merges PR #%d with `utils/merge_with_reuse.sh`.", pr.Number)
		x.Step()
		w("The script merges the base branch and runs `canonicalize --pr-number %d` on %s.", pr.Number, prose.Code(a.Path))
		x.Step()
		w("The entry at line %d is appended relative to the base, so its link is validated against PR %d.", e.Start, pr.Number)
		x.Step()
		if present && strings.TrimSpace(link) != "" {
			w("%s is neither %s nor a placeholder: validation fails and the merge stops.", prose.Code(link), prose.Code(want))
		} else {
			w("There is no link to validate or rewrite: validation fails and the merge stops.")
		}
	}

	f := checks.Finding{
		Path:    a.Path,
		Line:    at,
		Title:   "pr-link of the new changelog entry is not accepted by the merge tooling",
		Body:    msg,
		Related: related,
		Key:     "pr-link:" + link,
	}
	if !present {
		f.Key = "pr-link:missing:" + strings.Join(e.KeyNames(), ",")
	}
	if sug := linkSuggestion(a.Head, e, fld, want); sug != nil {
		f.Suggestion = sug
	} else {
		x.Fix()
		w("Set %s.", prose.Code("pr-link: "+want))
	}
	x.Apply(&f)
	return f
}

// linkSuggestion replaces the pr-link line (or, when the entry has none,
// adds one after its last line).
func linkSuggestion(h *File, e *Entry, fld *Field, want string) *checks.Suggestion {
	if fld != nil {
		if fld.Line != fld.KeyLine {
			return nil // value on another line: not a one-line edit
		}
		text := h.Line(fld.KeyLine)
		i := strings.Index(text, keyPRLink+":")
		if i < 0 {
			return nil
		}
		return &checks.Suggestion{Line: fld.KeyLine, Replacement: text[:i] + keyPRLink + ": " + want}
	}
	last := h.Line(e.ContentEnd)
	return &checks.Suggestion{Line: e.ContentEnd, Replacement: last + "\n  " + keyPRLink + ": " + want}
}
