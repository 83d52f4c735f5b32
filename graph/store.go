package graph

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Edge types that ingest writes. A frontmatter relation (a key whose
// values are [[wikilinks]]) is typed by its key as written: dependsOn,
// supersededBy, related, …
const (
	Cites    = "CITES"     // [[wikilink]], [[a|b]]
	LinksTo  = "LINKS_TO"  // [text](local/file.md), ![alt](image.png)
	Embeds   = "EMBEDS"    // ![[embed]]
	TaggedAs = "TAGGED_AS" // frontmatter tags, #tag, [tag: x], <!-- tags: x -->
)

// Edge is one reference written in a document, and what it resolves to
// when it is read back. Put stores From, To and File empty: they are filled
// at query time, so a link resolves as soon as its target is indexed.
type Edge struct {
	From string `json:"from,omitempty"` // id of the document it is written in
	// To is the id of the document the edge resolves to, "#tag" for
	// TAGGED_AS; empty when nothing answers to the target.
	To string `json:"to,omitempty"`
	// File is set for a LINKS_TO edge to a file that is not an indexed
	// document but exists (an image, say): such an edge is not broken.
	File    string `json:"file,omitempty"`
	Type    string `json:"type"`
	Target  string `json:"target"`            // as written: page name, path or tag
	Alt     string `json:"alt,omitempty"`     // the other side of [[a|b]]; tried as a target too
	Heading string `json:"heading,omitempty"` // the #heading or #^block part
	Line    int    `json:"line,omitempty"`    // 1-based; 0 for tags
}

// Broken reports whether nothing answers to the edge's target.
func (e Edge) Broken() bool { return e.To == "" && e.File == "" }

// Node is a document as the graph names it: links resolve against its
// path, file name, aliases and title.
type Node struct {
	ID       string   `json:"id"`
	SourceID string   `json:"source_id,omitempty"`
	Path     string   `json:"path"` // relative to the source, slash-separated
	Title    string   `json:"title,omitempty"`
	Aliases  []string `json:"aliases,omitempty"`
}

// record is what the nodes bucket holds per document.
type record struct {
	Node
	Edges []Edge `json:"edges,omitempty"`
}

var (
	bucketNodes = []byte("graph.nodes") // doc id -> record (JSON)
	bucketNames = []byte("graph.names") // name \x00 doc id -> kind mask, source id \x00 path
	bucketIn    = []byte("graph.in")    // lookup key \x00 from doc id -> nothing
)

// The kinds of name a document answers to, in the order links try them.
const (
	namePath  byte = 1 << iota // path without .md, lower case
	nameBase                   // file name without .md
	nameAlias                  // frontmatter alias
	nameTitle                  // title
)

// maxKey keeps bbolt keys well below its 32 KiB limit.
const maxKey = 1024

// Init creates the graph's buckets. Call it once in a writable
// transaction before Put or Delete.
func Init(tx *bolt.Tx) error {
	for _, b := range [][]byte{bucketNodes, bucketNames, bucketIn} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return fmt.Errorf("graph: create bucket %s: %w", b, err)
		}
	}
	return nil
}

// Put records a document and the edges written in it, replacing what was
// recorded for the same id. Call it in the transaction that commits the
// document, so the graph and the documents never disagree.
func Put(tx *bolt.Tx, n Node, edges []Edge) error {
	if n.ID == "" {
		return fmt.Errorf("graph: put a node without an id")
	}
	if err := Delete(tx, n.ID); err != nil {
		return err
	}
	rec := record{Node: n, Edges: make([]Edge, len(edges))}
	for i, e := range edges {
		e.From, e.To, e.File = "", "", ""
		rec.Edges[i] = e
	}
	data, err := json.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("graph: encode node %s: %w", n.ID, err)
	}
	if err := tx.Bucket(bucketNodes).Put([]byte(n.ID), data); err != nil {
		return err
	}
	nb := tx.Bucket(bucketNames)
	val := []byte(n.SourceID + "\x00" + n.Path)
	for name, mask := range names(n) {
		if err := nb.Put(key(name, n.ID), append([]byte{mask}, val...)); err != nil {
			return err
		}
	}
	ib := tx.Bucket(bucketIn)
	for _, k := range inKeys(&rec) {
		if err := ib.Put(key(k, n.ID), []byte{}); err != nil {
			return err
		}
	}
	return nil
}

// Delete forgets a document and the edges written in it. Edges written
// elsewhere that pointed at it stay, and read back as broken unless
// another document answers to their target.
func Delete(tx *bolt.Tx, id string) error {
	nodes := tx.Bucket(bucketNodes)
	v := nodes.Get([]byte(id))
	if v == nil {
		return nil
	}
	var rec record
	if err := json.Unmarshal(v, &rec); err != nil {
		return fmt.Errorf("graph: decode node %s: %w", id, err)
	}
	nb, ib := tx.Bucket(bucketNames), tx.Bucket(bucketIn)
	for name := range names(rec.Node) {
		if err := nb.Delete(key(name, id)); err != nil {
			return err
		}
	}
	for _, k := range inKeys(&rec) {
		if err := ib.Delete(key(k, id)); err != nil {
			return err
		}
	}
	return nodes.Delete([]byte(id))
}

