package braid

import (
	"cmp"
	"fmt"
	"time"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/settings"
)

// SearchOptions shapes a search. The zero value asks for the 10 best
// documents with the default vector weight.
type SearchOptions struct {
	// Limit is how many hits to return, 1 to 1000 (settings.LimitBound);
	// zero means the index's limit setting, else DefaultLimit (10).
	Limit int
	// VectorWeight mixes lexical (0) and vector (1) scores, exactly as
	// named. nil means the index's vector_weight setting, else auto where
	// vectors are available: both lists are retrieved and each query gets
	// the weight WeightModel gives its lists' predictors (Results.Weighting
	// says which and why); without vectors, 0. Without an embedding model
	// every search is lexical and a weight above 0 adds a warning.
	VectorWeight *float64
	Keyword      bool     // BM25 only, whatever the weight, and not reranked
	Sources      []string // source ids or names; any of them
	// Within confines the search to these source ids, on top of Sources:
	// a signed-in user's granted sources (mcpserver). nil means no
	// confinement; empty (not nil) means no source, so no hits. A
	// source of Sources outside it matches nothing.
	Within     []string
	PathGlob   string   // only documents whose path (relative to its source) matches
	Tags       []string // only documents with all these tags
	Fuzzy      bool     // tolerate typos
	Similarity float64  // with Fuzzy, how similar a word must be, 0..1; zero means DefaultSimilarity (0.8)
	Chunks     bool     // every matching chunk, not just the best one per document
	Explain    bool     // attach a score breakdown to each hit
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
	// Candidates is how many chunks each retriever hands to fusion, 10 to
	// 1000 (settings.CandidatesBound); zero means the index's setting,
	// else DefaultCandidates (50).
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

// Check refuses an option outside its range with an error wrapping
// ErrBadOption. The ranges are settings' (settings.Bound), the same for a
// flag, an MCP tool's argument, a batch line, a setting and the engine,
// and so is the refusal: "limit \"5000\" is out of range; want a whole
// number from 1 to 1000". A zero Limit, Candidates or Similarity is the
// default. Every front end calls it before it opens anything, and Search
// calls it before it fills in the index's settings.
func (o SearchOptions) Check() error {
	type bounded struct {
		b   settings.Bound
		v   float64
		set bool
	}
	ptr := func(b settings.Bound, p *float64) bounded {
		if p == nil {
			return bounded{b: b}
		}
		return bounded{b, *p, true}
	}
	for _, c := range []bounded{
		{settings.LimitBound, float64(o.Limit), o.Limit != 0},
		ptr(settings.VectorWeightBound, o.VectorWeight),
		{settings.CandidatesBound, float64(o.Candidates), o.Candidates != 0},
		ptr(settings.DocEvidenceBound, o.DocEvidence),
		ptr(settings.LinkPriorBound, o.LinkPrior),
		ptr(settings.TitleWeightBound, o.TitleWeight),
		ptr(settings.HeadingWeightBound, o.HeadingWeight),
		{settings.SimilarityBound, o.Similarity, o.Similarity != 0},
	} {
		if c.set {
			if err := c.b.Check(c.v); err != nil {
				return fmt.Errorf("%w: %v", ErrBadOption, err)
			}
		}
	}
	for _, err := range []error{o.Fusion.Check(), o.Normalize.Check()} {
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadOption, err)
		}
	}
	return nil
}

// checked is opt with what it leaves open filled from the index's
// settings and the built-in defaults, and checked (Check): what every
// later stage of a search reads.
func (e *Engine) checked(opt SearchOptions) (SearchOptions, error) {
	if err := opt.Check(); err != nil {
		return opt, err
	}
	opt = e.withSettings(opt) // settings' values were checked as they were read or set (settings.Parse, Values.Set)
	opt.Limit = cmp.Or(opt.Limit, DefaultLimit)
	opt.Candidates = cmp.Or(opt.Candidates, DefaultCandidates)
	if opt.Fuzzy {
		opt.Similarity = cmp.Or(opt.Similarity, DefaultSimilarity)
	}
	return opt, nil
}

// withSettings fills what a search leaves open from the index's settings
// (settings.Values.Fill).
func (e *Engine) withSettings(opt SearchOptions) SearchOptions {
	s := settings.Search{VectorWeight: opt.VectorWeight, DocEvidence: opt.DocEvidence, LinkPrior: opt.LinkPrior,
		TitleWeight: opt.TitleWeight, HeadingWeight: opt.HeadingWeight, QueryInstruction: opt.QueryInstruction, Fusion: opt.Fusion, Normalize: opt.Normalize, Limit: opt.Limit,
		Candidates: opt.Candidates, NoRerank: opt.NoRerank, RerankBudget: opt.RerankBudget}
	cur := e.currentSettings()
	opt.weightFromSettings = cur.Fill(&s, e.opt.RerankBudget != 0)
	if opt.WeightModel == nil {
		opt.WeightModel = cur.WeightModel
	}
	opt.VectorWeight, opt.DocEvidence, opt.LinkPrior, opt.QueryInstruction = s.VectorWeight, s.DocEvidence, s.LinkPrior, s.QueryInstruction
	opt.Fusion, opt.Normalize, opt.Limit, opt.Candidates = s.Fusion, s.Normalize, s.Limit, s.Candidates
	opt.TitleWeight, opt.HeadingWeight = s.TitleWeight, s.HeadingWeight
	opt.NoRerank, opt.RerankBudget = s.NoRerank, s.RerankBudget
	return opt
}
