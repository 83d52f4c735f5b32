package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxDepth is the deepest Walk goes.
const MaxDepth = 5

// ErrDepth is returned, wrapped with the value, for a depth outside
// 1..MaxDepth.
var ErrDepth = errors.New("graph: depth out of range")

// WalkOptions says which edges Walk follows. The zero value follows every
// edge forward, one step.
type WalkOptions struct {
	// Relation keeps only edges of this type (CITES, LINKS_TO, EMBEDS,
	// TAGGED_AS or a frontmatter key such as supersededBy), compared
	// without case; empty means every type.
	Relation string
	// Depth is how many steps to go, 1..MaxDepth; 0 means 1.
	Depth int
	// Reverse follows edges backwards: the documents that link to the
	// start (backlinks), then those that link to them, and so on.
	Reverse bool
}

// Step is one node that Walk reached: a document, a tag ("#tag"), a file
// that is not a document, or a broken target.
type Step struct {
	Node
	// Target is the link text of a broken target, the path of a file that
	// is not a document; empty for documents and tags.
	Target string `json:"target,omitempty"`
	Broken bool   `json:"broken,omitempty"`
	// Depth is the number of steps from the start, 1 for its neighbours.
	Depth int `json:"depth"`
	// Via names the nodes from the start to this one, both included:
	// document paths, #tags, targets.
	Via []string `json:"via"`
	// Edges are the edges between the node before this one on Via and this
	// one (for a reverse walk, written in this one), in the order written.
	Edges []Edge `json:"edges"`
}

// Walk goes breadth-first from a document (or, backwards, from a "#tag")
// and returns every node it reaches, each once, at its shortest distance,
// nearest first and in the order edges are written.
func (r *Reader) Walk(start string, opt WalkOptions) ([]Step, error) {
	depth := opt.Depth
	if depth == 0 {
		depth = 1
	}
	if depth < 1 || depth > MaxDepth {
		return nil, fmt.Errorf("%w: %d, want 1..%d", ErrDepth, opt.Depth, MaxDepth)
	}
	first, err := r.Node(start)
	if err != nil {
		return nil, err
	}
	if first == nil {
		return nil, fmt.Errorf("graph: no node %q", start)
	}
	seen := map[string]bool{nodeKey(start): true}
	via := map[string][]string{start: {display(first.Path, start)}}
	frontier := []string{start}
	var steps []Step
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []string
		for _, id := range frontier {
			edges, err := r.edges(id, opt.Reverse)
			if err != nil {
				return nil, err
			}
			var order []string
			groups := map[string][]Edge{}
			for _, e := range edges {
				if opt.Relation != "" && !strings.EqualFold(e.Type, opt.Relation) {
					continue
				}
				k := r.far(e, opt.Reverse)
				if _, ok := groups[k]; !ok {
					order = append(order, k)
				}
				groups[k] = append(groups[k], e)
			}
			for _, k := range order {
				if seen[nodeKey(k)] {
					continue
				}
				seen[nodeKey(k)] = true
				s, err := r.step(k, groups[k], opt.Reverse)
				if err != nil {
					return nil, err
				}
				s.Depth = d
				s.Via = append(slices.Clip(via[id]), display(s.Path, k))
				steps = append(steps, s)
				if s.ID != "" && !IsTag(s.ID) {
					via[k] = s.Via
					next = append(next, k)
				}
			}
		}
		frontier = next
	}
	return steps, nil
}

func (r *Reader) edges(id string, reverse bool) ([]Edge, error) {
	if reverse {
		return r.In(id)
	}
	if IsTag(id) {
		return nil, nil
	}
	return r.Out(id)
}

// far returns the key of the node at the other end of an edge: a document
// id, "#tag", "file:path" or "?target", the target of [[target|label]]
// being the part before '|' (as Broken.String prints it).
func (r *Reader) far(e Edge, reverse bool) string {
	switch {
	case reverse:
		return e.From
	case e.To != "":
		return e.To
	case e.File != "":
		return "file:" + e.File
	}
	if e.Target == "" {
		return "?" + e.Alt
	}
	return "?" + e.Target
}

// nodeKey makes tags and broken targets match without case.
func nodeKey(k string) string {
	if IsTag(k) || strings.HasPrefix(k, "?") {
		return strings.ToLower(k)
	}
	return k
}

func display(path, key string) string {
	if path != "" {
		return path
	}
	if t, ok := strings.CutPrefix(key, "?"); ok {
		return t
	}
	return strings.TrimPrefix(key, "file:")
}

func (r *Reader) step(k string, edges []Edge, reverse bool) (Step, error) {
	s := Step{Edges: edges}
	switch {
	case strings.HasPrefix(k, "?"):
		s.Target, s.Broken = k[1:], true
	case strings.HasPrefix(k, "file:"):
		s.Target = k[len("file:"):]
	default:
		n, err := r.Node(k)
		if err != nil {
			return s, err
		}
		if n != nil {
			s.Node = *n
		}
	}
	return s, nil
}

// Broken is a link that no document answers to.
type Broken struct {
	Doc Node `json:"doc"` // the document it is written in
	Edge
}

// Broken returns every edge (tags aside) whose target no document answers
// to, by the path of the document it is written in, then by line.
func (r *Reader) Broken() ([]Broken, error) {
	var out []Broken
	err := r.ForEachEdge(func(e Edge) error {
		if e.Type == TaggedAs || !e.Broken() {
			return nil
		}
		rec, err := r.record(e.From)
		if err != nil {
			return err
		}
		out = append(out, Broken{Doc: rec.Node, Edge: e})
		return nil
	})
	slices.SortStableFunc(out, func(a, b Broken) int {
		return cmp.Or(cmp.Compare(a.Doc.Path, b.Doc.Path), cmp.Compare(a.Doc.ID, b.Doc.ID), cmp.Compare(a.Line, b.Line))
	})
	return out, err
}

// Linked returns the pairs of documents joined by an edge either way, as
// a set keyed by Pair.
func (r *Reader) Linked() (map[Pair]bool, error) {
	out := map[Pair]bool{}
	err := r.ForEachEdge(func(e Edge) error {
		if e.To != "" && !IsTag(e.To) && e.To != e.From {
			out[MakePair(e.From, e.To)] = true
		}
		return nil
	})
	return out, err
}

// Pair is two document ids, the smaller first.
type Pair [2]string

// MakePair orders a and b into a Pair.
func MakePair(a, b string) Pair {
	if b < a {
		a, b = b, a
	}
	return Pair{a, b}
}

// Orphans returns the documents that no edge joins to another document,
// neither way, by path. Tags, broken links and links to themselves do not
// count.
func (r *Reader) Orphans() ([]Node, error) {
	linked, err := r.Linked()
	if err != nil {
		return nil, err
	}
	joined := map[string]bool{}
	for p := range linked {
		joined[p[0]], joined[p[1]] = true, true
	}
	var out []Node
	err = r.ForEachNode(func(n *Node) error {
		if !joined[n.ID] {
			out = append(out, *n)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Node) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.ID, b.ID)) })
	return out, err
}
