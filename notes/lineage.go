package notes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
)

// Lineage is where a chunk came from and what became of it across the
// versions of its document the index keeps (index.LineageVersions), as
// knowledge-stack's trace_chunk_lineage reports it: edges between the
// chunks of consecutive versions, and every kept version of any document
// that held the same text.
type Lineage struct {
	ChunkID    string `json:"chunk_id"`
	DocumentID string `json:"document_id"`
	Path       string `json:"path,omitempty"`
	TextHash   string `json:"text_hash"` // index.ChunkTextHash of its text
	// Current says the chunk is in the index now (its document's
	// current version holds it).
	Current bool `json:"current"`
	// Edges link the chunk's ancestors and descendants, oldest first.
	Edges []LineageEdge `json:"edges"`
	// SameText lists the kept versions of any document that held the
	// chunk's text, oldest first.
	SameText []LineageHolder `json:"same_text"`
	// Versions are the chunk's document's kept versions, oldest first.
	Versions []LineageVersion `json:"versions"`
	Summary  string           `json:"summary"`
}

// LineageEdge is one step of a chunk's lineage: the parent chunk, in one
// version, that the child chunk, in the next, came from. Relation is
// split (the parent became several chunks), merge (the child came from
// several), edit (one chunk's text changed) or re-ingest (the text
// carried over unchanged into a new version of the document).
type LineageEdge struct {
	Parent    string    `json:"parent_chunk_id"`
	Child     string    `json:"child_chunk_id"`
	Relation  string    `json:"relation"`
	CreatedAt time.Time `json:"created_at"`
}

// LineageHolder is a document version that held a text.
type LineageHolder struct {
	DocumentID string    `json:"document_id"`
	Path       string    `json:"path,omitempty"`
	Version    int       `json:"version"` // among the kept versions, from 1, the oldest
	Hash       string    `json:"content_hash"`
	IndexedAt  time.Time `json:"indexed_at"`
	ChunkID    string    `json:"chunk_id"`
	Current    bool      `json:"current"`
	// StoreVersion is the version number list_versions and braid versions
	// give the same content, when the document keeps its versions' content.
	StoreVersion int `json:"store_version,omitempty"`
}

// LineageVersion is one kept version of the chunk's document.
type LineageVersion struct {
	Version   int       `json:"version"`
	Hash      string    `json:"content_hash"`
	IndexedAt time.Time `json:"indexed_at"`
	Chunks    int       `json:"chunks"`
	Current   bool      `json:"current"`
}

