package reviewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// The official SARIF 2.1.0 JSON schema is an OASIS work product distributed
// under OASIS's copyright notice rather than an open-source licence, so it
// is not shipped here. These are the schema's constraints for every object
// WriteSARIF emits, written from the specification (sections 3.13-3.52):
// the property names each object may carry, the required ones, value
// types, enumerations and minimums, plus the cross-references a consumer
// relies on (ruleIndex, relatedLocations ids).

type sarifKind int

const (
	kString sarifKind = iota
	kInt
	kBool
	kObject
	kArray
	kStringMap
	kAny
)

// sarifProp describes one property: its JSON type, and for objects and
// arrays of objects the definition of the element.
type sarifProp struct {
	kind     sarifKind
	def      string // object or array-element definition name
	elemKind sarifKind
	enum     []string
	min      *int
	uri      bool // an absolute URI (format: uri)
	relURI   bool // a URI reference (format: uri-reference)
}

type sarifDef struct {
	props    map[string]sarifProp
	required []string
	// anyOf: at least one of these must be present.
	anyOf []string
}

func intp(n int) *int { return &n }

var levels = []string{"none", "note", "warning", "error"}

var sarifDefs = map[string]sarifDef{
	"sarifLog": {props: map[string]sarifProp{
		"$schema": {kind: kString, uri: true}, "version": {kind: kString, enum: []string{"2.1.0"}},
		"runs": {kind: kArray, elemKind: kObject, def: "run"}, "inlineExternalProperties": {kind: kArray}, "properties": {kind: kObject},
	}, required: []string{"version", "runs"}},
	"run": {props: map[string]sarifProp{
		"tool": {kind: kObject, def: "tool"}, "invocations": {kind: kArray, elemKind: kObject, def: "invocation"},
		"results": {kind: kArray, elemKind: kObject, def: "result"}, "conversion": {kind: kObject}, "language": {kind: kString},
		"versionControlProvenance": {kind: kArray}, "originalUriBaseIds": {kind: kObject}, "artifacts": {kind: kArray},
		"logicalLocations": {kind: kArray}, "graphs": {kind: kArray}, "automationDetails": {kind: kObject},
		"runAggregates": {kind: kArray}, "baselineGuid": {kind: kString}, "redactionTokens": {kind: kArray},
		"defaultEncoding": {kind: kString}, "defaultSourceLanguage": {kind: kString}, "newlineSequences": {kind: kArray},
		"columnKind": {kind: kString, enum: []string{"utf16CodeUnits", "unicodeCodePoints"}}, "externalPropertyFileReferences": {kind: kObject},
		"threadFlowLocations": {kind: kArray}, "taxonomies": {kind: kArray}, "addresses": {kind: kArray},
		"translations": {kind: kArray}, "policies": {kind: kArray}, "webRequests": {kind: kArray}, "webResponses": {kind: kArray},
		"specialLocations": {kind: kObject}, "properties": {kind: kObject},
	}, required: []string{"tool"}},
	"tool": {props: map[string]sarifProp{
		"driver": {kind: kObject, def: "toolComponent"}, "extensions": {kind: kArray}, "properties": {kind: kObject},
	}, required: []string{"driver"}},
	"toolComponent": {props: map[string]sarifProp{
		"guid": {kind: kString}, "name": {kind: kString}, "organization": {kind: kString}, "product": {kind: kString},
		"productSuite": {kind: kString}, "shortDescription": {kind: kObject, def: "multiformatMessageString"},
		"fullDescription": {kind: kObject, def: "multiformatMessageString"}, "fullName": {kind: kString},
		"version": {kind: kString}, "semanticVersion": {kind: kString}, "dottedQuadFileVersion": {kind: kString},
		"releaseDateUtc": {kind: kString}, "downloadUri": {kind: kString, uri: true}, "informationUri": {kind: kString, uri: true},
		"globalMessageStrings": {kind: kObject}, "notifications": {kind: kArray},
		"rules": {kind: kArray, elemKind: kObject, def: "reportingDescriptor"}, "taxa": {kind: kArray}, "locations": {kind: kArray},
		"language": {kind: kString}, "contents": {kind: kArray}, "isComprehensive": {kind: kBool},
		"localizedDataSemanticVersion": {kind: kString}, "minimumRequiredLocalizedDataSemanticVersion": {kind: kString},
		"associatedComponent": {kind: kObject}, "translationMetadata": {kind: kObject}, "supportedTaxonomies": {kind: kArray},
		"properties": {kind: kObject},
	}, required: []string{"name"}},
	"reportingDescriptor": {props: map[string]sarifProp{
		"id": {kind: kString}, "deprecatedIds": {kind: kArray}, "guid": {kind: kString}, "deprecatedGuids": {kind: kArray},
		"name": {kind: kString}, "deprecatedNames": {kind: kArray},
		"shortDescription": {kind: kObject, def: "multiformatMessageString"}, "fullDescription": {kind: kObject, def: "multiformatMessageString"},
		"messageStrings": {kind: kObject}, "defaultConfiguration": {kind: kObject, def: "reportingConfiguration"},
		"helpUri": {kind: kString, uri: true}, "help": {kind: kObject, def: "multiformatMessageString"},
		"relationships": {kind: kArray}, "properties": {kind: kObject},
	}, required: []string{"id"}},
	"multiformatMessageString": {props: map[string]sarifProp{
		"text": {kind: kString}, "markdown": {kind: kString}, "properties": {kind: kObject},
	}, required: []string{"text"}},
	"reportingConfiguration": {props: map[string]sarifProp{
		"enabled": {kind: kBool}, "level": {kind: kString, enum: levels}, "rank": {kind: kAny},
		"parameters": {kind: kObject}, "properties": {kind: kObject},
	}},
	"invocation": {props: map[string]sarifProp{
		"commandLine": {kind: kString}, "arguments": {kind: kArray}, "responseFiles": {kind: kArray},
		"startTimeUtc": {kind: kString}, "endTimeUtc": {kind: kString}, "exitCode": {kind: kInt},
		"ruleConfigurationOverrides": {kind: kArray}, "notificationConfigurationOverrides": {kind: kArray},
		"toolExecutionNotifications":     {kind: kArray, elemKind: kObject, def: "notification"},
		"toolConfigurationNotifications": {kind: kArray, elemKind: kObject, def: "notification"},
		"exitCodeDescription":            {kind: kString}, "exitSignalName": {kind: kString}, "exitSignalNumber": {kind: kInt},
		"processStartFailureMessage": {kind: kString}, "executionSuccessful": {kind: kBool}, "machine": {kind: kString},
		"account": {kind: kString}, "processId": {kind: kInt}, "executableLocation": {kind: kObject},
		"workingDirectory": {kind: kObject}, "environmentVariables": {kind: kObject}, "stdin": {kind: kObject},
		"stdout": {kind: kObject}, "stderr": {kind: kObject}, "stdoutStderr": {kind: kObject}, "properties": {kind: kObject},
	}, required: []string{"executionSuccessful"}},
	"notification": {props: map[string]sarifProp{
		"locations": {kind: kArray}, "message": {kind: kObject, def: "message"}, "level": {kind: kString, enum: levels},
		"threadId": {kind: kInt}, "timeUtc": {kind: kString}, "exception": {kind: kObject}, "descriptor": {kind: kObject},
		"associatedRule": {kind: kObject}, "properties": {kind: kObject},
	}, required: []string{"message"}},
	"message": {props: map[string]sarifProp{
		"text": {kind: kString}, "markdown": {kind: kString}, "id": {kind: kString}, "arguments": {kind: kArray}, "properties": {kind: kObject},
	}, anyOf: []string{"text", "id"}},
	"result": {props: map[string]sarifProp{
		"ruleId": {kind: kString}, "ruleIndex": {kind: kInt, min: intp(-1)}, "rule": {kind: kObject},
		"kind":  {kind: kString, enum: []string{"notApplicable", "pass", "fail", "review", "open", "informational"}},
		"level": {kind: kString, enum: levels}, "message": {kind: kObject, def: "message"},
		"analysisTarget": {kind: kObject}, "locations": {kind: kArray, elemKind: kObject, def: "location"},
		"guid": {kind: kString}, "correlationGuid": {kind: kString}, "occurrenceCount": {kind: kInt, min: intp(1)},
		"partialFingerprints": {kind: kStringMap}, "fingerprints": {kind: kStringMap}, "stacks": {kind: kArray},
		"codeFlows": {kind: kArray}, "graphs": {kind: kArray}, "graphTraversals": {kind: kArray},
		"relatedLocations": {kind: kArray, elemKind: kObject, def: "location"}, "suppressions": {kind: kArray},
		"baselineState": {kind: kString}, "rank": {kind: kAny}, "attachments": {kind: kArray}, "hostedViewerUri": {kind: kString, uri: true},
		"workItemUris": {kind: kArray}, "provenance": {kind: kObject}, "fixes": {kind: kArray}, "taxa": {kind: kArray},
		"webRequest": {kind: kObject}, "webResponse": {kind: kObject}, "properties": {kind: kObject},
	}, required: []string{"message"}},
	"location": {props: map[string]sarifProp{
		"id": {kind: kInt, min: intp(-1)}, "physicalLocation": {kind: kObject, def: "physicalLocation"},
		"logicalLocations": {kind: kArray}, "message": {kind: kObject, def: "message"}, "annotations": {kind: kArray},
		"relationships": {kind: kArray}, "properties": {kind: kObject},
	}},
	"physicalLocation": {props: map[string]sarifProp{
		"address": {kind: kObject}, "artifactLocation": {kind: kObject, def: "artifactLocation"},
		"region": {kind: kObject, def: "region"}, "contextRegion": {kind: kObject, def: "region"}, "properties": {kind: kObject},
	}, anyOf: []string{"address", "artifactLocation"}},
	"artifactLocation": {props: map[string]sarifProp{
		"uri": {kind: kString, relURI: true}, "uriBaseId": {kind: kString}, "index": {kind: kInt, min: intp(-1)},
		"description": {kind: kObject, def: "message"}, "properties": {kind: kObject},
	}},
	"region": {props: map[string]sarifProp{
		"startLine": {kind: kInt, min: intp(1)}, "startColumn": {kind: kInt, min: intp(1)}, "endLine": {kind: kInt, min: intp(1)},
		"endColumn": {kind: kInt, min: intp(1)}, "charOffset": {kind: kInt, min: intp(-1)}, "charLength": {kind: kInt, min: intp(0)},
		"byteOffset": {kind: kInt, min: intp(-1)}, "byteLength": {kind: kInt, min: intp(0)}, "snippet": {kind: kObject},
		"message": {kind: kObject, def: "message"}, "sourceLanguage": {kind: kString}, "properties": {kind: kObject},
	}},
}

