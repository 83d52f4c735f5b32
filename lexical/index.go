package lexical

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	regexpfilter "github.com/blevesearch/bleve/v2/analysis/char/regexp"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"
	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/query"
)

// Field names in the lexical index.
const (
	fieldContent  = "content"  // title + heading path + chunk text: the flat BM25 field
	fieldTitle    = "title"    // title, file path and summary (Document.Summary), weighed by Request.TitleWeight
	fieldHeadings = "headings" // weighed by Request.HeadingWeight
	fieldDoc      = "doc"
	fieldSource   = "source"
	fieldPath     = "path"
	fieldTags     = "tags"
)

// chunkTags is the most tags a document may have and still carry them on
// every chunk, where a tag filter finds them directly. A document with more
// carries them, and the term manyTags, on its first chunk only, and a tag
// filter finds its other chunks by document id (see tagFilter): tags on
// every chunk cost tags × chunks (a 7 MB note with 1,000 tags took 4 GB and
// 17 s to index), this costs tags + chunks. Real notes have far fewer.
const chunkTags = 32

// manyTags marks the first chunk of a document with more than chunkTags
// tags. Tags are trimmed, so no tag is this term.
const manyTags = " many tags"

var keyLexGen = []byte("braid.gen")

// Index is the BM25 index over chunks (bleve, scorch). Every Apply is one
// bleve batch, persisted before it returns. Safe for concurrent use.
type Index struct {
	idx  bleve.Index
	path string

	statsMu  sync.Mutex
	stats    *search.BM25Stats // see Stats; nil until a search needs them
	writable bool
	dirty    bool // an Apply since the statistics were saved, here or in the store
	// totals reads the BM25 totals the store keeps (bm25.go), when
	// StatsFrom gave it.
	totals func() *Totals
	// blocks keeps the pruned search's block bounds (blockmax.go); nil
	// searches without them.
	blocks *blockCache
	// filters keeps the documents each set of filters keeps
	// (filtercache.go); nil counts them on every search.
	filters *filterCache
	// noAccumulate has the pruned search leave accumulate.go out (for
	// tests of MaxScore's block bounds).
	noAccumulate bool
	// noSplit has accumulate add every kept word to every chunk (for
	// tests and the bench's comparison; see nonEssential).
	noSplit bool
	// segmentsRead is how many segments' checksums the open read
	// (Open).
	segmentsRead int
	// stamps and opened are a writer's: where Close stamps the segments
	// it wrote, and the segments its open found (stampWritten).
	stamps *indexdir.Stamps
	opened map[string]bool
}

// StatsFrom makes the lexical index read its BM25 statistics from the
// totals its store keeps of it (see bm25.go), which totals reads, when
// they are of its commit, rather than count them: the store must be the
// index's own meta.db (index.Store.Totals).
func (l *Index) StatsFrom(totals func() *Totals) {
	l.statsMu.Lock()
	l.totals = totals
	l.statsMu.Unlock()
}

// SetStats records st as the statistics of commit gen, which the store
// keeps (kept) or a writer's Close must save.
func (l *Index) SetStats(gen uint64, st *search.BM25Stats, kept bool) {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	if g, err := l.Gen(); err != nil || g != gen {
		return
	}
	l.stats = st
	if kept {
		l.dirty = false
	}
}

// lexDoc is what bleve indexes for one chunk.
type lexDoc struct {
	Content  string   `json:"content"`
	Title    string   `json:"title"`
	Headings string   `json:"headings"`
	Doc      string   `json:"doc"`
	Source   string   `json:"source"`
	Path     string   `json:"path"`
	Tags     []string `json:"tags"`
}

// analyzerName is bleve's English analyzer (possessives, lowercase, stop
// words, Porter stemming) behind a character filter that splits code
// identifiers and paths: plant.water_level is indexed as plant water level.
const analyzerName = "braid_en"

func lexMapping() *mapping.IndexMappingImpl { return buildMapping(false) }

