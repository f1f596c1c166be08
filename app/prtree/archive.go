package prtree

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/checks"
)

// A revision read as one archive: GitHub's tarball of a commit (one API
// call answered by a redirect, and one download) instead of a tree
// listing and a call per file. The listing and the blob IDs are computed
// here the way git computes them, so the contents land in the blob cache
// under the SHAs the trees API would name, and the listing is checked
// against the commit's tree SHA before it is trusted.

// DefaultArchiveBytes is the most a revision's archive may hold,
// uncompressed; a larger one is read through the trees API instead.
const DefaultArchiveBytes = 64 << 20

const (
	// maxArchiveEntries bounds the entries of one archive (InferenceX
	// has ~1,400); each costs a listing entry.
	maxArchiveEntries = 100_000
	// maxArchivePath bounds one path; maxArchiveDepth its directories.
	maxArchivePath  = 4096
	maxArchiveDepth = 128
)

// errArchiveTooLarge is an archive over the byte budget.
var errArchiveTooLarge = errors.New("archive over the byte budget")

// archive is a revision read from its tarball.
type archive struct {
	listing *treeListing
	blobs   map[string][]byte // blob SHA → content
	// gitlinks counts the empty directories of the archive: git archive
	// writes a submodule so, and the trees API lists it as a commit the
	// App does not read. The root tree SHA cannot be recomputed then.
	gitlinks int
	// attributes is set when a .gitattributes asks git archive to change
	// what it writes (export-subst, export-ignore): the archive is then
	// not the commit.
	attributes bool
	bytes      int64
}

// verified reports whether the archive is the commit whose root tree is
// tree: the recomputed root tree SHA matches, or differs only by
// submodules, which the App does not read.
func (a *archive) verified(tree string) bool {
	if a.attributes {
		return false
	}
	return a.listing.sha == tree || (a.gitlinks > 0 && tree != "")
}

// fetchArchive downloads and reads the tarball of commit, within budget
// bytes compressed and uncompressed.
func fetchArchive(ctx context.Context, gh *github.Client, owner, repo, commit string, budget int64) (*archive, error) {
	u, resp, err := gh.Repositories.GetArchiveLink(ctx, owner, repo, github.Tarball, &github.RepositoryContentGetOptions{Ref: commit}, 0)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("tarball of %s/%s@%.12s: %w", owner, repo, commit, notFound{})
		}
		return nil, fmt.Errorf("tarball of %s/%s@%.12s: %w", owner, repo, commit, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("tarball of %s/%s@%.12s: GitHub redirected to a %q URL", owner, repo, commit, u.Scheme)
	}
	if !sameHost(u, gh.BaseURL) {
		// codeload.github.com: the URL carries its own credential, and
		// the installation's token must not leave the API's host.
		ctx = ghapi.Uncredentialed(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: gh.Client().Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	dl, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL carries a token: keep it out of logs
		}
		return nil, fmt.Errorf("download the tarball of %s/%s@%.12s from %s: %w", owner, repo, commit, u.Host, err)
	}
	defer dl.Body.Close()
	if dl.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download the tarball of %s/%s@%.12s: %s answered %s", owner, repo, commit, u.Host, dl.Status)
	}
	if dl.ContentLength > budget {
		return nil, fmt.Errorf("tarball of %s/%s@%.12s: %d bytes: %w", owner, repo, commit, dl.ContentLength, errArchiveTooLarge)
	}
	a, err := readArchive(io.LimitReader(dl.Body, budget+1), commit, budget)
	if err != nil {
		return nil, fmt.Errorf("tarball of %s/%s@%.12s: %w", owner, repo, commit, err)
	}
	return a, nil
}

// notFound is a 404 of the tarball endpoint (a fork's head the App may
// not read), which go-github does not turn into an ErrorResponse.
type notFound struct{}

func (notFound) Error() string { return "404 Not Found" }

func sameHost(a, b *url.URL) bool {
	return b != nil && strings.EqualFold(a.Host, b.Host)
}

// budgetReader fails once more than n bytes have been read: the
// decompressed stream of a gzip bomb stops there.
type budgetReader struct {
	r io.Reader
	n int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, errArchiveTooLarge
	}
	if int64(len(p)) > b.n+1 {
		p = p[:b.n+1]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if b.n < 0 {
		return n, errArchiveTooLarge
	}
	return n, err
}

// archiveFile is one file of an archive before the trees are hashed.
type archiveFile struct {
	mode string // git's: 100644, 100755, 120000
	sha  string
	size int64
}

