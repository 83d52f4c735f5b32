package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// TagStyle says where AddTags writes tags.
type TagStyle string

// The styles of AddTags.
const (
	// TagFrontmatter merges tags into the frontmatter "tags" key, adding
	// the key, or a frontmatter block, when there is none.
	TagFrontmatter TagStyle = "frontmatter"
	// TagComment merges tags into a <!-- tags: … --> comment, adding one at
	// the end of the file when there is none.
	TagComment TagStyle = "comment"
)

var (
	// ErrBadTag is returned, wrapped with the tag, for a tag that the
	// tag rule (see the package documentation) would not read back.
	ErrBadTag = errors.New("markdown: not a valid tag")
	// ErrTagPlace is returned, wrapped with the reason, when tags cannot be
	// added without changing more of the file than the tags themselves
	// (broken frontmatter YAML, a "tags" value written as a block scalar,
	// a file that ends inside a code block).
	ErrTagPlace = errors.New("markdown: cannot add tags to this file in place")
)

// AddTags returns src with tags added in the given style (empty means
// TagFrontmatter), and the tags it added: those the file already has
// (compared case-insensitively, wherever in the file they are) are left
// out, and when none is left out is src itself. The result is src with one
// run of bytes inserted and nothing else changed: line endings follow the
// file's (CRLF stays CRLF), a missing final newline stays missing. A flow
// list (tags: [a, b]) grows in place, a block list gets new "- tag" lines
// indented like its last item, a string (tags: a b) gets ", c" appended.
// The result is parsed before it is returned: when it does not read back
// with every old and new tag and everything else as before, AddTags
// returns ErrTagPlace instead.
func AddTags(src []byte, tags []string, style TagStyle) (out []byte, added []string, err error) {
	off, text, added, err := tagInsertion(src, tags, style)
	if err != nil || len(added) == 0 {
		return src, nil, err
	}
	out = make([]byte, 0, len(src)+len(text))
	out = append(append(append(out, src[:off]...), text...), src[off:]...)
	if err := sameBut(src, out, added); err != nil {
		return src, nil, err
	}
	return out, added, nil
}

// CleanTag returns tag without a leading '#', and whether the result is a
// tag that the tag rule reads back whole.
func CleanTag(tag string) (string, bool) {
	t := strings.TrimPrefix(strings.TrimSpace(tag), "#")
	if t == "" || !utf8.ValidString(t) {
		return t, false
	}
	b := []byte("#" + t)
	return t, tagAt(b, 0, len(b)) == len(b)
}

// tagInsertion works out where the new tags go and what is inserted there.
func tagInsertion(src []byte, tags []string, style TagStyle) (off int, text string, added []string, err error) {
	have := map[string]bool{}
	for _, t := range Parse("note.md", src).Tags {
		have[strings.ToLower(t)] = true
	}
	for _, t := range tags {
		c, ok := CleanTag(t)
		if !ok {
			return 0, "", nil, fmt.Errorf("%w: %q (want letters, digits and _-/., not all digits)", ErrBadTag, t)
		}
		if !have[strings.ToLower(c)] {
			have[strings.ToLower(c)] = true
			added = append(added, c)
		}
	}
	if len(added) == 0 {
		return 0, "", nil, nil
	}
	switch style {
	case TagFrontmatter, "":
		off, text, err = frontmatterInsertion(src, added)
	case TagComment:
		off, text, err = commentInsertion(src, added)
	default:
		err = fmt.Errorf("markdown: tag style %q, want %q or %q", style, TagFrontmatter, TagComment)
	}
	return off, text, added, err
}

