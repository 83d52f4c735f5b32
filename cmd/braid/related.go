package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/braidsearch/braid"
)

// printRelated lists a document's neighbours in the link graph after its
// text: "→" for what it links to, "←" for what links to it, each with its
// distance and the edge types that reached it.
func printRelated(g *Globals, r *braid.Related) {
	fmt.Fprintf(g.stdout, "\n── related (depth %d): %d linked, %d linking here ──\n", r.Depth, len(r.Links), len(r.Backlinks))
	for _, list := range []struct {
		arrow string
		steps []braid.Step
	}{{"→", r.Links}, {"←", r.Backlinks}} {
		for _, s := range list.steps {
			name := s.Path
			switch {
			case s.Broken:
				name = s.Target + " (broken)"
			case s.Path == "" && s.Target != "":
				name = s.Target
			case s.Path == "":
				name = s.ID // a #tag
			}
			var types []string
			for _, e := range s.Edges {
				if !slices.Contains(types, e.Type) {
					types = append(types, e.Type)
				}
			}
			title := ""
			if s.Title != "" && s.Title != name {
				title = fmt.Sprintf("  %q", s.Title)
			}
			fmt.Fprintf(g.stdout, "%s %d  %s%s  %s\n", list.arrow, s.Depth, name, title, strings.Join(types, ","))
		}
	}
}
