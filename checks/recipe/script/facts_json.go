package script

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONStyle says how a JSON value was written in the script.
type JSONStyle string

const (
	// JSONDoubleQuoted is "{\"kv_connector\":\"X\"}".
	JSONDoubleQuoted JSONStyle = "double-quoted"
	// JSONSingleQuoted is '{"kv_connector":"X"}'.
	JSONSingleQuoted JSONStyle = "single-quoted"
	// JSONHeredoc is a heredoc body: read -r -d '' V <<EOF, or $(cat <<EOF).
	JSONHeredoc JSONStyle = "heredoc"
	// JSONUnquoted is a bare word.
	JSONUnquoted JSONStyle = "unquoted"
	// JSONMixed is several quoting styles glued together.
	JSONMixed JSONStyle = "mixed"
)

// JSONKind is the JSON type of an entry.
type JSONKind string

const (
	JSONString JSONKind = "string"
	JSONNumber JSONKind = "number"
	JSONBool   JSONKind = "bool"
	JSONNull   JSONKind = "null"
	JSONObject JSONKind = "object"
	JSONArray  JSONKind = "array"
)

// JSONConfig is a JSON object written in the script: an option's value
// (--kv-transfer-config, --speculative-config, ...) or a variable's value
// that looks like JSON. Shell expansions inside it are replaced by
// placeholders before parsing, so `"cpu_bytes_to_use": ${BYTES}` still
// parses; such entries are marked Dynamic and keep the expansion's source
// as their value.
type JSONConfig struct {
	// Flag is the first option the JSON is passed to ("" when none is
	// found).
	Flag string
	// Var is the variable the JSON was assigned to ("" when written inline
	// in the option's value).
	Var   string
	Style JSONStyle
	// Escaped is set when the JSON sits in double quotes with \" escapes.
	Escaped bool
	// Raw is the text as the shell would build it, expansions kept as
	// written.
	Raw     string
	Line    int
	EndLine int
	// Branch is where the JSON text is written.
	Branch Branch
	// Parsed is false when the text is not valid JSON even after
	// placeholder substitution; Err says why and Entries is empty.
	Parsed bool
	Err    string
	// Entries are the key paths in document order: objects and arrays as
	// well as leaves. Nested keys are joined with ".", array elements
	// with [i]: "kv_connector_extra_config.cpu_bytes_to_use".
	Entries []JSONEntry
}

// JSONEntry is one key of a JSON config.
type JSONEntry struct {
	Key string
	// Value is a leaf's literal value (a string's contents, a number's
	// text, true/false/null); "" for objects and arrays. A Dynamic value
	// holds the shell expansion's source ("${CPU_BYTES_PER_RANK}").
	Value   string
	Kind    JSONKind
	Dynamic bool
	// Line is the line of the key (of the JSON start when unknown).
	Line int
}

// Get returns the value and line of key path k. A key repeated in one
// object resolves to its last occurrence, as JSON parsers do.
func (j *JSONConfig) Get(k string) (value string, line int, ok bool) {
	if j == nil {
		return "", 0, false
	}
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].Key == k {
			return j.Entries[i].Value, j.Entries[i].Line, true
		}
	}
	return "", 0, false
}

// Entry returns the entry for key path k (its last occurrence).
func (j *JSONConfig) Entry(k string) (JSONEntry, bool) {
	if j == nil {
		return JSONEntry{}, false
	}
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].Key == k {
			return j.Entries[i], true
		}
	}
	return JSONEntry{}, false
}

// Has reports whether key path k exists.
func (j *JSONConfig) Has(k string) bool {
	_, _, ok := j.Get(k)
	return ok
}

