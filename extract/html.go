package extract

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTML converts an HTML page to markdown (headings, lists, tables, links
// as markdown links), with the text of its <title> as Title and as a
// first heading when the page has none. A page nested deeper than
// MaxDepth gives ErrOverLimit, as does one whose tree would hold over
// MaxNodes nodes: the conversion recurses, and each node costs a few
// hundred bytes in the tree and again in the conversion.
func HTML(data []byte) (*Doc, error) { return htmlDoc(data, htmlNodes(data)) }

// htmlDoc is HTML of a page whose nodes htmlNodes counted.
func htmlDoc(data []byte, nodes int) (*Doc, error) {
	title, md, err := htmlMarkdown(data, nodes)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(md)) == 0 {
		return nil, fmt.Errorf("%w: the page has no text", ErrNoText)
	}
	if bytes.HasPrefix(md, []byte("---")) {
		md = append([]byte(`\`), md...) // not frontmatter
	}
	return &Doc{Title: title, Text: md}, nil
}

// HTMLMarkdown is HTML's conversion as the download of a web page uses it:
// the page's title and its markdown.
func HTMLMarkdown(data []byte) (string, []byte, error) {
	return htmlMarkdown(data, htmlNodes(data))
}

func htmlMarkdown(data []byte, nodes int) (string, []byte, error) {
	if nodes > MaxNodes {
		return "", nil, fmt.Errorf("%w: HTML whose tree would hold over %d elements and texts", ErrOverLimit, MaxNodes)
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil && strings.Contains(err.Error(), "exceeds") {
		return "", nil, fmt.Errorf("%w: HTML nested over the %d-element limit (%v)", ErrOverLimit, MaxDepth, err)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if d, n := depth(doc); d > MaxDepth {
		return "", nil, fmt.Errorf("%w: HTML nested %d elements deep, over the %d limit", ErrOverLimit, d, MaxDepth)
	} else if n > MaxNodes {
		return "", nil, fmt.Errorf("%w: HTML of %d elements and texts, over the %d limit", ErrOverLimit, n, MaxNodes)
	}
	title := strings.TrimSpace(findTitle(doc))
	md, err := htmltomarkdown.ConvertNode(doc)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if title != "" && !bytes.HasPrefix(bytes.TrimSpace(md), []byte("# ")) {
		md = append([]byte("# "+oneLine(title)+"\n\n"), md...)
	}
	return oneLine(title), md, nil
}

// depth is the deepest nesting below n, and the nodes in it, counted
// without recursion; it stops counting past MaxDepth.
func depth(n *html.Node) (deepest, nodes int) {
	type at struct {
		n *html.Node
		d int
	}
	stack := []at{{n, 0}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		deepest = max(deepest, top.d)
		if top.d > MaxDepth {
			return top.d, nodes
		}
		for c := top.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, at{c, top.d + 1})
		}
	}
	return deepest, nodes
}

// findTitle is the text of the first <title>, found without recursion.
func findTitle(doc *html.Node) string {
	stack := []*html.Node{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode && n.Data == "title" {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			return b.String()
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return ""
}

// htmlNodes is about how many nodes html.Parse would make of data, found
// by tokenizing it, without building the tree, and counted until past
// MaxNodes. Each tag, text, comment and doctype makes one node; besides,
// a start tag or a text reopens the formatting elements (<b>, <font>...)
// that were closed around it but are still active (HTML's "reconstruct
// the active formatting elements"), so "<font><p>" repeated makes several
// elements a repetition. The list of active formatting elements is
// followed as the parser keeps it, with at most three alike (its "Noah's
// Ark" clause), markers at table cells, captions and objects, and end tags
// removing the last of their name; each of its entries since the last
// marker counts as a node each time, which is an upper bound: an entry
// still open is not reopened.
func htmlNodes(data []byte) int {
	type entry struct {
		tag    atom.Atom // 0 for a marker
		family uint64    // the tag and its attributes
	}
	var (
		afe   []entry
		nodes int
		seed  = maphash.MakeSeed()
	)
	// active is how many entries follow the last marker: the ones a
	// reconstruction may reopen.
	active := func() int {
		n := 0
		for i := len(afe) - 1; i >= 0 && afe[i].tag != 0; i-- {
			n++
		}
		return n
	}
	z := html.NewTokenizer(bytes.NewReader(data))
	for nodes <= MaxNodes {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return nodes
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := atom.Lookup(name)
			switch {
			case formatting(tag):
				for i := len(afe) - 1; i >= 0 && afe[i].tag != 0; i-- {
					if afe[i].tag == tag {
						afe = append(afe[:i], afe[i+1:]...)
						break
					}
				}
			case marker(tag):
				i := len(afe) - 1
				for i >= 0 && afe[i].tag != 0 {
					i--
				}
				afe = afe[:max(i, 0)]
			}
			continue
		case html.CommentToken, html.DoctypeToken:
			nodes++
			continue
		case html.TextToken:
			nodes += 1 + active()
			continue
		}
		// A start tag.
		name, more := z.TagName()
		tag := atom.Lookup(name)
		nodes += 1 + active()
		switch {
		case marker(tag):
			afe = append(afe, entry{})
		case formatting(tag):
			var h maphash.Hash
			h.SetSeed(seed)
			h.Write(name)
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				h.Write(k)
				h.WriteByte(0)
				h.Write(v)
				h.WriteByte(0)
			}
			e := entry{tag, h.Sum64()}
			alike, first := 0, -1
			for i := len(afe) - 1; i >= 0 && afe[i].tag != 0; i-- {
				if afe[i] == e {
					alike, first = alike+1, i
				}
			}
			if alike >= 3 {
				afe = append(afe[:first], afe[first+1:]...)
			}
			afe = append(afe, e)
		}
	}
	return nodes
}

// formatting reports whether tag is one of HTML's formatting elements.
func formatting(tag atom.Atom) bool {
	switch tag {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr, atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// marker reports whether tag puts a marker on the list of active
// formatting elements, which its end tag clears back to.
func marker(tag atom.Atom) bool {
	switch tag {
	case atom.Applet, atom.Object, atom.Marquee, atom.Template, atom.Td, atom.Th, atom.Caption:
		return true
	}
	return false
}
