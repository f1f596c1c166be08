package changelog

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

const cl011Doc = "A benchmark recipe is what a config key runs: a change to it changes the key's results as surely " +
	"as a change to the key itself. When this PR changes a benchmark script or srt-slurm recipe (more than its " +
	"comments and blank lines; in a recipe, more than its telemetry and its benchmark client's `env`) and no entry it appends to the perf changelog names any config key whose rows " +
	"run that file, the change is neither benchmarked by the PR's sweep (generated from the appended entries' " +
	"`config-keys`) nor recorded in the history. Which keys run a file is what the launchers compute for every " +
	"row of the head's master configs. Not reported: a file no row runs (PL002's concern), a file also run by a " +
	"key the PR changes (CL003 judges that key), a shared file more than 8 keys run (a harness change is " +
	"judged by its own PR), libraries and anything under `deprecated/`. A PR that changes many recipes hears it " +
	"on three of them at most, the third listing the rest. The fix is one entry naming the keys."

// CL011 asks for a changelog entry when a recipe changes.
var CL011 = &checks.Rule{
	ID:       "CL011",
	Severity: checks.Warning,
	Title:    "Benchmark recipe changed without a perf-changelog entry for the configs that run it",
	Doc:      cl011Doc,
	Run:      runCL011,
}

const (
	// cl011MaxKeys is the most keys a file may be run by and still be
	// judged as one config's recipe.
	cl011MaxKeys = 8
	// cl011MaxFiles bounds the findings of one PR: more changed recipes
	// are reported on the first, which lists the others.
	cl011MaxFiles = 3
)

// recipeChange is a changed recipe and the keys that run it.
type recipeChange struct {
	fc   *checks.FileChange
	at   int // the first line of the change that is more than a comment
	keys []string
	rows []*pipeline.Row
}

func runCL011(p *checks.Pass) error {
	if p.Change.Config == nil {
		return nil
	}
	pa, err := pipeline.Load(p.Ctx, p.Change)
	if err != nil || !pa.Relevant || len(pa.Benchmarks) == 0 {
		return err
	}
	var cands []*checks.FileChange
	at := map[*checks.FileChange]int{}
	for _, fc := range pa.Benchmarks {
		if fc.Status == checks.Deleted || !fc.Changed() || fc.Binary || !pipeline.Runnable(fc.Path) {
			continue
		}
		if line := meaningfulChange(p, fc); line > 0 {
			cands = append(cands, fc)
			at[fc] = line
		}
	}
	if len(cands) == 0 {
		return nil
	}
	a, err := Analyze(p)
	if err != nil {
		return err
	}
	if ok, err := checks.Exists(p.Ctx, p.Change.Head, a.Path); err != nil || !ok {
		return err // no changelog in this repository: nothing to require
	}
	head, err := pa.Head()
	if err != nil {
		return err
	}
	changed, err := pa.ChangedRows()
	if err != nil {
		return err
	}
	paths := make([]string, len(cands))
	for i, fc := range cands {
		paths[i] = fc.Path
	}
	reach := head.ReachersOf(paths)
	var out []recipeChange
	for _, fc := range cands {
		rows := reach[fc.Path]
		var keys []string
		judged := false
		for _, r := range rows {
			if changed[r] {
				judged = true // CL003 judges the key
				break
			}
			if !contains(keys, r.Key.Name) {
				keys = append(keys, r.Key.Name)
			}
		}
		if judged || len(keys) == 0 || len(keys) > cl011MaxKeys {
			continue
		}
		if anyCovered(a, keys) {
			continue
		}
		sort.Strings(keys)
		out = append(out, recipeChange{fc: fc, at: at[fc], keys: keys, rows: rows})
	}
	if len(out) == 0 {
		return nil
	}
	for i, rc := range out {
		if i == cl011MaxFiles-1 && len(out) > cl011MaxFiles {
			p.Report(cl011Finding(p, a, rc, out[i+1:]))
			break
		}
		p.Report(cl011Finding(p, a, rc, nil))
	}
	return nil
}

func anyCovered(a *Analysis, keys []string) bool {
	for _, k := range keys {
		if covered(a, k) {
			return true
		}
	}
	return false
}

