package fusion

import "math"

// DocEvidence is what each chunk of a fused list gains from the rest of
// its document: beta times the scores of the first two other chunks of
// the same document in the list (docs[i] is chunk i's document, scores[i]
// its fused score; the list is best first). A note that matches in
// several places so outranks one lucky paragraph.
func DocEvidence(docs []string, scores []float64, beta float64) []float64 {
	byDoc := map[string][]int{} // document → its chunks' places, best first
	for i, d := range docs {
		byDoc[d] = append(byDoc[d], i)
	}
	bonus := make([]float64, len(docs))
	for i, d := range docs {
		extra, n := 0.0, 0
		for _, j := range byDoc[d] {
			if j == i {
				continue
			}
			if n == 2 {
				break
			}
			extra += scores[j]
			n++
		}
		bonus[i] = beta * extra
	}
	return bonus
}

// LinkPrior is the factor a chunk's score is multiplied by when n other
// documents link to its document: 1 + gamma·ln(1 + n).
func LinkPrior(gamma float64, n int) float64 { return 1 + gamma*math.Log1p(float64(n)) }
