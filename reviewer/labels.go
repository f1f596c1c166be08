package reviewer

import (
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// PrimarySweepLabels start the benchmark sweep of a PR; a PR that changes
// what the sweep runs must carry exactly one of them.
var PrimarySweepLabels = []string{"full-sweep-fail-fast", "full-sweep-enabled", "non-canary-full-sweep-enabled"}

// SweepModifierLabels change how a sweep runs and mean nothing without a
// primary label.
var SweepModifierLabels = []string{"all-evals", "evals-only", "agentx-fast"}

// SweepLabels is what the summary says about a PR's sweep labels.
type SweepLabels struct {
	// Applies is set when the PR changes recipes, master configs or the
	// perf changelog, the changes the sweep must run for.
	Applies bool
	Labels  []string
}

// Problem is the 🟡 line of the summary for a label violation, or "".
func (s SweepLabels) Problem() string {
	if !s.Applies {
		return ""
	}
	var primary, modifiers []string
	for _, l := range s.Labels {
		switch {
		case isOneOf(l, PrimarySweepLabels):
			primary = append(primary, l)
		case isOneOf(l, SweepModifierLabels):
			modifiers = append(modifiers, l)
		}
	}
	sort.Strings(primary)
	sort.Strings(modifiers)
	const lead = "🟡 **Sweep labels:** this PR changes recipes, master configs or the perf changelog, "
	switch {
	case len(primary) == 0 && len(modifiers) > 0:
		return lead + "and " + codeList(modifiers, "and") + " " + prose.Pick(len(modifiers), "modifies", "modify") +
			" a sweep, but no primary sweep label starts one. Add exactly one of " + codeList(PrimarySweepLabels, "or") +
			" (`full-sweep-fail-fast` is recommended)."
	case len(primary) == 0:
		return lead + "but carries no primary sweep label, and the benchmark sweep only runs on labeled PRs. " +
			"Add exactly one of " + codeList(PrimarySweepLabels, "or") + " (`full-sweep-fail-fast` is recommended)."
	case len(primary) > 1:
		return lead + "and carries " + codeList(primary, "and") + "; a PR takes exactly one primary sweep label. Remove all but one."
	}
	return ""
}

const (
	labelSectionOpen  = "<!-- reviewbot:labels "
	labelSectionClose = "<!-- /reviewbot:labels -->"
)

// section is the part of the summary that label changes rewrite in place.
// Its opening marker records whether the rule applies, so a label event
// can re-evaluate it without reading the PR's files again.
func (s SweepLabels) section() string {
	applies := "0"
	if s.Applies {
		applies = "1"
	}
	open := labelSectionOpen + "sweep=" + applies + " " + markerSuffix
	if p := s.Problem(); p != "" {
		return open + "\n" + p + "\n" + labelSectionClose
	}
	return open + "\n" + labelSectionClose
}

// ParseLabelSection reports whether the summary has a label section and,
// if so, whether the sweep-label rule applied at the last review.
func ParseLabelSection(summary string) (applies, found bool) {
	if !strings.HasPrefix(summary, labelSectionOpen) {
		return false, false // the section opens the summary; elsewhere it is quoted text
	}
	fields, ok := markerFields(summary[len(labelSectionOpen):])
	if !ok {
		return false, false
	}
	return fields["sweep"] == "1", true
}

// UpdateLabelSection rewrites the label section of a summary comment for
// new labels, keeping everything else. A summary without a section (written
// by an older version) gets one at the top. applies comes from
// ParseLabelSection: only a review decides it.
func UpdateLabelSection(summary string, s SweepLabels) string {
	if strings.HasPrefix(summary, labelSectionOpen) {
		// The closing marker is a line of its own: the labels the
		// section names are quoted inside its lines.
		if end := strings.Index(summary, "\n"+labelSectionClose); end >= 0 {
			return s.section() + summary[end+1+len(labelSectionClose):]
		}
	}
	return s.section() + "\n\n" + summary
}

func isOneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func codeList(items []string, conj string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = prose.Code(s)
	}
	switch len(quoted) {
	case 0:
		return ""
	case 1:
		return quoted[0]
	case 2:
		return quoted[0] + " " + conj + " " + quoted[1]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " " + conj + " " + quoted[len(quoted)-1]
}
