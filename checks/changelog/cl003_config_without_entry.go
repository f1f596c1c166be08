package changelog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl003Doc = "Every change to a master config that can affect a benchmark needs a perf changelog entry: when " +
	"this PR changes the value of a config key in `configs/*-master.yaml` (or adds a key), an entry it appends " +
	"to the changelog must name that key in `config-keys` (a glob such as `dsr1*` or `70b-fp8-*-vllm` counts). " +
	"The PR's benchmark sweep is generated from the config keys of the entries it appends, and the changelog is " +
	"where every published result is traced back to its change, so a config change without an entry is neither " +
	"benchmarked nor recorded. Only the parsed values count: comments, blank lines, quoting and key order do " +
	"not. A key removed from the master configs needs no entry (retiring a config is housekeeping), and neither " +
	"does one the base tree already defines with the same value elsewhere: a config moved from one master config " +
	"to another, or restored unchanged from `configs/deprecated/`. A key that is new to the base tree may also " +
	"have come back by accident (a stale rebase over a PR that removed it); the finding then offers removing it " +
	"as the other fix."

// CL003 requires a changelog entry for every changed master-config key.
var CL003 = &checks.Rule{
	ID:       "CL003",
	Severity: checks.Blocking,
	Title:    "Master config changed without a perf-changelog entry for the key",
	Doc:      cl003Doc,
	Run:      runCL003,
}

// keyChange is a top-level key of a master config whose value the PR
// changed or added.
type keyChange struct {
	Key  string
	Line int // head
	// At is the first line of the key the PR wrote (the key's own line
	// when the PR wrote it, or none of its lines): where the comment goes.
	At int
	// Last is the last line of the key the PR wrote (At when it wrote
	// one line or none).
	Last     int
	BaseLine int // 0 for a new key
	// Scenarios are the scenario names under the key's `scenarios` (for
	// the suggested entry's scenario-type).
	Scenarios []string
	// From is where the base tree defines a key that is new to this file
	// (another master config, or an archived one), with another value.
	From *keyLoc
}

func runCL003(p *checks.Pass) error {
	cfg := p.Config()
	var a *Analysis
	for _, fc := range p.Change.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || !cfg.IsMasterConfig(fc.Path) {
			continue
		}
		changes, err := changedKeys(p.Ctx, p.Change, fc)
		if err != nil {
			return err
		}
		if changes, err = dropUnchangedMoves(p, fc, changes); err != nil {
			return err
		}
		if len(changes) == 0 {
			continue
		}
		if a == nil {
			if a, err = Analyze(p); err != nil {
				return err
			}
			if ok, err := checks.Exists(p.Ctx, p.Change.Head, a.Path); err != nil || !ok {
				return err // no changelog in this repository: nothing to require
			}
		}
		var uncovered []keyChange
		for _, c := range changes {
			if !covered(a, c.Key) {
				uncovered = append(uncovered, c)
			}
		}
		if len(uncovered) > 0 {
			p.Report(cl003Finding(p, a, fc.Path, uncovered))
		}
	}
	return nil
}

// dropUnchangedMoves judges the keys new to fc by where they come from: a
// key the base tree defines with the same value elsewhere (another master
// config, the one this PR moves it out of, or the deprecated archive) is
// not a change and needs no entry; one defined there with another value
// is a change and says where it came from.
func dropUnchangedMoves(p *checks.Pass, fc *checks.FileChange, changes []keyChange) ([]keyChange, error) {
	basePath := fc.Path
	if fc.OldPath != "" {
		basePath = fc.OldPath
	}
	var idx []*keyIndex
	out := changes[:0]
	for _, c := range changes {
		if c.BaseLine != 0 {
			out = append(out, c)
			continue
		}
		if idx == nil {
			m, err := masterKeys(p, true)
			if err != nil {
				return nil, err
			}
			d, err := deprecatedKeys(p, true)
			if err != nil {
				return nil, err
			}
			idx = []*keyIndex{m, d}
		}
		hv, err := keyValue(p.Ctx, p.Change, p.Change.Head, fc.Path, c.Key)
		if err != nil {
			return nil, err
		}
		same := false
		for _, ix := range idx {
			for _, k := range ix.Keys {
				if k.Key != c.Key || k.Path == basePath || same {
					continue
				}
				bv, err := keyValue(p.Ctx, p.Change, p.Change.Base, k.Path, k.Key)
				if err != nil {
					return nil, err
				}
				if hv != nil && bv != nil && yamlx.Equal(hv, bv) {
					same = true
					continue
				}
				if c.From == nil {
					k := k
					c.From = &k
				}
			}
		}
		if !same {
			out = append(out, c)
		}
	}
	return out, nil
}

