package graph

import (
	"fmt"
	"slices"
	"strings"
)

// Text is the walk as braid links prints it: the start, then one line a
// step with its distance, the types of the edges that reached it and the
// path to it ("→", or "←" for a reverse walk).
func (l *Links) Text() string {
	var b strings.Builder
	arrow, dir := "→", "links"
	if l.Reverse {
		arrow, dir = "←", "backlinks"
	}
	name := l.Doc.Path
	if name == "" {
		name = l.Doc.ID
	}
	fmt.Fprintf(&b, "%s: %d %s (depth %d)\n", name, len(l.Links), dir, l.Depth)
	width := 0
	for _, s := range l.Links {
		width = max(width, len(s.relations()))
	}
	for _, s := range l.Links {
		fmt.Fprintf(&b, "  %d %-*s  %s%s\n", s.Depth, width, s.relations(), strings.Join(s.Via[1:], " "+arrow+" "), s.note())
	}
	return b.String()
}

// relations names the types of a step's edges, each once.
func (s Step) relations() string {
	var types []string
	for _, e := range s.Edges {
		if !slices.Contains(types, e.Type) {
			types = append(types, e.Type)
		}
	}
	return strings.Join(types, ",")
}

// note says what a step reached when it is not a plain document.
func (s Step) note() string {
	line := 0
	if len(s.Edges) > 0 {
		line = s.Edges[0].Line
	}
	switch {
	case s.Broken:
		return fmt.Sprintf("  [broken, line %d]", line)
	case s.Target != "":
		return "  [file, not indexed]"
	case s.Title != "" && !strings.HasPrefix(s.ID, "#") && s.Title != strings.TrimSuffix(s.Path[strings.LastIndexByte(s.Path, '/')+1:], ".md"):
		return fmt.Sprintf("  (%s)", s.Title)
	}
	return ""
}

// Text lists a document's neighbours as braid get --graph prints them
// after its text: "→" for what it links to, "←" for what links to it,
// each with its distance and the edge types that reached it.
func (r *Related) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n── related (depth %d): %d linked, %d linking here ──\n", r.Depth, len(r.Links), len(r.Backlinks))
	for _, list := range []struct {
		arrow string
		steps []Step
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
			title := ""
			if s.Title != "" && s.Title != name {
				title = fmt.Sprintf("  %q", s.Title)
			}
			fmt.Fprintf(&b, "%s %d  %s%s  %s\n", list.arrow, s.Depth, name, title, s.relations())
		}
	}
	return b.String()
}

// String is the link as a compiler would point at it:
// "notes/a.md:12: CITES target". The target of [[target|label]] is the
// part before '|' (Edge.Target); the label (Edge.Alt, which the resolver
// tries too, for Dendron's [[label|target]]) is not printed, as it is no
// part of the name looked for. A link to a heading of its own note has
// only its heading: "#heading".
func (k Broken) String() string {
	target := k.Target
	switch {
	case target == "" && k.Alt != "":
		target = k.Alt
	case target == "" && k.Heading != "":
		target = "#" + k.Heading
	}
	return fmt.Sprintf("%s:%d: %s %s", k.Doc.Path, k.Line, k.Type, target)
}

// Text lists the pairs, each with the link that would join them.
func (r *GapReport) Text() string {
	var b strings.Builder
	for _, gp := range r.Gaps {
		from, to := gp.A.Path, gp.B.Path
		if gp.Suggest.From == gp.B.ID {
			from, to = to, from
		}
		fmt.Fprintf(&b, "%.3f  %s ↔ %s\n       add %s %s → %s: %s\n", gp.Similarity, gp.A.Path, gp.B.Path, gp.Suggest.Type, from, to, gp.Reason)
	}
	return b.String()
}
