package llmreplay

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHunk(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Hunk
	}{
		{"header, context, deletion, addition",
			"@@ -10,4 +12,5 @@ run_benchmark() {\n   a\n-  b\n+  c\n+  d\n   e",
			Hunk{NewStart: 12, New: []string{"  a", "  c", "  d", "  e"}}},
		{"header without counts", "@@ -1 +1 @@\n+x", Hunk{NewStart: 1, New: []string{"x"}}},
		{"cut off above: no header", "+  description:\n+    - \"x\"\n+  pr-link: XXX",
			Hunk{New: []string{"  description:", "    - \"x\"", "  pr-link: XXX"}}},
		{"no newline marker and a trailing newline", "@@ -3,2 +3,2 @@\n-a\n\\ No newline at end of file\n+a\n",
			Hunk{NewStart: 3, New: []string{"a"}}},
		{"blank context line without its space", "@@ -1,3 +1,3 @@\n x\n\n+y", Hunk{NewStart: 1, New: []string{"x", "", "y"}}},
		{"carriage returns are line endings", "@@ -1,1 +1,1 @@\n+x\r", Hunk{NewStart: 1, New: []string{"x"}}},
		{"only deletions", "@@ -5,2 +4,0 @@\n-a\n-b", Hunk{NewStart: 4}},
		{"empty", "", Hunk{}},
		{"not a diff line", "@@ -1,2 +1,2 @@\n+a\nprose", Hunk{NewStart: 1}},
		{"a header in the middle is no header", "+a\n@@ -1 +1 @@", Hunk{}},
	}
	for _, tt := range tests {
		got := ParseHunk(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if got.Usable() != (len(tt.want.New) > 0) {
			t.Errorf("%s: Usable = %v", tt.name, got.Usable())
		}
	}
}

func TestHeaderEnd(t *testing.T) {
	tests := []struct {
		name string
		h    Hunk
		want int
	}{
		{"the last new-side line", Hunk{NewStart: 40, New: []string{"a", "b", "c"}}, 42},
		{"one line", Hunk{NewStart: 1, New: []string{"a"}}, 1},
		{"no header", Hunk{New: []string{"a", "b"}}, 0},
		{"no new-side lines", Hunk{NewStart: 4}, 0},
	}
	for _, tt := range tests {
		if got := tt.h.HeaderEnd(); got != tt.want {
			t.Errorf("%s: HeaderEnd = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestSpanOf(t *testing.T) {
	three := Hunk{NewStart: 40, New: []string{"a", "b", "c"}}
	tests := []struct {
		name string
		h    Hunk
		line int
		want *Span
	}{
		{"ends at the line", three, 42, &Span{40, 42}},
		// The header says 40, the line has moved since: the span is
		// where the lines are in the reviewed commit.
		{"the header's start is not used", three, 142, &Span{140, 142}},
		{"no header", Hunk{New: []string{"a", "b"}}, 9, &Span{8, 9}},
		{"unusable hunk: the line alone", Hunk{NewStart: 4}, 7, &Span{7, 7}},
		{"more lines than the line number", three, 2, &Span{2, 2}},
		{"no line: the whole file", three, 0, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SpanOf(tt.h, tt.line)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestWantFind(t *testing.T) {
	file := []byte("a\nb\nc\nb\nc\n")
	crlf := []byte("a\r\nb\r\nc\r\n")
	tests := []struct {
		name    string
		want    Want
		content []byte
		end     int
		ok      bool
	}{
		{"ending at the line", Want{Lines: []string{"b", "c"}, End: 3}, file, 3, true},
		{"ending at the other place", Want{Lines: []string{"b", "c"}, End: 5}, file, 5, true},
		{"not ending at the line", Want{Lines: []string{"b", "c"}, End: 4}, file, 4, false},
		{"past the end", Want{Lines: []string{"c"}, End: 6}, file, 6, false},
		{"before the start", Want{Lines: []string{"a", "b"}, End: 1}, file, 1, false},
		{"anywhere: the first place", Want{Lines: []string{"b", "c"}}, file, 3, true},
		{"anywhere, contiguous only", Want{Lines: []string{"a", "c"}}, file, 0, false},
		{"in order only", Want{Lines: []string{"c", "b", "c"}}, file, 5, true},
		{"CRLF file", Want{Lines: []string{"b", "c"}, End: 3}, crlf, 3, true},
		{"no lines: any content", Want{}, nil, 0, true},
		{"empty file", Want{Lines: []string{""}}, nil, 0, false},
		{"a blank line", Want{Lines: []string{"x", ""}}, []byte("x\n\ny\n"), 2, true},
	}
	for _, tt := range tests {
		end, ok := tt.want.Find(tt.content)
		if end != tt.end || ok != tt.ok {
			t.Errorf("%s: Find = %d, %v; want %d, %v", tt.name, end, ok, tt.end, tt.ok)
		}
	}
}

func TestWantOf(t *testing.T) {
	h := Hunk{NewStart: 3, New: []string{"a"}}
	if diff := cmp.Diff(Want{Lines: []string{"a"}, End: 9}, WantOf(h, 9)); diff != "" {
		t.Errorf("with a line (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Want{Lines: []string{"a"}}, WantOf(h, 0)); diff != "" {
		t.Errorf("without a line (-want +got):\n%s", diff)
	}
	// An unusable hunk asks only for the file, even with a line.
	if diff := cmp.Diff(Want{}, WantOf(Hunk{NewStart: 3}, 9)); diff != "" {
		t.Errorf("unusable hunk (-want +got):\n%s", diff)
	}
}
