package opensearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/opensearchtest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/opensearch"
)

// TestOpenSearch runs every test that needs a cluster as a subtest, so the
// test binary starts one node, once.
func TestOpenSearch(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	t.Run("Open", func(t *testing.T) { testOpen(t, url) })
	t.Run("Analysis", func(t *testing.T) { testAnalysis(t, url) })
	t.Run("Search", func(t *testing.T) { testSearch(t, url) })
	t.Run("BulkError", func(t *testing.T) { testBulkError(t, url) })
	t.Run("FileHashes", func(t *testing.T) { testFileHashes(t, url) })
	t.Run("PathGlob", func(t *testing.T) { testPathGlob(t, url) })
	t.Run("Chunks", func(t *testing.T) { testChunks(t, url) })
	t.Run("Sources", func(t *testing.T) { testSources(t, url) })
}

func open(t *testing.T, o opensearch.Options) *opensearch.Index {
	t.Helper()
	x, err := opensearch.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	return x
}

// do sends a raw request to the cluster, for what the package does not
// expose, and returns the body; it fails the test on a status >= 300.
func do(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := testenv.Must1(io.ReadAll(resp.Body))(t)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, b)
	}
	return string(b)
}

func testOpen(t *testing.T, url string) {
	o := opensearch.Options{URL: url, Index: "open-test", Dim: 4}
	x := open(t, o)
	if x.Name() != "open-test" {
		t.Errorf("Name() = %q, want open-test", x.Name())
	}
	mv := fmt.Sprintf(`"braid_mapping":%d`, opensearch.MappingVersion)
	m := do(t, "GET", url+"/open-test/_mapping", "")
	for _, want := range []string{mv, `"similarity":"braid_bm25"`, `"dim":4`, `"knn_vector"`, `"engine":"lucene"`, `"analyzer":"braid_en"`,
		`"text":{"type":"text","index":false}`, `"doc_hash":{"type":"keyword"}`, `"kind":{"type":"keyword"}`} {
		if !strings.Contains(m, want) {
			t.Errorf("mapping lacks %s:\n%s", want, m)
		}
	}
	if s := do(t, "GET", url+"/open-test/_settings", ""); !strings.Contains(s, `"knn":"true"`) {
		t.Errorf("settings lack index.knn true:\n%s", s)
	}
	if m := do(t, "GET", url+"/open-test-files/_mapping", ""); !strings.Contains(m, mv) {
		t.Errorf("file-hash index mapping lacks %s:\n%s", mv, m)
	}
	if m := do(t, "GET", url+"/open-test-sources/_mapping", ""); !strings.Contains(m, mv) || !strings.Contains(m, `"record":{"type":"object","enabled":false}`) {
		t.Errorf("source-record index mapping lacks %s or an unparsed record:\n%s", mv, m)
	}

	// The same options reuse the index, and what it holds.
	if err := x.Put(t.Context(), []opensearch.Doc{{ChunkID: "kept", DocID: "d", Content: "still here"}}); err != nil {
		t.Fatal(err)
	}
	y := open(t, o)
	if err := y.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	hits, _, err := y.Lexical(t.Context(), opensearch.LexQuery{Terms: "still here"}, opensearch.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ChunkID != "kept" {
		t.Errorf("after reopening, hits = %v, want the chunk put before", hits)
	}

	do(t, "PUT", url+"/foreign", `{"mappings":{"properties":{"content":{"type":"text"}}}}`)
	do(t, "PUT", url+"/future", `{"mappings":{"_meta":{"braid_mapping":99,"dim":4}}}`)
	do(t, "PUT", url+"/version-one", `{"mappings":{"_meta":{"braid_mapping":1,"dim":0}}}`)
	for _, tc := range []struct {
		name string
		o    opensearch.Options
		want string
	}{
		{"other dim", opensearch.Options{URL: url, Index: "open-test", Dim: 8}, "holds 4-dimensional vectors, Options.Dim is 8"},
		{"no vectors", opensearch.Options{URL: url, Index: "open-test"}, "holds 4-dimensional vectors, Options.Dim is 0"},
		{"not braid's", opensearch.Options{URL: url, Index: "foreign"}, "no _meta.braid_mapping"},
		{"other version", opensearch.Options{URL: url, Index: "future", Dim: 4}, "mapping version 99"},
		{"version 1", opensearch.Options{URL: url, Index: "version-one"}, fmt.Sprintf("mapping version 1, this braid uses %d", opensearch.MappingVersion)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := opensearch.Open(t.Context(), tc.o)
			if err == nil {
				x.Close()
				t.Fatal("Open succeeded, want ErrReindexNeeded")
			}
			if !errors.Is(err, opensearch.ErrReindexNeeded) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want ErrReindexNeeded saying %q", err, tc.want)
			}
		})
	}
}

