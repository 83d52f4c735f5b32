package braid

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/notes"
	"github.com/braidsearch/braid/query"
	"github.com/braidsearch/braid/rank"
	"github.com/braidsearch/braid/settings"
	"github.com/braidsearch/braid/snippet"
)

// Search answers a query. Quoted "phrases" must appear; -word excludes.
// An embedded index without documents is ErrEmptyIndex. It reads as the
// pipeline: check → retrieve → weigh → fuse → signals → keep → rerank →
// hydrate, each stage's work in its package.
func (e *Engine) Search(ctx context.Context, text string, opt SearchOptions) (*Results, error) {
	start := time.Now()
	opt, err := e.checked(opt) // options.go
	if err != nil {
		return nil, err
	}
	if err := e.searchable(opt); err != nil {
		return nil, err
	}
	if res, err := e.searchHash(ctx, text, opt, start); res != nil || err != nil { // hash.go
		return res, err
	}
	q, err := query.Parse(text)
	if err != nil {
		return nil, err
	}
	req, err := e.filters(ctx, opt) // hash.go
	if err != nil {
		return nil, err
	}
	req.Query, req.Fuzziness, req.Explain = q, fuzziness(opt), opt.Explain
	req.TitleWeight, req.HeadingWeight = settings.Or(opt.TitleWeight, settings.DefaultTitleWeight), settings.Or(opt.HeadingWeight, settings.DefaultHeadingWeight)
	res := &Results{Results: []Hit{}}

	decided, warning := e.weight(opt) // the weight the lists are retrieved at
	res.Warning = warning
	lexC, vecC, total, err := e.retrieve(ctx, q, req, opt, decided.Weight, &res.Timings)
	if err != nil {
		return nil, err
	}
	t := time.Now()
	hybrid, w := decided.Weight > 0, 0.0
	if hybrid { // a lexical search has one list and no weighting
		res.Weighting = rank.Weigh(lexC, vecC, decided, settings.Or(opt.WeightModel, fusion.DefaultModel))
		w = res.Weighting.Weight
	}
	cands := rank.Fuse(lexC, vecC, w, opt.Fusion, opt.Normalize)
	res.Timings.Fusion = msSince(t)
	res.Total = total
	if hybrid { // a lexical search stays plain BM25
		// BM25 counts its matches; the vectors match every chunk by some
		// degree, so they count the chunks they returned: a query of stop
		// words (BM25 matches nothing) still has the vector hits it shows.
		res.Total = max(total, len(cands))
		if cands, err = rank.Signals(ctx, cands, opt.DocEvidence, opt.LinkPrior, e.ret.Backlinks); err != nil {
			return nil, err
		}
	}
	cands = res.Weighting.Keep(cands)                                      // the guard: a confident list's best stays in the top
	cands, warn, slow, err := e.rerank(ctx, q.Semantic(), cands, opt, res) // rerank.go
	if err != nil {
		return nil, err
	}
	res.Warning = joinWarnings(res.Warning, warn)
	t = time.Now()
	hits, err := e.hydrate(ctx, snippet.Terms(q.Words()), cands, opt, w, res.Weighting)
	if err != nil {
		return nil, err
	}
	res.Timings.Hydrate = msSince(t)
	if slow != "" && len(hits) > 0 && hits[0].Explain != nil {
		hits[0].Explain.RerankSlow = slow // said once, as First is
	}
	res.Results = hits[:min(len(hits), opt.Limit)]
	res.Total = max(res.Total, len(res.Results)) // never fewer than shown
	res.TookMS = msSince(start)
	return res, nil
}

// searchable refuses a search this index cannot answer: an embedded
// index without documents (ErrEmptyIndex; a cluster's search answers an
// empty index with no hits), or a metadata filter on a cluster.
func (e *Engine) searchable(opt SearchOptions) error {
	if e.cl != nil {
		if len(opt.Metadata) > 0 {
			return e.embeddedOnly("a metadata filter (the document store's)")
		}
		return nil
	}
	return e.emptyIndex()
}

// weight decides the weight a search's lists are retrieved at
// (fusion.Choice) from its options and whether vectors can be used
// (vecstore.Availability.Usable, with its warning).
func (e *Engine) weight(opt SearchOptions) (fusion.Decision, string) {
	usable, warning := e.availability().Usable(opt.VectorWeight, opt.weightFromSettings, opt.Keyword) // vectors.go
	c := fusion.Choice{Named: opt.VectorWeight, Setting: opt.weightFromSettings, Keyword: opt.Keyword, Vectors: usable}
	return c.Retrieve(), warning
}

