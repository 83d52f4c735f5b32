package graph

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Reader reads the graph inside one bbolt transaction and resolves edges
// as it goes. It is not safe for concurrent use, and is valid only while
// its transaction is open.
//
// A wikilink, embed or frontmatter link resolves to the document whose
// path (without .md), file name, alias or title, in that order, equals its
// target or, for [[a|b]], its other side — Obsidian writes
// [[target|label]] and Dendron [[label|target]], so both are tried at each
// step before the next. Comparison ignores case; a "dendron://vault/"
// prefix and a .md suffix are dropped. When several documents answer at
// the same step, the one in the linking document's source wins, then the
// shortest path, then the first path in byte order. A LINKS_TO edge
// resolves by path only, relative to the linking document's folder, then
// to the source root.
type Reader struct {
	nodes, names, in *bolt.Bucket
	// Exists, when set, reports whether a file lies at a path of a source
	// even though no document was indexed from it (an image, say), so a
	// LINKS_TO edge to it is not broken.
	Exists func(sourceID, path string) bool
	cache  map[string]*record
}

// Read returns a Reader over the graph in tx.
func Read(tx *bolt.Tx) *Reader {
	return &Reader{
		nodes: tx.Bucket(bucketNodes),
		names: tx.Bucket(bucketNames),
		in:    tx.Bucket(bucketIn),
		cache: map[string]*record{},
	}
}

func (r *Reader) record(id string) (*record, error) {
	if rec, ok := r.cache[id]; ok {
		return rec, nil
	}
	var rec *record
	if r.nodes != nil {
		if v := r.nodes.Get([]byte(id)); v != nil {
			rec = new(record)
			if err := json.Unmarshal(v, rec); err != nil {
				return nil, fmt.Errorf("graph: decode node %s: %w", id, err)
			}
		}
	}
	r.cache[id] = rec
	return rec, nil
}

// Node returns the document with the given id, or for "#tag" the tag;
// nil when there is none.
func (r *Reader) Node(id string) (*Node, error) {
	if IsTag(id) {
		return &Node{ID: id, Title: id}, nil
	}
	rec, err := r.record(id)
	if err != nil || rec == nil {
		return nil, err
	}
	n := rec.Node
	return &n, nil
}

// Len returns the number of documents in the graph.
func (r *Reader) Len() int {
	if r.nodes == nil {
		return 0
	}
	return r.nodes.Stats().KeyN
}

// IsTag reports whether a node id names a tag ("#tag").
func IsTag(id string) bool { return strings.HasPrefix(id, "#") }

// ForEachNode calls fn with every document, in id order.
func (r *Reader) ForEachNode(fn func(*Node) error) error {
	return r.forEachRecord(func(rec *record) error { return fn(&rec.Node) })
}

// forEachRecord calls fn with every document's record, in id order.
func (r *Reader) forEachRecord(fn func(*record) error) error {
	if r.nodes == nil {
		return nil
	}
	return r.nodes.ForEach(func(k, _ []byte) error {
		rec, err := r.record(string(k))
		if err != nil {
			return err
		}
		return fn(rec)
	})
}

// Out returns the edges written in a document, resolved, in the order
// they were written (links first, then tags).
func (r *Reader) Out(id string) ([]Edge, error) {
	rec, err := r.record(id)
	if err != nil || rec == nil {
		return nil, err
	}
	out := make([]Edge, len(rec.Edges))
	for i := range rec.Edges {
		out[i] = r.resolve(rec, rec.Edges[i])
	}
	return out, nil
}

// Backlinks counts, for each of ids, the other documents with an edge
// that resolves to it (a document's links to itself do not count).
func (r *Reader) Backlinks(ids []string) (map[string]int, error) {
	counts := make(map[string]int, len(ids))
	for _, d := range ids {
		if _, ok := counts[d]; ok {
			continue
		}
		in, err := r.In(d)
		if err != nil {
			return nil, err
		}
		from := map[string]bool{}
		for _, ed := range in {
			if ed.From != d {
				from[ed.From] = true
			}
		}
		counts[d] = len(from)
	}
	return counts, nil
}