// meaningfulChange returns the first line of fc's head the PR wrote that
// is more than a comment or a blank line, or 0 when the change is only
// those: a script is compared by its syntax without comments, a recipe by
// its parsed values. A file that does not parse on either side counts as
// changed where the PR first wrote a line.
func meaningfulChange(p *checks.Pass, fc *checks.FileChange) int {
	cur, headErr := p.Change.Head.ReadFile(p.Ctx, fc.Path)
	first := firstMeaningfulLine(fc, cur)
	if fc.Status == checks.Added {
		return first
	}
	from := fc.Path
	if fc.OldPath != "" {
		from = fc.OldPath
	}
	old, err := p.Change.Base.ReadFile(p.Ctx, from)
	switch {
	case err != nil:
		return first // nothing to compare with: a change
	case headErr != nil:
		return 0 // unreadable head: other rules report it
	case sameMeaning(fc.Path, old, cur):
		return 0
	}
	return first
}

// firstMeaningfulLine is the first line the PR wrote in head (nil when it
// could not be read) that is not blank and not a comment; the first line
// it wrote when all are (a removed line's place when it only removed).
func firstMeaningfulLine(fc *checks.FileChange, head []byte) int {
	lines := fc.AddedLines()
	if len(lines) == 0 {
		for _, h := range fc.Hunks {
			return max(h.NewStart, 1)
		}
		return 1
	}
	text := strings.Split(string(head), "\n")
	for _, n := range lines {
		if n < 1 || n > len(text) {
			continue
		}
		s := strings.TrimSpace(text[n-1])
		if s != "" && !strings.HasPrefix(s, "#") {
			return n
		}
	}
	return lines[0]
}

// sameMeaning reports whether two versions of a recipe differ only in
// comments, blank lines and layout the parser does not keep.
func sameMeaning(p string, a, b []byte) bool {
	switch path.Ext(p) {
	case ".sh":
		pa, ok := printedScript(p, a)
		if !ok {
			return false
		}
		pb, ok := printedScript(p, b)
		return ok && pa == pb
	case ".yaml", ".yml":
		da, err := yamlx.Parse(a)
		if err != nil {
			return false
		}
		db, err := yamlx.Parse(b)
		if err != nil {
			return false
		}
		return yamlx.Equal(servedPart(da), servedPart(db))
	}
	return bytes.Equal(a, b)
}

// servedPart is an srt-slurm recipe without what only the measuring
// harness reads: the telemetry section and the benchmark client's
// environment (warmup, caches, dataset loaders). What the servers run and
// what the benchmark sends (its type, lengths, concurrencies) stay.
func servedPart(doc *yaml.Node) *yaml.Node {
	root := doc
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return doc
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: root.Tag}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "telemetry":
			continue
		case "benchmark":
			if v.Kind == yaml.MappingNode {
				nv := &yaml.Node{Kind: yaml.MappingNode, Tag: v.Tag}
				for j := 0; j+1 < len(v.Content); j += 2 {
					if v.Content[j].Value != "env" {
						nv.Content = append(nv.Content, v.Content[j], v.Content[j+1])
					}
				}
				v = nv
			}
		}
		out.Content = append(out.Content, k, v)
	}
	return out
}

// printedScript is a script as the printer writes its syntax tree without
// comments, on as few lines as the printer can: line continuations and
// indentation do not count.
func printedScript(p string, src []byte) (string, bool) {
	f, err := script.ParseScript(p, src, false)
	if err != nil {
		return "", false
	}
	var buf bytes.Buffer
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&buf, f); err != nil {
		return "", false
	}
	return buf.String(), true
}

