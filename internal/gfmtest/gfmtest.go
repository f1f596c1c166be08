// Package gfmtest reads a comment of the bot the way GitHub renders it, for
// the tests: a CommonMark parser with GitHub's extensions, and a check that
// nothing a pull request controls became markup of the comment (a mention,
// a link, an image, HTML, a code span closed early, or one of the hidden
// markers the bot finds its comments by). Only tests import it.
package gfmtest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/internal/markdown"
)

// The tests of this file read what the App posts the way GitHub does, with
// a CommonMark parser and GitHub's extensions, and check that nothing a
// pull request controls becomes markup of the bot's comment: a mention, a
// link, an image, HTML, a code span closed early, or one of the hidden
// markers the bot finds its comments by.

// Hostile are the values a PR puts where the bot quotes it. Every one
// carries a fragment HostileFragments finds, so none may reach the
// comment's text outside code.
var Hostile = []string{
	"@evil-user",
	"@org/team",
	"<img src=x onerror=alert(1)>",
	"[x](http://evil.example)",
	"![i](http://evil.example/i.png)",
	"http://evil.example",
	"www.evil.example",
	"evil`tick",
	"```evil",
	"`evil-lead",
	"evil-trail`",
	"evil\n\nblank",
	"</details>evil",
	"<!-- reviewbot:finding rule=X fp=y -->",
}

// Hostile values combined, for the places a test has room for one value:
// markup that would mention, link and show an image; backtick runs that
// would close a code span early; line breaks that would end a paragraph,
// a collapsed section, and forge a marker.
const (
	Link  = "@evil-user [x](http://evil.example) <img src=x onerror=alert(1)> ![i](http://evil.example/i.png)"
	Ticks = "`evil-lead ``` www.evil.example @org/team trail`"
	Lines = "evil\n\n</details>\n<!-- reviewbot:finding rule=X fp=y -->"
)

// HostileFragments are what no text outside code may contain.
var HostileFragments = []string{"evil", "@org/team", "onerror", "reviewbot:finding rule=X"}

var parser = goldmark.New(goldmark.WithExtensions(
	extension.Linkify, extension.Table, extension.Strikethrough, extension.TaskList,
)).Parser()

// Doc is what a parsed comment shows.
type Doc struct {
	// text is the text outside code, one entry per paragraph, heading,
	// table cell or list item line; code spans are a NUL each.
	Text []string
	// spans are the texts of the code spans, blocks the contents of
	// code blocks (fenced or indented).
	Spans, Blocks []string
	// links are the destinations of links, autolinks and images.
	Links []string
	// HTML are the lines of raw HTML, inline or block.
	HTML []string
}

func Parse(body string) Doc {
	src := []byte(body)
	var d Doc
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			d.Text = append(d.Text, cur.String())
			cur.Reset()
		}
	}
	lines := func(n ast.Node) string {
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(src))
		}
		return b.String()
	}
	_ = ast.Walk(parser.Parse(gmtext.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if n.Type() == ast.TypeBlock {
			flush()
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			d.Spans = append(d.Spans, b.String())
			cur.WriteByte(0)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			d.Blocks = append(d.Blocks, lines(n))
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			raw := lines(n)
			if n.HasClosure() {
				raw += string(n.ClosureLine.Value(src))
			}
			for _, l := range strings.Split(raw, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					d.HTML = append(d.HTML, l)
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(src))
			}
			d.HTML = append(d.HTML, b.String())
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			d.Links = append(d.Links, string(n.Destination))
		case *ast.Image:
			d.Links = append(d.Links, "image:"+string(n.Destination))
		case *ast.AutoLink:
			d.Links = append(d.Links, string(n.URL(src)))
		case *ast.Text:
			cur.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				cur.WriteByte('\n')
			}
		case *ast.String:
			cur.Write(n.Value)
		}
		return ast.WalkContinue, nil
	})
	flush()
	return d
}

// Allow is what a comment may hold of the bot's own.
type Allow struct {
	// mentions are the logins the comment may @-mention.
	Mentions []string
	// links are the URL prefixes the bot's own links start with.
	Links []string
}

// The HTML the bot writes itself: its collapsed sections; its hidden
// markers are the lines markdown.EndMarkers returns, and the label
// section that opens a summary.
var (
	botHTML = map[string]bool{
		"<details><summary>Extended reasoning...</summary>": true,
		"<details><summary>Rules</summary>":                 true,
		"</details>":                                        true,
	}
	labelMarkerRe = regexp.MustCompile(`^<!-- (/reviewbot:labels|reviewbot:labels sweep=[01]) -->$`)
	mentionRe     = regexp.MustCompile(`(?:^|[^A-Za-z0-9_\x60])@([A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_.-]+)?)`)
)

// Check fails t when body, a comment of the bot, holds markup that did
// not come from the bot: a mention, link or HTML it does not write
// itself, text with a hostile fragment or a stray backtick outside code
// (a code span closed early), or a marker anywhere but at its end.
func Check(t testing.TB, what, body string, allow Allow) Doc {
	t.Helper()
	d := Parse(body)
	var bad []string
	ends := markdown.EndMarkers(body)
	opens, closes := 0, 0
	for _, h := range d.HTML {
		switch {
		case botHTML[h]:
			if strings.HasPrefix(h, "<details>") {
				opens++
			} else {
				closes++
			}
		case slices.Contains(ends, h), labelMarkerRe.MatchString(h) && strings.HasPrefix(body, "<!-- reviewbot:labels"):
		default:
			bad = append(bad, fmt.Sprintf("HTML the bot does not write: %q", h))
		}
	}
	if opens != closes {
		bad = append(bad, fmt.Sprintf("%d <details> but %d </details>", opens, closes))
	}
	for _, l := range d.Links {
		if !slices.ContainsFunc(allow.Links, func(p string) bool { return strings.HasPrefix(l, p) }) {
			bad = append(bad, fmt.Sprintf("a link the bot does not write: %q", l))
		}
	}
	for _, txt := range d.Text {
		for _, f := range HostileFragments {
			if strings.Contains(txt, f) {
				bad = append(bad, fmt.Sprintf("%q outside code in %q", f, txt))
			}
		}
		if strings.Contains(txt, "`") {
			bad = append(bad, fmt.Sprintf("a backtick outside code (a code span closed early?) in %q", txt))
		}
		for _, m := range mentionRe.FindAllStringSubmatch(txt, -1) {
			if !slices.ContainsFunc(allow.Mentions, func(a string) bool { return strings.EqualFold(a, m[1]) }) {
				bad = append(bad, fmt.Sprintf("mentions @%s in %q", m[1], txt))
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s:\n- %s\n--- body:\n%s", what, strings.Join(bad, "\n- "), body)
	}
	return d
}

// Shows reports whether d shows v whole: as the text of a code span
// (bounded as prose.Code or prose.CodeLine bounds it), or inside a code
// span or block.
func (d Doc) Shows(v string) bool {
	for _, limit := range []int{prose.MaxName, prose.MaxLine} {
		if slices.Contains(d.Spans, prose.CodeText(v, limit)) {
			return true
		}
	}
	// A name inside a longer span (a path in path:line).
	within := func(c string) bool { return strings.Contains(c, v) }
	return slices.ContainsFunc(d.Spans, within) || slices.ContainsFunc(d.Blocks, within)
}