// Children returns the entries directly under key path k (the keys of
// kv_connector_extra_config, say), in document order.
func (j *JSONConfig) Children(k string) []JSONEntry {
	if j == nil {
		return nil
	}
	prefix := k + "."
	// A key may itself contain dots ("lmcache.mp.port"): an entry is nested
	// only when a container entry sits between it and k.
	containers := map[string]bool{}
	for _, e := range j.Entries {
		if e.Kind == JSONObject || e.Kind == JSONArray {
			containers[e.Key] = true
		}
	}
	nested := func(rest string) bool {
		for i := 0; i < len(rest); i++ {
			if (rest[i] == '.' || rest[i] == '[') && containers[prefix+rest[:i]] {
				return true
			}
		}
		return false
	}
	var out []JSONEntry
	for _, e := range j.Entries {
		rest, ok := strings.CutPrefix(e.Key, prefix)
		if ok && rest != "" && !nested(rest) {
			out = append(out, e)
		}
	}
	return out
}

// looksLikeJSON reports whether a value starts like a JSON object.
func looksLikeJSON(t *text) bool {
	for _, p := range t.pieces {
		s := strings.TrimLeft(p.s, " \t\r\n")
		if s == "" {
			continue
		}
		return !p.exp && s[0] == '{'
	}
	return false
}

func styleOf(q quoting) JSONStyle {
	switch {
	case q&qHeredoc != 0:
		return JSONHeredoc
	case q&(qSingle|qDouble|qUnquoted) == qSingle:
		return JSONSingleQuoted
	case q&(qSingle|qDouble|qUnquoted) == qDouble:
		return JSONDoubleQuoted
	case q&(qSingle|qDouble|qUnquoted) == qUnquoted:
		return JSONUnquoted
	}
	return JSONMixed
}

// parseJSONText builds a JSONConfig from a reconstructed value.
func parseJSONText(t *text, p Branch) *JSONConfig {
	j := &JSONConfig{
		Style:   styleOf(t.q),
		Escaped: t.q&qEscaped != 0,
		Raw:     t.String(),
		Line:    t.line(),
		Branch:  p,
	}
	if n := len(t.pieces); n > 0 {
		j.EndLine = t.pieces[n-1].line
	}
	src, marks, ph := jsonSource(t)
	lineAt := jsonLines(marks, j.Line)
	// Not valid JSON (or a spelling the fast path leaves alone): the
	// decoder says why, in its words.
	if !readJSONFast(j, src, ph, lineAt) {
		readJSONDecoder(j, src, ph, lineAt)
	}
	return j
}

// jsonLines maps an offset of jsonSource's text to its script line
// (first before the first mark).
func jsonLines(marks []lineMark, first int) func(int) int {
	return func(off int) int {
		i := sort.Search(len(marks), func(i int) bool { return marks[i].off > off })
		if i == 0 {
			return first
		}
		return marks[i-1].line
	}
}

// readJSONFast fills j's entries with jsonFast; false (and j unchanged)
// when it gives up.
func readJSONFast(j *JSONConfig, src string, ph map[string]string, lineAt func(int) int) bool {
	fp := &jsonFast{s: src, ph: ph, lineAt: lineAt, j: j}
	// About one entry per key.
	j.Entries = make([]JSONEntry, 0, strings.Count(src, ":")+1)
	if !fp.value("", j.Line, 0) || !fp.end() {
		j.Entries = nil
		return false
	}
	if len(j.Entries) == 0 {
		j.Entries = nil
	}
	j.Parsed = true
	return true
}

// readJSONDecoder fills j's entries, or its error, with encoding/json's
// token stream.
func readJSONDecoder(j *JSONConfig, src string, ph map[string]string, lineAt func(int) int) {
	w := &jsonWalker{dec: json.NewDecoder(strings.NewReader(src)), ph: ph, lineAt: lineAt, j: j}
	w.dec.UseNumber()
	err := w.value("", j.Line, 0)
	if err == nil {
		if _, terr := w.dec.Token(); terr != io.EOF {
			err = errors.New("unexpected text after the JSON value")
		}
	}
	if err != nil {
		j.Entries = nil
		j.Err = err.Error()
		return
	}
	j.Parsed = true
}

type lineMark struct{ off, line int }

