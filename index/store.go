package index

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/userkey"
	"github.com/braidsearch/braid/lexical"
)

var (
	bucketMeta    = []byte("meta")
	bucketSources = []byte("sources")
	bucketDocs    = []byte("docs")
	bucketPaths   = []byte("paths") // sourceID \x00 path -> docID \x00 hash [\x00 etag] (see pathValue)
	bucketChunks  = []byte("chunks")
	bucketVectors = []byte("vectors") // model \x00 text hash -> little-endian float32s

	keySchema  = []byte("schema")
	keyGen     = []byte("gen")
	keyPending = []byte("pending")
	keyID      = []byte("id") // the index's own id (ID), written when a writer first opens it
)

// Store is the bbolt metadata store: sources, documents, chunks, the link
// graph and the write-ahead record that keeps the lexical index in step
// with it.
// It is safe for concurrent use; bbolt serialises writers, and Compact,
// which replaces the file, waits for the transactions in flight and holds
// new ones until it is done.
type Store struct {
	// mu guards db and file, which Compact replaces: every transaction
	// holds it shared, Compact and Close exclusive.
	mu sync.RWMutex
	db *bolt.DB
	// file is the descriptor bbolt reads db through, which meta.db's
	// stamp describes (stamp.go).
	file *os.File
	// sealing: set by SetKey. key seals the source records PutSource
	// writes and checks those Source and Sources read; keyErr is why
	// there is no key.
	sealing bool
	key     userkey.Key
	keyErr  error
	// docs keeps decoded documents for SharedDocs (doccache.go).
	docs *docCache
}

// SetKey makes the store seal source records with this user's key and
// mark those that do not verify as Untrusted (the document store's own
// source excepted: it reads only the index's blobs). err, when the key
// could not be loaded, marks every source untrusted with its reason. A
// store without SetKey trusts every record (a cluster's local copy).
func (s *Store) SetKey(k userkey.Key, err error) {
	s.sealing, s.key, s.keyErr = true, k, err
}

// check marks src untrusted when its seal does not verify.
func (s *Store) check(src *Source) {
	if !s.sealing || src.Kind == SourceStore {
		return
	}
	switch {
	case s.keyErr != nil:
		src.Untrusted = fmt.Sprintf("cannot be checked: this user's braid key is unusable (%v)", s.keyErr)
	case src.Seal == "":
		src.Untrusted = "is not sealed by this user's key (an index made by an older braid, or by someone else)"
	case !s.key.Verify(src.Seal, src.sealFields()...):
		src.Untrusted = "was not registered by this user on this machine (an index copied, cloned or edited?)"
	}
}

// Pending is the lexical work of one commit that is not yet known to be in
// the lexical index. It is written in the same transaction as the metadata,
// so after a crash the lexical index can be brought back in step.
type Pending struct {
	Gen    uint64   `json:"gen"`
	Delete []string `json:"delete,omitempty"` // chunk ids to remove
	Add    []string `json:"add,omitempty"`    // chunk ids to (re)index from the store
}

// OpenStore opens (creating when writable) the metadata store at path.
// A writer's open removes what a compaction that crashed left beside it
// (CompactSuffix).
func OpenStore(path string, readOnly bool) (*Store, error) {
	if !readOnly {
		removeStaleCompaction(path)
	}
	s := &Store{docs: newDocCache(docCacheBytes)}
	if err := s.open(path, readOnly); err != nil {
		return nil, err
	}
	return s, nil
}

