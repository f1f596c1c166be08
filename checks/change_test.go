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