// docs is a small corpus with 4-dimensional vectors. Each chunk's Content
// starts with its title and headings, as braid builds it (cluster.Put).
var docs = []opensearch.Doc{
	{ChunkID: "c1", DocID: "d1", Source: "s1", Path: "notes/garden.md", Title: "Garden",
		Content: "Garden\n\nhow to water the tomato plants in summer", Tags: []string{"garden", "water"},
		Vector: []float32{1, 0, 0, 0}},
	{ChunkID: "c2", DocID: "d1", Source: "s1", Path: "notes/garden.md", Title: "Garden", Ord: 1, StartLine: 10, EndLine: 12,
		Content: "Garden\n\nthe plant.water_level sensor reading", Tags: []string{"garden", "water"},
		Vector: []float32{0.9, 0.3, 0, 0}},
	{ChunkID: "c3", DocID: "d2", Source: "s1", Path: "notes/kitchen.md", Title: "Sourdough starter",
		Content: "Sourdough starter\n\nfeed it flour every day", Tags: []string{"kitchen"},
		Vector: []float32{0, 1, 0, 0}},
	{ChunkID: "c4", DocID: "d3", Source: "s2", Path: "code/pump.go", Title: "pump.go", Headings: "Irrigation",
		Content: "pump.go\nIrrigation\ncontroller for the pump", Tags: []string{"garden"},
		Vector: []float32{0, 0, 1, 0}},
	{ChunkID: "c5", DocID: "d4", Source: "s2", Path: "code/readme.txt", Title: "readme",
		Content: "readme\n\nunrelated text about trains", Vector: []float32{0, 0, 0.2, 1}},
	{ChunkID: "c6", DocID: "d5", Source: "s3", Path: "misc/no-vector.md", Title: "No vector",
		Content: "No vector\n\na chunk without an embedding about tomato soup"},
}

