package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// echo answers a line with its number and text; a line "fail" is a failed
// answer and a line "boom" panics.
func echo(ctx context.Context, line int, text []byte) (any, bool) {
	switch string(text) {
	case "boom":
		var m map[string]int
		//lint:ignore SA5000 a nil map write is the kind of bug a panic is
		m["boom"]++
	case "fail":
		return fmt.Sprintf("%d error", line), true
	}
	return fmt.Sprintf("%d %s", line, text), false
}

func TestRun(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		sum      Summary
	}{
		{"empty", "", "", Summary{}},
		{"blank lines skipped", "a\n\n  \nb", `"1 a"` + "\n" + `"4 b"` + "\n", Summary{Queries: 2}},
		{"failed counted", "a\nfail\n", `"1 a"` + "\n" + `"2 error"` + "\n", Summary{Queries: 2, Failed: 1}},
		{"no html escaping", "<&>\n", `"1 <&>"` + "\n", Summary{Queries: 1}},
		{"default panic answer", "boom\nb\n",
			`{"line":1,"error":"internal error: panic: assignment to entry in nil map"}` + "\n" + `"2 b"` + "\n",
			Summary{Queries: 2, Failed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			sum, err := Run(context.Background(), strings.NewReader(tt.in), &out, Options{Workers: 2}, echo, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum.Took = 0
			if diff := cmp.Diff(tt.sum, sum); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// Answers come in input order however the workers finish: each line
// waits longer the earlier it is.
func TestRunOrder(t *testing.T) {
	const n = 40
	var in, want strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "%d\n", i)
		fmt.Fprintf(&want, "%d\n", i)
	}
	var out bytes.Buffer
	sum, err := Run(context.Background(), strings.NewReader(in.String()), &out, Options{Workers: 8},
		func(ctx context.Context, line int, text []byte) (any, bool) {
			time.Sleep(time.Duration(n-line) * 200 * time.Microsecond)
			return json.RawMessage(text), false
		}, nil)
	if err != nil || sum.Queries != n || sum.Failed != 0 {
		t.Fatalf("Run: %+v, %v; want %d answers", sum, err, n)
	}
	if diff := cmp.Diff(want.String(), out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// A panic becomes the line's answer through the PanicFunc, Panicked hears
// of it with the stack, and the worker that recovered answers the rest.
func TestRunRecoversPanics(t *testing.T) {
	var heard []string
	opt := Options{Workers: 1, Panicked: func(line int, v any, stack []byte) {
		heard = append(heard, fmt.Sprintf("line %d: %v", line, v))
		if !bytes.Contains(stack, []byte("batch.echo")) {
			t.Errorf("stack of the panic lacks the answer function:\n%s", stack)
		}
	}}
	recovered := func(line int, text []byte, v any) any {
		return fmt.Sprintf("line %d (%s) panicked: %v", line, text, v)
	}
	var out bytes.Buffer
	sum, err := Run(context.Background(), strings.NewReader("a\nboom\nc\n"), &out, opt, echo, recovered)
	if err != nil || sum.Queries != 3 || sum.Failed != 1 {
		t.Fatalf("Run: %+v, %v; want 3 answers, 1 failed", sum, err)
	}
	if diff := cmp.Diff([]string{"line 2: assignment to entry in nil map"}, heard); diff != "" {
		t.Errorf("panics heard (-want +got):\n%s", diff)
	}
	want := `"1 a"` + "\n" + `"line 2 (boom) panicked: assignment to entry in nil map"` + "\n" + `"3 c"` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// failWriter takes n writes, then fails.
type failWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errDiskFull
	}
	w.n--
	return len(p), nil
}

// A failed write stops the reader and the workers: Run returns soon,
// without answering the whole of an endless input.
func TestRunStopsOnFailedWrite(t *testing.T) {
	var answered atomic.Int64
	count := func(ctx context.Context, line int, text []byte) (any, bool) {
		answered.Add(1)
		return line, false
	}
	sum, err := Run(context.Background(), endless{}, &failWriter{n: 3}, Options{Workers: 4}, count, nil)
	if !errors.Is(err, errDiskFull) || !strings.HasPrefix(err.Error(), "write answers: ") {
		t.Fatalf("Run: %v, want the write's error", err)
	}
	if sum.Queries != 3 {
		t.Errorf("summary %+v, want the 3 answers written", sum)
	}
	// Returning at all shows the reader stopped; before the write failed
	// it could hand out lines only up to Ahead past the 3 written, however
	// the workers were scheduled.
	if n, most := answered.Load(), int64(3+Ahead(4)); n > most {
		t.Errorf("%d lines answered though the write failed at the 4th, want at most %d", n, most)
	}
}

// endless reads as an input of lines that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "x\n"[i%2]
	}
	return len(p) &^ 1, nil
}

// A line over MaxLine stops the run after the lines before it, with an
// error naming the line.
func TestRunLineTooLong(t *testing.T) {
	in := "a\n" + strings.Repeat("x", MaxLine+1) + "\nc\n"
	var out bytes.Buffer
	sum, err := Run(context.Background(), strings.NewReader(in), &out, Options{Workers: 2}, echo, nil)
	if err == nil || err.Error() != "read queries: line 2 is over the 16 MiB limit for one query line; shorten it" {
		t.Fatalf("Run: %v, want the error for line 2", err)
	}
	if sum.Queries != 1 || out.String() != `"1 a"`+"\n" {
		t.Errorf("summary %+v, output %q; want line 1 answered", sum, out.String())
	}
}

// An ended context stops the run and says so.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	cancelAt := func(ctx context.Context, line int, text []byte) (any, bool) {
		if line == 5 {
			cancel(stop)
		}
		return line, false
	}
	_, err := Run(ctx, endless{}, &bytes.Buffer{}, Options{Workers: 1}, cancelAt, nil)
	if !errors.Is(err, stop) || !strings.HasPrefix(err.Error(), "interrupted after ") {
		t.Fatalf("Run: %v, want interrupted by the test", err)
	}
}

