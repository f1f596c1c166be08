package masterconfig

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Policy is what MODELS.md deprecates, read from its structure:
//
//   - dated sections under the deprecation notice (`### Monday, August 3,
//     2026`): the heading's date is the last day the listed items may run;
//     they are deprecated after it. Their "Model | Deprecated | Remains"
//     tables retire scenarios and precisions ("All **bf16** recipes"), and
//     their prose retires scenarios ("... is the last day for the
//     **Single-turn 8k1k** scenario on ... (`kimik2.5`)") and whole models
//     ("fully retired after August 6, 2026");
//   - the Scenarios table ("Deprecated for all models since YYYY-MM-DD"),
//     which also maps ISL/OSL pairs to scenario names;
//   - the model support matrix: "None (retired YYYY-MM-DD ...)" retires a
//     model, the deprecated-scenarios column lists scenarios and precisions
//     (dated when a parenthesis says "removed YYYY-MM-DD"), and an active
//     scenario may carry "(until YYYY-MM-DD)".
//
// Speculative-decoding A/B arm tables ("Model | Deprecated arm | Published
// arm") are recorded in Arms but never enforced: the notice marks them "not
// yet enacted", and a master config row does not say which draft method an
// arm uses, so "the non-MTP arm" cannot be decided from the config.
type Policy struct {
	Deprecations []Deprecation
	Arms         []ArmDeprecation
	// Prefixes are the model prefixes the support matrix lists.
	Prefixes map[string]bool

	scenarios map[string]string // normalized name -> display name
	byLen     map[[2]int]string // isl/osl -> display name
	groups    map[depKey]*Verdict
	// srcLen is the size of MODELS.md, whose text the names above are
	// slices of (MemSize).
	srcLen int
}

// Deprecation is one statement of MODELS.md.
type Deprecation struct {
	// Model is a model prefix; "" means every model.
	Model string
	// Scenario is a scenario name; "" means every scenario (a retired
	// model, or a retired precision).
	Scenario string
	// Precision is set for a precision retirement.
	Precision string
	// LastDay is the last day the item is allowed; it is deprecated after
	// it. Zero when MODELS.md gives no date: in force whatever the date.
	LastDay time.Time
	Line    int
	// Source says where the statement is (for messages).
	Source string
}

// ArmDeprecation is a row of a speculative-decoding A/B retirement table.
type ArmDeprecation struct {
	Model, Arm, Published string
	LastDay               time.Time
	Line                  int
	// Enacted is false when the section says the table is not yet enacted.
	Enacted bool
}

// Verdict is the merged deprecation of one (model, scenario, precision):
// when MODELS.md states it several times, the latest last day wins (an
// extension written anywhere is honored) and an undated statement counts
// only when no statement gives a date.
type Verdict struct {
	Model, Scenario, Precision string
	LastDay                    time.Time
	Lines                      []int
	Sources                    []string
}

// InForce reports whether the verdict forbids submissions on day. LastDay
// is the last accepted day (kimik2.5 Single-turn 8k1k: last day
// 2026-08-06, accepted that day and rejected on 2026-08-07).
func (v *Verdict) InForce(day time.Time) bool {
	return v.LastDay.IsZero() || day.After(v.LastDay)
}

type depKey struct{ model, scenario, precision string }

// Scenario display names and their ISL/OSL, used when MODELS.md has no
// Scenarios table.
var defaultScenarios = []struct {
	name     string
	isl, osl int
}{
	{"Agentic coding", 0, 0},
	{"Single-turn 8k1k", 8192, 1024},
	{"Single-turn 1k1k", 1024, 1024},
	{"Single-turn 1k8k", 1024, 8192},
}

var (
	monthNames  = `January|February|March|April|May|June|July|August|September|October|November|December`
	datePat     = `(\d{4}-\d{2}-\d{2}|(?:` + monthNames + `)\s+\d{1,2},\s+\d{4})`
	headingDate = regexp.MustCompile(`^(?:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),\s+)?((?:` + monthNames + `)\s+\d{1,2},\s+\d{4})$`)
	anyDate     = regexp.MustCompile(datePat)
	// A connector word before a date says whether the date is the last
	// allowed day ("until", "after") or the first deprecated day ("since",
	// "removed", "retired", "on").
	dateAfterWord = regexp.MustCompile(`(?i)\b(until|through|after|since|from|on|removed|retired|deprecated)\s+((?:on|after|since|until|from)\s+)?` + datePat)
	linkRe        = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	footnoteRe    = regexp.MustCompile(`\[\^[^\]]*\]`)
	codeRe        = regexp.MustCompile("`([^`]+)`")
	prefixLike    = regexp.MustCompile(`^[a-z][a-z0-9.]*[a-z0-9]$`)
	precisionRe   = regexp.MustCompile(`(?i)^all\s+([a-z0-9_]+)\s+recipes\b`)
	allModelsRe   = regexp.MustCompile(`(?i)deprecated for all models`)
	lenRe         = regexp.MustCompile(`(\d+)\s*/\s*(\d+)`)
)

