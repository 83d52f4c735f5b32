package graph

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults of GapOptions.
const (
	DefaultGapLimit     = 10
	DefaultGapNeighbors = 10
	// DefaultThreshold is the least cosine similarity of two document
	// embeddings for a gap.
	DefaultThreshold = 0.8
	// DefaultLexicalThreshold is the least tf-idf cosine similarity for a
	// gap when there are no embeddings: word overlap scores lower than
	// embeddings for the same pair.
	DefaultLexicalThreshold = 0.3
)

// GapOptions tunes Gaps. The zero value means the defaults.
type GapOptions struct {
	// Limit is how many pairs to return, best first; 0 means 10.
	Limit int
	// Threshold is the least similarity of a pair, 0..1; 0 means
	// DefaultThreshold with embeddings, DefaultLexicalThreshold without.
	Threshold float64
	// Neighbors is how many nearest documents each document is compared
	// with; 0 means 10.
	Neighbors int
}

// Doc is a document as gap finding sees it.
type Doc struct {
	Node
	// Text is the document's text: its distinctive words explain a pair,
	// and without vectors they measure similarity.
	Text string
	// Vector is the document's embedding (for example the mean of its
	// chunks' embeddings); nil everywhere means lexical similarity.
	Vector []float32
}

// Gap is two similar documents that no edge joins.
type Gap struct {
	A          Node    `json:"a"`
	B          Node    `json:"b"`
	Similarity float64 `json:"similarity"`
	// Terms are the words both documents use that few others do, most
	// distinctive first.
	Terms []string `json:"terms"`
	// Suggest is the link that would close the gap.
	Suggest Suggestion `json:"suggest"`
	// Reason says in words why the pair is listed.
	Reason string `json:"reason"`
}

// Suggestion is a link to add: CITES (a [[wikilink]]) from a document that
// names the other without linking it, else a "related" frontmatter
// relation.
type Suggestion struct {
	Type string `json:"type"`
	From string `json:"from"` // document id
	To   string `json:"to"`   // document id
}

// Gaps finds pairs of documents at least opt.Threshold similar that
// linked does not report as joined, best first. With vectors it compares
// each document with its opt.Neighbors nearest by cosine in an HNSW graph
// of the document vectors (documents without a vector are left out);
// without any, it compares tf-idf vectors of their words, each document
// with those it shares the most rare words with. It reports whether it
// used vectors.
func Gaps(docs []Doc, linked func(a, b string) bool, near Nearest, opt GapOptions) (gaps []Gap, vectors bool, err error) {
	limit, k := opt.Limit, opt.Neighbors
	if limit == 0 {
		limit = DefaultGapLimit
	}
	if k == 0 {
		k = DefaultGapNeighbors
	}
	if limit < 0 || k < 0 || math.IsNaN(opt.Threshold) || opt.Threshold < 0 || opt.Threshold > 1 {
		return nil, false, fmt.Errorf("graph: gap options limit %d, neighbors %d, threshold %v: want limit and neighbors of 0 or more and a threshold in 0..1", opt.Limit, opt.Neighbors, opt.Threshold)
	}
	dim := 0
	for _, d := range docs {
		switch {
		case d.Vector == nil:
		case dim == 0:
			dim = len(d.Vector)
		case len(d.Vector) != dim:
			return nil, false, fmt.Errorf("graph: document %s has a %d-dimensional vector, others %d", d.Path, len(d.Vector), dim)
		}
		vectors = vectors || d.Vector != nil
	}
	threshold := opt.Threshold
	if threshold == 0 {
		threshold = DefaultLexicalThreshold
		if vectors {
			threshold = DefaultThreshold
		}
	}
	tf := newTFIDF(docs)
	var pairs []pair
	if vectors {
		pairs, err = vectorPairs(docs, near, k, threshold)
	} else {
		pairs = tf.pairs(k, threshold)
	}
	if err != nil {
		return nil, vectors, err
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(docs[a.a].ID, docs[b.a].ID), cmp.Compare(docs[a.b].ID, docs[b.b].ID))
	})
	seen := map[Pair]bool{}
	for _, p := range pairs {
		if len(gaps) == limit {
			break
		}
		a, b := &docs[p.a], &docs[p.b]
		key := MakePair(a.ID, b.ID)
		if seen[key] || (linked != nil && linked(a.ID, b.ID)) {
			continue
		}
		seen[key] = true
		if b.Path < a.Path || b.Path == a.Path && b.ID < a.ID {
			a, b = b, a
		}
		gaps = append(gaps, gap(a, b, p.sim, tf.shared(p.a, p.b, 5), vectors))
	}
	return gaps, vectors, nil
}

// pair is two documents by index, with their similarity.
type pair struct {
	a, b int
	sim  float64
}