// retrieve fetches a search's candidates at weight w: BM25's alone at 0,
// else both lists (hybrid). total is how many chunks BM25 matched.
func (e *Engine) retrieve(ctx context.Context, q query.Query, req lexical.Request, opt SearchOptions, w float64, tm *Timings) (lexC []lexical.Candidate, vecC []fusion.Candidate, total int, err error) {
	if w == 0 {
		lexC, total, err = e.bm25(ctx, req, opt, tm)
		return lexC, nil, total, err
	}
	return e.hybrid(ctx, q, req, opt, w, tm)
}

// bm25 fetches BM25's candidates, more until they hold enough
// documents for the hits (one a document unless opt.Chunks) or every
// match.
func (e *Engine) bm25(ctx context.Context, req lexical.Request, opt SearchOptions, tm *Timings) ([]lexical.Candidate, int, error) {
	req.Size = max(opt.Candidates, opt.Limit*8)
	for {
		t := time.Now()
		cands, total, err := e.ret.Lexical(ctx, req)
		if err != nil {
			return nil, 0, err
		}
		tm.Lexical += msSince(t)
		if len(cands) >= total || req.Size >= 1<<16 || enoughDocs(cands, opt) {
			return cands, total, nil
		}
		req.Size *= 4 // one hit per document needs more chunks
	}
}

// enoughDocs says whether cands hold opt.Limit hits: chunks, or
// documents unless opt.Chunks.
func enoughDocs(cands []lexical.Candidate, opt SearchOptions) bool {
	if opt.Chunks {
		return len(cands) >= opt.Limit
	}
	docs := map[string]bool{}
	for _, c := range cands {
		if docs[chunk.DocID(c.ChunkID)] = true; len(docs) >= opt.Limit {
			return true
		}
	}
	return false
}

// hybrid fetches the candidates of a hybrid search from both
// retrievers: BM25 runs on its own goroutine while this one embeds the
// query and searches the vectors. The model embeds a query on one thread
// (model.Embedder), so on the embedded index BM25 has the other cores
// (Request.Workers); on a cluster both mostly wait on the network.
// Phrases and exclusions are enforced by the lexical index, so with them
// the vector candidates are limited to chunks the lexical query matched.
func (e *Engine) hybrid(ctx context.Context, q query.Query, req lexical.Request, opt SearchOptions, w float64, tm *Timings) (lexC []lexical.Candidate, vecC []fusion.Candidate, total int, err error) {
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
		if w > 0 { // the query's embedding takes a core meanwhile
			req.Workers = max(1, runtime.GOMAXPROCS(0)-1)
		}
		go func() {
			t := time.Now()
			defer func() { // a panic here would end the process: make it this search's error
				if p := recover(); p != nil {
					lexDone <- lexResult{err: fmt.Errorf("BM25 search failed: %v", p)}
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
		embedErr = fmt.Errorf("embed query: %w", embedErr)
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

// fuzziness is the edit distance a search's words may be off by: none,
// else for its similarity (0..1) the distance bleve allows, 1 or 2.
func fuzziness(opt SearchOptions) int {
	switch {
	case !opt.Fuzzy:
		return 0
	case opt.Similarity >= 0.75:
		return 1
	}
	return 2
}

// hydrate turns ranked chunks into hits, marking terms (snippet.Terms: the query's words, analysed as the index does): one per document unless
// opt.Chunks, with snippet, highlights and lines from the store. Chunks the
// store does not know (a lexical index ahead of an interrupted commit) are
// dropped.
func (e *Engine) hydrate(ctx context.Context, terms map[string]bool, cands []rank.Candidate, opt SearchOptions, w float64, wt *Weighting) ([]Hit, error) {
	label := rank.Label(w)
	seen := map[string]bool{}
	var hits []Hit
	// Chunks are read a window at a time (one round trip to a cluster),
	// skipping those of documents already shown.
	var (
		read   []*Chunk
		docs   []*Document
		places []int // by candidate from at: its place in read, -1 for none
		at     = 0
	)
	shown := func(chunkID string) bool { return !opt.Chunks && seen[chunk.DocID(chunkID)] }
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
		var x *Explanation
		if opt.Explain {
			x = c.Explain(w, opt.Fusion, opt.QueryInstruction != nil && !*opt.QueryInstruction, rank0+1, wt)
			if len(hits) == 0 {
				x.First = rank.First(cands[rank0:], wt, opt.Chunks)
			}
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
			Source: source, SourceID: d.SourceID, HeadingPath: ch.HeadingPath, Explain: x,
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// joinWarnings joins two warnings of a search, saying one they share once.
func joinWarnings(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
