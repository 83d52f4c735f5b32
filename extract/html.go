package extract

import (
	"bytes"
	"fmt"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"
)

// HTML converts an HTML page to markdown (headings, lists, tables, links
// as markdown links), with the text of its <title> as Title and as a
// first heading when the page has none. A page nested deeper than
// MaxDepth gives ErrOverLimit: the conversion recurses.
func HTML(data []byte) (*Doc, error) {
	title, md, err := HTMLMarkdown(data)
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
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil && strings.Contains(err.Error(), "exceeds") {
		return "", nil, fmt.Errorf("%w: HTML nested over the %d-element limit (%v)", ErrOverLimit, MaxDepth, err)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if d := depth(doc); d > MaxDepth {
		return "", nil, fmt.Errorf("%w: HTML nested %d elements deep, over the %d limit", ErrOverLimit, d, MaxDepth)
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

// depth is the deepest nesting below n, counted without recursion.
func depth(n *html.Node) int {
	deepest := 0
	type at struct {
		n *html.Node
		d int
	}
	stack := []at{{n, 0}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, top.d)
		if top.d > MaxDepth {
			return top.d
		}
		for c := top.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, at{c, top.d + 1})
		}
	}
	return deepest
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
