package braid

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/notes"
	"github.com/braidsearch/braid/query"
	"github.com/braidsearch/braid/rank"
	"github.com/braidsearch/braid/settings"
	"github.com/braidsearch/braid/snippet"
)

// SearchOptions shapes a search. The zero value asks for the 10 best
// documents with the default vector weight.
type SearchOptions struct {
	Limit int // hits to return; zero means the index's setting, else DefaultLimit (10)
	// VectorWeight mixes lexical (0) and vector (1) scores, exactly as
	// named. nil means the index's vector_weight setting, else auto where
	// vectors are available: both lists are retrieved and each query gets
	// the weight WeightModel gives its lists' predictors (Results.Weighting
	// says which and why); without vectors, 0. Without an embedding model
	// every search is lexical and a weight above 0 adds a warning.
	VectorWeight *float64
	Keyword      bool     // BM25 only, whatever the weight, and not reranked
	Sources      []string // source ids or names; any of them
	PathGlob     string   // only documents whose path (relative to its source) matches
	Tags         []string // only documents with all these tags
	Fuzzy        bool     // tolerate typos
	Similarity   float64  // with Fuzzy, how similar a word must be, 0..1; zero means DefaultSimilarity (0.8)
	Chunks       bool     // every matching chunk, not just the best one per document
	Explain      bool     // attach a score breakdown to each hit
	// Metadata keeps only documents whose metadata (set with Add or
	// Update) has every one of these key=value pairs.
	Metadata map[string]string
	// Session keeps the documents the named session's pins select
	// (Sessions); empty means any.
	Session string
	// Fusion combines the lexical and vector lists: FusionLinear (the zero
	// value) or FusionRRF.
	Fusion Fusion
	// Normalize puts the two lists' scores on one scale for FusionLinear:
	// settings.NormMinMax (the zero value) or settings.NormZScore. On
	// SciFact train the two are within 0.004 nDCG@10 of each other at
	// every weight; min-max is the default because it stays sound for
	// short lists: a query with one BM25 match gives that match full
	// lexical credit, where its z-score would be 0.
	Normalize Normalization
	// Candidates is how many chunks each retriever hands to fusion; zero
	// means the index's setting, else DefaultCandidates (50).
	Candidates int
	// DocEvidence lets a document that matches in several chunks rank
	// above one lucky chunk: each chunk gains this share of the scores of
	// its document's next two chunks in the fused list. nil means the
	// index's setting, else settings.DefaultDocEvidence (0.2); 0 turns it
	// off. It and LinkPrior apply where vectors take part (weight above
	// 0): a keyword search stays plain BM25.
	DocEvidence *float64
	// LinkPrior favours notes many others link to: each chunk's score is
	// multiplied by 1 + LinkPrior·ln(1 + the documents linking to its
	// document). nil means the index's setting, else
	// settings.DefaultLinkPrior (0, off).
	LinkPrior *float64
	// QueryInstruction says whether the query goes to the embedding model
	// with the model's retrieval instruction (bge's "Represent this
	// sentence for searching relevant passages: "). nil means the index's
	// setting, else true.
	QueryInstruction *bool
	// TitleWeight and HeadingWeight are the BM25 weights of a word matched
	// again in a note's title (and path) and in a chunk's heading path,
	// as a bonus on its match in the content, which holds them too
	// (lexical.Request); 0 counts them as body text only. nil means the
	// index's setting, else settings.DefaultTitleWeight (0.5) and
	// DefaultHeadingWeight (0), chosen in docs/benchmarks.md.
	TitleWeight, HeadingWeight *float64
	// NoRerank skips the cross-encoder for this search.
	NoRerank bool
	// Rerank asks for the cross-encoder explicitly (a --rerank flag, a
	// rerank argument): a search that cannot rerank then says why, once
	// per Engine. Without it, and without Options.RerankNamed, a missing
	// cross-encoder is silent (Capabilities says it). A keyword search
	// never reranks and never warns of it.
	Rerank bool
	// RerankBudget is the cross-encoder's time for this search; zero
	// means the index's setting (Settings), else the engine's, else the
	// reranker's own; negative means no limit.
	RerankBudget time.Duration
	// Hash answers with the document whose content hash (Document.Hash)
	// is this or starts with it (8+ hex digits), as one hit of score 1;
	// the query is ignored, the filters apply. A
	// query that looks like a hash (LooksLikeHash) and matches one is
	// answered the same way without it. See DocumentByHash.
	Hash string

	// WeightModel is the adaptive weighting a search with no
	// VectorWeight gets (fusion.Model: the lists' predictors to the
	// weight); nil means the index's (braid tune --save), else
	// fusion.DefaultModel.
	WeightModel *fusion.Model

	weightFromSettings bool // VectorWeight is the index's setting, not the caller's
}

