package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/braidsearch/braid"
)

// BatchCmd answers many queries with the index and models opened once.
type BatchCmd struct {
	File    string `arg:"" optional:"" default:"-" help:"JSONL file of queries, one object per line ({\"id\", \"query\", \"vector_weight\", \"limit\", ...}); - or nothing reads stdin."`
	Workers int    `help:"Queries answered at once (default: the number of CPUs)." placeholder:"N"`
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
	*braid.Results
}

// Run answers every line, in input order.
func (c *BatchCmd) Run(g *Globals) error {
	in := g.stdin
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return fmt.Errorf("%w; give a JSONL file of queries or - for stdin", err)
		}
		defer f.Close()
		in = f
	}
	if c.Workers < 0 {
		return fmt.Errorf("--workers %d, want 1 or more", c.Workers)
	}
	workers := c.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	e, done, err := g.openFor(true, "braid batch", true, true)
	if err != nil {
		return err
	}
	defer done()

	type job struct {
		n    int // 0-based position in the output
		line int
		text []byte
	}
	jobs := make(chan job)
	answers := make(chan struct {
		n int
		a batchAnswer
	})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				answers <- struct {
					n int
					a batchAnswer
				}{j.n, c.safeAnswer(g, e, j.line, j.text)}
			}
		}()
	}
	start := time.Now()
	var readErr error
	go func() {
		defer close(jobs)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), maxBatchLine)
		n, line := 0, 1
		defer func() {
			if errors.Is(readErr, bufio.ErrTooLong) {
				readErr = fmt.Errorf("line %d is over the %d MiB limit for one query line; shorten it", line, maxBatchLine>>20)
			}
		}()
		for ; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			select {
			case jobs <- job{n, line, append([]byte(nil), sc.Bytes()...)}:
				n++
			case <-g.ctx.Done():
				return
			}
		}
		readErr = sc.Err()
	}()
	go func() {
		wg.Wait()
		close(answers)
	}()

	// Print in input order: hold answers that arrive early.
	enc := json.NewEncoder(g.stdout)
	enc.SetEscapeHTML(false)
	pending := map[int]batchAnswer{}
	next, failed := 0, 0
	for a := range answers {
		pending[a.n] = a.a
		for {
			ans, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if ans.Error != "" {
				failed++
			}
			if err := enc.Encode(ans); err != nil {
				return err
			}
			next++
		}
	}
	if readErr != nil {
		return fmt.Errorf("read queries: %w", readErr)
	}
	if err := g.ctx.Err(); err != nil {
		return fmt.Errorf("interrupted after %d queries", next)
	}
	took := time.Since(start)
	if !g.Quiet {
		fmt.Fprintf(g.stderr, "braid: %d queries in %s (%.1f queries/s), %d failed\n", next, took.Round(time.Millisecond), float64(next)/max(took.Seconds(), 1e-9), failed)
	}
	if failed > 0 {
		return errSilent
	}
	return nil
}

// maxBatchLine bounds one input line of braid batch.
const maxBatchLine = 16 << 20

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

// safeAnswer is answer with a panic turned into that line's error, so a
// query that trips a bug ends neither its worker nor the batch.
func (c *BatchCmd) safeAnswer(g *Globals, e *braid.Engine, line int, text []byte) (a batchAnswer) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		g.warn("the query on line %d panicked: %v\n%s", line, r, debug.Stack())
		var q struct{ ID json.RawMessage }
		if json.Unmarshal(text, &q) != nil || !json.Valid(q.ID) {
			q.ID = nil
		}
		a = batchAnswer{ID: q.ID, Line: line, Error: fmt.Sprintf("internal error: the search panicked (%v); the other queries went on; please report it", r)}
	}()
	return c.answer(g, e, line, text)
}

// batchSearch runs one query of braid batch; a test replaces it to make
// a query fail in ways a real index does not.
var batchSearch = (*braid.Engine).Search

// answer runs one input line.
func (c *BatchCmd) answer(g *Globals, e *braid.Engine, line int, text []byte) batchAnswer {
	q, bad := decodeBatchLine(line, text)
	if bad != nil {
		return *bad
	}
	fail := func(err error) batchAnswer {
		return batchAnswer{ID: q.ID, Line: line, Error: strings.TrimPrefix(errorLine(err), "braid: ")}
	}
	opt := braid.SearchOptions{Limit: q.Limit, VectorWeight: q.VectorWeight, Keyword: q.Keyword, Sources: q.Sources,
		PathGlob: q.Path, Tags: q.Tags, Fuzzy: q.Fuzzy, Similarity: q.Similarity, Chunks: q.Chunks, Explain: q.Explain,
		Fusion: braid.Fusion(q.Fusion), Normalize: braid.Normalization(q.Normalize), Candidates: q.Candidates,
		NoRerank: q.Rerank != nil && !*q.Rerank}
	res, err := batchSearch(e, g.ctx, q.Query, opt)
	if err != nil {
		return fail(err)
	}
	return batchAnswer{ID: q.ID, Results: res}
}
