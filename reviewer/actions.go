package reviewer

import (
	"fmt"
	"io"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// WriteGitHub writes GitHub Actions workflow commands (`::error file=...`),
// which the Actions runner turns into annotations on the PR's files.
func WriteGitHub(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, f := range r.sorted() {
		cmd := "warning"
		if severityName(f.Severity) == "blocking" {
			cmd = "error"
		}
		msg := statement(f)
		props := []string{}
		if f.Side == checks.Base {
			// The annotation lands on the head checkout, where the base
			// line number points at something else: annotate the file.
			props = append(props, "file="+escapeProperty(headPath(r.Files, f.Path)))
			if f.Line > 0 {
				msg += fmt.Sprintf("\n\n(Reported on line %d of the base version, which this PR removed or changed.)", f.Line)
			}
		} else {
			props = append(props, "file="+escapeProperty(f.Path))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
				if f.EndLine > f.Line {
					props = append(props, fmt.Sprintf("endLine=%d", f.EndLine))
				}
			}
		}
		props = append(props, "title="+escapeProperty("["+f.Rule+"] "+prose.OneLine(f.Title)))
		if len(f.Related) > 0 {
			msg += "\n\nEvidence:\n" + evidenceLines(f.Related, "- ")
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg))
	}
	for _, err := range r.Errors {
		fmt.Fprintf(&b, "::error title=reviewbot::%s\n", escapeData(err.Error()))
	}
	for _, n := range r.NotReviewed {
		props := "title=" + escapeProperty("reviewbot: not reviewed")
		if n.Path != "" && !strings.HasSuffix(n.Path, "/") {
			props = "file=" + escapeProperty(n.Path) + "," + props
		}
		fmt.Fprintf(&b, "::warning %s::%s\n", props, escapeData(notReviewedItem(n, false)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property value, which also
// must not contain the separators of the property list.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteGitHubError writes an error of the run itself (a usage or I/O
// error) as a workflow command, so that it shows on the pull request's
// checks and not only in the job log.
func WriteGitHubError(w io.Writer, msg string) error {
	_, err := fmt.Fprintf(w, "::error title=reviewbot::%s\n", escapeData(msg))
	return err
}
