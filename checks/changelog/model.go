package changelog

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// File is one version of the perf changelog split into its entries.
//
// The file is a YAML list whose items start with "- " in column one. Each
// entry is cut out of the source by those lines and parsed on its own:
// almost every entry has the same simple shape, which a line reader
// handles exactly, and the rest go through yaml.v3. Parsing entry by entry
// keeps a broken entry from hiding the others and costs about a millisecond
// for the real 400 KB file, where yaml.v3 on the whole file takes ~20 ms.
type File struct {
	// Src is the file's content.
	Src string
	// lineStart[i] is the byte offset of line i+1.
	lineStart []int
	Entries   []*Entry
	// Err is the first YAML syntax error in the file (absolute line), nil
	// when it parses.
	Err *yamlx.SyntaxError
	// Shape is set when the file parses but is not a list of entries
	// starting in column one; ShapeLine is where that shows.
	Shape     string
	ShapeLine int
}

// Entry is one changelog entry.
type Entry struct {
	Index int
	// Start is the line of the entry's "- "; End the line before the next
	// entry (or the file's last line), so trailing blank lines belong to
	// the entry above them. ContentEnd is the last line of the span that
	// holds anything but whitespace.
	Start, End, ContentEnd int
	// Text is the exact source of lines Start..ContentEnd, without the
	// final newline. Entries are compared by it.
	Text string
	// Kind is the kind of the list item (a mapping for a well-formed entry).
	Kind   yaml.Kind
	Fields []Field
	Dups   []yamlx.Duplicate
	// Err is the YAML error inside this entry (absolute line), if any.
	Err *yamlx.SyntaxError
	// Fast is true when the line reader parsed the entry (for tests).
	Fast bool
}

// Field is one key of an entry.
type Field struct {
	Key     string
	KeyLine int
	// Kind, Tag ("!!str", "!!bool", "!!null", ...), Value and Line describe
	// the value; Items its elements when it is a sequence. Tags are those
	// of YAML 1.1, which the repository's tools load the file with.
	Kind  yaml.Kind
	Tag   string
	Value string
	Line  int
	Items []Item
}

// Item is one element of a sequence value.
type Item struct {
	Kind  yaml.Kind
	Tag   string
	Value string
	Line  int
}

// IsString reports whether the item is a string scalar.
func (it Item) IsString() bool { return it.Kind == yaml.ScalarNode && it.Tag == "!!str" }

// Get returns the field named key (the last one when duplicated, as YAML
// loaders keep), or nil.
func (e *Entry) Get(key string) *Field {
	for i := len(e.Fields) - 1; i >= 0; i-- {
		if e.Fields[i].Key == key {
			return &e.Fields[i]
		}
	}
	return nil
}

// ConfigKeys returns the string items of config-keys.
func (e *Entry) ConfigKeys() []Item {
	f := e.Get(keyConfigKeys)
	if f == nil {
		return nil
	}
	if f.Kind == yaml.ScalarNode && f.Tag == "!!str" {
		return []Item{{Kind: f.Kind, Tag: f.Tag, Value: f.Value, Line: f.Line}}
	}
	var out []Item
	for _, it := range f.Items {
		if it.IsString() {
			out = append(out, it)
		}
	}
	return out
}

// KeyNames returns the config-keys values, for messages.
func (e *Entry) KeyNames() []string {
	var out []string
	for _, it := range e.ConfigKeys() {
		out = append(out, it.Value)
	}
	return out
}

// PRLink returns the pr-link value and the line of the pr-link key. ok is
// false when there is no string pr-link.
func (e *Entry) PRLink() (link string, line int, ok bool) {
	f := e.Get(keyPRLink)
	if f == nil {
		return "", 0, false
	}
	if f.Kind != yaml.ScalarNode || f.Tag != "!!str" {
		return "", f.KeyLine, false
	}
	return f.Value, f.KeyLine, true
}

