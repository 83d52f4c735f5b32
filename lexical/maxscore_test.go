package lexical

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/braidsearch/braid/query"
)

// The pruned search returns what bleve's searchers return: the same
// chunks in the same order, the same scores (to 1e-9) and the same count
// of matches, on random corpora cut into several segments with deleted
// chunks, for random questions (common words, repeated words, stop
// words, words the index lacks, more words than bleve's slice
// disjunction takes), field weights, sizes and filters.
func TestPrunedSearchMatchesBleve(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			l, z := randomLexical(t, seed)
			r := rand.New(rand.NewPCG(seed, 99))
			ctx := context.Background()
			queries := 150
			if testing.Short() {
				queries = 50
			}
			pruned := 0
			for i := range queries {
				words := strings.Fields(z.text(1 + r.IntN(14)))
				switch r.IntN(4) {
				case 0:
					words = append(words, "the", "of")
				case 1:
					words = append(words, "zzunknown")
				case 2:
					words = append(words, words[0])
				}
				q, err := query.Parse(strings.Join(words, " "))
				if err != nil {
					t.Fatal(err)
				}
				req := Request{Query: q, Size: []int{1, 3, 10, 50, 400}[r.IntN(5)]}
				req.TitleWeight = []float64{0, 0.5, 1}[r.IntN(3)]
				req.HeadingWeight = []float64{0, 0, 0.3}[r.IntN(3)]
				switch r.IntN(6) {
				case 0:
					req.SourceIDs = []string{fmt.Sprintf("s%d", r.IntN(3))}
				case 1:
					req.Tags = []string{fmt.Sprintf("#t%d", r.IntN(5))}
				case 2:
					req.PathGlob = fmt.Sprintf("d%d/**", r.IntN(3))
				case 3:
					req.DocIDs = []string{fmt.Sprintf("doc%04d", r.IntN(200)), fmt.Sprintf("doc%04d", r.IntN(200)), "nodoc"}
				case 4:
					req.DocIDs = []string{}
				}
				if !req.prunable() {
					t.Fatalf("query %d: %+v is not prunable", i, req)
				}
				want, wantTotal, err := l.searchWith(ctx, req, false)
				if err != nil {
					t.Fatal(err)
				}
				// Without kept postings and block bounds, then five
				// times with them: the words' first ask keeps nothing, the
				// second keeps their postings, the third accumulates them
				// (accumulate.go), the fourth runs MaxScore over them, the
				// fifth accumulates every kept word in every chunk.
				for pass := range 6 {
					cache := l.blocks
					if pass == 0 {
						l.blocks = nil
					}
					l.noAccumulate, l.noSplit = pass == 4, pass == 5
					got, total, err := l.searchWith(ctx, req, true)
					l.blocks, l.noAccumulate, l.noSplit = cache, false, false
					if err != nil {
						t.Fatal(err)
					}
					if total != wantTotal {
						t.Errorf("query %d %q (%+v), pass %d: %d matches, want %d", i, q.Text, req, pass, total, wantTotal)
					}
					// bleve sums a field's words in the order its heap pops
					// them where there are more than ten.
					heap := len(Analyze(q.Text)) > searcher.DisjunctionHeapTakeover
					if err := sameRanking(got, want, req.Size, heap); err != nil {
						t.Fatalf("query %d %q (%+v), pass %d: %v", i, q.Text, req, pass, err)
					}
				}
				if len(want) > 0 {
					pruned++
				}
			}
			if pruned < queries/3 {
				t.Errorf("only %d of %d queries found anything; the test compares too little", pruned, queries)
			}
			if c := l.blocks; c.made == 0 || c.skipped == 0 || c.accumulated == 0 {
				t.Errorf("%d words' postings kept, %d blocks skipped, %d segments accumulated: the test does not reach the block bounds or the accumulation", c.made, c.skipped, c.accumulated)
			}
		})
	}
}

