package fakegithub

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Git objects are stored with their real SHA-1 names, computed the way git
// computes them, so the App sees the IDs it would see on GitHub and a
// test can check them with checks.BlobID.

type commit struct {
	sha     string
	tree    string
	parents []string
	message string
	files   map[string][]byte // flattened tree, for diffs
	// date is the committer date the commits API reports (not part of
	// the hash: fixture SHAs stay what they were).
	date time.Time
}

type treeEntry struct {
	mode string // "100644", "040000"
	name string
	typ  string // "blob" or "tree"
	sha  string
	size int
}

type treeObject struct {
	sha     string
	entries []treeEntry
}

// objects is one repository's object store.
type objects struct {
	commits map[string]*commit
	trees   map[string]*treeObject
	blobs   map[string][]byte
}

func newObjects() *objects {
	return &objects{commits: map[string]*commit{}, trees: map[string]*treeObject{}, blobs: map[string][]byte{}}
}

func gitHash(kind string, body []byte) string {
	h := sha1.New()
	h.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// writeTree stores files (path → content) as blobs and nested trees and
// returns the root tree's SHA.
func (o *objects) writeTree(files map[string][]byte) string {
	type dir struct {
		files map[string]string // name → blob sha
		dirs  map[string]*dir
	}
	root := &dir{files: map[string]string{}, dirs: map[string]*dir{}}
	for p, content := range files {
		sha := checks.BlobID(content)
		o.blobs[sha] = content
		parts := strings.Split(p, "/")
		d := root
		for _, name := range parts[:len(parts)-1] {
			sub, ok := d.dirs[name]
			if !ok {
				sub = &dir{files: map[string]string{}, dirs: map[string]*dir{}}
				d.dirs[name] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = sha
	}
	var write func(d *dir) string
	write = func(d *dir) string {
		var entries []treeEntry
		for name, sha := range d.files {
			entries = append(entries, treeEntry{mode: "100644", name: name, typ: "blob", sha: sha, size: len(o.blobs[sha])})
		}
		for name, sub := range d.dirs {
			entries = append(entries, treeEntry{mode: "040000", name: name, typ: "tree", sha: write(sub)})
		}
		// git orders tree entries by name, a directory sorting as if its
		// name ended in "/".
		key := func(e treeEntry) string {
			if e.typ == "tree" {
				return e.name + "/"
			}
			return e.name
		}
		sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
		var body []byte
		for _, e := range entries {
			mode := e.mode
			if e.typ == "tree" {
				mode = "40000" // git writes tree modes without the leading zero
			}
			raw, _ := hex.DecodeString(e.sha)
			body = append(body, mode+" "+e.name+"\x00"...)
			body = append(body, raw...)
		}
		sha := gitHash("tree", body)
		o.trees[sha] = &treeObject{sha: sha, entries: entries}
		return sha
	}
	return write(root)
}

// writeCommit stores a commit of files on top of parents. An explicit sha
// names the commit as the caller wants (webhook payloads carry fixed SHAs);
// otherwise it gets its real git hash.
func (o *objects) writeCommit(files map[string][]byte, parents []string, message, sha string) *commit {
	tree := o.writeTree(files)
	if sha == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "tree %s\n", tree)
		for _, p := range parents {
			fmt.Fprintf(&b, "parent %s\n", p)
		}
		b.WriteString("author Fake Author <author@example.com> 1767225600 +0000\n")
		b.WriteString("committer Fake Author <author@example.com> 1767225600 +0000\n\n")
		b.WriteString(message + "\n")
		sha = gitHash("commit", []byte(b.String()))
	}
	c := &commit{sha: sha, tree: tree, parents: parents, message: message, files: files}
	o.commits[sha] = c
	return c
}

// flatten lists every entry under the tree sha, depth first, with full
// paths, as GitHub's recursive tree listing does.
func (o *objects) flatten(sha, prefix string) []treeEntry {
	t := o.trees[sha]
	if t == nil {
		return nil
	}
	var out []treeEntry
	for _, e := range t.entries {
		full := e
		full.name = path.Join(prefix, e.name)
		out = append(out, full)
		if e.typ == "tree" {
			out = append(out, o.flatten(e.sha, full.name)...)
		}
	}
	return out
}

// readTree loads every file of t into memory.
func readTree(ctx context.Context, t checks.Tree) (map[string][]byte, error) {
	files := map[string][]byte{}
	if t == nil {
		return files, nil
	}
	entries, err := checks.Walk(ctx, t, "")
	if err != nil {
		return nil, err
	}
	if br, ok := t.(checks.BulkReader); ok {
		// A git tree reads every file in one exchange, and leaves out
		// what has no content here (a submodule: GitHub lists it as a
		// commit entry without a blob).
		paths := make([]string, 0, len(entries))
		for _, e := range entries {
			paths = append(paths, e.Path)
		}
		got, err := br.ReadFiles(ctx, paths)
		if err != nil {
			return nil, err
		}
		return got, nil
	}
	for _, e := range entries {
		b, err := t.ReadFile(ctx, e.Path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Path, err)
		}
		files[e.Path] = b
	}
	return files, nil
}

// mergeBase finds the nearest common ancestor of a and b by breadth-first
// search over parents.
func mergeBase(lookup func(string) *commit, a, b string) string {
	seen := map[string]bool{}
	for queue := []string{a}; len(queue) > 0; queue = queue[1:] {
		if c := lookup(queue[0]); c != nil && !seen[c.sha] {
			seen[c.sha] = true
			queue = append(queue, c.parents...)
		}
	}
	visited := map[string]bool{}
	for queue := []string{b}; len(queue) > 0; queue = queue[1:] {
		sha := queue[0]
		if seen[sha] {
			return sha
		}
		if c := lookup(sha); c != nil && !visited[sha] {
			visited[sha] = true
			queue = append(queue, c.parents...)
		}
	}
	return ""
}
