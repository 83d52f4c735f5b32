package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchFixture is a random-weight model with bge-small-en-v1.5's exact
// architecture and the real tokenizer, generated (not committed) by
//
//	python3 tools/genmodel/genmodel.py --preset bge-small --out .tools/fixtures/bge-small \
//	    --tokenizer ../shared/models/tokenizers/bge-small-en-v1.5/tokenizer.json
//
// It times like the real model; its vectors mean nothing.
const benchFixture = "../.tools/fixtures/bge-small"

func bgeSmallSpec() Spec {
	return Spec{
		Name: "BAAI/bge-small-en-v1.5", Kind: KindEmbedder, Pooling: PoolCLS, Dim: 384, MaxLen: 512,
		QueryPrefix: "Represent this sentence for searching relevant passages: ",
	}
}

// sharedTokenizer is the real bge-small tokenizer in the workspace, used
// when the fixture was generated without --tokenizer.
const sharedTokenizer = "../../shared/models/tokenizers/bge-small-en-v1.5/tokenizer.json"

func loadBench(b *testing.B, cfg Config) *Embedder {
	b.Helper()
	model := filepath.Join(benchFixture, ModelFile)
	if !isFile(model) {
		b.Skipf("%s missing; generate it with `make fixtures` or tools/genmodel (see bench_test.go)", model)
	}
	dir := benchFixture
	if !isFile(filepath.Join(dir, TokenizerFile)) {
		if !isFile(sharedTokenizer) {
			b.Skipf("%s has no %s and %s is missing", dir, TokenizerFile, sharedTokenizer)
		}
		dir = b.TempDir()
		for name, target := range map[string]string{ModelFile: model, TokenizerFile: sharedTokenizer} {
			abs, err := filepath.Abs(target)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
				b.Fatal(err)
			}
		}
	}
	needRuntime(b)
	e, err := LoadEmbedder(context.Background(), dir, bgeSmallSpec(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

var benchWords = strings.Fields(`the of and to in is it that for on with as was be by this are or from at
an not have has had but all can will one which their more about how what when where search query passage
document note index text word file line code data model vector embedding hybrid rank score match link tag
title heading plugin load space script write read run test build markdown json config server cache memory
disk fast slow small large quick brown fox lazy dog water fire river mountain tree book learn machine neural
network language sentence relevant retrieval question answer`)

// benchText returns n words of deterministic pseudo-English.
func benchText(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(w, " ")
}

// installedInt8 is the real bge-small int8 model where braid pulls it.
func installedInt8(b *testing.B) string {
	b.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Skip("no user cache directory")
	}
	dir := filepath.Join(cache, "braid", "models", "BAAI--bge-small-en-v1.5-int8")
	if !isFile(filepath.Join(dir, ModelFile)) || !isFile(filepath.Join(dir, TokenizerFile)) {
		b.Skipf("%s missing; fetch it with `braid model pull BAAI/bge-small-en-v1.5:int8`", dir)
	}
	return dir
}

// BenchmarkEmbedQuery embeds one short query per op, as a search does: on
// the fp32 fixture, and on the real int8 model (the default) when it is
// installed.
func BenchmarkEmbedQuery(b *testing.B) {
	for _, c := range []struct {
		model   string
		threads int
	}{{"fixture", 1}, {"fixture", 2}, {"int8", 1}} {
		b.Run(fmt.Sprintf("model=%s/threads=%d", c.model, c.threads), func(b *testing.B) {
			var e *Embedder
			if c.model == "fixture" {
				e = loadBench(b, Config{Threads: c.threads})
			} else {
				dir := installedInt8(b)
				needRuntime(b)
				var err error
				if e, err = LoadEmbedder(context.Background(), dir, bgeSmallSpec(), Config{Threads: c.threads}); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { e.Close() })
			}
			r := rand.New(rand.NewPCG(1, 2))
			queries := make([]string, 64)
			for i := range queries {
				queries[i] = benchText(r, 4+r.IntN(8))
			}
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if _, err := e.Embed(ctx, queries[i%len(queries):i%len(queries)+1], true); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50/query")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99/query")
		})
	}
}

// BenchmarkEmbedPassages embeds batches of ~200-token chunks, as indexing does.
func BenchmarkEmbedPassages(b *testing.B) {
	const perOp = 32
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			e := loadBench(b, Config{Threads: threads, BatchSize: perOp})
			r := rand.New(rand.NewPCG(3, 4))
			chunks := make([]string, perOp)
			tokens := 0
			for i := range chunks {
				chunks[i] = benchText(r, 170+r.IntN(40))
				tokens += len(e.tok.Encode(chunks[i], e.maxLen).IDs)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := e.Embed(ctx, chunks, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*perOp)/b.Elapsed().Seconds(), "chunks/s")
			b.ReportMetric(float64(tokens)/perOp, "tokens/chunk")
		})
	}
}
