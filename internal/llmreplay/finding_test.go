package llmreplay

import (
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	in := `{"pr": 7, "thread_date": "2026-03-02", "path": "perf-changelog.yaml", "line": 153, "severity": "red", "finding": "text", "hunk": "@@ -1 +1 @@\n+x", "class": "changelog-prlink", "checkable": "yes", "real": "bug", "state": "merged"}

{"pr": 9, "thread_date": "2026-03-04", "path": "a.sh", "line": null, "severity": "yellow", "finding": "", "hunk": "", "class": "recipe-logic", "checkable": "no", "real": "nit"}
`
	fs, err := Load(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("%d findings", len(fs))
	}
	a, b := fs[0], fs[1]
	if a.Index != 1 || a.PR != 7 || a.Line != 153 || a.Severity != "red" || a.Text != "text" || a.Hunk != "@@ -1 +1 @@\n+x" ||
		a.Class != "changelog-prlink" || a.Checkable != "yes" || a.Real != "bug" || !a.Day().Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("first = %+v", a)
	}
	if b.Index != 3 || b.Line != 0 || b.Path != "a.sh" {
		t.Errorf("second = %+v", b)
	}

	for _, bad := range []struct{ line, err string }{
		{`{"pr": 7, "thread_date": "2026-03-02", "path": "a", "line": 0}`, "line 0"},
		{`{"pr": 0, "thread_date": "2026-03-02", "path": "a"}`, "pr 0"},
		{`{"pr": 7, "thread_date": "02/03/2026", "path": "a"}`, "thread_date"},
		{`{"pr": 7, "thread_date": "2026-03-02"}`, "no path"},
		{`{"pr": 7,`, "unexpected end"},
	} {
		_, err := Load(strings.NewReader("\n" + bad.line + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2: ") || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%s: error %v, want one naming line 2 and %q", bad.line, err, bad.err)
		}
	}
}
