package changelog

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl004Doc = "Each `config-keys` item of an entry this PR adds must name at least one config of the master " +
	"configs (`configs/*-master.yaml`) as they are after the PR, exactly or as a shell glob (`dsr1*`, " +
	"`70b-fp8-*-vllm`). The sweep for the PR is generated from these keys, so a typo or a key that was never " +
	"added selects nothing: the change the entry describes is not benchmarked and the history points at a config " +
	"that does not exist. Keys that exist in the base's master configs (a config this PR retires) or under " +
	"`configs/deprecated/` are accepted."

// CL004 checks that new entries name existing configs.
var CL004 = &checks.Rule{
	ID:       "CL004",
	Severity: checks.Blocking,
	Title:    "New changelog entry names a config key that no master config defines",
	Doc:      cl004Doc,
	Run:      runCL004,
}

func runCL004(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	news := a.NewEntries()
	if len(news) == 0 {
		return nil
	}
	head, err := masterKeys(p, false)
	if err != nil {
		return err
	}
	if head.Broken || len(head.Files) == 0 {
		return nil // MC006 reports unparsable configs; without keys, say nothing
	}
	var base, dep *keyIndex
	for _, e := range news {
		if e.Err != nil {
			continue
		}
		for _, it := range e.ConfigKeys() {
			if len(head.matches(it.Value)) > 0 {
				continue
			}
			if base == nil {
				if base, err = masterKeys(p, true); err != nil {
					return err
				}
				if dep, err = deprecatedKeys(p, false); err != nil {
					return err
				}
			}
			if len(base.matches(it.Value)) > 0 || len(dep.matches(it.Value)) > 0 {
				continue
			}
			p.Report(cl004Finding(a, head, e, it))
		}
	}
	return nil
}

func cl004Finding(a *Analysis, head *keyIndex, e *Entry, it Item) checks.Finding {
	kind := "key"
	if strings.ContainsAny(it.Value, "*?[") {
		kind = "pattern"
	}
	f := checks.Finding{
		Path: a.Path, Line: it.Line,
		Title: "Changelog entry names a config key that does not exist",
		Key:   "unknown-key:" + it.Value,
	}
	files := codeList(head.Files, 4)
	guess := it.Value
	if kind == "pattern" {
		// Compare the pattern's literal text; a glob is usually a key with
		// a part replaced.
		guess = strings.NewReplacer("*", "", "?", "").Replace(it.Value)
	}
	best, dist, ok := head.closest(guess)
	didYouMean := ""
	if ok && kind == "key" {
		didYouMean = fmt.Sprintf(" Did you mean %s (%s)?", prose.Code(best.Key), prose.CodeAt(best.Path, best.Line))
		f.Related = append(f.Related, checks.Location{Path: best.Path, Line: best.Line, Note: "the closest existing key, " + edits(dist) + " away"})
		text := a.Head.Line(it.Line)
		if i := strings.Index(text, it.Value); i >= 0 && strings.Count(text, it.Value) == 1 {
			f.Suggestion = &checks.Suggestion{Line: it.Line, Replacement: text[:i] + best.Key + text[i+len(it.Value):]}
		}
	}
	f.Body = fmt.Sprintf("The entry this PR adds at line %d lists config %s %s (line %d), which matches no key of any master config after this PR (%s), nor a key of the base's configs or of `configs/deprecated/`.%s The sweep is generated from these keys, so this %s selects nothing and the change the entry describes is not benchmarked; name the config key(s) this PR actually changes.",
		e.Start, kind, prose.Code(it.Value), it.Line, files, didYouMean, kind)
	x := &checks.Explain{}
	x.Evidence()
	x.Printf("%s was matched as a shell glob (Go `path.Match` semantics: `*` does not cross `/`) against the top-level keys of %s at head, then of the base's master configs (a key this PR removes is fine) and of `configs/deprecated/` (archived configs).", prose.Code(it.Value), files)
	if ok && kind == "key" {
		x.Note("Closest key")
		x.Printf("%s, defined at %s, is %s away.", prose.Code(best.Key), prose.CodeAt(best.Path, best.Line), edits(dist))
	} else if ok {
		x.Note("Closest key")
		x.Printf("%s (%s) resembles the pattern's literal part but does not match it.", prose.Code(best.Key), prose.CodeAt(best.Path, best.Line))
		f.Related = append(f.Related, checks.Location{Path: best.Path, Line: best.Line, Note: "a key resembling the pattern"})
	}
	x.Why()
	x.Printf("The PR's benchmark sweep runs the configs named by the appended entries' `config-keys`. A name that matches nothing contributes no config, so the sweep silently leaves out the change this entry documents, and the changelog records a change to a config that does not exist.")
	x.Apply(&f)
	return f
}

func edits(n int) string {
	if n == 1 {
		return "one edit"
	}
	return fmt.Sprintf("%d edits", n)
}
