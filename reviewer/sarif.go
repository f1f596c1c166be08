package reviewer

import (
	"encoding/json"
	"io"
	"strings"
	"unicode"

	"github.com/reviewbot-dev/reviewbot/checks"
)

const (
	sarifSchema   = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion  = "2.1.0"
	toolInfoURI   = "https://github.com/reviewbot-dev/reviewbot"
	fingerprintV1 = "reviewbot/v1"
)

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
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	DefaultConfiguration sarifRuleDefaults `json:"defaultConfiguration"`
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
	Message             sarifText         `json:"message"`
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
		ArtifactLocation: sarifArtifact{URI: path, URIBaseID: "%SRCROOT%"},
		Region:           r,
	}
}

// WriteSARIF writes a SARIF 2.1.0 log, the format code-scanning tools
// (GitHub code scanning among them) import.
func WriteSARIF(w io.Writer, r *Report) error {
	driver := sarifDriver{Name: "reviewbot", InformationURI: toolInfoURI, Rules: []sarifRule{}}
	index := map[string]int{}
	addRule := func(id, title, doc string, sev checks.Severity) {
		if _, ok := index[id]; ok {
			return
		}
		index[id] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{
			ID: id, Name: ruleName(id, title),
			ShortDescription:     sarifText{Text: title},
			FullDescription:      sarifText{Text: doc},
			Help:                 sarifText{Text: doc},
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
		res := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message:             sarifText{Text: statement(f)},
			Locations:           []sarifLocation{{PhysicalLocation: sarifPhysical(f.Path, f.Line, f.EndLine)}},
			PartialFingerprints: map[string]string{fingerprintV1: Fingerprint(f)},
		}
		for i, loc := range f.Related {
			id := i + 1
			rl := sarifLocation{ID: &id, PhysicalLocation: sarifPhysical(loc.Path, loc.Line, loc.EndLine)}
			if note := oneLine(loc.Note); note != "" {
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

// ruleName turns a title into the CamelCase identifier SARIF viewers show
// next to the rule ID ("pr-link is not accepted" → "PrLinkIsNotAccepted").
func ruleName(id, title string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(title, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		rs := []rune(word)
		b.WriteString(string(unicode.ToUpper(rs[0])) + string(rs[1:]))
	}
	if b.Len() == 0 {
		return id
	}
	return b.String()
}
