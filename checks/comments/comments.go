// Package comments checks what the comments a PR writes claim about the
// repository (TX rules): a comment is read by the next maintainer as the
// truth about the code beside it.
package comments

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// Rules returns the comment rules in run order.
func Rules() []*checks.Rule { return []*checks.Rule{TX001} }

// TX001 reports a comment the PR adds that names a file of the repository
// that is not there.
var TX001 = &checks.Rule{
	ID:       "TX001",
	Severity: checks.Warning,
	Title:    "Comment names a file the repository does not have",
	Doc: "Recipes, launchers, srt-slurm recipes and master configs point at each other in comments (\"copied " +
		"from ../8k1k/disagg-gb200-1p1d.yaml\", \"the golden AL of golden_al_distribution/glm5.2_mtp.yaml\", \"see " +
		"benchmarks/single_node/fixed_seq_len/x.sh\"). This rule reads the comments a PR adds to those files and " +
		"reports a path into the repository's own directories (`benchmarks/`, `configs/`, `runners/`, " +
		"`golden_al_distribution/`, `.github/`, or one relative to the file, `../x.yaml`) that names no file or " +
		"directory of the tree as the PR leaves it, from the repository's root or from the commented file's " +
		"directory or any directory above it, nor as the tail of a path of the tree (a directory the repository copies " +
		"into another checkout). A file of the same name elsewhere is offered as the likely target " +
		"(a file the comment's author moved or renamed). Paths of other checkouts (an srt-slurm clone, an " +
		"engine's source) are outside these directories and not judged, nor are comments of `deprecated/` " +
		"directories. Fix the path, or the comment.",
	Run: runTX001,
}

// maxCommentLines bounds the added lines of one file the rule reads, and
// maxPathsPerLine the paths of one line.
const (
	maxCommentLines = 20000
	maxPathsPerLine = 8
)

// pathRE matches a path-like word with a file extension, or a path of
// two or more segments starting with ./ or ../.
var pathRE = regexp.MustCompile(`(?:\.\.?/)*(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+`)

// roots are the repository's own top directories a comment's path may
// start with.
var roots = map[string]bool{"benchmarks": true, "configs": true, "runners": true, "golden_al_distribution": true, ".github": true}

// commentedExts are the files whose comments are read.
var commentedExts = map[string]bool{".sh": true, ".yaml": true, ".yml": true}

func runTX001(p *checks.Pass) error {
	var names map[string][]string // base name → tree paths, read on first need
	for _, fc := range p.Change.Files {
		if fc.Status == checks.Deleted || fc.Binary || !commentedExts[path.Ext(fc.Path)] || checks.InDeprecated(fc.Path) {
			continue
		}
		src, err := p.Change.Head.ReadFile(p.Ctx, fc.Path)
		if err != nil {
			if checks.IsNotExist(err) {
				continue
			}
			return err
		}
		lines := strings.Split(string(src), "\n")
		read := 0
		for _, n := range fc.AddedLines() {
			if n < 1 || n > len(lines) {
				continue
			}
			if read++; read > maxCommentLines {
				break
			}
			c, ok := commentOf(lines[n-1], path.Ext(fc.Path) != ".sh")
			if !ok {
				continue
			}
			for i, ref := range refsIn(c) {
				if i >= maxPathsPerLine {
					break
				}
				found, err := exists(p, fc.Path, ref)
				if err != nil {
					return err
				}
				if found {
					continue
				}
				if names == nil {
					if names, err = indexNames(p); err != nil {
						return err
					}
				}
				same := names[path.Base(ref)]
				if !strings.HasPrefix(ref, ".") && slices.ContainsFunc(same, func(f string) bool { return strings.HasSuffix(f, "/"+ref) }) {
					continue // the same path inside a directory the repository copies elsewhere (a checkout's configs/)
				}
				p.Report(tx001Finding(fc.Path, n, ref, same))
			}
		}
	}
	return nil
}

// commentOf returns the comment of a line: the whole line after a
// leading #, or, where trailing comments are safe to tell (YAML), what
// follows " #".
func commentOf(line string, trailing bool) (string, bool) {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#!") {
		return t[1:], true
	}
	if trailing {
		if i := strings.Index(line, " #"); i >= 0 && !strings.ContainsAny(line[:i], `"'`) {
			return line[i+2:], true
		}
	}
	return "", false
}

