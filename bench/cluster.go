package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
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
	stages := map[string][]float64{}
	zero := 0.0
	for i := range cfg.Queries {
		q := queries[i%len(queries)]
		res, err := e.Search(ctx, q, braid.SearchOptions{VectorWeight: &zero, NoRerank: true})
		if err != nil {
			return err
		}
		stages["search_lexical"] = append(stages["search_lexical"], res.TookMS)
		if emb == nil {
			continue
		}
		res, err = e.Search(ctx, q, braid.SearchOptions{NoRerank: true})
		if err != nil {
			return err
		}
		t := res.Timings
		for name, ms := range map[string]float64{
			"search": res.TookMS, "lexical": t.Lexical, "knn": t.Vector, "hydrate": t.Hydrate,
		} {
			stages[name] = append(stages[name], ms)
		}
	}
	for name, xs := range stages {
		for _, p := range []float64{50, 95, 99} {
			s.Metrics[fmt.Sprintf("cluster.%s.p%.0f_ms", name, p)] = round(eval.Percentile(xs, p))
		}
	}
	return nil
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