// AppendOnly reports whether the entry sets append-only to a true value
// (as the validator's model reads booleans).
func (e *Entry) AppendOnly() bool {
	f := e.Get(keyAppendOnly)
	if f == nil {
		return false
	}
	v, ok := laxBool(f)
	return ok && v
}

// NumLines is the number of lines of the file ("a\nb\n" and "a\nb" have 2).
func (f *File) NumLines() int { return len(f.lineStart) }

// Line returns line n (1-based) without its newline ("" when out of range).
func (f *File) Line(n int) string {
	if n < 1 || n > len(f.lineStart) {
		return ""
	}
	return f.Src[f.lineStart[n-1]:f.lineEnd(n)]
}

// lineEnd is the offset of line n's newline (or the end of the file).
func (f *File) lineEnd(n int) int {
	if n < len(f.lineStart) {
		return f.lineStart[n] - 1
	}
	if strings.HasSuffix(f.Src, "\n") {
		return len(f.Src) - 1
	}
	return len(f.Src)
}

// Lines returns lines a..b joined by "\n".
func (f *File) Lines(a, b int) string {
	if a < 1 {
		a = 1
	}
	if b > len(f.lineStart) {
		b = len(f.lineStart)
	}
	if a > b {
		return ""
	}
	return f.Src[f.lineStart[a-1]:f.lineEnd(b)]
}

// EntryAt returns the entry whose span holds line n, or nil.
func (f *File) EntryAt(n int) *Entry {
	for _, e := range f.Entries {
		if n >= e.Start && n <= e.End {
			return e
		}
	}
	return nil
}

// ParseFile splits and parses a changelog. It never fails: problems are
// recorded in File.Err, File.Shape and the entries. (The error result lets
// it serve as a checks.Parsed parser.)
func ParseFile(src []byte) (*File, error) { return parseFile(src, nil) }

// parseFile parses src; entries whose lines are identical to an entry of
// prev (another version of the file) take prev's parse, shifted to their
// lines. A PR's head shares all but a few entries with its base, so this
// halves the cold cost of a review. The result is the same as without prev.
func parseFile(src []byte, prev *File) (*File, error) {
	f := &File{Src: string(src)}
	s := f.Src
	for off := 0; off < len(s); {
		f.lineStart = append(f.lineStart, off)
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}

	var starts []int
	preambleOK := true
	for n := 1; n <= len(f.lineStart); n++ {
		l := f.Line(n)
		if isEntryStart(l) {
			starts = append(starts, n)
			continue
		}
		if len(starts) == 0 && !isPreambleLine(l) {
			preambleOK = false
			break
		}
	}
	if !preambleOK || len(starts) == 0 {
		f.parseWhole()
		return f, nil
	}
	var known map[string]*Entry
	if prev != nil && len(prev.Entries) > 0 {
		known = make(map[string]*Entry, len(prev.Entries))
		for _, e := range prev.Entries {
			known[prev.Lines(e.Start, e.End)] = e
		}
	}
	for i, s := range starts {
		end := len(f.lineStart)
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		}
		e := &Entry{Index: i, Start: s, End: end, ContentEnd: s}
		for n := end; n > s; n-- {
			if !isBlank(f.Line(n)) {
				e.ContentEnd = n
				break
			}
		}
		e.Text = f.Lines(s, e.ContentEnd)
		if p, ok := known[f.Lines(s, end)]; ok {
			e.reuse(p)
		} else if !parseFast(f, e) {
			parseSlow(f, e)
		}
		if e.Err != nil && f.Err == nil {
			f.Err = e.Err
		}
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

// reuse copies p's parse (of identical lines elsewhere) into e.
func (e *Entry) reuse(p *Entry) {
	d := e.Start - p.Start
	e.Kind, e.Fast = p.Kind, p.Fast
	if p.Err != nil {
		err := *p.Err
		err.Line += d
		e.Err = &err
	}
	for _, x := range p.Dups {
		e.Dups = append(e.Dups, yamlx.Duplicate{Key: x.Key, Line: x.Line + d, FirstLine: x.FirstLine + d})
	}
	if d == 0 {
		e.Fields = p.Fields // immutable once parsed: share
		return
	}
	e.Fields = make([]Field, len(p.Fields))
	for i, fl := range p.Fields {
		fl.KeyLine += d
		fl.Line += d
		if fl.Items != nil {
			items := make([]Item, len(fl.Items))
			for j, it := range fl.Items {
				it.Line += d
				items[j] = it
			}
			fl.Items = items
		}
		e.Fields[i] = fl
	}
}

// isEntryStart: "-" in column one followed by whitespace or the end of the
// line ("---" is a document marker, "-x" a plain scalar).
func isEntryStart(l string) bool {
	if l == "" || l[0] != '-' {
		return false
	}
	return len(l) == 1 || l[1] == ' ' || l[1] == '\t' || l[1] == '\r'
}

// isPreambleLine accepts what may precede the first entry without changing
// the document: blank lines, comments and a document start marker.
func isPreambleLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	return isBlank(l) || strings.HasPrefix(t, "#") || strings.TrimRight(l, " \r") == "---"
}

