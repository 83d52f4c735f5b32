package cli

import (
	"errors"
	"fmt"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
)

// LinksCmd walks the link graph.
type LinksCmd struct {
	Doc      string `arg:"" optional:"" help:"Document id, path relative to its source (extension optional), title or alias; with --reverse also a #tag."`
	Relation string `help:"Follow only edges of this type: CITES, LINKS_TO, EMBEDS, TAGGED_AS or a frontmatter key such as supersededBy (any case)." placeholder:"TYPE"`
	Depth    int    `help:"Steps to follow, 1 to 5." default:"1" placeholder:"N"`
	Reverse  bool   `help:"Follow links backwards: the documents that link to DOC (backlinks)."`
	Broken   bool   `help:"List every link whose target no indexed document (or file) answers to."`
	Orphans  bool   `help:"List the documents that no link joins to another document, either way."`
}

// Run prints what the walk or the check found.
func (c *LinksCmd) Run(g *Globals) error {
	switch {
	case c.Broken && c.Orphans:
		return errors.New("--broken and --orphans are separate lists; ask for one at a time")
	case (c.Broken || c.Orphans) && (c.Doc != "" || c.Reverse || c.Relation != ""):
		return errors.New("--broken and --orphans check the whole graph: give no DOC, --reverse or --relation with them")
	case !c.Broken && !c.Orphans && c.Doc == "":
		return errors.New("name a document (braid links DOC), or ask for --broken or --orphans")
	}
	if c.Broken || c.Orphans {
		return g.withReader("braid links", func(e *braid.Engine) error {
			if c.Broken {
				list, err := e.Graph().BrokenLinks()
				return printList(g, "broken", "broken link", list, err, graph.Broken.String)
			}
			list, err := e.Graph().Orphans()
			return printList(g, "orphans", "orphan", list, err, func(n graph.Node) string { return n.Path })
		})
	}
	return g.show("braid links", func(e *braid.Engine) (texter, error) {
		return e.Graph().Links(g.docName(c.Doc), graph.LinkOptions{Relation: c.Relation, Depth: c.Depth, Reverse: c.Reverse})
	})
}

// printList prints a whole-graph list: JSON {key: items, "count": n}, else
// a line an item and, unless --quiet, the count on stderr.
func printList[T any](g *Globals, key, noun string, items []T, err error, line func(T) string) error {
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(map[string]any{key: items, "count": len(items)})
	}
	for _, it := range items {
		fmt.Fprintln(g.stdout, line(it))
	}
	if !g.Quiet {
		fmt.Fprintln(g.stderr, counted(len(items), noun))
	}
	return nil
}

// GapsCmd lists similar documents that are not linked.
type GapsCmd struct {
	Limit     int     `help:"Pairs to list." default:"10" placeholder:"N"`
	Threshold float64 `help:"Least similarity, 0..1 (default 0.8 with embeddings, 0.3 for the lexical fallback)." placeholder:"S"`
	Neighbors int     `help:"Nearest documents each document is compared with." default:"10" placeholder:"N"`
}

// Run prints the pairs.
func (c *GapsCmd) Run(g *Globals) error {
	e, done, err := g.openWith(true, "braid gaps")
	if err != nil {
		return err
	}
	defer done()
	rep, err := e.Graph().Gaps(g.ctx, graph.GapOptions{Limit: c.Limit, Threshold: c.Threshold, Neighbors: c.Neighbors})
	if err != nil {
		return err
	}
	if rep.Warning != "" {
		g.warn("%s", rep.Warning)
	}
	if err := g.print(rep, rep.Text); err != nil {
		return err
	}
	if !g.Quiet && !g.JSON {
		fmt.Fprintf(g.stderr, "%d pairs of %d documents at least %.2f similar (%s) in %d ms\n", len(rep.Gaps), rep.Documents, rep.Threshold, rep.Method, rep.TookMS)
	}
	return nil
}
