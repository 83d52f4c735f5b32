package braid_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/opensearchtest"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/opensearch"
)

// TestClusterBackend runs the engine on a real one-node OpenSearch
// cluster beside the embedded index, as subtests sharing the node.
func TestClusterBackend(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	t.Run("SameAnswers", func(t *testing.T) { testClusterSameAnswers(t, url) })
	t.Run("Reindex", func(t *testing.T) { testClusterReindex(t, url) })
	t.Run("EmbeddedOnly", func(t *testing.T) { testClusterEmbeddedOnly(t, url) })
	t.Run("Graph", func(t *testing.T) { testClusterGraph(t, url) })
	t.Run("TwoWriters", func(t *testing.T) { testClusterTwoWriters(t, url) })
	t.Run("Settings", func(t *testing.T) { testClusterSettings(t, url) })
	t.Run("OneModel", func(t *testing.T) { testClusterOneModel(t, url) })
	t.Run("Watch", func(t *testing.T) { testClusterWatch(t, url) })
	t.Run("Vaults", func(t *testing.T) { testClusterVaults(t, url) })
}

// twin opens an embedded engine and a cluster engine (index name) with
// the same tiny encoder, and indexes dir into both.
func twin(t *testing.T, url, name, dir string) (embedded, onCluster *braid.Engine) {
	t.Helper()
	ctx := context.Background()
	emb := modeltest.Tiny(t)
	embedded = openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder"})
	onCluster = openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder", Backend: braid.Backend{URL: url, Index: name}})
	for _, e := range []*braid.Engine{embedded, onCluster} {
		sum, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Errors) > 0 {
			t.Fatalf("index errors: %v", sum.Errors)
		}
	}
	return embedded, onCluster
}

func docPaths(t *testing.T, e *braid.Engine, q string, opt braid.SearchOptions) []string {
	t.Helper()
	res, err := e.Search(context.Background(), q, opt)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	var out []string
	for _, h := range res.Results {
		out = append(out, h.Path)
	}
	return out
}

func weight(w float64) *float64 { return &w }

