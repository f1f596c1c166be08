package signoff

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Status is the outcome of one check.
type Status int

const (
	Pass Status = iota + 1
	Fail
	// NA counts as a pass: the check does not apply to this PR.
	NA
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Fail:
		return "FAIL"
	case NA:
		return "N/A"
	}
	return "?"
}

func (s Status) mark() string {
	switch s {
	case Pass:
		return "✅"
	case NA:
		return "➖"
	}
	return "❌"
}

// Check numbers and names, as the verdict prints them.
const (
	CheckOwner = iota
	CheckSweep
	CheckEvals
	CheckRecipe
	CheckReuse
	CheckTemplate
	CheckImages
	CheckDeprecated
	CheckArch
	CheckChatTemplate
	CheckPatches
	CheckGoldenAL
	CheckAppendOnly
	numChecks
)

var checkNames = [numChecks]string{
	"CODEOWNER", "sweep on in-PR commit", "evals pass", "upstream recipe", "reuse command",
	"latest checklist", "upstream image / engine-first", "deprecated models", "no architecture hacks",
	"spec-decode chat templates", "no engine patches", "agentic golden AL", "append-only",
}

// Name returns the name of check n.
func Name(n int) string {
	if n < 0 || n >= numChecks {
		return fmt.Sprintf("check %d", n)
	}
	return checkNames[n]
}

// Check is the result of one check.
type Check struct {
	N      int
	Status Status
	// Reason is the evidence for a pass, or the root issue of a failure,
	// in one line.
	Reason string
}

func (c Check) line() string {
	return fmt.Sprintf("%s Check %d (%s): %s — %s", c.Status.mark(), c.N, Name(c.N), c.Status, prose.OneLine(c.Reason))
}

// Verdict is the outcome of a sign-off verification.
type Verdict struct {
	// SHA is the commit the verdict is for (the head the sign-off signed).
	SHA    string
	Signer string
	Checks []Check
	// Notes are lines printed after the checks (the head moved since the
	// sign-off; checks that were not run locally).
	Notes []string
	// Blockers reject the sign-off whatever the checks say; the mention
	// line names them.
	Blockers []string
}

// Pass reports whether every check passed or does not apply, and nothing
// else blocks.
func (v *Verdict) Pass() bool {
	if len(v.Blockers) > 0 {
		return false
	}
	for _, c := range v.Checks {
		if c.Status == Fail {
			return false
		}
	}
	return len(v.Checks) > 0
}

// Failed returns the failed checks.
func (v *Verdict) Failed() []Check {
	var out []Check
	for _, c := range v.Checks {
		if c.Status == Fail {
			out = append(out, c)
		}
	}
	return out
}

// Unfinished is the verdict on a sign-off whose verification could not
// finish: the checks already decided keep their result, every other check
// fails with the cause, so the verdict says what went wrong and the status
// fails closed.
func Unfinished(sha, signer string, cause error, notes []string, decided []Check) *Verdict {
	v := &Verdict{SHA: sha, Signer: signer, Notes: notes}
	why := cause.Error()
	if i := strings.IndexByte(why, '\n'); i >= 0 {
		why = why[:i]
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		why = "the verification ran out of time (" + why + ")"
	}
	have := map[int]Check{}
	for _, c := range decided {
		have[c.N] = c
	}
	for n := CheckOwner; n <= CheckAppendOnly; n++ {
		if c, ok := have[n]; ok {
			v.Checks = append(v.Checks, c)
			continue
		}
		v.Checks = append(v.Checks, Check{N: n, Status: Fail, Reason: "not verified: " + why})
	}
	return v
}

// Marker returns the hidden marker of the verdict comment for sha, by
// which a re-run finds the comment and edits it.
func Marker(sha string) string {
	return "<!-- codeowner-signoff-verify sha=" + sha + " -->"
}

// ParseMarker returns the SHA of a verdict comment's marker.
func ParseMarker(body string) (string, bool) {
	const pre = "<!-- codeowner-signoff-verify sha="
	i := strings.Index(body, pre)
	if i < 0 {
		return "", false
	}
	rest := body[i+len(pre):]
	j := strings.Index(rest, " -->")
	if j <= 0 {
		return "", false
	}
	sha := rest[:j]
	for _, c := range sha {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return sha, true
}

// loginRe is what a GitHub login can be: letters, digits and single
// hyphens, at most 39 characters, not starting with a hyphen.
var loginRe = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}$`)

// Render writes the verdict comment: the header, on reject the @-mention
// of the signer with the blocking summary, one line per check, the notes,
// and the hidden marker.
func (v *Verdict) Render() string {
	var b strings.Builder
	if v.Pass() {
		b.WriteString("## ✅✅✅ **Verdict: PASS** ✅✅✅\n\n")
	} else {
		b.WriteString("## ❌❌❌ **REJECTED** ❌❌❌\n\n")
		who := "The signer"
		// The one mention of a verdict: the signer, on reject — and only a
		// name GitHub could have issued, never free text from the PR.
		if loginRe.MatchString(v.Signer) {
			who = "@" + v.Signer
		}
		failed := v.Failed()
		var parts []string
		if len(failed) > 3 {
			// Many at once (an outage): the numbers say enough.
			var nums []string
			for _, c := range failed {
				nums = append(nums, fmt.Sprint(c.N))
			}
			parts = append(parts, "checks "+prose.JoinAnd(nums))
		} else {
			for _, c := range failed {
				parts = append(parts, fmt.Sprintf("check %d (%s)", c.N, Name(c.N)))
			}
		}
		for _, bl := range v.Blockers {
			parts = append(parts, prose.OneLine(bl))
		}
		n := "one blocker"
		if blockers := len(failed) + len(v.Blockers); blockers > 1 {
			n = fmt.Sprintf("%d blockers", blockers)
		}
		fmt.Fprintf(&b, "%s — %s: %s. Each is explained below; fix it, then sign off again on the new head.\n\n", who, n, prose.JoinAnd(parts))
	}
	for _, c := range v.Checks {
		b.WriteString(c.line())
		b.WriteString("\n")
	}
	for _, n := range v.Notes {
		b.WriteString("\n")
		b.WriteString(prose.OneLine(n))
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(Marker(v.SHA))
	b.WriteString("\n")
	return b.String()
}

// Description is the commit status description (at most 140 characters).
func (v *Verdict) Description() string {
	if v.Pass() {
		return "Sign-off verified: every check passes"
	}
	var nums []string
	for _, c := range v.Failed() {
		nums = append(nums, fmt.Sprint(c.N))
	}
	if len(nums) == 0 {
		return "Sign-off rejected: a fresh sign-off is needed"
	}
	d := "Sign-off rejected: check " + strings.Join(nums, ", ") + " failed"
	if len(d) > 140 {
		d = d[:137] + "..."
	}
	return d
}