// Normalization names how linear fusion rescales each list's scores:
// settings.NormMinMax or settings.NormZScore.
type Normalization = settings.Normalization

// Fusion names a way to combine the lexical and vector candidate lists:
// FusionLinear or FusionRRF (package settings defines them).
type Fusion = settings.Fusion

const (
	// FusionLinear mixes normalised scores: w·vector + (1−w)·lexical.
	FusionLinear = settings.FusionLinear
	// FusionRRF is weighted reciprocal rank fusion (k = 60).
	FusionRRF = settings.FusionRRF
)

// Range is a half-open byte range [Start, End) in a snippet.
type Range = snippet.Range

// Marked is the words of the hit's snippet that its highlights mark, as
// Notes().Excerpt takes them.
func (h Hit) Marked() []string {
	var words []string
	for _, r := range h.Highlights {
		if r.Start >= 0 && r.Start < r.End && r.End <= len(h.Snippet) {
			words = append(words, h.Snippet[r.Start:r.End])
		}
	}
	return words
}

// Hit is one search result.
type Hit struct {
	ID          string       `json:"id"` // document id
	ChunkID     string       `json:"chunk_id"`
	Path        string       `json:"path"`           // relative to its source; in a PDF with the page: "paper.pdf#page=7"
	Page        int          `json:"page,omitempty"` // the page of a PDF the chunk is on
	Title       string       `json:"title"`
	Score       float64      `json:"score"`
	Snippet     string       `json:"snippet"`
	Highlights  []Range      `json:"highlights"`
	Line        Lines        `json:"line"`
	Source      string       `json:"source"` // which retrievers found it: "lexical" (later "vector", "hybrid", "+rerank")
	SourceID    string       `json:"source_id"`
	HeadingPath []string     `json:"heading_path,omitempty"`
	Explain     *Explanation `json:"explain,omitempty"`
}

// Explanation breaks a hit's score down (rank.Explanation).
type Explanation = rank.Explanation

// Weighting is how a search's vector weight was decided (rank.Weighting).
type Weighting = rank.Weighting

// Results is a search's answer.
type Results struct {
	Results []Hit `json:"results"`
	// Total is how many chunks matched: BM25's matches, and where vectors
	// take part at least the chunks fused from both lists; never fewer
	// than the hits shown.
	Total  int     `json:"total"`
	TookMS float64 `json:"took_ms"`
	// Warning says when the search could not do what was asked, such as a
	// vector weight without an embedding model (it then ran BM25 only).
	// That no cross-encoder is loaded is said once per Engine, in the first
	// search that would have reranked; Capabilities says it at any time.
	Warning string `json:"warning,omitempty"`
	// Reranked is how many of the best RerankOf candidates the cross-encoder
	// read; fewer than RerankOf when the time budget ran out.
	Reranked int `json:"reranked"`
	RerankOf int `json:"rerank_of"`
	// Timings says where the time went.
	Timings Timings `json:"timings"`
	// Weighting is how a hybrid search's vector weight was decided, with
	// the predictors of its two lists; nil for a lexical search.
	Weighting *Weighting `json:"weighting,omitempty"`
	// Lookup is "hash" when the search was answered by content hash
	// (SearchOptions.Hash, or a query that is one) rather than ranked.
	Lookup string `json:"lookup,omitempty"`
}

// Timings is where a search spent its time, in milliseconds; a stage the
// search skipped is zero. TookMS also counts parsing and the loops that
// fetch more lexical candidates, so it can exceed the sum.
type Timings struct {
	Lexical float64 `json:"lexical_ms"` // BM25 candidates
	Embed   float64 `json:"embed_ms"`   // tokenizing and embedding the query
	Vector  float64 `json:"vector_ms"`  // HNSW neighbours and filters
	Fusion  float64 `json:"fusion_ms"`
	Rerank  float64 `json:"rerank_ms"`
	Hydrate float64 `json:"hydrate_ms"` // documents, snippets and highlights
}

