package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/braidsearch/braid"
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
	return g.withReader("braid links", func(e *braid.Engine) error {
		switch {
		case c.Broken:
			return c.broken(g, e)
		case c.Orphans:
			return c.orphans(g, e)
		}
		res, err := e.Graph().Links(g.docName(c.Doc), braid.LinkOptions{Relation: c.Relation, Depth: c.Depth, Reverse: c.Reverse})
		if err != nil {
			return err
		}
		if g.JSON {
			return g.printJSON(res)
		}
		arrow, dir := "→", "links"
		if c.Reverse {
			arrow, dir = "←", "backlinks"
		}
		name := res.Doc.Path
		if name == "" {
			name = res.Doc.ID
		}
		fmt.Fprintf(g.stdout, "%s: %d %s (depth %d)\n", name, len(res.Links), dir, res.Depth)
		width := 0
		for _, s := range res.Links {
			width = max(width, len(relations(s.Edges)))
		}
		for _, s := range res.Links {
			fmt.Fprintf(g.stdout, "  %d %-*s  %s%s\n", s.Depth, width, relations(s.Edges), strings.Join(s.Via[1:], " "+arrow+" "), stepNote(s))
		}
		return nil
	})
}

// relations names the types of a step's edges, each once.
func relations(edges []braid.Edge) string {
	var types []string
	for _, e := range edges {
		if !slices.Contains(types, e.Type) {
			types = append(types, e.Type)
		}
	}
	return strings.Join(types, ",")
}

// stepNote says what a step reached when it is not a plain document.
func stepNote(s braid.Step) string {
	line := 0
	if len(s.Edges) > 0 {
		line = s.Edges[0].Line
	}
	switch {
	case s.Broken:
		return fmt.Sprintf("  [broken, line %d]", line)
	case s.Target != "":
		return "  [file, not indexed]"
	case s.Title != "" && !strings.HasPrefix(s.ID, "#") && s.Title != strings.TrimSuffix(lastPart(s.Path), ".md"):
		return fmt.Sprintf("  (%s)", s.Title)
	}
	return ""
}

func lastPart(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func (c *LinksCmd) broken(g *Globals, e *braid.Engine) error {
	list, err := e.Graph().BrokenLinks()
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(map[string]any{"broken": list, "count": len(list)})
	}
	for _, b := range list {
		target := b.Target
		if b.Alt != "" {
			target += "|" + b.Alt
		}
		fmt.Fprintf(g.stdout, "%s:%d: %s %s\n", b.Doc.Path, b.Line, b.Type, target)
	}
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "%d broken links\n", len(list))
	}
	return nil
}

func (c *LinksCmd) orphans(g *Globals, e *braid.Engine) error {
	list, err := e.Graph().Orphans()
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(map[string]any{"orphans": list, "count": len(list)})
	}
	for _, n := range list {
		fmt.Fprintln(g.stdout, n.Path)
	}
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "%d orphans\n", len(list))
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
	rep, err := e.Graph().Gaps(g.ctx, braid.GapOptions{Limit: c.Limit, Threshold: c.Threshold, Neighbors: c.Neighbors})
	if err != nil {
		return err
	}
	if rep.Warning != "" {
		g.warn("%s", rep.Warning)
	}
	if g.JSON {
		return g.printJSON(rep)
	}
	for _, gp := range rep.Gaps {
		from, to := gp.A.Path, gp.B.Path
		if gp.Suggest.From == gp.B.ID {
			from, to = to, from
		}
		fmt.Fprintf(g.stdout, "%.3f  %s ↔ %s\n       add %s %s → %s: %s\n", gp.Similarity, gp.A.Path, gp.B.Path, gp.Suggest.Type, from, to, gp.Reason)
	}
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "%d pairs of %d documents at least %.2f similar (%s) in %d ms\n", len(rep.Gaps), rep.Documents, rep.Threshold, rep.Method, rep.TookMS)
	}
	return nil
}
