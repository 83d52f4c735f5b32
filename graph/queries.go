package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Queries answers the engine's questions about the link graph: what a
// document links to and what links to it, links whose target is missing,
// notes nothing links to, and gaps (similar notes without a link).
//
// It holds no state of its own: the engine fills in how to read the graph,
// resolve a name, sync a mirror and read chunks and their embeddings, and
// each question calls them afresh. Its methods are safe for concurrent use
// when those functions are.
type Queries struct {
	// Read calls fn with a Reader of the graph inside one read
	// transaction (index.Store.Graph).
	Read func(fn func(*Reader) error) error
	// Sync brings the graph up to date before a question (an engine on a
	// cluster syncs its local mirror); nil means it always is.
	Sync func() error
	// Document gives the id of the document a name names. An error that
	// is NotFound lets Links take a name such as "#adr" as a tag.
	Document func(name string) (id string, err error)
	// Exists tells a Reader whether a markdown link's target is a file
	// (Reader.Exists); nil means none is. Each question calls it once and
	// uses the function it returns.
	Exists func() func(sourceID, path string) bool
	// NotFound and BadOption are the errors the answers wrap for a name
	// the graph does not know and for an option out of range
	// (index.ErrNotFound and index.ErrBadOption).
	NotFound, BadOption error

	// EmbeddedOnly, when set, is called with "gaps" and its error stops
	// Gaps (an engine on a cluster has no chunk embeddings at hand).
	EmbeddedOnly func(what string) error
	// Chunks calls fn with every chunk: its document's id, its id and its
	// text.
	Chunks func(fn func(docID, chunkID, text string) error) error
	// Embeddings says what chunk embeddings Gaps can use; nil means none.
	Embeddings func() Embeddings
	// Nearest answers Gaps' neighbour queries over document vectors.
	Nearest Nearest
}

// Embeddings is what chunk embeddings Gaps can average into document
// vectors.
type Embeddings struct {
	// Vector gives a chunk's embedding by its id, nil for one without;
	// a nil Vector means there is no embedding model.
	Vector func(chunkID string) []float32
	// Len is how many embeddings there are: 0 means the index has none
	// yet.
	Len int
	// Missing says why there is no embedding model, for the report's
	// warning.
	Missing string
}

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
	Doc      Node   `json:"doc"` // where the walk started
	Relation string `json:"relation,omitempty"`
	Depth    int    `json:"depth"`
	Reverse  bool   `json:"reverse"`
	// Links lists every node reached once, nearest first, with its
	// distance, the path to it and the edges that reached it.
	Links []Step `json:"links"`
}