// covered reports whether a new entry names key.
func covered(a *Analysis, key string) bool {
	for _, e := range a.NewEntries() {
		for _, it := range e.ConfigKeys() {
			if matchKey(it.Value, key) {
				return true
			}
		}
	}
	return false
}

// changedKeys are the keys of master config fc whose meaning the PR
// changed, as the master-config model decides it for every rule
// (masterconfig.ChangedKeys): the value of a setting, a row or a scenario
// block added, changed or removed. Comments, formatting, key order and
// moving rows within a key do not count.
func changedKeys(ctx context.Context, ch *checks.Change, fc *checks.FileChange) ([]keyChange, error) {
	keys, err := masterconfig.ChangedKeys(ctx, ch)
	if err != nil {
		return nil, err
	}
	var out []keyChange
	for _, k := range keys {
		if k.Path != fc.Path || !k.Changed() {
			continue
		}
		kc := keyChange{Key: k.Key.Name, Line: k.Key.Line, At: firstWritten(fc, k.Key.Line, k.Key.EndLine)}
		kc.Last = max(kc.At, lastWritten(fc, k.Key.Line, k.Key.EndLine))
		if k.Base != nil {
			kc.BaseLine = k.Base.Line
		}
		for _, sc := range k.Key.Scenarios {
			if !slices.Contains(kc.Scenarios, sc.Kind) {
				kc.Scenarios = append(kc.Scenarios, sc.Kind)
			}
		}
		out = append(out, kc)
	}
	return out, nil
}

// lastWritten is the last line of start..end the PR added or changed, 0
// when it wrote none of them.
func lastWritten(fc *checks.FileChange, start, end int) int {
	for l := end; l >= start && end-l < 100000; l-- {
		if fc.IsAdded(l) {
			return l
		}
	}
	return 0
}

// firstWritten is the first line of start..end the PR added or changed;
// start when it did, or when it wrote none of them.
func firstWritten(fc *checks.FileChange, start, end int) int {
	for l := start; l <= end && l-start < 100000; l++ {
		if fc.IsAdded(l) {
			return l
		}
	}
	return start
}

