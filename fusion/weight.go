package fusion

// DefaultWeight is the vector weight the two lists of a hybrid search
// that names none are retrieved at, and braid tune's starting point;
// the weight they are fused at is then the model's (Model.Weight). On
// SciFact's train split (809 queries, bge-small-en-v1.5 fp32, linear
// min-max fusion) nDCG@10 is 0.758 at 0.5, 0.766 at 0.6 and 0.763 at 0.7;
// 0.6 beats 0.5 query for query by 0.0084 (standard error 0.0030).
const DefaultWeight = 0.6

// Choice is what a search says about its vector weight. It is the one
// place a search's weight is decided: Retrieve at the start, Fuse once
// the two lists are in.
type Choice struct {
	Named   *float64 // by the search, or by the index's vector_weight setting; nil for none
	Setting bool     // Named is the index's setting, not the search's
	Keyword bool     // BM25 only, whatever the weight
	Vectors bool     // the search can use vectors (an embedding model and embeddings)
}

// Decision is a search's vector weight and how it was decided.
type Decision struct {
	Weight   float64
	Adaptive bool   // chosen per query from the lists' predictors (Fuse)
	Why      string // in words: who named it, or the model's arithmetic
}

// Retrieve decides the weight the two lists are retrieved at: 0 for a
// keyword search or where vectors cannot be used, the named weight, else
// DefaultWeight with Adaptive set, for Fuse to choose the weight from the
// lists.
func (c Choice) Retrieve() Decision {
	switch {
	case c.Keyword:
		return Decision{Why: "a keyword search"}
	case !c.Vectors:
		return Decision{Why: "vectors are unavailable"}
	case c.Named == nil:
		return Decision{Weight: DefaultWeight, Adaptive: true}
	case c.Setting:
		return Decision{Weight: *c.Named, Why: "the index's vector_weight setting"}
	}
	return Decision{Weight: *c.Named, Why: "named by the search"}
}

// Fuse is the weight the lists are fused at: the retrieval's when it was
// named, else m's from the lists' predictors.
func (d Decision) Fuse(m Model, p Predictors) Decision {
	if d.Adaptive {
		d.Weight, d.Why = m.Weight(p)
	}
	return d
}