// On questions of braid bench's shape over a corpus of its shape, in
// several segments with deleted chunks among the kept postings, the
// pruned search with kept postings and block bounds skips blocks and
// still returns what bleve's searchers return, for few chunks asked and
// many; and an index that changes between searches (new segments, merged
// ones, other averages) does too.
func TestBlockBoundsMatchBleve(t *testing.T) {
	n, words := 4000, 60
	if testing.Short() {
		n, words = 2000, 30
	}
	path := filepath.Join(t.TempDir(), "lex")
	l, err := Open(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	z := newZipfCorpus(11, 3000)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 3))
	check := func(round int) {
		for i := range 12 {
			q, err := query.Parse(z.question())
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Query: q, Size: []int{1, 10, 80, 400}[r.IntN(4)], TitleWeight: 0.5}
			want, wantTotal, err := l.searchWith(ctx, req, false)
			if err != nil {
				t.Fatal(err)
			}
			for pass := range 5 {
				// MaxScore over the kept postings; every kept word
				// accumulated in every chunk.
				l.noAccumulate, l.noSplit = pass == 3, pass == 4
				got, total, err := l.searchWith(ctx, req, true)
				l.noAccumulate, l.noSplit = false, false
				if err != nil {
					t.Fatal(err)
				}
				if total != wantTotal {
					t.Errorf("round %d, query %d %q (k %d), pass %d: %d matches, want %d", round, i, q.Text, req.Size, pass, total, wantTotal)
				}
				heap := len(Analyze(q.Text)) > searcher.DisjunctionHeapTakeover
				if err := sameRanking(got, want, req.Size, heap); err != nil {
					t.Fatalf("round %d, query %d %q (k %d), pass %d: %v", round, i, q.Text, req.Size, pass, err)
				}
			}
		}
	}
	// Written in four batches, searched after each, with every seventh
	// chunk of the batch before deleted.
	for round := range 4 {
		z.fill(t, l, n/4, words)
		var del []string
		for c := round * n / 40; c < (round+1)*n/40; c += 7 {
			del = append(del, fmt.Sprintf("doc%06d#00000000.%d", c/10, c%10))
		}
		if _, err := l.Apply(2, del, nil, func(string) ChunkMeta { return ChunkMeta{} }); err != nil {
			t.Fatal(err)
		}
		check(round)
	}
	// What the writer's searches kept and skipped depends on how scorch
	// merged its segments meanwhile (in the background, so on the
	// machine's load): the counts are those of both opens together.
	made, skipped, scored, accumulated, ne := l.blocks.made, l.blocks.skipped, l.blocks.scored, l.blocks.accumulated, l.blocks.neChecked
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(path, true, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	check(4)
	check(5)
	made, skipped, scored, accumulated, ne = made+l.blocks.made, skipped+l.blocks.skipped, scored+l.blocks.scored, accumulated+l.blocks.accumulated, ne+l.blocks.neChecked
	t.Logf("%d words' postings kept, %d blocks skipped, %d chunks scored, %d segments accumulated, %d chunks weighed with the commonest words left out", made, skipped, scored, accumulated, ne)
	if made == 0 || skipped == 0 || scored == 0 || accumulated == 0 {
		t.Errorf("%d words' postings kept, %d blocks skipped, %d chunks scored, %d segments accumulated: the test does not reach the block bounds or the accumulation", made, skipped, scored, accumulated)
	}
}

