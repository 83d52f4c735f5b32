package lexical

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/query"
)

// zipfCorpus is a synthetic corpus shaped as braid bench's (package
// bench, corpus.go): pseudo-words drawn from a Zipf distribution, so the
// common words are in most chunks, as in natural text.
type zipfCorpus struct {
	words []string
	zipf  *rand.Zipf
	r     *rand.Rand
}

func newZipfCorpus(seed uint64, vocab int) *zipfCorpus {
	r := rand.New(rand.NewPCG(seed, 7))
	syl := strings.Fields("ka lo mi ne ru sa ti vo be da fe gi ho ju ke la mo nu pi ro se tu wa ye zo an el in on un ar er or ix us")
	seen := map[string]bool{}
	var words []string
	for len(words) < vocab {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &zipfCorpus{words: words, zipf: rand.NewZipf(r, 1.07, 2, uint64(vocab-1)), r: r}
}

func (z *zipfCorpus) text(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = z.words[z.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// question is a query of 8 to 12 words drawn as the text draws them.
func (z *zipfCorpus) question() string { return z.text(8 + z.r.IntN(5)) }

// fill adds n chunks, 10 a document, to l in batches.
func (z *zipfCorpus) fill(tb testing.TB, l *Index, n, words int) {
	tb.Helper()
	meta := map[string]ChunkMeta{}
	var batch []Chunk
	flush := func() {
		if _, err := l.Apply(1, nil, batch, func(id string) ChunkMeta { return meta[id] }); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
		clear(meta)
	}
	for i := range n {
		doc := fmt.Sprintf("doc%06d", i/10)
		if i%10 == 0 {
			meta[doc] = ChunkMeta{Title: z.text(2), Path: "d/" + doc + ".md", SourceID: fmt.Sprintf("s%d", i/10%3), Tags: []string{fmt.Sprintf("t%d", i/10%4)}}
		}
		batch = append(batch, Chunk{ID: fmt.Sprintf("%s#00000000.%d", doc, i%10), DocID: doc, Ord: i % 10, Text: z.text(words), HeadingPath: []string{z.text(2)}})
		if len(batch) == 1000 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
}

// benchLexical opens (building it on first use, kept in the temporary
// folder across runs; delete it after changing the mapping or the
// corpus) a lexical index of n chunks of braid bench's shape.
func benchLexical(b *testing.B, n int) (*Index, *zipfCorpus) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("braid-lexbench-v1-%d", n))
	z := newZipfCorpus(uint64(n), 40000)
	if _, err := os.Stat(filepath.Join(dir, "done")); err != nil {
		testenv.Must(b, os.RemoveAll(dir))
		l, err := Open(filepath.Join(dir, "lex"), false, nil)
		if err != nil {
			b.Fatal(err)
		}
		z.fill(b, l, n, 110)
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	l, err := Open(filepath.Join(dir, "lex"), true, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l, z
}

// BenchmarkLexicalQuestions is BM25 top-50 on questions in words over
// braid bench's synthetic corpora, with the default title weight (a
// lexical search asks for 80 chunks): through bleve's searchers
// (bleve); the pruned search without kept postings and block bounds
// (maxscore, what it was before them); with an empty cache (first: the
// words' first ask, which makes nothing, as in a process that searches
// once); with the question asked once before, untimed (second: the ask
// that reads and keeps its words' postings, a segment's worth at most);
// and with every question's already kept (warm: words asked before, as
// a bench or a user's session repeats them; accumulated, accumulate.go),
// and the same searched by MaxScore over the block bounds (blockmax, as
// warm was before accumulation).
func BenchmarkLexicalQuestions(b *testing.B) {
	for _, n := range []int{10000, 30000, 100000} {
		for _, mode := range []string{"bleve", "maxscore", "first", "second", "blockmax", "warm"} {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, mode), func(b *testing.B) {
				l, z := benchLexical(b, n)
				var reqs []Request
				for range 100 {
					q, err := query.Parse(z.question())
					if err != nil {
						b.Fatal(err)
					}
					reqs = append(reqs, Request{Query: q, Size: 80, TitleWeight: 0.5})
				}
				ctx := context.Background()
				if _, _, err := l.Search(ctx, reqs[0]); err != nil { // the statistics, counted once
					b.Fatal(err)
				}
				if mode == "maxscore" {
					l.blocks = nil
				}
				l.noAccumulate = mode == "blockmax"
				if mode == "warm" || mode == "blockmax" { // until a pass keeps nothing more
					for made := -1; made != l.blocks.made; {
						made = l.blocks.made
						for _, r := range reqs {
							if _, _, err := l.searchWith(ctx, r, true); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
				scored := 0
				if l.blocks != nil {
					scored = l.blocks.scored
				}
				b.ReportAllocs()
				b.ResetTimer()
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					r := reqs[i%len(reqs)]
					if mode == "first" || mode == "second" {
						b.StopTimer()
						l.blocks = newBlockCache(blockCacheBytes)
						if mode == "second" {
							if _, _, err := l.searchWith(ctx, r, true); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
					}
					cpu0 := cpuTime()
					if _, _, err := l.searchWith(ctx, r, mode != "bleve"); err != nil {
						b.Fatal(err)
					}
					cpu += cpuTime() - cpu0
				}
				// The process's CPU time, steadier than the wall time
				// on a machine other work shares.
				b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
				if mode == "warm" || mode == "blockmax" {
					b.ReportMetric(float64(l.blocks.bytes)/1e6, "kept-MB")
					b.ReportMetric(float64(l.blocks.scored-scored)/float64(b.N), "scored/op")
				}
			})
		}
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLexicalKept replays braid bench's questions in words on a
// kept bench index, warm, as issue 45 measured BM25 at a million:
//
//	BRAID_LEXBENCH_INDEX=KEEP/1000000/index go test -run X -bench LexicalKept -benchtime 3x ./lexical/
//
// with KEEP a `braid bench --keep KEEP` folder (the index is opened
// read-only; BRAID_LEXBENCH_CACHE_MB sets the kept postings' bound). The questions are the bench's (package bench, corpus.go),
// regenerated from its seeds for the index's chunk count. Each
// iteration is a pass over the 100 questions, after one unmeasured
// (the index stays open across the benchmark's runs); it reports each question's CPU and wall time, p50
// and p95 over every question of every pass, the chunks scored, the
// segments accumulated (the others searched by MaxScore), the kept
// postings and the entries dropped past the cache's bound; and the CPU
// p50 of the first pass, each question's first ask on an empty cache as
// in braid bench. BRAID_LEXBENCH_PROF names a file for a CPU profile of
// the first pass's second half (with BRAID_LEXBENCH_WARM, the bench's
// timed questions).
func BenchmarkLexicalKept(b *testing.B) {
	dir := os.Getenv("BRAID_LEXBENCH_INDEX")
	if dir == "" {
		b.Skip("BRAID_LEXBENCH_INDEX names no kept bench index")
	}
	if kept.l == nil || kept.dir != dir {
		l, err := Open(filepath.Join(dir, "lexical.bleve"), true, nil)
		if err != nil {
			b.Fatal(err)
		}
		n, err := l.DocCount()
		if err != nil {
			b.Fatal(err)
		}
		var reqs []Request
		qs := benchQuestions(int(n), 100)
		if os.Getenv("BRAID_LEXBENCH_WARM") != "" {
			// The bench's order: its warm-up questions, then the timed ones.
			qs = append(qs[100:], qs[:100]...)
		} else {
			qs = qs[:100]
		}
		for _, s := range qs {
			q, err := query.Parse(s)
			if err != nil {
				b.Fatal(err)
			}
			reqs = append(reqs, Request{Query: q, Size: 80, TitleWeight: 0.5})
		}
		if mb, err := strconv.Atoi(os.Getenv("BRAID_LEXBENCH_CACHE_MB")); err == nil {
			l.blocks = newBlockCache(mb << 20)
		}
		kept.l, kept.dir, kept.reqs = l, dir, reqs
	}
	l, reqs := kept.l, kept.reqs
	ctx := context.Background()
	var walls0 []float64
	var prof *os.File        // the second half of the first pass's CPU profile
	for i, r := range reqs { // a pass unmeasured: the words' first asks
		if f := os.Getenv("BRAID_LEXBENCH_PROF"); f != "" && i == len(reqs)/2 && len(kept.first) < len(reqs) {
			var err error
			if prof, err = os.Create(f); err != nil {
				b.Fatal(err)
			}
			pprof.StartCPUProfile(prof)
		}
		t0 := time.Now()
		cpu0 := cpuTime()
		if _, _, err := l.Search(ctx, r); err != nil {
			b.Fatal(err)
		}
		if len(kept.first) < len(reqs) {
			kept.first = append(kept.first, float64(cpuTime()-cpu0)/float64(time.Millisecond))
			walls0 = append(walls0, float64(time.Since(t0))/float64(time.Millisecond))
		}
	}
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	segs := 0
	if rd, err := l.idx.Advanced(); err == nil {
		if r, err := rd.Reader(); err == nil {
			segs = len(r.(*scorch.IndexSnapshot).Segments())
			r.Close()
		}
	}
	c := l.blocks
	scored, accumulated, evicted, neChecked := c.scored, c.accumulated, c.evicted, c.neChecked
	var cpus, walls []float64
	b.ResetTimer()
	for range b.N {
		for _, r := range reqs {
			t0, cpu0 := time.Now(), cpuTime()
			if _, _, err := l.Search(ctx, r); err != nil {
				b.Fatal(err)
			}
			cpus = append(cpus, float64(cpuTime()-cpu0)/float64(time.Millisecond))
			walls = append(walls, float64(time.Since(t0))/float64(time.Millisecond))
		}
	}
	b.StopTimer()
	slices.Sort(cpus)
	slices.Sort(walls)
	q := float64(len(cpus))
	b.ReportMetric(cpus[len(cpus)/2], "cpu-p50-ms")
	b.ReportMetric(cpus[len(cpus)*95/100], "cpu-p95-ms")
	b.ReportMetric(walls[len(walls)/2], "wall-p50-ms")
	b.ReportMetric(walls[len(walls)*95/100], "wall-p95-ms")
	b.ReportMetric(float64(c.scored-scored)/q, "scored/q")
	b.ReportMetric(float64(c.accumulated-accumulated)/q, "accumulated/q")
	b.ReportMetric(float64(c.neChecked-neChecked)/q, "nechecked/q")
	b.ReportMetric(float64(segs), "segments")
	b.ReportMetric(float64(c.evicted-evicted)/q, "evicted/q")
	b.ReportMetric(float64(c.bytes)/1e6, "kept-MB")
	first := slices.Sorted(slices.Values(kept.first))
	b.ReportMetric(first[len(first)/2], "first-cpu-p50-ms")
	if len(walls0) == len(reqs) && os.Getenv("BRAID_LEXBENCH_WARM") != "" {
		after := slices.Sorted(slices.Values(kept.first[len(reqs)/2:]))
		aw := slices.Sorted(slices.Values(walls0[len(reqs)/2:]))
		b.ReportMetric(after[len(after)/2], "afterwarm-first-cpu-p50-ms")
		b.ReportMetric(aw[len(aw)/2], "afterwarm-first-wall-p50-ms")
	}
}

// kept is BenchmarkLexicalKept's index and questions, opened once.
var kept struct {
	dir  string
	l    *Index
	reqs []Request
	// first is the CPU time of each question's first ask, on an empty
	// cache (the bench's sequence).
	first []float64
}

// benchQuestions are braid bench's questions in words for an index of
// chunks chunks: its corpus's vocabulary and Zipf draws (package bench,
// corpus.go: its seeds, the draws that write the corpus, then the
// questions), regenerated without writing the corpus.
func benchQuestions(chunks, n int) []string {
	const vocabSize, sections, words = 40000, 10, 110
	r := rand.New(rand.NewPCG(7, uint64(chunks)))
	syl := strings.Fields("ka lo mi ne ru sa ti vo be da fe gi ho ju ke la mo nu pi ro se tu wa ye zo an el in on un ar er or ix us")
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < vocabSize {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteString(syl[r.IntN(len(syl))])
		}
		if s := w.String(); !seen[s] {
			seen[s] = true
			vocab = append(vocab, s)
		}
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(8, uint64(chunks))), 1.07, 2, vocabSize-1)
	for range max(1, chunks/sections) * sections * (2 + words) {
		zipf.Uint64()
	}
	out := make([]string, n)
	for i := range out {
		for range 3 + r.IntN(3) { // the middling queries' draws
			r.IntN(5000)
		}
		q := make([]string, 8+r.IntN(5))
		for j := range q {
			q[j] = vocab[zipf.Uint64()]
		}
		out[i] = strings.Join(q, " ")
	}
	for range n { // the bench's warm-up questions, drawn after (corpus)
		q := make([]string, 8+r.IntN(5))
		for j := range q {
			q[j] = vocab[zipf.Uint64()]
		}
		out = append(out, strings.Join(q, " "))
	}
	return out
}
