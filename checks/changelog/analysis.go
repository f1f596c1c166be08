package changelog

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// parserKind names the changelog parser in the parse cache; bump the
// version when ParseFile's output changes.
const parserKind = "changelog.File/v2"

// Analysis is the per-review model of the changelog that every CL rule
// reads (computed once per change through checks.Shared).
type Analysis struct {
	// Path is the changelog's path in head; BasePath in base (they differ
	// only when the PR renames the file).
	Path, BasePath string
	// FC is the file's diff, nil when the PR does not touch it.
	FC *checks.FileChange
	// Base and Head are nil when the file is absent on that side.
	Base, Head *File
	Align      *Alignment

	added map[int]bool // head lines the PR added, when FC has no hunks
}

var memoKey = checks.NewMemoKey[*Analysis]("changelog/analysis")

// Analyze returns the shared changelog model for the pass's change.
func Analyze(p *checks.Pass) (*Analysis, error) {
	v, err := checks.Shared(p.Change, memoKey, "", func() (*Analysis, error) { return analyze(p.Ctx, p.Change) })
	if err != nil {
		return nil, err
	}
	return v, nil
}

func analyze(ctx context.Context, ch *checks.Change) (*Analysis, error) {
	a := &Analysis{Path: ch.Config.Paths.Changelog, BasePath: ch.Config.Paths.Changelog}
	a.FC = ch.File(a.Path)
	if a.FC != nil && a.FC.Status == checks.Renamed {
		// Paths.Changelog may name either side of a rename.
		a.Path = a.FC.Path
		if a.FC.OldPath != "" {
			a.BasePath = a.FC.OldPath
		}
	}
	if a.FC == nil {
		// Untouched: rules that need only the head (none today) could still
		// read it, but nothing the PR did can be judged.
		return a, nil
	}
	var err error
	if a.Base, err = load(ctx, ch, ch.Base, a.BasePath); err != nil {
		return nil, err
	}
	base := a.Base
	parseHead := func(b []byte) (*File, error) { return parseFile(b, base) }
	if a.Head, err = loadWith(ctx, ch, ch.Head, a.Path, parseHead); err != nil {
		return nil, err
	}
	var be, he []*Entry
	if a.Base != nil {
		be = a.Base.Entries
	}
	if a.Head != nil {
		he = a.Head.Entries
	}
	a.Align = Align(be, he)
	if a.Head != nil && a.FC != nil && len(a.FC.Hunks) == 0 && a.FC.Status != checks.Added {
		a.added = lineDiffAdded(a.Base, a.Head)
	}
	return a, nil
}

func load(ctx context.Context, ch *checks.Change, t checks.Tree, path string) (*File, error) {
	return loadWith(ctx, ch, t, path, ParseFile)
}

