package pipeline

import (
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl008 = &checks.Rule{
	ID:       "PL008",
	Severity: checks.Warning,
	Title:    "Config runs on a runner label runners.yaml does not define",
	Doc: "`configs/runners.yaml` lists the machines of every runner label a master config's `runner:` names " +
		"(and, under `hardware:`, the GPU count and DRAM the sweep generator sizes agentic offload with). This rule " +
		"reports a label the head's runners.yaml no longer defines while configs still run on it: a PR that removes " +
		"a label (a retired cluster) and leaves its configs behind, at the place the label was removed, with the " +
		"configs that still name it; and a config this PR adds, or moves to another runner, naming a label the file " +
		"does not define and no config ran on before (a typo, or a cluster not added yet), at its `runner:` line. The sweep still schedules those " +
		"jobs on the label, so they wait for machines the repository no longer lists, and agentic DRAM sizing has no " +
		"hardware entry to read. Not judged: a tree without runners.yaml, or one the bot cannot parse.",
	Run: runPL008,
}

// labelUse is a config key naming a runner label.
type labelUse struct {
	file string
	key  *masterconfig.Key
}

func runPL008(p *checks.Pass) error {
	if !listsLabelFile(p.Change) {
		return nil
	}
	return judgeLabels(p)
}

// judgeLabels is PL008 over every master config and the runner lists.
func judgeLabels(p *checks.Pass) error {
	ctx, ch := p.Ctx, p.Change
	hp, ok := firstExisting(ctx, ch.Head, runnersPaths)
	if !ok {
		return nil
	}
	head, err := checks.Parsed(ctx, ch.Cache, ch.Head, "pipeline/runners/v1", hp, func(b []byte) (*Runners, error) { return ParseRunners(hp, b) })
	if err != nil || len(head.Labels) == 0 {
		return nil
	}
	var base *Runners
	if bp, ok := firstExisting(ctx, ch.Base, runnersPaths); ok {
		if b, err := checks.Parsed(ctx, ch.Cache, ch.Base, "pipeline/runners/v1", bp, func(b []byte) (*Runners, error) { return ParseRunners(bp, b) }); err == nil {
			base = b
		}
	}
	headKeys, err := configKeys(p, ch.Head)
	if err != nil {
		return err
	}
	baseKeys, err := configKeys(p, ch.Base)
	if err != nil {
		return err
	}
	baseRunner := map[string]string{}
	inUse := map[string]bool{} // labels base configs run on
	for _, u := range baseKeys {
		baseRunner[u.file+"\x00"+u.key.Name] = u.key.Runner.Value
		inUse[u.key.Runner.Value] = true
	}
	removed := map[string][]labelUse{}
	for _, u := range headKeys {
		label := u.key.Runner.Value
		if label == "" || head.Labels[label] != nil {
			continue
		}
		if base != nil && base.Labels[label] != nil {
			removed[label] = append(removed[label], u)
			continue
		}
		if old, ok := baseRunner[u.file+"\x00"+u.key.Name]; ok && old == label {
			continue // the PR did not put the key on this label
		}
		if inUse[label] {
			// Configs already ran on it before this PR: a label the
			// machines carry that the file does not list.
			continue
		}
		line := u.key.Runner.Line
		if line == 0 {
			line = u.key.Line
		}
		p.Report(checks.Finding{
			Path: u.file, Line: line,
			Title: fmt.Sprintf("%s runs on %s, which %s does not define", code(u.key.Name), code(label), code(path.Base(hp))),
			Body: fmt.Sprintf("%s names the runner label %s, but %s defines no such label (it has %s). The sweep schedules the "+
				"key's jobs on a label the repository lists no machines for. Use one of the file's labels, or add this one to it.",
				code(u.key.Name), code(label), code(hp), labelList(head)),
			Key: "PL008 new " + u.key.Name + " " + label,
		})
	}
	labels := make([]string, 0, len(removed))
	for l := range removed {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, label := range labels {
		uses := removed[label]
		var keys []string
		var related []checks.Location
		for i, u := range uses {
			if i < maxRowsCited {
				keys = append(keys, code(u.key.Name))
			}
			line := u.key.Runner.Line
			if line == 0 {
				line = u.key.Line
			}
			related = append(related, checks.Location{Path: u.file, Line: line, Note: "runs on " + label})
		}
		if len(uses) > maxRowsCited {
			keys = append(keys, fmt.Sprintf("%d more", len(uses)-maxRowsCited))
		}
		p.Report(checks.Finding{
			Path: hp, Line: removedAt(base, head, label),
			Title: fmt.Sprintf("%s removed while %s still run on it", code(label), prose.Count(len(uses), "config", "configs")),
			Body: fmt.Sprintf("This PR removes the runner label %s from %s, but %s still %s on it (%s). Their jobs are still "+
				"scheduled on the label, on machines the repository no longer lists. Move them to another runner, or remove them "+
				"with the label.", code(label), code(hp), prose.Count(len(uses), "config", "configs"), prose.Pick(len(uses), "runs", "run"), prose.JoinAnd(keys)),
			Related: related,
			Key:     "PL008 removed " + label,
		})
	}
	return nil
}

// listsLabelFile reports whether the PR's files hold a master config or a
// runner list (at either path of a move). PL008 reports a label only where
// the head's runner list lost one the base defined, or where a config key
// the PR adds, or moves to another runner, names one: a PR that touches
// neither cannot, and the master configs are not read for it.
func listsLabelFile(ch *checks.Change) bool {
	for _, fc := range ch.Files {
		for _, p := range []string{fc.Path, fc.OldPath} {
			if p != "" && (isConfig(ch.Config, p) || slices.Contains(runnersPaths, p)) {
				return true
			}
		}
	}
	return false
}

// configKeys are the keys of a tree's master configs (none of a file that
// does not parse).
func configKeys(p *checks.Pass, tree checks.Tree) ([]labelUse, error) {
	entries, err := checks.GlobFiles(p.Ctx, tree, ConfigGlobs(p.Change.Config))
	if err != nil {
		return nil, err
	}
	var out []labelUse
	for _, e := range entries {
		f, err := checks.Parsed(p.Ctx, p.Change.Cache, tree, configKind, e.Path, masterconfig.ParseMasterConfig)
		if err != nil || f.Broken() {
			continue
		}
		for _, k := range f.Keys {
			if !k.Malformed {
				out = append(out, labelUse{file: e.Path, key: k})
			}
		}
	}
	return out, nil
}

// labelList names a few of the file's labels.
func labelList(r *Runners) string {
	ls := make([]string, 0, len(r.Labels))
	for l := range r.Labels {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	var out []string
	for i, l := range ls {
		if i == 3 {
			out = append(out, fmt.Sprintf("%d more", len(ls)-3))
			break
		}
		out = append(out, code(l))
	}
	return prose.JoinAnd(out)
}

// removedAt is the head line where a removed label stood: the line of the
// first label after it in the base file that the head still has, else the
// head's last label.
func removedAt(base, head *Runners, label string) int {
	at := base.LabelLines[label]
	next, nextLine := "", 0
	for l, line := range base.LabelLines {
		if line > at && head.LabelLines[l] > 0 && (nextLine == 0 || line < nextLine) {
			next, nextLine = l, line
		}
	}
	if next != "" {
		return head.LabelLines[next]
	}
	last := 1
	for _, line := range head.LabelLines {
		last = max(last, line)
	}
	return last
}