// open opens the bbolt file at path as the store's (OpenStore, and
// Compact's open of the file it wrote).
func (s *Store) open(path string, readOnly bool) error {
	var file *os.File // the descriptor bbolt reads the store through
	openFile := func(path string, flag int, mode os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(path, flag, mode)
		file = f
		return f, err
	}
	db, err := openBolt(path, &bolt.Options{Timeout: 5 * time.Second, ReadOnly: readOnly, OpenFile: openFile})
	if err != nil {
		return err
	}
	s.db, s.file = db, file
	buckets := append([][]byte{bucketMeta, bucketSources, bucketDocs, bucketPaths, bucketChunks, bucketVectors, bucketS3Skipped, bucketSessions, bucketLineage, bucketBM25}, storeBuckets...)
	// A writer's open writes only when the store lacks a bucket or its
	// schema is older: a write transaction rewrites the file's meta page
	// even when it changes nothing, which would change the file under the
	// stamp that lets an index run skip its full check (VerifyChanged).
	ready := false
	err = s.viewDB(func(tx *bolt.Tx) error {
		if readOnly {
			return checkSchema(tx.Bucket(bucketMeta))
		}
		meta := tx.Bucket(bucketMeta)
		ready = meta != nil && meta.Get(keyID) != nil && checkSchema(meta) == nil
		for _, b := range buckets {
			ready = ready && tx.Bucket(b) != nil
		}
		return nil
	})
	if err == nil && !readOnly && !ready {
		err = s.updateDB(func(tx *bolt.Tx) error {
			for _, b := range buckets {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
			meta := tx.Bucket(bucketMeta)
			if meta.Get(keyID) == nil {
				if err := meta.Put(keyID, []byte(newID())); err != nil {
					return err
				}
			}
			switch string(meta.Get(keySchema)) {
			case "":
				if err := graph.Init(tx); err != nil {
					return err
				}
				return meta.Put(keySchema, []byte(fmt.Sprint(indexdir.SchemaVersion)))
			}
			if up := upgrades[string(meta.Get(keySchema))]; up != nil {
				return up(tx)
			}
			return checkSchema(meta)
		})
	}
	if err != nil {
		db.Close()
		return err
	}
	return nil
}

// upgrades bring a store of an older schema version to indexdir.SchemaVersion in
// place, inside the transaction of the writer that opens it.
var upgrades = map[string]func(*bolt.Tx) error{"1": upgradeFrom1}

// Upgradable reports whether a writer upgrades a store of schema version v
// in place (so an index of that version is not refused).
func Upgradable(v int) bool { return upgrades[fmt.Sprint(v)] != nil }

// upgradeFrom1 brings a version 1 store to version 2 in place: the link
// graph is built from the links and tags every stored document already
// carries, so nothing is re-parsed and no embedding is lost.
func upgradeFrom1(tx *bolt.Tx) error {
	if err := graph.Init(tx); err != nil {
		return err
	}
	err := tx.Bucket(bucketDocs).ForEach(func(k, _ []byte) error {
		d, err := getDoc(tx, string(k))
		if err != nil || d == nil {
			return err
		}
		return graph.Put(tx, graphNode(d), graphEdges(d))
	})
	if err != nil {
		return fmt.Errorf("upgrade the index to format 2: %w", err)
	}
	return tx.Bucket(bucketMeta).Put(keySchema, []byte("2"))
}

func checkSchema(meta *bolt.Bucket) error {
	if meta == nil {
		return fmt.Errorf("%w: metadata store has no schema record", indexdir.ErrSchemaVersion)
	}
	if got := string(meta.Get(keySchema)); got != fmt.Sprint(indexdir.SchemaVersion) {
		return fmt.Errorf("%w: found schema %q, want %d", indexdir.ErrSchemaVersion, got, indexdir.SchemaVersion)
	}
	return nil
}

// Close releases the store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.Close()
}

// Trust seals the untrusted ones of srcs as this user's own (PutSource
// with Untrusted cleared) and returns those it sealed.
func (s *Store) Trust(srcs []*Source) ([]*Source, error) {
	var sealed []*Source
	for _, src := range srcs {
		if src.Untrusted == "" {
			continue
		}
		src.Untrusted = ""
		if err := s.PutSource(src); err != nil {
			return sealed, err
		}
		sealed = append(sealed, src)
	}
	return sealed, nil
}

// PutSource records a source, replacing one with the same id.
// A trusted record (Untrusted empty: made or granted by this user now) is
// sealed with the store's key; an untrusted one keeps the seal it had, so
// writing it back never makes it trusted.
func (s *Store) PutSource(src *Source) error {
	if s.sealing && src.Untrusted == "" && len(s.key) > 0 {
		src.Seal = s.key.Seal(src.sealFields()...)
	}
	return s.update(func(tx *bolt.Tx) error { return putJSON(tx.Bucket(bucketSources), src.ID, src) })
}

