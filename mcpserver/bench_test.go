package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/mcpserver"
	"github.com/braidsearch/braid/model"
)

// benchQueries are questions a reader of the SilverBullet docs asks.
var benchQueries = []string{
	"how do I write a plug",
	"template syntax for daily notes",
	"keyboard shortcuts",
	"sync the space with the server",
	"query language filter and sort",
}

var (
	benchOnce sync.Once
	benchDir  string // removed by TestMain
	benchIdx  string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchOpener indexes the SilverBullet docs once per process and returns
// an opener that loads the default embedding model (when ONNX Runtime and
// BAAI/bge-small-en-v1.5 are installed, as braid serve would) and opens
// that index: the cost `braid serve` pays before its first search.
func benchOpener(b *testing.B) mcpserver.Opener {
	b.Helper()
	docs := testdata.Dir(b, "markdown/silverbullet/docs")
	setup := model.Setup{ORTLib: modeltest.RuntimePath()}
	load := func() (*braid.Options, func(), error) {
		emb, err := model.OpenEmbedder(context.Background(), setup)
		if err != nil {
			return &braid.Options{NoVectors: err.Error()}, func() {}, nil
		}
		return &braid.Options{Embedder: emb, Model: emb.Key()}, func() { emb.Close() }, nil
	}
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "braid-mcp-bench-")
		if benchErr != nil {
			return
		}
		benchIdx = filepath.Join(benchDir, "idx")
		opt, done, _ := load()
		defer done()
		e, err := braid.Open(benchIdx, opt)
		if err != nil {
			benchErr = err
			return
		}
		defer e.Close()
		_, benchErr = e.Index(context.Background(), []braid.SourceSpec{{Path: docs}}, nil)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return func() (*braid.Engine, func(), error) {
		opt, done, _ := load()
		e, err := braid.Open(benchIdx, opt)
		if err != nil {
			done()
			return nil, nil, err
		}
		return e, func() { e.Close(); done() }, nil
	}
}

// BenchmarkInitialize measures how long a client waits for the answer to
// initialize on a fresh server, whose engine and models load meanwhile.
func BenchmarkInitialize(b *testing.B) {
	open := benchOpener(b)
	b.ReportAllocs()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, stop := serve(b, mcpserver.New(open, nil))
		b.StartTimer()
		start := time.Now()
		if _, err := c.Initialize(context.Background(), initRequest()); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		b.StopTimer()
		stop() // waits for the engine to open, then closes it
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/initialize")
}

// BenchmarkSearch compares a search through MCP (JSON-RPC over pipes,
// argument decoding, JSON answer) with the same engine call made directly.
func BenchmarkSearch(b *testing.B) {
	open := benchOpener(b)
	for _, bc := range []struct {
		name string
		args map[string]any
		opt  braid.SearchOptions
	}{
		{"hybrid", map[string]any{}, braid.SearchOptions{VectorWeight: ptr(braid.DefaultVectorWeight)}},
		{"keyword", map[string]any{"vector_weight": 0}, braid.SearchOptions{VectorWeight: ptr(0.0)}},
	} {
		b.Run(bc.name+"/mcp", func(b *testing.B) {
			c, stop := serve(b, mcpserver.New(open, nil))
			defer stop()
			if _, err := c.Initialize(context.Background(), initRequest()); err != nil {
				b.Fatal(err)
			}
			args := map[string]any{"rerank": false}
			for k, v := range bc.args {
				args[k] = v
			}
			args["query"] = benchQueries[0]
			ok(b, c, "search", args) // waits for the models
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				args["query"] = benchQueries[i%len(benchQueries)]
				i++
				if r, err := callErr(c, "search", args, nil); err != nil || r.IsError {
					b.Fatalf("search: %v %q", err, r.Text)
				}
			}
		})
		b.Run(bc.name+"/engine", func(b *testing.B) {
			e, done, err := open()
			if err != nil {
				b.Fatal(err)
			}
			defer done()
			opt := bc.opt
			opt.NoRerank = true
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := e.Search(context.Background(), benchQueries[i%len(benchQueries)], opt); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
