package markdown

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Doc is what ingest needs from one markdown file.
type Doc struct {
	// Title is the frontmatter "title", else the text of a level-1 heading
	// that opens the body (nothing but blank lines before it), else the file
	// name without its extension — as in Obsidian and SilverBullet, where a
	// page is named by its file and a later "# Heading" is a section.
	Title string
	// Frontmatter holds every top-level YAML key, with values as yaml.v3
	// decodes them into any. It is nil when the file has no frontmatter block
	// or its YAML does not decode to a mapping, and empty (not nil) for an
	// empty block.
	Frontmatter map[string]any
	// Aliases is the frontmatter "aliases": a string (one alias) or a list.
	Aliases []string
	// Tags are the frontmatter "tags" (a list, or a string separated by
	// commas or spaces), inline #tags, [tag: a] and [tags: a, b] in text,
	// and <!-- tags: a, b --> comments, without '#', deduplicated (case-sensitive), in first-seen order:
	// frontmatter first, then the body in document order.
	Tags []string
	// Headings lists every heading in document order.
	Headings []Heading
	// Links lists every link: frontmatter links first, then the body's in
	// document order.
	Links []Link
	// BodyStart is the 1-based line where the body starts: the line after
	// the closing frontmatter delimiter, or 1 when there is no frontmatter.
	// It may be one past the last line when the file holds only frontmatter.
	BodyStart int
	// Warnings describes problems that did not stop parsing, such as
	// frontmatter that is not valid YAML.
	Warnings []string
	// Dropped counts what Parse found past its caps and left out: distinct
	// tags past MaxTags, links past MaxLinks, headings past MaxHeadings,
	// aliases past MaxAliases (the first ones in document order are kept),
	// and the title, heading and link texts it cut to MaxText bytes. It is
	// zero for any real note.
	Dropped Counts
}

// Counts says how many tags, links, headings and aliases Parse left out,
// and how many texts it cut.
type Counts struct {
	Tags, Links, Headings, Aliases, Cut int
}

// Any reports whether any count is above zero.
func (c Counts) Any() bool { return c != Counts{} }

// The caps of Parse on one document. Past them further tags, links,
// headings and aliases are only counted, in Doc.Dropped, and a longer
// title, heading text or link text is cut, so that what one hostile file costs to index (a
// tag is stored with every chunk of its document, a link is an edge of the
// graph, a heading starts a chunk, the title and the enclosing headings are
// indexed with every chunk, an alias is a name of the graph) stays in
// proportion to its size. No real note comes near them: the largest of the
// 1,239 notes of the SilverBullet and Dendron documentation have 19 tags,
// 222 links and 303 headings, and their longest title and heading have
// 110 and 129 bytes.
const (
	MaxTags     = 1_000
	MaxLinks    = 20_000
	MaxHeadings = 10_000
	MaxAliases  = 1_000
	MaxText     = 500 // bytes of a title, a heading's text or a link's text
)

// Heading is one ATX (# Title) or setext (Title / ===) heading.
type Heading struct {
	Level int    // 1..6
	Text  string // plain text, inline markup stripped
	Line  int    // 1-based line in the original file (frontmatter included)
}

// LinkKind says what syntax a Link came from.
type LinkKind string

// The kinds of Link.
const (
	WikiLink        LinkKind = "wikilink"    // [[target]], [[target#heading]], [[a|b]]
	Embed           LinkKind = "embed"       // ![[target]]
	MarkdownLink    LinkKind = "markdown"    // [text](dest), ![alt](dest), <autolink>
	FrontmatterLink LinkKind = "frontmatter" // a [[wikilink]] inside a frontmatter string value
)