// validateSARIF returns every violation of the constraints above in the
// document raw.
func validateSARIF(raw []byte) []string {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	var errs []string
	validateObject(doc, "sarifLog", "$", &errs)
	if len(errs) > 0 {
		return errs
	}
	errs = append(errs, sarifReferences(doc.(map[string]any))...)
	return errs
}

func validateObject(v any, def, at string, errs *[]string) {
	obj, ok := v.(map[string]any)
	if !ok {
		*errs = append(*errs, fmt.Sprintf("%s: want a %s object, got %T", at, def, v))
		return
	}
	d, ok := sarifDefs[def]
	if !ok {
		panic("no definition " + def)
	}
	for _, req := range d.required {
		if _, ok := obj[req]; !ok {
			*errs = append(*errs, fmt.Sprintf("%s: %s lacks required property %q", at, def, req))
		}
	}
	if len(d.anyOf) > 0 {
		found := false
		for _, k := range d.anyOf {
			if _, ok := obj[k]; ok {
				found = true
			}
		}
		if !found {
			*errs = append(*errs, fmt.Sprintf("%s: %s needs one of %v", at, def, d.anyOf))
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := d.props[k]
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: %s has no property %q", at, def, k))
			continue
		}
		validateValue(obj[k], p, at+"."+k, errs)
	}
}