// buildMapping is braid's mapping, with doc values on every field when
// docValues is set. Indexes written before 2026-11-29 keep doc values
// (bleve's default, which braid never read: no search sorts or facets on
// a field): their mapping, which bleve reads from the index and goes on
// writing them with, is still braid's (knownMappings). Left out, a batch's
// segment no longer writes each chunk's terms a second time, compressed,
// nor does every merge copy them.
func buildMapping(docValues bool) *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	err := m.AddCustomCharFilter("braid_split", map[string]interface{}{
		"type": regexpfilter.Name, "regexp": `[._/\\:]`, "replace": " ",
	})
	if err == nil {
		err = m.AddCustomAnalyzer(analyzerName, map[string]interface{}{
			"type":          custom.Name,
			"char_filters":  []string{"braid_split"},
			"tokenizer":     unicode.Name,
			"token_filters": []string{en.PossessiveName, lowercase.Name, en.StopName, porter.Name},
		})
	}
	if err != nil {
		panic("lexical: bad built-in analyzer: " + err.Error()) // a programming error, caught by every test
	}
	text := func(positions bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerName
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = positions // phrases and matched-term locations need them
		f.DocValues = docValues
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = docValues
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fieldContent, text(true))
	dm.AddFieldMappingsAt(fieldTitle, text(false))
	dm.AddFieldMappingsAt(fieldHeadings, text(false))
	for _, f := range []string{fieldDoc, fieldSource, fieldPath, fieldTags} {
		dm.AddFieldMappingsAt(f, kw())
	}
	m.DefaultMapping = dm
	m.DefaultAnalyzer = analyzerName
	m.ScoringModel = bleveindex.BM25Scoring
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// CreateWithDocValues creates an empty lexical index at path with the
// mapping braid wrote before doc values were left out (buildMapping(true)):
// an index as an older braid made it, for the tests of old and crafted
// indexes (a crafted doc-value chunk count needs a field with doc
// values). Open then opens it, and Apply writes doc values into it.
func CreateWithDocValues(path string) error {
	idx, err := bleve.New(path, buildMapping(true))
	if err != nil {
		return fmt.Errorf("create lexical index: %w", err)
	}
	return idx.Close()
}

// Open opens the lexical index at path, creating it when writable and
// absent. It checks every segment (its checksum and its structure, see
// checkSegment) but those stamps (the stamp file beside the index,
// PATH.verified, under this user's key; nil: none) says this user's braid
// read or wrote before, and stamps those it reads; a writer's Close stamps
// the segments it wrote. At a million chunks the segments are 1.7 GB:
// reading them all was most of a fresh search's open.
func Open(path string, readOnly bool, stamps *indexdir.Stamps) (*Index, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if readOnly {
			return nil, fmt.Errorf("open lexical index: %s does not exist; run braid index first", path)
		}
		idx, err := bleve.New(path, lexMapping())
		if err != nil {
			return nil, fmt.Errorf("create lexical index: %w", err)
		}
		// bleve makes the folder 0700, its segments and root.bolt 0600,
		// but index_meta.json with the umask's mode (0644): owner-only
		// like the rest of the index (indexdir.FileMode). Inside the 0700
		// folder no one else could reach it meanwhile.
		if err := os.Chmod(filepath.Join(path, "index_meta.json"), indexdir.FileMode); err != nil {
			idx.Close()
			return nil, fmt.Errorf("create lexical index: %w", err)
		}
		return &Index{idx: idx, path: path, writable: true, blocks: newBlockCache(blockCacheBytes), filters: newFilterCache(), stamps: stamps}, nil
	}
	idx, read, whole, err := openVerified(path, stamps)
	if err != nil {
		return nil, err
	}
	l := &Index{idx: idx, path: path, blocks: newBlockCache(blockCacheBytes), filters: newFilterCache(), segmentsRead: read}
	if readOnly {
		return l, nil
	}
	l.stamps, l.opened = stamps, whole
	// A writer reopens what it verified: bleve's merger reads segments in
	// goroutines of its own, where a damaged one would crash the process.
	if err := idx.Close(); err != nil {
		return nil, err
	}
	l.writable = true
	err = l.guard(func() error {
		l.idx, err = bleve.OpenUsing(path, writerConfig(map[string]interface{}{"read_only": false}))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open lexical index %s: %w", path, err)
	}
	return l, nil
}