// seek finds the first kept posting at or after a document, from any
// place, as a linear scan does, over segments past 2^16 documents (the
// postings' high bits) too.
func TestSeek(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for c := range 200 {
		var ps []fakePosting
		doc := uint64(0)
		gap := 20
		if c%4 == 0 {
			gap = 3000 // past 2^16, some high values with no posting
		}
		for range r.IntN(300) {
			doc += 1 + uint64(r.IntN(gap))
			ps = append(ps, fakePosting{doc: doc, freq: 1, norm: 1})
		}
		docs := doc + 1 + uint64(r.IntN(70000))
		tb, err := makeBlocks(fakeList(ps), docs, 10, &fieldNorms{n: make([]float32, docs)})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			if got := tb.doc(i); uint64(got) != p.doc {
				t.Fatalf("doc(%d) = %d, want %d", i, got, p.doc)
			}
		}
		for range 50 {
			i := r.IntN(len(ps) + 1)
			target := uint32(r.IntN(int(docs) + 30))
			if r.IntN(4) == 0 && len(ps) > 0 { // at a posting
				target = uint32(ps[r.IntN(len(ps))].doc)
			}
			want := i
			for want < len(ps) && ps[want].doc < uint64(target) {
				want++
			}
			if got := tb.seek(i, target); got != want {
				t.Fatalf("seek(%d, %d) over %v = %d, want %d", i, target, ps, got, want)
			}
		}
	}
}

// makeBlocks keeps each posting's document, count (past a byte too) and
// norm as zap gives them, the norms once for the segment's field (its
// own where they differ), and a saturation that is above the posting's,
// by less than one 65535th of the word's largest.
func TestKeptPostings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const docs = 200000
	lens := make([]float32, docs) // the field's norm per document
	for d := range lens {
		lens[d] = float32(1 / math.Sqrt(float64(1+r.IntN(300))))
	}
	norms := &fieldNorms{n: make([]float32, docs)}
	for w := range 20 {
		var ps []fakePosting
		for d := uint64(r.IntN(50)); d < docs; d += 1 + uint64(r.IntN(1+w*w)) {
			f := uint64(1 + r.IntN(3))
			if r.IntN(500) == 0 {
				f = 250 + uint64(r.IntN(100000))
			}
			ps = append(ps, fakePosting{doc: d, freq: f, norm: float64(lens[d])})
		}
		own := w == 19 // a word whose norms differ from the segment's
		if own {
			ps[len(ps)/2].norm /= 2
		}
		const avg = 40
		tb, err := makeBlocks(fakeList(ps), docs, avg, norms)
		if err != nil {
			t.Fatal(err)
		}
		if (tb.own != nil) != own {
			t.Fatalf("word %d: own norms %v, want %v", w, tb.own != nil, own)
		}
		for i, p := range ps {
			s := saturation1(sqrtFreq(p.freq), p.norm, avg)
			q := float64(tb.sats[i]) * tb.satWeight()
			if got := (fakePosting{doc: uint64(tb.doc(i)), freq: tb.freq(i), norm: tb.norm(i)}); got != p {
				t.Fatalf("word %d posting %d: kept %+v, want %+v", w, i, got, p)
			}
			if q < s*(1-1e-12) || q > s+tb.scale/65535*(1+1e-9) {
				t.Fatalf("word %d posting %d: quantized saturation %g for %g (scale %g)", w, i, q, s, tb.scale)
			}
		}
	}
	if n := (&blockCache{}).size(&termBlocks{lo: make([]uint16, 1000)}); n > 5*1000+200 {
		t.Errorf("a kept posting costs %d bytes, want 5", (n-128)/1000)
	}
}

// fakeList is a posting list of the postings given, ascending.
func fakeList(ps []fakePosting) segment.PostingsList { return &fakeListOf{ps: ps} }

// fakeListOf implements what makeBlocks calls; the rest panics.
type fakeListOf struct {
	segment.PostingsList
	ps []fakePosting
}

func (l *fakeListOf) Count() uint64 { return uint64(len(l.ps)) }

func (l *fakeListOf) Iterator(bool, bool, bool, segment.PostingsIterator) segment.PostingsIterator {
	return &fakePostings{ps: l.ps}
}

type fakePosting struct {
	doc, freq uint64
	norm      float64
}

func (p *fakePosting) Number() uint64    { return p.doc }
func (p *fakePosting) Frequency() uint64 { return p.freq }
func (p *fakePosting) Norm() float64     { return p.norm }

// fakePostings iterates a fakeList.
type fakePostings struct {
	segment.PostingsIterator
	ps []fakePosting
	i  int
}