func isBlank(l string) bool {
	for i := 0; i < len(l); i++ {
		if c := l[i]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// parseWhole handles files that are not a list of column-one entries: an
// empty file, a flow list, a mapping, or text that does not parse.
func (f *File) parseWhole() {
	doc, err := yamlx.Parse([]byte(f.Src))
	if err != nil {
		f.Err = asSyntax(err, 0)
		return
	}
	root := yamlx.Root(doc)
	if root == nil {
		return
	}
	switch {
	case root.Kind == yaml.SequenceNode && len(root.Content) == 0:
		return
	case root.Kind == yaml.SequenceNode:
		f.Shape = "the list's entries do not start with `- ` in column one"
	default:
		f.Shape = "the top level is " + kindName(root.Kind) + ", not a list of entries"
	}
	f.ShapeLine = root.Line
}

// parseSlow parses the entry's lines with yaml.v3.
func parseSlow(f *File, e *Entry) {
	off := e.Start - 1
	chunk := f.Lines(e.Start, e.End)
	doc, err := yamlx.Parse([]byte(chunk))
	if err != nil {
		e.Err = asSyntax(err, off)
		return
	}
	if line := secondDocument(chunk); line > 0 {
		e.Err = &yamlx.SyntaxError{Line: line + off, Msg: "a second YAML document starts here; the changelog must be one document"}
		return
	}
	root := yamlx.Root(doc)
	if root == nil || root.Kind != yaml.SequenceNode || len(root.Content) == 0 {
		e.Err = &yamlx.SyntaxError{Line: e.Start, Msg: "could not read the list item starting here"}
		return
	}
	item := deref(root.Content[0])
	if item == nil {
		e.Kind = yaml.ScalarNode
		return
	}
	e.Kind = item.Kind
	for _, d := range yamlx.DuplicateKeys(item) {
		e.Dups = append(e.Dups, yamlx.Duplicate{Key: d.Key, Line: d.Line + off, FirstLine: d.FirstLine + off})
	}
	for _, p := range yamlx.Pairs(item) {
		v := deref(p.Value)
		fld := Field{Key: p.Key.Value, KeyLine: p.Key.Line + off}
		if v == nil {
			fld.Kind, fld.Tag, fld.Line = yaml.ScalarNode, "!!null", fld.KeyLine
		} else {
			fld.Kind, fld.Tag, fld.Line = v.Kind, tag11(v), v.Line+off
			if v.Kind == yaml.ScalarNode {
				fld.Value = v.Value
			}
			if v.Kind == yaml.SequenceNode {
				fld.Tag = ""
				for _, c := range v.Content {
					c = deref(c)
					if c == nil {
						continue
					}
					it := Item{Kind: c.Kind, Line: c.Line + off}
					if c.Kind == yaml.ScalarNode {
						it.Tag, it.Value = tag11(c), c.Value
					}
					fld.Items = append(fld.Items, it)
				}
			}
			if v.Kind == yaml.MappingNode {
				fld.Tag = ""
			}
		}
		e.Fields = append(e.Fields, fld)
	}
}

// secondDocument returns the line (relative to the chunk) of a document
// marker inside an entry's lines: yaml.v3's Unmarshal silently reads only
// the first document, while the repository's loader rejects a second one.
// A marker in column one cannot be scalar content, so a line scan is exact.
func secondDocument(chunk string) int {
	n := 0
	for off := 0; off < len(chunk); n++ {
		end := strings.IndexByte(chunk[off:], '\n')
		l := chunk[off:]
		if end >= 0 {
			l = chunk[off : off+end]
			off += end + 1
		} else {
			off = len(chunk)
		}
		if n == 0 {
			continue
		}
		t := strings.TrimRight(l, " \r")
		if t == "---" || t == "..." || strings.HasPrefix(l, "--- ") {
			return n + 1
		}
	}
	return 0
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func asSyntax(err error, off int) *yamlx.SyntaxError {
	se, ok := err.(*yamlx.SyntaxError)
	if !ok {
		return &yamlx.SyntaxError{Line: off + 1, Msg: err.Error()}
	}
	out := *se
	if out.Line > 0 {
		out.Line += off
	} else {
		out.Line = off + 1
	}
	return &out
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	case yaml.AliasNode:
		return "an alias"
	}
	return "empty"
}

// parseFast reads an entry in the shape nearly every entry has: a first
// line "- key: scalar" or "- key:", further "  key: scalar" / "  key:"
// lines at indentation 2, and list items "- scalar" under a bare key at
// indentation 2 or 4,
// with plain, single-quoted or simple double-quoted scalars that are
// strings. Anything else (comments, block scalars, flow collections,
// escapes, values YAML would read as numbers, booleans or null, control
// characters) returns false and the entry goes to yaml.v3. A test checks
// that both readers agree on every entry of the real file, and the fuzz
// test on arbitrary input.
func parseFast(f *File, e *Entry) bool {
	fields := make([]Field, 0, 6)
	var dups []yamlx.Duplicate
	cur := -1     // index of the field whose list is open
	itemInd := -1 // indentation of that list's items
	for n := e.Start; n <= e.End; n++ {
		l := f.Line(n)
		if n == e.Start {
			if !strings.HasPrefix(l, "- ") {
				return false
			}
			l = "  " + l[2:]
		}
		if !printable(l) {
			return false
		}
		if isBlank(l) {
			if strings.ContainsRune(l, '\t') || strings.ContainsRune(l, '\r') {
				return false
			}
			continue
		}
		ind := 0
		for ind < len(l) && l[ind] == ' ' {
			ind++
		}
		body := l[ind:]
		switch {
		case ind == 2 && !strings.HasPrefix(body, "-"):
			key, rest, ok := splitKey(body)
			if !ok {
				return false
			}
			for _, prev := range fields {
				if prev.Key == key {
					dups = append(dups, yamlx.Duplicate{Key: key, Line: n, FirstLine: prev.KeyLine})
					break
				}
			}
			fld := Field{Key: key, KeyLine: n, Line: n}
			cur, itemInd = -1, -1
			if rest == "" {
				fld.Kind, fld.Tag = yaml.ScalarNode, "!!null" // until an item shows up
				cur = len(fields)
			} else if rest == "true" || rest == "false" {
				fld.Kind, fld.Tag, fld.Value = yaml.ScalarNode, "!!bool", rest
			} else {
				v, ok := fastScalar(rest)
				if !ok {
					return false
				}
				fld.Kind, fld.Tag, fld.Value = yaml.ScalarNode, "!!str", v
			}
			fields = append(fields, fld)
		case ind >= 2 && ind <= 8 && strings.HasPrefix(body, "- "):
			if cur < 0 || (itemInd >= 0 && itemInd != ind) {
				return false
			}
			v, ok := fastScalar(strings.TrimLeft(body[2:], " "))
			if !ok {
				return false
			}
			fld := &fields[cur]
			if itemInd < 0 {
				fld.Kind, fld.Tag, fld.Line = yaml.SequenceNode, "", n
				fld.Items = make([]Item, 0, 4)
				itemInd = ind
			}
			fld.Items = append(fld.Items, Item{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: n})
		default:
			return false
		}
	}
	if len(fields) == 0 {
		return false
	}
	e.Kind, e.Fields, e.Dups, e.Fast = yaml.MappingNode, fields, dups, true
	return true
}

// splitKey reads `key:` or `key: rest` where key is a plain word.
func splitKey(body string) (key, rest string, ok bool) {
	i := strings.IndexByte(body, ':')
	if i <= 0 {
		return "", "", false
	}
	key = body[:i]
	if len(key) > 128 {
		return "", "", false // YAML caps implicit keys at 1024 characters; leave long ones to yaml.v3
	}
	for j := 0; j < len(key); j++ {
		c := key[j]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case j > 0 && (c >= '0' && c <= '9' || c == '-' || c == '_'):
		default:
			return "", "", false
		}
	}
	switch r := key; r {
	case "y", "Y", "n", "N", "yes", "no", "on", "off", "true", "false", "null":
		return "", "", false
	}
	after := body[i+1:]
	if after != "" && after[0] != ' ' {
		return "", "", false
	}
	rest = strings.Trim(after, " ")
	return key, rest, true
}

// fastScalar reads a one-line scalar that YAML resolves to a string.
func fastScalar(s string) (string, bool) {
	s = strings.TrimRight(s, " ")
	if s == "" {
		return "", false
	}
	switch s[0] {
	case '"':
		if len(s) < 2 || s[len(s)-1] != '"' {
			return "", false
		}
		inner := s[1 : len(s)-1]
		if !strings.ContainsAny(inner, "\"\\") {
			return inner, true
		}
		// Only the two escapes descriptions use (\" and \\); anything else
		// goes to yaml.v3.
		var b strings.Builder
		for i := 0; i < len(inner); i++ {
			switch c := inner[i]; c {
			case '"':
				return "", false
			case '\\':
				if i+1 >= len(inner) || (inner[i+1] != '"' && inner[i+1] != '\\') {
					return "", false
				}
				i++
				b.WriteByte(inner[i])
			default:
				b.WriteByte(c)
			}
		}
		return b.String(), true
	case '\'':
		if len(s) < 2 || s[len(s)-1] != '\'' {
			return "", false
		}
		inner := s[1 : len(s)-1]
		var b strings.Builder
		for i := 0; i < len(inner); i++ {
			if inner[i] == '\'' {
				if i+1 >= len(inner) || inner[i+1] != '\'' {
					return "", false
				}
				i++
			}
			b.WriteByte(inner[i])
		}
		return b.String(), true
	}
	if strings.IndexByte("-?:,[]{}#&*!|>'\"%@`+.~<=", s[0]) >= 0 {
		return "", false
	}
	if s[0] >= '0' && s[0] <= '9' && !strings.ContainsFunc(s, notNumeric) {
		return "", false // could be an int, float or timestamp
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return "", false
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
			return "", false
		}
	}
	return s, true
}

// notNumeric reports characters that appear in no YAML number or
// timestamp (digits, signs, separators, exponents, radix prefixes, hex
// digits and the timestamp letters), so a plain scalar holding one is a
// string.
func notNumeric(r rune) bool {
	return !strings.ContainsRune("0123456789+-._: abcdefABCDEFoOxXtTzZ", r)
}

// printable reports whether l holds only characters YAML allows in content
// and the line reader handles (printable ASCII and printable non-ASCII).
func printable(l string) bool {
	for i := 0; i < len(l); {
		c := l[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(l[i:])
		if r == utf8.RuneError || r < 0xa0 || (r >= 0xd800 && r <= 0xdfff) || r == 0xfeff || r == 0xfffe || r == 0xffff || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += size
	}
	return true
}

const yamlMapping = yaml.MappingNode
