package settings

import (
	"math"
	"strconv"
)

// Bound is the range of one numeric search option. The setting of that
// name (Values.Set), a search's option (the root package's
// SearchOptions.Check) and so every front end — a flag, an MCP tool's
// argument, a batch line's field — take exactly this range and refuse a
// value outside it with the same RangeError.
type Bound struct {
	Name     string
	Min, Max float64
	Whole    bool   // a whole number
	Allowed  string // the range in words, as RangeError says it
}

// The bounds of the numeric search options. Where a search leaves Limit,
// Candidates or Similarity at zero it takes the default (the index's
// setting, else the built-in one), so zero is not refused there.
var (
	VectorWeightBound  = Bound{"vector_weight", 0, 1, false, "a number from 0 (keywords only) to 1 (meaning only)"}
	DocEvidenceBound   = Bound{"doc_evidence", 0, 1, false, "a number from 0 (off) to 1"}
	LinkPriorBound     = Bound{"link_prior", 0, 1, false, "a number from 0 (off) to 1"}
	TitleWeightBound   = Bound{"title_weight", 0, MaxFieldWeight, false, "a number from 0 (title words count as body text) to 5"}
	HeadingWeightBound = Bound{"heading_weight", 0, MaxFieldWeight, false, "a number from 0 (heading words count as body text) to 5"}
	LimitBound         = Bound{"limit", 1, 1000, true, "a whole number from 1 to 1000"}
	CandidatesBound    = Bound{"candidates", 10, 1000, true, "a whole number from 10 to 1000"}
	SimilarityBound    = Bound{"similarity", 0, 1, false, "a number from 0 (any word) to 1 (the same word)"}
)

// Check refuses v when it is outside b, as a *RangeError.
func (b Bound) Check(v float64) error {
	if b.holds(v) {
		return nil
	}
	return &RangeError{Name: b.Name, Value: fmtFloat(v), Allowed: b.Allowed}
}

func (b Bound) holds(v float64) bool {
	return !math.IsNaN(v) && v >= b.Min && v <= b.Max && (!b.Whole || v == math.Trunc(v))
}

// float parses a setting's value within b.
func (b Bound) float(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && b.holds(f)
}

// int parses a whole-number setting's value within b.
func (b Bound) int(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && b.holds(float64(n))
}

// Check refuses a fusion other than linear and rrf ("" is the default).
func (f Fusion) Check() error {
	if f == "" || f == FusionLinear || f == FusionRRF {
		return nil
	}
	return &RangeError{Name: "fusion", Value: string(f), Allowed: fusionAllowed}
}

// Check refuses a normalisation other than minmax and zscore ("" is the
// default).
func (n Normalization) Check() error {
	if n == "" || n == NormMinMax || n == NormZScore {
		return nil
	}
	return &RangeError{Name: "normalize", Value: string(n), Allowed: normalizeAllowed}
}

const (
	fusionAllowed    = "linear or rrf"
	normalizeAllowed = "minmax or zscore"
)
