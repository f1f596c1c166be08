package signoff

import (
	"regexp"
	"strings"
)

// TemplateItem is one checklist item of the base branch's
// docs/PR_REVIEW_CHECKLIST.md template.
type TemplateItem struct {
	Text  string
	Line  int // in the checklist file
	Depth int
}

var templateItemRe = regexp.MustCompile(`^(\s*)[-*]\s+\[ \]\s+(.*)$`)

// ParseTemplate returns the items of the checklist's template: the "- [ ]"
// lines of the fenced block that holds Phrase (or of the whole file when it
// has no such block).
func ParseTemplate(checklist string) []TemplateItem {
	lines := strings.Split(strings.ReplaceAll(checklist, "\r\n", "\n"), "\n")
	start, end := 0, len(lines)
	for i, l := range lines {
		if strings.Contains(l, Phrase) {
			start = i
			break
		}
	}
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			end = i
			break
		}
	}
	var out []TemplateItem
	for i := start; i < end; i++ {
		m := templateItemRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		out = append(out, TemplateItem{Text: strings.TrimSpace(m[2]), Line: i + 1, Depth: len(m[1]) / 2})
	}
	return out
}

// The fuzzy match compares items as sets of words: markdown links are
// reduced to their text, case and punctuation are dropped, and an item
// matches when most of the template item's words are in the sign-off's
// (so a typo fix, a reworded link or a pasted rendering still matches,
// while an item from an older template does not).
const matchThreshold = 0.8

var mdLinkRe = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

func words(s string) []string {
	s = mdLinkRe.ReplaceAllString(s, "$1")
	s = strings.ToLower(s)
	f := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '/')
	})
	out := f[:0]
	for _, w := range f {
		w = strings.Trim(w, "./")
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

// similarity is the share of a's distinct words found in b.
func similarity(a, b []string) float64 {
	if len(a) == 0 {
		return 0
	}
	in := map[string]bool{}
	for _, w := range b {
		in[w] = true
	}
	seen := map[string]bool{}
	hit, n := 0, 0
	for _, w := range a {
		if seen[w] {
			continue
		}
		seen[w] = true
		n++
		if in[w] {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

// stopWords are left out when looking for an explanation of an unchecked
// item in the additional detail section.
var stopWords = map[string]bool{
	"verified": true, "that": true, "this": true, "the": true, "and": true, "for": true, "with": true,
	"have": true, "has": true, "are": true, "any": true, "uses": true, "used": true, "from": true,
	"before": true, "which": true, "below": true, "above": true, "each": true, "every": true,
	"respective": true, "only": true, "there": true, "their": true, "such": true, "made": true,
	"should": true, "would": true, "will": true, "into": true, "been": true, "also": true, "them": true,
	"link": true, "linked": true, "please": true, "shows": true, "pr": true, "prs": true, "moment": true,
}

// keywords are the distinctive words of an item: long words that are not
// boilerplate, as stems (documented and documents, recipe and recipes
// are one word for this purpose).
func keywords(text string) []string {
	var out []string
	for _, w := range words(text) {
		if len(w) >= 5 && !stopWords[w] {
			out = append(out, stem(w))
		}
	}
	return out
}

// stem cuts a word to its first six letters: enough to tell the
// checklist's words apart, short enough to join inflections.
func stem(w string) string {
	if len(w) > 6 {
		return w[:6]
	}
	return w
}

// explained reports whether the additional detail section speaks about
// an item: one of its paragraphs or bullets shares two of the item's
// keywords (one when the item has only one).
func explained(item string, details string) bool {
	kw := keywords(item)
	if len(kw) == 0 || strings.TrimSpace(details) == "" {
		return false
	}
	need := 2
	if len(kw) == 1 {
		need = 1
	}
	for _, para := range splitParagraphs(details) {
		in := map[string]bool{}
		for _, w := range words(para) {
			in[stem(w)] = true
		}
		hit := 0
		seen := map[string]bool{}
		for _, w := range kw {
			if in[w] && !seen[w] {
				seen[w] = true
				hit++
			}
		}
		if hit >= need {
			return true
		}
	}
	return false
}

func splitParagraphs(s string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			flush()
			continue
		}
		if itemRe.MatchString(l) && len(l)-len(strings.TrimLeft(l, " \t")) == 0 {
			flush()
		}
		cur = append(cur, t)
	}
	flush()
	return out
}
