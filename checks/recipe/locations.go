package recipe

// Where a finding's evidence points: base, head or sibling lines.

import (
	"path"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// maxEvidence caps the sibling locations a finding cites: enough to show
// a convention, few enough to read.
const maxEvidence = 5

// baseLoc cites lines of a base-tree file (a sibling, or the base version
// of the file under review) as evidence. end may be 0 for one line.
func baseLoc(p string, line, end int, note string) checks.Location {
	if end <= line {
		end = 0
	}
	return checks.Location{Path: p, Line: line, EndLine: end, Side: checks.Base, Note: note}
}

// headLoc cites lines of the file under review as the PR leaves it.
func headLoc(p string, line, end int, note string) checks.Location {
	if end <= line {
		end = 0
	}
	return checks.Location{Path: p, Line: line, EndLine: end, Note: note}
}

// ref renders a location for prose: the file's base name and its lines
// ("dsv4_fp4_b200_vllm.sh:58", "kimik3_fp4_h200_vllm.sh:38-41").
func ref(p string, line, end int) string {
	l := checks.Location{Path: path.Base(p), Line: line, EndLine: end}
	return l.String()
}
