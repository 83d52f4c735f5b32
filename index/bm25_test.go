package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/lexical"
	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// countsIndex is a store and a lexical index kept in step by an
// Indexer's commits, as braid index keeps them.
type countsIndex struct {
	t   *testing.T
	dir string
	st  *Store
	lex *lexical.Index
	ix  *Indexer
	r   *rand.Rand
	// hashes is each live document's content hash.
	hashes map[string]string
}

func newCountsIndex(t *testing.T) *countsIndex {
	c := &countsIndex{t: t, dir: t.TempDir(), r: rand.New(rand.NewPCG(7, 11)), hashes: map[string]string{}}
	c.open()
	t.Cleanup(func() { c.close() })
	return c
}

func (c *countsIndex) open() {
	var err error
	if c.st, err = OpenStore(filepath.Join(c.dir, "meta.db"), false); err != nil {
		c.t.Fatal(err)
	}
	if c.lex, err = lexical.Open(filepath.Join(c.dir, "lex"), false, nil); err != nil {
		c.t.Fatal(err)
	}
	c.lex.StatsFrom(c.st.BM25Totals)
	c.ix = &Indexer{Store: c.st, Lexical: c.lex}
}

func (c *countsIndex) close() {
	if c.lex != nil {
		c.lex.Close()
		c.st.Close()
		c.lex = nil
	}
}

var countsWords = strings.Fields("kohlrabi garden sun water the a of plant_level plants growing grows tomato soup bread.bake ripen winter vine kiwi C:\\notes café's 東京 naïve don't x_y/z")

func (c *countsIndex) text(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = countsWords[c.r.IntN(len(countsWords))]
	}
	return strings.Join(w, " ")
}

// change is a random new version of document doc: empty fields, repeated
// words, separators, summaries, tags (sometimes more than chunkTags) and
// corpus records among them; same picks the version it had (its chunks
// indexed again under the same ids).
func (c *countsIndex) change(doc string, same bool) Change {
	r := c.r
	hash := c.hashes[doc]
	if !same || hash == "" {
		sum := sha256.Sum256([]byte(fmt.Sprint(doc, r.Uint64())))
		hash = hex.EncodeToString(sum[:])
	}
	c.hashes[doc] = hash
	d := &Document{ID: doc, SourceID: "s1", Path: "notes/" + doc + ".md", Title: c.text(r.IntN(3)), Hash: hash, Kind: KindMarkdown}
	switch r.IntN(4) {
	case 0:
		d.Frontmatter = map[string]any{"description": c.text(4)}
	case 1:
		d.Kind = KindBEIR
	}
	n := r.IntN(3)
	if r.IntN(6) == 0 {
		n = 34 // more than the lexical index puts on every chunk (its chunkTags)
	}
	for range n {
		d.Tags = append(d.Tags, countsWords[r.IntN(5)]+fmt.Sprint(r.IntN(40)))
	}
	var chunks []Chunk
	for i := range r.IntN(4) {
		var heads []string
		if r.IntN(2) == 0 {
			heads = []string{c.text(2), c.text(1)}
		}
		chunks = append(chunks, Chunk{ID: chunk.ID(doc, hash, i), DocID: doc, Ord: i, Text: c.text(r.IntN(20)), HeadingPath: heads})
	}
	return Change{Doc: d, Chunks: chunks}
}

// randomChanges is one commit's worth of random changes: new versions,
// the same version again, and deletes.
func (c *countsIndex) randomChanges() []Change {
	var out []Change
	for range 1 + c.r.IntN(4) {
		doc := fmt.Sprintf("d%d", c.r.IntN(12))
		switch c.r.IntN(5) {
		case 0:
			if c.hashes[doc] != "" {
				delete(c.hashes, doc)
				out = append(out, Change{DeleteID: doc})
				continue
			}
			out = append(out, c.change(doc, false))
		case 1:
			out = append(out, c.change(doc, true))
		default:
			out = append(out, c.change(doc, false))
		}
	}
	return out
}

func (c *countsIndex) commit(changes []Change) {
	c.t.Helper()
	if err := c.ix.commit(context.Background(), changes); err != nil {
		c.t.Fatal(err)
	}
}

// kept is what the store's totals give for the lexical index as it is;
// nil when they do not describe it.
func (c *countsIndex) kept() *search.BM25Stats {
	c.t.Helper()
	gen, err := c.lex.Gen()
	if err != nil {
		c.t.Fatal(err)
	}
	n, err := c.lex.DocCount()
	if err != nil {
		c.t.Fatal(err)
	}
	return c.st.BM25Totals().StatsAt(gen, n)
}