// Source returns the source with the given id, or nil.
func (s *Store) Source(id string) (*Source, error) {
	var src *Source
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketSources).Get([]byte(id))
		if v == nil {
			return nil
		}
		src = new(Source)
		if err := json.Unmarshal(v, src); err != nil {
			return err
		}
		s.check(src)
		return nil
	})
	return src, err
}

// Sources returns every source, ordered by id.
func (s *Store) Sources() ([]*Source, error) {
	var out []*Source
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSources).ForEach(func(_, v []byte) error {
			src := new(Source)
			if err := json.Unmarshal(v, src); err != nil {
				return err
			}
			s.check(src)
			out = append(out, src)
			return nil
		})
	})
	return out, err
}

// DeleteSourceRecord removes the source record only; its documents are
// removed through Commit.
func (s *Store) DeleteSourceRecord(id string) error {
	return s.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketSources).Delete([]byte(id)) })
}

// Entry is the cheap per-document record used to detect change.
type Entry struct {
	Path  string
	DocID string
	Hash  string
	ETag  string // an S3 object's ETag; empty for files
	// Stat is the file's status when the content of Hash was read, where
	// the run recorded it (EntriesWithStats; Entries leaves it nil).
	Stat *FileStat
}

// pathValue is a document's record in the paths bucket: its id and hash,
// and for an S3 object its ETag, so change is detected without decoding
// the document. Older indexes hold no ETags; parsePathValue reads both.
func pathValue(d *Document) []byte {
	v := d.ID + "\x00" + d.Hash
	if d.ETag != "" {
		v += "\x00" + d.ETag
	}
	return []byte(v)
}

func parsePathValue(v []byte) (id, hash, etag string) {
	i, rest, _ := bytes.Cut(v, []byte{0})
	h, e, _ := bytes.Cut(rest, []byte{0})
	return string(i), string(h), string(e)
}

// Entries returns the documents of a source keyed by path, without decoding
// the documents themselves.
func (s *Store) Entries(sourceID string) (map[string]Entry, error) {
	out := make(map[string]Entry)
	err := s.view(func(tx *bolt.Tx) error {
		entriesUnder(tx.Bucket(bucketPaths).Cursor(), sourceID, []byte(sourceID+"\x00"), out)
		return nil
	})
	return out, err
}

// entriesUnder adds to out the entry of every key of the paths bucket
// that starts with prefix, all of source sourceID, walking c.
func entriesUnder(c *bolt.Cursor, sourceID string, prefix []byte, out map[string]Entry) {
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		addEntry(out, sourceID, k, v)
	}
}

// addEntry adds to out the entry of source sourceID that the paths
// bucket holds as k, v.
func addEntry(out map[string]Entry, sourceID string, k, v []byte) {
	id, hash, etag := parsePathValue(v)
	p := string(k[len(sourceID)+1:])
	out[p] = Entry{Path: p, DocID: id, Hash: hash, ETag: etag}
}

// EntriesAt returns the documents of a source at the paths rels or below
// them (a folder's), keyed by path: what Entries holds of them, looked up
// rather than read in full.
func (s *Store) EntriesAt(sourceID string, rels []string) (map[string]Entry, error) {
	out := make(map[string]Entry)
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPaths)
		c := b.Cursor()
		for _, rel := range rels {
			key := []byte(sourceID + "\x00" + rel)
			if v := b.Get(key); v != nil {
				addEntry(out, sourceID, key, v)
			}
			entriesUnder(c, sourceID, append(key, '/'), out)
		}
		return nil
	})
	return out, err
}

// Holds reports whether the store holds a document of the source.
func (s *Store) Holds(sourceID string) (bool, error) {
	var held bool
	prefix := []byte(sourceID + "\x00")
	err := s.view(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketPaths).Cursor().Seek(prefix)
		held = k != nil && bytes.HasPrefix(k, prefix)
		return nil
	})
	return held, err
}

