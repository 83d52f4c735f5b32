package rerank

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		at     []int
		scores []float32
		want   []int
	}{
		{"none reranked", 3, nil, nil, []int{0, 1, 2}},
		{"all reranked", 3, []int{0, 1, 2}, []float32{0.1, 0.9, 0.5}, []int{1, 2, 0}},
		{"ties keep their order", 3, []int{0, 1, 2}, []float32{1, 2, 1}, []int{1, 0, 2}},
		{"a prefix, the rest after", 5, []int{0, 1}, []float32{-3, 2}, []int{1, 0, 2, 3, 4}},
		{"a gap: a chunk that was gone", 4, []int{0, 2}, []float32{1, 5}, []int{2, 0, 1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Order(tc.n, tc.at, tc.scores)); diff != "" {
				t.Errorf("Order (-want +got):\n%s", diff)
			}
		})
	}
}
