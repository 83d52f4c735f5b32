package vecstore

import (
	"strings"
	"testing"

	"github.com/braidsearch/braid/fusion"
	"github.com/braidsearch/braid/settings"
)

func none() string { return "" }

func TestUnavailable(t *testing.T) {
	other := func() string { return "old-model" }
	for _, tc := range []struct {
		name string
		a    Availability
		want string // a part of the reason; "" for available
	}{
		{"graph with embeddings", Availability{Embedder: true, Graph: true, Len: 3, OtherModel: none}, ""},
		{"no model", Availability{NoVectors: "no embedding model is set up", OtherModel: none}, "no embedding model is set up"},
		{"nothing embedded yet", Availability{Embedder: true, Graph: true, OtherModel: none}, "no embeddings yet (run braid index"},
		{"embedded with another model", Availability{Embedder: true, Graph: true, Model: "new", OtherModel: other},
			"embeddings are of old-model, not of the model in use, new (run braid index to embed with new"},
		{"cluster", Availability{Cluster: true, Embedder: true, OtherModel: none}, ""},
		{"cluster without a model", Availability{Cluster: true, NoVectors: "no runtime", OtherModel: none}, "no runtime"},
		{"cluster of another model", Availability{Cluster: true, Embedder: true, Model: "new", OtherModel: other},
			"the cluster index's embeddings are of old-model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.a.Unavailable()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("Unavailable = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUsable checks the availability behind a search's weight: the weight
// fusion.Choice gives with it, and the warning.
func TestUsable(t *testing.T) {
	w := func(f float64) *float64 { return &f }
	ready := Availability{Embedder: true, Graph: true, Len: 5, OtherModel: none, Stranded: none}
	damaged := ready
	damaged.Damaged = "rebuilt in memory"
	// The graph file held the vectors alone and was damaged: the graph
	// rebuilt in memory is empty.
	lost := Availability{Embedder: true, Graph: true, Damaged: "g.hnsw is damaged, so 60 chunks have no vector", OtherModel: none, Stranded: none}
	noModel := Availability{NoVectors: "no embedding model is set up", OtherModel: none, Stranded: none}
	stranded := noModel
	stranded.Stranded = func() string { return "the index holds embeddings of m that cannot be searched" }
	otherModel := Availability{Embedder: true, Graph: true, Model: "new", OtherModel: func() string { return "old" }, Stranded: none}
	for _, tc := range []struct {
		name         string
		a            Availability
		asked        *float64
		fromSettings bool
		keyword      bool
		want         float64
		warning      string // a part of it
	}{
		{"default", ready, nil, false, false, settings.DefaultVectorWeight, ""},
		{"asked", ready, w(0.3), false, false, 0.3, ""},
		{"asked for none", ready, w(0), false, false, 0, ""},
		{"keyword", ready, w(0.3), false, true, 0, ""},
		{"damaged graph", damaged, w(0.3), false, false, 0.3, "rebuilt in memory"},
		{"damaged graph, default", damaged, nil, false, false, settings.DefaultVectorWeight, "rebuilt in memory"},
		{"vectors lost with the graph file, default", lost, nil, false, false, 0, "g.hnsw is damaged, so 60 chunks have no vector, so this search is lexical only"},
		{"vectors lost with the graph file, asked", lost, w(0.7), false, false, 0, "g.hnsw is damaged"},
		{"no model, default: quiet", noModel, nil, false, false, 0, ""},
		{"no model, the setting's weight: quiet", noModel, w(0.5), true, false, 0, ""},
		{"no model, asked", noModel, w(0.5), false, false, 0, "vector search is unavailable (no embedding model is set up), so this search is lexical only"},
		{"no model, asked for none", noModel, w(0), false, false, 0, ""},
		{"stranded embeddings, default", stranded, nil, false, false, 0, "cannot be searched, so this search is lexical only"},
		{"another model's embeddings, default", otherModel, nil, false, false, 0, "embeddings are of old, not of the model in use, new"},
		{"another model's embeddings, asked", otherModel, w(1), false, false, 0, "embeddings are of old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			usable, warning := tc.a.Usable(tc.asked, tc.fromSettings, tc.keyword)
			got := fusion.Choice{Named: tc.asked, Setting: tc.fromSettings, Keyword: tc.keyword, Vectors: usable}.Retrieve().Weight
			if got != tc.want || !strings.Contains(warning, tc.warning) || tc.warning == "" && warning != "" {
				t.Errorf("weight %v, warning %q; want %v, %q", got, warning, tc.want, tc.warning)
			}
		})
	}
}
