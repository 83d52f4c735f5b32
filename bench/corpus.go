package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The synthetic corpus: markdown files of sectionsPerDoc sections, each
// about wordsPerSection words drawn from a Zipf distribution over
// pseudo-words, so term statistics (and so BM25's posting lists) look like
// natural text. Each section is one chunk.
const (
	sectionsPerDoc  = 10
	wordsPerSection = 110
	vocabSize       = 40000
)

var syllables = strings.Fields("ka lo mi ne ru sa ti vo be da fe gi ho ju ke la mo nu pi ro se tu wa ye zo an el in on un ar er or ix us")

// vocab builds vocabSize distinct pseudo-words of two to four syllables.
func vocab(r *rand.Rand) []string {
	seen := make(map[string]bool, vocabSize)
	words := make([]string, 0, vocabSize)
	for len(words) < vocabSize {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// corpus writes the synthetic files for about chunks chunks under dir and
// returns queries drawn from the same vocabulary: three to five words of
// middling frequency, the kind that selects a few hundred chunks; and as
// many natural ones: eight to twelve words drawn as the text draws them,
// common words included, as a question in words is (their posting lists
// grow with the corpus, which the middling words hide); and as many other
// questions in words, warm, that the bench asks first, so that the
// natural ones are timed in a process that has answered such questions
// before, as a server has.
func corpus(ctx context.Context, dir string, chunks, queries int) (qs, natural, warm []string, err error) {
	r := rand.New(rand.NewPCG(7, uint64(chunks)))
	words := vocab(r)
	zipf := rand.NewZipf(rand.New(rand.NewPCG(8, uint64(chunks))), 1.07, 2, vocabSize-1)
	docs := max(1, chunks/sectionsPerDoc)
	var b strings.Builder
	for d := range docs {
		if d%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
		}
		b.Reset()
		for s := range sectionsPerDoc {
			if s == 0 {
				fmt.Fprintf(&b, "# %s %s\n\n", words[zipf.Uint64()], words[zipf.Uint64()])
			} else {
				fmt.Fprintf(&b, "## %s %s %d\n\n", words[zipf.Uint64()], words[zipf.Uint64()], s+1)
			}
			for w := range wordsPerSection {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[zipf.Uint64()])
			}
			b.WriteString(".\n\n")
		}
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", d/1000))
		if d%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return nil, nil, nil, err
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note-%06d.md", d)), []byte(b.String()), 0o644); err != nil {
			return nil, nil, nil, err
		}
	}
	qs, natural = make([]string, queries), make([]string, queries)
	for i := range qs {
		n := 3 + r.IntN(3)
		q := make([]string, n)
		for j := range q {
			q[j] = words[50+r.IntN(5000)]
		}
		qs[i] = strings.Join(q, " ")
		q = make([]string, 8+r.IntN(5))
		for j := range q {
			q[j] = words[zipf.Uint64()]
		}
		natural[i] = strings.Join(q, " ")
	}
	// Drawn after the others, so these stay what they were.
	warm = make([]string, queries)
	for i := range warm {
		q := make([]string, 8+r.IntN(5))
		for j := range q {
			q[j] = words[zipf.Uint64()]
		}
		warm[i] = strings.Join(q, " ")
	}
	return qs, natural, warm, nil
}

// synthetic stands in for the embedding model when the corpus is indexed:
// passages get deterministic pseudo-random unit vectors clustered around
// 64 centres (as real embeddings cluster), while queries go to the real
// model, so a search pays the true query-embedding cost and walks a graph
// of realistic size. Embedding 100,000 chunks for real would take hours.
type synthetic struct {
	query   *Embedder
	centres [][]float32
}

func newSynthetic(e *Embedder) *synthetic {
	r := rand.New(rand.NewPCG(9, 10))
	s := &synthetic{query: e, centres: make([][]float32, 64)}
	for i := range s.centres {
		s.centres[i] = gaussian(r, e.Dim())
	}
	return s
}

func gaussian(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// Dim is the model's dimension.
func (s *synthetic) Dim() int { return s.query.Dim() }

// Embed embeds queries with the model and passages synthetically.
func (s *synthetic) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	if query {
		return s.query.Embed(ctx, texts, true)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := sha256.Sum256([]byte(t))
		r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
		c := s.centres[r.IntN(len(s.centres))]
		v := gaussian(r, len(c))
		var norm float64
		for j := range v {
			v[j] = c[j] + 0.6*v[j]
			norm += float64(v[j]) * float64(v[j])
		}
		inv := float32(1 / math.Sqrt(norm))
		for j := range v {
			v[j] *= inv
		}
		out[i] = v
	}
	return out, nil
}