// Placeholders for expansions outside JSON strings: number tokens that
// no recipe writes, so they parse where a value is expected and map back
// to the expansion.
const phPrefix = "-7.3190021"

// Expansions inside JSON strings are kept as their source, between these
// two control characters (written as \u escapes so the JSON stays valid).
const (
	dynOpen  = "\x01"
	dynClose = "\x02"
)

// jsonSource turns a reconstructed value into JSON text: literal text as
// is, expansions as placeholders that fit the lexical position (inside a
// string: the expansion's source; elsewhere: a number token).
func jsonSource(t *text) (string, []lineMark, map[string]string) {
	var b strings.Builder
	var marks []lineMark
	var ph map[string]string
	inStr, esc := false, false
	for _, p := range t.pieces {
		if len(marks) == 0 || marks[len(marks)-1].line != p.line {
			marks = append(marks, lineMark{b.Len(), p.line})
		}
		if p.exp {
			if inStr {
				b.WriteString(`\u0001`)
				b.WriteString(jsonEscape(p.s))
				b.WriteString(`\u0002`)
				continue
			}
			if ph == nil {
				ph = map[string]string{}
			}
			tok := phPrefix + strconv.Itoa(len(ph)+1) + "e-300"
			ph[tok] = p.s
			b.WriteString(tok)
			continue
		}
		for i := 0; i < len(p.s); i++ {
			c := p.s[i]
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			}
		}
		b.WriteString(p.s)
	}
	return b.String(), marks, ph
}

func jsonEscape(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	return string(b[1 : len(b)-1])
}

type jsonWalker struct {
	dec    *json.Decoder
	ph     map[string]string
	lineAt func(int) int
	j      *JSONConfig
}

const maxJSONDepth = 64

func (w *jsonWalker) add(key, value string, kind JSONKind, dynamic bool, line int) {
	if key == "" {
		return
	}
	w.j.Entries = append(w.j.Entries, JSONEntry{Key: key, Value: value, Kind: kind, Dynamic: dynamic, Line: line})
}

func (w *jsonWalker) here() int { return w.lineAt(int(w.dec.InputOffset()) - 1) }

func (w *jsonWalker) value(key string, line, depth int) error {
	if depth > maxJSONDepth {
		return errors.New("JSON nested too deeply")
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			w.add(key, "", JSONObject, false, line)
			for w.dec.More() {
				kt, err := w.dec.Token()
				if err != nil {
					return err
				}
				k, ok := kt.(string)
				if !ok {
					return fmt.Errorf("object key is not a string")
				}
				k, _ = cleanDynamic(k)
				sub := k
				if key != "" {
					sub = key + "." + k
				}
				if err := w.value(sub, w.here(), depth+1); err != nil {
					return err
				}
			}
		case '[':
			w.add(key, "", JSONArray, false, line)
			for i := 0; w.dec.More(); i++ {
				if err := w.value(key+"["+strconv.Itoa(i)+"]", w.here(), depth+1); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("unexpected %q", v)
		}
		_, err := w.dec.Token() // the closing delimiter
		return err
	case string:
		s, dyn := cleanDynamic(v)
		w.add(key, s, JSONString, dyn, line)
	case json.Number:
		if src, ok := w.ph[string(v)]; ok {
			w.add(key, src, JSONNumber, true, line)
		} else {
			w.add(key, string(v), JSONNumber, false, line)
		}
	case bool:
		w.add(key, strconv.FormatBool(v), JSONBool, false, line)
	case nil:
		w.add(key, "null", JSONNull, false, line)
	}
	return nil
}

