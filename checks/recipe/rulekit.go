package recipe

// What the recipe rules share: the changed scripts to judge, evidence
// from the base tree, KV-connector configs, suggestion building and
// wording. Every helper here is read-only over Facts; none reads shell
// source beyond Facts.LineText.

import (
	"context"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// maxEvidence caps the sibling locations a finding cites: enough to show
// a convention, few enough to read.
const maxEvidence = 5

// target is a script the PR adds or changes, with its facts.
type target struct {
	Path string
	File *checks.FileChange
	// Head is never nil.
	Head *script.Facts
	// Base is the version before the PR (at the old path for a rename);
	// nil for a new file or a base version that does not parse.
	Base *script.Facts

	ch *checks.Change
}

// sibLoc cites lines of another recipe as evidence: from the base tree,
// or from the PR's version when the PR adds or changes that recipe (as
// Siblings reads it), saying so.
func (t *target) sibLoc(p string, line, end int, note string) checks.Location {
	if t.ch != nil && changedByPR(t.ch, p) {
		s := Sibling{Path: p, Changed: true}
		return s.Loc(line, end, note)
	}
	return baseLoc(p, line, end, note)
}

// isNew reports whether the PR adds the file.
func (t *target) isNew() bool { return t.File.Status == checks.Added }

// added reports whether the PR added or changed head line n.
func (t *target) added(n int) bool { return t.File.IsAdded(n) }

// touches reports whether the PR changed anything in head lines
// start..end (see checks.FileChange.Touches).
func (t *target) touches(start, end int) bool { return t.File.Touches(start, end) }

// changedRecipes returns the recipes (the configured recipe paths) the PR
// adds or modifies, in path order. Deleted files, pure renames and scripts
// whose head does not parse (SH014 reports those) are left out. The list
// is computed once per change.
func changedRecipes(p *checks.Pass) ([]*target, error) {
	return changedScripts(p, "recipe", (*checks.Config).IsRecipe)
}

// changedRunners is changedRecipes for the runner launchers.
func changedRunners(p *checks.Pass) ([]*target, error) {
	return changedScripts(p, "runner", (*checks.Config).IsRunner)
}

func changedScripts(p *checks.Pass, kind string, match func(*checks.Config, string) bool) ([]*target, error) {
	ch := p.Change
	v, err := ch.Memo("recipe.changed\x00"+kind, func() (any, error) {
		cfg := config(p.Ctx, ch)
		var out []*target
		for _, fc := range ch.Files {
			if fc.Status == checks.Deleted || fc.Binary || !fc.Changed() || !match(cfg, fc.Path) {
				continue
			}
			head, err := HeadFacts(p.Ctx, ch, fc.Path)
			if err != nil {
				if script.IsParseError(err) {
					continue
				}
				return nil, err
			}
			if head == nil {
				continue
			}
			base, err := BaseFacts(p.Ctx, ch, fc.Path)
			if err != nil && !script.IsParseError(err) {
				return nil, err
			}
			out = append(out, &target{Path: fc.Path, File: fc, Head: head, Base: base, ch: ch})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
		return out, nil
	})
	ts, _ := v.([]*target)
	return ts, err
}

// dirRecipes returns every recipe in p's directory at base, whatever its
// engine, excluding p and its old path: the group for conventions that do
// not depend on the engine (strict mode).
func dirRecipes(ctx context.Context, ch *checks.Change, p string) ([]*Sibling, error) {
	return dirScripts(ctx, ch, p, "recipe.dir", (*checks.Config).IsRecipe)
}

// dirScripts returns the scripts of p's directory that match (recipes,
// runners), excluding p and its old path, as Siblings does (base versions,
// or the PR's for the ones it changes). Scripts that do not
// parse are skipped; the result is sorted by path and computed once per
// review (kind names the memo).
func dirScripts(ctx context.Context, ch *checks.Change, p, kind string, match func(*checks.Config, string) bool) ([]*Sibling, error) {
	p = checks.CleanPath(p)
	v, err := ch.Memo(kind+"\x00"+p, func() (any, error) {
		cfg := config(ctx, ch)
		dir := dirOf(p)
		group, err := scriptGroup(ctx, ch, kind, dir, func(sp string) bool { return match(cfg, sp) },
			func(*Sibling) bool { return true })
		if err != nil {
			return nil, err
		}
		return groupWithout(ch, dir, group, p), nil
	})
	sibs, _ := v.([]*Sibling)
	return sibs, err
}

// warmBaseFacts parses the base versions of paths concurrently, so that
// the first look at a large directory with a cold parse cache costs the
// parse time divided by the cores; the results land in the change's memo
// and parse cache, where loadFacts (and Siblings) find them. Errors are
// left for the caller's own loadFacts to report.
func warmBaseFacts(ctx context.Context, ch *checks.Change, paths []string) {
	workers := min(runtime.GOMAXPROCS(0), len(paths))
	if workers < 2 {
		return
	}
	// One bulk read where the tree supports it (a git tree).
	_ = checks.Prefetch(ctx, ch.Base, paths)
	next := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				if ctx.Err() == nil {
					_, _ = loadFacts(ctx, ch, "base", ch.Base, p)
				}
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
}

// baseLoc cites lines of a base-tree file (a sibling, or the base version
// of the file under review) as evidence. end may be 0 for one line.
func baseLoc(p string, line, end int, note string) checks.Location {
	if end <= line {
		end = 0
	}
	return checks.Location{Path: p, Line: line, EndLine: end, Side: checks.Base, Note: note}
}

// headLoc cites lines of the file under review as the PR leaves it.
func headLoc(p string, line, end int, note string) checks.Location {
	if end <= line {
		end = 0
	}
	return checks.Location{Path: p, Line: line, EndLine: end, Note: note}
}

// ref renders a location for prose: the file's base name and its lines
// ("dsv4_fp4_b200_vllm.sh:58", "kimik3_fp4_h200_vllm.sh:38-41").
func ref(p string, line, end int) string {
	l := checks.Location{Path: path.Base(p), Line: line, EndLine: end}
	return l.String()
}

// commentBlocks returns the script's runs of consecutive comment lines,
// each as one Comment spanning the run (Text joined with "\n").
func commentBlocks(f *script.Facts) []script.Comment {
	var out []script.Comment
	for _, run := range commentRuns(f) {
		out = append(out, joinRun(run))
	}
	return out
}

// commentBlocksWith returns the comment blocks that mention, for every
// group, at least one of the group's phrases (case-insensitive, runs of
// whitespace collapsed, so a phrase may wrap across comment lines).
// commentBlocksWith(f, []string{"lazy_offload", "eager"},
// []string{"popleft", "assert"}) finds a block that explains why eager
// mode fails.
func commentBlocksWith(f *script.Facts, groups ...[]string) []script.Comment {
	var out []script.Comment
	for _, run := range commentRuns(f) {
		// Cheap first pass, without allocating: a phrase's first word
		// cannot wrap across lines, so a run none of whose lines holds one
		// cannot match.
		if slices.ContainsFunc(groups, func(g []string) bool { return !anyFirstWord(run, g) }) {
			continue
		}
		if b := joinRun(run); mentionsAll(normSpace(b.Text), groups) {
			out = append(out, b)
		}
	}
	return out
}

// commentRuns splits the comments into runs of consecutive lines.
func commentRuns(f *script.Facts) [][]script.Comment {
	var out [][]script.Comment
	for i := 0; i < len(f.Comments); {
		j := i + 1
		for j < len(f.Comments) && f.Comments[j].Line == f.Comments[j-1].Line+1 {
			j++
		}
		out = append(out, f.Comments[i:j])
		i = j
	}
	return out
}

func joinRun(run []script.Comment) script.Comment {
	texts := make([]string, len(run))
	for k, c := range run {
		texts[k] = c.Text
	}
	return script.Comment{Line: run[0].Line, EndLine: run[len(run)-1].Line, Text: strings.Join(texts, "\n")}
}

// anyFirstWord reports whether a line of the run holds the first word of
// one of the phrases.
func anyFirstWord(run []script.Comment, phrases []string) bool {
	for _, p := range phrases {
		w, _, _ := strings.Cut(strings.TrimSpace(p), " ")
		for _, c := range run {
			if script.ContainsFold(c.Text, w) {
				return true
			}
		}
	}
	return false
}

// mentionsAll reports whether normalized text holds a phrase of every
// group.
func mentionsAll(text string, groups [][]string) bool {
	for _, g := range groups {
		if !slices.ContainsFunc(g, func(p string) bool { return strings.Contains(text, normSpace(p)) }) {
			return false
		}
	}
	return true
}

// commentAbove returns the comment block that ends on the line right
// above line n, or on an earlier line separated from n only by lines
// within maxGap (a comment that introduces a short run of statements).
func commentAbove(f *script.Facts, n, maxGap int) (script.Comment, bool) {
	var best script.Comment
	found := false
	for _, b := range commentBlocks(f) {
		if b.EndLine < n && n-b.EndLine <= maxGap+1 {
			best, found = b, true
		}
	}
	return best, found
}

func normSpace(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// kvConfig is a JSON transfer config that names a KV connector by a
// literal "kv_connector" value.
type kvConfig struct {
	JSON      *script.JSONConfig
	Connector string
	// Line is the line of the kv_connector key.
	Line int
}

// kvConfigs returns the script's KV-connector configs in source order.
func kvConfigs(f *script.Facts) []kvConfig {
	var out []kvConfig
	for _, j := range f.JSON {
		e, ok := j.Entry("kv_connector")
		if !ok || e.Dynamic || e.Kind != script.JSONString || e.Value == "" {
			continue
		}
		out = append(out, kvConfig{JSON: j, Connector: e.Value, Line: e.Line})
	}
	return out
}

// kvConfigsOf returns the configs that name connector.
func kvConfigsOf(f *script.Facts, connector string) []kvConfig {
	var out []kvConfig
	for _, k := range kvConfigs(f) {
		if k.Connector == connector {
			out = append(out, k)
		}
	}
	return out
}

// extraConfig returns the entries directly under kv_connector_extra_config.
func (k kvConfig) extraConfig() []script.JSONEntry {
	return k.JSON.Children("kv_connector_extra_config")
}

// stmtLine returns the first line of the statement that holds line n: the
// assignment (OFFLOAD_ARGS=( ... ), X=$(cat <<EOF ...)) or the server
// command spanning it, innermost first; n itself when none does. Text
// inserted above that line runs before the statement and on its path.
func stmtLine(f *script.Facts, n int) int {
	best, span := n, -1
	consider := func(start, end int) {
		if start <= n && n <= end && (span < 0 || end-start < span) {
			best, span = start, end-start
		}
	}
	for _, v := range f.Vars {
		if v.Kind == script.Assign || v.Kind == script.Export {
			consider(v.Line, v.EndLine)
		}
	}
	for _, c := range f.Servers {
		consider(c.Line, c.EndLine)
	}
	return best
}

// indentOf returns the leading blanks of s.
func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// insertAbove returns a suggestion that puts lines above head line n,
// indented like line n: GitHub replaces line n with the new lines followed
// by line n unchanged.
func insertAbove(f *script.Facts, n int, lines ...string) *checks.Suggestion {
	cur := f.LineText(n)
	ind := indentOf(cur)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(ind + l + "\n")
	}
	b.WriteString(cur)
	return &checks.Suggestion{Line: n, EndLine: n, Replacement: b.String()}
}

// replaceOnce returns a suggestion that replaces old with repl in head
// line n, or nil unless old occurs exactly once in that line (an edit that
// could hit the wrong occurrence is not offered).
func replaceOnce(f *script.Facts, n int, old, repl string) *checks.Suggestion {
	cur := f.LineText(n)
	if old == "" || strings.Count(cur, old) != 1 {
		return nil
	}
	return &checks.Suggestion{Line: n, EndLine: n, Replacement: strings.Replace(cur, old, repl, 1)}
}

// jsonQuote is how a double quote of j's JSON text is spelled on the
// script line: `\"` inside a double-quoted shell string, `"` otherwise.
func jsonQuote(j *script.JSONConfig) string {
	if j.Escaped {
		return `\"`
	}
	return `"`
}

// jsonMember locates `<q>key<q> : value` on line s, where q is the line's
// spelling of a JSON quote (see jsonQuote). It returns the offsets of the
// value (a quoted string including its quotes, or a bare token), and ok
// only when the key occurs exactly once on the line.
func jsonMember(s, q, key string) (valStart, valEnd int, ok bool) {
	k := q + key + q
	if strings.Count(s, k) != 1 {
		return 0, 0, false
	}
	i := strings.Index(s, k) + len(k)
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] != ':' {
		return 0, 0, false
	}
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	if strings.HasPrefix(s[i:], q) {
		end := strings.Index(s[i+len(q):], q)
		if end < 0 {
			return 0, 0, false
		}
		return start, i + len(q) + end + len(q), true
	}
	for i < len(s) && !strings.ContainsRune(",}] \t'\"\\", rune(s[i])) {
		i++
	}
	if i == start {
		return 0, 0, false
	}
	return start, i, true
}

// branchName describes where code at p runs, for messages: "the
// `vllm-simple)` arm", "the `if [ "$DP_ATTENTION" = "true" ]` branch", "the
// top level".
func branchName(p script.Branch) string {
	if len(p) == 0 {
		return "the top level"
	}
	c := p[len(p)-1]
	switch c.Kind {
	case script.CondCase:
		return "the " + prose.Code(strings.Join(c.Patterns, "|")+")") + " arm"
	case script.CondFunc:
		return "function " + prose.Code(c.Name+"()")
	case script.CondLoop:
		return "the loop " + prose.Code(c.Text)
	}
	if c.Else() {
		return "the else branch of " + prose.Code(c.Text)
	}
	return "the " + prose.Code("if "+c.Text) + " branch"
}

// caseArm returns the innermost case arm on p.
func caseArm(p script.Branch) (script.Cond, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Kind == script.CondCase {
			return p[i], true
		}
	}
	return script.Cond{}, false
}

// closest returns the candidate nearest to s by edit distance (ties: the
// earlier candidate) and whether it is a plausible intended spelling: one
// contains the other, or they differ in at most half of the longer one.
func closest(s string, candidates []string) (best string, plausible bool) {
	bestD := -1
	for _, c := range candidates {
		if d := prose.EditDistance(s, c, -1); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return "", false
	}
	longer := max(len(s), len(best))
	plausible = strings.Contains(s, best) || strings.Contains(best, s) || 2*bestD <= longer
	return best, plausible
}

// KV-connector names and keys more than one rule reads.
const (
	// simpleConnector is vLLM's CPU offload connector (SH002, SH004,
	// SH005).
	simpleConnector = "SimpleCPUOffloadConnector"
	// extraConfigKey holds a connector's own settings.
	extraConfigKey = "kv_connector_extra_config"
)

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// serversOf returns the server commands of an engine.
func serversOf(f *script.Facts, e script.Engine) []*script.Command {
	var out []*script.Command
	for _, c := range f.Servers {
		if c.Engine == e {
			out = append(out, c)
		}
	}
	return out
}
