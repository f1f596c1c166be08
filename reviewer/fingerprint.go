package reviewer

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/internal/markdown"
)

// Fingerprint identifies a finding across pushes: the rule, the file, and the
// normalized offending text. The line number is left out on purpose so that
// a finding keeps its identity when unrelated lines above it move.
func Fingerprint(f checks.Finding) string {
	key := checks.NormalizeKey(f.Key)
	if key == "" {
		// The pipeline always fills Key; a finding built elsewhere falls back
		// to its text, so two different problems in one file by one rule are
		// not mistaken for each other (re-posting beats hiding a new finding).
		key = checks.NormalizeKey(f.Title + "\n" + f.Body)
	}
	h := sha256.New()
	for _, part := range []string{f.Rule, f.Path, key} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

const (
	findingMarkerPrefix = "<!-- reviewbot:finding "
	summaryMarker       = "<!-- reviewbot:summary -->"
	postedMarkerPrefix  = "<!-- reviewbot:posted "
	markerSuffix        = "-->"
)

func findingMarker(rule, fp string) string {
	return findingMarkerPrefix + "rule=" + rule + " fp=" + fp + " " + markerSuffix
}

// ParseFindingMarker reads the hidden marker that ends every inline comment
// the bot posts. The app should only trust it on comments the bot authored:
// anyone can paste the marker into a comment of their own. Only the
// comment's end counts (markdown.EndMarkers): a marker the comment quotes
// from the PR is not the comment's own.
func ParseFindingMarker(body string) (rule, fp string, ok bool) {
	for _, m := range slices.Backward(markdown.EndMarkers(body)) {
		if !strings.HasPrefix(m, findingMarkerPrefix) {
			continue
		}
		fields, ok := markerFields(m[len(findingMarkerPrefix):])
		if !ok {
			return "", "", false
		}
		rule, fp = fields["rule"], fields["fp"]
		if !validRuleID(rule) || !validFingerprint(fp) {
			return "", "", false
		}
		return rule, fp, true
	}
	return "", "", false
}

// ParseSummaryMarker reports whether body is a summary comment of the bot,
// which a re-review edits in place instead of posting another: its last
// line is the summary marker.
func ParseSummaryMarker(body string) bool {
	m := markdown.EndMarkers(body)
	return len(m) > 0 && m[len(m)-1] == summaryMarker
}

// ParseSummaryFindings recovers, from a previous summary comment, every
// finding that review reported (inline or in the summary itself). Findings
// listed only in the summary have no inline comment to carry their marker,
// so without this a re-review could not tell them from new ones. Only the
// markers that end the summary count: a marker line quoted from the PR (in
// a code block of a finding) would otherwise hide a finding.
func ParseSummaryFindings(body string) []PostedFinding {
	var out []PostedFinding
	for _, line := range markdown.EndMarkers(body) {
		if !strings.HasPrefix(line, postedMarkerPrefix) {
			continue
		}
		fields, ok := markerFields(line[len(postedMarkerPrefix):])
		if !ok || !validRuleID(fields["rule"]) || !validFingerprint(fields["fp"]) {
			continue
		}
		path, err := url.PathUnescape(fields["path"])
		if err != nil {
			continue
		}
		out = append(out, PostedFinding{
			Fingerprint: fields["fp"],
			Rule:        fields["rule"],
			Path:        path,
			InSummary:   fields["where"] == "summary",
		})
	}
	return out
}

func postedMarker(f checks.Finding, fp string, inSummary bool) string {
	where := "inline"
	if inSummary {
		where = "summary"
	}
	return postedMarkerPrefix + "rule=" + f.Rule + " fp=" + fp + " path=" + escapeMarkerValue(f.Path) +
		" where=" + where + " " + markerSuffix
}

// markerFields parses `k=v k=v -->` up to the end of the comment.
func markerFields(s string) (map[string]string, bool) {
	end := strings.Index(s, markerSuffix)
	if end < 0 {
		return nil, false
	}
	fields := map[string]string{}
	for _, kv := range strings.Fields(s[:end]) {
		k, v, found := strings.Cut(kv, "=")
		if !found {
			return nil, false
		}
		fields[k] = v
	}
	return fields, true
}

// escapeMarkerValue percent-encodes everything that could end the HTML
// comment or split a field (">", spaces, "="), keeping ordinary path
// characters readable.
func escapeMarkerValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._/~+@,-", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

func validRuleID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func validFingerprint(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
