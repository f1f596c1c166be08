package changelog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mk builds entries from short descriptions; each becomes a distinct entry
// text with four value lines.
func mk(names ...string) []*Entry {
	var out []*Entry
	for i, n := range names {
		text := "- config-keys:\n    - key-" + strings.TrimSuffix(n, "'") + "\n  description:\n    - \"" + n + " one\"\n    - \"" + strings.TrimSuffix(n, "'") + " two\"\n    - \"" + strings.TrimSuffix(n, "'") + " three\"\n  pr-link: https://github.com/o/r/pull/" + strings.TrimSuffix(n, "'")
		out = append(out, &Entry{Index: i, Text: text})
	}
	return out
}

func TestAlign(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, head []string
		want       []HeadStatus
		deleted    []int
	}{
		{"append", []string{"a", "b"}, []string{"a", "b", "n"}, []HeadStatus{Unchanged, Unchanged, Appended}, nil},
		{"insert", []string{"a", "b"}, []string{"a", "n", "b"}, []HeadStatus{Unchanged, Inserted, Unchanged}, nil},
		{"insert at top", []string{"a", "b"}, []string{"n", "a", "b"}, []HeadStatus{Inserted, Unchanged, Unchanged}, nil},
		{"edit and append", []string{"a", "b"}, []string{"a", "b'", "n"}, []HeadStatus{Unchanged, Edited, Appended}, nil},
		{"delete", []string{"a", "b", "c"}, []string{"a", "c"}, []HeadStatus{Unchanged, Unchanged}, []int{1}},
		{"delete last and append", []string{"a", "b"}, []string{"a", "n"}, []HeadStatus{Unchanged, Appended}, []int{1}},
		{"move", []string{"a", "b", "c"}, []string{"b", "c", "a"}, []HeadStatus{Unchanged, Unchanged, Moved}, nil},
		{"empty base", nil, []string{"n"}, []HeadStatus{Appended}, nil},
		{"empty head", []string{"a"}, nil, []HeadStatus{}, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			al := Align(mk(tc.base...), mk(tc.head...))
			if d := cmp.Diff(tc.want, al.Head); d != "" {
				t.Errorf("head statuses (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.deleted, al.Deleted()); d != "" {
				t.Errorf("deleted (-want +got):\n%s", d)
			}
		})
	}
}

func TestUniqueMatches(t *testing.T) {
	// 1 2 3 4 vs 1 9 3 2 4: unique texts in increasing order only.
	got := uniqueMatches([]int32{1, 2, 3, 4}, []int32{1, 9, 3, 2, 4})
	want := [][2]int{{0, 0}, {2, 2}, {3, 4}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