// readArchive reads a gzipped tar as GitHub writes one: one top
// directory, files, symlinks and directories below it. Anything else
// (hard links, devices, paths leaving the top directory) is an error,
// as is a pax comment naming another commit.
func readArchive(r io.Reader, commit string, budget int64) (*archive, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	tr := tar.NewReader(&budgetReader{r: gz, n: budget})
	a := &archive{blobs: map[string][]byte{}}
	files := map[string]archiveFile{}
	dirs := map[string]bool{"": true}
	top := ""
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, errArchiveTooLarge) {
				return nil, err
			}
			return nil, fmt.Errorf("malformed tar: %w", err)
		}
		if n > maxArchiveEntries {
			return nil, fmt.Errorf("more than %d entries", maxArchiveEntries)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			if c := h.PAXRecords["comment"]; c != "" && c != commit {
				return nil, fmt.Errorf("the archive is of commit %.12s, not %.12s", c, commit)
			}
			continue
		}
		if len(h.Name) > maxArchivePath {
			return nil, fmt.Errorf("a path of %d bytes", len(h.Name))
		}
		first, rest, _ := strings.Cut(strings.TrimPrefix(h.Name, "./"), "/")
		if top == "" {
			top = first
		}
		if first != top || first == "" || first == ".." {
			return nil, fmt.Errorf("entry %q is outside the top directory %q", h.Name, top)
		}
		p := strings.TrimSuffix(rest, "/")
		if p != "" && (path.Clean(p) != p || strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, "/")) {
			return nil, fmt.Errorf("entry %q has an unclean path", h.Name)
		}
		if strings.Count(p, "/") >= maxArchiveDepth {
			return nil, fmt.Errorf("entry %q is nested more than %d deep", h.Name, maxArchiveDepth)
		}
		var body []byte
		mode := "100644"
		switch h.Typeflag {
		case tar.TypeDir:
			dirs[p] = true
			continue
		case tar.TypeReg:
			if h.Size > budget {
				return nil, errArchiveTooLarge
			}
			if body, err = io.ReadAll(io.LimitReader(tr, h.Size)); err != nil {
				if errors.Is(err, errArchiveTooLarge) {
					return nil, err
				}
				return nil, fmt.Errorf("malformed tar: %s: %w", h.Name, err)
			}
			if int64(len(body)) != h.Size {
				return nil, fmt.Errorf("malformed tar: %s is cut short", h.Name)
			}
			if h.Mode&0o111 != 0 {
				mode = "100755"
			}
		case tar.TypeSymlink:
			// The trees API lists a symlink as a blob holding its target.
			body, mode = []byte(h.Linkname), "120000"
		default:
			return nil, fmt.Errorf("entry %q has tar type %q, which git archive does not write", h.Name, h.Typeflag)
		}
		if p == "" {
			return nil, fmt.Errorf("entry %q is the top directory but not a directory", h.Name)
		}
		if path.Base(p) == ".gitattributes" && strings.Contains(string(body), "export-") {
			a.attributes = true
		}
		sha := checks.BlobID(body)
		a.blobs[sha] = body
		a.bytes += int64(len(body))
		files[p] = archiveFile{mode: mode, sha: sha, size: int64(len(body))}
	}
	if top == "" {
		return nil, errors.New("empty archive")
	}
	a.listing, a.gitlinks = hashTrees(files, dirs)
	return a, nil
}

// hashTrees builds the listing of an archive's files and directories,
// naming every tree as git does. A directory with no entries at all is a
// submodule (git has no empty trees): it is left out, as the trees API's
// commit entries are.
func hashTrees(files map[string]archiveFile, dirs map[string]bool) (*treeListing, int) {
	type child struct {
		name, mode, sha string
		dir             bool
	}
	kids := map[string][]child{}
	for p := range files {
		for d := parentOf(p); ; d = parentOf(d) {
			dirs[d] = true // a file implies its directories
			if d == "" {
				break
			}
		}
	}
	hasChildDir := map[string]bool{}
	for d := range dirs {
		if d != "" {
			hasChildDir[parentOf(d)] = true
		}
	}
	l := &treeListing{entries: map[string]checks.Entry{}, children: map[string][]string{}}
	for p, f := range files {
		kids[parentOf(p)] = append(kids[parentOf(p)], child{name: path.Base(p), mode: f.mode, sha: f.sha})
		l.entries[p] = checks.Entry{Path: p, Size: f.size, ID: f.sha}
	}
	// Hash the deepest directories first, so each parent sees its
	// children's SHAs.
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		di, dj := depthOf(order[i]), depthOf(order[j])
		if di != dj {
			return di > dj
		}
		return order[i] < order[j]
	})
	shas := map[string]string{}
	gitlinks := 0
	for _, d := range order {
		cs := kids[d]
		if d != "" && len(cs) == 0 && !hasChildDir[d] {
			gitlinks++
			continue
		}
		sort.Slice(cs, func(i, j int) bool { return sortName(cs[i].name, cs[i].dir) < sortName(cs[j].name, cs[j].dir) })
		var body []byte
		for _, c := range cs {
			raw, _ := hex.DecodeString(c.sha)
			body = append(body, c.mode+" "+c.name+"\x00"...)
			body = append(body, raw...)
		}
		sha := gitObjectID("tree", body)
		shas[d] = sha
		if d != "" {
			l.entries[d] = checks.Entry{Path: d, IsDir: true, ID: sha}
			kids[parentOf(d)] = append(kids[parentOf(d)], child{name: path.Base(d), mode: "40000", sha: sha, dir: true})
		}
	}
	l.sha = shas[""]
	l.index()
	return l, gitlinks
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func depthOf(p string) int {
	if p == "" {
		return -1
	}
	return strings.Count(p, "/")
}

// sortName is git's tree order: a directory sorts as its name and "/".
func sortName(name string, dir bool) string {
	if dir {
		return name + "/"
	}
	return name
}

func gitObjectID(kind string, body []byte) string {
	h := sha1.New()
	h.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