// Nearest finds, for each of vecs, up to k of vecs nearest it by cosine
// similarity, best first (itself may be among them), as indexes into vecs
// with their similarity. The engine answers it with an HNSW graph of the
// vectors; graph knows nothing of how.
type Nearest func(vecs [][]float32, k int) ([][]Neighbor, error)

// Neighbor is one answer of a Nearest: vecs[Index], Score similar.
type Neighbor struct {
	Index int
	Score float64
}

// vectorPairs pairs each document with its nearest neighbours by vector.
func vectorPairs(docs []Doc, near Nearest, k int, threshold float64) ([]pair, error) {
	if near == nil {
		return nil, fmt.Errorf("graph: gaps by embedding need a Nearest")
	}
	var vecs [][]float32
	var at []int // docs index of each of vecs
	for i, d := range docs {
		if d.Vector != nil {
			vecs = append(vecs, d.Vector)
			at = append(at, i)
		}
	}
	found, err := near(vecs, k+1)
	if err != nil {
		return nil, err
	}
	var out []pair
	for v, ns := range found {
		i := at[v]
		for _, n := range ns {
			if n.Score < threshold {
				break
			}
			if j := at[n.Index]; j != i {
				out = append(out, pair{min(i, j), max(i, j), n.Score})
			}
		}
	}
	return out, nil
}

func gap(a, b *Doc, sim float64, terms []string, vectors bool) Gap {
	g := Gap{A: a.Node, B: b.Node, Similarity: math.Round(sim*10000) / 10000, Terms: terms}
	var why []string
	if vectors {
		why = append(why, fmt.Sprintf("embeddings %.2f similar", sim))
	} else {
		why = append(why, fmt.Sprintf("words %.2f similar (tf-idf cosine)", sim))
	}
	if len(terms) > 0 {
		why = append(why, "both use "+strings.Join(terms, ", "))
	}
	same := strings.EqualFold(strings.TrimSpace(a.Title), strings.TrimSpace(b.Title))
	switch {
	case !same && mentions(a.Text, b.Title):
		g.Suggest = Suggestion{Type: Cites, From: a.ID, To: b.ID}
		why = append(why, fmt.Sprintf("%q names %q without linking it", a.Title, b.Title))
	case !same && mentions(b.Text, a.Title):
		g.Suggest = Suggestion{Type: Cites, From: b.ID, To: a.ID}
		why = append(why, fmt.Sprintf("%q names %q without linking it", b.Title, a.Title))
	default:
		g.Suggest = Suggestion{Type: "related", From: a.ID, To: b.ID}
		why = append(why, "no link either way")
	}
	g.Reason = strings.Join(why, "; ")
	return g
}

// mentions reports whether text holds title as whole words, ignoring case.
func mentions(text, title string) bool {
	title = strings.ToLower(strings.TrimSpace(title))
	if utf8.RuneCountInString(title) < 3 {
		return false
	}
	text = strings.ToLower(text)
	for off := 0; ; {
		i := strings.Index(text[off:], title)
		if i < 0 {
			return false
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(title):])
		if !isWord(before) && !isWord(after) {
			return true
		}
		off = i + 1
	}
}

