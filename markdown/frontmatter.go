package markdown

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

var bom = []byte("\xef\xbb\xbf")

// frontmatterBlock finds a YAML frontmatter block: the file starts with a
// line "---" and a later line is "---" or "...". It returns the YAML text's
// offsets, the offset of the body and the body's 1-based first line.
func frontmatterBlock(src []byte) (yamlStart, yamlStop, bodyOff, bodyLine int, ok bool) {
	off := 0
	if bytes.HasPrefix(src, bom) {
		off = len(bom)
	}
	first, next := lineAt(src, off)
	if string(first) != "---" {
		return 0, 0, 0, 0, false
	}
	yamlStart = next
	line := 2
	for i := next; i < len(src); line++ {
		l, n := lineAt(src, i)
		if s := string(l); s == "---" || s == "..." {
			return yamlStart, i, n, line + 1, true
		}
		i = n
	}
	return 0, 0, 0, 0, false
}

// lineAt returns the line starting at src[i], without its line ending and
// trailing blanks, and the offset of the next line.
func lineAt(src []byte, i int) (line []byte, next int) {
	j := bytes.IndexByte(src[i:], '\n')
	if j < 0 {
		next = len(src)
	} else {
		next = i + j + 1
		j += i
	}
	if j < 0 {
		j = len(src)
	}
	return bytes.TrimRight(src[i:j], " \t\r"), next
}

// frontmatter parses the frontmatter block, if any, and sets the body offset.
func (p *parser) frontmatter() {
	ys, ye, bodyOff, bodyLine, ok := frontmatterBlock(p.src)
	if !ok {
		return
	}
	p.bodyOff, p.doc.BodyStart = bodyOff, bodyLine
	p.decodeFrontmatter(p.src[ys:ye])
}

func (p *parser) decodeFrontmatter(y []byte) {
	defer func() {
		if r := recover(); r != nil {
			p.doc.Frontmatter = nil
			p.warn("frontmatter: yaml decoder failed: %v", r)
		}
	}()
	var root yaml.Node
	if err := yaml.Unmarshal(y, &root); err != nil {
		p.warn("frontmatter: %v", err)
		return
	}
	if root.Kind == 0 { // empty or only comments
		p.doc.Frontmatter = map[string]any{}
		return
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		p.warn("frontmatter: not a mapping of keys to values")
		return
	}
	m := root.Content[0]
	if written, expanded := yamlSize(m); expanded > 2*written+maxAliasGrowth {
		p.warn("frontmatter: its YAML aliases would expand %d values to more than %d; the frontmatter is not read", written, expanded-1)
		return
	}
	fm := map[string]any{}
	if err := m.Decode(&fm); err != nil {
		// Keys that are not strings, or a value that fails alone: decode
		// key by key and keep what can be kept.
		fm = map[string]any{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			var v any
			if err := m.Content[i+1].Decode(&v); err != nil {
				p.warn("frontmatter: key %q: %v", m.Content[i].Value, err)
				continue
			}
			fm[m.Content[i].Value] = v
		}
	}
	for k, v := range fm {
		fm[k] = stringKeys(v, 0)
	}
	p.doc.Frontmatter = fm

	p.doc.Aliases = stringList(fm["aliases"], false)
	if n := len(p.doc.Aliases); n > MaxAliases {
		p.doc.Aliases, p.doc.Dropped.Aliases = p.doc.Aliases[:MaxAliases:MaxAliases], n-MaxAliases
	}
	for _, t := range stringList(fm["tags"], true) {
		p.addTag(t)
	}
	// Frontmatter lines: the YAML text starts on line 2 of the file.
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := m.Content[i].Value
		p.frontmatterLinks(key, m.Content[i+1], 0)
	}
}

// maxAliasGrowth is how many values YAML aliases may add to a frontmatter
// beyond doubling it. yaml.v3 stops an alias bomb only past about 4 million
// values per decode, and values decoded key by key each start afresh: 200
// KB of "kN: *c" lines, c a list of 729 values by aliases, decoded to 14
// million strings (900 MB). With this limit decoding stays linear in the
// size of the YAML.
const maxAliasGrowth = 10_000