func parseDate(s string) (time.Time, bool) {
	s = strings.Join(strings.Fields(s), " ")
	for _, layout := range []string{"2006-01-02", "January 2, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// lastDayIn finds the first dated phrase in s and returns the last allowed
// day it implies.
func lastDayIn(s string) (time.Time, bool) {
	m := dateAfterWord.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	word := strings.ToLower(m[1])
	if w := strings.TrimSpace(m[2]); w != "" {
		word = strings.ToLower(w)
	}
	d, ok := parseDate(m[3])
	if !ok {
		return time.Time{}, false
	}
	switch word {
	case "until", "through", "after":
		return d, true
	}
	return d.AddDate(0, 0, -1), true
}

// cleanMD removes emphasis markers, footnote references and link targets.
func cleanMD(s string) string {
	s = linkRe.ReplaceAllString(s, "$1")
	s = footnoteRe.ReplaceAllString(s, "")
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

func normName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "*", "")), " "))
}

// mdBlock is a heading, a table or a paragraph of MODELS.md.
type mdBlock struct {
	kind  byte // 'h', 't', 'p'
	level int
	text  string
	line  int
	rows  []mdRow
	lines []string // paragraph source lines
}

type mdRow struct {
	cells []string
	line  int
}

func splitBlocks(src string) []mdBlock {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var out []mdBlock
	var para *mdBlock
	var table *mdBlock
	flush := func() {
		if para != nil {
			out = append(out, *para)
			para = nil
		}
		if table != nil {
			out = append(out, *table)
			table = nil
		}
	}
	for i, l := range lines {
		n := i + 1
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "#"):
			flush()
			level := len(t) - len(strings.TrimLeft(t, "#"))
			out = append(out, mdBlock{kind: 'h', level: level, text: strings.TrimSpace(t[level:]), line: n})
		case strings.HasPrefix(t, "|"):
			if para != nil {
				out = append(out, *para)
				para = nil
			}
			if table == nil {
				table = &mdBlock{kind: 't', line: n}
			}
			cells := splitRow(t)
			if isSeparator(cells) {
				continue
			}
			table.rows = append(table.rows, mdRow{cells: cells, line: n})
		default:
			if table != nil {
				out = append(out, *table)
				table = nil
			}
			if para == nil {
				para = &mdBlock{kind: 'p', line: n}
			}
			para.lines = append(para.lines, t)
		}
	}
	flush()
	for i := range out {
		if out[i].kind == 'p' {
			out[i].text = strings.Join(out[i].lines, " ")
		}
	}
	return out
}

func splitRow(t string) []string {
	t = strings.ReplaceAll(t, `\|`, "\x00")
	t = strings.TrimPrefix(t, "|")
	t = strings.TrimSuffix(t, "|")
	cells := strings.Split(t, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
	}
	return cells
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":- ") != "" {
			return false
		}
	}
	return true
}

