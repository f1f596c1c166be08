package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
)

func runRules(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, markdown or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	reg, err := all.Registry()
	if err != nil {
		fmt.Fprintln(stderr, "reviewbot rules:", err)
		return exitError
	}
	switch *format {
	case "text":
		writeRulesText(stdout, reg.Rules())
	case "markdown", "md":
		fmt.Fprint(stdout, RulesMarkdown(reg.Rules()))
	case "json":
		type jr struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Title    string `json:"title"`
			Doc      string `json:"doc"`
		}
		out := []jr{}
		for _, r := range reg.Rules() {
			out = append(out, jr{r.ID, r.Severity.String(), r.Title, r.Doc})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "reviewbot rules:", err)
			return exitError
		}
	default:
		fmt.Fprintf(stderr, "reviewbot rules: unknown --format %q (want text, markdown or json)\n", *format)
		return exitError
	}
	return exitOK
}

func writeRulesText(w io.Writer, rules []*checks.Rule) {
	for i, r := range rules {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s %s (%s)\n", r.ID, r.Severity.Emoji(), r.Title, r.Severity)
		for _, line := range wrap(r.Doc, 76) {
			fmt.Fprintln(w, "    "+line)
		}
	}
}

// RulesMarkdown is the rule table of the README (a test keeps the README in
// step with the registry).
func RulesMarkdown(rules []*checks.Rule) string {
	var b strings.Builder
	b.WriteString("| ID | Severity | Title |\n|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| %s | %s %s | %s |\n", r.ID, r.Severity.Emoji(), r.Severity, strings.ReplaceAll(r.Title, "|", `\|`))
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
