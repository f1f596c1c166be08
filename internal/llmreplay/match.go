package llmreplay

import "github.com/reviewbot-dev/reviewbot/checks"

// Slack is how many lines a finding of ours may lie beyond a hunk's span
// and still be at the same place.
const Slack = 3

// Match returns the findings of ours at the place of a finding on path
// with span: on the same path, with a line range that meets the span
// widened by Slack on both sides. Without a span (the finding named no
// line), every finding on the path is at its place. Findings about the
// base's lines and findings on no line do not meet a span.
func Match(path string, span *Span, ours []checks.Finding) []checks.Finding {
	var out []checks.Finding
	for _, f := range ours {
		if f.Path != path {
			continue
		}
		if span == nil {
			out = append(out, f)
			continue
		}
		if f.Side == checks.Base || f.Line <= 0 {
			continue
		}
		end := max(f.EndLine, f.Line)
		if f.Line <= span.End+Slack && end >= span.Start-Slack {
			out = append(out, f)
		}
	}
	return out
}