// mergeOptions, where set (by tests), are the scorch merge plan options
// of a writer that opens an index made before.
var mergeOptions map[string]any

// writerConfig is cfg with mergeOptions, where set.
func writerConfig(cfg map[string]interface{}) map[string]interface{} {
	if mergeOptions == nil {
		return cfg
	}
	cfg["scorchMergePlanOptions"] = mergeOptions
	return cfg
}

// Close releases the index. A writer that changed it, where the store
// does not keep the BM25 statistics of the change (bm25.go), first saves
// them in the index, so that later processes need not count them.
func (l *Index) Close() error {
	var err error
	if l.writable && l.dirty {
		err = l.saveStats()
	}
	cerr := l.idx.Close()
	if cerr == nil && l.writable {
		stampWritten(l.path, l.stamps, l.opened)
	}
	if err == nil {
		err = cerr
	}
	return err
}

// Gen is the commit number of the last Apply.
func (l *Index) Gen() (uint64, error) {
	var v []byte
	err := l.guard(func() (err error) {
		v, err = l.idx.GetInternal(keyLexGen)
		return err
	})
	if err != nil || v == nil {
		return 0, err
	}
	return strconv.ParseUint(string(v), 10, 64)
}

// DocCount is the number of chunks in the index.
func (l *Index) DocCount() (n uint64, err error) {
	err = l.guard(func() error {
		n, err = l.idx.DocCount()
		return err
	})
	return n, err
}

// ChunkMeta is the document-level data indexed with each chunk.
type ChunkMeta struct {
	Title    string
	Summary  string // Document.Summary: searched with the title
	SourceID string
	Path     string
	Tags     []string
	// Record marks a corpus record (a BEIR line) rather than a file. A
	// record's title is a sentence of its text, not a name: it stays in
	// the content field but not in the boosted title field, where a long
	// title would outweigh the body (SciFact train nDCG@10 0.62 with the
	// boost, 0.69 without).
	Record bool
}

// ContentText is what the flat BM25 field holds for chunk c of a
// document titled title with summary (Document.Summary): the title, the
// heading path and the text, and on the document's first chunk the
// summary, so that words only the summary uses find the note (once, not
// on every chunk, where they would count as much as the body's).
func ContentText(title, summary, heads string, c *Chunk) string {
	if summary != "" && c.Ord == 0 {
		return title + "\n" + summary + "\n" + heads + "\n" + c.Text
	}
	return title + "\n" + heads + "\n" + c.Text
}

// TitleText is what the boosted BM25 title field holds for the chunks of
// a document: its title, its path without the extension and its summary
// (Document.Summary); nothing for a corpus record, whose title is a
// sentence of its text, not a name (ChunkMeta.Record).
func TitleText(title, docPath, summary string, record bool) string {
	if record {
		return ""
	}
	t := title + "\n" + strings.TrimSuffix(docPath, path.Ext(docPath))
	if summary != "" {
		t += "\n" + summary
	}
	return t
}

// Chunk is what the lexical index takes of a chunk (index.Chunk holds
// more): its id, its document's, its place in the document, its text and
// the path of headings above it.
type Chunk struct {
	ID, DocID   string
	Ord         int // position within the document, from 0
	Text        string
	HeadingPath []string
}