// jsonFast reads a valid JSON document into the same entries, with the
// same lines, as jsonWalker does with encoding/json's token stream, at a
// fraction of the cost (the token API decodes every scalar as a document
// of its own). It gives up (false) at anything not plainly valid; the
// caller then runs jsonWalker, which reports the error. Lines follow the
// decoder's offsets: an object member's key line is that of the key's
// closing quote; an array element's, that of the byte before the first
// element or before the comma preceding it.
type jsonFast struct {
	s      string
	i      int
	ph     map[string]string
	lineAt func(int) int
	j      *JSONConfig
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (p *jsonFast) ws() {
	for p.i < len(p.s) && isJSONSpace(p.s[p.i]) {
		p.i++
	}
}

// end reports whether only white space follows the document.
func (p *jsonFast) end() bool {
	p.ws()
	return p.i == len(p.s)
}

func (p *jsonFast) add(key, value string, kind JSONKind, dynamic bool, line int) {
	if key == "" {
		return
	}
	p.j.Entries = append(p.j.Entries, JSONEntry{Key: key, Value: value, Kind: kind, Dynamic: dynamic, Line: line})
}

func (p *jsonFast) value(key string, line, depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	p.ws()
	if p.i >= len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		p.add(key, "", JSONObject, false, line)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return true
		}
		for {
			p.ws()
			k, ok := p.str()
			if !ok {
				return false
			}
			k, _ = cleanDynamic(k)
			kline := p.lineAt(p.i - 1)
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return false
			}
			p.i++
			sub := k
			if key != "" {
				sub = key + "." + k
			}
			if !p.value(sub, kline, depth+1) {
				return false
			}
			p.ws()
			if p.i >= len(p.s) {
				return false
			}
			switch p.s[p.i] {
			case ',':
				p.i++
			case '}':
				p.i++
				return true
			default:
				return false
			}
		}
	case c == '[':
		p.i++
		p.add(key, "", JSONArray, false, line)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return true
		}
		eline := p.lineAt(p.i - 1)
		for n := 0; ; n++ {
			if !p.value(key+"["+strconv.Itoa(n)+"]", eline, depth+1) {
				return false
			}
			p.ws()
			if p.i >= len(p.s) {
				return false
			}
			switch p.s[p.i] {
			case ',':
				eline = p.lineAt(p.i - 1)
				p.i++
			case ']':
				p.i++
				return true
			default:
				return false
			}
		}
	case c == '"':
		v, ok := p.str()
		if !ok {
			return false
		}
		v, dyn := cleanDynamic(v)
		p.add(key, v, JSONString, dyn, line)
	case c == '-' || ('0' <= c && c <= '9'):
		num, ok := p.number()
		if !ok {
			return false
		}
		if src, ok := p.ph[num]; ok {
			p.add(key, src, JSONNumber, true, line)
		} else {
			p.add(key, num, JSONNumber, false, line)
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]struct {
			word string
			kind JSONKind
		}{{"true", JSONBool}, {"false", JSONBool}, {"null", JSONNull}} {
			if strings.HasPrefix(p.s[p.i:], lit.word) {
				p.i += len(lit.word)
				p.add(key, lit.word, lit.kind, false, line)
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}

// str reads a string at p.i, leaving p.i after its closing quote.
func (p *jsonFast) str() (string, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	start := p.i
	escaped := false
	for i := start + 1; i < len(p.s); i++ {
		switch c := p.s[i]; {
		case c == '\\':
			escaped = true
			i++
		case c == '"':
			p.i = i + 1
			raw := p.s[start+1 : i]
			if !escaped && utf8.ValidString(raw) {
				return raw, true
			}
			// Escapes and invalid UTF-8: the decoder's own rules.
			var v string
			if err := json.Unmarshal([]byte(p.s[start:p.i]), &v); err != nil {
				return "", false
			}
			return v, true
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// number reads a number at p.i (JSON's grammar, which the placeholders
// follow) and returns its text.
func (p *jsonFast) number() (string, bool) {
	s, i := p.s, p.i
	digits := func() bool {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return "", false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return "", false
		}
	}
	num := s[p.i:i]
	p.i = i
	return num, true
}

func cleanDynamic(s string) (string, bool) {
	if !strings.Contains(s, dynOpen) {
		return s, false
	}
	return strings.NewReplacer(dynOpen, "", dynClose, "").Replace(s), true
}
