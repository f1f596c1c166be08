package reviewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	file := checks.Finding{Rule: "MC006", Severity: checks.Blocking, Path: "configs/nvidia-master.yaml", Title: "YAML does not parse", Body: "m"}
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
							Text     string `json:"text"`
							Markdown string `json:"markdown"`
						} `json:"help"`
						HelpURI              string `json:"helpUri"`
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
	if cl.ID != "CL001" || cl.Name != "PrLinkIsNeitherThisPRLinkNorAnAcceptedPlaceholder" || cl.ShortDescription.Text != sampleRules()[0].Title ||
		cl.FullDescription.Text != sampleRules()[0].Doc || cl.Help.Text != cl.FullDescription.Text || cl.DefaultConfiguration.Level != "error" {
		t.Errorf("rule CL001: %+v", cl)
	}
	if cl.HelpURI != "https://github.com/reviewbot-dev/reviewbot/blob/main/docs/rules.md#cl001" ||
		!strings.Contains(cl.Help.Markdown, sampleRules()[0].Doc) || !strings.Contains(cl.Help.Markdown, "("+cl.HelpURI+")") {
		t.Errorf("rule CL001 help: %q %q", cl.HelpURI, cl.Help.Markdown)
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
		Title: "tab, CR: bad", Body: "100% wrong\r\nsecond line: here, too"}
	w := checks.Finding{Rule: "SH009", Severity: checks.Warning, Path: "x.sh", Title: "t", Body: "m"}
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