// Apply deletes and adds chunks and records gen, in one persisted batch.
// It returns the batch's counts for the store (bm25.go): each added
// chunk's, read from the document bleve analysed.
func (l *Index) Apply(gen uint64, del []string, add []Chunk, meta func(docID string) ChunkMeta) (*BatchCounts, error) {
	b := l.idx.NewBatch()
	for _, id := range del {
		b.Delete(id)
	}
	docs := make(map[string]*document.Document, len(add))
	for i := range add {
		c := &add[i]
		doc, err := l.document(c, meta(c.DocID))
		if err == nil {
			err = b.IndexAdvanced(doc)
		}
		if err != nil {
			return nil, fmt.Errorf("lexical index chunk %s: %w", c.ID, err)
		}
		docs[c.ID] = doc // a chunk added twice is indexed as its last
	}
	b.SetInternal(keyLexGen, []byte(strconv.FormatUint(gen, 10)))
	l.statsMu.Lock()
	l.stats, l.dirty = nil, true
	l.statsMu.Unlock()
	if err := l.guard(func() error { return l.idx.Batch(b) }); err != nil {
		return nil, fmt.Errorf("lexical index batch: %w", err)
	}
	counts := &BatchCounts{Del: del, Add: make(map[string]Counts, len(docs))}
	for id, doc := range docs {
		n, err := docCounts(doc)
		if err != nil {
			return nil, err
		}
		counts.Add[id] = n
	}
	return counts, nil
}

// document is the bleve document of chunk c of a document with meta m,
// mapped (not yet analysed).
func (l *Index) document(c *Chunk, m ChunkMeta) (*document.Document, error) {
	heads := strings.Join(c.HeadingPath, " / ")
	summary := m.Summary
	if m.Record {
		summary = ""
	}
	d := lexDoc{
		Content:  ContentText(m.Title, summary, heads, c),
		Title:    TitleText(m.Title, m.Path, m.Summary, m.Record),
		Headings: heads,
		Doc:      c.DocID,
		Source:   m.SourceID,
		Path:     m.Path,
		Tags:     chunkTagTerms(m.Tags, c.Ord),
	}
	doc := document.NewDocument(c.ID)
	if err := l.idx.Mapping().MapDocument(doc, d); err != nil {
		return nil, err
	}
	return doc, nil
}

// chunkTagTerms returns the terms of the tags field of a document's chunk
// number ord: see chunkTags.
func chunkTagTerms(tags []string, ord int) []string {
	many := len(tags) > chunkTags
	if many && ord > 0 {
		return nil
	}
	out := make([]string, len(tags), len(tags)+1)
	for i, t := range tags {
		out[i] = strings.ToLower(t)
	}
	if many {
		out = append(out, manyTags)
	}
	return out
}

// tagFilter returns the filters for the tags of r, all of which a chunk
// must have: the tag on the chunk, or the chunk's document among those with
// more than chunkTags tags that have the tag on their first chunk.
func (l *Index) tagFilter(ctx context.Context, r Request) ([]blevequery.Query, error) {
	var out []blevequery.Query
	for _, tag := range r.Tags {
		term := strings.ToLower(strings.TrimPrefix(tag, "#"))
		t := bleve.NewTermQuery(term)
		t.SetField(fieldTags)
		many := bleve.NewTermQuery(manyTags)
		many.SetField(fieldTags)
		req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(t, many), 1000, 0, false)
		any := []blevequery.Query{t}
		for {
			res, err := l.idx.SearchInContext(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("lexical search: documents tagged %s: %w", term, err)
			}
			for _, h := range res.Hits {
				d := bleve.NewTermQuery(chunk.DocID(h.ID))
				d.SetField(fieldDoc)
				any = append(any, d)
			}
			if req.From+len(res.Hits) >= int(res.Total) || len(res.Hits) == 0 {
				break
			}
			req.From += len(res.Hits)
		}
		if len(any) == 1 {
			out = append(out, t)
		} else {
			out = append(out, bleve.NewDisjunctionQuery(any...))
		}
	}
	return out, nil
}