// Link is one outgoing reference of a document.
type Link struct {
	Kind LinkKind
	// Target is, for wikilinks, embeds and frontmatter links, the part before
	// '|' with any "#heading" removed (Obsidian puts the target first); for
	// markdown links, the destination with backslash escapes and character
	// references resolved (percent-encoding is kept as written).
	Target string
	// Alt is the part after '|' of [[a|b]] (Dendron puts the target last),
	// with any "#heading" removed when Target had none; "" otherwise.
	Alt string
	// Heading is the "#heading" or "#^block" part of a wikilink, without '#'.
	Heading string
	// Text is the plain link text of a markdown link (the alt text of an
	// image), cut to MaxText bytes.
	Text string
	// Key is the top-level frontmatter key of a FrontmatterLink.
	Key string
	// Line is the 1-based line in the original file.
	Line int
}

// md is safe for concurrent use: goldmark keeps per-parse state in a context.
var md = goldmark.New()

// Parse extracts everything ingest needs from one markdown file. name is the
// file name, used for the fallback title. Parse never panics and never fails:
// problems such as broken frontmatter YAML are reported in Doc.Warnings and
// the rest of the file is still parsed.
func Parse(name string, src []byte) *Doc {
	return parse(name, src, maxRunLines)
}

// parse is Parse with the longest stretch of lines goldmark parses in one
// piece as a parameter, so tests can compare pieces with the whole.
func parse(name string, src []byte, maxRun int) *Doc {
	p := &parser{src: src, doc: &Doc{BodyStart: 1}, seenTags: map[string]bool{}, maxRun: maxRun}
	p.lineStarts = lineStarts(src)
	p.frontmatter()
	p.body()
	p.title(name)
	return p.doc
}

type parser struct {
	src        []byte
	lineStarts []int // byte offset of the start of each line
	doc        *Doc
	seenTags   map[string]bool
	maxRun     int // see maxRunLines
	bodyOff    int // offset of the body in src
	h1         string
}

func (p *parser) warn(format string, args ...any) {
	p.doc.Warnings = append(p.doc.Warnings, "markdown: "+fmt.Sprintf(format, args...))
}

// lineStarts returns the byte offset at which each line starts. Lines end at
// '\n'; a "\r\n" ending therefore counts as one line break.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// blankBefore reports whether the body holds only blank lines before line:
// a level-1 heading there names the page; one further down is a section.
func (p *parser) blankBefore(line int) bool {
	end := len(p.src)
	if line-1 < len(p.lineStarts) {
		end = p.lineStarts[line-1]
	}
	return p.bodyOff <= end && len(bytes.TrimSpace(p.src[p.bodyOff:end])) == 0
}

// line returns the 1-based line holding byte offset off of src.
func (p *parser) line(off int) int {
	return sort.SearchInts(p.lineStarts, off+1)
}

func (p *parser) addTag(t string) {
	t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#"))
	if t == "" {
		return
	}
	t = strings.ToValidUTF8(t, "\uFFFD")
	if p.seenTags[t] {
		return
	}
	p.seenTags[t] = true
	if len(p.doc.Tags) == MaxTags {
		p.doc.Dropped.Tags++
		return
	}
	p.doc.Tags = append(p.doc.Tags, t)
}

// cut returns s cut to at most MaxText bytes, ending in "…" when cut, and
// counts it in Dropped.Cut.
func (p *parser) cut(s string) string {
	if len(s) <= MaxText {
		return s
	}
	p.doc.Dropped.Cut++
	n := MaxText - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n]) + "…"
}

// full reports whether the document has MaxLinks links, and then counts
// one more as dropped: the caller need not work out the link.
func (p *parser) full() bool {
	if len(p.doc.Links) < MaxLinks {
		return false
	}
	p.doc.Dropped.Links++
	return true
}

// addLink records a link, or counts it as dropped past MaxLinks.
func (p *parser) addLink(l Link) {
	if !p.full() {
		p.doc.Links = append(p.doc.Links, l)
	}
}