func testClusterSameAnswers(t *testing.T, url string) {
	dir := writeVault(t, vault)
	embedded, onCluster := twin(t, url, "same", dir)
	ctx := context.Background()

	st, err := onCluster.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	est, err := embedded.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != est.Documents || st.Chunks != est.Chunks || len(st.Sources) != 1 || st.Backend == "" {
		t.Errorf("cluster stats %d documents %d chunks %d sources backend %q, want the embedded %d and %d, 1 source, a backend", st.Documents, st.Chunks, len(st.Sources), st.Backend, est.Documents, est.Chunks)
	}

	for _, c := range []struct {
		q   string
		opt braid.SearchOptions
	}{
		{"aphids ladybugs", braid.SearchOptions{VectorWeight: weight(0)}},
		{"tomatoes", braid.SearchOptions{VectorWeight: weight(0)}},
		{"tomatoes", braid.SearchOptions{VectorWeight: weight(0.6)}},
		{"tomatoes garlic", braid.SearchOptions{VectorWeight: weight(1)}},
		{`"olive oil"`, braid.SearchOptions{VectorWeight: weight(0.6)}},
		{"tomatoes -garlic", braid.SearchOptions{VectorWeight: weight(0)}},
		{"tomatos", braid.SearchOptions{VectorWeight: weight(0), Fuzzy: true}},
		{"tomatoes", braid.SearchOptions{VectorWeight: weight(0), Tags: []string{"#plants"}}},
		{"tomatoes", braid.SearchOptions{VectorWeight: weight(0.6), PathGlob: "notes/**"}},
		{"water plant", braid.SearchOptions{VectorWeight: weight(0.6), PathGlob: "*.py"}},
		{"tomatoes", braid.SearchOptions{VectorWeight: weight(0.6), Sources: []string{filepath.Base(dir)}}},
	} {
		want := docPaths(t, embedded, c.q, c.opt)
		got := docPaths(t, onCluster, c.q, c.opt)
		if len(want) == 0 {
			t.Errorf("%q %+v: the embedded index finds nothing; the case tests nothing", c.q, c.opt)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q (weight %v, tags %v, glob %q): cluster %v, embedded %v", c.q, *c.opt.VectorWeight, c.opt.Tags, c.opt.PathGlob, got, want)
		}
	}

	// Lexical scores agree up to one factor per query (bleve's query
	// normalisation, which the cluster leaves out) and the cluster's
	// coarser field lengths. (Words in titles or headings differ more:
	// there the cluster's idf counts the chunks that have the field, the
	// embedded index every chunk.)
	for _, q := range []string{"aphids leaves sun", "garlic olive roast deep", "water level kitchen scraps"} {
		var ratios [2][]float64
		for i, e := range []*braid.Engine{embedded, onCluster} {
			res, err := e.Search(ctx, q, braid.SearchOptions{VectorWeight: weight(0), Chunks: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Results {
				ratios[i] = append(ratios[i], h.Score/res.Results[0].Score)
			}
		}
		if len(ratios[0]) < 2 || len(ratios[0]) != len(ratios[1]) {
			t.Errorf("%q: %d chunks embedded, %d on the cluster; want the same, at least 2", q, len(ratios[0]), len(ratios[1]))
			continue
		}
		for i := range ratios[0] {
			if d := ratios[0][i] - ratios[1][i]; d > 0.05 || d < -0.05 {
				t.Errorf("%q: hit %d scores %.3f of the best embedded, %.3f on the cluster", q, i+1, ratios[0][i], ratios[1][i])
			}
		}
	}

	res, err := onCluster.Search(ctx, "aphids", braid.SearchOptions{VectorWeight: weight(0.6), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	var h *braid.Hit
	for i := range res.Results {
		if res.Results[i].Path == "Gardening.md" {
			h = &res.Results[i]
		}
	}
	if h == nil {
		t.Fatalf("no hybrid hit for aphids in Gardening.md on the cluster: %+v", res.Results)
	}
	if h.Title != "Gardening Guide" || h.Source != "hybrid" || h.Explain == nil || h.Explain.LexicalRank != 1 || h.Explain.VectorRank == 0 || h.Snippet == "" || len(h.Highlights) == 0 || h.Line.Start == 0 {
		t.Errorf("hybrid hit %+v explain %+v: want its title, source hybrid, ranks from both retrievers, a highlighted snippet and lines", h, h.Explain)
	}
}

func testClusterReindex(t *testing.T, url string) {
	ctx := context.Background()
	dir := writeVault(t, vault)
	_, e := twin(t, url, "reindex", dir)
	again, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Added+again.Updated+again.Removed != 0 || again.Unchanged != 5 || again.Embedded != 0 {
		t.Errorf("re-index of an unchanged source: added %d updated %d removed %d unchanged %d embedded %d, want only 5 unchanged", again.Added, again.Updated, again.Removed, again.Unchanged, again.Embedded)
	}

	// A second braid (another process, another machine) sees the same index.
	other := openEngine(t, &braid.Options{Backend: braid.Backend{URL: url, Index: "reindex"}})
	if got := docPaths(t, other, "aphids", braid.SearchOptions{}); len(got) == 0 || got[0] != "Gardening.md" {
		t.Errorf("a second engine without a model finds %v for aphids, want Gardening.md first", got)
	}

	if err := os.WriteFile(filepath.Join(dir, "notes", "cooking.md"), []byte("# Cooking\n\nBake the courgettes with thyme.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "Compost.md")); err != nil {
		t.Fatal(err)
	}
	sum, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 || sum.Removed != 1 || sum.Unchanged != 3 {
		t.Errorf("after one edit and one removal: updated %d removed %d unchanged %d, want 1, 1, 3", sum.Updated, sum.Removed, sum.Unchanged)
	}
	if got := docPaths(t, e, "garlic", braid.SearchOptions{VectorWeight: weight(0)}); len(got) != 0 {
		t.Errorf("garlic, gone from the edited note, still finds %v", got)
	}
	if got := docPaths(t, e, "courgettes", braid.SearchOptions{VectorWeight: weight(0)}); !slices.Equal(got, []string{"notes/cooking.md"}) {
		t.Errorf("courgettes finds %v, want the edited note", got)
	}
	if got := docPaths(t, e, "humus", braid.SearchOptions{VectorWeight: weight(0)}); len(got) != 0 {
		t.Errorf("humus, in the removed file, still finds %v", got)
	}
	st, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 4 {
		t.Errorf("%d documents after the removal, want 4", st.Documents)
	}

	n, err := e.Sources().Remove(t.Context(), filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("remove source: %d documents, want 4", n)
	}
	if st, err := e.Stats(t.Context()); err != nil || st.Documents != 0 || len(st.Sources) != 0 {
		t.Errorf("after removing the source: %+v, %v; want nothing left", st, err)
	}
}

func testClusterEmbeddedOnly(t *testing.T, url string) {
	e := openEngine(t, &braid.Options{Backend: braid.Backend{URL: url, Index: "embedded-only"}})
	if _, err := e.Graph().Gaps(context.Background(), graph.GapOptions{}); !errors.Is(err, braid.ErrBackend) || !strings.Contains(err.Error(), "embedded index") || !strings.Contains(err.Error(), "k-NN graph") {
		t.Errorf("gaps on the cluster backend: %v, want ErrBackend naming the embedded index and why", err)
	}
	if _, err := e.Store().Versions("Gardening"); !errors.Is(err, braid.ErrBackend) || !strings.Contains(err.Error(), "index directory") {
		t.Errorf("versions on the cluster backend: %v, want ErrBackend saying why", err)
	}
	if _, err := e.Search(context.Background(), "x", braid.SearchOptions{Metadata: map[string]string{"a": "b"}}); !errors.Is(err, braid.ErrBackend) {
		t.Errorf("a metadata filter on the cluster backend: %v, want ErrBackend", err)
	}

	start := time.Now()
	_, err := braid.Open("", &braid.Options{Backend: braid.Backend{URL: "http://127.0.0.1:1", Timeout: 2 * time.Second}})
	if !errors.Is(err, opensearch.ErrUnreachable) || !strings.Contains(err.Error(), "http://127.0.0.1:1") || !strings.Contains(err.Error(), "opensearch.sh start") {
		t.Errorf("open on a closed port: %v, want ErrUnreachable naming the URL and the fix", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("open on a closed port took %v", d) // a hang, not a timing claim
	}
}

// testClusterVaults compares the two backends on the shared markdown
// vaults with the 64 questions of bench/vaults/queries.tsv: lexical and
// hybrid, their top-5 documents must mostly agree (at least 4 of 5 on
// average) and the answer note must be in the top 5 equally often
// (within 5% of the questions).
func testClusterVaults(t *testing.T, url string) {
	dir := testdata.Dir(t, "markdown")
	col, err := eval.LoadTSV(filepath.Join("bench", "vaults", "queries.tsv"), "all")
	if err != nil {
		t.Fatal(err)
	}
	if len(col.Queries) < 20 {
		t.Fatalf("%d questions, want 20 or more", len(col.Queries))
	}
	embedded, onCluster := twin(t, url, "vault", dir)
	for _, w := range []float64{0, 0.6} {
		shared, found := 0, [2]int{}
		for _, q := range col.Queries {
			var top [2][]string
			for i, e := range []*braid.Engine{embedded, onCluster} {
				top[i] = docPaths(t, e, q.Text, braid.SearchOptions{VectorWeight: weight(w), Limit: 5})
				for _, p := range top[i] {
					if col.Qrels[q.ID][p] == 2 {
						found[i]++
					}
				}
			}
			for _, p := range top[1] {
				if slices.Contains(top[0], p) {
					shared++
				}
			}
		}
		avg := float64(shared) / float64(len(col.Queries))
		t.Logf("weight %v: %.2f of the top 5 shared on average; answer in the top 5 for %d questions embedded, %d on the cluster", w, avg, found[0], found[1])
		if avg < 4 {
			t.Errorf("weight %v: the backends share %.2f of their top-5 documents on average, want at least 4", w, avg)
		}
		// Where the lists differ it is at near-ties (fused scores a few
		// thousandths apart: OpenSearch's BM25 differs from bleve's, and
		// its k-NN graph is rebuilt by merges that vary from run to run),
		// so the answer's presence may flip on a few questions: the
		// cluster alone read 21 and 22 over runs of one tree.
		tol := max(1, len(col.Queries)/20)
		if d := found[0] - found[1]; d > tol || d < -tol || found[0] == 0 {
			t.Errorf("weight %v: the answer is in the top 5 for %d questions embedded, %d on the cluster; want them within %d (and some)", w, found[0], found[1], tol)
		}
	}
}

// TestClusterNodeLoss indexes into three nodes with two shards and one
// replica, kills the first node (the one named first in the URL list),
// and checks that every query of a batch still answers as before.
func TestClusterNodeLoss(t *testing.T) {
	c := opensearchtest.StartCluster(t, 3)
	ctx := context.Background()
	dir := writeVault(t, vault)
	backend := braid.Backend{URL: strings.Join(c.URLs, ","), Index: "failover", Shards: 2, Replicas: 1}
	e := openEngine(t, &braid.Options{Embedder: modeltest.Tiny(t), Model: "braid/tiny-encoder", Backend: backend})
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	waitGreen(t, c.URLs[1])
	queries := []string{"tomatoes", "aphids ladybugs", "compost humus", "olive oil", "water level", "kitchen scraps", "soil types", "garlic"}
	before := map[string][]string{}
	for _, q := range queries {
		for _, w := range []float64{0, 0.6} {
			before[fmt.Sprint(q, w)] = docPaths(t, e, q, braid.SearchOptions{VectorWeight: weight(w)})
		}
	}
	c.Kill(1)
	for _, q := range queries {
		for _, w := range []float64{0, 0.6} {
			res, err := e.Search(ctx, q, braid.SearchOptions{VectorWeight: weight(w)})
			if err != nil {
				t.Errorf("%q (weight %v) after node 1 died: %v", q, w, err)
				continue
			}
			var got []string
			for _, h := range res.Results {
				got = append(got, h.Path)
			}
			if want := before[fmt.Sprint(q, w)]; len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("%q (weight %v): %v after node 1 died, %v before", q, w, got, want)
			}
		}
	}
	st, err := e.Stats(t.Context())
	if err != nil || st.Documents != 5 {
		t.Errorf("stats after node 1 died: %+v, %v; want the 5 documents", st, err)
	}
}

// waitGreen waits until every shard and replica of the cluster is
// allocated (the cluster's own wait, bounded at 10 minutes as a last
// guard: a busy machine may take minutes to allocate replicas).
func waitGreen(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url + "/_cluster/health?wait_for_status=green&timeout=10m")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := testenv.Must1(io.ReadAll(resp.Body))(t)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"status":"green"`) {
		t.Fatalf("cluster not green: %s %s", resp.Status, b)
	}
}

// TestClusterLostMidIngest kills the only node part way through an index
// run: the run stops with an error, and once the node is back a second
// run finishes the job with every chunk there once.
func TestClusterLostMidIngest(t *testing.T) {
	vault := testdata.Dir(t, "markdown/silverbullet/docs")
	c := opensearchtest.StartCluster(t, 1)
	ctx := context.Background()
	emb := modeltest.Tiny(t)
	reference := openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder"})
	want, err := reference.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The default timeout: a killed node refuses connections at once, so
	// the run stops on the kill without waiting for it.
	backend := braid.Backend{URL: c.URL, Index: "lost"}
	e, err := braid.Open("", &braid.Options{Embedder: emb, Model: "braid/tiny-encoder", BatchDocs: 8, Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	killed := false
	_, err = e.Index(ctx, []braid.SourceSpec{{Path: vault}}, func(p braid.Progress) {
		if !killed && p.Phase == "" && p.Done >= 40 {
			killed = true
			c.Kill(1)
		}
	})
	e.Close()
	if !killed || err == nil {
		t.Fatalf("index run with the node killed after 40 files: killed %v, error %v; want an error", killed, err)
	}
	t.Logf("the interrupted run said: %v", err)

	c.Restart()
	e = openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder", Backend: backend})
	sum, err := e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added+sum.Updated == 0 || sum.Added+sum.Updated+sum.Unchanged != want.Added {
		t.Errorf("the second run: added %d updated %d unchanged %d, want %d documents in all, some of them sent now", sum.Added, sum.Updated, sum.Unchanged, want.Added)
	}
	st, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != want.Added || st.Chunks != want.Chunks {
		t.Errorf("after the second run the cluster holds %d documents and %d chunks, want %d and %d (nothing lost, nothing twice)", st.Documents, st.Chunks, want.Added, want.Chunks)
	}
}

// TestClusterRejectedChunk indexes a vault where one note has a tag too
// long for an OpenSearch keyword: that note is reported with its path,
// the others are indexed, and the next run tries it again.
func TestClusterRejectedChunk(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	files := map[string]string{}
	for k, v := range vault {
		files[k] = v
	}
	files["huge-tag.md"] = "---\ntags: [" + strings.Repeat("x", 40000) + "]\n---\n# Huge\n\nA note whose tag OpenSearch refuses.\n"
	dir := writeVault(t, files)
	e := openEngine(t, &braid.Options{Backend: braid.Backend{URL: url, Index: "rejected"}})
	sum, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) != 1 || !strings.HasSuffix(sum.Errors[0].Path, "huge-tag.md") || !strings.Contains(sum.Errors[0].Err, "refused") {
		t.Fatalf("errors %+v, want one naming huge-tag.md", sum.Errors)
	}
	if got := docPaths(t, e, "aphids", braid.SearchOptions{}); len(got) == 0 || got[0] != "Gardening.md" {
		t.Errorf("aphids finds %v after the rejection, want Gardening.md", got)
	}
	if got := docPaths(t, e, "refuses", braid.SearchOptions{}); len(got) != 0 {
		t.Errorf("the refused note is searchable: %v", got)
	}
	again, err := e.Index(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Errors) != 1 || again.Unchanged != 5 {
		t.Errorf("second run: errors %+v, unchanged %d; want the refused note tried and reported again, the 5 others unchanged", again.Errors, again.Unchanged)
	}
}

// testClusterGraph reads the link graph, ls, tree, find and get on the
// cluster as on the embedded index, and sees a second writer's change.
func testClusterGraph(t *testing.T, url string) {
	dir := writeVault(t, vault)
	embedded, onCluster := twin(t, url, "graph", dir)
	for _, c := range []struct {
		name string
		opt  graph.LinkOptions
	}{{"Gardening.md", graph.LinkOptions{}}, {"Compost.md", graph.LinkOptions{Reverse: true}}, {"Gardening.md", graph.LinkOptions{Depth: 2}}} {
		want, err := embedded.Graph().Links(c.name, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := onCluster.Graph().Links(c.name, c.opt)
		if err != nil {
			t.Fatalf("links %s on the cluster: %v", c.name, err)
		}
		if len(want.Links) == 0 || fmt.Sprint(steps(got)) != fmt.Sprint(steps(want)) {
			t.Errorf("links %s %+v: cluster %v, embedded %v", c.name, c.opt, steps(got), steps(want))
		}
	}
	wb, err := embedded.Graph().BrokenLinks()
	if err != nil {
		t.Fatal(err)
	}
	gb, err := onCluster.Graph().BrokenLinks()
	if err != nil || len(gb) != len(wb) {
		t.Errorf("broken links: %d on the cluster (%v), %d embedded", len(gb), err, len(wb))
	}
	doc, err := onCluster.Notes().Document("Gardening")
	if err != nil || doc.Title != "Gardening Guide" || len(doc.Links) == 0 {
		t.Errorf("document Gardening on the cluster: %+v, %v", doc, err)
	}
	res, err := onCluster.Search(context.Background(), "aphids", braid.SearchOptions{})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("search aphids: %v", err)
	}
	want, err := embedded.Notes().Cite(context.Background(), res.Results[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onCluster.Notes().Cite(context.Background(), res.Results[0].ChunkID)
	if err != nil || fmt.Sprint(*got) != fmt.Sprint(*want) {
		t.Errorf("cite on the cluster: %+v, %v; embedded %+v", got, err, want)
	}
	doc, err = embedded.Notes().Document("Gardening")
	if err != nil {
		t.Fatal(err)
	}
	byHash, err := onCluster.Search(context.Background(), "", braid.SearchOptions{Hash: doc.Hash[:12]})
	if err != nil || len(byHash.Results) != 1 || byHash.Results[0].Path != "Gardening.md" || byHash.Lookup != braid.LookupHash {
		t.Errorf("search by content hash on the cluster: %+v, %v", byHash, err)
	}
	wantInfo, err := embedded.Notes().Info(context.Background(), res.Results[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	gotInfo, err := onCluster.Notes().Info(context.Background(), res.Results[0].ChunkID)
	wj := testenv.Must1(json.Marshal(wantInfo))(t)
	gj := testenv.Must1(json.Marshal(gotInfo))(t)
	if err != nil || string(gj) != string(wj) {
		t.Errorf("info on the cluster: %+v, %v; embedded %+v", gotInfo, err, wantInfo)
	}
	pack, err := onCluster.Ask(context.Background(), "what eats aphids", braid.AskOptions{})
	if err != nil || len(pack.Documents) == 0 {
		t.Errorf("ask on the cluster: %+v, %v", pack, err)
	}
	prior := 0.5
	for _, e := range []*braid.Engine{embedded, onCluster} {
		res, err := e.Search(context.Background(), "compost soil", braid.SearchOptions{VectorWeight: weight(0.6), LinkPrior: &prior, Explain: true})
		if err != nil || len(res.Results) == 0 {
			t.Fatalf("a search with the link prior: %v", err)
		}
		found := false
		for _, h := range res.Results {
			found = found || h.Path == "Compost.md" && h.Explain.Backlinks == 1
		}
		if !found {
			t.Errorf("with the link prior, Compost.md (linked from Gardening.md) shows no backlink: %+v", res.Results)
		}
	}
	tagged, err := onCluster.Tag(context.Background(), filepath.Join(dir, "notes", "cooking.md"), []string{"kitchen"}, "")
	if err != nil || !slices.Contains(tagged.Tags, "kitchen") {
		t.Errorf("tag on the cluster: %+v, %v", tagged, err)
	}
	if got := docPaths(t, onCluster, "garlic", braid.SearchOptions{Tags: []string{"kitchen"}}); !slices.Equal(got, []string{"notes/cooking.md"}) {
		t.Errorf("the tag filter finds %v after tagging, want notes/cooking.md", got)
	}
	content, err := onCluster.Notes().Get(t.Context(), "notes/cooking.md")
	if err != nil || !strings.Contains(string(content.Data), "olive oil") {
		t.Errorf("get notes/cooking.md on the cluster: %v", err)
	}

	// Another braid removes Compost.md; this engine's graph follows.
	if err := os.Remove(filepath.Join(dir, "Compost.md")); err != nil {
		t.Fatal(err)
	}
	other := openEngine(t, &braid.Options{Backend: braid.Backend{URL: url, Index: "graph"}})
	if _, err := other.Index(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	back, err := onCluster.Graph().Links("Gardening.md", graph.LinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range back.Links {
		if s.Path == "Compost.md" {
			t.Errorf("links of Gardening.md still reach the removed Compost.md: %v", steps(back))
		}
	}
}

func steps(l *graph.Links) []string {
	var out []string
	for _, s := range l.Links {
		out = append(out, fmt.Sprintf("%s%s@%d", s.Path, s.Target, s.Depth))
	}
	return out
}

// testClusterTwoWriters has two engines (two machines, say) index
// different sources into one cluster index at the same time; each sees
// both.
func testClusterTwoWriters(t *testing.T, url string) {
	emb := modeltest.Tiny(t)
	backend := braid.Backend{URL: url, Index: "two"}
	a := openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder", Backend: backend})
	b := openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder", Backend: backend})
	dirA := writeVault(t, map[string]string{"one.md": "# One\n\nQuartz clocks keep time.\n", "two.md": "# Two\n\nPendulums swing.\n"})
	dirB := writeVault(t, map[string]string{"three.md": "# Three\n\nSundials need the sun.\n"})
	errs := make(chan error, 2)
	for _, w := range []struct {
		e   *braid.Engine
		dir string
	}{{a, dirA}, {b, dirB}} {
		go func() {
			_, err := w.e.Index(context.Background(), []braid.SourceSpec{{Path: w.dir}}, nil)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for name, e := range map[string]*braid.Engine{"first": a, "second": b} {
		st, err := e.Stats(t.Context())
		if err != nil || st.Documents != 3 || len(st.Sources) != 2 {
			t.Errorf("%s engine's stats: %+v, %v; want 3 documents in 2 sources", name, st, err)
		}
		if got := docPaths(t, e, "sundials", braid.SearchOptions{VectorWeight: weight(0)}); !slices.Equal(got, []string{"three.md"}) {
			t.Errorf("%s engine finds %v for sundials, want three.md", name, got)
		}
		if got := docPaths(t, e, "quartz", braid.SearchOptions{VectorWeight: weight(0)}); !slices.Equal(got, []string{"one.md"}) {
			t.Errorf("%s engine finds %v for quartz, want one.md", name, got)
		}
	}
}

// testClusterSettings keeps search settings in the cluster: a setting one
// engine saves, the next engine opened on the cluster searches with.
func testClusterSettings(t *testing.T, url string) {
	backend := braid.Backend{URL: url, Index: "settings"}
	a := openEngine(t, &braid.Options{Backend: backend})
	if _, err := a.Config().Set("limit", "3"); err != nil {
		t.Fatal(err)
	}
	dir := writeVault(t, vault)
	if _, err := a.Index(context.Background(), []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	b := openEngine(t, &braid.Options{Backend: backend})
	if s := b.Config().Values(); s.Limit == nil || *s.Limit != 3 {
		t.Errorf("a second engine's settings %+v, want limit 3", s)
	}
	if got := docPaths(t, b, "tomatoes OR compost OR garlic OR water OR kept", braid.SearchOptions{}); len(got) != 3 {
		t.Errorf("a search on the second engine gives %d hits, want the saved limit of 3", len(got))
	}
	if _, err := b.Config().Set("limit", "0"); err == nil {
		t.Error("limit 0 accepted")
	}
}

// testClusterOneModel: a cluster index remembers the model its vectors
// were made with; an engine with another model (even of the same
// dimension) or with none may not add chunks to it, and searches it
// lexically, saying why.
func testClusterOneModel(t *testing.T, url string) {
	ctx := context.Background()
	emb := modeltest.Tiny(t)
	backend := braid.Backend{URL: url, Index: "one-model"}
	dir := writeVault(t, vault)
	a := openEngine(t, &braid.Options{Embedder: emb, Model: "braid/tiny-encoder", Backend: backend})
	if _, err := a.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	other := openEngine(t, &braid.Options{Embedder: emb, Model: "another-model", Backend: backend})
	more := writeVault(t, map[string]string{"x.md": "# X\n\nxylophones\n"})
	if _, err := other.Index(ctx, []braid.SourceSpec{{Path: more}}, nil); !errors.Is(err, braid.ErrBadOption) || !strings.Contains(err.Error(), "braid/tiny-encoder") {
		t.Errorf("indexing with another model: %v, want ErrBadOption naming braid/tiny-encoder", err)
	}
	res, err := other.Search(ctx, "aphids", braid.SearchOptions{})
	if err != nil || len(res.Results) == 0 || res.Results[0].Source != "lexical" || !strings.Contains(res.Warning, "braid/tiny-encoder") {
		t.Errorf("searching with another model: %+v, %v; want lexical hits and a warning naming the index's model", res, err)
	}
	none := openEngine(t, &braid.Options{Backend: backend})
	if _, err := none.Index(ctx, []braid.SourceSpec{{Path: more}}, nil); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("indexing without a model into an index with vectors: %v, want ErrBadOption", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Compost.md"), []byte("# Compost\n\nNow about worms.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := none.Index(ctx, nil, nil); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("re-indexing an edited note without a model: %v, want ErrBadOption", err)
	}
	if got := docPaths(t, none, "humus", braid.SearchOptions{}); !slices.Equal(got, []string{"Compost.md"}) {
		t.Errorf("the refused edit left %v for humus, want the note as it was indexed", got)
	}
}

// testClusterWatch keeps a cluster index current from a watched folder
// (here the working directory holds the source, where the embedded
// index's own directory would be ignored).
func testClusterWatch(t *testing.T, url string) {
	dir := writeVault(t, map[string]string{"old.md": "# Old\n\nthe word is quokka\n"})
	t.Chdir(dir)
	e := openEngine(t, &braid.Options{Backend: braid.Backend{URL: url, Index: "watch"}})
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	runs := watchRuns(t, e, braid.WatchOptions{Debounce: 50 * time.Millisecond})
	seen(t, runs, time.Now(), "platypus on the cluster", func() { rename(t, filepath.Join(dir, "new.md"), "# New\n\nplatypus\n") },
		func() bool {
			return len(docPaths(t, e, "platypus", braid.SearchOptions{VectorWeight: weight(0)})) > 0
		})
}