// Paths returns the paths of a source's documents in byte order.
func (s *Store) Paths(sourceID string) ([]string, error) {
	var out []string
	prefix := []byte(sourceID + "\x00")
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketPaths).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			out = append(out, string(k[len(prefix):]))
		}
		return nil
	})
	return out, err
}

// Doc returns the document with the given id, or nil.
func (s *Store) Doc(id string) (*Document, error) {
	var d *Document
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		d, err = getDoc(tx, id)
		return err
	})
	return d, err
}

func getDoc(tx *bolt.Tx, id string) (*Document, error) {
	v := tx.Bucket(bucketDocs).Get([]byte(id))
	if v == nil {
		return nil, nil
	}
	return decodeDoc(id, v)
}

// DocByPath returns the document at path in a source, or nil.
func (s *Store) DocByPath(sourceID, path string) (*Document, error) {
	var d *Document
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketPaths).Get([]byte(sourceID + "\x00" + path))
		if v == nil {
			return nil
		}
		id, _, _ := bytes.Cut(v, []byte{0})
		var err error
		d, err = getDoc(tx, string(id))
		return err
	})
	return d, err
}

// ForEachDoc calls fn for every document until fn returns an error.
func (s *Store) ForEachDoc(fn func(*Document) error) error {
	return s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
			d := new(Document)
			if err := json.Unmarshal(v, d); err != nil {
				return fmt.Errorf("decode document %s: %w", k, err)
			}
			return fn(d)
		})
	})
}

// Chunks returns the chunks with the given ids, in order; ids not in the
// store (for example hits from a lexical index that is ahead of the store)
// give nil entries.
func (s *Store) Chunks(ids []string) ([]*Chunk, error) {
	out := make([]*Chunk, len(ids))
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketChunks)
		for i, id := range ids {
			v := b.Get([]byte(id))
			if v == nil {
				continue
			}
			c := new(Chunk)
			if err := json.Unmarshal(v, c); err != nil {
				return fmt.Errorf("decode chunk %s: %w", id, err)
			}
			out[i] = c
		}
		return nil
	})
	return out, err
}

// HasDocs says whether the store holds any document: one cursor step,
// where Counts walks every page.
func (s *Store) HasDocs() (bool, error) {
	var has bool
	err := s.view(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketDocs).Cursor().First()
		has = k != nil
		return nil
	})
	return has, err
}

// Counts returns the number of documents and chunks.
func (s *Store) Counts() (docs, chunks int, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		docs = tx.Bucket(bucketDocs).Stats().KeyN
		chunks = tx.Bucket(bucketChunks).Stats().KeyN
		return nil
	})
	return docs, chunks, err
}

// ForEachChunkID calls fn with every chunk id in the store.
func (s *Store) ForEachChunkID(fn func(id string) error) error {
	return s.view(func(tx *bolt.Tx) error {
		w := newWalker(tx)
		return tx.Bucket(bucketChunks).ForEach(func(k, v []byte) error {
			w.step(len(k) + len(v))
			return fn(string(k))
		})
	})
}

// Change is one document's update in a commit: Doc with its Chunks replaces
// any document with the same id; DeleteID alone removes a document.
type Change struct {
	Doc      *Document
	Chunks   []Chunk
	DeleteID string
	// KeepVersions, when above zero, appends Doc's content to its versions,
	// keeping that many (its blob must already be written).
	KeepVersions int
}

