package changelog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl009Doc = "An entry's `description` is what a reader of a published result learns about the change " +
	"behind it. A line that still says `TODO`, `TBD`, `TBA` or `FIXME` (as a word in capitals) is a note to the " +
	"author that was never replaced, and it is merged as the record of the change. This is a warning: the merge " +
	"tooling does not read the description. Lines already in the history are not judged."

// unfinishedWords are the markers of a line still to be written; they count
// only as whole words in capitals ("Todo list" in prose is not one).
var unfinishedWords = []string{"TODO", "TBD", "TBA", "FIXME"}

// CL009 flags a description line of an appended entry that is still a
// marker of text to be written.
var CL009 = &checks.Rule{
	ID:       "CL009",
	Severity: checks.Warning,
	Title:    "New changelog entry's description is still to be written",
	Doc:      cl009Doc,
	Run:      runCL009,
}

func runCL009(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	for i, e := range a.NewEntries() {
		if e.Err != nil || e.Kind != yamlMapping {
			continue
		}
		fld := e.Get(keyDescription)
		if fld == nil {
			continue // CL005 asks for the field
		}
		for _, it := range fld.Items {
			if !it.IsString() {
				continue
			}
			word := unfinishedMarker(it.Value)
			if word == "" {
				continue
			}
			keys := ""
			if names := e.KeyNames(); len(names) > 0 {
				keys = " for " + codeList(names, 3)
			}
			f := checks.Finding{
				Path:  a.Path,
				Line:  it.Line,
				Title: "New changelog entry's description is still to be written",
				Body: fmt.Sprintf("The description of the entry this PR adds%s (%s line %d) still says %s: %s. "+
					"Write what the change does (the image, flags or search space it changes and why) before it merges; the entry is the record a published result is traced to.",
					keys, prose.Code(a.Path), it.Line, prose.Code(word), prose.CodeLine(it.Value)),
				Key: "description-unfinished:" + strconv.Itoa(i) + ":" + word,
			}
			p.Report(f)
		}
	}
	return nil
}

// unfinishedMarker returns the first marker of unfinished text that s holds
// as a whole word in capitals, or "".
func unfinishedMarker(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	for _, w := range words {
		for _, m := range unfinishedWords {
			if w == m {
				return m
			}
		}
	}
	return ""
}
