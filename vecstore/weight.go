package vecstore

import "fmt"

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
		if a.Damaged != "" {
			// The graph file held the vectors alone and is gone or
			// damaged: the warning says which and what brings them back.
			return a.Damaged
		}
		if other := a.OtherModel(); other != "" {
			return fmt.Sprintf("the index's embeddings are of %s, not of the model in use, %s (run braid index to embed with %s, or search with --model set to %s)", other, a.Model, a.Model, other)
		}
		return "the index has no embeddings yet (run braid index to compute them)"
	}
	return ""
}

// Usable says whether a search can use vectors, given the weight it asked
// for (nil: none; fromSettings: the index's setting, not the caller's)
// and whether it is a keyword search, with a warning when vectors were
// asked for and are not available (the search is then lexical only) or
// the graph is one rebuilt from a damaged file. A search that names no
// weight is warned only where the index holds embeddings it cannot
// search, or held them in a graph file now missing or damaged. The weight itself is decided in package fusion (Choice).
func (a Availability) Usable(asked *float64, fromSettings, keyword bool) (bool, string) {
	if keyword {
		return false, ""
	}
	if why := a.Unavailable(); why != "" {
		if asked != nil && *asked == 0 {
			return false, "" // vectors were not asked for: nothing to warn about
		}
		if asked == nil || fromSettings {
			if s := a.Stranded(); s != "" {
				// A default search would be hybrid with the model the
				// index was built with: say why it is not.
				return false, s + ", so this search is lexical only"
			}
			if (a.Graph || a.Cluster) && (a.Damaged != "" || a.OtherModel() != "") {
				return false, why + ", so this search is lexical only"
			}
			return false, ""
		}
		if !a.Graph {
			why = "vector search is unavailable (" + why + ")"
		}
		return false, why + ", so this search is lexical only"
	}
	if asked != nil && *asked == 0 {
		return true, ""
	}
	return true, a.Damaged
}