func ids(hits []opensearch.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func testSearch(t *testing.T, url string) {
	ctx := t.Context()
	x := open(t, opensearch.Options{URL: url, Index: "search-test", Dim: 4})
	if err := x.Put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	t.Run("Lexical", func(t *testing.T) {
		type lq = opensearch.LexQuery
		for _, tc := range []struct {
			name  string
			q     lq
			first string
			want  []string // every hit, any order; nil: only check first
		}{
			{"content words", lq{Terms: "watering tomatoes"}, "c1", nil},
			{"a title word", lq{Terms: "sourdough"}, "c3", []string{"c3"}},
			{"a heading word", lq{Terms: "irrigation"}, "c4", []string{"c4"}},
			{"weighed title", lq{Terms: "sourdough", TitleWeight: 0.5}, "c3", []string{"c3"}},
			{"weighed headings", lq{Terms: "irrigation", HeadingWeight: 0.5}, "c4", []string{"c4"}},
			{"identifier split", lq{Terms: "water level"}, "c2", nil},
			{"stop words only", lq{Terms: "the and of"}, "", []string{}},
			{"no match", lq{Terms: "zeppelin"}, "", []string{}},
			{"query syntax is plain text", lq{Terms: `water AND (level" -tomato*`}, "c2", nil},
			{"phrase", lq{Phrases: []string{"tomato plants"}}, "c1", []string{"c1"}},
			{"phrase in another order", lq{Phrases: []string{"plants tomato"}}, "", []string{}},
			{"phrases all must match", lq{Phrases: []string{"tomato plants", "tomato soup"}}, "", []string{}},
			{"phrase over a stop word", lq{Phrases: []string{"water the tomatoes"}}, "c1", []string{"c1"}},
			{"terms do not widen a phrase", lq{Terms: "sensor sourdough", Phrases: []string{"tomato plants"}}, "c1", []string{"c1"}},
			{"phrase in the title", lq{Phrases: []string{"sourdough starter"}}, "c3", []string{"c3"}},
			{"excluded", lq{Terms: "tomato", Excluded: []string{"soup"}}, "c1", []string{"c1"}},
			{"any excluded word drops", lq{Terms: "water tomato sourdough", Excluded: []string{"summer", "flour everything"}}, "", []string{"c2", "c6"}},
			{"excluded title word", lq{Terms: "tomato", Excluded: []string{"garden"}}, "c6", []string{"c6"}},
			{"typo without fuzziness", lq{Terms: "tomatp"}, "", []string{}},
			{"typo with fuzziness 1", lq{Terms: "tomatp", Fuzziness: 1}, "", []string{"c1", "c6"}},
			{"two typos with fuzziness 1", lq{Terms: "tpmatp", Fuzziness: 1}, "", []string{}},
			{"two typos with fuzziness 2", lq{Terms: "tpmatp", Fuzziness: 2}, "", []string{"c1", "c6"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				hits, total, err := x.Lexical(ctx, tc.q, opensearch.Filter{}, 10)
				if err != nil {
					t.Fatal(err)
				}
				if tc.first != "" && (len(hits) == 0 || hits[0].ChunkID != tc.first) {
					t.Errorf("Lexical(%+v) = %v, want %s first", tc.q, hits, tc.first)
				}
				if tc.want != nil {
					if d := cmp.Diff(sorted(tc.want), sorted(ids(hits))); d != "" {
						t.Errorf("Lexical(%+v) chunks (-want +got):\n%s", tc.q, d)
					}
				}
				if total != len(hits) {
					t.Errorf("total = %d, want %d: k is above the number of matches", total, len(hits))
				}
				for i, h := range hits {
					if h.DocID == "" || h.Score <= 0 || (i > 0 && h.Score > hits[i-1].Score) {
						t.Errorf("hit %d = %+v: want a doc ID, a positive score, best first", i, h)
					}
				}
			})
		}
	})

	t.Run("LexicalTotal", func(t *testing.T) {
		q := opensearch.LexQuery{Terms: "water tomato sourdough"} // c1, c2, c3, c6
		for _, k := range []int{1, 0} {
			hits, total, err := x.Lexical(ctx, q, opensearch.Filter{}, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != k || total != 4 {
				t.Errorf("k=%d: %d hits, total %d; want %d hits of 4 matching chunks", k, len(hits), total, k)
			}
		}
		_, total, err := x.Lexical(ctx, q, opensearch.Filter{Sources: []string{"s1"}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 {
			t.Errorf("total with a filter = %d, want 3 (c1, c2, c3)", total)
		}
	})

	t.Run("FieldWeights", func(t *testing.T) {
		// A weighed field adds to a content match and takes nothing from a
		// chunk that matches in content alone.
		score := func(q opensearch.LexQuery, id string) float64 {
			t.Helper()
			hits, _, err := x.Lexical(ctx, q, opensearch.Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.ChunkID == id {
					if weighed := q.TitleWeight+q.HeadingWeight > 0; (h.FieldBonus > 0) != (weighed && id != "c1") || h.FieldBonus >= h.Score {
						t.Errorf("%+v: %s has field bonus %v of %v", q, id, h.FieldBonus, h.Score)
					}
					return h.Score
				}
			}
			t.Fatalf("Lexical(%+v) = %v, want %s among them", q, ids(hits), id)
			return 0
		}
		for _, tc := range []struct {
			terms, id string
			w         opensearch.LexQuery
			more      bool
		}{
			{"sourdough", "c3", opensearch.LexQuery{TitleWeight: 1}, true},
			{"irrigation", "c4", opensearch.LexQuery{HeadingWeight: 1}, true},
			{"tomato", "c1", opensearch.LexQuery{TitleWeight: 1, HeadingWeight: 1}, false},
		} {
			w := tc.w
			w.Terms = tc.terms
			plain, weighed := score(opensearch.LexQuery{Terms: tc.terms}, tc.id), score(w, tc.id)
			if tc.more && !(weighed > plain) || !tc.more && weighed != plain {
				t.Errorf("%q: %s scores %v weighed (%+v), %v plain; want more: %v", tc.terms, tc.id, weighed, w, plain, tc.more)
			}
		}
	})

	t.Run("LexicalTerms", func(t *testing.T) {
		hits, _, err := x.Lexical(ctx, opensearch.LexQuery{Terms: "tomatp levl", Fuzziness: 1}, opensearch.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, h := range hits {
			got[h.ChunkID] = sorted(h.Terms)
		}
		// The indexed terms: stemmed, as the content's analysis made them.
		want := map[string][]string{"c1": {"tomato"}, "c2": {"level"}, "c6": {"tomato"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("matched terms of a fuzzy query (-want +got):\n%s", d)
		}
		hits, _, err = x.Lexical(ctx, opensearch.LexQuery{Terms: "tomato"}, opensearch.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Terms != nil {
				t.Errorf("hit %s of an exact query has Terms %q, want nil", h.ChunkID, h.Terms)
			}
		}
	})

	t.Run("LexicalErrors", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			q    opensearch.LexQuery
			f    opensearch.Filter
			is   error
			want string
		}{
			{"empty", opensearch.LexQuery{}, opensearch.Filter{}, opensearch.ErrEmptyQuery, "give at least one word"},
			{"only exclusions", opensearch.LexQuery{Terms: "  ", Phrases: []string{" "}, Excluded: []string{"soup"}}, opensearch.Filter{}, opensearch.ErrEmptyQuery, "no terms or phrases"},
			{"fuzziness 3", opensearch.LexQuery{Terms: "soup", Fuzziness: 3}, opensearch.Filter{}, nil, "fuzziness 3, want 0, 1 or 2"},
			{"bad glob", opensearch.LexQuery{Terms: "soup"}, opensearch.Filter{PathGlob: "notes/[a-z"}, nil, "unclosed '['"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, _, err := x.Lexical(ctx, tc.q, tc.f, 10)
				if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Lexical: %v, want an error saying %q (wrapping %v)", err, tc.want, tc.is)
				}
			})
		}
	})

	t.Run("Vector", func(t *testing.T) {
		hits, err := x.Vector(ctx, []float32{1, 0.1, 0, 0}, opensearch.Filter{}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"c1", "c2", "c3"}, ids(hits)); d != "" {
			t.Errorf("nearest chunks (-want +got):\n%s", d)
		}
		if len(hits) > 0 && (hits[0].DocID != "d1" || hits[0].Score < 0.99 || hits[0].Score > 1.0001) {
			t.Errorf("best hit = %+v, want d1 with a cosine near 0.995", hits[0])
		}
		if _, err := x.Vector(ctx, []float32{1, 0}, opensearch.Filter{}, 3); err == nil || !strings.Contains(err.Error(), "query has 2 dimensions, want 4") {
			t.Errorf("a 2-d query: %v, want a dimension error", err)
		}
	})

	t.Run("Filter", func(t *testing.T) {
		query := "water tomato sourdough irrigation trains soup"
		vec := []float32{1, 0, 0, 0}
		for _, tc := range []struct {
			name string
			f    opensearch.Filter
			lex  []string
			vec  []string // every chunk with a vector that passes
		}{
			{"none", opensearch.Filter{}, []string{"c1", "c2", "c3", "c4", "c5", "c6"}, []string{"c1", "c2", "c3", "c4", "c5"}},
			{"source", opensearch.Filter{Sources: []string{"s2"}}, []string{"c4", "c5"}, []string{"c4", "c5"}},
			{"sources", opensearch.Filter{Sources: []string{"s2", "s3"}}, []string{"c4", "c5", "c6"}, []string{"c4", "c5"}},
			{"one tag", opensearch.Filter{Tags: []string{"garden"}}, []string{"c1", "c2", "c4"}, []string{"c1", "c2", "c4"}},
			{"all tags", opensearch.Filter{Tags: []string{"garden", "water"}}, []string{"c1", "c2"}, []string{"c1", "c2"}},
			{"doc IDs", opensearch.Filter{DocIDs: []string{"d2", "d4"}}, []string{"c3", "c5"}, []string{"c3", "c5"}},
			{"path regexp", opensearch.Filter{PathRegexp: `code/.*`}, []string{"c4", "c5"}, []string{"c4", "c5"}},
			{"path regexp anchored", opensearch.Filter{PathRegexp: `garden`}, []string{}, []string{}},
			{"path glob", opensearch.Filter{PathGlob: "*.md"}, []string{"c1", "c2", "c3", "c6"}, []string{"c1", "c2", "c3"}},
			{"path glob in a directory", opensearch.Filter{PathGlob: "code/*"}, []string{"c4", "c5"}, []string{"c4", "c5"}},
			{"path glob base name", opensearch.Filter{PathGlob: "pump.go"}, []string{"c4"}, []string{"c4"}},
			{"path glob and regexp", opensearch.Filter{PathGlob: "**/*.md", PathRegexp: `.*garden.*`}, []string{"c1", "c2"}, []string{"c1", "c2"}},
			{"combined", opensearch.Filter{Sources: []string{"s1"}, PathRegexp: `notes/[a-k].*\.md`, Tags: []string{"kitchen"}}, []string{"c3"}, []string{"c3"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				hits, _, err := x.Lexical(ctx, opensearch.LexQuery{Terms: query}, tc.f, 10)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(sorted(tc.lex), sorted(ids(hits))); d != "" {
					t.Errorf("Lexical (-want +got):\n%s", d)
				}
				// k is the number expected: a filter applied after the
				// k-NN search would return fewer.
				k := max(len(tc.vec), 1)
				hits, err = x.Vector(ctx, vec, tc.f, k)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(sorted(tc.vec), sorted(ids(hits))); d != "" {
					t.Errorf("Vector k=%d (-want +got):\n%s", k, d)
				}
			})
		}
	})

	t.Run("Delete", func(t *testing.T) {
		if err := x.Delete(ctx, []string{"c5", "never-indexed"}); err != nil {
			t.Fatal(err)
		}
		if err := x.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		hits, _, err := x.Lexical(ctx, opensearch.LexQuery{Terms: "trains"}, opensearch.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 0 {
			t.Errorf("after Delete, Lexical(trains) = %v, want none", hits)
		}
		hits, err = x.Vector(ctx, []float32{0, 0, 0, 1}, opensearch.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids(hits), "c5") {
			t.Errorf("after Delete, Vector = %v, want no c5", hits)
		}
	})
}

func testBulkError(t *testing.T, url string) {
	ctx := t.Context()
	x := open(t, opensearch.Options{URL: url, Index: "bulk-test", Dim: 4})
	err := x.Put(ctx, []opensearch.Doc{
		{ChunkID: "good1", DocID: "d", Content: "alpha bravo", Vector: []float32{1, 0, 0, 0}},
		{ChunkID: "short", DocID: "d", Content: "alpha charlie", Vector: []float32{1, 0, 0}},
		{ChunkID: "huge-line", DocID: "d", Content: "alpha delta", StartLine: 1 << 40},
		{ChunkID: "good2", DocID: "d", Content: "alpha echo", Vector: []float32{0, 1, 0, 0}},
		{ChunkID: "zero", DocID: "d", Content: "alpha foxtrot", Vector: []float32{0, 0, 0, 0}},
	})
	var be *opensearch.BulkError
	if !errors.As(err, &be) {
		t.Fatalf("Put: %v, want a *BulkError", err)
	}
	t.Log(err)
	var got []string
	for _, it := range be.Items {
		got = append(got, fmt.Sprintf("%s %d", it.ID, it.Status))
	}
	if d := cmp.Diff([]string{"short 0", "zero 0", "huge-line 400"}, got); d != "" {
		t.Errorf("failed items (-want +got):\n%s", d)
	}
	if be.Total != 5 || !strings.Contains(err.Error(), "short: vector has 3 dimensions, the index wants 4") ||
		!strings.Contains(err.Error(), "huge-line: mapper_parsing_exception") || !strings.Contains(err.Error(), "start_line") {
		t.Errorf("error %q: want the total, each chunk and its reason", err)
	}
	if err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	hits, _, err := x.Lexical(ctx, opensearch.LexQuery{Terms: "alpha"}, opensearch.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"good1", "good2"}, sorted(ids(hits))); d != "" {
		t.Errorf("searchable after a partly failed Put (-want +got):\n%s", d)
	}
}

func testFileHashes(t *testing.T, url string) {
	ctx := t.Context()
	x := open(t, opensearch.Options{URL: url, Index: "files-test"})
	get := func(source string) map[string]string {
		t.Helper()
		m, err := x.FileHashes(ctx, source)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	set := func(source string, m map[string]string, remove ...string) {
		t.Helper()
		if err := x.SetFileHashes(ctx, source, m, remove); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(map[string]string{}, get("s1")); d != "" {
		t.Errorf("empty index (-want +got):\n%s", d)
	}
	set("s1", map[string]string{"a.md": "h1", "b.md": "h2", "dir/c.md": "h3"})
	set("s2", map[string]string{"a.md": "other"})
	if d := cmp.Diff(map[string]string{"a.md": "h1", "b.md": "h2", "dir/c.md": "h3"}, get("s1")); d != "" {
		t.Errorf("s1 (-want +got):\n%s", d)
	}
	set("s1", map[string]string{"b.md": "h2b"}, "dir/c.md", "never-set.md")
	if d := cmp.Diff(map[string]string{"a.md": "h1", "b.md": "h2b"}, get("s1")); d != "" {
		t.Errorf("s1 after an update and a removal (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"a.md": "other"}, get("s2")); d != "" {
		t.Errorf("s2, untouched by s1's changes (-want +got):\n%s", d)
	}

	// More than one page of results.
	many := map[string]string{}
	for i := range 2345 {
		many[fmt.Sprintf("f%05d.txt", i)] = fmt.Sprintf("hash%d", i)
	}
	many[strings.Repeat("long/", 200)+"x.md"] = "long path"
	set("big", many)
	start := time.Now()
	if d := cmp.Diff(many, get("big")); d != "" {
		t.Errorf("%d files (-want +got):\n%s", len(many), d)
	}
	t.Logf("read %d file hashes in %v", len(many), time.Since(start))
}

// TestOpenUnreachable needs no cluster: nothing listens on port 1.
func TestOpenUnreachable(t *testing.T) {
	start := time.Now()
	x, err := opensearch.Open(t.Context(), opensearch.Options{URL: "http://127.0.0.1:1", Timeout: 3 * time.Second})
	if err == nil {
		x.Close()
		t.Fatal("Open succeeded")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Open took %v, want at most the 3s timeout", took)
	}
	if !errors.Is(err, opensearch.ErrUnreachable) || !strings.Contains(err.Error(), "http://127.0.0.1:1") || !strings.Contains(err.Error(), "scripts/opensearch.sh start") {
		t.Errorf("Open: %v, want ErrUnreachable naming the URL and the fix", err)
	}
	t.Log(err)
}

func TestOpenBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    opensearch.Options
		want string
	}{
		{"no URL", opensearch.Options{}, "URL is empty"},
		{"not http", opensearch.Options{URL: "127.0.0.1:9200"}, "not an http(s) address"},
		{"negative dim", opensearch.Options{URL: "http://127.0.0.1:9200", Dim: -1}, "dimension -1"},
		{"uppercase index", opensearch.Options{URL: "http://127.0.0.1:9200", Index: "Braid"}, `index name "Braid"`},
		{"negative replicas", opensearch.Options{URL: "http://127.0.0.1:9200", Replicas: -1}, "replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := opensearch.Open(context.Background(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestBulkErrorMessage(t *testing.T) {
	e := &opensearch.BulkError{Op: "put", Total: 9, Items: []opensearch.ItemError{
		{ID: "a", Reason: "r1"}, {ID: "b", Reason: "r2"}, {ID: "c", Reason: "r3"}, {ID: "d", Reason: "r4"}, {ID: "e", Reason: "r5"},
	}}
	want := "opensearch: put: 5 of 9 items failed: a: r1; b: r2; c: r3; and 2 more"
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// testAnalysis checks that OpenSearch analyses text into the same terms as
// the embedded index, so BM25 matches the same words in both.
func testAnalysis(t *testing.T, url string) {
	open(t, opensearch.Options{URL: url, Index: "analysis-test"})
	lex, err := lexical.Open(filepath.Join(t.TempDir(), "lexical"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	for _, text := range []string{
		"Tom's plant.water_level readings: C:\\Users\\notes/garden_log.md",
		"How about THE running dogs, and what they're doing here?",
		"HTTPServer v2.5 e-mail foo-bar 3.14 x86_64 naïve café",
		"The fox’s jumps; ourselves yourselves themselves would should",
		"config.yaml: retries=3 timeout_ms=250 #comment @user",
	} {
		body := testenv.Must1(json.Marshal(map[string]any{"analyzer": "braid_en", "text": text}))(t)
		var resp struct {
			Tokens []struct {
				Token string `json:"token"`
			} `json:"tokens"`
		}
		if err := json.Unmarshal([]byte(do(t, "POST", url+"/analysis-test/_analyze", string(body))), &resp); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, tok := range resp.Tokens {
			got = append(got, tok.Token)
		}
		want := []string{}
		for _, tok := range lex.Analyze(text) {
			want = append(want, tok.Term)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("terms of %q (-embedded +opensearch):\n%s", text, d)
		}
	}
}

// testPathGlob checks on the cluster that Filter.PathGlob keeps exactly
// the paths index.Matcher matches, for every glob of the unit test.
func testPathGlob(t *testing.T, url string) {
	ctx := t.Context()
	x := open(t, opensearch.Options{URL: url, Index: "glob-test"})
	var docs []opensearch.Doc
	path := map[string]string{} // chunk ID -> path
	for i, p := range opensearch.GlobPaths {
		id := fmt.Sprintf("p%02d", i)
		path[id] = p
		docs = append(docs, opensearch.Doc{ChunkID: id, DocID: id, Path: p, Content: "common"})
	}
	if err := x.Put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, g := range opensearch.GlobCases {
		m, err := index.NewMatcher([]string{g})
		if err != nil {
			t.Errorf("glob %q: %v", g, err)
			continue
		}
		want := []string{}
		for _, p := range opensearch.GlobPaths {
			if m.Match(p) {
				want = append(want, p)
			}
		}
		hits, _, err := x.Lexical(ctx, opensearch.LexQuery{Terms: "common"}, opensearch.Filter{PathGlob: g}, len(docs))
		if err != nil {
			t.Errorf("glob %q: %v", g, err)
			continue
		}
		got := []string{}
		for _, h := range hits {
			got = append(got, path[h.ChunkID])
		}
		re := testenv.Must1(opensearch.GlobRegexp(g))(t)
		if d := cmp.Diff(sorted(want), sorted(got)); d != "" {
			t.Errorf("glob %q (Lucene %q): paths (-index.Matcher +OpenSearch):\n%s", g, re, d)
		}
	}
}
