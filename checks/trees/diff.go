package trees

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// contextLines is the unified-diff context, as git and GitHub use.
const contextLines = 3

// Diff computes the change from base to head in process: added, deleted,
// modified and (exact-content) renamed files, with line hunks for text
// files. Files whose first 8000 bytes hold a NUL are binary, as git decides.
// A file that cannot be read is an error (DiffChange names it instead).
func Diff(ctx context.Context, base, head checks.Tree) ([]*checks.FileChange, error) {
	files, skipped, err := diffTrees(ctx, base, head)
	if err == nil && len(skipped) > 0 {
		err = fmt.Errorf("%s: %s", skipped[0].Path, skipped[0].Reason)
	}
	return files, err
}

// DiffChange is Diff as the change to review: a file of either tree that
// cannot be read (a named pipe, a file that vanished) is left out of
// Files and named as not reviewed, and the other files are diffed.
func DiffChange(ctx context.Context, base, head checks.Tree) (*checks.Change, error) {
	files, skipped, err := diffTrees(ctx, base, head)
	if err != nil {
		return nil, err
	}
	ch := &checks.Change{Base: base, Head: head, Files: files}
	for _, n := range skipped {
		ch.Skip(n.Path, n.Reason)
	}
	return ch, nil
}

// unreadable is the reason a file that could not be read was not
// reviewed: what it is when it is not a file ("a named pipe, not a
// regular file"), else why the read failed.
func unreadable(err error) string {
	if nr := checks.AsNotRegular(err); nr != nil {
		return nr.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return "it could not be read: " + err.Error()
}

func diffTrees(ctx context.Context, base, head checks.Tree) (out []*checks.FileChange, skipped []checks.NotReviewed, err error) {
	baseFiles, err := checks.Walk(ctx, base, "")
	if err != nil {
		return nil, nil, fmt.Errorf("list base tree: %w", err)
	}
	headFiles, err := checks.Walk(ctx, head, "")
	if err != nil {
		return nil, nil, fmt.Errorf("list head tree: %w", err)
	}
	bad := map[string]bool{}
	skip := func(p string, err error) {
		if !bad[p] {
			bad[p] = true
			skipped = append(skipped, checks.NotReviewed{Path: p, Reason: unreadable(err)})
		}
	}
	stat := func(t checks.Tree, es []checks.Entry) map[string]checks.Entry {
		out := map[string]checks.Entry{}
		for _, e := range es {
			st, err := t.Stat(ctx, e.Path)
			if err != nil {
				skip(e.Path, err)
				continue
			}
			out[st.Path] = st
		}
		return out
	}
	inBase, inHead := stat(base, baseFiles), stat(head, headFiles)
	// A file unreadable on either side is out of the diff altogether:
	// neither deleted nor added.
	var bf, hf []checks.Entry
	for _, e := range baseFiles {
		if !bad[e.Path] {
			bf = append(bf, e)
		}
	}
	for _, e := range headFiles {
		if !bad[e.Path] {
			hf = append(hf, e)
		}
	}
	baseFiles, headFiles = bf, hf
	diff := func(oldPath, newPath string, st checks.FileStatus) {
		fc, err := diffFile(ctx, base, head, oldPath, newPath, st)
		if err != nil {
			skip(cmp.Or(newPath, oldPath), err)
			return
		}
		out = append(out, fc)
	}

	var added []checks.Entry
	for _, h := range headFiles {
		b, ok := inBase[h.Path]
		if !ok {
			added = append(added, inHead[h.Path])
			continue
		}
		if b.ID == inHead[h.Path].ID {
			continue
		}
		diff(h.Path, h.Path, checks.Modified)
	}
	deletedByID := map[string][]string{}
	var deleted []string
	for _, b := range baseFiles {
		if _, ok := inHead[b.Path]; !ok {
			deleted = append(deleted, b.Path)
			id := inBase[b.Path].ID
			deletedByID[id] = append(deletedByID[id], b.Path)
		}
	}
	renamedFrom := map[string]bool{}
	for _, a := range added {
		if olds := deletedByID[a.ID]; len(olds) > 0 {
			deletedByID[a.ID] = olds[1:]
			renamedFrom[olds[0]] = true
			out = append(out, &checks.FileChange{Path: a.Path, OldPath: olds[0], Status: checks.Renamed})
			continue
		}
		diff("", a.Path, checks.Added)
	}
	for _, d := range deleted {
		if !renamedFrom[d] {
			diff(d, "", checks.Deleted)
		}
	}
	sortChanges(out)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return out, skipped, nil
}

func sortChanges(fs []*checks.FileChange) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
}

func diffFile(ctx context.Context, base, head checks.Tree, oldPath, newPath string, st checks.FileStatus) (*checks.FileChange, error) {
	var a, b []byte
	var err error
	if oldPath != "" {
		if a, err = base.ReadFile(ctx, oldPath); err != nil {
			return nil, fmt.Errorf("read %s in base: %w", oldPath, err)
		}
	}
	if newPath != "" {
		if b, err = head.ReadFile(ctx, newPath); err != nil {
			return nil, fmt.Errorf("read %s in head: %w", newPath, err)
		}
	}
	fc := &checks.FileChange{Path: newPath, OldPath: oldPath, Status: st}
	if newPath == "" {
		fc.Path = oldPath
	}
	if isBinary(a) || isBinary(b) {
		fc.Binary = true
		return fc, nil
	}
	fc.Hunks = LineHunks(a, b)
	return fc, nil
}