// Request is a lexical search.
type Request struct {
	Query     query.Query
	Fuzziness int      // edit distance 0..2 for fuzzy term matching
	SourceIDs []string // any of
	PathGlob  string   // see Glob
	Tags      []string // all of
	// DocIDs, when not nil, keeps only chunks of these documents (a
	// metadata filter resolved to documents); empty matches nothing.
	DocIDs  []string
	Size    int
	Explain bool
	// TitleWeight and HeadingWeight are the BM25 weights, beside the
	// content field's 1, of a query term matched in a chunk's title (its
	// document's title and path) and in its heading path: a bonus on top
	// of the content match, which every hit needs (see bleveQuery). The
	// content field holds both already; zero leaves the field out of the
	// query, so its words count as body text only.
	TitleWeight, HeadingWeight float64
	// Workers is the most goroutines a search of questions in words
	// runs on, its segments shared out among them (searchSegments); 0
	// for one per core (GOMAXPROCS). A hybrid search, whose query
	// embedding takes a core meanwhile, asks for one fewer.
	Workers int
}

// Candidate is one chunk the lexical index matched.
type Candidate struct {
	ChunkID string
	Score   float64
	// BM25 breaks Score down by the terms matched; filled in with Explain.
	BM25  *BM25
	Terms []string // indexed terms that matched, for highlighting
	// FieldBonus is what a match in the title or headings field added to
	// Score (Request.TitleWeight, HeadingWeight); filled in with Explain.
	FieldBonus float64
}

// Search runs a BM25 query and returns the best chunks, best first, and how
// many chunks matched in all.
func (l *Index) Search(ctx context.Context, r Request) (out []Candidate, total int, err error) {
	err = l.guard(func() error {
		out, total, err = l.search(ctx, r)
		return err
	})
	return out, total, err
}

func (l *Index) search(ctx context.Context, r Request) ([]Candidate, int, error) {
	return l.searchWith(ctx, r, true)
}

// searchWith is search, through the pruned search (searchPruned) where
// prune allows and it can answer r, else through bleve's searchers.
func (l *Index) searchWith(ctx context.Context, r Request, prune bool) ([]Candidate, int, error) {
	stats, err := l.Stats(ctx)
	if err != nil {
		return nil, 0, err
	}
	ctx = context.WithValue(ctx, search.BM25StatsKey, stats)
	tags, err := l.tagFilter(ctx, r)
	if err != nil {
		return nil, 0, err
	}
	if prune && r.prunable() {
		filters, err := r.filters(tags)
		if err != nil {
			return nil, 0, err
		}
		out, total, ok, err := l.searchPruned(ctx, r, stats, filters)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			sortCandidates(out)
			return out, total, nil
		}
	}
	q, err := r.bleveQuery(tags)
	if err != nil {
		return nil, 0, err
	}
	req := bleve.NewSearchRequestOptions(q, r.Size, 0, r.Explain)
	req.IncludeLocations = r.Fuzziness > 0 // only fuzzy matches need to know which terms they hit
	// Sorting by _id in bleve costs a quarter of the search; ties are put
	// in id order below instead, so equal scores keep one order whatever
	// the segment layout. // ties in a stable order, whatever the segment layout
	res, err := l.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, 0, fmt.Errorf("lexical search: %w", err)
	}
	out := make([]Candidate, 0, len(res.Hits))
	for _, h := range res.Hits {
		c := Candidate{ChunkID: h.ID, Score: h.Score, Terms: matchedTerms(h)}
		if h.Expl != nil {
			c.BM25 = explainBM25(h.Expl)
			c.FieldBonus, _, _ = fieldBonus(h.Expl)
		}
		out = append(out, c)
	}
	sortCandidates(out)
	return out, int(res.Total), nil
}

// sortCandidates puts candidates best first, equal scores in id order.
func sortCandidates(out []Candidate) {
	slices.SortStableFunc(out, func(a, b Candidate) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.ChunkID, b.ChunkID)
	})
}

