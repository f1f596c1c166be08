// Package changelog checks the perf changelog (CL rules): the pr-link of
// new entries (CL001), that history is only appended to (CL002), that a
// master-config change has its entry (CL003), that entries name existing
// configs (CL004), the file's well-formedness (CL005), that append-only
// entries are not mixed with regular ones (CL006), trailing whitespace on
// added lines (CL007), and that an appended entry links its PR rather
// than the placeholder once the number is known (CL008), and that its
// description is written rather than a TODO (CL009).
//
// All rules share one model per review (Analyze): base and head parsed
// into entries (cached by blob ID) and aligned by exact entry text.
package changelog

import "github.com/reviewbot-dev/reviewbot/checks"

// Rules returns the changelog rules in run order.
func Rules() []*checks.Rule {
	return []*checks.Rule{CL001, CL002, CL003, CL004, CL005, CL006, CL007, CL008, CL009, CL010, CL011}
}
