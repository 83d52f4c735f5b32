package braid_test

import (
	"context"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
)

// An engine without a cross-encoder says so in the first search that
// would rerank, not in every one after it; Capabilities says it at any
// time (issue 20, point 7).
func TestNoRerankSaidOnce(t *testing.T) {
	ctx := context.Background()
	why := "no cross-encoder installed; braid models pull ms-marco-MiniLM-L-6-v2 --from DIR adds it"
	e := indexed(t, &braid.Options{NoRerank: why}, writeVault(t, vault))

	// A search that does not rerank does not use up the warning.
	res, err := e.Search(ctx, "garden", braid.SearchOptions{NoRerank: true})
	if err != nil || res.Warning != "" {
		t.Fatalf("search without rerank: %v, warning %q, want none", err, res.Warning)
	}
	var warnings []string
	for _, q := range []string{"garden", "plugin", "garden"} {
		res, err := e.Search(ctx, q, braid.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warnings = append(warnings, res.Warning)
	}
	want := []string{"results are not reranked: " + why, "", ""}
	for i := range want {
		if warnings[i] != want[i] {
			t.Errorf("search %d: warning %q, want %q", i+1, warnings[i], want[i])
		}
	}
	if len(warnings[0]) > 120 {
		t.Errorf("warning is %d characters, want at most 120: %q", len(warnings[0]), warnings[0])
	}
	if got := e.Capabilities().NoRerank; got != why {
		t.Errorf("Capabilities().NoRerank %q, want %q", got, why)
	}
}

// When vectors and reranking are missing for the same reason (no ONNX
// Runtime), the reason is given once.
func TestNoRerankSameCauseAsVectors(t *testing.T) {
	why := "no ONNX Runtime found; set BRAID_ORT_LIB to one, braid doctor says where it looked"
	e := indexed(t, &braid.Options{NoVectors: why, NoRerank: why}, writeVault(t, vault))
	w := 0.5
	res, err := e.Search(context.Background(), "garden", braid.SearchOptions{VectorWeight: &w})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(res.Warning, why) != 1 || !strings.HasSuffix(res.Warning, "; results are not reranked either") {
		t.Errorf("warning %q, want the reason once and the rerank clause pointing at it", res.Warning)
	}
}
