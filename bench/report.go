package bench

import (
	"fmt"
	"io"
	"strings"
)

// stageRows are the per-size rows of the latency table, in pipeline order.
var stageRows = []struct{ key, label string }{
	{"tokenize", "tokenize query"},
	{"embed", "embed query"},
	{"hnsw", "HNSW top-50"},
	{"vector", "vector stage (embed + HNSW)"},
	{"lexical", "BM25 top-50"},
	{"lexical_natural_first", "BM25 top-50, a process's first questions in words"},
	{"lexical_natural", "BM25 top-50, questions in words (8-12, common words too), warm"},
	{"fusion", "fusion"},
	{"lexical_fusion", "BM25 + fusion"},
	{"hydrate", "hydrate 10 hits"},
	{"search", "hybrid search, end to end"},
	{"search_lexical", "lexical search, end to end"},
	{"cluster.lexical", "OpenSearch: BM25 top-50"},
	{"cluster.knn", "OpenSearch: k-NN top-50"},
	{"cluster.hydrate", "OpenSearch: hydrate 10 hits"},
	{"cluster.search", "OpenSearch: hybrid search, end to end"},
	{"cluster.search_lexical", "OpenSearch: lexical search, end to end"},
}

// Markdown writes the report as markdown tables.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "Embedding model: %s\n\n", r.Embedder)
	if r.Device != "" {
		fmt.Fprintf(w, "Device: %s\n\n", r.Device)
	}
	if len(r.Sizes) > 0 {
		fmt.Fprint(w, "| stage (ms, p50 / p95 / p99) |")
		for _, s := range r.Sizes {
			fmt.Fprintf(w, " %s chunks |", count(s.Chunks))
		}
		fmt.Fprint(w, "\n|---|")
		fmt.Fprint(w, strings.Repeat("---|", len(r.Sizes)))
		fmt.Fprintln(w)
		for _, row := range stageRows {
			if _, ok := r.Sizes[0].Metrics[row.key+".p50_ms"]; !ok {
				continue
			}
			fmt.Fprintf(w, "| %s |", row.label)
			for _, s := range r.Sizes {
				m := s.Metrics
				fmt.Fprintf(w, " %s / %s / %s |", num(m[row.key+".p50_ms"]), num(m[row.key+".p95_ms"]), num(m[row.key+".p99_ms"]))
			}
			fmt.Fprintln(w)
		}
		for _, row := range []struct{ key, label string }{
			{"ingest.chunks_per_s", "ingest, chunks/s"}, {"ingest.docs_per_s", "ingest, files/s"},
			{"ingest.s", "ingest, s"}, {"ingest.cpu_s", "… CPU (user + system), s"}, {"rss_peak_mb", "peak RSS so far, MB"},
			{"ingest.rss_peak_mb", "peak RSS as the ingest ends, MB"}, {"ingest.rss_anon_mb", "… resident then: anonymous, MB"}, {"ingest.rss_file_mb", "… mapped file pages, MB"},
			{"ingest.rss_kib_per_chunk", "… peak RSS grown per chunk since the size before, KiB"},
			{"reindex_unchanged.s", "braid index again, nothing changed, s"}, {"reindex_one_note.s", "… one note edited, s"}, {"watch_one_note.s", "… one note edited, under --watch (the changed path only), s"}, {"disk.bytes_per_chunk", "index on disk, bytes per chunk"},
			{"reopen.ms", "open the index again and search once, ms"}, {"reopen.heap_mb", "… heap that keeps, MB"},
			{"reopen_stamped.ms", "… and once more, the checksums read before stamped, ms"},
			{"fresh.wall_ms", "a fresh braid search process (models, open, one hybrid search), ms"}, {"fresh.rss_peak_mb", "… its peak RSS, MB"},
			{"cluster.ingest.chunks_per_s", "OpenSearch ingest, chunks/s"}, {"cluster.ingest.s", "OpenSearch ingest, s"},
			{"model_ingest.chunks_per_s", "ingest embedding with the model, chunks/s"},
			{"model_ingest.tokens_per_s", "… tokens/s"}, {"model_ingest.s", "… s"},
			{"model_ingest.embed_share", "… share of the time in the model"},
			{"model_ingest.gflops", "… model arithmetic, GFLOP/s"},
			{"model_ingest.peak_fraction", "… fraction of the CPU's peak"},
		} {
			if !anyHas(r.Sizes, row.key) {
				continue
			}
			fmt.Fprintf(w, "| %s |", row.label)
			for _, s := range r.Sizes {
				if v, ok := s.Metrics[row.key]; ok {
					fmt.Fprintf(w, " %s |", num(v))
				} else {
					fmt.Fprint(w, " — |")
				}
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	if v, ok := r.Metrics["embed.chunks_per_s"]; ok {
		fmt.Fprintf(w, "Passage embedding with the model: %s chunks/s (300-token chunks, batch of 32).\n\n", num(v))
	}
	if len(r.Rerank) > 0 {
		fmt.Fprintf(w, "| reranker, 50 pairs of ~470-token passages | weights | window | p50 ms | p95 ms | p99 ms | ≤ %d ms |\n", rerankTargetMS)
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, t := range r.Rerank {
			met := "no"
			if t.MeetsTarget {
				met = "yes"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", t.Model, t.Origin, t.Window, num(t.P50MS), num(t.P95MS), num(t.P99MS), met)
		}
		fmt.Fprintln(w)
	}
	r.markdownRoofline(w)
	fmt.Fprintln(w, "| target (ARCHITECTURE.md) | metric | target | measured | met |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, t := range r.Targets {
		got, met := "not measured", ""
		if t.MeasuredMS != nil {
			got, met = num(*t.MeasuredMS)+" ms", "no"
			if *t.Met {
				met = "yes"
			}
		}
		fmt.Fprintf(w, "| %s | %s | ≤ %s ms | %s | %s |\n", t.Name, t.Metric, num(t.TargetMS), got, met)
	}
	fmt.Fprintln(w)
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "- skipped %s: %s\n", s.Model, s.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	fmt.Fprintf(w, "- peak RSS %s MB\n", num(r.PeakRSSMB))
}

func count(n int) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func num(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

func anyHas(sizes []Size, key string) bool {
	for _, s := range sizes {
		if _, ok := s.Metrics[key]; ok {
			return true
		}
	}
	return false
}