func validateValue(v any, p sarifProp, at string, errs *[]string) {
	switch p.kind {
	case kAny:
	case kString:
		s, ok := v.(string)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want a string, got %T", at, v))
			return
		}
		if len(p.enum) > 0 && !inList(p.enum, s) {
			*errs = append(*errs, fmt.Sprintf("%s: %q is not one of %v", at, s, p.enum))
		}
		if p.uri {
			if u, err := url.Parse(s); err != nil || !u.IsAbs() || u.Host == "" {
				*errs = append(*errs, fmt.Sprintf("%s: %q is not an absolute URI", at, s))
			}
		}
		if p.relURI {
			if u, err := url.Parse(s); err != nil || u.IsAbs() || strings.HasPrefix(s, "/") || strings.ContainsAny(s, `\ `) ||
				u.Fragment != "" || u.RawQuery != "" {
				*errs = append(*errs, fmt.Sprintf("%s: %q is not a relative URI reference", at, s))
			}
		}
	case kInt:
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil {
			*errs = append(*errs, fmt.Sprintf("%s: want an integer, got %v", at, v))
			return
		}
		if p.min != nil && int(i) < *p.min {
			*errs = append(*errs, fmt.Sprintf("%s: %d is below the minimum %d", at, i, *p.min))
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want a boolean, got %T", at, v))
		}
	case kObject:
		if p.def == "" {
			if _, ok := v.(map[string]any); !ok {
				*errs = append(*errs, fmt.Sprintf("%s: want an object, got %T", at, v))
			}
			return
		}
		validateObject(v, p.def, at, errs)
	case kStringMap:
		m, ok := v.(map[string]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want an object, got %T", at, v))
			return
		}
		for k, e := range m {
			if _, ok := e.(string); !ok {
				*errs = append(*errs, fmt.Sprintf("%s.%s: want a string, got %T", at, k, e))
			}
		}
	case kArray:
		arr, ok := v.([]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: want an array, got %T", at, v))
			return
		}
		if p.def != "" {
			for i, e := range arr {
				validateObject(e, p.def, fmt.Sprintf("%s[%d]", at, i), errs)
			}
		}
	}
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// sarifReferences checks what the schema cannot express: indexes point at
// the right rule, related-location ids are unique, regions are ordered,
// rule ids are unique, semanticVersion is semver.
func sarifReferences(log map[string]any) []string {
	var errs []string
	for ri, r := range log["runs"].([]any) {
		run := r.(map[string]any)
		driver := run["tool"].(map[string]any)["driver"].(map[string]any)
		if sv, ok := driver["semanticVersion"].(string); ok && !semverRE.MatchString(sv) {
			errs = append(errs, fmt.Sprintf("runs[%d]: semanticVersion %q is not semver", ri, sv))
		}
		var ids []string
		seen := map[string]bool{}
		rules, _ := driver["rules"].([]any)
		for _, rd := range rules {
			id := rd.(map[string]any)["id"].(string)
			if seen[id] {
				errs = append(errs, fmt.Sprintf("runs[%d]: rule %s listed twice", ri, id))
			}
			seen[id] = true
			ids = append(ids, id)
		}
		results, _ := run["results"].([]any)
		for i, x := range results {
			res := x.(map[string]any)
			at := fmt.Sprintf("runs[%d].results[%d]", ri, i)
			if n, ok := res["ruleIndex"].(json.Number); ok {
				idx, _ := n.Int64()
				if int(idx) >= len(ids) || (idx >= 0 && ids[idx] != res["ruleId"]) {
					errs = append(errs, fmt.Sprintf("%s: ruleIndex %d does not name rule %v", at, idx, res["ruleId"]))
				}
			}
			relIDs := map[string]bool{}
			locs, _ := res["locations"].([]any)
			rels, _ := res["relatedLocations"].([]any)
			for j, l := range append(append([]any{}, locs...), rels...) {
				loc := l.(map[string]any)
				if j >= len(locs) {
					id, ok := loc["id"].(json.Number)
					if !ok || relIDs[id.String()] {
						errs = append(errs, fmt.Sprintf("%s: related location %d needs a unique id", at, j-len(locs)))
					}
					relIDs[id.String()] = true
				}
				pl, _ := loc["physicalLocation"].(map[string]any)
				reg, _ := pl["region"].(map[string]any)
				start, _ := reg["startLine"].(json.Number)
				end, hasEnd := reg["endLine"].(json.Number)
				s, _ := start.Int64()
				e, _ := end.Int64()
				if hasEnd && e < s {
					errs = append(errs, fmt.Sprintf("%s: region ends (%d) before it starts (%d)", at, e, s))
				}
				if reg == nil || start == "" {
					// GitHub code scanning places a result only by its
					// region's startLine.
					errs = append(errs, fmt.Sprintf("%s: location %d has no region.startLine", at, j))
				}
			}
		}
	}
	return errs
}

