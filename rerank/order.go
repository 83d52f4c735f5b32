package rerank

import "slices"

// Order is the new order of n candidates, as their old places, after some
// were reranked: at[j] is the place of the candidate passage j stands for,
// and scores[j] its score, for the first len(at) passages (an Outcome's
// Reranked). Those come first, best score first (ties keep their order),
// then the candidates that were not scored, in their old order.
func Order(n int, at []int, scores []float32) []int {
	done := make([]int, len(at)) // passages by score
	for j := range done {
		done[j] = j
	}
	slices.SortStableFunc(done, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	order := make([]int, 0, n)
	taken := make([]bool, n)
	for _, j := range done {
		order = append(order, at[j])
		taken[at[j]] = true
	}
	for i := range n {
		if !taken[i] {
			order = append(order, i)
		}
	}
	return order
}