func isWord(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// tfidf holds each document's words as a unit-length tf-idf vector,
// sorted by term id.
type tfidf struct {
	terms []string    // term id -> word
	vecs  [][]weight  // per document
	post  [][]posting // term id -> documents using it, when useful for candidates
}

type weight struct {
	term int32
	w    float32
}

type posting struct {
	doc int32
	w   float32
}

func newTFIDF(docs []Doc) *tfidf {
	t := &tfidf{vecs: make([][]weight, len(docs))}
	ids := map[string]int32{}
	var df []int32
	counts := make([]map[int32]int32, len(docs))
	for i := range docs {
		c := map[int32]int32{}
		words(docs[i].Text, func(w string) {
			id, ok := ids[w]
			if !ok {
				id = int32(len(t.terms))
				ids[w] = id
				t.terms = append(t.terms, w)
				df = append(df, 0)
			}
			if c[id] == 0 {
				df[id]++
			}
			c[id]++
		})
		counts[i] = c
	}
	n := float64(len(docs))
	for i, c := range counts {
		v := make([]weight, 0, len(c))
		var norm float64
		for id, f := range c {
			w := (1 + math.Log(float64(f))) * math.Log((n+1)/(float64(df[id])+1))
			if w > 0 {
				v = append(v, weight{id, float32(w)})
				norm += w * w
			}
		}
		inv := float32(1 / math.Sqrt(norm))
		for j := range v {
			v[j].w *= inv
		}
		slices.SortFunc(v, func(a, b weight) int { return cmp.Compare(a.term, b.term) })
		t.vecs[i] = v
	}
	// Candidates come from words shared by 2 to half the documents:
	// commoner ones weigh little and would make every pair a candidate.
	maxDF := max(2, int32(len(docs)/2))
	t.post = make([][]posting, len(t.terms))
	for i, v := range t.vecs {
		for _, w := range v {
			if d := df[w.term]; d >= 2 && d <= maxDF {
				t.post[w.term] = append(t.post[w.term], posting{int32(i), w.w})
			}
		}
	}
	return t
}

// pairs compares each document with the k that share the most weight of
// rare words with it, and keeps the pairs at least threshold similar.
func (t *tfidf) pairs(k int, threshold float64) []pair {
	acc := make([]float32, len(t.vecs))
	var touched, best []int32
	var out []pair
	for i, v := range t.vecs {
		touched = touched[:0]
		for _, w := range v {
			for _, p := range t.post[w.term] {
				if int(p.doc) == i {
					continue
				}
				if acc[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				acc[p.doc] += w.w * p.w
			}
		}
		// The k best by shared weight, kept sorted in a small slice.
		best = best[:0]
		for _, j := range touched {
			if len(best) < k || better(acc, j, best[len(best)-1]) {
				at, _ := slices.BinarySearchFunc(best, j, func(x, y int32) int {
					if better(acc, x, y) {
						return -1
					}
					return 1
				})
				best = slices.Insert(best, at, j)
				if len(best) > k {
					best = best[:k]
				}
			}
		}
		for _, j := range best {
			if sim := cosine(v, t.vecs[j]); sim >= threshold {
				out = append(out, pair{min(i, int(j)), max(i, int(j)), sim})
			}
		}
		for _, j := range touched {
			acc[j] = 0
		}
	}
	return out
}

// better orders candidates by shared weight, then by index.
func better(acc []float32, a, b int32) bool {
	return acc[a] > acc[b] || acc[a] == acc[b] && a < b
}

func cosine(a, b []weight) float64 {
	var dot float64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].term < b[j].term:
			i++
		case a[i].term > b[j].term:
			j++
		default:
			dot += float64(a[i].w) * float64(b[j].w)
			i++
			j++
		}
	}
	return min(dot, 1)
}

// shared returns up to n words two documents share, by the product of
// their weights.
func (t *tfidf) shared(a, b, n int) []string {
	var both []weight
	va, vb := t.vecs[a], t.vecs[b]
	for i, j := 0, 0; i < len(va) && j < len(vb); {
		switch {
		case va[i].term < vb[j].term:
			i++
		case va[i].term > vb[j].term:
			j++
		default:
			both = append(both, weight{va[i].term, va[i].w * vb[j].w})
			i++
			j++
		}
	}
	slices.SortFunc(both, func(x, y weight) int {
		return cmp.Or(cmp.Compare(y.w, x.w), cmp.Compare(t.terms[x.term], t.terms[y.term]))
	})
	out := []string{}
	for _, w := range both[:min(n, len(both))] {
		out = append(out, t.terms[w.term])
	}
	return out
}

// words calls fn with each word of text worth comparing: lower-cased runs
// of letters and digits, 3 to 40 characters, not a stop word, and not
// mostly digits or an id in hex (5c213aa6, 1bdcb33ce202).
func words(text string, fn func(string)) {
	start := -1
	letters, digits := 0, 0
	hex := true
	emit := func(end int) {
		if start >= 0 && letters > digits && !(hex && digits > 0 && end-start >= 6) && end-start >= 3 {
			w := text[start:end]
			if n := utf8.RuneCountInString(w); n >= 3 && n <= 40 {
				w = strings.ToLower(w)
				if !stop[w] {
					fn(w)
				}
			}
		}
		start, letters, digits, hex = -1, 0, 0, true
	}
	for i, r := range text {
		l := r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') || r >= utf8.RuneSelf && unicode.IsLetter(r)
		d := '0' <= r && r <= '9' || r >= utf8.RuneSelf && unicode.IsDigit(r)
		if l || d {
			if start < 0 {
				start = i
			}
			if l {
				letters++
				hex = hex && ('a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
			} else {
				digits++
			}
			continue
		}
		emit(i)
	}
	emit(len(text))
}

// stop holds English function words and the web and markdown words that
// say nothing about a document's subject.
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		about above after again against all also although among and another any are around
		because been before being below between both but can cannot could did does doing done
		down during each either else even ever every few for from further had has have having
		her here hers herself him himself his how however into its itself just least less let
		like made make many may more most much must myself neither nor not now off once one only
		other others our ours ourselves out over own per same see she should since some such
		than that the their theirs them themselves then there these they this those though
		through too under until upon use used uses using very was way well were what when where
		whether which while who whom whose why will with within without would yet you your yours
		yourself yourselves
		http https www com org net html htm png jpg jpeg gif svg pdf todo
	`) {
		m[w] = true
	}
	return m
}()
