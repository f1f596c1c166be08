package masterconfig

import (
	"fmt"
	"sort"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Cache kinds: bump the version when the parsed model changes shape, so a
// long-lived cache never hands a rule an old layout.
const (
	parseKind  = "masterconfig/v5"
	modelsKind = "masterconfig/models-md/v1"
)

// The results the master-config rules share within a change.
var (
	memoKey   = checks.NewMemoKey[*analysis]("masterconfig/analysis")
	policyKey = checks.NewMemoKey[*Policy]("masterconfig/policy")
	chunksKey = checks.NewMemoKey[*checks.ParseCache]("masterconfig/chunk-cache")
)

// analysis is the shared model of one change: every master config the PR
// touches, parsed at base and head, with what the PR changed in it.
type analysis struct {
	files []*fileState
}

type fileState struct {
	path string
	fc   *checks.FileChange
	head *File
	// base is the file before the PR (nil when the PR adds it).
	base *File
	// baseKnown says base can be compared with head: it is absent (all
	// keys are new) or parsed cleanly. Otherwise changes are judged by
	// the diff's touched lines alone.
	baseKnown bool
	keys      []*keyState
}

// keyState says what the PR changed in one head config key.
type keyState struct {
	key  *Key
	base *Key // same-named key at base; nil when new or unknown
	// isNew is set when base has no key of this name.
	isNew         bool
	headerChanged bool
	// blocks marks scenario blocks whose own settings changed; rows marks
	// rows no base row of the key means the same as.
	blocks map[*Scenario]bool
	rows   map[*Row]bool
	// removedRows and removedBlocks count the base rows and scenario
	// blocks no head row or block of the key means the same as: what the
	// PR dropped or rewrote.
	removedRows, removedBlocks int
}

// changed reports whether the PR added or changed anything of the key's
// meaning (comments and formatting do not count). Rows or blocks the PR
// only removed do not count here (see altered).
func (k *keyState) changed() bool {
	if k.isNew || k.headerChanged {
		return true
	}
	for _, c := range k.blocks {
		if c {
			return true
		}
	}
	for _, c := range k.rows {
		if c {
			return true
		}
	}
	return false
}

// altered reports whether the key means anything else than at base: it
// changed, or lost rows or scenario blocks.
func (k *keyState) altered() bool {
	return k.changed() || k.removedRows > 0 || k.removedBlocks > 0
}

// fieldChanged reports whether the PR set a header field: the key is new,
// or the field's line was added with a value that differs from base.
func (fs *fileState) fieldChanged(k *keyState, pick func(*Key) Field) bool {
	if k.isNew {
		return true
	}
	f := pick(k.key)
	if f.Line == 0 || !fs.fc.IsAdded(f.Line) {
		return false
	}
	if k.base == nil {
		return true // base unreadable: the touched line is all we know
	}
	return pick(k.base).Value != f.Value
}

// firstAdded returns the first head line in start..end the PR added, or 0.
func firstAdded(fc *checks.FileChange, start, end int) int {
	lines := fc.AddedLines()
	if fc.Status == checks.Added {
		return start
	}
	i := sort.SearchInts(lines, start)
	if i < len(lines) && lines[i] <= end {
		return lines[i]
	}
	return 0
}

// load returns the change's analysis, computed once per change.
func load(p *checks.Pass) (*analysis, error) {
	v, err := checks.Shared(p.Change, memoKey, "", func() (*analysis, error) { return analyze(p) })
	if err != nil {
		return nil, err
	}
	return v, nil
}

// chunkCache is where parsed config keys are kept: the change's parse
// cache, or when it has none a cache for this change alone, so that the
// head still reuses the base's keys.
func chunkCache(ch *checks.Change) *checks.ParseCache {
	if ch.Cache != nil {
		return ch.Cache
	}
	v, _ := checks.Shared(ch, chunksKey, "", func() (*checks.ParseCache, error) { return checks.NewParseCache(0), nil })
	return v
}

func analyze(p *checks.Pass) (*analysis, error) {
	ch := p.Change
	a := &analysis{}
	chunks := chunkCache(ch)
	parse := func(b []byte) (*File, error) { return parseFile(b, chunks), nil }
	for _, fc := range ch.Files {
		if fc.Status == checks.Deleted || !fc.Changed() || !ch.Config.IsMasterConfig(fc.Path) {
			continue
		}
		head, err := checks.Parsed(p.Ctx, ch.Cache, ch.Head, parseKind, fc.Path, parse)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", fc.Path, err)
		}
		fs := &fileState{path: fc.Path, fc: fc, head: head, baseKnown: true}
		if fc.Status != checks.Added {
			basePath := fc.Path
			if fc.OldPath != "" {
				basePath = fc.OldPath
			}
			base, err := checks.Parsed(p.Ctx, ch.Cache, ch.Base, parseKind, basePath, parse)
			switch {
			case checks.IsNotExist(err):
			case err != nil:
				return nil, fmt.Errorf("read %s at base: %w", basePath, err)
			default:
				fs.base = base
				fs.baseKnown = base.Err == nil && !base.NotMapping
			}
		}
		if !head.Broken() {
			for i, k := range head.Keys {
				// A key's region runs to the line before the next key:
				// lines removed from its end (a last row or scenario
				// block dropped) sit before the first head line after
				// it, which may be a blank line or a comment. The last
				// key's region runs to the end of the file (0).
				end := 0
				if i+1 < len(head.Keys) {
					end = max(head.Keys[i+1].Line, k.EndLine+1)
				}
				fs.keys = append(fs.keys, fs.compare(k, end))
			}
		}
		a.files = append(a.files, fs)
	}
	return a, nil
}

