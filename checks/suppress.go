package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// Inline suppression: a `# reviewbot:ignore RULE[,RULE...] reason` comment
// (or `<!-- reviewbot:ignore RULE reason -->` in markdown) silences those
// rules' findings on its own line and on the line below it. The reason is
// required: the next author copying the file needs to know why the
// deviation is deliberate, which is what the findings themselves ask for.

// Suppression is one `reviewbot:ignore` comment of a head file.
type Suppression struct {
	Path   string
	Line   int
	Rules  []string // upper-cased, in the order written
	Reason string
	// Problem says why the comment is not applied ("" when it is valid),
	// Fix what to do about it.
	Problem, Fix string
}

// Covers reports whether s silences a finding of rule starting at line.
func (s Suppression) Covers(rule string, line int) bool {
	if s.Problem != "" || line <= 0 || (s.Line != line && s.Line != line-1) {
		return false
	}
	for _, r := range s.Rules {
		if r == rule {
			return true
		}
	}
	return false
}

var ignoreComment = regexp.MustCompile(`(?:^|\s)(#|<!--)\s*reviewbot:ignore\b(.*)$`)

// ParseSuppression reads a suppression comment from one line of a file;
// ok is false when the line has none. known reports whether a rule ID
// exists (nil accepts every ID).
func ParseSuppression(line string, known func(id string) bool) (s Suppression, ok bool) {
	m := ignoreComment.FindStringSubmatch(line)
	if m == nil {
		return Suppression{}, false
	}
	rest := m[2]
	if m[1] == "<!--" {
		rest, _, _ = strings.Cut(rest, "-->")
	}
	fields := strings.Fields(rest)
	if len(fields) > 0 {
		for _, id := range strings.Split(fields[0], ",") {
			if id = strings.ToUpper(strings.TrimSpace(id)); id != "" {
				s.Rules = append(s.Rules, id)
			}
		}
		s.Reason = strings.Join(fields[1:], " ")
	}
	var unknown []string
	for _, id := range s.Rules {
		if known != nil && !known(id) {
			unknown = append(unknown, id)
		}
	}
	switch {
	case len(s.Rules) == 0:
		s.Problem = "names no rule"
		s.Fix = "Write it as `# reviewbot:ignore RULE reason`"
	case len(unknown) > 0:
		s.Problem = fmt.Sprintf("names %s, which is not a rule", strings.Join(quoteEach(unknown), ", "))
		s.Fix = "Correct the rule ID (`reviewbot rules` lists them)"
	case strings.Trim(s.Reason, " -:—–") == "":
		s.Problem = "gives no reason"
		s.Fix = "Write it as " + prose.Code("# reviewbot:ignore "+strings.Join(s.Rules, ",")+" <why the finding does not apply here>")
	}
	return s, true
}

func quoteEach(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = prose.Code(id)
	}
	return out
}

// ignoreLines maps the line numbers of a file that mention
// reviewbot:ignore to their text. It is cached by blob ID like any parse,
// so a warm review does not read the file again to look for suppressions.
func ignoreLines(ctx context.Context, ch *Change, p string) (ignoreMap, error) {
	return Parsed(ctx, ch.Cache, ch.Head, "checks.ignoreLines", p, func(b []byte) (ignoreMap, error) {
		if !bytes.Contains(b, []byte("reviewbot:ignore")) {
			return nil, nil
		}
		out := ignoreMap{}
		for i, l := range bytes.Split(b, []byte("\n")) {
			if bytes.Contains(l, []byte("reviewbot:ignore")) {
				out[i+1] = string(l)
			}
		}
		return out, nil
	})
}

// suppressionsAt returns the suppressions on the given lines.
func suppressionsAt(p string, lines map[int]string, at []int, known func(string) bool) []Suppression {
	var out []Suppression
	for _, n := range at {
		text, ok := lines[n]
		if !ok {
			continue
		}
		if s, ok := ParseSuppression(text, known); ok {
			s.Path, s.Line = p, n
			out = append(out, s)
		}
	}
	return out
}

