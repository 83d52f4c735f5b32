package braid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/markdown"
	"github.com/braidsearch/braid/vector"
)

// Edge types of the link graph; a frontmatter relation is typed by its key
// (dependsOn, supersededBy, related, …).
const (
	Cites    = graph.Cites
	LinksTo  = graph.LinksTo
	Embeds   = graph.Embeds
	TaggedAs = graph.TaggedAs
)

// Shared types of the link graph, defined beside the store that keeps it.
type (
	Edge       = graph.Edge
	GraphNode  = graph.Node
	Step       = graph.Step
	BrokenLink = graph.Broken
	Gap        = graph.Gap
	GapOptions = graph.GapOptions
	Suggestion = graph.Suggestion
	TagStyle   = markdown.TagStyle
)

// Where Tag writes tags.
const (
	TagFrontmatter = markdown.TagFrontmatter
	TagComment     = markdown.TagComment
)

// LinkGraph answers questions about the links between documents: what a
// document links to and what links to it, links whose target is missing,
// notes nothing links to, and gaps (similar notes without a link).
type LinkGraph struct{ e *Engine }

// Graph is the index's link graph.
func (e *Engine) Graph() *LinkGraph { return &LinkGraph{e} }

// LinkOptions says which links Links follows. The zero value lists a
// document's outgoing links, one step.
type LinkOptions struct {
	// Relation keeps only edges of this type: CITES, LINKS_TO, EMBEDS,
	// TAGGED_AS or a frontmatter key such as supersededBy (any case);
	// empty means all.
	Relation string
	// Depth is how many steps to follow, 1..5; 0 means 1.
	Depth int
	// Reverse follows links backwards: the documents linking to this one
	// (backlinks), then those linking to them.
	Reverse bool
}

// Links is what a walk of the link graph found.
type Links struct {
	Doc      GraphNode `json:"doc"` // where the walk started
	Relation string    `json:"relation,omitempty"`
	Depth    int       `json:"depth"`
	Reverse  bool      `json:"reverse"`
	// Links lists every node reached once, nearest first, with its
	// distance, the path to it and the edges that reached it.
	Links []Step `json:"links"`
}