// msSince is the time since t in milliseconds.
func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// Search answers a query. Quoted "phrases" must appear; -word excludes.
// An embedded index without documents is ErrEmptyIndex.
func (e *Engine) Search(ctx context.Context, text string, opt SearchOptions) (*Results, error) {
	start := time.Now()
	opt = e.withSettings(opt) // settings.go
	if e.cl != nil && len(opt.Metadata) > 0 {
		return nil, e.embeddedOnly("a metadata filter (the document store's)")
	}
	if e.cl == nil { // a cluster's search answers an empty index with no hits
		if err := e.emptyIndex(); err != nil {
			return nil, err
		}
	}
	if res, err := e.searchHash(text, opt, start); res != nil || err != nil { // hash.go
		return res, err
	}
	q, err := query.Parse(text)
	if err != nil {
		return nil, err
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("%w: limit %d, want 1 or more", ErrBadOption, opt.Limit)
	}
	if opt.Limit == 0 {
		opt.Limit = DefaultLimit
	}
	for _, v := range []struct {
		name string
		v    *float64
		most float64
	}{{"doc_evidence", opt.DocEvidence, 1}, {"link_prior", opt.LinkPrior, 1},
		{"title_weight", opt.TitleWeight, settings.MaxFieldWeight}, {"heading_weight", opt.HeadingWeight, settings.MaxFieldWeight}} {
		if v.v != nil && (math.IsNaN(*v.v) || *v.v < 0 || *v.v > v.most) {
			return nil, fmt.Errorf("%w: %s %v out of range, want 0..%g", ErrBadOption, v.name, *v.v, v.most)
		}
	}
	if opt.Candidates < 0 {
		return nil, fmt.Errorf("%w: candidates %d, want 1 or more", ErrBadOption, opt.Candidates)
	}
	if opt.Candidates == 0 {
		opt.Candidates = DefaultCandidates
	}
	if opt.Fusion != "" && opt.Fusion != FusionLinear && opt.Fusion != FusionRRF {
		return nil, fmt.Errorf("%w: fusion %q, want %q or %q", ErrBadOption, opt.Fusion, FusionLinear, FusionRRF)
	}
	if opt.Normalize != "" && opt.Normalize != settings.NormMinMax && opt.Normalize != settings.NormZScore {
		return nil, fmt.Errorf("%w: normalization %q, want %q or %q", ErrBadOption, opt.Normalize, settings.NormMinMax, settings.NormZScore)
	}
	res := &Results{Results: []Hit{}}
	w, warning, err := e.availability().Weight(opt.VectorWeight, opt.weightFromSettings, opt.Keyword) // vectors.go
	if err != nil {
		return nil, err
	}
	// No weight named: the lists are retrieved at the default weight and
	// fused at the one their predictors give (rank.Weigh).
	adaptive := opt.VectorWeight == nil && w > 0
	if warning != "" {
		res.Warning = warning
	}
	fuzz := 0
	if opt.Fuzzy {
		sim := opt.Similarity
		if sim == 0 {
			sim = DefaultSimilarity
		}
		if sim < 0 || sim > 1 {
			return nil, fmt.Errorf("%w: similarity %v out of range, want 0..1", ErrBadOption, sim)
		}
		fuzz = fuzziness(sim)
	}
	req, err := e.filters(opt) // hash.go
	if err != nil {
		return nil, err
	}
	req.Query, req.Fuzziness, req.Explain = q, fuzz, opt.Explain
	req.TitleWeight, req.HeadingWeight = settings.Or(opt.TitleWeight, settings.DefaultTitleWeight), settings.Or(opt.HeadingWeight, settings.DefaultHeadingWeight)
	var hits []Hit
	if w == 0 {
		// Lexical only: fetch more chunks until enough documents are found.
		req.Size = max(opt.Candidates, opt.Limit*8)
		for {
			t := time.Now()
			cands, total, err := e.ret.Lexical(ctx, req)
			if err != nil {
				return nil, err
			}
			res.Timings.Lexical += msSince(t)
			res.Total = total
			if hits, err = e.rerankAndHydrate(ctx, q, rank.Fuse(cands, nil, 0, opt.Fusion, opt.Normalize), opt, w, res); err != nil {
				return nil, err
			}
			if len(hits) >= opt.Limit || len(cands) >= total || req.Size >= 1<<16 {
				break
			}
			req.Size *= 4 // one hit per document needs more chunks
		}
	} else {
		lexC, vecC, total, err := e.retrieve(ctx, q, req, opt, w, &res.Timings)
		if err != nil {
			return nil, err
		}
		t := time.Now()
		model := fusion.DefaultModel
		if opt.WeightModel != nil {
			model = *opt.WeightModel
		}
		res.Weighting = rank.Weigh(lexC, vecC, w, adaptive, model)
		w = res.Weighting.Weight
		cands := rank.Fuse(lexC, vecC, w, opt.Fusion, opt.Normalize)
		res.Timings.Fusion = msSince(t)
		// BM25 counts its matches; the vectors match every chunk by some
		// degree, so they count the chunks they returned: a query of stop
		// words (BM25 matches nothing) still has the vector hits it shows.
		res.Total = max(total, len(cands))
		if cands, err = rank.Signals(ctx, cands, opt.DocEvidence, opt.LinkPrior, e.ret.Backlinks); err != nil {
			return nil, err
		}
		cands = res.Weighting.Keep(cands) // the guard: a confident list's best stays in the top
		if hits, err = e.rerankAndHydrate(ctx, q, cands, opt, w, res); err != nil {
			return nil, err
		}
	}
	if len(hits) > opt.Limit {
		hits = hits[:opt.Limit]
	}
	res.Total = max(res.Total, len(hits)) // never fewer than shown
	res.Results = hits
	res.TookMS = msSince(start)
	return res, nil
}