// TestSARIFValidates checks the SARIF of the sample report, an empty
// report, a report with base-side findings, and every fixture PR's golden
// findings against the SARIF 2.1.0 constraints.
func TestSARIFValidates(t *testing.T) {
	reports := map[string]*Report{
		"sample":    sampleReport(),
		"empty":     {},
		"base side": baseSideReport(),
		"versioned": {Version: "v1.2.3", Errors: []error{errSample}, Findings: []checks.Finding{{Rule: "X001", Severity: checks.Warning, Path: "a b/c#d.sh", Title: "t", Body: "m"}}},
	}
	goldens, _ := filepath.Glob("../testdata/prs/*/expected.json")
	var all []checks.Finding
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var fs []checks.Finding
		if err := json.Unmarshal(b, &fs); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		all = append(all, fs...)
	}
	if len(all) > 0 {
		reports["fixture goldens"] = &Report{Findings: all, Version: "v0.0.0-20260821101500-0123456789ab+dirty"}
	}
	for name, r := range reports {
		t.Run(name, func(t *testing.T) {
			raw := render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, r) })
			for _, e := range validateSARIF([]byte(raw)) {
				t.Error(e)
			}
			if name == "versioned" && !strings.Contains(raw, `"uri": "a%20b/c%23d.sh"`) {
				t.Errorf("path not percent-encoded:\n%s", raw)
			}
		})
	}
}

