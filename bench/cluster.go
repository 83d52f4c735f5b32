package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/opensearch"
)

// onCluster indexes the corpus at src into a fresh index of the OpenSearch
// backend, with the same synthetic passage vectors as the embedded run,
// and times the same searches there: metrics "cluster.*", beside the
// embedded ones of the same size and run.
func onCluster(ctx context.Context, cfg Config, n int, src string, queries []string, s *Size) error {
	b := cfg.Backend
	if b.Index == "" {
		b.Index = opensearch.DefaultIndex
	}
	b.Index = fmt.Sprintf("%s-bench-%d", b.Index, n)
	emb := cfg.Models.Embedder
	opt := &braid.Options{Purpose: "braid bench", Backend: b}
	if emb != nil {
		opt.Embedder, opt.Model = newSynthetic(emb), "bench-synthetic"
	}
	if err := dropIndex(ctx, b, opt); err != nil {
		return err
	}
	e, err := braid.Open("", opt)
	if err != nil {
		return err
	}
	defer e.Close()
	cfg.Log("%d chunks: indexing into %s at %s", n, b.Index, b.URL)
	start := time.Now()
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: src}}, nil)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	s.Metrics["cluster.ingest.s"] = round(secs)
	s.Metrics["cluster.ingest.chunks_per_s"] = round(float64(sum.Chunks) / secs)
	cfg.Log("%d chunks: %d searches on the cluster", n, cfg.Queries)
	return timeSearches(ctx, e, queries, cfg.Queries, emb != nil, "cluster.", s.Metrics, func(_ string, _, res *braid.Results, add func(string, float64)) {
		if res == nil {
			return
		}
		t := res.Timings
		add("search", res.TookMS)
		add("lexical", t.Lexical)
		add("knn", t.Vector)
		add("hydrate", t.Hydrate)
	})
}

// dropIndex removes what an earlier bench left in the cluster index, so
// that ingest is timed from empty.
func dropIndex(ctx context.Context, b braid.Backend, opt *braid.Options) error {
	o := opensearch.Options{URL: b.URL, Index: b.Index, Timeout: b.Timeout, AnyDim: true}
	if opt.Embedder != nil {
		o.Dim = opt.Embedder.Dim()
	}
	x, err := opensearch.Open(ctx, o)
	if err != nil {
		return err
	}
	defer x.Close()
	return x.Drop(ctx)
}
