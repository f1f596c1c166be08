package recipe

// SH005: `lazy_offload: false` for SimpleCPUOffloadConnector where a
// sibling documents that eager mode fails. The rule only speaks when the
// repository itself has written the failure down (a comment that ties
// eager mode / lazy_offload to an assertion): the connector's behaviour is
// not something a static check can know otherwise.

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// SH005 reports eager SimpleCPU offload against the repository's own
// warning.
var SH005 = &checks.Rule{
	ID:       "SH005",
	Severity: checks.Blocking,
	Title:    "lazy_offload false with SimpleCPUOffloadConnector",
	Doc: "A sibling recipe documents that `SimpleCPUOffloadConnector` in eager mode (`lazy_offload: false`) " +
		"crashes with an assertion at the low and mid concurrencies agentic sweeps run, which is why the " +
		"siblings pass `\"lazy_offload\": true` in the JSON form of the transfer config. This rule reports a " +
		"change that sets `lazy_offload` to false for that connector while such a comment exists, cites the " +
		"comment, and proposes `true`.",
	Run: runSH005,
}

func init() { register(SH005) }

const lazyKey = extraConfigKey + ".lazy_offload"

// eagerWarningTerms are the phrases of a comment that documents the eager
// mode failure: one of the first group and one of the second.
var eagerWarningTerms = [][]string{
	{"lazy_offload", "lazy offload", "eager"},
	{"popleft", "assert"},
}

func runSH005(p *checks.Pass) error { return eachChangedRecipe(p, sh005) }

// eagerOff reports whether the config turns lazy offload off, and where.
func eagerOff(k kvConfig) (JSONEntry, bool) {
	e, ok := k.JSON.Entry(lazyKey)
	return e, ok && !e.Dynamic && e.Kind == JSONBool && e.Value == "false"
}

// warningComment is a comment that documents the eager-mode failure.
type warningComment struct {
	Path    string
	Head    bool
	Comment Comment
}

