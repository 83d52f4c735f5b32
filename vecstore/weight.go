package vecstore

import (
	"fmt"
	"math"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/settings"
)

// Availability is what decides whether a search can use vectors: the
// engine's embedding model, its graph (or the cluster's vectors) and what
// the index remembers of the models it was embedded with. The two
// functions are read only when a search needs them.
type Availability struct {
	Cluster   bool   // the index is an OpenSearch cluster's
	Embedder  bool   // an embedding model is loaded
	Graph     bool   // a graph is loaded (the embedded index, with an embedder)
	Len       int    // the chunks the graph holds
	Model     string // the embedding model in use
	NoVectors string // why there is no embedding model (a clause)
	Damaged   string // the graph was rebuilt from a damaged file: the warning; "" when sound
	// OtherModel names the models, other than the one in use, whose
	// embeddings the index holds (OtherModels, or the cluster's); "" for
	// none.
	OtherModel func() string
	// Stranded says the index holds embeddings that cannot be searched,
	// and why (an engine without an embedder); "" otherwise.
	Stranded func() string
}

// Unavailable says why a search cannot use vectors now (no embedding
// model, embeddings of another model, or none indexed yet), or "" when it
// can.
func (a Availability) Unavailable() string {
	switch {
	case a.Cluster && !a.Embedder:
		return a.NoVectors
	case a.Cluster:
		if other := a.OtherModel(); other != "" {
			return fmt.Sprintf("the cluster index's embeddings are of %s, not of the model in use, %s (search with --model set to %s)", other, a.Model, other)
		}
		return ""
	case !a.Graph:
		return a.NoVectors
	case a.Len == 0:
		if other := a.OtherModel(); other != "" {
			return fmt.Sprintf("the index's embeddings are of %s, not of the model in use, %s (run braid index to embed with %s, or search with --model set to %s)", other, a.Model, a.Model, other)
		}
		return "the index has no embeddings yet (run braid index to compute them)"
	}
	return ""
}

// Weight decides a search's vector weight from the one it asked for (nil:
// none; fromSettings: the index's setting, not the caller's) and whether
// it is a keyword search, with a warning when vectors were asked for and
// are not available (the search is then lexical only) or the graph is one
// rebuilt from a damaged file. A weight outside 0..1 is an error wrapping
// index.ErrBadOption. A search that names no weight gets
// settings.DefaultVectorWeight where vectors are available, and a warning
// only where the index holds embeddings it cannot search.
func (a Availability) Weight(asked *float64, fromSettings, keyword bool) (float64, string, error) {
	if asked != nil && (math.IsNaN(*asked) || *asked < 0 || *asked > 1) {
		return 0, "", fmt.Errorf("%w: vector_weight %v out of range, want 0..1", index.ErrBadOption, *asked)
	}
	if keyword {
		return 0, "", nil
	}
	if why := a.Unavailable(); why != "" {
		if asked != nil && *asked == 0 {
			return 0, "", nil // vectors were not asked for: nothing to warn about
		}
		if asked == nil || fromSettings {
			if s := a.Stranded(); s != "" {
				// A default search would be hybrid with the model the
				// index was built with: say why it is not.
				return 0, s + ", so this search is lexical only", nil
			}
			if (a.Graph || a.Cluster) && a.OtherModel() != "" {
				return 0, why + ", so this search is lexical only", nil
			}
			return 0, "", nil
		}
		if !a.Graph {
			why = "vector search is unavailable (" + why + ")"
		}
		return 0, why + ", so this search is lexical only", nil
	}
	if asked == nil {
		return settings.DefaultVectorWeight, a.Damaged, nil
	}
	if *asked == 0 {
		return 0, "", nil
	}
	return *asked, a.Damaged, nil
}