// Stats are the collection statistics BM25 scores a search with: the number
// of chunks and, per field, the number of (chunk, term) pairs, the sum of
// every term's document frequency (bleve's FieldCardinality, from which it
// derives the average field length). Left to itself bleve puts the number
// of distinct terms there, summed per segment, so that the "average
// length" is a few terms (field lengths weigh thirty times what BM25
// means them to) and a term in two segments counts twice: scores then
// depend on how the index happens to be cut into segments, on batch sizes
// and on when background merges ran. Counted over the whole index, they
// are what one fully merged segment gives, whatever the layout, and the
// average is the number of distinct terms per chunk, which the OpenSearch
// backend's similarity reads as sumDocFreq / docCount (so both backends
// score alike). Against the distinct-term count: SciFact lexical nDCG@10
// train 0.6864 → 0.6858, test 0.6779 → 0.6862. Counting them over the
// whole index (CountStats: a term reader per term, since the dictionary's
// own counts vary with the segment layout) is linear in the index (170 ms
// for SciFact's 5,728 chunks), so meta.db keeps them, moved by each
// commit (bm25.go), and a lexical index given its store (StatsFrom) reads
// them there. When the store's totals do not describe the index's commit
// they are the ones a writer saved with the commit in the lexical index
// itself (see Close), or else counted.
func (l *Index) Stats(ctx context.Context) (*search.BM25Stats, error) {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	if l.stats != nil {
		return l.stats, nil
	}
	gen, err := l.Gen()
	if err != nil {
		return nil, err
	}
	if l.totals != nil {
		n, err := l.idx.DocCount()
		if err != nil {
			return nil, err
		}
		if s := l.totals().StatsAt(gen, n); s != nil {
			l.stats = s
			return s, nil
		}
	}
	if s := l.savedStats(gen); s != nil {
		l.stats = s
		return s, nil
	}
	st, err := l.CountStats(ctx)
	if err != nil {
		return nil, err
	}
	l.stats = st
	return st, nil
}

// keyLexStats holds the savedStats of the index's commit, after their
// CRC-32 (big-endian).
var keyLexStats = []byte("braid.bm25")

// savedStats returns the saved statistics when they are whole, of commit
// gen and cover every field; nil otherwise (they are then counted again).
func (l *Index) savedStats(gen uint64) *search.BM25Stats {
	b, err := l.idx.GetInternal(keyLexStats)
	if err != nil || len(b) < 4 || crc32.ChecksumIEEE(b[4:]) != binary.BigEndian.Uint32(b) {
		return nil
	}
	var s savedStats
	if json.Unmarshal(b[4:], &s) != nil || s.Gen != gen || s.Basis != statsBasis {
		return nil
	}
	fields, err := l.idx.Fields()
	if err != nil {
		return nil
	}
	for _, f := range append(fields, unnamedFields...) {
		if _, ok := s.Stats.FieldCardinality[f]; !ok {
			return nil
		}
	}
	return &s.Stats
}

type savedStats struct {
	Gen   uint64           `json:"gen"`
	Stats search.BM25Stats `json:"stats"`
	// Basis names what FieldCardinality counts (statsBasis); statistics
	// saved by a braid that counted something else are counted again.
	Basis string `json:"basis,omitempty"`
}

// statsBasis is what CountStats puts in FieldCardinality: the number of
// (chunk, term) pairs of each field.
const statsBasis = "term-docs"

// saveStats saves the statistics with the commit, counting them unless a
// search since the last Apply already has. It is Close's, which has no
// context to count under.
func (l *Index) saveStats() error {
	return l.guard(func() error {
		gen, err := l.Gen()
		if err != nil {
			return err
		}
		l.statsMu.Lock()
		st := l.stats
		l.statsMu.Unlock()
		if st == nil {
			if st, err = l.CountStats(context.Background()); err != nil {
				return err
			}
		}
		js, err := json.Marshal(savedStats{Gen: gen, Stats: *st, Basis: statsBasis})
		if err != nil {
			return err
		}
		b := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(js))
		batch := l.idx.NewBatch()
		batch.SetInternal(keyLexStats, append(b, js...))
		if err := l.idx.Batch(batch); err != nil {
			return fmt.Errorf("lexical index: save BM25 statistics: %w", err)
		}
		l.statsMu.Lock()
		l.stats, l.dirty = st, false
		l.statsMu.Unlock()
		return nil
	})
}