func (l *fakePostings) Next() (segment.Posting, error) {
	if l.i >= len(l.ps) {
		return nil, nil
	}
	l.i++
	return &fakeSegPosting{&l.ps[l.i-1]}, nil
}

type fakeSegPosting struct{ *fakePosting }

func (fakeSegPosting) Locations() []segment.Location { return nil }
func (fakeSegPosting) Size() int                     { return 0 }

// The cache keeps what it holds under its bytes, the most recently used
// first, drops the entries of segments no longer live, makes an entry
// again for another average length, and keeps a word's postings only
// the second time it is asked of a segment.
func TestBlockCache(t *testing.T) {
	entry := func(avg float64, n int) *termBlocks {
		return &termBlocks{avg: avg, q: make([]uint8, n), lo: make([]uint16, n)}
	}
	one := (&blockCache{}).size(entry(1, 100))
	c := newBlockCache(3 * one)
	c.put(1, "a", entry(1, 100))
	c.put(1, "b", entry(1, 100))
	c.put(2, "c", entry(1, 100))
	if c.get(1, "a", 1) == nil { // a is now the most recent
		t.Fatal("a is not kept")
	}
	c.put(2, "d", entry(1, 100)) // over the bytes: b, the least recent, goes
	if c.get(1, "b", 1) != nil || c.get(1, "a", 1) == nil || c.get(2, "d", 1) == nil {
		t.Errorf("after a fourth entry: b kept %v, a %v, d %v; want only b dropped", c.get(1, "b", 1) != nil, c.get(1, "a", 1) != nil, c.get(2, "d", 1) != nil)
	}
	if c.bytes > c.max {
		t.Errorf("%d bytes kept, over the %d allowed", c.bytes, c.max)
	}
	if c.get(1, "a", 2) != nil {
		t.Error("an entry made for average length 1 is given for 2")
	}
	if c.ask(3, "x") || !c.ask(3, "x") || c.ask(4, "x") {
		t.Error("ask does not say whether a word was asked of a segment before")
	}
	c.keep([]uint64{2, 4})
	if c.get(1, "a", 1) != nil || c.get(2, "d", 1) == nil {
		t.Error("keep of segments 2 and 4 did not drop segment 1's entries alone")
	}
	if len(c.asked[3]) != 0 || !c.asked[4]["x"] || c.nAsk != 1 {
		t.Errorf("keep of segments 2 and 4 left the asked words %v (%d)", c.asked, c.nAsk)
	}
	want := 0
	for e := c.lru.Front(); e != nil; e = e.Next() {
		want += c.size(e.Value.(*blockEntry).tb)
	}
	if c.bytes != want {
		t.Errorf("%d bytes counted, the entries hold %d", c.bytes, want)
	}
}

// sameRanking says how got differs from want: a different number of
// hits, a score more than 1e-9 away, or another chunk at a rank. With
// loose, chunks whose scores are within 1e-12 of each other may come in
// either order (and, where they are the last of a full list, be other
// such chunks): bleve sums the words of a field with more than ten of
// them in the order its heap pops them, so two such chunks may differ in
// the last bit either way.
func sameRanking(got, want []Candidate, size int, loose bool) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	for j := range want {
		if math.Abs(got[j].Score-want[j].Score) > 1e-9 {
			return fmt.Errorf("hit %d: %s %.17g, want %s %.17g", j, got[j].ChunkID, got[j].Score, want[j].ChunkID, want[j].Score)
		}
	}
	near := func(a, b float64) bool { return loose && math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for j := 0; j < len(want); {
		end := j + 1
		for end < len(want) && near(want[end].Score, want[j].Score) {
			end++
		}
		if loose && end == len(want) && len(want) == size {
			break // the last tie of a full list may be cut at other chunks
		}
		ids := map[string]int{}
		for x := j; x < end; x++ {
			ids[want[x].ChunkID]++
			ids[got[x].ChunkID]--
		}
		for id, n := range ids {
			if n != 0 {
				return fmt.Errorf("hits %d to %d, of equal scores, differ at %s: got %v, want %v", j, end-1, id, got[j:end], want[j:end])
			}
		}
		j = end
	}
	return nil
}