// Commit applies changes in one transaction, the link graph's edges
// included, and returns the lexical work that must follow; the caller
// applies it and then calls ClearPending. A pending record left by an
// earlier, interrupted commit must be resolved (see Recover) before the
// next Commit, which refuses to overwrite it.
func (s *Store) Commit(changes []Change) (*Pending, error) {
	p := new(Pending)
	err := s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta.Get(keyPending) != nil {
			return errors.New("index: an earlier write was interrupted and is not recovered yet; run braid doctor")
		}
		docs, paths, chunks := tx.Bucket(bucketDocs), tx.Bucket(bucketPaths), pack(tx.Bucket(bucketChunks))
		added := make(map[string]bool)
		var removed []string
		remove := func(id string) error {
			old, err := getDoc(tx, id)
			if err != nil || old == nil {
				return err
			}
			for _, cid := range old.ChunkIDs {
				if err := chunks.Delete([]byte(cid)); err != nil {
					return err
				}
				removed = append(removed, cid)
			}
			key := []byte(old.SourceID + "\x00" + old.Path)
			if err := paths.Delete(key); err != nil {
				return err
			}
			if err := forgetStat(tx, key); err != nil {
				return err
			}
			if err := graph.Delete(tx, id); err != nil {
				return err
			}
			return docs.Delete([]byte(id))
		}
		// lineage records d's version before remove drops the chunks of
		// the one it replaces (lineage.go).
		lineage := func(d *Document, next []Chunk) error {
			old, err := getDoc(tx, d.ID)
			if err != nil {
				return err
			}
			var texts []string
			if old != nil && old.Hash != d.Hash {
				for _, cid := range old.ChunkIDs {
					c := new(Chunk)
					if v := chunks.Get([]byte(cid)); v != nil && json.Unmarshal(v, c) == nil {
						texts = append(texts, c.Text)
					} else {
						texts = append(texts, "")
					}
				}
			}
			return recordLineage(tx, d, next, old, texts)
		}
		for _, ch := range changes {
			if ch.Doc == nil {
				if err := remove(ch.DeleteID); err != nil {
					return err
				}
				if err := forget(tx, ch.DeleteID); err != nil {
					return err
				}
				continue
			}
			if ch.KeepVersions > 0 {
				v := Version{Hash: ch.Doc.Hash, Size: ch.Doc.Size, Time: ch.Doc.ModTime}
				if err := appendVersion(tx, ch.Doc.ID, v, ch.KeepVersions); err != nil {
					return err
				}
			}
			d := ch.Doc
			if err := lineage(d, ch.Chunks); err != nil {
				return err
			}
			if err := remove(d.ID); err != nil {
				return err
			}
			d.ChunkIDs = d.ChunkIDs[:0]
			for i := range ch.Chunks {
				c := &ch.Chunks[i]
				if err := putJSON(chunks, c.ID, c); err != nil {
					return err
				}
				d.ChunkIDs = append(d.ChunkIDs, c.ID)
				added[c.ID] = true
			}
			if err := putJSON(docs, d.ID, d); err != nil {
				return err
			}
			if err := paths.Put([]byte(d.SourceID+"\x00"+d.Path), pathValue(d)); err != nil {
				return err
			}
			if err := graph.Put(tx, graphNode(d), graphEdges(d)); err != nil {
				return err
			}
		}
		for _, cid := range removed {
			if !added[cid] {
				p.Delete = append(p.Delete, cid)
			}
		}
		for cid := range added {
			p.Add = append(p.Add, cid)
		}
		sort.Strings(p.Add)
		p.Gen = gen(meta) + 1
		if err := meta.Put(keyGen, binary.BigEndian.AppendUint64(nil, p.Gen)); err != nil {
			return err
		}
		return putJSON(meta, string(keyPending), p)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

func gen(meta *bolt.Bucket) uint64 {
	v := meta.Get(keyGen)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// newID is a random UUID (version 4), the id of a new index.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on the platforms Go supports
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// ID is the index's own id, a UUID written the first time a writer
// opened it; "" for an index no writer has opened since braid kept one.
func (s *Store) ID() (string, error) {
	var id string
	err := s.view(func(tx *bolt.Tx) error {
		id = string(tx.Bucket(bucketMeta).Get(keyID))
		return nil
	})
	return id, err
}

// Gen is the number of the last commit.
func (s *Store) Gen() (uint64, error) {
	var g uint64
	err := s.view(func(tx *bolt.Tx) error { g = gen(tx.Bucket(bucketMeta)); return nil })
	return g, err
}

// PendingWork returns the lexical work of an interrupted commit, or nil.
func (s *Store) PendingWork() (*Pending, error) {
	var p *Pending
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyPending)
		if v == nil {
			return nil
		}
		p = new(Pending)
		return json.Unmarshal(v, p)
	})
	return p, err
}