// yamlSize returns how many nodes the tree under n has as written, and as
// decoding would expand its aliases, that one counted only up to just past
// 2*written+maxAliasGrowth. An alias to a node that contains it counts as
// past the limit.
func yamlSize(n *yaml.Node) (written, expanded int) {
	limit := -1
	sizes := map[*yaml.Node]int{}
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if s, ok := sizes[n]; ok {
			return s
		}
		sizes[n] = limit // in progress: an alias back to it loops
		s := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s += size(n.Alias)
		}
		for _, c := range n.Content {
			s += size(c)
			if s > limit {
				s = limit
			}
		}
		sizes[n] = s
		return s
	}
	var count func(n *yaml.Node) int
	count = func(n *yaml.Node) int {
		c := 1
		for _, k := range n.Content {
			c += count(k)
		}
		return c
	}
	written = count(n)
	limit = 2*written + maxAliasGrowth + 1
	return written, size(n)
}

// frontmatterLinks adds a FrontmatterLink for every [[wikilink]] in the
// string values under n.
func (p *parser) frontmatterLinks(key string, n *yaml.Node, depth int) {
	if depth > 64 {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		// The text of a literal block (key: |) starts on the line after
		// its indicator and keeps its line breaks.
		literal := n.Style&yaml.LiteralStyle != 0
		p.wikiLinksIn(key, n.Value, n.Line+1, literal)
	case yaml.SequenceNode:
		// An unquoted [[page]] is YAML for a list holding a list holding
		// "page": take it as the wikilink its author meant.
		if n.Style&yaml.FlowStyle != 0 && len(n.Content) == 1 {
			c := n.Content[0]
			if c.Kind == yaml.SequenceNode && c.Style&yaml.FlowStyle != 0 && len(c.Content) == 1 &&
				c.Content[0].Kind == yaml.ScalarNode && c.Content[0].Tag == "!!str" {
				p.wikiLinksIn(key, "[["+c.Content[0].Value+"]]", n.Line+1, false)
				return
			}
		}
		for _, c := range n.Content {
			p.frontmatterLinks(key, c, depth+1)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			p.frontmatterLinks(key, n.Content[i], depth+1)
		}
	}
}

func (p *parser) wikiLinksIn(key, s string, line int, literal bool) {
	if literal {
		line++
	}
	for {
		i := strings.Index(s, "[[")
		if i < 0 {
			return
		}
		j := strings.Index(s[i+2:], "]]")
		if j < 0 {
			return
		}
		j += i + 2
		k := i + strings.LastIndex(s[i:j], "[[")
		if literal {
			line += strings.Count(s[:k], "\n")
		}
		if l, ok := parseWikiLink(s[k+2 : j]); ok {
			l.Kind, l.Key, l.Line = FrontmatterLink, valid([]byte(key)), line
			p.addLink(l)
		}
		if literal {
			line += strings.Count(s[k:j+2], "\n")
		}
		s = s[j+2:]
	}
}

// stringList reads a frontmatter value that is a string or a list of
// scalars. With split, a string is split at commas and spaces.
func stringList(v any, split bool) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" {
			out = append(out, strings.ToValidUTF8(s, "\uFFFD"))
		}
	}
	switch v := v.(type) {
	case nil:
	case string:
		if split {
			for _, s := range splitTags(v) {
				add(s)
			}
		} else {
			add(v)
		}
	case []any:
		for _, e := range v {
			switch e := e.(type) {
			case nil, []any, map[string]any, map[any]any:
			default:
				add(fmt.Sprint(e))
			}
		}
	case map[string]any, map[any]any:
	default:
		add(fmt.Sprint(v))
	}
	return out
}

// stringKeys turns the map[any]any that yaml.v3 makes of a mapping with
// non-string keys into map[string]any, at any depth, so that Frontmatter
// always encodes to JSON. A map or list nested deeper than 100 levels
// becomes its text.
func stringKeys(v any, depth int) any {
	if depth > 100 {
		switch v.(type) {
		case map[any]any, map[string]any, []any:
			return fmt.Sprint(v)
		}
		return v
	}
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = stringKeys(e, depth+1)
		}
		return m
	case map[string]any:
		for k, e := range v {
			v[k] = stringKeys(e, depth+1)
		}
	case []any:
		for i, e := range v {
			v[i] = stringKeys(e, depth+1)
		}
	}
	return v
}