// In returns the edges that resolve to a document (its backlinks), or for
// "#tag" the TAGGED_AS edges of that tag, ordered by the path of the
// document they are written in, then by line.
func (r *Reader) In(id string) ([]Edge, error) {
	var keys []string
	if IsTag(id) {
		keys = []string{"#" + clean(id[1:])}
	} else {
		rec, err := r.record(id)
		if err != nil || rec == nil {
			return nil, err
		}
		for name := range names(rec.Node) {
			keys = append(keys, name)
		}
	}
	want := map[string]bool{}
	from := map[string]bool{}
	for _, k := range keys {
		want[k] = true
		for _, f := range r.scan(r.in, k) {
			from[string(f)] = true
		}
	}
	var out []Edge
	for f := range from {
		rec, err := r.record(f)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			continue
		}
		for i := range rec.Edges {
			e := &rec.Edges[i]
			if IsTag(id) != (e.Type == TaggedAs) {
				continue
			}
			for _, k := range edgeKeys(&rec.Node, e) {
				if want[k] {
					if res := r.resolve(rec, *e); res.To == id || IsTag(id) {
						out = append(out, res)
					}
					break
				}
			}
		}
	}
	paths := map[string]string{}
	for f := range from {
		if rec, _ := r.record(f); rec != nil {
			paths[f] = rec.Path
		}
	}
	slices.SortStableFunc(out, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(paths[a.From], paths[b.From]), cmp.Compare(a.From, b.From), cmp.Compare(a.Line, b.Line))
	})
	return out, nil
}

// scan returns the id parts of the keys "name \x00 id" of bucket b.
func (r *Reader) scan(b *bolt.Bucket, name string) [][]byte {
	if b == nil {
		return nil
	}
	prefix := key(name, "")
	var out [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, k[len(prefix):])
	}
	return out
}

// resolve fills in what an edge written in rec points at.
func (r *Reader) resolve(rec *record, e Edge) Edge {
	e.From = rec.ID
	switch e.Type {
	case TaggedAs:
		e.To = "#" + e.Target
	case LinksTo:
		paths := localPaths(rec.Path, e.Target)
		for _, p := range paths {
			if e.To = r.lookup(clean(stem(p)), namePath, rec.SourceID, true); e.To != "" {
				return e
			}
		}
		if r.Exists != nil {
			for _, p := range paths {
				if !strings.HasPrefix(p, "../") && p != ".." && r.Exists(rec.SourceID, p) {
					e.File = p
					return e
				}
			}
		}
	default:
		t, a := pageKey(e.Target), pageKey(e.Alt)
		for _, kind := range []byte{namePath, nameBase, nameAlias, nameTitle} {
			for _, k := range []string{t, a} {
				if k == "" {
					continue
				}
				if e.To = r.lookup(k, kind, rec.SourceID, false); e.To != "" {
					return e
				}
			}
		}
		if r.Exists != nil { // ![[image.png]]
			for _, p := range localPaths(rec.Path, e.Target) {
				if !strings.HasPrefix(p, "../") && p != ".." && r.Exists(rec.SourceID, p) {
					e.File = p
					return e
				}
			}
		}
	}
	return e
}

// lookup returns the document that answers to name as one of the kinds in
// mask, preferring the given source, then the shortest path.
func (r *Reader) lookup(name string, mask byte, source string, sameSource bool) string {
	if r.names == nil || name == "" {
		return ""
	}
	prefix := key(name, "")
	var best, bestPath string
	bestSame := false
	c := r.names.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(v) == 0 || v[0]&mask == 0 {
			continue
		}
		src, p, _ := bytes.Cut(v[1:], []byte{0})
		same := string(src) == source
		if sameSource && !same {
			continue
		}
		id := string(k[len(prefix):])
		better := best == "" ||
			same && !bestSame ||
			same == bestSame && (len(p) < len(bestPath) || len(p) == len(bestPath) && (string(p) < bestPath || string(p) == bestPath && id < best))
		if better {
			best, bestPath, bestSame = id, string(p), same
		}
	}
	return best
}

// ForEachEdge calls fn with every edge of every document, resolved.
func (r *Reader) ForEachEdge(fn func(Edge) error) error {
	return r.forEachRecord(func(rec *record) error {
		for _, e := range rec.Edges {
			if err := fn(r.resolve(rec, e)); err != nil {
				return err
			}
		}
		return nil
	})
}