func (p *parser) title(name string) {
	d := p.doc
	if t, ok := d.Frontmatter["title"]; ok && t != nil {
		switch t.(type) {
		case map[string]any, map[any]any, []any:
		default:
			d.Title = strings.TrimSpace(strings.ToValidUTF8(fmt.Sprint(t), "\uFFFD"))
		}
	}
	d.Title = p.cut(d.Title)
	if d.Title == "" {
		d.Title = p.h1
	}
	if d.Title == "" {
		d.Title = strings.TrimSuffix(name, path.Ext(name))
		if d.Title == "" {
			d.Title = name
		}
		d.Title = strings.ToValidUTF8(d.Title, "\uFFFD")
	}
}

// body parses the markdown after the frontmatter with goldmark and collects
// headings, links and tags. A body with a very long stretch of lines
// without a blank line is parsed in pieces (see cuts); the pieces share
// one goldmark context, so a reference definition holds in the pieces
// after its own.
func (p *parser) body() {
	defer func() {
		if r := recover(); r != nil {
			p.warn("markdown parser failed: %v", r)
		}
	}()
	body := p.src[p.bodyOff:]
	flat := flatten(body) // what goldmark reads; the walker reads body
	pc := gmparser.NewContext()
	start := 0
	for _, end := range append(cuts(body, p.maxRun), len(body)) {
		w := walker{p: p, body: body[start:end], base: p.bodyOff + start}
		root := md.Parser().Parse(text.NewReader(flat[start:end]), gmparser.WithContext(pc))
		_ = ast.Walk(root, w.visit)
		w.flush()
		start = end
	}
}

// maxRunLines is the most lines without a blank line among them that
// goldmark parses in one piece. Its time grows with the square of a
// paragraph's lines once the paragraph holds many brackets or reference
// definitions (yuin/goldmark#596: 20,000 lines of [[wikilinks]] took 2 s,
// 80,000 lines of "[a]: /u" 5 s); in pieces of at most this many lines it
// grows linearly. Paragraphs in notes are far shorter; a long list without
// blank lines may be cut between two items, which changes nothing that
// Parse reports.
const maxRunLines = 500

