package braid

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// MaxBatchLine bounds one input line of Batch.
const MaxBatchLine = 16 << 20

// BatchOptions configures Batch. The zero value answers as many queries at
// once as there are CPUs.
type BatchOptions struct {
	// Workers is how many queries are answered at once; 0 means the
	// number of CPUs.
	Workers int
	// Panicked, when set, hears of a query that panicked: its input line,
	// what it panicked with and the stack. The line's answer is an error
	// either way, and the other queries go on.
	Panicked func(line int, v any, stack []byte)
}

// BatchSummary counts what Batch answered.
type BatchSummary struct {
	Queries int           // answers written, errors included
	Failed  int           // answers that are errors
	Took    time.Duration // from the first line read to the last answer
}

// batchQuery is one input line: the search options by their JSON names.
type batchQuery struct {
	ID           json.RawMessage `json:"id"`
	Query        string          `json:"query"`
	VectorWeight *float64        `json:"vector_weight"`
	Limit        int             `json:"limit"`
	Keyword      bool            `json:"keyword"`
	Sources      []string        `json:"sources"`
	Path         string          `json:"path"`
	Tags         []string        `json:"tags"`
	Fuzzy        bool            `json:"fuzzy"`
	Similarity   float64         `json:"similarity"`
	Chunks       bool            `json:"chunks"`
	Explain      bool            `json:"explain"`
	Fusion       string          `json:"fusion"`
	Normalize    string          `json:"normalize"`
	Candidates   int             `json:"candidates"`
	Rerank       *bool           `json:"rerank"`
}

// batchAnswer is one output line.
type batchAnswer struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Line  int             `json:"line,omitempty"` // with error: the input line
	Error string          `json:"error,omitempty"`
	*Results
}

// Batch answers the queries in, one JSON object a line ({"id", "query",
// "vector_weight", "limit", ...}: SearchOptions by their JSON names, and
// "rerank": false for NoRerank), with one JSON line each on out, in input
// order; blank lines are skipped. opt.Workers queries are searched at once.
// A line that is not a query, a search that fails and a search that panics
// are that line's answer {"id", "line", "error"}; the rest go on. Batch
// returns early, with the answers so far written, when in cannot be read
// (a line over MaxBatchLine), out cannot be written or ctx ends.
func Batch(ctx context.Context, e *Engine, in io.Reader, out io.Writer, opt BatchOptions) (BatchSummary, error) {
	if opt.Workers < 0 {
		return BatchSummary{}, fmt.Errorf("%w: BatchOptions.Workers %d, want 0 (the number of CPUs) or more", ErrBadOption, opt.Workers)
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failed write stops the reader and the workers
	type job struct {
		n    int // 0-based position in the output
		line int
		text []byte
	}
	type answered struct {
		n int
		a batchAnswer
	}
	jobs := make(chan job)
	answers := make(chan answered)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				a := safeAnswer(ctx, e, j.line, j.text, opt.Panicked)
				select {
				case answers <- answered{j.n, a}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	start := time.Now()
	var readErr error
	go func() {
		defer close(jobs)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), MaxBatchLine)
		n, line := 0, 1
		for ; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			select {
			case jobs <- job{n, line, append([]byte(nil), sc.Bytes()...)}:
				n++
			case <-ctx.Done():
				return
			}
		}
		readErr = sc.Err()
		if errors.Is(readErr, bufio.ErrTooLong) {
			readErr = fmt.Errorf("line %d is over the %d MiB limit for one query line; shorten it", line, MaxBatchLine>>20)
		}
	}()
	go func() {
		wg.Wait()
		close(answers)
	}()

	// Write in input order: hold answers that arrive early.
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	pending := map[int]batchAnswer{}
	var sum BatchSummary
	var writeErr error
	for a := range answers {
		if writeErr != nil {
			continue // drain, so the workers end
		}
		pending[a.n] = a.a
		for {
			ans, ok := pending[sum.Queries]
			if !ok {
				break
			}
			delete(pending, sum.Queries)
			if ans.Error != "" {
				sum.Failed++
			}
			if writeErr = enc.Encode(ans); writeErr != nil {
				cancel()
				break
			}
			sum.Queries++
		}
	}
	sum.Took = time.Since(start)
	switch {
	case writeErr != nil:
		return sum, fmt.Errorf("braid: write answers: %w", writeErr)
	case readErr != nil:
		return sum, fmt.Errorf("braid: read queries: %w", readErr)
	case ctx.Err() != nil:
		return sum, fmt.Errorf("braid: interrupted after %d queries: %w", sum.Queries, context.Cause(ctx))
	}
	return sum, nil
}

// decodeBatchLine reads one input line. A line that is not a query object
// gives an error answer naming the line.
func decodeBatchLine(line int, text []byte) (batchQuery, *batchAnswer) {
	var q batchQuery
	fail := func(msg string) (batchQuery, *batchAnswer) {
		id := q.ID
		if !json.Valid(id) {
			id = nil
		}
		return batchQuery{}, &batchAnswer{ID: id, Line: line, Error: msg}
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return fail("line is not a query object: " + err.Error())
	}
	if q.ID == nil && bytes.Equal(bytes.TrimSpace(text), []byte("null")) {
		return fail("line is not a query object: null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("line has more after the query object; put one object on each line")
	}
	if q.Limit < 0 || q.Candidates < 0 {
		return fail(fmt.Sprintf("limit %d and candidates %d, want 0 (the default) or more", q.Limit, q.Candidates))
	}
	return q, nil
}

// safeAnswer is batchAnswerLine with a panic turned into that line's
// error, so a query that trips a bug ends neither its worker nor the batch.
func safeAnswer(ctx context.Context, e *Engine, line int, text []byte, panicked func(int, any, []byte)) (a batchAnswer) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if panicked != nil {
			panicked(line, r, debug.Stack())
		}
		var q struct{ ID json.RawMessage }
		if json.Unmarshal(text, &q) != nil || !json.Valid(q.ID) {
			q.ID = nil
		}
		a = batchAnswer{ID: q.ID, Line: line, Error: fmt.Sprintf("internal error: the search panicked (%v); the other queries went on; please report it", r)}
	}()
	return batchAnswerLine(ctx, e, line, text)
}

// batchSearch runs one query of Batch; a test replaces it to make a query
// fail in ways a real index does not.
var batchSearch = (*Engine).Search

// batchAnswerLine runs one input line.
func batchAnswerLine(ctx context.Context, e *Engine, line int, text []byte) batchAnswer {
	q, bad := decodeBatchLine(line, text)
	if bad != nil {
		return *bad
	}
	opt := SearchOptions{Limit: q.Limit, VectorWeight: q.VectorWeight, Keyword: q.Keyword, Sources: q.Sources,
		PathGlob: q.Path, Tags: q.Tags, Fuzzy: q.Fuzzy, Similarity: q.Similarity, Chunks: q.Chunks, Explain: q.Explain,
		Fusion: Fusion(q.Fusion), Normalize: Normalization(q.Normalize), Candidates: q.Candidates,
		NoRerank: q.Rerank != nil && !*q.Rerank}
	res, err := batchSearch(e, ctx, q.Query, opt)
	if err != nil {
		return batchAnswer{ID: q.ID, Line: line, Error: errorClause(err)}
	}
	return batchAnswer{ID: q.ID, Results: res}
}
