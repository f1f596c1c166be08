package reviewer

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const (
	sarifSchema   = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion  = "2.1.0"
	fingerprintV1 = "reviewbot/v1"
)

// InformationURI is reviewbot's home page.
const InformationURI = "https://github.com/reviewbot-dev/reviewbot"

// RuleHelpURI links a rule's documentation: its section of docs/rules.md,
// whose "### ID" headings GitHub anchors as #id.
func RuleHelpURI(id string) string {
	return InformationURI + "/blob/main/docs/rules.md#" + strings.ToLower(id)
}

// semver is Semantic Versioning 2.0.0, which SARIF's semanticVersion
// requires (Go module versions are semver with a leading v).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifMessage      `json:"help"`
	HelpURI              string            `json:"helpUri"`
	DefaultConfiguration sarifRuleDefaults `json:"defaultConfiguration"`
}

// sarifMessage is a multiformatMessageString / message: text is
// required, markdown optional (viewers that render it prefer it).
type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleDefaults struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine,omitempty"`
}

func sarifLevel(s checks.Severity) string {
	if s == checks.Blocking {
		return "error"
	}
	return "warning"
}

func sarifPhysical(path string, line, end int) sarifPhysicalLocation {
	// SARIF lines start at 1; a file-level finding points at the first line.
	line = max(line, 1)
	r := sarifRegion{StartLine: line}
	if end > line {
		r.EndLine = end
	}
	return sarifPhysicalLocation{
		ArtifactLocation: sarifArtifact{URI: sarifURI(path), URIBaseID: "%SRCROOT%"},
		Region:           r,
	}
}

// sarifURI turns a repository path into the relative URI reference SARIF
// wants: each segment percent-encoded, so a space or '#' in a file name
// stays part of the path.
func sarifURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// WriteSARIF writes a SARIF 2.1.0 log, the format code-scanning tools
// (GitHub code scanning among them) import. Locations point into the head
// checkout: a finding about the base version (a deleted line) is reported
// at its file, with the base line in the message, and base-side evidence
// is mapped to its head line when the PR kept that line.
func WriteSARIF(w io.Writer, r *Report) error {
	driver := sarifDriver{Name: "reviewbot", InformationURI: InformationURI, Rules: []sarifRule{}}
	if r.Version != "" && r.Version != "devel" {
		driver.Version = r.Version
		if v := strings.TrimPrefix(r.Version, "v"); semver.MatchString(v) {
			driver.SemanticVersion = v
		}
	}
	index := map[string]int{}
	addRule := func(id, title, doc string, sev checks.Severity) {
		if _, ok := index[id]; ok {
			return
		}
		index[id] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{
			ID: id, Name: ruleName(id, title),
			ShortDescription: sarifText{Text: title},
			FullDescription:  sarifText{Text: doc},
			Help: sarifMessage{Text: doc, Markdown: fmt.Sprintf("**%s** (%s %s)\n\n%s\n\n[Documentation](%s)",
				title, sev.Emoji(), sev, doc, RuleHelpURI(id))},
			HelpURI:              RuleHelpURI(id),
			DefaultConfiguration: sarifRuleDefaults{Level: sarifLevel(sev)},
		})
	}
	for _, rule := range r.Rules {
		if rule != nil {
			addRule(rule.ID, rule.Title, rule.Doc, rule.Severity)
		}
	}

	run := sarifRun{Results: []sarifResult{}, Invocations: []sarifInvocation{{ExecutionSuccessful: len(r.Errors) == 0}}}
	for _, err := range r.Errors {
		run.Invocations[0].Notifications = append(run.Invocations[0].Notifications,
			sarifNotification{Level: "error", Message: sarifText{Text: err.Error()}})
	}
	for _, f := range r.sorted() {
		// A rule missing from Rules (e.g. one the caller did not pass) still
		// needs an entry for ruleIndex to point at.
		addRule(f.Rule, f.Title, f.Title, f.Severity)
		text, md := statement(f), statement(f)
		loc := sarifPhysical(f.Path, f.Line, f.EndLine)
		if f.Side == checks.Base {
			loc = sarifPhysical(headPath(r.Files, f.Path), 0, 0)
			if f.Line > 0 {
				note := fmt.Sprintf("(Reported on line %d of the base version, which this PR removed or changed.)", f.Line)
				text += "\n\n" + note
				md += "\n\n" + note
			}
		}
		if ev := renderEvidence(f.Evidence, f.Related); ev != "" {
			text += "\n\nEvidence:\n" + evidenceLines(f.Related, "- ")
			md += "\n\n" + ev
		}
		res := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message:             sarifMessage{Text: text, Markdown: md},
			Locations:           []sarifLocation{{PhysicalLocation: loc}},
			PartialFingerprints: map[string]string{fingerprintV1: Fingerprint(f)},
		}
		for i, rel := range f.Related {
			id := i + 1
			note := prose.OneLine(rel.Note)
			pl := sarifPhysical(rel.Path, rel.Line, rel.EndLine)
			if rel.Side == checks.Base {
				if n, ok := headLine(r.Files, rel.Path, rel.Line); ok {
					end := 0
					if rel.EndLine > rel.Line {
						if e, ok := headLine(r.Files, rel.Path, rel.EndLine); ok && e > n {
							end = e
						}
					}
					pl = sarifPhysical(headPath(r.Files, rel.Path), n, end)
				} else {
					pl = sarifPhysical(headPath(r.Files, rel.Path), 0, 0)
					note = strings.TrimSpace(note + fmt.Sprintf(" (base version, %s)", locLabel(rel)))
				}
			}
			rl := sarifLocation{ID: &id, PhysicalLocation: pl}
			if note != "" {
				rl.Message = &sarifText{Text: note}
			}
			res.RelatedLocations = append(res.RelatedLocations, rl)
		}
		run.Results = append(run.Results, res)
	}
	run.Tool.Driver = driver

	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// ruleName turns a title into the PascalCase identifier SARIF viewers
// show next to the rule ID ("New changelog entry's pr-link ..." →
// "NewChangelogEntryPrLink..."): possessives and punctuation go, acronyms
// stay as written.
func ruleName(id, title string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(title, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		word = strings.TrimSuffix(strings.TrimSuffix(word, "'s"), "'")
		word = strings.ReplaceAll(word, "'", "")
		if word == "" {
			continue
		}
		rs := []rune(word)
		b.WriteString(string(unicode.ToUpper(rs[0])) + string(rs[1:]))
	}
	if b.Len() == 0 {
		return id
	}
	return b.String()
}
