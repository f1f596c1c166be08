package reviewer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func render(t *testing.T, write func(w *bytes.Buffer) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestFormatsGolden(t *testing.T) {
	r := sampleReport()
	r.Errors = []error{errSample}
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer, *Report) error
	}{
		{"report.md.golden", func(b *bytes.Buffer, r *Report) error { return WriteMarkdown(b, r) }},
		{"report.json.golden", func(b *bytes.Buffer, r *Report) error { return WriteJSON(b, r) }},
		{"report.sarif.golden", func(b *bytes.Buffer, r *Report) error { return WriteSARIF(b, r) }},
		{"report.github.golden", func(b *bytes.Buffer, r *Report) error { return WriteGitHub(b, r) }},
		{"report.txt.golden", func(b *bytes.Buffer, r *Report) error { return WriteText(b, r) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, render(t, func(b *bytes.Buffer) error { return tt.write(b, r) }))
		})
	}
	if r.Findings[0].Rule != "SH002" {
		t.Error("writing a report reordered the caller's findings")
	}
}

func TestWriteJSON(t *testing.T) {
	var out struct {
		Findings []map[string]any `json:"findings"`
		Stats    map[string]any   `json:"stats"`
		Errors   []string         `json:"errors"`
	}
	raw := render(t, func(b *bytes.Buffer) error { return WriteJSON(b, sampleReport()) })
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range out.Findings {
		order = append(order, f["path"].(string)+":"+jsonNumber(f["line"]))
		for _, k := range []string{"rule", "severity", "path", "line", "title", "body", "fingerprint"} {
			if _, ok := f[k]; !ok {
				t.Errorf("finding %v lacks %q", f["rule"], k)
			}
		}
		if s := f["severity"]; s != "blocking" && s != "warning" {
			t.Errorf("severity %v", s)
		}
	}
	want := []string{b200Recipe + ":206", b300Recipe + ":2", b300Recipe + ":98", changelogPath + ":4805"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", order, want)
	}
	if out.Stats["files"] != 3.0 || out.Stats["rules"] != 4.0 || out.Stats["elapsed_ms"] != 42.0 {
		t.Errorf("stats %v", out.Stats)
	}
	if strings.Contains(raw, `"errors"`) {
		t.Error("errors key present without errors")
	}

	empty := render(t, func(b *bytes.Buffer) error { return WriteJSON(b, &Report{}) })
	if !strings.Contains(empty, `"findings": []`) {
		t.Errorf("empty report: %s", empty)
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestWriteSARIF(t *testing.T) {
	r := sampleReport()
	file := checks.Finding{Rule: "MC006", Severity: checks.Blocking, Path: "configs/nvidia-master.yaml", Title: "YAML does not parse", Message: "m"}
	r.Findings = append(r.Findings, file)
	raw := render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, r) })

	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID               string `json:"id"`
						Name             string `json:"name"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						FullDescription struct {
							Text string `json:"text"`
						} `json:"fullDescription"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
							EndLine   int `json:"endLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					ID      int `json:"id"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"relatedLocations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(raw), &log); err != nil {
		t.Fatal(err)
	}
	if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("header: %q %q, %d runs", log.Schema, log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "reviewbot" || d.InformationURI == "" {
		t.Errorf("driver %q %q", d.Name, d.InformationURI)
	}
	if len(d.Rules) != 5 || d.Rules[4].ID != "MC006" {
		t.Fatalf("rules: %+v", d.Rules)
	}
	cl := d.Rules[0]
	if cl.ID != "CL001" || cl.Name != "PrLinkIsNeitherThisPRSLinkNorAnAcceptedPlaceholder" || cl.ShortDescription.Text != sampleRules()[0].Title ||
		cl.FullDescription.Text != sampleRules()[0].Doc || cl.Help.Text != cl.FullDescription.Text || cl.DefaultConfiguration.Level != "error" {
		t.Errorf("rule CL001: %+v", cl)
	}
	if d.Rules[1].DefaultConfiguration.Level != "warning" {
		t.Errorf("SH001 level %q", d.Rules[1].DefaultConfiguration.Level)
	}
	if len(run.Results) != 5 {
		t.Fatalf("%d results", len(run.Results))
	}
	for _, res := range run.Results {
		if d.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s points at rule %d (%s)", res.RuleID, res.RuleIndex, d.Rules[res.RuleIndex].ID)
		}
		if res.Level != "error" && res.Level != "warning" || res.Message.Text == "" {
			t.Errorf("result %s: level %q message %q", res.RuleID, res.Level, res.Message.Text)
		}
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.Region.StartLine < 1 {
			t.Errorf("result %s locations %+v", res.RuleID, res.Locations)
		}
		if len(res.PartialFingerprints["reviewbot/v1"]) != 16 {
			t.Errorf("result %s fingerprints %v", res.RuleID, res.PartialFingerprints)
		}
	}
	sh002 := run.Results[2]
	if sh002.RuleID != "SH002" || sh002.Locations[0].PhysicalLocation.Region.EndLine != 116 ||
		len(sh002.RelatedLocations) != 3 || sh002.RelatedLocations[0].ID != 1 ||
		sh002.RelatedLocations[2].Message.Text != "the mooncake branch of this file unsets it" {
		t.Errorf("SH002 result: %+v", sh002)
	}
	mc := run.Results[3]
	if mc.RuleID != "MC006" || mc.Locations[0].PhysicalLocation.Region.StartLine != 1 || mc.Locations[0].PhysicalLocation.Region.EndLine != 0 {
		t.Errorf("file-level result not clamped to line 1: %+v", mc)
	}
}

func TestWriteSARIFEmpty(t *testing.T) {
	raw := render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, &Report{}) })
	var log map[string]any
	if err := json.Unmarshal([]byte(raw), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, `"results": []`) || !strings.Contains(raw, `"rules": []`) {
		t.Errorf("empty SARIF must still have results and rules arrays:\n%s", raw)
	}
}

func TestWriteGitHubEscaping(t *testing.T) {
	f := checks.Finding{Rule: "CL005", Severity: checks.Blocking, Path: "odd,dir/a:b%.yaml", Line: 7, EndLine: 9,
		Title: "tab, CR: bad", Message: "100% wrong\r\nsecond line: here, too"}
	w := checks.Finding{Rule: "SH009", Severity: checks.Warning, Path: "x.sh", Title: "t", Message: "m"}
	got := render(t, func(b *bytes.Buffer) error {
		return WriteGitHub(b, &Report{Findings: []checks.Finding{f, w}, Errors: []error{errSample}})
	})
	want := "::error file=odd%2Cdir/a%3Ab%25.yaml,line=7,endLine=9,title=[CL005] tab%2C CR%3A bad::100%25 wrong%0D%0Asecond line: here, too\n" +
		"::warning file=x.sh,title=[SH009] t::m\n" +
		"::error title=reviewbot::SH013: read golden_al_distribution/dsv4.yaml: file does not exist\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteText(t *testing.T) {
	got := render(t, func(b *bytes.Buffer) error { return WriteText(b, &Report{Stats: checks.Stats{Files: 2, Rules: 30}}) })
	if got != "reviewbot: no problems found in 2 changed files (30 rules run)\n" {
		t.Errorf("clean text report = %q", got)
	}
}