// eol is the line ending of the line that ends at or after src[i]; "\n"
// when there is none.
func eol(src []byte, i int) string {
	j := bytes.IndexByte(src[min(i, len(src)):], '\n')
	if j < 0 {
		return "\n"
	}
	if j += i; j > 0 && src[j-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// eolBefore is the line ending of the line that ends just before src[i].
func eolBefore(src []byte, i int) string {
	if i >= 2 && src[i-1] == '\n' && src[i-2] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// yamlItem writes tag as a YAML scalar: plain when YAML reads it back as
// the same string in a flow and a block list, double-quoted otherwise
// (true, null, 0x1F, 1e3 …). Tags hold no quotes or backslashes.
func yamlItem(tag string) string {
	for _, doc := range []string{"[" + tag + "]", "- " + tag} {
		var v []any
		if yaml.Unmarshal([]byte(doc), &v) != nil || len(v) != 1 || v[0] != any(tag) {
			return `"` + tag + `"`
		}
	}
	return tag
}

func flowList(tags []string) string {
	items := make([]string, len(tags))
	for i, t := range tags {
		items[i] = yamlItem(t)
	}
	return strings.Join(items, ", ")
}

func frontmatterInsertion(src []byte, tags []string) (int, string, error) {
	ys, ye, _, _, ok := frontmatterBlock(src)
	if !ok {
		off := 0
		if bytes.HasPrefix(src, bom) {
			off = len(bom)
		}
		nl := eol(src, 0)
		return off, "---" + nl + "tags: [" + flowList(tags) + "]" + nl + "---" + nl, nil
	}
	y := src[ys:ye]
	var root yaml.Node
	if err := yaml.Unmarshal(y, &root); err != nil {
		return 0, "", fmt.Errorf("%w: the frontmatter is not valid YAML (%v); fix it or use the comment style", ErrTagPlace, err)
	}
	missing := func() (int, string, error) {
		return ye, "tags: [" + flowList(tags) + "]" + eolBefore(src, ye), nil
	}
	if root.Kind == 0 {
		return missing()
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return 0, "", fmt.Errorf("%w: the frontmatter is not a mapping of keys to values", ErrTagPlace)
	}
	m := root.Content[0]
	var key, val *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == "tags" {
			key, val = m.Content[i], m.Content[i+1]
		}
	}
	if key == nil {
		return missing()
	}
	pos := positions(y)
	at := func(n *yaml.Node) int { return ys + pos.offset(n.Line, n.Column) }
	switch {
	case val.Kind == yaml.SequenceNode && val.Style&yaml.FlowStyle != 0:
		open := at(val)
		end := closeFlow(src[:ye], open)
		if end < 0 {
			break
		}
		last := lastNonSpace(src, open+1, end)
		switch {
		case last < 0:
			return open + 1, flowList(tags), nil
		case src[last] == ',':
			return last + 1, " " + flowList(tags), nil
		default:
			return last + 1, ", " + flowList(tags), nil
		}
	case val.Kind == yaml.SequenceNode && len(val.Content) > 0:
		item := val.Content[len(val.Content)-1]
		if item.Kind != yaml.ScalarNode || strings.Contains(item.Value, "\n") {
			break
		}
		start := ys + pos.offset(item.Line, 1)
		prefix := string(src[start:at(item)])
		if strings.Trim(prefix, " -") != "" || strings.Count(prefix, "-") != 1 {
			break
		}
		end := bytes.IndexByte(src[start:], '\n') + start
		if end > start && src[end-1] == '\r' {
			end--
		}
		nl := eol(src, start)
		var b strings.Builder
		for _, t := range tags {
			b.WriteString(nl + prefix + yamlItem(t))
		}
		return end, b.String(), nil
	case val.Kind == yaml.ScalarNode && val.Tag == "!!null" && val.Value == "":
		colon := keyColon(src[:ye], at(key))
		if colon < 0 {
			break
		}
		if rest := strings.TrimSpace(string(lineRest(src, colon+1))); rest != "" && !strings.HasPrefix(rest, "#") {
			break // ~ or null
		}
		return colon + 1, " [" + flowList(tags) + "]", nil
	case val.Kind == yaml.ScalarNode && val.Style == 0 && val.Tag != "!!null":
		start := at(val)
		if !bytes.HasPrefix(src[start:], []byte(val.Value)) || strings.Contains(val.Value, "\n") {
			break
		}
		return start + len(val.Value), ", " + strings.Join(tags, ", "), nil
	case val.Kind == yaml.ScalarNode && (val.Style == yaml.DoubleQuotedStyle || val.Style == yaml.SingleQuotedStyle):
		start := at(val)
		end := closeQuote(src[:ye], start)
		if end < 0 {
			break
		}
		sep := ", "
		if strings.TrimSpace(val.Value) == "" {
			sep = ""
		}
		return end, sep + strings.Join(tags, ", "), nil
	}
	return 0, "", fmt.Errorf("%w: write the frontmatter tags as a list (tags: [a, b]) or use the comment style", ErrTagPlace)
}

// positions converts yaml.v3 line and column numbers (1-based, columns
// counted in characters) into byte offsets of the YAML text.
type positions []byte

func (p positions) offset(line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		j := bytes.IndexByte(p[off:], '\n')
		if j < 0 {
			return len(p)
		}
		off += j + 1
	}
	for c := 1; c < col && off < len(p) && p[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(p[off:])
		off += size
	}
	return off
}

// closeFlow returns the offset of the ']' that closes the flow sequence
// opening at src[open], or -1.
func closeFlow(src []byte, open int) int {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return i
			}
		case '"', '\'':
			if j := closeQuote(src, i); j >= 0 {
				i = j
			} else {
				return -1
			}
		case '#':
			if i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n') {
				return -1 // a comment inside the list: leave it to a person
			}
		}
	}
	return -1
}

// closeQuote returns the offset of the quote that closes the quoted scalar
// opening at src[open], or -1.
func closeQuote(src []byte, open int) int {
	q := src[open]
	for i := open + 1; i < len(src); i++ {
		switch {
		case q == '"' && src[i] == '\\':
			i++
		case src[i] == q && q == '\'' && i+1 < len(src) && src[i+1] == '\'':
			i++
		case src[i] == q:
			return i
		}
	}
	return -1
}