func cl011Finding(p *checks.Pass, a *Analysis, rc recipeChange, more []recipeChange) checks.Finding {
	pr := p.Change.PR
	link := pullPrefix(pr.RepoSlug()) + "XXX"
	if pr.Number > 0 {
		link = pullPrefix(pr.RepoSlug()) + fmt.Sprint(pr.Number)
	}
	keys := rc.keys
	for _, m := range more {
		for _, k := range m.keys {
			if !contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	noun, verb, pron := "key", "runs", "it"
	if len(keys) > 1 {
		noun, verb, pron = "keys", "run", "them"
	}
	what, change := prose.Code(rc.fc.Path), "this recipe change is"
	if len(more) > 0 {
		var others []string
		for _, m := range more {
			others = append(others, m.fc.Path)
		}
		what += fmt.Sprintf(" and %s", codeList(others, 4))
		change = "these recipe changes are"
		verb = "run" // the files, whichever keys run them
	}
	msg := fmt.Sprintf("This PR changes %s, which config %s %s %s, but no entry it appends to %s names %s in `config-keys`. The PR's sweep is generated from the appended entries' config keys, so %s neither benchmarked nor recorded in the history. Fix: append an entry at the end of %s with %s, a description of the change, and %s.",
		what, noun, codeList(keys, 6), verb, prose.Code(a.Path), pron, change, prose.Code(a.Path),
		prose.Code("config-keys: ["+strings.Join(keys, ", ")+"]"), prose.Code("pr-link: "+link))

	x := &checks.Explain{}
	w := x.Printf
	x.Problem()
	w("The launchers run %s for these rows of the head's master configs:\n", prose.Code(rc.fc.Path))
	var related []checks.Location
	seen := map[string]bool{}
	for _, r := range rc.rows {
		if seen[r.Key.Name] {
			continue
		}
		seen[r.Key.Name] = true
		w("- %s, row at %s\n", prose.Code(r.Key.Name), prose.CodeAt(r.File, r.Row.Line))
		related = append(related, checks.Location{Path: r.File, Line: r.Key.Line, Note: "config " + prose.Code(r.Key.Name) + ", which runs this recipe"})
	}
	w("\nThe PR changes more than comments and blank lines of the file, and changes none of these keys.\n")
	x.Why()
	w("A PR's benchmark sweep runs the configs named by the `config-keys` of the entries it appends, and the changelog is how a published result is traced back to the change that produced it. A recipe change no appended entry names is not swept in this PR, and the next published result of these keys changes with no record of why.")
	if quote, loc, ok := instructionItem(p, a.Path); ok {
		w(" The repository's instructions ask for it (%s: %s).", prose.Code(loc.String()), prose.CodeLine(quote))
		related = append(related, loc)
	}
	if named := a.NewEntries(); len(named) > 0 {
		x.Note("Entries this PR adds")
		w("They name other keys:\n")
		for _, e := range named {
			w("- %s: %s\n", prose.CodeAt(a.Path, e.Start), codeList(e.KeyNames(), 6))
		}
		w("\n")
	}
	x.Fix()
	entry := "- config-keys:\n"
	for _, k := range keys {
		entry += "    - " + k + "\n"
	}
	entry += fmt.Sprintf("  description:\n    - \"<what changed in %s and why>\"\n  pr-link: %s", path.Base(rc.fc.Path), link)
	w("Append to the end of %s, after one blank line:\n%s\n", prose.Code(a.Path), prose.CodeBlock("yaml", entry))
	f := checks.Finding{
		Path: rc.fc.Path, Line: rc.at,
		Title:   "Recipe changed without a perf-changelog entry for the configs that run it",
		Body:    msg,
		Related: related,
		Key:     "recipe-no-entry:" + rc.fc.Path,
	}
	x.Apply(&f)
	return f
}

// instructionFiles are where a repository writes its contributors' and
// agents' instructions.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md", "CONTRIBUTING.md", ".github/CONTRIBUTING.md"}

// instructionItem returns the line of the base tree's contributor
// instructions that asks for a changelog entry when a recipe changes (see
// asksForEntry), cleaned of markdown, and where it is; ok is false when
// none does.
func instructionItem(p *checks.Pass, changelog string) (string, checks.Location, bool) {
	name := path.Base(changelog)
	return quotedLine(p, instructionFiles, func(l string) bool { return asksForEntry(l, name) }, "the repository's instructions for a recipe change")
}

// asksForEntry reports whether an instruction line asks for a changelog
// entry (named name) when a recipe changes: it names the changelog, a
// recipe change or the benchmark scripts, and a requirement. A line that
// only mentions a recipe of another kind (a resolution recipe) does not.
func asksForEntry(line, name string) bool {
	if !strings.Contains(line, name) {
		return false
	}
	l := strings.ToLower(line)
	subject := false
	for _, s := range []string{"benchmarks/", "every recipe", "recipe addition", "recipe modification", "recipe change", "recipe is changed", "recipe is modified"} {
		if strings.Contains(l, s) {
			subject = true
		}
	}
	return subject && (strings.Contains(l, "requir") || strings.Contains(l, "must") || strings.Contains(l, "append"))
}