// Links walks the link graph breadth-first from a document (named as
// Document accepts) or, with opt.Reverse, from a "#tag" to the documents
// tagged with it. Link targets resolve when read, so a link written before
// its target was indexed is followed once the target is.
func (g *LinkGraph) Links(name string, opt LinkOptions) (*Links, error) {
	e := g.e
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	depth := opt.Depth
	if depth == 0 {
		depth = 1
	}
	if depth < 1 || depth > graph.MaxDepth {
		return nil, fmt.Errorf("%w: depth %d out of range, want 1..%d", ErrBadOption, opt.Depth, graph.MaxDepth)
	}
	start := ""
	d, err := e.nt.Document(name)
	switch {
	case err == nil:
		start = d.ID
	case errors.Is(err, ErrNotFound) && strings.HasPrefix(name, "#") && len(name) > 1:
		start = name
	default:
		return nil, err
	}
	out := &Links{Relation: opt.Relation, Depth: depth, Reverse: opt.Reverse, Links: []Step{}}
	err = e.st.Graph(func(r *graph.Reader) error {
		r.Exists = e.fileExists()
		n, err := r.Node(start)
		if err != nil {
			return err
		}
		if n == nil {
			return fmt.Errorf("%w: document %s is not in the link graph; run braid doctor", ErrNotFound, start)
		}
		out.Doc = *n
		steps, err := r.Walk(start, graph.WalkOptions{Relation: opt.Relation, Depth: depth, Reverse: opt.Reverse})
		if steps != nil {
			out.Links = steps
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BrokenLinks lists every link (tags aside) that no indexed document
// answers to, and no file for a markdown link, by the path of the document
// it is written in and line. Links inside code are not links.
func (g *LinkGraph) BrokenLinks() ([]BrokenLink, error) {
	e := g.e
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	out := []BrokenLink{}
	err := e.st.Graph(func(r *graph.Reader) error {
		r.Exists = e.fileExists()
		b, err := r.Broken()
		out = append(out, b...)
		return err
	})
	return out, err
}

// Orphans lists the documents that no link joins to another document,
// either way, by path. Tags and broken links do not count as joins.
func (g *LinkGraph) Orphans() ([]GraphNode, error) {
	e := g.e
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	out := []GraphNode{}
	err := e.st.Graph(func(r *graph.Reader) error {
		o, err := r.Orphans()
		out = append(out, o...)
		return err
	})
	return out, err
}

// fileExists tells the graph whether a markdown link's target is a file of
// a directory source, documents aside.
func (e *Engine) fileExists() func(sourceID, path string) bool {
	dirs := map[string]string{}
	if srcs, err := e.st.Sources(); err == nil {
		for _, s := range srcs {
			if s.Kind == "dir" {
				dirs[s.ID] = s.Path
			}
		}
	}
	return func(sourceID, rel string) bool {
		dir, ok := dirs[sourceID]
		if !ok || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return false
		}
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		return err == nil
	}
}

// GapReport is what Gaps found.
type GapReport struct {
	Gaps []Gap `json:"gaps"`
	// Method is "embeddings" (cosine of document vectors: the mean of each
	// document's chunk embeddings) or "lexical" (tf-idf cosine of words).
	Method    string  `json:"method"`
	Threshold float64 `json:"threshold"`
	Documents int     `json:"documents"` // documents compared
	// Warning says why the method is lexical, or which documents were
	// left out.
	Warning string `json:"warning,omitempty"`
	TookMS  int64  `json:"took_ms"`
}

// Gaps finds pairs of documents that are at least opt.Threshold similar
// but not linked either way, best first, each with the words they share
// and a suggested link. Similarity is the cosine of document embeddings
// (the mean of each document's chunk vectors), each document compared with
// its nearest neighbours in an HNSW graph; without embeddings it is the
// tf-idf cosine of their words, and the report's Warning says so.
func (g *LinkGraph) Gaps(ctx context.Context, opt GapOptions) (*GapReport, error) {
	e := g.e
	if err := e.embeddedOnly("gaps"); err != nil {
		return nil, err
	}
	start := time.Now()
	var docs []graph.Doc
	at := map[string]int{}
	var linked map[graph.Pair]bool
	err := e.st.Graph(func(r *graph.Reader) error {
		err := r.ForEachNode(func(n *graph.Node) error {
			at[n.ID] = len(docs)
			docs = append(docs, graph.Doc{Node: *n})
			return nil
		})
		if err != nil {
			return err
		}
		linked, err = r.Linked()
		return err
	})
	if err != nil {
		return nil, err
	}
	rep := &GapReport{Method: "lexical", Gaps: []Gap{}}
	useVec := e.vec != nil && e.vec.Len() > 0
	switch {
	case e.vec == nil:
		rep.Warning = "no embeddings (" + e.noVectors() + "), so similarity is lexical: tf-idf cosine of words"
	case !useVec:
		rep.Warning = "the index has no embeddings yet (run braid index to compute them), so similarity is lexical: tf-idf cosine of words"
	}
	texts := make([]strings.Builder, len(docs))
	sums := make([][]float32, len(docs))
	chunked := make([]bool, len(docs)) // a note of frontmatter alone has no chunk, so no embedding to miss
	n := 0
	err = e.st.ForEachChunk(func(c *Chunk) error {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i, ok := at[c.DocID]
		if !ok {
			return nil
		}
		chunked[i] = true
		texts[i].WriteString(c.Text)
		texts[i].WriteByte('\n')
		if useVec {
			if v := e.vec.Vector(c.ID); v != nil {
				if sums[i] == nil {
					sums[i] = make([]float32, len(v))
				}
				for j, x := range v {
					sums[i][j] += x
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	kept := docs[:0]
	left := 0
	for i := range docs {
		docs[i].Text = texts[i].String()
		if useVec {
			if !nonZero(sums[i]) {
				if chunked[i] {
					left++
				}
				continue
			}
			docs[i].Vector = sums[i] // the graph normalises it
		}
		kept = append(kept, docs[i])
	}
	if left > 0 {
		rep.Warning = fmt.Sprintf("%d documents have no embedding yet and were left out (run braid index)", left)
	}
	gaps, vectors, err := graph.Gaps(kept, func(a, b string) bool { return linked[graph.MakePair(a, b)] }, nearest, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOption, err)
	}
	if vectors {
		rep.Method = "embeddings"
	}
	rep.Threshold = opt.Threshold
	if rep.Threshold == 0 {
		rep.Threshold = graph.DefaultLexicalThreshold
		if vectors {
			rep.Threshold = graph.DefaultThreshold
		}
	}
	rep.Gaps = append(rep.Gaps, gaps...)
	rep.Documents = len(kept)
	rep.TookMS = time.Since(start).Milliseconds()
	return rep, nil
}

func nonZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// nearest answers graph.Gaps' neighbour queries with an HNSW graph of the
// document vectors built for the call: ef of 64 gives the 10 nearest of
// 1,000 document vectors all but exactly, for a fraction of the cost of
// the chunk graph's settings.
func nearest(vecs [][]float32, k int) ([][]graph.Neighbor, error) {
	if len(vecs) == 0 {
		return nil, nil
	}
	idx := vector.New(len(vecs[0]), &vector.Options{M: 12, EfConstruction: 64, EfSearch: max(64, 2*k)})
	for i, v := range vecs {
		if err := idx.Add(strconv.Itoa(i), v); err != nil {
			return nil, fmt.Errorf("graph: document vector %d: %w", i, err)
		}
	}
	out := make([][]graph.Neighbor, len(vecs))
	for i, v := range vecs {
		found, err := idx.Search(v, k)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			j, _ := strconv.Atoi(f.ID)
			out[i] = append(out[i], graph.Neighbor{Index: j, Score: float64(f.Score)})
		}
	}
	return out, nil
}

// Related is a document's neighbourhood in the link graph.
type Related struct {
	Depth     int    `json:"depth"`
	Links     []Step `json:"links"`     // what it links to, then what they link to, nearest first
	Backlinks []Step `json:"backlinks"` // what links to it, and so on
}

// Related walks the link graph both ways from a document, up to depth
// steps (1..5; 0 means 1): see Links.
func (g *LinkGraph) Related(name string, depth int) (*Related, error) {
	e := g.e
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	out, err := g.Links(name, LinkOptions{Depth: depth})
	if err != nil {
		return nil, err
	}
	back, err := g.Links(out.Doc.ID, LinkOptions{Depth: depth, Reverse: true})
	if err != nil {
		return nil, err
	}
	return &Related{Depth: out.Depth, Links: out.Links, Backlinks: back.Links}, nil
}
