package batch

import (
	"bufio"
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

// MaxLine bounds one input line of Run.
const MaxLine = 16 << 20

// ErrWorkers is Run's error for a negative Options.Workers.
var ErrWorkers = errors.New("batch: negative Options.Workers")

// Options configures Run. The zero value answers as many lines at once as
// there are CPUs.
type Options struct {
	// Workers is how many queries are answered at once; 0 means the
	// number of CPUs.
	Workers int
	// Panicked, when set, hears of a query that panicked: its input line,
	// what it panicked with and the stack. The line's answer is an error
	// either way, and the other queries go on. Workers call it, several
	// at once.
	Panicked func(line int, v any, stack []byte)
}

// Summary counts what Run answered.
type Summary struct {
	Queries int           // answers written, errors included
	Failed  int           // answers that are errors
	Took    time.Duration // from the first line read to the last answer
}

// String is the summary as braid batch reports it: the queries, the time
// they took and the rate, and how many failed.
func (s Summary) String() string {
	return fmt.Sprintf("%d queries in %s (%.1f queries/s), %d failed",
		s.Queries, s.Took.Round(time.Millisecond), float64(s.Queries)/max(s.Took.Seconds(), 1e-9), s.Failed)
}

// Func answers one input line (numbered from 1; text is the line without
// its newline, the function's to keep): the value written as the line's
// JSON answer, and whether that answer is an error, counted in
// Summary.Failed. Workers call it, several at once.
type Func func(ctx context.Context, line int, text []byte) (answer any, failed bool)

// PanicFunc gives the answer for a line whose Func panicked with v; that
// answer counts as failed. Nil answers {"line": n, "error": "internal
// error: ..."}.
type PanicFunc func(line int, text []byte, v any) any

// Run answers the lines of in, skipping blank ones, with answer on
// opt.Workers goroutines, and writes the answers to out, one JSON line
// each, in input order. A panic in answer becomes the line's answer
// (recovered, or the default of PanicFunc) and the other lines go on.
// Run returns early, with the answers so far written, when in cannot be
// read, out cannot be written or ctx ends; its errors say what stopped it
// and leave naming the caller to the caller ("write answers: ...").
// Lines are handed out at most Ahead(workers) past the last answer
// written, so one slow line holds back the rest rather than letting the
// answers after it pile up in memory.
func Run(ctx context.Context, in io.Reader, out io.Writer, opt Options, answer Func, recovered PanicFunc) (Summary, error) {
	if opt.Workers < 0 {
		return Summary{}, fmt.Errorf("%w: %d, want 0 (the number of CPUs) or more", ErrWorkers, opt.Workers)
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
	jobs := make(chan job)
	answers := make(chan answered)
	// A slot per line handed out and not yet written: the reader takes
	// one before each line, the writer gives it back once the line's
	// answer is out.
	slots := make(chan struct{}, Ahead(workers))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				a := safeAnswer(ctx, j.line, j.text, answer, recovered, opt.Panicked)
				a.n = j.n
				select {
				case answers <- a:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	start := time.Now()
	// The reader's error, sent before it closes jobs: there by the time
	// the answers end unless the workers stopped early, on ctx.
	readDone := make(chan error, 1)
	go func() {
		var readErr error
		defer close(jobs)
		defer func() { readDone <- readErr }()
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), MaxLine)
		n, line := 0, 1
		for ; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
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
			readErr = fmt.Errorf("line %d is over the %d MiB limit for one query line; shorten it", line, MaxLine>>20)
		}
	}()
	go func() {
		wg.Wait()
		close(answers)
	}()

	// Write in input order: hold answers that arrive early.
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	pending := map[int]answered{}
	var sum Summary
	var writeErr error
	for a := range answers {
		if writeErr != nil {
			continue // drain, so the workers end
		}
		pending[a.n] = a
		for {
			ans, ok := pending[sum.Queries]
			if !ok {
				break
			}
			delete(pending, sum.Queries)
			if ans.failed {
				sum.Failed++
			}
			if writeErr = enc.Encode(ans.v); writeErr != nil {
				cancel()
				break
			}
			sum.Queries++
			<-slots
		}
	}
	sum.Took = time.Since(start)
	var readErr error
	select {
	case readErr = <-readDone:
	default:
	}
	switch {
	case writeErr != nil:
		return sum, fmt.Errorf("write answers: %w", writeErr)
	case readErr != nil:
		return sum, fmt.Errorf("read queries: %w", readErr)
	case ctx.Err() != nil:
		return sum, fmt.Errorf("interrupted after %d queries: %w", sum.Queries, context.Cause(ctx))
	}
	return sum, nil
}

// Ahead is how many lines Run hands out beyond the last answer written
// when it answers on workers goroutines: four per worker, at least 16.
func Ahead(workers int) int { return max(16, 4*workers) }

// answered is one line's answer on its way to the writer.
type answered struct {
	n      int // 0-based position in the output
	v      any
	failed bool
}

// safeAnswer is answer with a panic turned into that line's failed
// answer, so a line that trips a bug ends neither its worker nor the run.
func safeAnswer(ctx context.Context, line int, text []byte, answer Func, recovered PanicFunc, panicked func(int, any, []byte)) (a answered) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if panicked != nil {
			panicked(line, r, debug.Stack())
		}
		a = answered{failed: true}
		if recovered != nil {
			a.v = recovered(line, text, r)
		} else {
			a.v = panicAnswer{Line: line, Error: fmt.Sprintf("internal error: panic: %v", r)}
		}
	}()
	a.v, a.failed = answer(ctx, line, text)
	return a
}

// panicAnswer is the answer for a panic when Run is given no PanicFunc.
type panicAnswer struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}
