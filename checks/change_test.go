package checks

import (
	"reflect"
	"testing"
)

// hunk builds a FileChange from unified-diff-like lines: " x" context,
// "+x" added, "-x" removed, numbering from the given starts.
func hunk(oldStart, newStart int, lines ...string) *FileChange {
	h := Hunk{OldStart: oldStart, NewStart: newStart}
	o, n := oldStart, newStart
	for _, l := range lines {
		op := LineOp(l[0])
		dl := DiffLine{Op: op, Text: l[1:]}
		switch op {
		case OpContext:
			dl.Old, dl.New = o, n
			o++
			n++
			h.OldLines++
			h.NewLines++
		case OpAdd:
			dl.New = n
			n++
			h.NewLines++
		case OpDelete:
			dl.Old = o
			o++
			h.OldLines++
		}
		h.Lines = append(h.Lines, dl)
	}
	return &FileChange{Path: "f", OldPath: "f", Status: Modified, Hunks: []Hunk{h}}
}

func TestFileChangeLines(t *testing.T) {
	fc := hunk(10, 10, " a", " b", "-c", "-d", "+C", " e", "+f", " g")
	if got, want := fc.AddedLines(), []int{12, 14}; !reflect.DeepEqual(got, want) {
		t.Errorf("AddedLines = %v, want %v", got, want)
	}
	if got, want := fc.RemovedLines(), []int{12, 13}; !reflect.DeepEqual(got, want) {
		t.Errorf("RemovedLines = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		start, end int
		want       bool
	}{
		{10, 11, false}, // context only
		{12, 12, true},  // replaced line
		{13, 13, false}, // context after the change
		{14, 14, true},  // added line
		{15, 20, false},
		{1, 100, true},
	} {
		if got := fc.Touches(tc.start, tc.end); got != tc.want {
			t.Errorf("Touches(%d,%d) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}

func TestTouchesPureDeletion(t *testing.T) {
	// Lines 3-4 of base removed; head line 3 is what was base line 5.
	fc := hunk(1, 1, " a", " b", "-c", "-d", " e", " f")
	for _, tc := range []struct {
		start, end int
		want       bool
	}{
		{1, 2, false}, // ends right before the deletion: a neighbour, not changed
		{2, 3, true},  // the deletion sits inside 2..3
		{3, 4, false}, // starts at the line after the deletion
		{1, 4, true},
	} {
		if got := fc.Touches(tc.start, tc.end); got != tc.want {
			t.Errorf("Touches(%d,%d) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
	if fc.IsAdded(3) {
		t.Error("IsAdded(3) on a pure deletion")
	}
}

func TestHeadLine(t *testing.T) {
	// base:  1 a, 2 b, 3 c, 4 d, 5 e, 6 f, [7..9 untouched]
	// head:  1 a, 2 b, 3 C, 4 e, 5 x, 6 f
	fc := hunk(1, 1, " a", " b", "-c", "-d", "+C", " e", "+x", " f")
	for _, tc := range []struct{ base, head int }{
		{1, 1}, {2, 2},
		{3, 3}, // removed: the head line after the removal is the replacement's
		{4, 3},
		{5, 4}, // context
		{6, 6}, // context after an added line
		{7, 7}, // below the hunk: base 6 lines, head 6 lines
		{20, 20},
	} {
		if got := fc.HeadLine(tc.base); got != tc.head {
			t.Errorf("HeadLine(%d) = %d, want %d", tc.base, got, tc.head)
		}
	}
	// A pure deletion in a second hunk: lines below it move up.
	two := hunk(1, 1, " a", "+b")
	h2 := hunk(10, 11, " j", "-k", "-l", " m").Hunks[0]
	two.Hunks = append(two.Hunks, h2)
	for _, tc := range []struct{ base, head int }{
		{5, 6},   // between the hunks: one line added above
		{11, 12}, // removed: stands before m, head 12
		{12, 12},
		{13, 12}, // m
		{20, 19}, // below both: +1 -2
	} {
		if got := two.HeadLine(tc.base); got != tc.head {
			t.Errorf("two hunks: HeadLine(%d) = %d, want %d", tc.base, got, tc.head)
		}
	}
	// A removal that ends the file stays on the hunk's last line.
	tail := hunk(4, 4, " d", "-e", "-f")
	if got := tail.HeadLine(5); got != 4 {
		t.Errorf("removal at the end: HeadLine(5) = %d, want 4", got)
	}
	var nilFC *FileChange
	if nilFC.HeadLine(7) != 7 {
		t.Error("nil FileChange maps lines to themselves")
	}
}

func TestAddedFileIsAllAdded(t *testing.T) {
	fc := &FileChange{Path: "new.sh", Status: Added}
	if !fc.IsAdded(1) || !fc.IsAdded(500) || !fc.Touches(7, 9) {
		t.Error("every line of an added file counts as added")
	}
	var nilFC *FileChange
	if nilFC.IsAdded(1) || nilFC.Touches(1, 2) || nilFC.Changed() {
		t.Error("nil FileChange must report nothing")
	}
}

func TestChangeFileAndMemo(t *testing.T) {
	ch := &Change{Files: []*FileChange{
		{Path: "b.sh", OldPath: "a.sh", Status: Renamed},
		{Path: "c.yaml", OldPath: "c.yaml", Status: Modified},
	}}
	if ch.File("./b.sh") == nil || ch.File("a.sh") == nil || ch.File("c.yaml") == nil {
		t.Error("File must find head and base paths")
	}
	if ch.File("zzz") != nil {
		t.Error("File found a file the PR does not touch")
	}
	calls := 0
	key, other := NewMemoKey[int]("k"), NewMemoKey[int]("k")
	for i := 0; i < 3; i++ {
		v, err := Shared(ch, key, "a", func() (int, error) { calls++; return 42, nil })
		if err != nil || v != 42 {
			t.Fatal(v, err)
		}
	}
	if calls != 1 {
		t.Errorf("memo ran %d times", calls)
	}
	// Another argument, or another key of the same name, is another result.
	if v, _ := Shared(ch, key, "b", func() (int, error) { calls++; return 7, nil }); v != 7 {
		t.Errorf("arg b: %d", v)
	}
	if v, _ := Shared(ch, other, "a", func() (int, error) { calls++; return 8, nil }); v != 8 || calls != 3 {
		t.Errorf("another key: %d after %d calls", v, calls)
	}
}

func TestRepoSlug(t *testing.T) {
	if got := (PRInfo{}).RepoSlug(); got != "SemiAnalysisAI/InferenceX" {
		t.Error(got)
	}
	if got := (PRInfo{Owner: "o", Repo: "r"}).RepoSlug(); got != "o/r" {
		t.Error(got)
	}
}