func sh005(p *checks.Pass, t *target) error {
	var todo []kvConfig
	for _, k := range kvConfigsOf(t.Head, simpleConnector) {
		e, off := eagerOff(k)
		if !off || !t.added(e.Line) {
			continue
		}
		if t.Base != nil && baseEager(t.Base, k) {
			continue
		}
		todo = append(todo, k)
	}
	if len(todo) == 0 {
		return nil
	}
	sibs, err := Siblings(p.Ctx, p.Change, t.Path)
	if err != nil {
		return err
	}
	// The first sibling comment (in path order) is the one cited; this
	// file's own untouched comment counts when no sibling has one.
	var warnings []warningComment
	for _, s := range sibs {
		if cs := commentBlocksWith(s.Facts, eagerWarningTerms...); len(cs) > 0 {
			warnings = append(warnings, warningComment{s.Path, false, cs[0]})
			break
		}
	}
	for _, c := range commentBlocksWith(t.Head, eagerWarningTerms...) {
		if !t.touches(c.Line, c.EndLine) {
			warnings = append(warnings, warningComment{t.Path, true, c})
		}
	}
	if len(warnings) == 0 {
		return nil // nothing in the repository says eager mode fails
	}
	type lazyUse struct {
		path string
		line int
	}
	var lazy []lazyUse
	for _, s := range sibs {
		for _, k := range kvConfigsOf(s.Facts, simpleConnector) {
			if e, ok := k.JSON.Entry(lazyKey); ok && e.Kind == JSONBool && e.Value == "true" {
				lazy = append(lazy, lazyUse{s.Path, e.Line})
				break
			}
		}
	}
	for _, k := range todo {
		e, _ := eagerOff(k)
		var related []checks.Location
		w0 := warnings[0]
		if w0.Head {
			related = append(related, headLoc(w0.Path, w0.Comment.Line, w0.Comment.EndLine, "documents the eager-mode failure"))
		} else {
			related = append(related, baseLoc(w0.Path, w0.Comment.Line, w0.Comment.EndLine, "documents the eager-mode failure"))
		}
		var refs []string
		for _, u := range lazy {
			if len(refs) >= maxEvidence {
				break
			}
			related = append(related, baseLoc(u.path, u.line, 0, "passes lazy_offload: true to "+simpleConnector))
			refs = append(refs, code(ref(u.path, u.line, 0)))
		}

		where := code(ref(w0.Path, w0.Comment.Line, w0.Comment.EndLine))
		if w0.Head {
			where = "this file's comment at lines " + fmt.Sprintf("%d-%d", w0.Comment.Line, w0.Comment.EndLine)
		}
		msg := fmt.Sprintf("%s (line %d) runs %s in eager mode, which %s documents as failing: %s",
			code(`"lazy_offload": false`), e.Line, code(simpleConnector), where, quoteSentence(w0.Comment.Text))
		if len(lazy) > 0 {
			msg += fmt.Sprintf(" Every sibling that configures this connector passes `lazy_offload: true` (%s).", joinAnd(refs))
		}
		msg += " Set it to `true`."

		var sug *checks.Suggestion
		line := t.Head.LineText(e.Line)
		if vs, ve, ok := jsonMember(line, jsonQuote(k.JSON), "lazy_offload"); ok && line[vs:ve] == "false" {
			sug = &checks.Suggestion{Line: e.Line, EndLine: e.Line, Replacement: line[:vs] + "true" + line[ve:]}
		}

		var b strings.Builder
		wr := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
		wr("**The bug.** The %s config (line %d) sets `lazy_offload` to false, so the connector offloads eagerly. ", code(simpleConnector), k.Line)
		wr("The repository has already written down what that does, in %s:\n\n", code(ref(w0.Path, w0.Comment.Line, w0.Comment.EndLine)))
		for _, l := range strings.Split(w0.Comment.Text, "\n") {
			wr("> %s\n", l)
		}
		wr("\n")
		if len(lazy) > 0 {
			wr("**Evidence.** Every sibling recipe that configures %s passes `\"lazy_offload\": true` (%s); that is the reason the siblings use the JSON form instead of the `--kv_offloading_backend` shortcut, which cannot pass the flag.\n\n", code(simpleConnector), joinAnd(refs))
		}
		wr("**Why it matters.** The assertion takes the server process down: the points of this branch that hit it fail instead of producing a measurement, and the sweep comes back partial or empty. Nothing before the run checks the value.\n\n")
		wr("**Step by step.**\n\n")
		b.WriteString(enterStep(k.JSON.Path))
		wr("2. The server starts with %s and `lazy_offload: false` (line %d).\n", code(simpleConnector), e.Line)
		wr("3. Under load, the eager path hits the assertion the comment describes, and the server process exits.\n")
		wr("4. The benchmark client loses its server; the point fails instead of producing a measurement.\n\n")
		wr("**Fix.** Set `\"lazy_offload\": true`, as the siblings do.\n")

		p.Report(checks.Finding{
			Path:       t.Path,
			Line:       e.Line,
			Title:      "lazy_offload false with " + simpleConnector,
			Message:    msg,
			Details:    b.String(),
			Related:    related,
			Suggestion: sug,
			Key:        simpleConnector + ":lazy_offload=false",
			Facts:      []string{"json-key:" + lazyKey, "json:" + lazyKey + "=true", "json:" + lazyKey + "=false"},
		})
	}
	return nil
}

// baseEager reports whether the base version already ran the same branch's
// config with lazy offload off.
func baseEager(f *Facts, k kvConfig) bool {
	for _, b := range kvConfigsOf(f, simpleConnector) {
		if _, off := eagerOff(b); off && b.JSON.Path.String() == k.JSON.Path.String() {
			return true
		}
	}
	return false
}

// quoteSentence quotes the sentence of a comment that names the failure
// (the first one mentioning an assertion or popleft), or the whole comment
// when it has no such sentence.
func quoteSentence(text string) string {
	flat := strings.Join(strings.Fields(text), " ")
	sentences := splitSentences(flat)
	for _, s := range sentences {
		l := strings.ToLower(s)
		if strings.Contains(l, "assert") || strings.Contains(l, "popleft") {
			return "“" + strings.TrimSpace(s) + "”"
		}
	}
	return "“" + flat + "”"
}

// splitSentences splits prose after ". ", keeping the periods.
func splitSentences(s string) []string {
	var out []string
	for {
		i := strings.Index(s, ". ")
		if i < 0 {
			if strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
			return out
		}
		out = append(out, s[:i+1])
		s = s[i+2:]
	}
}