func cl003Finding(p *checks.Pass, a *Analysis, cfgPath string, keys []keyChange) checks.Finding {
	pr := p.Change.PR
	var names []string
	for _, k := range keys {
		names = append(names, k.Key)
	}
	first := keys[0]
	var what []string
	for _, k := range keys {
		if k.From != nil {
			what = append(what, fmt.Sprintf("%s (line %d, changed on its way from %s)", prose.Code(k.Key), k.Line, prose.CodeAt(k.From.Path, k.From.Line)))
		} else if k.BaseLine == 0 {
			what = append(what, fmt.Sprintf("%s (new, line %d)", prose.Code(k.Key), k.Line))
		} else {
			what = append(what, fmt.Sprintf("%s (line %d)", prose.Code(k.Key), k.Line))
		}
	}
	link := pullPrefix(pr.RepoSlug()) + "XXX"
	if pr.Number > 0 {
		link = pullPrefix(pr.RepoSlug()) + fmt.Sprint(pr.Number)
	}
	noun := "key"
	if len(keys) > 1 {
		noun = "keys"
	}
	pron := "it"
	if len(keys) > 1 {
		pron = "them"
	}
	msg := fmt.Sprintf("This PR changes master config %s %s in %s, but no entry it appends to %s names %s in `config-keys`. The PR's sweep is generated from the config keys of the entries it appends, so this change is neither benchmarked nor recorded. Fix: append an entry at the end of %s with %s, a description of the change, and %s.",
		noun, prose.JoinAnd(what), prose.Code(cfgPath), prose.Code(a.Path), pron, prose.Code(a.Path), prose.Code("config-keys: ["+strings.Join(names, ", ")+"]"), prose.Code("pr-link: "+link))
	var fresh []string
	for _, k := range keys {
		if k.BaseLine == 0 && k.From == nil {
			fresh = append(fresh, k.Key)
		}
	}
	if len(fresh) > 0 {
		verb, obj := "is", "it"
		if len(fresh) > 1 {
			verb, obj = "are", "them"
		}
		msg += fmt.Sprintf(" If %s %s not meant to be added by this PR (a config an earlier PR removed can come back through a stale rebase or merge), remove %s instead.", codeList(fresh, 3), verb, obj)
	}

	x := &checks.Explain{}
	w := x.Printf
	x.Problem()
	w("Comparing parsed values (comments, blank lines, quoting and key order are ignored):\n")
	var related []checks.Location
	for _, k := range keys {
		if k.From != nil {
			w("- %s at %s differs from its base definition at %s.\n", prose.Code(k.Key), prose.CodeAt(cfgPath, k.Line), prose.CodeAt(k.From.Path, k.From.Line))
			related = append(related, checks.Location{Path: k.From.Path, Line: k.From.Line, Side: checks.Base, Note: "base definition of " + prose.Code(k.Key)})
		} else if k.BaseLine == 0 {
			w("- %s is new at %s.\n", prose.Code(k.Key), prose.CodeAt(cfgPath, k.Line))
		} else {
			w("- %s at %s differs from the base definition.\n", prose.Code(k.Key), prose.CodeAt(cfgPath, k.Line))
			related = append(related, checks.Location{Path: cfgPath, Line: k.BaseLine, Side: checks.Base, Note: "base definition of " + prose.Code(k.Key)})
		}
	}
	x.Why()
	w("The perf changelog is how a published result is traced back to the change that produced it, and a PR's benchmark sweep runs the configs named by the `config-keys` of the entries it appends. A master-config change that no appended entry names is not swept in this PR and leaves no trace in the history.")
	if quote, loc, ok := templateItem(p, a.Path); ok {
		w(" The repository's PR template asks for the entry (%s: %s).", prose.Code(loc.String()), prose.CodeLine(quote))
		related = append(related, loc)
	}
	var named, unreadable []*Entry
	for _, e := range a.NewEntries() {
		if e.Err != nil || len(e.KeyNames()) == 0 {
			unreadable = append(unreadable, e)
		} else {
			named = append(named, e)
		}
	}
	if len(named) > 0 {
		x.Note("Entries this PR adds")
		w("They name other keys:\n")
		for _, e := range named {
			w("- %s: %s\n", prose.CodeAt(a.Path, e.Start), codeList(e.KeyNames(), 6))
			related = append(related, checks.Location{Path: a.Path, Line: e.Start, Note: "an entry this PR adds, naming " + codeList(e.KeyNames(), 0)})
		}
		w("\nNone of them matches (globs use shell syntax: `*` matches within a key).\n\n")
	}
	for _, e := range unreadable {
		x.Note("Entries this PR adds")
		w("The entry this PR adds at %s could not be read (it does not parse or has no `config-keys`), so it covers nothing until it is fixed.\n\n", prose.CodeAt(a.Path, e.Start))
	}
	if len(named) == 0 && a.Head != nil && len(a.Head.Entries) > 0 {
		last := a.Head.Entries[len(a.Head.Entries)-1]
		related = append(related, checks.Location{Path: a.Path, Line: last.ContentEnd, Note: "the end of the changelog, where the entry goes"})
	}
	x.Fix()
	entry := "- config-keys:\n"
	agentic := false
	for _, k := range keys {
		entry += "    - " + k.Key + "\n"
		for _, s := range k.Scenarios {
			if s == "agentic-coding" {
				agentic = true
			}
		}
	}
	if agentic {
		entry += "  scenario-type:\n    - agentic-coding\n"
	}
	entry += fmt.Sprintf("  description:\n    - \"<what changed in %s and why>\"\n  pr-link: %s", strings.Join(names, ", "), link)
	w("Append to the end of %s, after one blank line:\n%s\n", prose.Code(a.Path), prose.CodeBlock("yaml", entry))
	end := 0
	if first.Last > first.At {
		end = first.Last // the key's lines the PR wrote, first to last
	}
	f := checks.Finding{
		Path: cfgPath, Line: first.At, EndLine: end,
		Title:   "Master config changed without a perf-changelog entry",
		Body:    msg,
		Related: related,
		Key:     "no-entry:" + strings.Join(names, ","),
	}
	x.Apply(&f)
	return f
}