func TestRunWorkers(t *testing.T) {
	_, err := Run(context.Background(), strings.NewReader("a\n"), &bytes.Buffer{}, Options{Workers: -1}, echo, nil)
	if !errors.Is(err, ErrWorkers) {
		t.Errorf("Run with -1 workers: %v, want ErrWorkers", err)
	}
}

func TestSummaryString(t *testing.T) {
	s := Summary{Queries: 3, Failed: 1, Took: 1500*time.Millisecond + 300*time.Microsecond}
	if got, want := s.String(), "3 queries in 1.5s (2.0 queries/s), 1 failed"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// A slow line holds back the lines after it: the reader hands out no more
// than Ahead lines past the last answer written, so answers do not pile up
// in memory behind the one still running.
func TestRunSlowLineHoldsTheRest(t *testing.T) {
	const workers = 4
	var others atomic.Int64
	reached := make(chan struct{})
	answer := func(ctx context.Context, line int, text []byte) (any, bool) {
		if line == 1 {
			<-reached // the others have had every line the window allows
			if n := others.Load(); n != int64(Ahead(workers)-1) {
				t.Errorf("%d later lines answered while the first ran, want %d", n, Ahead(workers)-1)
			}
			return line, false
		}
		if others.Add(1) == int64(Ahead(workers)-1) {
			close(reached)
		}
		return line, false
	}
	in := strings.Repeat("q\n", 10*Ahead(workers))
	sum, err := Run(context.Background(), strings.NewReader(in), &bytes.Buffer{}, Options{Workers: workers}, answer, nil)
	if err != nil || sum.Queries != 10*Ahead(workers) {
		t.Fatalf("Run: %+v, %v; want every line answered", sum, err)
	}
}