// splitItems splits a table cell into its comma-separated items, keeping
// commas inside parentheses and brackets.
func splitItems(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func colIndex(header []string, names ...string) int {
	for i, h := range header {
		for _, n := range names {
			if normName(h) == n {
				return i
			}
		}
	}
	return -1
}

func cell(r mdRow, i int) string {
	if i < 0 || i >= len(r.cells) {
		return ""
	}
	return r.cells[i]
}

func codeSpans(s string) []string {
	var out []string
	for _, m := range codeRe.FindAllStringSubmatch(s, -1) {
		if v := strings.TrimSpace(m[1]); prefixLike.MatchString(v) && !containsStr(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// ParseModels reads MODELS.md. It never fails: text it does not recognize
// yields no deprecation (the error result exists to fit checks.Parsed and
// is always nil).
func ParseModels(b []byte) (*Policy, error) {
	p := &Policy{Prefixes: map[string]bool{}, scenarios: map[string]string{}, byLen: map[[2]int]string{}, srcLen: len(b)}
	for _, s := range defaultScenarios {
		p.addScenario(s.name, s.isl, s.osl)
	}
	blocks := splitBlocks(string(b))

	// The Scenarios table and the support matrix first: they name the
	// scenarios and prefixes the prose refers to.
	for _, bl := range blocks {
		if bl.kind != 't' || len(bl.rows) < 2 {
			continue
		}
		h := bl.rows[0].cells
		if normName(cell(bl.rows[0], 0)) == "scenario" && colIndex(h, "status") >= 0 {
			p.scenarioTable(bl)
		}
	}
	for _, bl := range blocks {
		if bl.kind == 't' && len(bl.rows) >= 2 && colIndex(bl.rows[0].cells, "prefix") >= 0 &&
			colIndex(bl.rows[0].cells, "deprecated scenarios") >= 0 {
			p.matrixTable(bl)
		}
	}

	var pending []Deprecation // prose whose prefixes are checked at the end
	var sectionDate time.Time
	var sectionArms []int
	notEnacted := false
	endSection := func() {
		if notEnacted {
			for _, i := range sectionArms {
				p.Arms[i].Enacted = false
			}
		}
		sectionDate, sectionArms, notEnacted = time.Time{}, nil, false
	}
	for _, bl := range blocks {
		switch bl.kind {
		case 'h':
			if bl.level <= 3 {
				endSection()
			}
			if bl.level == 3 {
				if m := headingDate.FindStringSubmatch(cleanMD(bl.text)); m != nil {
					if d, ok := parseDate(m[1]); ok {
						sectionDate = d
					}
				}
			}
		case 't':
			if sectionDate.IsZero() || len(bl.rows) < 2 {
				continue
			}
			h := bl.rows[0].cells
			src := "deprecation notice, " + sectionDate.Format("January 2, 2006")
			if i := colIndex(h, "deprecated"); i >= 0 {
				mi := colIndex(h, "model")
				for _, r := range bl.rows[1:] {
					for _, model := range codeSpans(cell(r, mi)) {
						for _, it := range splitItems(cleanMD(cell(r, i))) {
							d := Deprecation{Model: model, LastDay: sectionDate, Line: r.line, Source: src}
							if p.itemDeprecation(it, &d, false) {
								p.Deprecations = append(p.Deprecations, d)
							}
						}
					}
				}
			} else if i := colIndex(h, "deprecated arm"); i >= 0 {
				mi, pi := colIndex(h, "model"), colIndex(h, "published arm")
				for _, r := range bl.rows[1:] {
					for _, model := range codeSpans(cell(r, mi)) {
						sectionArms = append(sectionArms, len(p.Arms))
						p.Arms = append(p.Arms, ArmDeprecation{Model: model, Arm: cleanMD(cell(r, i)),
							Published: cleanMD(cell(r, pi)), LastDay: sectionDate, Line: r.line, Enacted: true})
					}
				}
			}
		case 'p':
			text := cleanMD(bl.text)
			if strings.Contains(strings.ToLower(text), "not yet enacted") && !sectionDate.IsZero() {
				notEnacted = true
			}
			pending = append(pending, p.prose(bl, text, sectionDate)...)
		}
	}
	endSection()
	for _, d := range pending {
		if len(p.Prefixes) == 0 || p.Prefixes[d.Model] {
			p.Deprecations = append(p.Deprecations, d)
		}
	}
	p.merge()
	return p, nil
}

func (p *Policy) addScenario(name string, isl, osl int) {
	name = cleanMD(name)
	p.scenarios[normName(name)] = name
	if isl > 0 && osl > 0 {
		p.byLen[[2]int{isl, osl}] = name
	}
}

func (p *Policy) scenarioTable(bl mdBlock) {
	h := bl.rows[0].cells
	li, si := colIndex(h, "isl/osl", "isl / osl"), colIndex(h, "status")
	for _, r := range bl.rows[1:] {
		name := cleanMD(cell(r, 0))
		if name == "" {
			continue
		}
		isl, osl := 0, 0
		if m := lenRe.FindStringSubmatch(cell(r, li)); m != nil {
			isl, _ = strconv.Atoi(m[1])
			osl, _ = strconv.Atoi(m[2])
		}
		p.addScenario(name, isl, osl)
		status := cleanMD(cell(r, si))
		if allModelsRe.MatchString(status) {
			d := Deprecation{Scenario: p.scenarios[normName(name)], Line: r.line, Source: "Scenarios table"}
			d.LastDay, _ = lastDayIn(status)
			p.Deprecations = append(p.Deprecations, d)
		}
	}
}

func (p *Policy) matrixTable(bl mdBlock) {
	h := bl.rows[0].cells
	pi, ai, di := colIndex(h, "prefix"), colIndex(h, "active scenarios"), colIndex(h, "deprecated scenarios")
	for _, r := range bl.rows[1:] {
		models := codeSpans(cell(r, pi))
		for _, m := range models {
			p.Prefixes[m] = true
		}
		active := cleanMD(cell(r, ai))
		var deps []Deprecation
		src := "model support matrix"
		if strings.HasPrefix(strings.ToLower(active), "none") {
			d := Deprecation{Line: r.line, Source: src}
			d.LastDay, _ = lastDayIn(active)
			deps = append(deps, d)
		} else {
			for _, it := range splitItems(active) {
				d := Deprecation{Line: r.line, Source: src}
				name, rest, ok := p.matchScenario(it)
				if !ok || !strings.HasPrefix(rest, "(") {
					continue
				}
				low := strings.ToLower(rest)
				if !strings.Contains(low, "until") && !strings.Contains(low, "through") {
					continue
				}
				if day, ok := lastDayIn(rest); ok {
					d.Scenario, d.LastDay = name, day
					deps = append(deps, d)
				}
			}
			if i := strings.Index(strings.ToLower(active), "retired after"); i >= 0 {
				if day, ok := lastDayIn(active[i:]); ok {
					deps = append(deps, Deprecation{LastDay: day, Line: r.line, Source: src})
				}
			}
		}
		for _, it := range splitItems(cleanMD(cell(r, di))) {
			d := Deprecation{Line: r.line, Source: src}
			if p.itemDeprecation(it, &d, true) {
				deps = append(deps, d)
			}
		}
		for _, m := range models {
			for _, d := range deps {
				d.Model = m
				p.Deprecations = append(p.Deprecations, d)
			}
		}
	}
}

// matchScenario matches a known scenario name at the start of item.
func (p *Policy) matchScenario(item string) (name, rest string, ok bool) {
	low := normName(item)
	best := ""
	for n := range p.scenarios {
		if strings.HasPrefix(low, n) && len(n) > len(best) && (len(low) == len(n) || !isWordByte(low[len(n)])) {
			best = n
		}
	}
	if best == "" {
		return "", "", false
	}
	orig := strings.Join(strings.Fields(strings.ReplaceAll(item, "*", "")), " ")
	if len(orig) >= len(best) && strings.EqualFold(orig[:len(best)], best) {
		rest = strings.TrimSpace(orig[len(best):])
	}
	return p.scenarios[best], rest, true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// itemDeprecation fills d from one listed item: a scenario (optionally
// with a parenthesis giving its date) or "all <precision> recipes".
// Qualified items ("Agentic coding non-DSpark arm", "Single-turn 1k8k
// (GLM-5 only)") narrow to something a config does not express and are
// skipped. dated says whether a parenthesized date applies (support
// matrix) or the section's date does (deprecation notice).
func (p *Policy) itemDeprecation(item string, d *Deprecation, dated bool) bool {
	if m := precisionRe.FindStringSubmatch(item); m != nil {
		d.Precision = strings.ToLower(m[1])
		if dated {
			d.LastDay, _ = lastDayIn(item)
		}
		return true
	}
	name, rest, ok := p.matchScenario(item)
	if !ok {
		return false
	}
	if rest != "" {
		if !strings.HasPrefix(rest, "(") || strings.Contains(strings.ToLower(rest), "only") {
			return false
		}
	}
	d.Scenario = name
	if dated {
		d.LastDay, _ = lastDayIn(rest)
	}
	return true
}

// prose reads the sentences of a paragraph that retire a scenario for a
// model ("... is the last day for the **Single-turn 8k1k** scenario on ...
// (`kimik2.5`)") or a whole model ("fully retired after August 6, 2026").
func (p *Policy) prose(bl mdBlock, text string, sectionDate time.Time) []Deprecation {
	var out []Deprecation
	paraModels := codeSpans(bl.text)
	lineOf := func(needle string) int {
		for i, l := range bl.lines {
			if strings.Contains(strings.ToLower(cleanMD(l)), needle) {
				return bl.line + i
			}
		}
		return bl.line
	}
	for _, s := range sentences(text) {
		low := strings.ToLower(s)
		if i := strings.Index(low, "is the last day for"); i >= 0 {
			day := sectionDate
			if m := anyDate.FindString(s[:i]); m != "" {
				if d, ok := parseDate(m); ok {
					day = d
				}
			}
			if day.IsZero() {
				continue
			}
			var scen []string
			for n, disp := range p.scenarios {
				if strings.Contains(low[i:], n) {
					scen = append(scen, disp)
				}
			}
			sort.Strings(scen)
			models := codeSpans(s)
			for _, m := range models {
				for _, sc := range scen {
					out = append(out, Deprecation{Model: m, Scenario: sc, LastDay: day, Line: lineOf("last day"),
						Source: "deprecation notice, " + day.Format("January 2, 2006")})
				}
			}
		}
		if i := strings.Index(low, "fully retired after"); i >= 0 {
			if day, ok := lastDayIn(s[i:]); ok {
				models := codeSpans(s)
				if len(models) == 0 {
					models = paraModels
				}
				for _, m := range models {
					out = append(out, Deprecation{Model: m, LastDay: day, Line: lineOf("fully retired after"),
						Source: "deprecation notice, " + day.Format("January 2, 2006")})
				}
			}
		}
	}
	return out
}

// sentences splits cleaned prose at a period followed by a space.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '.' && text[i+1] == ' ' {
			out = append(out, text[start:i+1])
			start = i + 2
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func (p *Policy) merge() {
	p.groups = map[depKey]*Verdict{}
	for _, d := range p.Deprecations {
		k := depKey{d.Model, d.Scenario, d.Precision}
		v := p.groups[k]
		if v == nil {
			v = &Verdict{Model: d.Model, Scenario: d.Scenario, Precision: d.Precision}
			p.groups[k] = v
		}
		// The latest date wins; a zero (undated) LastDay stays only when
		// no statement of the group has a date.
		if d.LastDay.After(v.LastDay) {
			v.LastDay = d.LastDay
		}
		v.Lines = appendUnique(v.Lines, d.Line)
		if !containsStr(v.Sources, d.Source) {
			v.Sources = append(v.Sources, d.Source)
		}
	}
	first := map[string]int{}
	for _, d := range p.Deprecations {
		if l, ok := first[d.Source]; !ok || d.Line < l {
			first[d.Source] = d.Line
		}
	}
	for _, v := range p.groups {
		sort.Ints(v.Lines)
		sort.SliceStable(v.Sources, func(i, j int) bool { return first[v.Sources[i]] < first[v.Sources[j]] })
	}
}

func appendUnique(s []int, n int) []int {
	for _, x := range s {
		if x == n {
			return s
		}
	}
	return append(s, n)
}

func containsStr(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// ScenarioName maps a config scenario block to its MODELS.md name:
// agentic-coding to Agentic coding, a fixed-seq-len block by its ISL/OSL.
// "" when MODELS.md names no such scenario.
func (p *Policy) ScenarioName(kind string, isl, osl int) string {
	switch kind {
	case AgenticCoding:
		return p.scenarios["agentic coding"]
	case FixedSeqLen:
		return p.byLen[[2]int{isl, osl}]
	}
	return ""
}

// Lookup returns the merged verdicts that apply to a config of model,
// scenario and precision, most specific first: the model's scenario, its
// precision, the model itself, then the scenario for every model. It
// includes verdicts not yet in force; see Verdict.InForce.
func (p *Policy) Lookup(model, scenario, precision string) []*Verdict {
	if p == nil {
		return nil
	}
	var keys []depKey
	if scenario != "" {
		keys = append(keys, depKey{model, scenario, ""})
	}
	if precision != "" {
		keys = append(keys, depKey{model, "", strings.ToLower(precision)})
	}
	keys = append(keys, depKey{model, "", ""})
	if scenario != "" {
		keys = append(keys, depKey{"", scenario, ""})
	}
	var out []*Verdict
	for _, k := range keys {
		if v := p.groups[k]; v != nil {
			out = append(out, v)
		}
	}
	return out
}
