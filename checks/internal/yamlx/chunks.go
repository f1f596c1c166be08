package yamlx

import "strings"

// Chunk is one top-level key of a block-mapping document: the key and the
// lines from its key line up to the line before the next top-level key
// (comments and blank lines that follow its value included).
type Chunk struct {
	Key     string
	Line    int // the key's line, 1-based
	EndLine int
	// Offset is the byte offset of Text in the source.
	Offset int
	// Text is the chunk's source, lines Line..EndLine, each ending in "\n"
	// (the last one only when the file has it).
	Text string
}

// TopLevelChunks splits a document whose top level is a block mapping with
// plain keys (a master config) into one chunk per key, by looking only at
// the lines that start in column one, so that a caller comparing two
// versions can skip the keys whose text did not change and parse only the
// others. Comments and blank lines before the first key (and one `---`)
// belong to no chunk; those after a key's value belong to that key's
// chunk. ok is false when the document does not have that simple shape
// (flow or quoted top-level keys, a list, directives, tags, a second
// document, an indented line before the first key, a line in column one
// that is no key and no comment); then parse the whole document instead.
// A chunk's text need not parse on its own (an alias to another key's
// anchor, or a document that is not valid YAML); callers parse chunks and
// fall back to the whole document when one fails.
func TopLevelChunks(src []byte) (chunks []Chunk, ok bool) {
	all := string(src)
	var starts []int // byte offset of each chunk's key line
	line := 0
	docStart := false
	for off := 0; off < len(all); {
		next := len(all)
		if i := strings.IndexByte(all[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		line++
		text := strings.TrimRight(all[off:next], "\n")
		start := off
		off = next
		if len(chunks) == 0 {
			// Before the first key only what cannot change the document:
			// blank lines, comments and one document start. Anything
			// else (an indented value, a second document) needs the
			// parser.
			switch t := strings.TrimLeft(text, " "); {
			case t == "" || t[0] == '#' || isBlank(t):
				continue
			case strings.TrimRight(text, " \r") == "---" && !docStart:
				docStart = true
				continue
			}
		} else if text == "" || text[0] == ' ' || text[0] == '#' || isBlank(text) {
			continue
		}
		key, good := plainKey(text)
		if !good {
			return nil, false
		}
		if len(chunks) > 0 {
			chunks[len(chunks)-1].EndLine = line - 1
		}
		chunks = append(chunks, Chunk{Key: key, Line: line})
		starts = append(starts, start)
	}
	for i := range chunks {
		end := len(all)
		if i+1 < len(chunks) {
			end = starts[i+1]
		} else {
			chunks[i].EndLine = line
		}
		chunks[i].Text = all[starts[i]:end]
		chunks[i].Offset = starts[i]
	}
	return chunks, true
}

func isBlank(b string) bool {
	for _, c := range []byte(b) {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// plainKey reads `key:` or `key: value` where key is a plain scalar made of
// the characters config keys use.
func plainKey(s string) (string, bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", false
	}
	if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\r' {
		return "", false
	}
	key := s[:i]
	for j := 0; j < len(key); j++ {
		c := key[j]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case j > 0 && (c == '-' || c == '_' || c == '.'):
		default:
			return "", false
		}
	}
	return key, true
}