// retrieve fetches the candidates of a hybrid search from both
// retrievers: BM25 runs on its own goroutine while this one embeds the
// query and searches the vectors. The model embeds a query on one thread
// (model.Embedder), so on the embedded index BM25 has a core of its own;
// on a cluster both mostly wait on the network. Phrases and exclusions are
// enforced by the lexical index, so with them the vector candidates are
// limited to chunks the lexical query matched.
func (e *Engine) retrieve(ctx context.Context, q query.Query, req lexical.Request, opt SearchOptions, w float64, tm *Timings) (lexC []lexical.Candidate, vecC []fusion.Candidate, total int, err error) {
	k := max(opt.Candidates, opt.Limit*4)
	constrained := len(q.Phrases) > 0 || len(q.Excluded) > 0
	type lexResult struct {
		cands []lexical.Candidate
		total int
		ms    float64
		err   error
	}
	lexDone := make(chan lexResult, 1)
	if w < 1 || constrained {
		req.Size = k
		if constrained && w > 0 {
			req.Size = max(k, 1000)
		}
		go func() {
			t := time.Now()
			defer func() { // a panic here would end the process: make it this search's error
				if p := recover(); p != nil {
					lexDone <- lexResult{err: fmt.Errorf("braid: BM25 search failed: %v", p)}
				}
			}()
			c, n, err := e.ret.Lexical(ctx, req)
			lexDone <- lexResult{c, n, msSince(t), err}
		}()
	} else {
		lexDone <- lexResult{}
	}
	t := time.Now()
	qv, embedErr := e.embedQuery(ctx, q.Semantic(), opt.QueryInstruction)
	tm.Embed = msSince(t)
	if embedErr == nil {
		n := k
		if constrained {
			n = k * 8
		}
		t = time.Now()
		vecC, embedErr = e.ret.Vector(ctx, qv[0], n, req)
		tm.Vector = msSince(t)
	} else {
		embedErr = fmt.Errorf("braid: embed query: %w", embedErr)
	}
	lr := <-lexDone
	if lr.err != nil {
		return nil, nil, 0, lr.err
	}
	if embedErr != nil {
		return nil, nil, 0, embedErr
	}
	lexC, total, tm.Lexical = lr.cands, lr.total, lr.ms
	if constrained {
		vecC = rank.Matched(vecC, lexC)
	}
	if len(vecC) > k {
		vecC = vecC[:k]
	}
	if len(lexC) > k {
		lexC = lexC[:k]
	}
	if w == 1 && !constrained {
		total = len(vecC)
	}
	return lexC, vecC, total, nil
}