// cuts returns the offsets of body at which to start a new goldmark piece:
// the start of a line after more than maxRun lines none of which is blank,
// never inside a fenced code block, and not before a line that starts with
// white space (a continuation or nested block) or one that could underline
// a setext heading. Most bodies have none.
func cuts(body []byte, maxRun int) []int {
	var out []int
	run := 0
	var fence byte // the character of the open code fence, 0 when none
	fenceLen := 0
	for off := 0; off < len(body); {
		end := len(body)
		if i := bytes.IndexByte(body[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := bytes.TrimRight(body[off:end], "\r\n")
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 {
			run = 0
		} else {
			if run >= maxRun && fence == 0 && len(trimmed) == len(line) && !underline(line) {
				out = append(out, off)
				run = 0
			}
			run++
		}
		if c, n := fenceAt(trimmed); n > 0 && len(line)-len(trimmed) < 4 {
			switch {
			case fence == 0:
				fence, fenceLen = c, n
			case c == fence && n >= fenceLen && len(bytes.Trim(trimmed, string(c))) == 0:
				fence = 0
			}
		}
		off = end
	}
	return out
}

// Nesting limits for goldmark, whose time grows with the square of the
// depth of nested block quotes and list items on a line (20,000 "- " on one
// line: 0.6 s; 500,000 "1. ": 145 s) and with its cube across lines (2,000
// ever deeper list items: 8 s). No note nests anywhere near this deep.
const (
	maxNesting = 32  // container markers (>, -, *, +, 1., 1)) at the start of one line
	maxIndent  = 128 // columns of indentation before a container marker
)

// flatten returns body, or when a line starts with more than maxNesting
// container markers or has one past column maxIndent, a copy of body in
// which the first such marker of each such line is replaced by 'x', so
// that goldmark reads the rest of the line as text. Offsets are unchanged,
// and the walker reads the original bytes.
func flatten(body []byte) []byte {
	out, copied := body, false
	for off := 0; off < len(body); {
		end := len(body)
		if i := bytes.IndexByte(body[off:], '\n'); i >= 0 {
			end = off + i
		}
		col, n := 0, 0
		for i := off; i < end; {
			switch body[i] {
			case ' ':
				col++
				i++
				continue
			case '\t':
				col += 4 - col%4
				i++
				continue
			}
			m := markerLen(body[i:end])
			if m == 0 {
				break
			}
			if n++; n > maxNesting || col > maxIndent {
				if !copied {
					out, copied = bytes.Clone(body), true
				}
				out[i+m-1] = 'x'
				break
			}
			i += m
			col += m
		}
		off = end + 1
	}
	return out
}

// markerLen returns the length of the block quote or list item marker that
// line starts with ('>', a bullet or a number with its '.' or ')', without
// the space after it), or 0.
func markerLen(line []byte) int {
	if len(line) == 0 {
		return 0
	}
	spaceAfter := func(i int) bool { return i == len(line) || line[i] == ' ' || line[i] == '\t' }
	switch c := line[0]; {
	case c == '>':
		return 1
	case c == '-' || c == '*' || c == '+':
		if spaceAfter(1) {
			return 1
		}
	case '0' <= c && c <= '9':
		i := 0
		for i < len(line) && i < 9 && '0' <= line[i] && line[i] <= '9' {
			i++
		}
		if i < len(line) && (line[i] == '.' || line[i] == ')') && spaceAfter(i+1) {
			return i + 1
		}
	}
	return 0
}

// fenceAt returns the character and length of a code fence (``` or ~~~,
// three or more) that line starts with, or 0 and 0.
func fenceAt(line []byte) (byte, int) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return line[0], n
}

// underline reports whether line could be a setext heading underline (a
// line of '=' or '-'), which must not start a piece.
func underline(line []byte) bool {
	t := bytes.TrimRight(line, " \t")
	return len(t) > 0 && (len(bytes.Trim(t, "=")) == 0 || len(bytes.Trim(t, "-")) == 0)
}

// walker visits the goldmark tree of one piece of the body. Offsets in the
// tree are relative to body, the piece; base converts them to offsets in
// the file.
type walker struct {
	p    *parser
	body []byte
	base int
	// run is the current stretch of contiguous Text segments, scanned for
	// wikilinks and #tags when it ends.
	runStart, runStop int
	inCode            int // depth of code spans
	// expr is the brace depth of an open SilverBullet ${…} expression: Lua
	// code, whose [[ and # are not links or tags. A new block closes it.
	expr int
}

func (w *walker) line(off int) int { return w.p.line(w.base + off) }

func (w *walker) visit(n ast.Node, entering bool) (ast.WalkStatus, error) {
	switch n := n.(type) {
	case *ast.CodeSpan:
		if entering {
			w.flush()
			w.inCode++
		} else {
			w.inCode--
		}
		return ast.WalkContinue, nil
	case *ast.Text:
		if entering && w.inCode == 0 {
			seg := n.Segment
			if seg.Start != w.runStop || w.runStop == w.runStart {
				w.flush()
				w.runStart = seg.Start
			}
			w.runStop = seg.Stop
			if n.SoftLineBreak() || n.HardLineBreak() {
				w.flush()
			}
		}
		return ast.WalkContinue, nil
	}
	if !entering {
		return ast.WalkContinue, nil
	}
	// Any other node ends a run of text.
	w.flush()
	if n.Type() == ast.TypeBlock {
		w.expr = 0
	}
	if w.expr > 0 {
		switch n.(type) {
		case *ast.Link, *ast.Image, *ast.AutoLink:
			return ast.WalkContinue, nil // Lua that looks like a link
		}
	}
	switch n := n.(type) {
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return ast.WalkSkipChildren, nil
	case *ast.Heading:
		if len(w.p.doc.Headings) == MaxHeadings {
			w.p.doc.Dropped.Headings++
			break
		}
		txt := w.p.cut(plainText(n, w.body))
		line := w.line(max(n.Pos(), 0))
		w.p.doc.Headings = append(w.p.doc.Headings, Heading{Level: n.Level, Text: txt, Line: line})
		if n.Level == 1 && len(w.p.doc.Headings) == 1 && w.p.blankBefore(line) {
			w.p.h1 = txt
		}
	case *ast.Link:
		if w.shortcutWikiLink(n) {
			return ast.WalkSkipChildren, nil
		}
		w.markdownLink(n, n.Destination)
	case *ast.Image:
		w.markdownLink(n, n.Destination)
	case *ast.AutoLink:
		w.p.addLink(Link{
			Kind:   MarkdownLink,
			Target: valid(n.URL(w.body)),
			Text:   valid(n.Label(w.body)),
			Line:   w.line(max(n.Pos(), 0)),
		})
	case *ast.HTMLBlock:
		segs := make([]text.Segment, 0, n.Lines().Len()+1)
		for i := 0; i < n.Lines().Len(); i++ {
			segs = append(segs, n.Lines().At(i))
		}
		if n.HasClosure() {
			segs = append(segs, n.ClosureLine)
		}
		var b []byte
		for _, seg := range segs {
			b = append(b, seg.Value(w.body)...)
		}
		w.tagComments(b)
		if n.HTMLBlockType == ast.HTMLBlockType6 || n.HTMLBlockType == ast.HTMLBlockType7 {
			w.htmlText(segs)
		}
	case *ast.RawHTML:
		var b []byte
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b = append(b, seg.Value(w.body)...)
		}
		w.tagComments(b)
	}
	return ast.WalkContinue, nil
}

