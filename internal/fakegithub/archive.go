package fakegithub

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// Repository archives, as GitHub serves them: the API answers
// GET /repos/{owner}/{repo}/tarball/{ref} with a 302 to codeload, a
// host that takes the credential in the URL (a short-lived token for a
// private repository) and answers a gzipped tar whose entries sit under
// one directory named {owner}-{repo}-{short sha}/, preceded by a pax
// global header carrying the commit SHA (git archive writes it).
// On GitHub Enterprise Server codeload is on the instance's own host,
// which is what the fake does.

// Route names of the archive endpoints.
const (
	RouteTarball  = "GET /repos/{owner}/{repo}/tarball/{ref}"
	RouteCodeload = "GET /_codeload/{owner}/{repo}/legacy.tar.gz/{sha}"
)

func (s *Server) registerArchiveRoutes() {
	for _, route := range []string{RouteTarball, RouteCodeload} {
		method, pattern, _ := strings.Cut(route, " ")
		h := s.tarball
		if route == RouteCodeload {
			h = s.codeload
		}
		s.Handle(method, pattern, h)
	}
}

// archiveToken signs a codeload URL for one commit of one repository.
func (s *Server) archiveToken(full, sha string) string {
	m := hmac.New(sha256.New, []byte(s.storageSig))
	m.Write([]byte(strings.ToLower(full) + "\x00" + sha))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

func (s *Server) tarball(w http.ResponseWriter, r *http.Request) {
	_, repo, ok := s.authorize(w, r, false)
	if !ok {
		return
	}
	ref := chi.URLParam(r, "ref")
	s.mu.Lock()
	c := repo.objects.commits[ref]
	if b, ok := repo.branches[ref]; c == nil && ok {
		c = repo.objects.commits[b]
	}
	s.mu.Unlock()
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	host := s.CodeloadURL
	s.mu.Unlock()
	if host == "" {
		host = s.URL
	}
	w.Header().Set("Location", fmt.Sprintf("%s/_codeload/%s/%s/legacy.tar.gz/%s?token=%s", host, repo.Owner, repo.Name,
		c.sha, s.archiveToken(repo.FullName(), c.sha)))
	w.WriteHeader(http.StatusFound)
}

func (s *Server) codeload(w http.ResponseWriter, r *http.Request) {
	owner, name, sha := chi.URLParam(r, "owner"), chi.URLParam(r, "repo"), chi.URLParam(r, "sha")
	s.mu.Lock()
	repo := s.repos[strings.ToLower(owner+"/"+name)]
	var c *commit
	if repo != nil {
		c = repo.objects.commits[sha]
	}
	s.mu.Unlock()
	if repo == nil || !hmac.Equal([]byte(r.URL.Query().Get("token")), []byte(s.archiveToken(repo.FullName(), sha))) {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	if c == nil {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	body, err := s.archiveCached(repo, c)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-gzip")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%s-%s-%.7s.tar.gz", repo.Owner, repo.Name, c.sha))
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// archiveOf writes commit c of repo as git archive does: directories
// before their contents, in path order, under one top directory.
func archiveOf(repo *Repo, c *commit) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	top := fmt.Sprintf("%s-%s-%.7s/", repo.Owner, repo.Name, c.sha)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
		PAXRecords: map[string]string{"comment": c.sha}, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top, Mode: 0o775}); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	written := map[string]bool{}
	for _, p := range paths {
		parts := strings.Split(p, "/")
		for i := 1; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/") + "/"
			if written[d] {
				continue
			}
			written[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + d, Mode: 0o775}); err != nil {
				return nil, err
			}
		}
		body := c.files[p]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: top + p, Mode: 0o664, Size: int64(len(body))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PrepareArchive builds and keeps the archive of commit sha of repo, as
// codeload has it ready: a latency replay injects GitHub's time, and the
// fake's own CPU (gzip of a whole repository, 0.3 s or more for
// InferenceX) must not be charged to the review on a shared machine.
func (s *Server) PrepareArchive(repo *Repo, sha string) error {
	s.mu.Lock()
	c := repo.objects.commits[sha]
	s.mu.Unlock()
	if c == nil {
		return fmt.Errorf("%s has no commit %s", repo.FullName(), sha)
	}
	_, err := s.archiveCached(repo, c)
	return err
}

// archiveCached is archiveOf, the last few kept: writing the archive of a
// repository the size of InferenceX takes longer than GitHub's cached
// answer would.
func (s *Server) archiveCached(repo *Repo, c *commit) ([]byte, error) {
	key := repo.FullName() + "@" + c.sha
	s.mu.Lock()
	b, ok := s.archives[key]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := archiveOf(repo, c)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.archives == nil {
		s.archives = map[string][]byte{}
	}
	if _, ok := s.archives[key]; !ok {
		s.archiveOrder = append(s.archiveOrder, key)
		if len(s.archiveOrder) > maxCachedArchives {
			delete(s.archives, s.archiveOrder[0])
			s.archiveOrder = s.archiveOrder[1:]
		}
	}
	s.archives[key] = b
	return b, nil
}

const maxCachedArchives = 4