// rerankAndHydrate reranks the best candidates, notes on res how many
// were reranked (and any warning), and turns the ranking into hits.
func (e *Engine) rerankAndHydrate(ctx context.Context, q query.Query, cands []rank.Candidate, opt SearchOptions, w float64, res *Results) ([]Hit, error) {
	t := time.Now()
	ranked, n, of, warn, err := e.rerankTop(ctx, q, cands, opt)
	if err != nil {
		return nil, err
	}
	res.Timings.Rerank += msSince(t)
	res.Reranked, res.RerankOf = n, of
	if warn != "" && e.opt.NoRerank != "" && strings.Contains(res.Warning, e.opt.NoRerank) {
		warn = "results are not reranked either" // the same cause as the vector warning: say it once
	}
	res.Warning = joinWarnings(res.Warning, warn)
	t = time.Now()
	hits, err := e.hydrate(ctx, q, ranked, opt, w, res.Weighting)
	res.Timings.Hydrate += msSince(t)
	return hits, err
}

func joinWarnings(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// fuzziness maps a similarity (0..1) to the edit distance bleve allows (1 or 2).
func fuzziness(sim float64) int {
	if sim >= 0.75 {
		return 1
	}
	return 2
}

// hydrate turns ranked chunks into hits: one per document unless
// opt.Chunks, with snippet, highlights and lines from the store. Chunks the
// store does not know (a lexical index ahead of an interrupted commit) are
// dropped.
func (e *Engine) hydrate(ctx context.Context, q query.Query, cands []rank.Candidate, opt SearchOptions, w float64, wt *Weighting) ([]Hit, error) {
	label := rank.Label(w)
	seen := map[string]bool{}
	terms := snippet.Terms(q.Words()) // the query's words, analysed as the index does
	var hits []Hit
	// Chunks are read a window at a time (one round trip to a cluster),
	// skipping those of documents already shown.
	var (
		read   []*Chunk
		docs   []*Document
		places []int // by candidate from at: its place in read, -1 for none
		at     = 0
	)
	shown := func(chunkID string) bool { return !opt.Chunks && seen[index.ChunkDocID(chunkID)] }
	for rank0, c := range cands {
		if len(hits) == opt.Limit {
			break // snippets are the costly part: make no more than are shown
		}
		if shown(c.ChunkID) {
			continue
		}
		if rank0 >= at+len(places) {
			// As many as may be shown; on a cluster twice that, to save
			// a round trip when chunks share documents.
			want := opt.Limit - len(hits)
			if e.cl != nil {
				want *= 2
			}
			var ids []string
			ids, places = rank.Window(cands[rank0:], want, shown)
			var err error
			if read, docs, err = e.ret.Read(ctx, ids); err != nil {
				return nil, err
			}
			at = rank0
		}
		j := places[rank0-at]
		if j < 0 || read[j] == nil || docs[j] == nil {
			continue
		}
		ch, d := read[j], docs[j]
		seen[ch.DocID] = true
		for _, t := range c.Terms { // what a fuzzy match actually hit
			terms[t] = true
		}
		snip, hl := snippet.Best(ch.Text, terms, 240)
		page := ch.Page
		if page == 0 && len(d.Pages) > 0 {
			page = d.Page(ch.StartLine) // a cluster's chunk records have no page; its document's page starts do
		}
		source, score := label, c.Score
		if c.Reranked {
			source, score = label+"+rerank", c.Rerank
		}
		h := Hit{
			ID: d.ID, ChunkID: ch.ID, Path: notes.PageAnchor(d.Path, page), Page: page, Title: d.Title, Score: score,
			Snippet: snip, Highlights: hl, Line: Lines{Start: ch.StartLine, End: ch.EndLine},
			Source: source, SourceID: d.SourceID, HeadingPath: ch.HeadingPath,
		}
		if opt.Explain {
			h.Explain = c.Explain(w, opt.Fusion, opt.QueryInstruction != nil && !*opt.QueryInstruction, rank0+1, wt)
		}
		hits = append(hits, h)
	}
	return hits, nil
}