// shortcutWikiLink handles [[x]] where a definition "[x]: url" made goldmark
// read the inner [x] as a shortcut reference link: it records the wikilink
// and reports true.
// markdownLink records a [text](dest) link or an ![alt](dest) image.
func (w *walker) markdownLink(n ast.Node, dest []byte) {
	if w.p.full() {
		return
	}
	w.p.doc.Links = append(w.p.doc.Links, Link{
		Kind:   MarkdownLink,
		Target: unescape(dest),
		Text:   w.p.cut(plainText(n, w.body)),
		Line:   w.line(max(n.Pos(), 0)),
	})
}

func (w *walker) shortcutWikiLink(n *ast.Link) bool {
	p := n.Pos()
	if n.Reference == nil || n.Reference.Type != ast.ReferenceLinkShortcut || p < 1 || w.body[p-1] != '[' {
		return false
	}
	line := w.body[p:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	end := bytes.Index(line, []byte("]]"))
	if end < 0 || bytes.IndexByte(line[1:end], ']') >= 0 {
		return false
	}
	l, ok := parseWikiLink(string(line[1:end]))
	if !ok {
		return false
	}
	l.Kind, l.Line = WikiLink, w.line(p-1)
	if p >= 2 && w.body[p-2] == '!' {
		l.Kind = Embed
	}
	w.p.addLink(l)
	return true
}

// htmlText scans the text between the tags of an HTML block such as
// <details> for wikilinks and tags, skipping comments and the tags
// themselves (with their attributes).
func (w *walker) htmlText(segs []text.Segment) {
	const (
		inText = iota
		inTag
		inComment
	)
	state := inText
	for _, seg := range segs {
		start := seg.Start
		for i := seg.Start; i < seg.Stop; {
			switch state {
			case inText:
				if w.body[i] != '<' {
					i++
					continue
				}
				if start < i {
					w.scan(start, i)
				}
				if bytes.HasPrefix(w.body[i:seg.Stop], []byte("<!--")) {
					state, i = inComment, i+4
				} else {
					state, i = inTag, i+1
				}
			case inTag:
				if j := bytes.IndexByte(w.body[i:seg.Stop], '>'); j >= 0 {
					state, i, start = inText, i+j+1, i+j+1
				} else {
					i = seg.Stop
				}
			case inComment:
				if j := bytes.Index(w.body[i:seg.Stop], []byte("-->")); j >= 0 {
					state, i, start = inText, i+j+3, i+j+3
				} else {
					i = seg.Stop
				}
			}
		}
		if state == inText && start < seg.Stop {
			w.scan(start, seg.Stop)
		}
	}
}

// flush scans the current text run for wikilinks and tags.
func (w *walker) flush() {
	if w.runStop > w.runStart {
		w.scan(w.runStart, w.runStop)
	}
	w.runStart, w.runStop = 0, 0
}

// scan finds [[wikilinks]], ![[embeds]] and #tags in body[start:stop], a
// stretch of plain text that holds no code.
func (w *walker) scan(start, stop int) {
	s := w.body[start:stop]
	noClose := false // no "]]" after the current position
	for i := 0; i < len(s); {
		if w.expr > 0 {
			switch s[i] {
			case '{':
				w.expr++
			case '}':
				w.expr--
			}
			i++
			continue
		}
		switch c := s[i]; {
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			w.expr = 1
			i += 2
		case c == '[' && i+1 < len(s) && s[i+1] == '[' && !noClose:
			j := bytes.Index(s[i+2:], []byte("]]"))
			if j < 0 {
				noClose = true
				i += 2
				continue
			}
			j += i + 2
			k := i + bytes.LastIndex(s[i:j], []byte("[["))
			kind := WikiLink
			if start+k > 0 && w.body[start+k-1] == '!' {
				kind = Embed
			}
			if l, ok := parseWikiLink(string(s[k+2 : j])); ok {
				l.Kind = kind
				l.Line = w.line(start + k)
				w.p.addLink(l)
			}
			i = j + 2
		case c == '[':
			i += w.bracketTags(s[i:])
		case c == '#':
			n := tagAt(w.body, start+i, stop)
			if n > 0 {
				w.p.addTag(string(w.body[start+i+1 : start+i+n]))
				i += n
			} else {
				i++
			}
		default:
			i++
		}
	}
}

// bracketTags adds the tags of a "[tag: a]" or "[tags: a, b]" at the start
// of s and returns its length, or 1 when s does not start with one.
func (w *walker) bracketTags(s []byte) int {
	body := s[1:]
	var n int
	for _, p := range []string{"tag:", "tags:"} {
		if len(body) >= len(p) && strings.EqualFold(string(body[:len(p)]), p) {
			n = len(p)
			break
		}
	}
	if n == 0 {
		return 1
	}
	end := bytes.IndexAny(body, "[]")
	if end < 0 || body[end] != ']' {
		return 1
	}
	for _, t := range splitTags(string(body[n:end])) {
		w.p.addTag(t)
	}
	return end + 2
}

// tagAt returns the length of the #tag starting at b[i] (including '#'), or
// 0 when there is none. A tag starts at the beginning of a line or after
// whitespace or '(', holds letters, digits and "_-/." ('.', '/' and '-' only
// between other tag characters, so "#tag." ends before the dot) and has at
// least one character other than a digit or '.'.
func tagAt(b []byte, i, stop int) int {
	if i > 0 {
		r, _ := utf8.DecodeLastRune(b[:i])
		if r != '(' && !isSpace(r) {
			return 0
		}
	}
	j, end := i+1, i+1
	nonDigit, pendingNonDigit := false, false
loop:
	for j < stop {
		r, size := utf8.DecodeRune(b[j:stop])
		switch {
		case r == '.':
		case r == '/' || r == '-':
			pendingNonDigit = true
		case r == '_' || isLetter(r):
			nonDigit = true
		case isDigit(r):
		default:
			break loop
		}
		j += size
		if r != '.' && r != '/' && r != '-' {
			end = j
			nonDigit = nonDigit || pendingNonDigit
		}
	}
	if end == i+1 || !nonDigit {
		return 0
	}
	return end - i
}

// tagComments adds the tags of every <!-- tags: a, b --> comment in b.
func (w *walker) tagComments(b []byte) {
	for {
		i := bytes.Index(b, []byte("<!--"))
		if i < 0 {
			return
		}
		b = b[i+4:]
		j := bytes.Index(b, []byte("-->"))
		body := b
		if j >= 0 {
			body, b = b[:j], b[j+3:]
		} else {
			b = nil
		}
		body = bytes.TrimSpace(body)
		if len(body) >= 5 && strings.EqualFold(string(body[:5]), "tags:") {
			for _, t := range splitTags(string(body[5:])) {
				w.p.addTag(t)
			}
		}
	}
}

// splitTags splits a tag list written as one string: "a, b c".
func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || isSpace(r) })
}

