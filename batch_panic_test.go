package braid

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// batchEngine is an engine over n notes, "Note i" each with its number
// written out, indexed lexical only.
func batchEngine(t *testing.T, n int) *Engine {
	t.Helper()
	vault := t.TempDir()
	for i := range n {
		body := fmt.Sprintf("# Note %d\n\nnote number %d about alpha\n", i, i)
		if err := os.WriteFile(filepath.Join(vault, fmt.Sprintf("n%02d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(filepath.Join(t.TempDir(), "idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Index(context.Background(), []SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// batchLines decodes Batch's output, one answer a line.
func batchLines(t *testing.T, out string) []batchAnswer {
	t.Helper()
	var got []batchAnswer
	for l := range strings.Lines(out) {
		var a batchAnswer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("output %q: %v", l, err)
		}
		got = append(got, a)
	}
	return got
}

// A query that panics becomes that line's error; its worker and the
// other queries go on (issue 20, 8f). One worker: the worker that
// recovered answers the rest.
func TestBatchRecoversPanics(t *testing.T) {
	e := batchEngine(t, 3)
	defer func(f func(*Engine, context.Context, string, SearchOptions) (*Results, error)) { batchSearch = f }(batchSearch)
	search := batchSearch
	batchSearch = func(e *Engine, ctx context.Context, q string, opt SearchOptions) (*Results, error) {
		if q == "boom" {
			var m map[string]int
			//lint:ignore SA5000 a nil map write is the kind of bug a panic is
			m["boom"]++
		}
		return search(e, ctx, q, opt)
	}
	in := `{"id":1,"query":"alpha"}` + "\n" + `{"id":"two","query":"boom"}` + "\n" + `{"id":3,"query":"alpha"}` + "\n"
	var out bytes.Buffer
	var panics []string
	sum, err := Batch(context.Background(), e, strings.NewReader(in), &out, BatchOptions{Workers: 1, Panicked: func(line int, v any, stack []byte) {
		panics = append(panics, fmt.Sprintf("line %d: %v", line, v))
		if !bytes.Contains(stack, []byte("TestBatchRecoversPanics")) {
			t.Errorf("stack of the panic lacks the test's hook:\n%s", stack)
		}
	}})
	if err != nil || sum.Queries != 3 || sum.Failed != 1 {
		t.Fatalf("Batch: %+v, %v; want 3 queries, 1 failed", sum, err)
	}
	if len(panics) != 1 || !strings.HasPrefix(panics[0], "line 2: assignment to entry in nil map") {
		t.Errorf("panics heard %q, want the one on line 2", panics)
	}
	var got []string
	for _, a := range batchLines(t, out.String()) {
		switch {
		case a.Error != "":
			got = append(got, fmt.Sprintf("%s error line %d: %s", a.ID, a.Line, a.Error))
		case a.Results != nil && len(a.Results.Results) > 0:
			got = append(got, string(a.ID)+" answered")
		default:
			got = append(got, string(a.ID)+" empty")
		}
	}
	if len(got) != 3 || got[0] != "1 answered" || got[2] != "3 answered" ||
		!strings.HasPrefix(got[1], `"two" error line 2: internal error: the search panicked`) {
		t.Errorf("answers %q: want 1 and 3 answered, two the panic as its error", got)
	}
}

// Answers come in input order whatever the workers' order, with a line
// that is not a query answered by an error naming it.
func TestBatchOrder(t *testing.T) {
	e := batchEngine(t, 12)
	var in strings.Builder
	for i := range 30 {
		fmt.Fprintf(&in, `{"id": %d, "query": "\"note number %d\"", "limit": 2}`+"\n", i, i%12)
		if i == 9 {
			in.WriteString("{broken\n\n") // a malformed line, then a blank one
		}
	}
	var out bytes.Buffer
	sum, err := Batch(context.Background(), e, strings.NewReader(in.String()), &out, BatchOptions{Workers: 4})
	if err != nil || sum.Queries != 31 || sum.Failed != 1 {
		t.Fatalf("Batch: %+v, %v; want 31 answers, 1 failed", sum, err)
	}
	for n, a := range batchLines(t, out.String()) {
		want := n
		switch {
		case n == 10:
			if a.Error == "" || a.Line != 11 {
				t.Errorf("answer 11: %+v, want the error for input line 11", a)
			}
			continue
		case n > 10:
			want = n - 1
		}
		if string(a.ID) != fmt.Sprint(want) || a.Error != "" || a.Results == nil || len(a.Results.Results) == 0 {
			t.Fatalf("answer %d: %+v, want the answer to query %d", n, a, want)
		}
		if title := fmt.Sprintf("Note %d", want%12); a.Results.Results[0].Title != title {
			t.Errorf("query %d: top hit %q, want %q", want, a.Results.Results[0].Title, title)
		}
	}
	if _, err := Batch(context.Background(), e, strings.NewReader(""), &out, BatchOptions{Workers: -1}); err == nil {
		t.Error("Batch with -1 workers: no error")
	}
}

// A line that is not a query is answered by an error naming its line and
// its id, which encodes as JSON, without searching (batch.Decode).
func TestBatchAnswerLineRefuses(t *testing.T) {
	for text, want := range map[string]string{
		`{"id": 4, "query": "a", "lmit": 3}`: `{"id":4,"line":7,"error":"line is not a query object: json: unknown field \"lmit\""}`,
		`{"query": "a"} x`:                   `{"line":7,"error":"line has more after the query object; put one object on each line"}`,
		`{"id": "n", "limit": -1}`:           `{"id":"n","line":7,"error":"invalid option: limit \"-1\" is out of range; want a whole number from 1 to 1000"}`,
	} {
		a := batchAnswerLine(context.Background(), nil, 7, []byte(text))
		got, err := json.Marshal(a)
		if err != nil || string(got) != want {
			t.Errorf("answer to %s: %s, %v; want %s", text, got, err, want)
		}
	}
}
