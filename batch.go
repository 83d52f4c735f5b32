package braid

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/braidsearch/braid/batch"
	"github.com/braidsearch/braid/model"
)

// BatchOptions configures Batch (batch.Options). The zero value answers as
// many queries at once as there are CPUs.
type BatchOptions = batch.Options

// batchAnswer is one output line.
type batchAnswer struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Line  int             `json:"line,omitempty"` // with error: the input line
	Error string          `json:"error,omitempty"`
	*Results
}

// Batch answers the queries in, one JSON object a line ({"id", "query",
// "vector_weight", "limit", ...}: SearchOptions by their JSON names, and
// "rerank": false for NoRerank, true for Rerank; batch.Query), with one JSON line each on
// out, in input order; blank lines are skipped. opt.Workers queries are
// searched at once. A line that is not a query, a search that fails and a
// search that panics are that line's answer {"id", "line", "error"}; the
// rest go on. Batch returns early, with the answers so far written, when
// in cannot be read (a line over batch.MaxLine), out cannot be written or
// ctx ends.
func Batch(ctx context.Context, e *Engine, in io.Reader, out io.Writer, opt BatchOptions) (batch.Summary, error) {
	if opt.Workers < 0 {
		return batch.Summary{}, fmt.Errorf("%w: BatchOptions.Workers %d, want 0 (the number of CPUs) or more", ErrBadOption, opt.Workers)
	}
	answer := func(ctx context.Context, line int, text []byte) (any, bool) {
		a := batchAnswerLine(ctx, e, line, text)
		return a, a.Error != ""
	}
	panicked := func(line int, text []byte, v any) any {
		return batchAnswer{ID: batch.ID(text), Line: line, Error: fmt.Sprintf("internal error: the search panicked (%v); the other queries went on; please report it", v)}
	}
	return batch.Run(ctx, in, out, opt, answer, panicked)
}

// batchSearch runs one query of Batch; a test replaces it to make a query
// fail in ways a real index does not.
var batchSearch = (*Engine).Search

// batchAnswerLine runs one input line.
func batchAnswerLine(ctx context.Context, e *Engine, line int, text []byte) batchAnswer {
	q, err := batch.Decode(text)
	if err != nil {
		return batchAnswer{ID: q.ID, Line: line, Error: strings.TrimPrefix(err.Error(), "batch: ")}
	}
	opt := SearchOptions{Limit: q.Limit, VectorWeight: q.VectorWeight, Keyword: q.Keyword, Sources: q.Sources,
		PathGlob: q.Path, Tags: q.Tags, Fuzzy: q.Fuzzy, Similarity: q.Similarity, Chunks: q.Chunks, Explain: q.Explain,
		Fusion: Fusion(q.Fusion), Normalize: Normalization(q.Normalize), Candidates: q.Candidates,
		NoRerank: q.Rerank != nil && !*q.Rerank, Rerank: q.Rerank != nil && *q.Rerank}
	res, err := batchSearch(e, ctx, q.Query, opt)
	if err != nil {
		return batchAnswer{ID: q.ID, Line: line, Error: model.Clause(err)}
	}
	return batchAnswer{ID: q.ID, Results: res}
}
