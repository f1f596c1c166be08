package signoff

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/reviewbot-dev/reviewbot/internal/markdown"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// Phrase starts every sign-off (the welcome comment quotes it); a comment
// without it in its visible text is not one.
const Phrase = reviewer.SignoffPhrase

// Present reports whether body holds the phrase where a reader sees it:
// not in code (blocks or inline spans), a quote or an HTML comment.
func Present(body string) bool {
	for _, l := range markdown.Visible(body) {
		if strings.Contains(l.Text, Phrase) {
			return true
		}
	}
	return false
}

// maxBody bounds the comment text parsed (GitHub's own limit is 65,536
// characters; anything longer is cut, not rejected).
const maxBody = 1 << 18

// SignOff is a parsed sign-off comment.
type SignOff struct {
	// Items are the checklist lines after the phrase, in order.
	Items []Item
	// Details is the text of the "Additional detail section", "" when
	// the sign-off has none.
	Details string
	// Links are every URL of the comment, classified.
	Links []Link
	// Signer is the login after "Signed:", without @ or backticks; ""
	// when the line is missing or still reads FILL_IN_GITHUB_USERNAME.
	Signer string
}

// Item is one checklist line of a sign-off.
type Item struct {
	Text string
	// Checked is set for "- [x]"; Box is false for a plain bullet (a
	// rendered or pasted sign-off without checkboxes), which counts as
	// checked only when no line of the sign-off has a box.
	Checked bool
	Box     bool
	Line    int
	// Depth is the nesting level (0 for top-level items).
	Depth int
}

// LinkKind classifies a URL of a sign-off.
type LinkKind string

const (
	LinkRun    LinkKind = "run"    // .../actions/runs/<id>
	LinkPR     LinkKind = "pr"     // github.com/<owner>/<repo>/pull/<n>
	LinkWaiver LinkKind = "waiver" // .../docs/waiver/<n>.md
	LinkRecipe LinkKind = "recipe" // a published vLLM recipe or SGLang cookbook page
	LinkOther  LinkKind = "other"
)

// Link is a URL found in a sign-off.
type Link struct {
	URL  string
	Kind LinkKind
	// Owner, Repo and Number identify a PR link; Number is the run id
	// of a run link and the PR number of a waiver.
	Owner, Repo string
	Number      int64
}

// PRURL is a PR link as the bot writes it: rebuilt from the owner, repository
// and number it names, so nothing else of what the sign-off wrote (a query,
// a fragment, text glued on) comes with it.
func (l Link) PRURL() string {
	return fmt.Sprintf("https://github.com/%s/%s/pull/%d", l.Owner, l.Repo, l.Number)
}

var (
	urlRe    = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+`)
	runRe    = regexp.MustCompile(`^https?://github\.com/([^/]+)/([^/]+)/actions/runs/(\d+)`)
	prRe     = regexp.MustCompile(`^https?://github\.com/([^/]+)/([^/]+)/pull/(\d+)`)
	waiverRe = regexp.MustCompile(`docs/waiver/(\d+)\.md`)
	itemRe   = regexp.MustCompile(`^(\s*)(?:[-*+•]|\d+[.)])\s+(?:\[( |x|X)\]\s+)?(.*)$`)
	signedRe = regexp.MustCompile(`(?i)^\s*[-*•]?\s*Signed:\s*(.*)$`)
	detailRe = regexp.MustCompile(`(?i)^\s*#*\s*\**\s*additional detail(s)? section\s*:?\**\s*:?\s*$`)
)

// Parse reads a sign-off from a comment body; ok is false when the body
// does not contain Phrase. Only what a reader sees counts (package
// comment): the phrase, the checklist, the links and the Signed: line in
// a code block, a quote or an HTML comment are not part of the sign-off.
func Parse(body string) (*SignOff, bool) {
	if len(body) > maxBody {
		body = body[:maxBody]
	}
	if !Present(body) {
		return nil, false
	}
	body = markdown.VisibleText(body)
	i := strings.Index(body, Phrase)
	if i < 0 {
		return nil, false
	}
	s := &SignOff{}
	s.Links = links(body)
	lines := strings.Split(body[i+len(Phrase):], "\n")
	startLine := strings.Count(body[:i], "\n") + 1
	inDetails := false
	var details []string
	boxes := false
	for n, raw := range lines {
		line := startLine + n
		trimmed := strings.TrimSpace(raw)
		if m := signedRe.FindStringSubmatch(raw); m != nil {
			s.Signer = signer(m[1])
			inDetails = false
			continue
		}
		if detailRe.MatchString(raw) {
			inDetails = true
			continue
		}
		if inDetails {
			details = append(details, raw)
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "```") {
			continue
		}
		m := itemRe.FindStringSubmatch(raw)
		if m == nil {
			continue
		}
		it := Item{Text: strings.TrimSpace(m[3]), Line: line, Depth: len(strings.ReplaceAll(m[1], "\t", "  ")) / 2}
		if m[2] != "" {
			it.Box, it.Checked, boxes = true, m[2] != " ", true
		}
		s.Items = append(s.Items, it)
	}
	if !boxes {
		// No checkboxes at all: the sign-off was written (or pasted) as
		// plain bullets; listing an item is claiming it.
		for i := range s.Items {
			s.Items[i].Checked = true
		}
	}
	s.Details = strings.TrimSpace(strings.Join(details, "\n"))
	return s, true
}

func signer(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "`*_ ")
	s = strings.TrimPrefix(s, "@")
	if f := strings.Fields(s); len(f) > 0 {
		s = f[0]
	}
	if s == "" || strings.EqualFold(s, "FILL_IN_GITHUB_USERNAME") {
		return ""
	}
	return s
}

func links(body string) []Link {
	var out []Link
	seen := map[string]bool{}
	for _, u := range urlRe.FindAllString(body, -1) {
		u = strings.TrimRight(u, ".,;:!?")
		if seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, classify(u))
	}
	return out
}

func classify(u string) Link {
	l := Link{URL: u, Kind: LinkOther}
	switch {
	case runRe.MatchString(u):
		m := runRe.FindStringSubmatch(u)
		l.Kind, l.Owner, l.Repo, l.Number = LinkRun, m[1], m[2], atoi64(m[3])
	case waiverRe.MatchString(u):
		l.Kind, l.Number = LinkWaiver, atoi64(waiverRe.FindStringSubmatch(u)[1])
	case prRe.MatchString(u):
		m := prRe.FindStringSubmatch(u)
		l.Kind, l.Owner, l.Repo, l.Number = LinkPR, m[1], m[2], atoi64(m[3])
	case strings.Contains(u, "recipes.vllm.ai") || strings.Contains(u, "docs.vllm.ai/projects/recipes") ||
		strings.Contains(u, "docs.sglang.io") || strings.Contains(u, "docs.sglang.ai") ||
		strings.Contains(u, "github.com/vllm-project/recipes/blob") || strings.Contains(u, "github.com/sgl-project/sglang/blob"):
		l.Kind = LinkRecipe
	}
	return l
}

func atoi64(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<55 {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// LinksOf returns the links of one kind.
func (s *SignOff) LinksOf(kind LinkKind) []Link {
	var out []Link
	for _, l := range s.Links {
		if l.Kind == kind {
			out = append(out, l)
		}
	}
	return out
}