// unnamedFields are what queries that name no field search: they hold no
// terms (bleve counts 0 for them too), but BM25 statistics must name them.
var unnamedFields = []string{"*", "_all"}

// CountStats counts what Stats returns over the whole index, a term
// reader per term: linear in the index.
func (l *Index) CountStats(ctx context.Context) (*search.BM25Stats, error) {
	n, err := l.idx.DocCount()
	if err != nil {
		return nil, err
	}
	fields, err := l.idx.Fields()
	if err != nil {
		return nil, err
	}
	adv, err := l.idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st := &search.BM25Stats{DocCount: float64(n), FieldCardinality: make(map[string]int, len(fields)+len(unnamedFields))}
	for _, f := range unnamedFields {
		st.FieldCardinality[f] = 0
	}
	for _, f := range fields {
		d, err := r.FieldDict(f)
		if err != nil {
			return nil, err
		}
		c := 0
		for {
			e, err := d.Next()
			if err != nil {
				d.Close()
				return nil, err
			}
			if e == nil {
				break
			}
			// The term's document frequency as the scorer reads it (the
			// dictionary's own count varies with the segment layout).
			tr, err := r.TermFieldReader(ctx, []byte(e.Term), f, false, false, false)
			if err != nil {
				d.Close()
				return nil, err
			}
			c += int(tr.Count())
			tr.Close()
		}
		if err := d.Close(); err != nil {
			return nil, err
		}
		st.FieldCardinality[f] = c
	}
	return st, nil
}

