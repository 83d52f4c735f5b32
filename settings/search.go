package settings

import "time"

// Search is what a search may leave open for the index's settings to
// fill: a nil field, an empty string and a zero number are open.
type Search struct {
	VectorWeight, DocEvidence, LinkPrior *float64
	TitleWeight, HeadingWeight           *float64
	QueryInstruction                     *bool
	Fusion                               Fusion
	Normalize                            Normalization
	Limit, Candidates                    int
	NoRerank                             bool
	RerankBudget                         time.Duration // negative: no limit
}

// Fill fills what s leaves open from v, with copies of v's values, and
// says whether it filled the vector weight (a weight the caller did not
// ask for). A rerank setting of false turns reranking off whatever s
// says. The rerank budget is filled only when engineBudget is false (an
// engine's own budget, a command-line flag, wins over the index's); the
// setting's 0, no limit, fills it as -1.
func (v *Values) Fill(s *Search, engineBudget bool) (weightFilled bool) {
	if s.VectorWeight == nil && v.VectorWeight != nil {
		s.VectorWeight, weightFilled = clone(v.VectorWeight), true
	}
	if s.Fusion == "" && v.Fusion != nil {
		s.Fusion = *v.Fusion
	}
	if s.Normalize == "" && v.Normalize != nil {
		s.Normalize = *v.Normalize
	}
	if s.DocEvidence == nil {
		s.DocEvidence = clone(v.DocEvidence)
	}
	if s.QueryInstruction == nil {
		s.QueryInstruction = clone(v.QueryInstruction)
	}
	if s.LinkPrior == nil {
		s.LinkPrior = clone(v.LinkPrior)
	}
	if s.TitleWeight == nil {
		s.TitleWeight = clone(v.TitleWeight)
	}
	if s.HeadingWeight == nil {
		s.HeadingWeight = clone(v.HeadingWeight)
	}
	if s.Limit == 0 && v.Limit != nil {
		s.Limit = *v.Limit
	}
	if s.Candidates == 0 && v.Candidates != nil {
		s.Candidates = *v.Candidates
	}
	if v.Rerank != nil && !*v.Rerank {
		s.NoRerank = true
	}
	if s.RerankBudget == 0 && !engineBudget && v.RerankBudget != nil {
		s.RerankBudget = time.Duration(*v.RerankBudget)
		if s.RerankBudget == 0 {
			s.RerankBudget = -1 // the setting says no limit
		}
	}
	return weightFilled
}

// Or is *p, or the built-in default d when p is nil: what a search, a
// setting or an option left open comes to.
func Or[T any](p *T, d T) T {
	if p == nil {
		return d
	}
	return *p
}

// clone is a copy of *p, or nil.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
