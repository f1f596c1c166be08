package fakegithub

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// prFile is one entry of a PR's files list, as the files API reports it.
type prFile struct {
	path, previous string
	status         string // added, removed, modified, renamed
	sha            string // the head blob (the base blob for a removed file)
	patch          string // "" for binary files
	binary         bool
	additions      int
	deletions      int
	hunks          []checks.Hunk
}

// diffCommits computes what the files API lists between two commits.
func diffCommits(ctx context.Context, base, head *commit) ([]*prFile, error) {
	bt, ht := memTree(base.files), memTree(head.files)
	changes, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		return nil, err
	}
	out := make([]*prFile, 0, len(changes))
	for _, fc := range changes {
		f := &prFile{path: fc.Path, binary: fc.Binary, hunks: fc.Hunks}
		var oldB, newB []byte
		switch fc.Status {
		case checks.Added:
			f.status = "added"
			newB = head.files[fc.Path]
			f.sha = checks.BlobID(newB)
		case checks.Deleted:
			f.status = "removed"
			oldB = base.files[fc.Path]
			f.sha = checks.BlobID(oldB)
		case checks.Renamed:
			f.status, f.previous = "renamed", fc.OldPath
			oldB, newB = base.files[fc.OldPath], head.files[fc.Path]
			f.sha = checks.BlobID(newB)
		default:
			f.status = "modified"
			oldB, newB = base.files[fc.Path], head.files[fc.Path]
			f.sha = checks.BlobID(newB)
		}
		if !fc.Binary {
			f.patch = renderPatch(fc.Hunks, oldB, newB)
		}
		for _, h := range fc.Hunks {
			for _, l := range h.Lines {
				switch l.Op {
				case checks.OpAdd:
					f.additions++
				case checks.OpDelete:
					f.deletions++
				}
			}
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

func memTree(files map[string][]byte) checks.Tree {
	m := make(map[string]string, len(files))
	for p, b := range files {
		m[p] = string(b)
	}
	return checks.NewMemTree(m)
}

// renderPatch writes hunks as GitHub's "patch" field: hunk headers and
// lines, no file header, "\ No newline at end of file" where git writes it.
func renderPatch(hunks []checks.Hunk, oldB, newB []byte) string {
	oldLines, newLines := countLines(oldB), countLines(newB)
	oldNoEOL := len(oldB) > 0 && !bytes.HasSuffix(oldB, []byte("\n"))
	newNoEOL := len(newB) > 0 && !bytes.HasSuffix(newB, []byte("\n"))
	var b strings.Builder
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.OldStart, h.OldLines), hunkRange(h.NewStart, h.NewLines))
		for _, l := range h.Lines {
			b.WriteByte(byte(l.Op))
			b.WriteString(l.Text)
			b.WriteByte('\n')
			lastOld := l.Op != checks.OpAdd && l.Old == oldLines && oldNoEOL
			lastNew := l.Op != checks.OpDelete && l.New == newLines && newNoEOL
			if lastOld || lastNew {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func countLines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte("\n"))
	if !bytes.HasSuffix(b, []byte("\n")) {
		n++
	}
	return n
}

// onDiff reports whether a review comment may sit on line of side in f:
// GitHub accepts any line a hunk shows (added, removed or context) on that
// side, and a multi-line comment must stay within one hunk.
func (f *prFile) onDiff(side string, start, line int) bool {
	if line <= 0 {
		return false
	}
	if start == 0 {
		start = line
	}
	for _, h := range f.hunks {
		lo, n := h.NewStart, h.NewLines
		if side == "LEFT" {
			lo, n = h.OldStart, h.OldLines
		}
		if start >= lo && line < lo+n && start <= line {
			return true
		}
	}
	return false
}
