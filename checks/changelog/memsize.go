package changelog

import (
	"unsafe"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// MemSize estimates the memory the parsed changelog holds, for the parse
// cache's byte bound (checks.Sizer): its source, line index, entries,
// their fields and the strings the YAML parser made.
func (f *File) MemSize() int64 {
	if f == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*f)) + int64(len(f.Src)) + 8*int64(cap(f.lineStart)) + 8*int64(cap(f.Entries)) + int64(len(f.Shape))
	n += errSize(f.Err)
	for _, e := range f.Entries {
		n += int64(unsafe.Sizeof(*e)) + int64(cap(e.Fields))*int64(unsafe.Sizeof(Field{})) + yamlx.DuplicatesMemSize(e.Dups) + errSize(e.Err)
		for _, fl := range e.Fields {
			n += int64(len(fl.Key)+len(fl.Value)) + int64(cap(fl.Items))*int64(unsafe.Sizeof(Item{}))
			for _, it := range fl.Items {
				n += int64(len(it.Value))
			}
		}
	}
	return n
}

func errSize(e *yamlx.SyntaxError) int64 {
	if e == nil {
		return 0
	}
	return int64(unsafe.Sizeof(*e)) + int64(len(e.Msg))
}

// MemSize is the memory of a master config's top-level chunks.
func (c chunked) MemSize() int64 { return yamlx.ChunksMemSize(c.Chunks) }

// MemSize is the memory of a parsed YAML document.
func (d yamlDoc) MemSize() int64 { return yamlx.NodeMemSize(d.Node) }