// randomLexical is a lexical index of a few hundred random documents,
// written in several batches (so several segments) with some chunks
// deleted, opened read-only so that no merge changes it between searches.
func randomLexical(t *testing.T, seed uint64) (*Index, *zipfCorpus) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lex")
	l, err := Open(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	z := newZipfCorpus(seed, 600)
	r := rand.New(rand.NewPCG(seed, 5))
	meta := map[string]ChunkMeta{}
	var all []Chunk
	for d := range 200 {
		doc := fmt.Sprintf("doc%04d", d)
		m := ChunkMeta{Title: z.text(1 + r.IntN(4)), Path: fmt.Sprintf("d%d/%s.md", d%3, doc), SourceID: fmt.Sprintf("s%d", r.IntN(3))}
		for range r.IntN(3) {
			m.Tags = append(m.Tags, fmt.Sprintf("t%d", r.IntN(5)))
		}
		if d%50 == 7 { // more tags than a chunk carries
			for i := range chunkTags + 3 {
				m.Tags = append(m.Tags, fmt.Sprintf("t%d", i))
			}
		}
		m.Record = d%20 == 3 || seed == 2 // seed 2: no title holds a word
		meta[doc] = m
		for c := range 1 + r.IntN(6) {
			ch := Chunk{ID: fmt.Sprintf("%s#00000000.%d", doc, c), DocID: doc, Ord: c, Text: z.text(3 + r.IntN(80))}
			if r.IntN(2) == 0 {
				ch.HeadingPath = []string{z.text(1 + r.IntN(3))}
			}
			all = append(all, ch)
		}
	}
	metaOf := func(id string) ChunkMeta { return meta[id] }
	for i := 0; i < len(all); i += 150 {
		if _, err := l.Apply(uint64(i+1), nil, all[i:min(i+150, len(all))], metaOf); err != nil {
			t.Fatal(err)
		}
	}
	var del []string
	for _, c := range all {
		if r.IntN(10) == 0 {
			del = append(del, c.ID)
		}
	}
	if _, err := l.Apply(uint64(len(all)+1), del, nil, metaOf); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(path, true, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, z
}

// saturation bounds the term frequency part of every score bleve can
// give: any count in a field at least that long, with the field length
// rounded as bleve keeps it (1/sqrt of it, as a float32), for short and
// long average fields; and is close to the largest such value.
func TestSaturationBound(t *testing.T) {
	k1, b := search.BM25_k1, search.BM25_b
	for _, avg := range []float64{1, 2, 3, 7, 40, 111, 2000} {
		bound, best := saturation(avg), 0.0
		for freq := 1; freq <= 300; freq++ {
			for n := freq; n <= freq*4+50; n++ {
				norm := float64(float32(1 / math.Sqrt(float64(n))))
				fieldLength := 1 / (norm * norm)
				tf := math.Sqrt(float64(freq))
				s := tf * k1 / (tf + k1*(1-b+(b*fieldLength/avg)))
				if s > bound {
					t.Fatalf("avg %v: count %d in a field of %d gives %v, above the bound %v", avg, freq, n, s, bound)
				}
				best = max(best, s)
			}
		}
		if best < bound*0.9 {
			t.Errorf("avg %v: bound %v, the largest value %v: looser than it need be", avg, bound, best)
		}
	}
}

// Searches at once on one index keep words' postings, and the segment's
// norms they share, at once (run under -race), and answer as bleve does.
func TestConcurrentKeptSearches(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	z := newZipfCorpus(13, 2000)
	z.fill(t, l, 3000, 60)
	ctx := context.Background()
	var reqs []Request
	var wants [][]Candidate
	for range 16 {
		q, err := query.Parse(z.question())
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Query: q, Size: 10, TitleWeight: 0.5}
		want, _, err := l.searchWith(ctx, req, false)
		if err != nil {
			t.Fatal(err)
		}
		reqs, wants = append(reqs, req), append(wants, want)
	}
	l.blocks = newBlockCache(blockCacheBytes)
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			var err error
			for pass := range 3 {
				for i := range reqs {
					j := (i + w*4) % len(reqs)
					got, _, serr := l.searchWith(ctx, reqs[j], true)
					if serr != nil {
						err = serr
					} else if e := sameRanking(got, wants[j], reqs[j].Size, len(Analyze(reqs[j].Query.Text)) > searcher.DisjunctionHeapTakeover); e != nil && err == nil {
						err = fmt.Errorf("worker %d, pass %d, query %q: %v", w, pass, reqs[j].Query.Text, e)
					}
				}
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if l.blocks.made == 0 || l.blocks.accumulated == 0 {
		t.Errorf("%d words' postings kept, %d segments accumulated: the test does not keep postings", l.blocks.made, l.blocks.accumulated)
	}
}

// Where the top k is full from the segments before, accumulate leaves
// the commonest kept words out of its sums and looks them up only at the
// chunks that reach the cut without them (nonEssential, addAt): on
// questions of braid bench's shape over an index of several segments
// (scorch's merges held off) with deleted chunks, it returns what
// bleve's searchers return, and what accumulating every word does, on
// one goroutine and on several.
func TestAccumulateLeavesCommonWordsOut(t *testing.T) {
	mergeOptions = map[string]any{"MaxSegmentsPerTier": 1000, "SegmentsPerMergeTask": 1000}
	defer func() { mergeOptions = nil }()
	path := filepath.Join(t.TempDir(), "lex")
	l, err := Open(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil { // a writer that opens it holds off merges
		t.Fatal(err)
	}
	if l, err = Open(path, false, nil); err != nil {
		t.Fatal(err)
	}
	z := newZipfCorpus(5, 3000)
	z.fill(t, l, 6000, 30)
	var del []string
	for c := 0; c < 6000; c += 11 {
		del = append(del, fmt.Sprintf("doc%06d#00000000.%d", c/10, c%10))
	}
	if _, err := l.Apply(2, del, nil, func(string) ChunkMeta { return ChunkMeta{} }); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(path, true, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if segs := segmentCount(t, l); segs < 3 {
		t.Fatalf("%d segments: the test needs several", segs)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 40 {
		q, err := query.Parse(z.question())
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Query: q, Size: []int{1, 10, 80}[r.IntN(3)], TitleWeight: []float64{0, 0.5}[r.IntN(2)]}
		want, wantTotal, err := l.searchWith(ctx, req, false)
		if err != nil {
			t.Fatal(err)
		}
		// The first ask keeps the common words, the second keeps the
		// others and leaves the commonest out, the third accumulates
		// every word; the fourth and fifth do both with the segments
		// shared out among workers (searchSegments).
		for pass := range 5 {
			l.noSplit = pass == 2 || pass == 4
			if pass >= 3 {
				parallelDocs = 0
			}
			got, total, err := l.searchWith(ctx, req, true)
			l.noSplit, parallelDocs = false, 1<<16
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal {
				t.Errorf("query %d %q (k %d), pass %d: %d matches, want %d", i, q.Text, req.Size, pass, total, wantTotal)
			}
			heap := len(Analyze(q.Text)) > searcher.DisjunctionHeapTakeover
			if err := sameRanking(got, want, req.Size, heap); err != nil {
				t.Fatalf("query %d %q (k %d), pass %d: %v", i, q.Text, req.Size, pass, err)
			}
		}
	}
	if c := l.blocks; c.accumulated == 0 || c.neChecked == 0 {
		t.Errorf("%d segments accumulated, %d chunks weighed with the commonest words left out: the test does not reach them", c.accumulated, c.neChecked)
	}
}

// segmentCount is how many segments l's index has.
func segmentCount(t *testing.T, l *Index) int {
	t.Helper()
	adv, err := l.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	return len(rd.(*scorch.IndexSnapshot).Segments())
}