func key(name, id string) []byte { return []byte(name + "\x00" + id) }

// names returns the lookup names of a node with the kinds each stands for.
func names(n Node) map[string]byte {
	out := map[string]byte{}
	add := func(s string, kind byte) {
		if s = clean(s); s != "" && len(s) <= maxKey {
			out[s] |= kind
		}
	}
	p := stem(n.Path)
	add(p, namePath)
	add(path.Base(p), nameBase)
	add(n.Title, nameTitle)
	for _, a := range n.Aliases {
		add(a, nameAlias)
	}
	return out
}

// clean lower-cases a name and drops NUL bytes, which separate key parts.
func clean(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "\x00", ""))
}

// stem drops a markdown extension: [[Note]] and [[Note.md]] both name
// Note.md.
func stem(p string) string {
	for _, ext := range []string{".md", ".markdown"} {
		if len(p) > len(ext) && strings.EqualFold(p[len(p)-len(ext):], ext) {
			return p[:len(p)-len(ext)]
		}
	}
	return p
}

// pageKey normalises the target of a wikilink, embed or frontmatter link:
// a Dendron "dendron://vault/" prefix, "./" and leading slashes go, and a
// markdown extension, and SilverBullet's meta-page caret ("^Library/Std")
// and position ("Page@123", "Page@L12C4").
func pageKey(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "^")
	if i := strings.LastIndexByte(s, '@'); i > 0 && isPosition(s[i+1:]) {
		s = s[:i]
	}
	if rest, ok := strings.CutPrefix(s, "dendron://"); ok {
		if _, after, found := strings.Cut(rest, "/"); found {
			s = after
		} else {
			s = rest
		}
	}
	s = strings.TrimLeft(strings.TrimPrefix(s, "./"), "/")
	return clean(stem(s))
}

// isPosition reports whether s is a SilverBullet position: an offset
// (123) or a line and optional column (L12, L12C4).
func isPosition(s string) bool {
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	if digits(s) {
		return true
	}
	l, ok := strings.CutPrefix(strings.ToUpper(s), "L")
	if !ok {
		return false
	}
	line, col, hasCol := strings.Cut(l, "C")
	return digits(line) && (!hasCol || digits(col))
}

// IsLocal reports whether a markdown link destination can name a file of
// the same source: not a URL with a scheme (https:, mailto:), not
// protocol-relative, not only a #fragment, not empty.
func IsLocal(dest string) bool {
	d := strings.TrimSpace(dest)
	if d == "" || d[0] == '#' || d[0] == '?' || strings.HasPrefix(d, "//") {
		return false
	}
	i := strings.IndexByte(d, ':')
	return i < 0 || !isScheme(d[:i])
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// localPaths returns the paths a local markdown link from a document at
// from may name, relative to the source: first relative to the
// document's folder (or to the source root for "/x"), then relative to the
// source root, as Obsidian's "absolute path in vault" links are.
func localPaths(from, dest string) []string {
	d := strings.TrimSpace(dest)
	if i := strings.IndexAny(d, "#?"); i >= 0 {
		d = d[:i]
	}
	if u, err := url.PathUnescape(d); err == nil {
		d = u
	}
	if d == "" {
		return nil
	}
	if strings.HasPrefix(d, "/") {
		return []string{path.Clean(strings.TrimLeft(d, "/"))}
	}
	rel := path.Join(path.Dir(from), d)
	if root := path.Clean(d); root != rel {
		return []string{rel, root}
	}
	return []string{rel}
}

// edgeKeys returns the lookup keys an edge can resolve through: a
// document answers to the edge only if one of its names is among them.
func edgeKeys(from *Node, e *Edge) []string {
	switch e.Type {
	case TaggedAs:
		return []string{"#" + clean(e.Target)}
	case LinksTo:
		var out []string
		for _, p := range localPaths(from.Path, e.Target) {
			out = append(out, clean(stem(p)))
		}
		return out
	}
	t, a := pageKey(e.Target), pageKey(e.Alt)
	switch {
	case a == "" || a == t:
		return []string{t}
	case t == "":
		return []string{a}
	}
	return []string{t, a}
}

// inKeys returns the distinct lookup keys of a record's edges, sorted.
// Sorted matters: bbolt splits its nodes only when a transaction commits,
// so keys put in random order all go into one growing node with a copy per
// insert, and a document with 200,000 links took 20 s to store; in key
// order each insert lands at the end and the cost is linear.
func inKeys(rec *record) []string {
	seen := map[string]bool{}
	var out []string
	for i := range rec.Edges {
		for _, k := range edgeKeys(&rec.Node, &rec.Edges[i]) {
			if k != "" && k != "#" && len(k) <= maxKey && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