// Lineage traces a chunk id (from search, read_around or an earlier
// trace) through its document's kept versions.
func (r *Reader) Lineage(chunkID string) (*Lineage, error) {
	if err := r.sync(); err != nil {
		return nil, err
	}
	docID := chunk.DocID(chunkID)
	h8, ord, ok := chunkSuffix(chunkID)
	if !ok || docID == chunkID {
		return nil, fmt.Errorf("%w: %q is no chunk id; a chunk id is DOCUMENT#HASH.N, as search's chunk_id gives it", index.ErrBadOption, chunkID)
	}
	vs, err := r.st.Lineage(docID)
	if err != nil {
		return nil, err
	}
	vs = soundVersions(vs)
	doc, err := r.st.Doc(docID)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 && doc != nil {
		// A document indexed before lineage was kept: its current
		// version alone, from the store.
		cs, err := r.st.Chunks(doc.ChunkIDs)
		if err != nil {
			return nil, err
		}
		v := index.LineageVersion{Hash: doc.Hash, Time: doc.IndexedAt}
		for _, c := range cs {
			text := ""
			if c != nil {
				text = c.Text
			}
			v.Chunks = append(v.Chunks, index.LineageChunk{Hash: index.ChunkTextHash(text)})
		}
		vs = []index.LineageVersion{v}
	}
	at := -1
	for i := len(vs) - 1; i >= 0; i-- {
		if strings.HasPrefix(vs[i].Hash, h8) && ord < len(vs[i].Chunks) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%w: chunk %s is neither in the index nor in the last %d versions of its document that the index keeps; search finds its text now",
			index.ErrNotFound, chunkID, index.LineageVersions)
	}
	cur := ""
	if doc != nil {
		cur = doc.Hash
	}
	store, err := r.st.Versions(docID)
	if err != nil {
		return nil, err
	}
	id := func(v, o int) string { return chunk.ID(docID, vs[v].Hash, o) }
	out := &Lineage{ChunkID: id(at, ord), DocumentID: docID, TextHash: vs[at].Chunks[ord].Hash, Current: vs[at].Hash == cur,
		Edges: []LineageEdge{}, SameText: []LineageHolder{}, Versions: []LineageVersion{}}
	if doc != nil {
		out.Path = doc.Path
	}
	for i, v := range vs {
		out.Versions = append(out.Versions, LineageVersion{Version: i + 1, Hash: v.Hash, IndexedAt: v.Time, Chunks: len(v.Chunks), Current: v.Hash == cur})
	}
	// The edge from chunk p of version v-1 to chunk c of version v.
	edge := func(v, p, c int) LineageEdge {
		child := vs[v].Chunks[c]
		rel := "edit"
		children := 0
		for _, ch := range vs[v].Chunks {
			for _, f := range ch.From {
				if f == p {
					children++
				}
			}
		}
		switch {
		case child.Hash == vs[v-1].Chunks[p].Hash:
			rel = "re-ingest"
		case len(child.From) > 1:
			rel = "merge"
		case children > 1:
			rel = "split"
		}
		return LineageEdge{Parent: id(v-1, p), Child: id(v, c), Relation: rel, CreatedAt: vs[v].Time}
	}
	// Ancestors: back from the chunk, version by version.
	var back []LineageEdge
	level := map[int]bool{ord: true}
	for v := at; v > 0 && len(level) > 0; v-- {
		prev := map[int]bool{}
		for c := range level {
			for _, p := range vs[v].Chunks[c].From {
				if p < len(vs[v-1].Chunks) {
					back = append(back, edge(v, p, c))
					prev[p] = true
				}
			}
		}
		level = prev
	}
	for i := len(back) - 1; i >= 0; i-- {
		out.Edges = append(out.Edges, back[i])
	}
	// Descendants: forward from the chunk.
	level = map[int]bool{ord: true}
	for v := at + 1; v < len(vs) && len(level) > 0; v++ {
		next := map[int]bool{}
		for c, ch := range vs[v].Chunks {
			for _, p := range ch.From {
				if level[p] && p < len(vs[v-1].Chunks) {
					out.Edges = append(out.Edges, edge(v, p, c))
					next[c] = true
				}
			}
		}
		level = next
	}
	out.Edges = dedupEdges(out.Edges)
	// Every kept version of any document that held the same text. The
	// documents are read once the walk's transaction is over.
	err = r.st.ForEachLineage(func(d string, dvs []index.LineageVersion) error {
		for i, v := range soundVersions(dvs) {
			for o, c := range v.Chunks {
				if c.Hash == out.TextHash {
					out.SameText = append(out.SameText, LineageHolder{DocumentID: d, Version: i + 1, Hash: v.Hash, IndexedAt: v.Time,
						ChunkID: chunk.ID(d, v.Hash, o)})
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	docs := map[string]*index.Document{docID: doc}
	for i := range out.SameText {
		h := &out.SameText[i]
		dd, seen := docs[h.DocumentID]
		if !seen {
			if dd, err = r.st.Doc(h.DocumentID); err != nil {
				return nil, err
			}
			docs[h.DocumentID] = dd
		}
		if dd != nil {
			h.Path, h.Current = dd.Path, dd.Hash == h.Hash
		}
		if h.DocumentID == docID {
			for _, sv := range store {
				if sv.Hash == h.Hash {
					h.StoreVersion = sv.Version
				}
			}
		}
	}
	sort.SliceStable(out.SameText, func(i, j int) bool { return out.SameText[i].IndexedAt.Before(out.SameText[j].IndexedAt) })
	if len(out.SameText) == 0 { // a document from before lineage: its current version
		out.SameText = append(out.SameText, LineageHolder{DocumentID: docID, Path: out.Path, Version: at + 1, Hash: vs[at].Hash,
			IndexedAt: vs[at].Time, ChunkID: out.ChunkID, Current: out.Current})
	}
	out.Summary = lineageSummary(out)
	return out, nil
}

// chunkSuffix reads the HASH.N after a chunk id's '#'.
func chunkSuffix(id string) (hash string, ord int, ok bool) {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return "", 0, false
	}
	h, n, found := strings.Cut(id[i+1:], ".")
	ord, err := strconv.Atoi(n)
	if !found || err != nil || ord < 0 || len(h) != 8 {
		return "", 0, false
	}
	return h, ord, true
}

func dedupEdges(es []LineageEdge) []LineageEdge {
	seen := map[[2]string]bool{}
	out := es[:0]
	for _, e := range es {
		k := [2]string{e.Parent, e.Child}
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

func lineageSummary(l *Lineage) string {
	state := "in the index now"
	if !l.Current {
		state = "no longer in the index (an older version of its document)"
	}
	counts := map[string]int{}
	for _, e := range l.Edges {
		counts[e.Relation]++
	}
	var parts []string
	for _, r := range []string{"split", "merge", "edit", "re-ingest"} {
		if counts[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[r], r))
		}
	}
	edges := "no lineage edges (its text is as first indexed)"
	if len(parts) > 0 {
		edges = fmt.Sprintf("%d lineage edges (%s)", len(l.Edges), strings.Join(parts, ", "))
	}
	return fmt.Sprintf("Chunk %s is %s; %s across %d kept versions of its document; its text is held by %d document versions.",
		l.ChunkID, state, edges, len(l.Versions), len(l.SameText))
}

// soundVersions drops the versions a damaged or edited lineage record
// could hold that would not name chunks: a content hash shorter than a
// chunk id's 8 digits.
func soundVersions(vs []index.LineageVersion) []index.LineageVersion {
	out := vs[:0:0]
	for _, v := range vs {
		if len(v.Hash) >= 8 {
			out = append(out, v)
		}
	}
	return out
}