// checkKept fails unless the store's totals describe the lexical index
// and equal a full count of it, and the lexical index searches with them.
func (c *countsIndex) checkKept(step string) {
	c.t.Helper()
	kept := c.kept()
	if kept == nil {
		c.t.Fatalf("%s: the store's BM25 totals do not describe the lexical index", step)
	}
	counted, err := c.lex.CountStats(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	if !lexical.SameStats(kept, counted) {
		c.t.Fatalf("%s: kept statistics differ from counted (-counted +kept):\n%s", step, cmp.Diff(counted, kept))
	}
	used, err := c.lex.Stats(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	if !lexical.SameStats(used, counted) {
		c.t.Fatalf("%s: searched with other statistics than counted (-counted +used):\n%s", step, cmp.Diff(counted, used))
	}
}

// TestCountsFollowCommits: the BM25 totals each commit moves in meta.db
// equal those counted over the whole lexical index, through random adds,
// replacements, chunks indexed again under the same ids, deletes, empty
// fields, tags past chunkTags and corpus records, and across a reopen.
func TestCountsFollowCommits(t *testing.T) {
	c := newCountsIndex(t)
	for step := range 60 {
		c.commit(c.randomChanges())
		c.checkKept(fmt.Sprint("commit ", step))
		if step == 30 {
			c.close()
			c.open()
			c.checkKept("reopened")
		}
	}
}

// TestCountsRecover: a crash between the lexical batch and the meta.db
// transaction that moves the counts (or before the batch) is finished by
// Recover, counts included.
func TestCountsRecover(t *testing.T) {
	for _, tc := range []struct {
		name    string
		applied bool // the lexical batch went in before the crash
	}{{"lexical batch in", true}, {"lexical batch not in", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCountsIndex(t)
			for range 5 {
				c.commit(c.randomChanges())
			}
			changes := c.randomChanges()
			p, err := c.st.Commit(changes)
			if err != nil {
				t.Fatal(err)
			}
			if tc.applied {
				var adds []*Chunk
				for i := range changes {
					for j := range changes[i].Chunks {
						adds = append(adds, &changes[i].Chunks[j])
					}
				}
				if _, err := c.lex.Apply(p.Gen, p.Delete, lexChunks(adds), storeMeta(c.st)); err != nil {
					t.Fatal(err)
				}
			}
			c.close()
			c.open()
			if err := Recover(c.st, c.lex); err != nil {
				t.Fatal(err)
			}
			if pw, err := c.st.PendingWork(); err != nil || pw != nil {
				t.Fatalf("pending work after Recover: %+v, %v", pw, err)
			}
			c.checkKept("recovered")
			c.commit(c.randomChanges())
			c.checkKept("next commit")
		})
	}
}

// TestCountsSeeded: an index whose counts are missing (written by a braid
// that kept none) or out of step (a commit whose counts were not kept)
// counts every chunk once at its next commit and keeps them from then on;
// a rebuilt lexical index starts them again.
func TestCountsSeeded(t *testing.T) {
	c := newCountsIndex(t)
	for range 5 {
		c.commit(c.randomChanges())
	}
	// An older braid: no bucket, no totals.
	if err := c.st.update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketBM25); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Delete(keyBM25)
	}); err != nil {
		t.Fatal(err)
	}
	c.close()
	c.open()
	if c.kept() != nil {
		t.Fatal("totals kept for an index without counts")
	}
	c.commit(c.randomChanges())
	c.checkKept("seeded")

	// A commit whose counts were not kept (ClearPending without them).
	p, err := c.st.Commit(c.randomChanges())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.lex.Apply(p.Gen, p.Delete, nil, storeMeta(c.st)); err != nil {
		t.Fatal(err)
	}
	if err := c.st.ClearPending(p.Gen); err != nil {
		t.Fatal(err)
	}
	if c.kept() != nil {
		t.Fatal("totals kept for a commit whose counts were not moved")
	}
	c.commit(c.randomChanges())
	c.checkKept("seeded again")
	for range 5 {
		c.commit(c.randomChanges())
		c.checkKept("after seeding")
	}

	// A rebuilt lexical index.
	c.lex.Close()
	lex, err := lexical.Open(filepath.Join(c.dir, "lex2"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.lex = lex
	c.lex.StatsFrom(c.st.BM25Totals)
	c.ix.Lexical = lex
	if err := RebuildLexical(c.st, c.lex); err != nil {
		t.Fatal(err)
	}
	c.checkKept("rebuilt")
	c.commit(c.randomChanges())
	c.checkKept("after rebuild")
}

// TestCountsDifferingStore: when the counts of the store's chunks do not
// add up to a full count of the lexical index (here a chunk the store
// does not hold), the totals are marked failed and the statistics counted
// as before, at every later commit too.
func TestCountsDifferingStore(t *testing.T) {
	c := newCountsIndex(t)
	for range 5 {
		c.commit(c.randomChanges())
	}
	gen, err := c.lex.Gen()
	if err != nil {
		t.Fatal(err)
	}
	stray := &Chunk{ID: "stray#00000000.0", DocID: "stray", Text: "a chunk only the lexical index holds"}
	if _, err := c.lex.Apply(gen, nil, []lexical.Chunk{*stray.Lexical()}, func(string) lexical.ChunkMeta { return lexical.ChunkMeta{Title: "Stray"} }); err != nil {
		t.Fatal(err)
	}
	if err := c.st.resetCounts(nil); err != nil {
		t.Fatal(err)
	}
	for step := range 3 {
		c.commit(c.randomChanges())
		if !c.st.BM25Totals().HasFailed() {
			t.Fatalf("commit %d: totals not marked failed", step)
		}
		if c.kept() != nil {
			t.Fatalf("commit %d: totals kept for a lexical index the store's chunks do not add up to", step)
		}
		counted, err := c.lex.CountStats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		used, err := c.lex.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !lexical.SameStats(used, counted) {
			t.Fatalf("commit %d: searched with other statistics than counted (-counted +used):\n%s", step, cmp.Diff(counted, used))
		}
	}
}

// TestCountsRead: a search process reads the statistics from the store's
// totals rather than counting them, and counts them when the totals are
// of another commit.
func TestCountsRead(t *testing.T) {
	c := newCountsIndex(t)
	for range 5 {
		c.commit(c.randomChanges())
	}
	c.close()
	// Totals marked so that reading them is told from counting.
	st, err := OpenStore(filepath.Join(c.dir, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		tot := readTotals(meta)
		tot.Fields["title"] += 1000
		return putTotals(meta, tot)
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	read := func() (used, counted *search.BM25Stats) {
		st, err := OpenStore(filepath.Join(c.dir, "meta.db"), true)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		lex, err := lexical.Open(filepath.Join(c.dir, "lex"), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer lex.Close()
		lex.StatsFrom(st.BM25Totals)
		if used, err = lex.Stats(context.Background()); err != nil {
			t.Fatal(err)
		}
		if counted, err = lex.CountStats(context.Background()); err != nil {
			t.Fatal(err)
		}
		return used, counted
	}
	used, counted := read()
	if got, want := used.FieldCardinality["title"], counted.FieldCardinality["title"]+1000; got != want {
		t.Errorf("reader's title field cardinality %d, want the kept %d", got, want)
	}
	// Totals of another commit are not used.
	st, err = OpenStore(filepath.Join(c.dir, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		tot := readTotals(meta)
		tot.Gen--
		return putTotals(meta, tot)
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if used, counted := read(); !lexical.SameStats(used, counted) {
		t.Errorf("reader used totals of another commit (-counted +used):\n%s", cmp.Diff(counted, used))
	}
}

// TestStatsCheck: braid doctor's comparison of the kept statistics with a
// full count finds them equal, and finds totals changed under it.
func TestStatsCheck(t *testing.T) {
	c := newCountsIndex(t)
	for range 3 {
		c.commit(c.randomChanges())
	}
	kept, same, err := c.lex.StatsCheck(context.Background())
	if err != nil || !kept || !same {
		t.Fatalf("StatsCheck = kept %v, same %v, %v; want kept and the same", kept, same, err)
	}
	if err := c.st.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		tot := readTotals(meta)
		tot.Fields["content"]++
		return putTotals(meta, tot)
	}); err != nil {
		t.Fatal(err)
	}
	kept, same, err = c.lex.StatsCheck(context.Background())
	if err != nil || !kept || same {
		t.Fatalf("StatsCheck of changed totals = kept %v, same %v, %v; want kept and differing", kept, same, err)
	}
}
