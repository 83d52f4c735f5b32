package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// The instructions sent at initialize are fixed before the engine opens,
// so they must hold with or without models: reranking and vectors are
// promised only when their models are installed, and get_stats is named
// as the place that says which (issue 20, point 7).
func TestInstructionsPromiseOnlyWhatHolds(t *testing.T) {
	_, idx := indexed(t, 2, nil)
	c, stop := serve(t, mcpserver.New(opener(idx, &braid.Options{NoRerank: "no cross-encoder installed"}), nil))
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	res, err := c.Initialize(ctx, initRequest())
	if err != nil {
		t.Fatal(err)
	}
	in := res.Instructions
	if !strings.Contains(in, "reranked when a cross-encoder is") || !strings.Contains(in, "when an embedding model is installed") ||
		!strings.Contains(in, "get_stats") || strings.Contains(in, "reranked)") {
		t.Errorf("instructions %q: want reranking and vectors promised only when installed, and get_stats named", in)
	}
}