// compare works out what the PR changed in head key k. A row, block or
// header counts as changed only when the key's lines are touched and it
// differs in meaning from everything at base, so moving or reformatting
// rows changes nothing.
// regionEnd is the last head line of the key's region (0: to the end of
// the file).
func (fs *fileState) compare(k *Key, regionEnd int) *keyState {
	ks := &keyState{key: k, blocks: map[*Scenario]bool{}, rows: map[*Row]bool{}}
	fc := fs.fc
	if fs.baseKnown {
		ks.base = fs.base.Key(k.Name)
		ks.isNew = ks.base == nil
	}
	if ks.isNew {
		ks.headerChanged = true
		for _, s := range k.Scenarios {
			ks.blocks[s] = true
			for _, r := range s.Rows {
				ks.rows[r] = true
			}
		}
		return ks
	}
	touched := regionEnd > 0 && fc.Touches(k.Line, regionEnd) || regionEnd == 0 && fc.TouchesFrom(k.Line)
	if !touched {
		return ks
	}
	if !fs.baseKnown {
		hdrEnd := k.EndLine
		if k.ScenariosLine > 0 {
			hdrEnd = k.ScenariosLine
		}
		ks.headerChanged = fc.Touches(k.Line, hdrEnd)
		for _, s := range k.Scenarios {
			ks.blocks[s] = fc.Touches(s.Line, s.EndLine)
			for _, r := range s.Rows {
				ks.rows[r] = fc.Touches(r.Line, r.EndLine)
			}
		}
		return ks
	}
	b := ks.base
	ks.headerChanged = b.Malformed || b.Header != k.Header
	type id struct {
		scenario string
		hash     uint64
	}
	blocks := map[id]int{}
	rows := map[id]int{}
	for _, s := range b.Scenarios {
		blocks[id{s.Kind, s.Settings}]++
		for _, r := range s.Rows {
			rows[id{s.ID(), r.Hash}]++
		}
	}
	for _, s := range k.Scenarios {
		bid := id{s.Kind, s.Settings}
		if blocks[bid] > 0 {
			blocks[bid]--
		} else {
			ks.blocks[s] = true
		}
		for _, r := range s.Rows {
			id := id{s.ID(), r.Hash}
			if rows[id] > 0 {
				rows[id]--
			} else {
				ks.rows[r] = true
			}
		}
	}
	for _, n := range rows {
		ks.removedRows += n
	}
	for _, n := range blocks {
		ks.removedBlocks += n
	}
	return ks
}

// loadPolicy returns MODELS.md from the base tree (nil when absent), parsed
// once per change and cached by blob.
func loadPolicy(p *checks.Pass) (*Policy, string, error) {
	path := p.Change.Config.Paths.Models
	v, err := checks.Shared(p.Change, policyKey, "", func() (*Policy, error) {
		if path == "" {
			return (*Policy)(nil), nil
		}
		pol, err := checks.Parsed(p.Ctx, p.Change.Cache, p.Change.Base, modelsKind, path, ParseModels)
		if checks.IsNotExist(err) {
			return (*Policy)(nil), nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return pol, nil
	})
	if err != nil {
		return nil, "", err
	}
	return v, path, nil
}

// eachKey calls fn for every key of every master config the PR changes.
func eachKey(p *checks.Pass, fn func(fs *fileState, ks *keyState)) error {
	a, err := load(p)
	if err != nil {
		return err
	}
	for _, fs := range a.files {
		for _, ks := range fs.keys {
			fn(fs, ks)
		}
	}
	return nil
}