// The validator must reject what it is there to catch.
func TestSARIFValidatorRejects(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"version", `{"version":"2.0.0","runs":[]}`, `is not one of`},
		{"unknown property", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","informationURI":"https://x"}}}]}`, `has no property "informationURI"`},
		{"rule id", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"name":"n"}]}}}]}`, `lacks required property "id"`},
		{"level", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"level":"fatal","message":{"text":"m"}}]}]}`, `"fatal" is not one of`},
		{"start line", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":0}}}]}]}]}`, `below the minimum 1`},
		{"rule index", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"A"}]}},"results":[{"ruleId":"B","ruleIndex":0,"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":1}}}]}]}]}`, `does not name rule B`},
		{"message", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{}}]}]}`, `needs one of [text id]`},
		{"help uri", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"A","helpUri":"README.md#a"}]}}}]}`, `not an absolute URI`},
		{"absolute path", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"/etc/x"},"region":{"startLine":1}}}]}]}]}`, `not a relative URI reference`},
		{"fragment in a path", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a/b#c.sh"},"region":{"startLine":1}}}]}]}]}`, `not a relative URI reference`},
		{"semver", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","semanticVersion":"v1.0"}}}]}`, `is not semver`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := validateSARIF([]byte(tc.doc))
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q, want one containing %q", errs, tc.want)
			}
		})
	}
}