func TestWriteSARIFVersion(t *testing.T) {
	for _, tc := range []struct{ version, want, semver string }{
		{"v1.4.0", "v1.4.0", "1.4.0"},
		{"v0.0.0-20260821101500-0123456789ab+dirty", "v0.0.0-20260821101500-0123456789ab+dirty", "0.0.0-20260821101500-0123456789ab+dirty"},
		{"devel", "", ""},
		{"", "", ""},
		{"main", "main", ""},
	} {
		raw := render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, &Report{Version: tc.version}) })
		var log struct {
			Runs []struct {
				Tool struct {
					Driver map[string]any `json:"driver"`
				} `json:"tool"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(raw), &log); err != nil {
			t.Fatal(err)
		}
		d := log.Runs[0].Tool.Driver
		if got, _ := d["version"].(string); got != tc.want {
			t.Errorf("%q: version %q, want %q", tc.version, got, tc.want)
		}
		if got, _ := d["semanticVersion"].(string); got != tc.semver {
			t.Errorf("%q: semanticVersion %q, want %q", tc.version, got, tc.semver)
		}
	}
}

// baseSideReport has a finding on a deleted changelog line and evidence on
// base lines before, inside and after the PR's hunk.
func baseSideReport() *Report {
	files := []*checks.FileChange{{Path: "perf-changelog.yaml", OldPath: "perf-changelog.yaml", Status: checks.Modified,
		Hunks: []checks.Hunk{hunk(10, 10, "   ---++++   ")}}} // base 13-15 deleted, head 13-16 added
	f := checks.Finding{Rule: "CL002", Severity: checks.Blocking, Path: "perf-changelog.yaml", Line: 14, Side: checks.Base,
		Title: "entry deleted", Body: "The PR deletes the entry at line 14.",
		Related: []checks.Location{
			{Path: "perf-changelog.yaml", Line: 5, Side: checks.Base, Note: "before the hunk"},
			{Path: "perf-changelog.yaml", Line: 14, Side: checks.Base, Note: "the deleted entry"},
			{Path: "perf-changelog.yaml", Line: 20, Side: checks.Base, Note: "after the hunk"},
		}}
	return &Report{Findings: []checks.Finding{f}, Files: files}
}

func TestBaseSideFindings(t *testing.T) {
	r := baseSideReport()
	text := render(t, func(b *bytes.Buffer) error { return WriteText(b, r) })
	if !strings.HasPrefix(text, "perf-changelog.yaml:14 (base): 🔴 [CL002] entry deleted\n") {
		t.Errorf("text:\n%s", text)
	}

	gh := render(t, func(b *bytes.Buffer) error { return WriteGitHub(b, r) })
	if !strings.HasPrefix(gh, "::error file=perf-changelog.yaml,title=[CL002] entry deleted::") || strings.Contains(gh, "line=") ||
		!strings.Contains(gh, "line 14 of the base version") {
		t.Errorf("github: %s", gh)
	}

	raw := render(t, func(b *bytes.Buffer) error { return WriteSARIF(b, r) })
	var log struct {
		Runs []struct {
			Results []struct {
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					PhysicalLocation struct {
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(raw), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results[0]
	if res.Locations[0].PhysicalLocation.Region.StartLine != 1 || !strings.Contains(res.Message.Text, "line 14 of the base version") {
		t.Errorf("SARIF location %+v message %q", res.Locations, res.Message.Text)
	}
	var lines []int
	for _, rl := range res.RelatedLocations {
		lines = append(lines, rl.PhysicalLocation.Region.StartLine)
	}
	// Base 5 is unchanged (head 5), base 14 was deleted (file level), base
	// 20 moved down one line with the hunk's net +1.
	if !cmp.Equal(lines, []int{5, 1, 21}) || !strings.Contains(res.RelatedLocations[1].Message.Text, "base version, perf-changelog.yaml:14") {
		t.Errorf("related lines %v, %+v", lines, res.RelatedLocations)
	}
}

func TestHeadLine(t *testing.T) {
	files := []*checks.FileChange{
		{Path: "m.yaml", OldPath: "m.yaml", Status: checks.Modified, Hunks: []checks.Hunk{
			hunk(10, 10, " -+ "), // base 11 changed
			hunk(30, 30, " ++ "), // two lines inserted after base 30
			{OldStart: 50, OldLines: 0, NewStart: 53, NewLines: 1, Lines: []checks.DiffLine{{Op: checks.OpAdd, New: 53}}},
		}},
		{Path: "new/name.sh", OldPath: "old/name.sh", Status: checks.Renamed},
		{Path: "gone.sh", OldPath: "gone.sh", Status: checks.Deleted},
		{Path: "added.sh", Status: checks.Added},
	}
	for _, tc := range []struct {
		path string
		n    int
		want int
		ok   bool
	}{
		{"m.yaml", 5, 5, true},
		{"m.yaml", 10, 10, true},
		{"m.yaml", 11, 0, false},
		{"m.yaml", 12, 12, true},
		{"m.yaml", 30, 30, true},
		{"m.yaml", 31, 33, true},
		{"m.yaml", 50, 52, true},
		{"m.yaml", 51, 54, true},
		{"old/name.sh", 7, 7, true},
		{"gone.sh", 3, 0, false},
		{"untouched.sh", 9, 9, true},
		{"m.yaml", 0, 0, false},
	} {
		if got, ok := headLine(files, tc.path, tc.n); got != tc.want || ok != tc.ok {
			t.Errorf("headLine(%s, %d) = %d, %v; want %d, %v", tc.path, tc.n, got, ok, tc.want, tc.ok)
		}
	}
	if headPath(files, "old/name.sh") != "new/name.sh" || headPath(files, "m.yaml") != "m.yaml" {
		t.Error("headPath")
	}
}

func TestWriteTextOptions(t *testing.T) {
	f := checks.Finding{Rule: "SH009", Severity: checks.Warning, Path: "r.sh", Line: 3, Title: "one line",
		Body: "The server command on line 3 has all twelve of its options on one line; write one option per line.",
		Why: "A later change to one option then shows as a one-line diff in review.\n\n" +
			"- first item of a list that is long enough to need wrapping at forty columns\n\n```sh\nvllm serve --a --b --c --d --e --f --g\n```",
		Related: []checks.Location{{Path: "s.sh", Line: 9, Note: "a sibling that writes one option per line, as the others do"}}}
	r := &Report{Findings: []checks.Finding{f}, Stats: checks.Stats{Files: 1, Rules: 3, Suppressed: 2}}

	plain := render(t, func(b *bytes.Buffer) error { return WriteText(b, r) })
	if strings.Contains(plain, "Why it matters.") || strings.Contains(plain, "\x1b[") {
		t.Errorf("default text has details or colour:\n%s", plain)
	}
	if !strings.HasSuffix(plain, "reviewbot: 1 🟡 warning in 1 changed file (3 rules run, 2 suppressed by reviewbot:ignore)\n") {
		t.Errorf("count line:\n%s", plain)
	}
	if !strings.Contains(plain, "    The server command on line 3 has all twelve of its options on one line; write one option per line.\n") {
		t.Errorf("unwrapped statement:\n%s", plain)
	}

	wrapped := render(t, func(b *bytes.Buffer) error { return WriteTextWith(b, r, TextOptions{Width: 40, Verbose: true}) })
	for _, l := range strings.Split(wrapped, "\n") {
		if columns(l) > 40 && !strings.HasPrefix(l, "r.sh:3") && !strings.Contains(l, "vllm serve") && !strings.HasPrefix(l, "reviewbot:") {
			t.Errorf("line over 40 columns: %q", l)
		}
	}
	for _, want := range []string{
		"    The server command on line 3 has all\n    twelve of its options on one line;\n",
		"    **Why it matters.** A later change\n",
		"    - first item of a list that is long\n      enough to need wrapping at forty\n",
		"    vllm serve --a --b --c --d --e --f --g\n", // code is not wrapped
		"    evidence: s.sh:9 — a sibling that\n        writes one option per line, as\n",
	} {
		if !strings.Contains(wrapped, want) {
			t.Errorf("wrapped verbose text lacks %q:\n%s", want, wrapped)
		}
	}

	colour := render(t, func(b *bytes.Buffer) error { return WriteTextWith(b, r, TextOptions{Color: true}) })
	if !strings.Contains(colour, "\x1b[1mr.sh:3\x1b[0m: 🟡 \x1b[1;33m[SH009]\x1b[0m one line\n") || !strings.Contains(colour, "\x1b[36mevidence:\x1b[0m") {
		t.Errorf("colour:\n%q", colour)
	}
	r.Findings[0].Severity = checks.Blocking
	colour = render(t, func(b *bytes.Buffer) error { return WriteTextWith(b, r, TextOptions{Color: true}) })
	if !strings.Contains(colour, "\x1b[1;31m[SH009]\x1b[0m") {
		t.Errorf("blocking colour:\n%q", colour)
	}
}

func TestWriteGitHubError(t *testing.T) {
	got := render(t, func(b *bytes.Buffer) error { return WriteGitHubError(b, "no merge base: 100% shallow\nsecond") })
	if got != "::error title=reviewbot::no merge base: 100%25 shallow%0Asecond\n" {
		t.Errorf("%q", got)
	}
}

// What the rules could not look at is never reported as "no problems":
// JSON carries it in stats, text counts it in the summary and --verbose
// lists it; both name the tool and JSON its schema version.
func TestReportUnjudged(t *testing.T) {
	r := &Report{Version: "v1.2.3", Stats: checks.Stats{Files: 99, Rules: 30,
		Inconclusive: []checks.Inconclusive{{Rule: "SH004", Path: "benchmarks/a.sh", Reason: "too few siblings"}, {Rule: "CL001", Reason: "no PR number"}}},
		Missing: []checks.FileKind{{Name: "runners", Patterns: []string{"runners/launch_*.sh"}}}}
	var out struct {
		Tool struct {
			Name, Version string
		}
		SchemaVersion int `json:"schema_version"`
		Stats         struct {
			NotFound []struct {
				Kind  string
				Paths []string
			} `json:"not_found"`
			Inconclusive []checks.Inconclusive
		}
	}
	raw := render(t, func(b *bytes.Buffer) error { return WriteJSON(b, r) })
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	if out.Tool.Name != "reviewbot" || out.Tool.Version != "v1.2.3" || out.SchemaVersion != JSONSchemaVersion ||
		len(out.Stats.NotFound) != 1 || out.Stats.NotFound[0].Kind != "runners" || out.Stats.NotFound[0].Paths[0] != "runners/launch_*.sh" ||
		fmt.Sprint(out.Stats.Inconclusive) != fmt.Sprint(r.Stats.Inconclusive) {
		t.Errorf("json:\n%s", raw)
	}

	summary := "reviewbot: no problems found in 99 changed files (30 rules run; 2 rule notes say they had too little evidence to judge%s; not in this repository: runners)\n"
	if got := render(t, func(b *bytes.Buffer) error { return WriteText(b, r) }); got != fmt.Sprintf(summary, " (--verbose lists them)") {
		t.Errorf("text:\n%s", got)
	}
	want := "Not in this repository, so not checked:\n    runners (runners/launch_*.sh)\n\n" +
		"Too little evidence to judge:\n    [SH004] benchmarks/a.sh: too few siblings\n    [CL001] no PR number\n\n" + fmt.Sprintf(summary, "")
	if got := render(t, func(b *bytes.Buffer) error { return WriteTextWith(b, r, TextOptions{Verbose: true}) }); got != want {
		t.Errorf("verbose text:\n%s\nwant\n%s", got, want)
	}
}
