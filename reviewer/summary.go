package reviewer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const (
	cleanSummary    = "✅ reviewbot found no problems in this PR."
	partialSummary  = "✅ reviewbot found no problems in what it reviewed of this PR; some of it was not reviewed (below)."
	notReviewedHead = "**Not reviewed:**"
	// maxNotReviewed bounds the files the summary names one by one.
	maxNotReviewed  = 50
	optionalNote    = "Findings marked 🟡 are optional suggestions and need no follow-up push."
	outsideHeading  = "**Additional findings (outside current diff):**"
	maxStatusLength = 140
)

func (p *Plan) renderSummary() string {
	body := p.summaryBody(false)
	if utf8.RuneCountInString(body) > MaxBodyChars {
		// Dropping the reasoning of the outside findings keeps every one of
		// them visible, which matters more than the detail of a few.
		body = p.summaryBody(true)
	}
	return Truncate(body, MaxBodyChars)
}

func (p *Plan) summaryBody(compact bool) string {
	var top []string
	if p.sweep != nil {
		top = append(top, p.sweep.section())
	}
	if len(p.open) == 0 && len(p.Resolved) == 0 {
		if len(p.notReviewed) > 0 {
			blocks := append(append(top, partialSummary), p.notes...)
			return strings.Join(append(blocks, p.notReviewedSection()), "\n\n") + "\n\n" + summaryMarker
		}
		if len(top) == 0 && len(p.notes) == 0 {
			return cleanSummary + "\n" + summaryMarker
		}
		return strings.Join(append(append(top, cleanSummary), p.notes...), "\n\n") + "\n\n" + summaryMarker
	}
	blocks := top
	blocking, warnings := countSeverities(p.open)
	if len(p.open) == 0 {
		blocks = append(blocks, "✅ reviewbot found no remaining problems in this PR.")
	} else {
		blocks = append(blocks, p.headline(blocking, warnings))
		if warnings > 0 {
			blocks = append(blocks, optionalNote)
		}
		if p.reReview {
			blocks = append(blocks, p.newSinceLastReview())
		}
	}
	blocks = append(blocks, p.notes...)
	if len(p.notReviewed) > 0 {
		blocks = append(blocks, p.notReviewedSection())
	}
	if len(p.Resolved) > 0 {
		lines := []string{"**Resolved since last review:**"}
		for _, r := range p.Resolved {
			lines = append(lines, "- ✅ "+r.Rule+" "+prose.Code(locLabel(checks.Location{Path: r.Path}))+" — resolved")
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	if len(p.Outside) > 0 {
		blocks = append(blocks, outsideHeading)
		for _, f := range p.Outside {
			blocks = append(blocks, outsideItem(f, compact))
		}
	}
	return strings.Join(blocks, "\n\n") + "\n\n" + p.stateMarkers() + summaryMarker
}

func (p *Plan) headline(blocking, warnings int) string {
	var where []string
	if n := len(p.Inline); n > 0 {
		where = append(where, prose.Count(n, "inline comment", "inline comments"))
	}
	if n := len(p.Outside); n > 0 {
		where = append(where, prose.Count(n, "finding", "findings")+" outside the current diff (below)")
	}
	earlier := 0
	for _, f := range p.AlreadyPosted {
		if p.inline[Fingerprint(f)] {
			earlier++
		}
	}
	if earlier > 0 {
		where = append(where, prose.Count(earlier, "finding", "findings")+" already commented on in an earlier review")
	}
	return "**reviewbot** found " + severityCounts(blocking, warnings) + ": " + strings.Join(where, ", ") + "."
}

func (p *Plan) newSinceLastReview() string {
	lines := []string{"**New since last review:**"}
	for _, f := range p.open {
		if p.isNew[Fingerprint(f)] {
			lines = append(lines, "- "+f.Severity.Emoji()+" "+prose.Code(findingLabel(f))+" — "+f.Rule+": "+prose.OneLine(f.Title))
		}
	}
	if len(lines) == 1 {
		return "No new findings since the last review."
	}
	return strings.Join(lines, "\n")
}

// stateMarkers records every open finding and where it was reported, so the
// next review can tell new findings from old ones (ParseSummaryFindings).
func (p *Plan) stateMarkers() string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, f := range p.open {
		fp := Fingerprint(f)
		if seen[fp] {
			continue
		}
		seen[fp] = true
		b.WriteString(postedMarker(f, fp, !p.inline[fp]) + "\n")
	}
	return b.String()
}

// outsideItem lists a finding in the summary, with its reasoning collapsed
// under it like an inline comment's.
func outsideItem(f checks.Finding, compact bool) string {
	first, rest, multi := strings.Cut(statement(f), "\n")
	item := "- " + f.Severity.Emoji() + " " + prose.Code(findingLabel(f)) + " — " + first
	if multi {
		item += "\n" + indent(rest, "  ")
	}
	blocks := reasoning(f, false)
	if compact || len(blocks) == 0 {
		return item
	}
	texts := make([]string, len(blocks))
	for i, bl := range blocks {
		texts[i] = bl.text
	}
	block := detailsOpen + "\n\n" + strings.Join(texts, "\n\n") + "\n\n</details>"
	return item + "\n\n" + indent(block, "  ")
}

// findingLabel is path:line of a finding, marking base-side lines.
func findingLabel(f checks.Finding) string {
	label := locLabel(f.Location())
	if f.Side == checks.Base && f.Path != "" {
		label += " (base)"
	}
	return label
}

func countSeverities(fs []checks.Finding) (blocking, warnings int) {
	for _, f := range fs {
		if f.Severity == checks.Blocking {
			blocking++
		} else {
			warnings++
		}
	}
	return blocking, warnings
}

// severityCounts reads like "2 🔴 blocking, 1 🟡 warning".
func severityCounts(blocking, warnings int) string {
	var parts []string
	if blocking > 0 {
		parts = append(parts, prose.Count(blocking, "🔴 blocking", "🔴 blocking"))
	}
	if warnings > 0 {
		parts = append(parts, prose.Count(warnings, "🟡 warning", "🟡 warnings"))
	}
	return strings.Join(parts, ", ")
}

func buildStatus(open []checks.Finding, notReviewed int) Status {
	blocking, warnings := countSeverities(open)
	var st Status
	switch {
	case blocking > 0:
		st.State = "failure"
		st.Description = prose.Count(blocking, "blocking finding", "blocking findings")
		if warnings > 0 {
			st.Description += ", " + prose.Count(warnings, "warning", "warnings")
		}
	case warnings > 0:
		st.State = "success"
		st.Description = "No blocking findings; " + prose.Count(warnings, "optional warning", "optional warnings")
	default:
		st.State = "success"
		st.Description = "No problems found"
	}
	if notReviewed > 0 {
		st.Description += "; " + prose.Count(notReviewed, "file", "files") + " not reviewed"
	}
	if utf8.RuneCountInString(st.Description) > maxStatusLength {
		st.Description = string([]rune(st.Description)[:maxStatusLength])
	}
	return st
}

// notReviewedSection names what the review did not judge, and why: a
// file the budget refused, one whose diff could not be read. No finding
// about such a file means nothing.
func (p *Plan) notReviewedSection() string {
	lines := []string{notReviewedHead}
	for i, n := range p.notReviewed {
		if i == maxNotReviewed {
			lines = append(lines, fmt.Sprintf("- … and %d more", len(p.notReviewed)-maxNotReviewed))
			break
		}
		lines = append(lines, "- "+notReviewedItem(n, true))
	}
	return strings.Join(lines, "\n")
}

// notReviewedItem is one line of what was not reviewed; markdown puts the
// path in a code span.
func notReviewedItem(n checks.NotReviewed, markdown bool) string {
	what := n.Path
	switch {
	case what == "":
		what = "the review"
	case markdown:
		what = prose.Code(what)
	}
	if markdown {
		return what + " — " + prose.OneLine(n.Reason)
	}
	return "not reviewed: " + what + " — " + prose.OneLine(n.Reason)
}
