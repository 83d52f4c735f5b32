package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
)

// GetCmd prints a document's file.
type GetCmd struct {
	Doc   string `arg:"" help:"Document id, path relative to its source (extension optional), content hash (or its first 8+ hex digits), or exact title."`
	Lines string `help:"Only lines A to B (1-based, inclusive; A: or :B leave a side open)." placeholder:"A:B"`
	Page  string `help:"Only page P of a PDF, or pages P-Q (1-based, inclusive), of its extracted text." placeholder:"P[-Q]"`
	Graph bool   `help:"Also list the documents it links to and those linking to it (the link graph, up to --depth steps)."`
	Depth int    `help:"With --graph: how many link steps to follow, 1..5." default:"1"`
}

// Run prints the document.
func (c *GetCmd) Run(g *Globals) error {
	from, to, err := parseLines(c.Lines)
	if err != nil {
		return err
	}
	e, done, err := g.open(true, "braid get")
	if err != nil {
		return err
	}
	defer done()
	content, err := e.Notes().Get(g.ctx, g.docName(c.Doc))
	if err != nil {
		return err
	}
	if content.Changed {
		g.warn("%s changed since it was indexed; run braid index to refresh the index", g.displayPath(content.File))
	}
	if c.Page != "" {
		if c.Lines != "" {
			return fmt.Errorf("--page and --lines both choose lines; give one")
		}
		if from, to, err = content.Doc.PageRange(c.Page); err != nil {
			return fmt.Errorf("--page %q: %w", c.Page, err)
		}
	}
	text, at, total := content.Slice(braid.Lines{Start: from, End: to})
	if at.Start == 0 {
		return fmt.Errorf("--lines %s starts past the end: %s has %d lines", c.Lines, content.Doc.Path, total)
	}
	var rel *graph.Related
	if c.Graph {
		if rel, err = e.Graph().Related(content.Doc.ID, c.Depth); err != nil {
			return err
		}
	}
	if g.JSON {
		d := content.Doc
		out := map[string]any{
			"id": d.ID, "path": d.Path, "title": d.Title, "file": content.File, "changed": content.Changed,
			"lines": map[string]int{"start": at.Start, "end": at.End}, "content": text,
			"pages": d.Pages,
			"tags":  d.Tags, "frontmatter": d.Frontmatter, "hash": d.Hash,
		}
		if rel != nil {
			out["graph"] = rel // graph.Related
		}
		return g.printJSON(out)
	}
	fmt.Fprint(g.stdout, text)
	if rel != nil {
		fmt.Fprint(g.stdout, rel.Text())
	}
	return nil
}

// parseLines reads "A:B", "A:", ":B" or "A"; empty means every line.
func parseLines(s string) (from, to int, err error) {
	if s == "" {
		return 1, 0, nil
	}
	bad := fmt.Errorf("--lines %q: want A:B with 1 <= A <= B (e.g. 10:20)", s)
	a, b, found := strings.Cut(s, ":")
	if !found {
		b = a
	}
	from, to = 1, 0
	if a != "" {
		if from, err = strconv.Atoi(a); err != nil || from < 1 {
			return 0, 0, bad
		}
	}
	if b != "" {
		if to, err = strconv.Atoi(b); err != nil || to < from {
			return 0, 0, bad
		}
	}
	return from, to, nil
}
