package braid

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/braidsearch/braid/evidence"
	"github.com/braidsearch/braid/query"
)

// Ask budgets, in tokens as chunk.Count counts them (package evidence).
const (
	DefaultAskBudget = evidence.DefaultBudget
	MinAskBudget     = evidence.MinBudget
	MaxAskBudget     = evidence.MaxBudget
)

// Pack is what Ask returns, defined beside the packing (package evidence,
// with its passages, documents and what was dropped).
type Pack = evidence.Pack

// emptyIndex is ErrEmptyIndex when the index holds no documents, naming
// where it looked and the command that fills it; nil otherwise. On a
// cluster it reads the local copy, so call e.mirrored first.
func (e *Engine) emptyIndex() error {
	has, err := e.st.HasDocs()
	if err != nil || has {
		return err
	}
	where := e.dir
	if e.cl != nil {
		where = strings.TrimSuffix(e.opt.Backend.URL, "/") + "/" + e.cl.Remote().Name()
	}
	return fmt.Errorf("%w in %s; run braid index PATH", ErrEmptyIndex, where)
}

// AskOptions shapes Ask. The zero value fills DefaultAskBudget tokens from
// every source, searching as Search does by default.
type AskOptions struct {
	// Budget is the most tokens the pack's passages may take: their text and
	// their citation tags (also the tags of duplicates they stand for),
	// counted with chunk.Count, which estimates a BERT WordPiece tokenizer
	// (English prose: about 4 bytes a token; it over-counts prose by ~7%).
	// The JSON around them is not counted. Zero means DefaultAskBudget;
	// otherwise it must be MinAskBudget..MaxAskBudget.
	Budget int
	// Sources, PathGlob and Tags filter the documents as in SearchOptions.
	Sources  []string
	Within   []string // as in SearchOptions
	PathGlob string
	Tags     []string
	// VectorWeight is as in SearchOptions; nil means Search's default.
	VectorWeight *float64
	// NoRerank skips the cross-encoder; Rerank asks for it, as in
	// SearchOptions (a warning then says when there is none).
	NoRerank, Rerank bool
}

// Ask gathers the evidence for a question: it searches (hybrid, as Search
// does, filters included) for the best chunks across the index, drops
// chunks that repeat lines of a better one in the same document and
// near-duplicates of a better one anywhere, and fills opt.Budget tokens
// with the rest in rank order, cutting a chunk around its best-matching
// lines when it does not fit whole (package evidence). It runs no
// language model: the caller writes the answer from the passages and
// cites their tags.
//
// The question is a search query (at most 4 KiB; quoted phrases must
// appear, -word excludes). An index without documents is ErrEmptyIndex;
// a question nothing matches is a Pack without passages and a Warning.
func (e *Engine) Ask(ctx context.Context, question string, opt AskOptions) (*Pack, error) {
	start := time.Now()
	budget, err := evidence.Budget(opt.Budget)
	if err != nil {
		return nil, err
	}
	if _, err := query.Parse(question); err != nil {
		return nil, err
	}
	if err := e.mirrored(); err != nil {
		return nil, err
	}
	if err := e.emptyIndex(); err != nil {
		return nil, err
	}
	// As many chunks as the reranker reads, so every candidate can be reranked.
	res, err := e.Search(ctx, question, SearchOptions{Limit: DefaultRerankTop, Chunks: true, VectorWeight: opt.VectorWeight,
		Sources: opt.Sources, Within: opt.Within, PathGlob: opt.PathGlob, Tags: opt.Tags, NoRerank: opt.NoRerank, Rerank: opt.Rerank})
	if err != nil {
		return nil, err
	}
	hits := make([]evidence.Hit, len(res.Results))
	for i, h := range res.Results {
		hits[i] = evidence.Hit{ChunkID: h.ChunkID, Score: h.Score, Words: h.Marked()}
	}
	p, err := evidence.Fill(ctx, hits, budget, evidence.Reader{Chunk: e.chunkByID, Cite: e.nt.Cite})
	if err != nil {
		return nil, err
	}
	p.Question, p.Warning = question, res.Warning
	if len(res.Results) == 0 {
		p.Warning = joinWarnings(p.Warning, "no passage matches the question; try other words, fewer filters, or a search with fuzzy")
	}
	p.TookMS = msSince(start)
	return p, nil
}
