package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

func rulesCommand(format *choiceFlag, long *bool) *command {
	cmd := newCommand("rules", "reviewbot rules [--long] [--format text|markdown|json]", "reviewbot rules ID... [--format text|markdown|json]")
	cmd.about = "Without IDs, lists every rule: its ID, severity and title (--long adds the documentation). With IDs,\n" +
		"explains those rules: the documentation and an example finding taken from the rule's fixture PR."
	*format = choiceFlag{value: "text", choices: []string{"text", "markdown", "json"}}
	cmd.fs.Var(format, "format", "output `FORMAT`: text, markdown or json (markdown and json always hold the documentation)")
	cmd.fs.BoolVar(long, "long", false, "text format: every rule's documentation, not only its title")
	return cmd
}

func runRules(args []string, stdout, stderr io.Writer) int {
	var format choiceFlag
	var long bool
	cmd := rulesCommand(&format, &long)
	ids, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	reg, err := all.Registry()
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot rules:", err)
		return exitError
	}
	rules := reg.Rules()
	explain := len(ids) > 0
	if explain {
		rules = nil
		for _, id := range ids {
			r, err := lookupRule(reg, id)
			if err != nil {
				fmt.Fprintln(stderr, "reviewbot rules:", err)
				return exitError
			}
			rules = append(rules, r)
		}
	}
	examples, err := ruleExamples()
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot rules:", err)
		return exitError
	}
	if !explain {
		examples = nil
	}
	switch {
	case format.value == "text" && !explain && !long:
		writeRulesList(stdout, rules)
	case format.value == "text":
		writeRulesText(stdout, rules, examples, textOptions(stdout, "auto", false, os.Getenv))
	case format.value == "markdown":
		fmt.Fprint(stdout, RulesMarkdown(rules, examples))
	case format.value == "json":
		if err := writeRulesJSON(stdout, rules, examples); err != nil {
			fmt.Fprintln(stderr, "reviewbot rules:", err)
			return exitError
		}
	}
	return exitOK
}

// lookupRule finds a rule by ID, in any case; an unknown ID is an error
// that suggests the ID it was probably meant to be.
func lookupRule(reg *checks.Registry, id string) (*checks.Rule, error) {
	if r := reg.Lookup(strings.ToUpper(strings.TrimSpace(id))); r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("unknown rule %q%s; `reviewbot rules` lists them", id, didYouMean(id, reg.SortedIDs()))
}

// writeRulesList is the compact list: one line per rule, its ID, severity
// and title, in the order the rule table of docs/rules.md has them.
func writeRulesList(w io.Writer, rules []*checks.Rule) {
	for _, r := range rules {
		fmt.Fprintf(w, "%-5s  %s %-8s  %s\n", r.ID, r.Severity.Emoji(), r.Severity, r.Title)
	}
}

type jsonRule struct {
	ID       string       `json:"id"`
	Severity string       `json:"severity"`
	Title    string       `json:"title"`
	Doc      string       `json:"doc"`
	HelpURI  string       `json:"help_uri"`
	Example  *ruleExample `json:"example,omitempty"`
}

func writeRulesJSON(w io.Writer, rules []*checks.Rule, examples map[string]*ruleExample) error {
	out := []jsonRule{}
	for _, r := range rules {
		out = append(out, jsonRule{r.ID, r.Severity.String(), r.Title, r.Doc, reviewer.RuleHelpURI(r.ID), examples[r.ID]})
	}
	enc := json.NewEncoder(w)
	// Docs are full of <, > and & (shell redirections, HTML comments).
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeRulesText(w io.Writer, rules []*checks.Rule, examples map[string]*ruleExample, o reviewer.TextOptions) {
	width := 80
	if o.Width > 0 {
		width = o.Width
	}
	for i, r := range rules {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s %s (%s)\n", r.ID, r.Severity.Emoji(), r.Title, r.Severity)
		for _, line := range wrap(r.Doc, width-4) {
			fmt.Fprintln(w, "    "+line)
		}
		if ex := examples[r.ID]; ex != nil {
			fmt.Fprintf(w, "\n    Example, from `reviewbot review --fixture testdata/prs/%s`:\n\n", ex.Fixture)
			var b bytes.Buffer
			o := o
			if o.Width > 8 {
				o.Width -= 8
			}
			_ = reviewer.WriteFindingText(&b, ex.Finding, o)
			for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				fmt.Fprintln(w, strings.TrimRight("        "+line, " "))
			}
		}
	}
}

// RulesMarkdown documents rules in markdown: a table linking each ID to a
// section with its documentation (and, when given, an example finding).
// The rule section of docs/rules.md is this output for every rule; a test keeps
// them equal. The sections' "### ID" headings are the anchors SARIF's
// helpUri points at.
func RulesMarkdown(rules []*checks.Rule, examples map[string]*ruleExample) string {
	var b strings.Builder
	b.WriteString("| ID | Severity | Title |\n|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Severity.Emoji(), r.Severity,
			strings.ReplaceAll(r.Title, "|", `\|`))
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "\n### %s\n\n%s %s · %s\n\n%s\n", r.ID, r.Severity.Emoji(), r.Severity, r.Title, r.Doc)
		if ex := examples[r.ID]; ex != nil {
			var t bytes.Buffer
			_ = reviewer.WriteFindingText(&t, ex.Finding, reviewer.TextOptions{})
			fence := "```"
			for strings.Contains(t.String(), fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "\nExample, from `reviewbot review --fixture testdata/prs/%s`:\n\n%s\n%s%s\n", ex.Fixture, fence, t.String(), fence)
		}
	}
	return b.String()
}

func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			lines = append(lines, "")
			continue
		}
		line := words[0]
		for _, w := range words[1:] {
			if len(line)+1+len(w) > width {
				lines = append(lines, line)
				line = w
				continue
			}
			line += " " + w
		}
		lines = append(lines, line)
	}
	return lines
}