// Related is a document's neighbourhood in the link graph.
type Related struct {
	Depth     int    `json:"depth"`
	Links     []Step `json:"links"`     // what it links to, then what they link to, nearest first
	Backlinks []Step `json:"backlinks"` // what links to it, and so on
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

func (q *Queries) sync() error {
	if q.Sync == nil {
		return nil
	}
	return q.Sync()
}

func (q *Queries) exists() func(sourceID, path string) bool {
	if q.Exists == nil {
		return nil
	}
	return q.Exists()
}

// Links walks the link graph breadth-first from a document (named as
// Document accepts) or, with opt.Reverse, from a "#tag" to the documents
// tagged with it. Link targets resolve when read, so a link written before
// its target was indexed is followed once the target is.
func (q *Queries) Links(name string, opt LinkOptions) (*Links, error) {
	if err := q.sync(); err != nil {
		return nil, err
	}
	depth := opt.Depth
	if depth == 0 {
		depth = 1
	}
	if depth < 1 || depth > MaxDepth {
		return nil, fmt.Errorf("%w: depth %d out of range, want 1..%d", q.BadOption, opt.Depth, MaxDepth)
	}
	start, err := q.Document(name)
	switch {
	case err == nil:
	case errors.Is(err, q.NotFound) && IsTag(name) && len(name) > 1:
		start = name
	default:
		return nil, err
	}
	out := &Links{Relation: opt.Relation, Depth: depth, Reverse: opt.Reverse, Links: []Step{}}
	err = q.Read(func(r *Reader) error {
		r.Exists = q.exists()
		n, err := r.Node(start)
		if err != nil {
			return err
		}
		if n == nil {
			return fmt.Errorf("%w: document %s is not in the link graph; run braid doctor", q.NotFound, start)
		}
		out.Doc = *n
		steps, err := r.Walk(start, WalkOptions{Relation: opt.Relation, Depth: depth, Reverse: opt.Reverse})
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
func (q *Queries) BrokenLinks() ([]Broken, error) {
	if err := q.sync(); err != nil {
		return nil, err
	}
	out := []Broken{}
	err := q.Read(func(r *Reader) error {
		r.Exists = q.exists()
		b, err := r.Broken()
		out = append(out, b...)
		return err
	})
	return out, err
}

// Orphans lists the documents that no link joins to another document,
// either way, by path. Tags and broken links do not count as joins.
func (q *Queries) Orphans() ([]Node, error) {
	if err := q.sync(); err != nil {
		return nil, err
	}
	out := []Node{}
	err := q.Read(func(r *Reader) error {
		o, err := r.Orphans()
		out = append(out, o...)
		return err
	})
	return out, err
}

// Related walks the link graph both ways from a document, up to depth
// steps (1..5; 0 means 1): see Links.
func (q *Queries) Related(name string, depth int) (*Related, error) {
	if err := q.sync(); err != nil {
		return nil, err
	}
	out, err := q.Links(name, LinkOptions{Depth: depth})
	if err != nil {
		return nil, err
	}
	back, err := q.Links(out.Doc.ID, LinkOptions{Depth: depth, Reverse: true})
	if err != nil {
		return nil, err
	}
	return &Related{Depth: out.Depth, Links: out.Links, Backlinks: back.Links}, nil
}

// Gaps finds pairs of documents that are at least opt.Threshold similar
// but not linked either way, best first, each with the words they share
// and a suggested link. Similarity is the cosine of document embeddings
// (the mean of each document's chunk vectors), each document compared with
// its nearest neighbours (Nearest); without embeddings it is the tf-idf
// cosine of their words, and the report's Warning says so.
func (q *Queries) Gaps(ctx context.Context, opt GapOptions) (*GapReport, error) {
	if q.EmbeddedOnly != nil {
		if err := q.EmbeddedOnly("gaps"); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var docs []Doc
	at := map[string]int{}
	var linked map[Pair]bool
	err := q.Read(func(r *Reader) error {
		err := r.ForEachNode(func(n *Node) error {
			at[n.ID] = len(docs)
			docs = append(docs, Doc{Node: *n})
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
	var emb Embeddings
	if q.Embeddings != nil {
		emb = q.Embeddings()
	}
	useVec := emb.Vector != nil && emb.Len > 0
	switch {
	case emb.Vector == nil:
		rep.Warning = "no embeddings (" + emb.Missing + "), so similarity is lexical: tf-idf cosine of words"
	case !useVec:
		rep.Warning = "the index has no embeddings yet (run braid index to compute them), so similarity is lexical: tf-idf cosine of words"
	}
	texts := make([]strings.Builder, len(docs))
	sums := make([][]float32, len(docs))
	chunked := make([]bool, len(docs)) // a note of frontmatter alone has no chunk, so no embedding to miss
	n := 0
	err = q.Chunks(func(docID, chunkID, text string) error {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i, ok := at[docID]
		if !ok {
			return nil
		}
		chunked[i] = true
		texts[i].WriteString(text)
		texts[i].WriteByte('\n')
		if useVec {
			if v := emb.Vector(chunkID); v != nil {
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
			docs[i].Vector = sums[i] // Gaps normalises it
		}
		kept = append(kept, docs[i])
	}
	if left > 0 {
		rep.Warning = fmt.Sprintf("%d documents have no embedding yet and were left out (run braid index)", left)
	}
	gaps, vectors, err := Gaps(kept, func(a, b string) bool { return linked[MakePair(a, b)] }, q.Nearest, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", q.BadOption, err)
	}
	if vectors {
		rep.Method = "embeddings"
	}
	rep.Threshold = opt.Threshold
	if rep.Threshold == 0 {
		rep.Threshold = DefaultLexicalThreshold
		if vectors {
			rep.Threshold = DefaultThreshold
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