// addedSuppressions lists the suppression comments on lines the PR added,
// in every changed text file: RB002 and RB003 judge only those.
func addedSuppressions(ctx context.Context, ch *Change, known func(string) bool) ([]Suppression, error) {
	v, err := Shared(ch, addedSuppressionsKey, "", func() ([]Suppression, error) {
		var out []Suppression
		for _, fc := range ch.Files {
			if fc.Status == Deleted || fc.Binary || !fc.Changed() {
				continue
			}
			lines, err := ignoreLines(ctx, ch, fc.Path)
			if err != nil {
				// A path the tree cannot read as a file (absent, a
				// submodule, a directory, over the size limit) holds no
				// comment to suppress anything with.
				var pe *fs.PathError
				if IsNotExist(err) || errors.As(err, &pe) {
					continue
				}
				return nil, fmt.Errorf("read %s: %w", fc.Path, err)
			}
			if len(lines) == 0 {
				continue
			}
			var at []int
			for n := range lines {
				if fc.IsAdded(n) {
					at = append(at, n)
				}
			}
			sort.Ints(at)
			out = append(out, suppressionsAt(fc.Path, lines, at, known)...)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// applySuppressions drops the findings a valid suppression comment covers
// and returns how many it dropped. Findings about the base version
// (deleted lines) and file-level findings have no head line a comment
// could sit on; the repository configuration disables those.
func applySuppressions(ctx context.Context, ch *Change, reg *Registry, fs []Finding) ([]Finding, int) {
	known := func(id string) bool { return reg.Lookup(id) != nil }
	linesOf := map[string]map[int]string{}
	out := fs[:0]
	dropped := 0
	for _, f := range fs {
		if f.Side != Head || f.Line <= 0 {
			out = append(out, f)
			continue
		}
		lines, ok := linesOf[f.Path]
		if !ok {
			// A file that cannot be read has no suppressions: the finding
			// stays, which is the safe side.
			lines, _ = ignoreLines(ctx, ch, f.Path)
			linesOf[f.Path] = lines
		}
		covered := false
		for _, s := range suppressionsAt(f.Path, lines, []int{f.Line - 1, f.Line}, known) {
			if s.Covers(f.Rule, f.Line) {
				covered = true
				break
			}
		}
		if covered {
			dropped++
			continue
		}
		out = append(out, f)
	}
	return out, dropped
}

// Rules returns reviewbot's own rules (RB): about its configuration and
// its suppression comments. RB003 reads every other rule's findings, so
// these run last.
func Rules() []*Rule {
	return []*Rule{configRule(), badSuppressionRule(), unusedSuppressionRule()}
}

func badSuppressionRule() *Rule {
	return &Rule{
		ID:       "RB002",
		Severity: Warning,
		Title:    "reviewbot:ignore comment without a reason or with an unknown rule",
		Doc: "A `# reviewbot:ignore RULE reason` comment silences RULE's findings on its line and the line " +
			"below. The reason is required, so the next author who copies the file knows the deviation is " +
			"deliberate; a comment without one, or naming a rule ID that does not exist, is not applied and " +
			"is reported here. Fix: add the reason after the rule ID, or correct the ID (`reviewbot rules` " +
			"lists them).",
		Run: func(p *Pass) error {
			sups, err := addedSuppressions(p.Ctx, p.Change, p.known)
			if err != nil {
				return err
			}
			for _, s := range sups {
				if s.Problem == "" {
					continue
				}
				p.Report(Finding{
					Path: s.Path, Line: s.Line, Title: "reviewbot:ignore comment is not applied: it " + s.Problem,
					Body: fmt.Sprintf("The suppression comment at %s %s, so it silences nothing. "+
						"%s, on the line of the finding or the line above it.", prose.CodeAt(s.Path, s.Line), s.Problem, s.Fix),
					Key: "reviewbot:ignore " + strings.Join(s.Rules, ",") + " " + s.Reason,
				})
			}
			return nil
		},
	}
}

func unusedSuppressionRule() *Rule {
	return &Rule{
		ID:       "RB003",
		Severity: Warning,
		Title:    "reviewbot:ignore comment silences nothing",
		After:    []string{"*"},
		Doc: "Reported only with `--report-unused-ignores` (or `report-unused-ignores: true` in " +
			"`.github/reviewbot.yml`): a `reviewbot:ignore` comment the PR adds that matches no finding of " +
			"the rules it names, on its line or the line below. A stale suppression hides the next real " +
			"finding there; remove it.",
		Run: func(p *Pass) error {
			if !p.Config().ReportUnusedIgnores {
				return nil
			}
			sups, err := addedSuppressions(p.Ctx, p.Change, p.known)
			if err != nil {
				return err
			}
			for _, s := range sups {
				if s.Problem != "" {
					continue // RB002 reports it
				}
				var unused []string
				for _, rule := range s.Rules {
					used := false
					for _, f := range p.Prior() {
						if f.Path == s.Path && f.Side == Head && (Suppression{Line: s.Line, Rules: []string{rule}}).Covers(f.Rule, f.Line) {
							used = true
							break
						}
					}
					if !used {
						unused = append(unused, rule)
					}
				}
				if len(unused) == 0 {
					continue
				}
				sort.Strings(unused)
				p.Report(Finding{
					Path: s.Path, Line: s.Line,
					Title: "reviewbot:ignore comment silences nothing",
					Body: fmt.Sprintf("The suppression comment at %s names %s, but no finding of %s is reported on "+
						"line %d or %d. Remove it (or the rule IDs that do not apply): a stale suppression would hide the next "+
						"real finding here.", prose.CodeAt(s.Path, s.Line), strings.Join(quoteEach(unused), ", "),
						map[bool]string{true: "that rule", false: "those rules"}[len(unused) == 1], s.Line, s.Line+1),
					Key: "reviewbot:ignore " + strings.Join(unused, ","),
				})
			}
			return nil
		},
	}
}

// known reports whether a rule ID exists in the registry under review.
func (p *Pass) known(id string) bool {
	return p.reg == nil || p.reg.Lookup(id) != nil
}

// ignoreMap is ignoreLines' result: line number → the line's text.
type ignoreMap map[int]string

// MemSize is the memory the map holds, for the parse cache.
func (m ignoreMap) MemSize() int64 {
	n := int64(64)
	for _, l := range m {
		n += 48 + int64(len(l))
	}
	return n
}

// addedSuppressionsKey shares addedSuppressions within a change.
var addedSuppressionsKey = NewMemoKey[[]Suppression]("checks.addedSuppressions")