func matchedTerms(h *search.DocumentMatch) []string {
	seen := map[string]bool{}
	var out []string
	for field, terms := range h.Locations {
		if field != fieldContent {
			continue
		}
		for t := range terms {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// bleveQuery builds the query of r, with tags the filters for its tags
// (see tagFilter). Free terms must match in the content field, which
// holds a chunk's title and heading path too; a match in the title or
// headings fields, where r weighs them above 0, adds to that score
// without making it required, so a chunk that answers in its body alone
// is not scored down (as it would be as one of three optional fields,
// by bleve's coordination factor).
func (r Request) bleveQuery(tags []blevequery.Query) (blevequery.Query, error) {
	var should []blevequery.Query
	if len(r.Query.Terms) > 0 {
		text := strings.Join(r.Query.Terms, " ")
		match := func(field string, boost float64) blevequery.Query {
			m := bleve.NewMatchQuery(text)
			m.SetField(field)
			m.SetBoost(boost)
			if r.Fuzziness > 0 {
				m.SetFuzziness(r.Fuzziness)
			}
			return m
		}
		terms := bleve.NewBooleanQuery()
		terms.AddMust(match(fieldContent, 1))
		for _, f := range []struct {
			name   string
			weight float64
		}{{fieldTitle, r.TitleWeight}, {fieldHeadings, r.HeadingWeight}} {
			if f.weight > 0 {
				terms.AddShould(match(f.name, f.weight))
			}
		}
		should = append(should, terms)
	}
	main := bleve.NewBooleanQuery()
	for _, p := range r.Query.Phrases {
		pq := bleve.NewMatchPhraseQuery(p)
		pq.SetField(fieldContent)
		main.AddMust(pq)
	}
	if len(should) > 0 {
		main.AddShould(should...)
		if len(r.Query.Phrases) == 0 {
			main.SetMinShould(1)
		}
	}
	for _, x := range r.Query.Excluded {
		m := bleve.NewMatchQuery(x)
		m.SetField(fieldContent)
		main.AddMustNot(m)
	}
	if len(should) == 0 && len(r.Query.Phrases) == 0 {
		return nil, query.ErrEmptyQuery
	}
	filters, err := r.filters(tags)
	if err != nil {
		return nil, err
	}
	if len(filters) > 0 {
		main.AddFilter(bleve.NewConjunctionQuery(filters...))
	}
	return main, nil
}

// filters are the filters of r, all of which a chunk must pass, with tags
// the filters for its tags (see tagFilter).
func (r Request) filters(tags []blevequery.Query) ([]blevequery.Query, error) {
	var filters []blevequery.Query
	if len(r.SourceIDs) > 0 {
		var any []blevequery.Query
		for _, s := range r.SourceIDs {
			t := bleve.NewTermQuery(s)
			t.SetField(fieldSource)
			any = append(any, t)
		}
		filters = append(filters, bleve.NewDisjunctionQuery(any...))
	}
	filters = append(filters, tags...)
	if r.DocIDs != nil {
		any := []blevequery.Query{bleve.NewMatchNoneQuery()}
		for _, id := range r.DocIDs {
			t := bleve.NewTermQuery(id)
			t.SetField(fieldDoc)
			any = append(any, t)
		}
		filters = append(filters, bleve.NewDisjunctionQuery(any...))
	}
	if r.PathGlob != "" {
		re, err := query.GlobRegexp(r.PathGlob)
		if err != nil {
			return nil, err
		}
		rq := bleve.NewRegexpQuery(re)
		rq.SetField(fieldPath)
		filters = append(filters, rq)
	}
	return filters, nil
}

// Token is an analysed term and where its word is in the analysed text.
type Token struct {
	Term       string
	Start, End int // byte offsets
}

// Analyze runs the index's text analyzer (the one queries and content go
// through) over text, so callers can find which words a query matched.
func (l *Index) Analyze(text string) []Token { return Analyze(text) }

// Analyze runs the lexical index's text analyzer over text; it needs no
// index, so an engine whose chunks live elsewhere marks snippets the same
// way.
func Analyze(text string) []Token {
	a := analyzer()
	if a == nil {
		return nil
	}
	stream := a.Analyze([]byte(text))
	out := make([]Token, len(stream))
	for i, t := range stream {
		out[i] = Token{Term: string(t.Term), Start: t.Start, End: t.End}
	}
	return out
}

var (
	fastOnce sync.Once
	fast     analysis.Analyzer
)

// analyzer is the index's analyzer for snippets and query terms. The index
// splits words at [._/\\:] with a regexp char filter, the costliest step of
// analysis; this copy does the same one-byte-for-one-byte replacement with
// a table, so terms and offsets are identical.
func analyzer() analysis.Analyzer {
	fastOnce.Do(func() {
		a := lexMapping().AnalyzerNamed(analyzerName)
		fast = a
		if d, ok := a.(*analysis.DefaultAnalyzer); ok && len(d.CharFilters) == 1 {
			c := *d
			c.CharFilters = []analysis.CharFilter{splitChars{}}
			fast = &c
		}
	})
	return fast
}

// splitChars turns the separators the index splits words at into spaces.
type splitChars struct{}

func (splitChars) Filter(in []byte) []byte {
	out := make([]byte, len(in))
	for i, b := range in {
		switch b {
		case '.', '_', '/', '\\', ':':
			b = ' '
		}
		out[i] = b
	}
	return out
}

// fieldBonus is what the title and headings fields added to the score
// whose explanation e is: the sum of the values of the largest parts of
// the tree whose term weights are all in those fields (the should part of
// the terms query, see bleveQuery). only says all of e's term weights
// are in them, and weighs that e has any.
func fieldBonus(e *search.Explanation) (bonus float64, only, weighs bool) {
	if field, ok := strings.CutPrefix(e.Message, "weight("); ok {
		field, _, _ = strings.Cut(field, ":")
		only = field == fieldTitle || field == fieldHeadings
		if only {
			bonus = e.Value
		}
		return bonus, only, true
	}
	only = true
	for _, c := range e.Children {
		b, o, w := fieldBonus(c)
		if !w {
			continue
		}
		bonus, only, weighs = bonus+b, only && o, true
	}
	if weighs && only {
		bonus = e.Value
	}
	return bonus, only && weighs, weighs
}