// loadWith parses through the cache; parse must give ParseFile's result.
func loadWith(ctx context.Context, ch *checks.Change, t checks.Tree, path string, parse func([]byte) (*File, error)) (*File, error) {
	f, err := checks.Parsed(ctx, ch.Cache, t, parserKind, path, parse)
	if err != nil {
		if checks.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	return f, nil
}

// Touched reports whether the PR changed the changelog at all.
func (a *Analysis) Touched() bool { return a.FC != nil && a.FC.Changed() && a.Head != nil }

// IsAdded reports whether head line n was added or changed by the PR.
func (a *Analysis) IsAdded(n int) bool {
	if a.FC == nil {
		return false
	}
	if a.added != nil {
		return a.added[n]
	}
	return a.FC.IsAdded(n)
}

// AddedLines lists the head lines the PR added or changed, in order.
func (a *Analysis) AddedLines() []int {
	if a.FC == nil {
		return nil
	}
	if a.added == nil {
		return a.FC.AddedLines()
	}
	out := make([]int, 0, len(a.added))
	for n := range a.added {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// lineDiffAdded approximates the added lines when the diff has no hunks
// (a file git calls binary, for example because of a NUL byte): a head
// line is added when base does not have as many copies of its text.
func lineDiffAdded(base, head *File) map[int]bool {
	have := map[string]int{}
	if base != nil {
		for n := 1; n <= base.NumLines(); n++ {
			have[base.Line(n)]++
		}
	}
	out := map[int]bool{}
	for n := 1; n <= head.NumLines(); n++ {
		l := head.Line(n)
		if have[l] > 0 {
			have[l]--
			continue
		}
		out[n] = true
	}
	return out
}

// NewEntries returns the entries the PR adds (appended and inserted).
func (a *Analysis) NewEntries() []*Entry {
	if a.Head == nil || a.Align == nil {
		return nil
	}
	var out []*Entry
	for _, i := range a.Align.New() {
		out = append(out, a.Head.Entries[i])
	}
	return out
}

// Appended returns the entries the PR appends at the physical end.
func (a *Analysis) Appended() []*Entry {
	if a.Head == nil || a.Align == nil {
		return nil
	}
	var out []*Entry
	for _, i := range a.Align.Index(Appended) {
		out = append(out, a.Head.Entries[i])
	}
	return out
}

// lastHistorical returns the last head entry above e that comes from the
// base (the entry an appended entry follows), or nil.
func (a *Analysis) lastHistorical(e *Entry) *Entry {
	for i := e.Index - 1; i >= 0; i-- {
		if a.Align.HeadBase[i] >= 0 {
			return a.Head.Entries[i]
		}
	}
	return nil
}

// placeholderPrecedent finds the last base entry that kept its accepted
// placeholder link, evidence that the placeholder is the established way
// to write a link before the PR number is known. It returns the entry's
// pr-link line in head when the entry is still there, else in base.
func (a *Analysis) placeholderPrecedent(slug string) (checks.Location, bool) {
	if a.Base == nil {
		return checks.Location{}, false
	}
	for j := len(a.Base.Entries) - 1; j >= 0; j-- {
		e := a.Base.Entries[j]
		link, line, ok := e.PRLink()
		if !ok || !isPlaceholder(link, slug) {
			continue
		}
		if h := a.Align.BaseHead[j]; h >= 0 && a.Align.Head[h] == Unchanged {
			_, hl, _ := a.Head.Entries[h].PRLink()
			return checks.Location{Path: a.Path, Line: hl, Note: "an earlier entry with the accepted placeholder " + prose.Code(link)}, true
		}
		return checks.Location{Path: a.BasePath, Line: line, Side: checks.Base, Note: "an earlier entry with the accepted placeholder " + prose.Code(link)}, true
	}
	return checks.Location{}, false
}

// pullPrefix is https://github.com/<owner>/<repo>/pull/.
func pullPrefix(slug string) string { return "https://github.com/" + slug + "/pull/" }

// isPlaceholder reports whether link is one of the two placeholders the
// merge tooling rewrites to the real link.
func isPlaceholder(link, slug string) bool {
	return link == "XXX" || link == pullPrefix(slug)+"XXX"
}

// canonicalNumber returns N when link is exactly the canonical link
// https://github.com/<owner>/<repo>/pull/<N>.
func canonicalNumber(link, slug string) (string, bool) {
	rest, ok := strings.CutPrefix(link, pullPrefix(slug))
	if !ok || rest == "" || len(rest) > 9 {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", false
		}
	}
	return rest, true
}

// entryLabel names an entry for messages: its config keys and pr-link.
func entryLabel(e *Entry) string {
	keys := e.KeyNames()
	var b strings.Builder
	if len(keys) == 0 {
		b.WriteString("the entry")
	} else {
		b.WriteString("the entry for ")
		b.WriteString(codeList(keys, 3))
	}
	if link, _, ok := e.PRLink(); ok && link != "" {
		b.WriteString(" (" + prose.Code(shortLink(link)) + ")")
	}
	return b.String()
}

// shortLink drops the repository prefix of a GitHub pull link.
func shortLink(link string) string {
	if i := strings.Index(link, "/pull/"); i >= 0 && strings.HasPrefix(link, "https://github.com/") {
		return link[i+1:]
	}
	return link
}

// codeList renders `a`, `b` and `c`, eliding after max items.
func codeList(items []string, max int) string {
	var parts []string
	for i, s := range items {
		if max > 0 && i == max {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, prose.Code(s))
	}
	return prose.JoinAnd(parts)
}

// orList renders `a`, `b` or `c`.
func orList(items []string) string {
	var parts []string
	for _, s := range items {
		parts = append(parts, prose.Code(s))
	}
	return prose.JoinOr(parts)
}

// lineList renders line numbers compactly: "12, 15 and 19 (and 4 more)".
func lineList(lines []int, max int) string {
	sort.Ints(lines)
	var parts []string
	for i, n := range lines {
		if i == max {
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	s := prose.JoinAnd(parts)
	if len(lines) > max {
		s += " (and " + strconv.Itoa(len(lines)-max) + " more)"
	}
	return s
}