// lastNonSpace returns the offset of the last byte in src[from:to] that is
// not white space, or -1.
func lastNonSpace(src []byte, from, to int) int {
	for i := to - 1; i >= from; i-- {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return i
		}
	}
	return -1
}

// keyColon returns the offset of the ':' after the plain or quoted key
// that starts at src[start], or -1.
func keyColon(src []byte, start int) int {
	i := start
	if i < len(src) && (src[i] == '"' || src[i] == '\'') {
		if i = closeQuote(src, i); i < 0 {
			return -1
		}
		i++
	} else {
		i += len("tags")
	}
	for ; i < len(src) && (src[i] == ' ' || src[i] == '\t'); i++ {
	}
	if i < len(src) && src[i] == ':' {
		return i
	}
	return -1
}

// lineRest returns src from i to the end of its line.
func lineRest(src []byte, i int) []byte {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return src[i : i+j]
	}
	return src[i:]
}

func commentInsertion(src []byte, tags []string) (int, string, error) {
	list := strings.Join(tags, ", ")
	_, _, bodyOff, _, _ := frontmatterBlock(src)
	// Grow the last tag comment the parser reads (one inside code is not).
	var cands []int
	for i := bodyOff; ; {
		j := bytes.Index(src[i:], []byte("<!--"))
		if j < 0 {
			break
		}
		i += j + 4
		k := bytes.Index(src[i:], []byte("-->"))
		if k < 0 {
			break
		}
		inner := bytes.TrimLeft(src[i:i+k], " \t\r\n")
		if len(inner) >= 5 && strings.EqualFold(string(inner[:5]), "tags:") {
			cands = append(cands, i, i+k)
		}
		i += k + 3
	}
	for c := len(cands) - 2; c >= 0; c -= 2 {
		last := lastNonSpace(src, cands[c], cands[c+1])
		var off int
		var text string
		switch src[last] {
		case ':', ',':
			off, text = last+1, " "+list
		default:
			off, text = last+1, ", "+list
		}
		out := append(append(append([]byte(nil), src[:off]...), text...), src[off:]...)
		if sameBut(src, out, tags) == nil {
			return off, text, nil
		}
	}
	nl := eol(src, 0)
	comment := "<!-- tags: " + list + " -->"
	switch {
	case len(src) == 0 || (len(src) == len(bom) && bytes.Equal(src, bom)):
		return len(src), comment + nl, nil
	case bytes.HasSuffix(src, []byte("\n\n")) || bytes.HasSuffix(src, []byte("\n\r\n")):
		return len(src), comment + nl, nil
	case src[len(src)-1] == '\n':
		return len(src), nl + comment + nl, nil
	default: // no final newline: the file still ends without one
		return len(src), nl + nl + comment, nil
	}
}

// sameBut checks that after reads as before with tags added: the same
// title, frontmatter (tags aside), headings and links, and every tag of
// before and of tags.
func sameBut(before, after []byte, tags []string) error {
	b, a := Parse("note.md", before), Parse("note.md", after)
	fail := func(what string) error {
		return fmt.Errorf("%w: with the tags added the file would read differently (%s)", ErrTagPlace, what)
	}
	for _, t := range append(slices.Clone(b.Tags), tags...) {
		if !slices.Contains(a.Tags, t) {
			return fail("tag " + t + " would not be read")
		}
	}
	if len(a.Warnings) > len(b.Warnings) {
		return fail(strings.Join(a.Warnings, "; "))
	}
	if a.Title != b.Title {
		return fail("title")
	}
	if b.Frontmatter != nil || a.Frontmatter != nil {
		if b.Frontmatter == nil && len(a.Frontmatter) != 1 {
			return fail("frontmatter")
		}
		if len(a.Frontmatter) != len(b.Frontmatter) && len(a.Frontmatter) != len(b.Frontmatter)+1 {
			return fail("frontmatter keys")
		}
		for k, v := range b.Frontmatter {
			if w, ok := a.Frontmatter[k]; k != "tags" && (!ok || !reflect.DeepEqual(v, w)) {
				return fail("frontmatter key " + k)
			}
		}
	}
	if len(a.Headings) != len(b.Headings) || len(a.Links) != len(b.Links) {
		return fail("headings or links")
	}
	for i, h := range b.Headings {
		if a.Headings[i].Text != h.Text || a.Headings[i].Level != h.Level {
			return fail("headings")
		}
	}
	for i, l := range b.Links {
		al := a.Links[i]
		if al.Kind != l.Kind || al.Target != l.Target || al.Alt != l.Alt || al.Heading != l.Heading || al.Key != l.Key {
			return fail("links")
		}
	}
	return nil
}