func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// splitLines splits text into lines without their newlines. A last line
// lacking its newline gets a marker in the comparison key so that adding
// or removing a final newline shows as a changed line, as in git.
func splitLines(b []byte) (text, keys []string) {
	if len(b) == 0 {
		return nil, nil
	}
	s := string(b)
	noEOL := !strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	text = strings.Split(s, "\n")
	keys = append([]string(nil), text...)
	if noEOL {
		keys[len(keys)-1] += "\x00no newline at end of file"
	}
	return text, keys
}

// LineHunks computes unified-diff hunks (3 lines of context) between two
// texts. The common prefix and suffix are set aside first: a PR usually
// appends or edits a few lines of a large file, and the matcher's cost
// grows with the size of what it must align. The matcher runs without
// difflib's "popular line" heuristic: perf changelogs repeat the same
// lines thousands of times, and the heuristic would turn a clean append
// into a rewrite.
func LineHunks(a, b []byte) []checks.Hunk {
	at, ak := splitLines(a)
	bt, bk := splitLines(b)
	pre := 0
	for pre < len(ak) && pre < len(bk) && ak[pre] == bk[pre] {
		pre++
	}
	suf := 0
	for suf < len(ak)-pre && suf < len(bk)-pre && ak[len(ak)-1-suf] == bk[len(bk)-1-suf] {
		suf++
	}
	var ops []difflib.OpCode
	if pre > 0 {
		ops = append(ops, difflib.OpCode{Tag: 'e', I1: 0, I2: pre, J1: 0, J2: pre})
	}
	m := difflib.NewMatcherWithJunk(ak[pre:len(ak)-suf], bk[pre:len(bk)-suf], false, nil)
	for _, op := range m.GetOpCodes() {
		if op.I1 == op.I2 && op.J1 == op.J2 {
			continue
		}
		ops = append(ops, difflib.OpCode{Tag: op.Tag, I1: op.I1 + pre, I2: op.I2 + pre, J1: op.J1 + pre, J2: op.J2 + pre})
	}
	if suf > 0 {
		ops = append(ops, difflib.OpCode{Tag: 'e', I1: len(ak) - suf, I2: len(ak), J1: len(bk) - suf, J2: len(bk)})
	}

	var hunks []checks.Hunk
	for _, group := range groupOpCodes(ops, contextLines) {
		first, last := group[0], group[len(group)-1]
		h := checks.Hunk{
			OldStart: first.I1 + 1, OldLines: last.I2 - first.I1,
			NewStart: first.J1 + 1, NewLines: last.J2 - first.J1,
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		for _, op := range group {
			if op.Tag == 'e' {
				for i := op.I1; i < op.I2; i++ {
					j := op.J1 + i - op.I1
					h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpContext, Text: at[i], Old: i + 1, New: j + 1})
				}
				continue
			}
			for i := op.I1; i < op.I2; i++ {
				h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpDelete, Text: at[i], Old: i + 1})
			}
			for j := op.J1; j < op.J2; j++ {
				h.Lines = append(h.Lines, checks.DiffLine{Op: checks.OpAdd, Text: bt[j], New: j + 1})
			}
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// groupOpCodes splits opcodes into hunks with n lines of context around
// each change, merging changes whose contexts overlap.
func groupOpCodes(ops []difflib.OpCode, n int) [][]difflib.OpCode {
	changed := false
	for _, op := range ops {
		if op.Tag != 'e' {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	ops = append([]difflib.OpCode(nil), ops...)
	if ops[0].Tag == 'e' {
		o := &ops[0]
		o.I1, o.J1 = max(o.I1, o.I2-n), max(o.J1, o.J2-n)
	}
	if last := &ops[len(ops)-1]; last.Tag == 'e' {
		last.I2, last.J2 = min(last.I2, last.I1+n), min(last.J2, last.J1+n)
	}
	var groups [][]difflib.OpCode
	var cur []difflib.OpCode
	for _, op := range ops {
		if op.Tag == 'e' && op.I2-op.I1 > 2*n {
			cur = append(cur, difflib.OpCode{Tag: 'e', I1: op.I1, I2: min(op.I2, op.I1+n), J1: op.J1, J2: min(op.J2, op.J1+n)})
			groups = append(groups, cur)
			cur = []difflib.OpCode{{Tag: 'e', I1: max(op.I1, op.I2-n), I2: op.I2, J1: max(op.J1, op.J2-n), J2: op.J2}}
			continue
		}
		cur = append(cur, op)
	}
	if len(cur) > 0 && !(len(cur) == 1 && cur[0].Tag == 'e') {
		groups = append(groups, cur)
	}
	// The first group may start with an empty context run.
	for i, g := range groups {
		if len(g) > 0 && g[0].Tag == 'e' && g[0].I1 == g[0].I2 {
			groups[i] = g[1:]
		}
	}
	return groups
}