// ClearPending marks the lexical work of commit gen as done. The BM25
// counts (bm25.go) do not follow it: the next commit counts them again.
func (s *Store) ClearPending(gen uint64) error { return s.clearPending(gen, nil) }

// clearPending marks the lexical work of commit gen as done and moves the
// BM25 counts by what that lexical batch did (moveCounts), in one
// transaction.
func (s *Store) clearPending(gen uint64, counts *lexical.BatchCounts) error {
	return s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		v := meta.Get(keyPending)
		if v == nil {
			return nil
		}
		var p Pending
		if err := json.Unmarshal(v, &p); err != nil {
			return err
		}
		if p.Gen != gen {
			return fmt.Errorf("index: pending commit is %d, not %d", p.Gen, gen)
		}
		if err := moveCounts(tx, gen-1, gen, counts); err != nil {
			return err
		}
		return meta.Delete(keyPending)
	})
}

// Graph calls fn with a reader of the link graph, inside one read
// transaction: fn must not use the store.
func (s *Store) Graph(fn func(*graph.Reader) error) error {
	return s.view(func(tx *bolt.Tx) error { return fn(graph.Read(tx)) })
}

// Size is the size of the store file in bytes.
func (s *Store) Size() int64 {
	var n int64
	_ = s.view(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return n
}

func putJSON(b *bolt.Bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		if d, ok := v.(*Document); ok {
			// Frontmatter can hold values JSON cannot carry (NaN, ±Inf).
			d.Frontmatter = sanitize(d.Frontmatter).(map[string]any)
			data, err = json.Marshal(d)
		}
		if err != nil {
			return fmt.Errorf("encode %s: %w", key, err)
		}
	}
	return b.Put([]byte(key), data)
}

// sanitize makes a decoded YAML value encodable as JSON.
func sanitize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = sanitize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sanitize(e)
		}
		return out
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return x
	case string, bool, int, int64, uint64, nil, time.Time:
		return x
	default:
		if _, err := json.Marshal(x); err != nil {
			return fmt.Sprint(x)
		}
		return x
	}
}

// ForEachChunk calls fn with every chunk, in id order, inside one read
// transaction: fn must not use the store.
func (s *Store) ForEachChunk(fn func(*Chunk) error) error {
	return s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketChunks).ForEach(func(_, v []byte) error {
			var c Chunk
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			return fn(&c)
		})
	})
}

// CheckStore opens the metadata store at path read-only and walks every
// page, so a truncated or corrupted file is found without changing it.
// A damaged file is an error matching indexdir.ErrCorrupt.
func CheckStore(path string) error {
	db, err := openBolt(path, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		return err
	}
	s := &Store{db: db}
	defer db.Close()
	return s.view(func(tx *bolt.Tx) error {
		if err := verifyTx(tx); err != nil {
			return err
		}
		if m := tx.Bucket(bucketMeta); m != nil && upgrades[string(m.Get(keySchema))] != nil {
			return nil // an older format the next writer upgrades in place
		}
		return checkSchema(tx.Bucket(bucketMeta))
	})
}

// openBolt opens the bbolt file at path after indexdir.CheckBolt, so that a
// damaged file is an error matching indexdir.ErrCorrupt, not a fault.
func openBolt(path string, opt *bolt.Options) (db *bolt.DB, err error) {
	if err := indexdir.CheckBolt(path, storeDamaged); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	err = guard(path, func() error {
		db, err = bolt.Open(path, indexdir.FileMode, opt) // every chunk's text: the user's alone
		return err
	})
	switch {
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, storeDamaged(path, err)
	case err != nil && !errors.Is(err, indexdir.ErrCorrupt):
		return nil, fmt.Errorf("open metadata store %s: %w", path, err)
	}
	return db, err
}
