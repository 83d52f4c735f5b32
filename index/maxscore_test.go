package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
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
				q, err := ParseQuery(strings.Join(words, " "))
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
				got, total, err := l.searchWith(ctx, req, true)
				if err != nil {
					t.Fatal(err)
				}
				if total != wantTotal {
					t.Errorf("query %d %q (%+v): %d matches, want %d", i, q.Text, req, total, wantTotal)
				}
				// bleve sums a field's words in the order its heap pops
				// them where there are more than ten.
				heap := len(Analyze(q.Text)) > searcher.DisjunctionHeapTakeover
				if err := sameRanking(got, want, req.Size, heap); err != nil {
					t.Fatalf("query %d %q (%+v): %v", i, q.Text, req, err)
				}
				if len(want) > 0 {
					pruned++
				}
			}
			if pruned < queries/3 {
				t.Errorf("only %d of %d queries found anything; the test compares too little", pruned, queries)
			}
		})
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
func randomLexical(t *testing.T, seed uint64) (*Lexical, *zipfCorpus) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lex")
	l, err := OpenLexical(path, false)
	if err != nil {
		t.Fatal(err)
	}
	z := newZipfCorpus(seed, 600)
	r := rand.New(rand.NewPCG(seed, 5))
	meta := map[string]ChunkMeta{}
	var all []*Chunk
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
			ch := &Chunk{ID: fmt.Sprintf("%s#00000000.%d", doc, c), DocID: doc, Ord: c, Text: z.text(3 + r.IntN(80))}
			if r.IntN(2) == 0 {
				ch.HeadingPath = []string{z.text(1 + r.IntN(3))}
			}
			all = append(all, ch)
		}
	}
	metaOf := func(id string) ChunkMeta { return meta[id] }
	for i := 0; i < len(all); i += 150 {
		if err := l.Apply(uint64(i+1), nil, all[i:min(i+150, len(all))], metaOf); err != nil {
			t.Fatal(err)
		}
	}
	var del []string
	for _, c := range all {
		if r.IntN(10) == 0 {
			del = append(del, c.ID)
		}
	}
	if err := l.Apply(uint64(len(all)+1), del, nil, metaOf); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = OpenLexical(path, true); err != nil {
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