// parseWikiLink parses the inside of [[...]]. It reports false for a link
// without a target or heading.
func parseWikiLink(s string) (Link, bool) {
	var l Link
	target, alt, hasAlt := strings.Cut(s, "|")
	// Inside tables the pipe is escaped: [[a\|b]].
	target = strings.TrimSuffix(target, `\`)
	target, l.Heading, _ = strings.Cut(target, "#")
	if hasAlt {
		alt = strings.TrimSpace(alt)
		if h, a := cutHeading(alt); l.Heading == "" && h != "" {
			alt, l.Heading = a, h
		}
	}
	l.Target = valid([]byte(strings.TrimSpace(target)))
	l.Alt = valid([]byte(strings.TrimSpace(alt)))
	l.Heading = valid([]byte(strings.TrimSpace(l.Heading)))
	if l.Target == "" && l.Heading == "" && l.Alt == "" {
		return Link{}, false
	}
	return l, true
}

// cutHeading splits "page#heading" into its heading and page.
func cutHeading(s string) (heading, page string) {
	page, heading, ok := strings.Cut(s, "#")
	if !ok {
		return "", s
	}
	return heading, page
}

// plainText returns the text of n's inline children with markup stripped.
// It reads only about the first 2*MaxText bytes of text and 8,192 nodes:
// the text of a heading is cut to MaxText anyway, and nested images each
// read the alt text of all those inside them (500 images nested in 2 MB of
// text took 5 s).
func plainText(n ast.Node, src []byte) string {
	const maxBytes, maxNodes = 2 * MaxText, 8192
	var b []byte
	add := func(v []byte) {
		b = append(b, v[:min(len(v), max(maxBytes-len(b), 0))]...)
	}
	nodes := 0
	var rec func(n ast.Node)
	rec = func(n ast.Node) {
		for c := n.FirstChild(); c != nil && len(b) < maxBytes && nodes < maxNodes; c = c.NextSibling() {
			nodes++
			switch c := c.(type) {
			case *ast.Text:
				v := c.Segment.Value(src)
				add(util.UnescapePunctuations(v[:min(len(v), maxBytes)]))
				if c.SoftLineBreak() || c.HardLineBreak() {
					add([]byte{' '})
				}
			case *ast.String:
				add(c.Value)
			case *ast.AutoLink:
				add(c.Label(src))
			case *ast.RawHTML:
			default:
				rec(c)
			}
		}
	}
	rec(n)
	b = util.ResolveEntityNames(util.ResolveNumericReferences(b))
	return strings.TrimSpace(valid(b))
}

// unescape resolves backslash escapes and character references of a link
// destination.
func unescape(b []byte) string {
	b = util.UnescapePunctuations(b)
	b = util.ResolveNumericReferences(b)
	b = util.ResolveEntityNames(b)
	return valid(b)
}

func valid(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