// refsIn returns the repository paths a comment names, once each.
func refsIn(c string) []string {
	var out []string
	seen := map[string]bool{}
	for _, loc := range pathRE.FindAllStringIndex(c, -1) {
		ref := strings.TrimRight(c[loc[0]:loc[1]], ".")
		before := c[:loc[0]]
		// Part of a URL, an option (--x=a/b), a variable's path ($D/x) or a
		// longer token: not a path of the tree as written.
		if strings.HasSuffix(before, "://") || strings.HasSuffix(before, "/") || strings.HasSuffix(before, "$") ||
			strings.HasSuffix(before, "}") || strings.HasSuffix(before, "=") || strings.HasSuffix(before, "@") ||
			strings.HasSuffix(before, "-") || strings.HasSuffix(before, ":") || strings.Contains(c, "://"+ref) {
			continue
		}
		if loc[1] < len(c) && strings.ContainsAny(c[loc[1]:loc[1]+1], "/*{$<@") {
			continue
		}
		segs := strings.Split(ref, "/")
		relative := segs[0] == "." || segs[0] == ".."
		if slices.ContainsFunc(segs, func(s string) bool { return strings.HasPrefix(s, "...") }) {
			continue // an ellipsis: "…/benchmarks/x", a path cut short on purpose
		}
		hasExt := strings.Contains(strings.TrimLeft(path.Base(ref), "."), ".")
		switch {
		case relative && (!hasExt || len(segs) < 3):
			continue // ./x.sh or ../dir: too often a place of another checkout
		case !relative && !roots[segs[0]]:
			continue
		case !relative && !hasExt && len(segs) < 3:
			continue // "configs/01-08": a date, a range, not a path
		}
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out
}

// exists resolves ref from the root and from the commented file's
// directory and every directory above it.
func exists(p *checks.Pass, file, ref string) (bool, error) {
	cands := []string{ref}
	for d := path.Dir(file); ; d = path.Dir(d) {
		cands = append(cands, path.Join(d, ref))
		if d == "." || d == "/" || d == "" {
			break
		}
	}
	for _, c := range cands {
		c = path.Clean(c)
		if strings.HasPrefix(c, "../") || c == ".." {
			continue
		}
		if _, err := p.Change.Head.Stat(p.Ctx, checks.CleanPath(c)); err == nil {
			return true, nil
		} else if !checks.IsNotExist(err) {
			return false, err
		}
	}
	return false, nil
}

// indexNames lists the files of the repository's own directories by base
// name (at most 200,000), for the finding's suggestion.
func indexNames(p *checks.Pass) (map[string][]string, error) {
	out := map[string][]string{}
	total := 0
	dirs := make([]string, 0, len(roots))
	for r := range roots {
		dirs = append(dirs, r)
	}
	sort.Strings(dirs)
	for _, r := range dirs {
		es, err := checks.Walk(p.Ctx, p.Change.Head, r)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.IsDir || total >= 200000 {
				continue
			}
			total++
			out[path.Base(e.Path)] = append(out[path.Base(e.Path)], e.Path)
		}
	}
	return out, nil
}

func tx001Finding(file string, line int, ref string, same []string) checks.Finding {
	body := fmt.Sprintf("The comment this PR adds at line %d names %s, but the repository as the PR leaves it has no such "+
		"file or directory (looked up from the root and from %s and the directories above it). A reader who follows "+
		"it finds nothing.", line, prose.Code(ref), prose.Code(path.Dir(file)))
	var related []checks.Location
	switch {
	case len(same) == 1:
		body += fmt.Sprintf(" The one file of that name is %s: point the comment there, or fix the name.", prose.Code(same[0]))
		related = append(related, checks.Location{Path: same[0], Note: "the repository's file of that name"})
	case len(same) > 1:
		shown := make([]string, 0, 3)
		for i, s := range same {
			if i == 3 {
				break
			}
			shown = append(shown, prose.Code(s))
		}
		more := ""
		if rest := len(same) - len(shown); rest > 0 {
			more = fmt.Sprintf(" and %d more", rest)
			body += fmt.Sprintf(" Files of that name: %s%s; point the comment at the one meant, or fix the name.", strings.Join(shown, ", "), more)
		} else {
			body += fmt.Sprintf(" Files of that name: %s; point the comment at the one meant, or fix the name.", prose.JoinAnd(shown))
		}
	default:
		body += " Fix the path, or drop the reference."
	}
	return checks.Finding{
		Path:    file,
		Line:    line,
		Title:   "Comment names " + prose.Code(ref) + ", which the repository does not have",
		Body:    body,
		Related: related,
		Key:     "missing-path:" + ref,
		Facts:   []string{"path:" + ref},
	}
}
