package braid_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
)

// LoadModels is model.Load with braid's errors, and an engine opened
// with what it loaded repeats its reasons for a missing model (package
// model tests the reasons themselves).
func TestLoadModels(t *testing.T) {
	noRuntime := filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1")
	tests := []struct {
		name      string
		m         braid.Models
		wantErr   string // part of the error; "" wants none
		noVectors string // part of the reason
		noRerank  string
	}{
		{name: "turned off", m: braid.Models{Embedder: "none", Reranker: "none"}, noVectors: "vectors are turned off"},
		{name: "no runtime", m: braid.Models{ORTLib: noRuntime},
			noVectors: "ONNX Runtime library not found", noRerank: "ONNX Runtime library not found"},
		{name: "negative threads", m: braid.Models{Threads: -1}, wantErr: "invalid option: Models.Threads -1"},
		{name: "negative token budget", m: braid.Models{TokenBudget: -1}, wantErr: "invalid option: Models.Threads 0 and TokenBudget -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lm, err := braid.LoadModels(tc.m)
			if tc.wantErr != "" {
				if !errors.Is(err, braid.ErrBadOption) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("LoadModels: %v, want ErrBadOption saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer lm.Close()
			if !strings.Contains(lm.NoVectors, tc.noVectors) || !strings.Contains(lm.NoRerank, tc.noRerank) {
				t.Errorf("NoVectors %q, NoRerank %q; want %q, %q", lm.NoVectors, lm.NoRerank, tc.noVectors, tc.noRerank)
			}
			e, err := braid.OpenLoaded(filepath.Join(t.TempDir(), "idx"), nil, lm)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if c := e.Capabilities(); c.NoVectors != lm.NoVectors || tc.noRerank != "" && c.NoRerank != lm.NoRerank {
				t.Errorf("engine says %q and %q, want the models' reasons", c.NoVectors, c.NoRerank)
			}
		})
	}
}

// OpenWithModels searches with both models, and its Close closes them.
func TestOpenWithModels(t *testing.T) {
	m := braid.Models{Embedder: modeltest.TinyDir(), Reranker: modeltest.TinyCrossDir(), ORTLib: modeltest.NeedRuntime(t)}
	dir := filepath.Join(t.TempDir(), "idx")
	e, err := braid.OpenWithModels(dir, &braid.Options{RerankTop: 5}, m)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: writeVault(t, vault)}}, nil); err != nil {
		t.Fatal(err)
	}
	w := 0.5
	res, err := e.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: &w})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Source != "hybrid+rerank" || res.Warning != "" {
		t.Fatalf("search: %+v, want hybrid reranked results without a warning", res)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A reader opens the index while the models load, then the graph: it
	// answers as the writer did, and a model named wrongly is still the
	// error (not the index's).
	r, err := braid.OpenWithModels(dir, &braid.Options{RerankTop: 5, ReadOnly: true}, m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Search(ctx, "tomatoes", braid.SearchOptions{VectorWeight: &w})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Capabilities(); !c.Vectors || !c.Rerank || c.Embedded == 0 {
		t.Errorf("reader's capabilities %+v, want vectors searched and reranked", c)
	}
	if len(again.Results) != len(res.Results) || again.Results[0].ID != res.Results[0].ID || again.Results[0].Source != "hybrid+rerank" {
		t.Errorf("reader's first hit %+v, want the writer's %+v", again.Results[0], res.Results[0])
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := braid.EngineModels(r).Embedder.Embed(ctx, []string{"x"}, true); err == nil {
		t.Error("the reader's embedder still embeds after the engine closed")
	}
	bad := m
	bad.Embedder = "no-such-model"
	if _, err := braid.OpenWithModels(dir, &braid.Options{ReadOnly: true}, bad); err == nil || !strings.Contains(err.Error(), "no-such-model") {
		t.Errorf("reader with an unknown model: %v, want the model's error", err)
	}
	if _, err := braid.EngineModels(e).Embedder.Embed(ctx, []string{"x"}, true); err == nil {
		t.Error("the embedder still embeds after the engine closed")
	}
	if _, err := braid.EngineModels(e).CrossEncoder.Score(ctx, "q", []string{"p"}); err == nil {
		t.Error("the cross-encoder still scores after the engine closed")
	}
}

// Doctor's model checks say a model is turned off, or missing with the
// fix, as a warning.
func TestModelChecks(t *testing.T) {
	checks := braid.ModelChecks(braid.Models{Embedder: "none"})
	if len(checks) != 1 || !checks[0].OK || !strings.Contains(checks[0].Detail, "turned off") {
		t.Errorf("vectors off: %+v, want one check saying so", checks)
	}
	noRuntime := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	checks = braid.ModelChecks(braid.Models{ORTLib: noRuntime, Dir: t.TempDir(), Reranker: "none"})
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
		if !c.OK || c.Name != "reranker" && (!c.Warning || !strings.Contains(c.Detail, "BM25 only")) {
			t.Errorf("check %+v: want a warning that search is BM25 only", c)
		}
	}
	if strings.Join(names, ",") != "runtime,model,reranker" {
		t.Errorf("checks %v, want runtime, model and reranker", names)
	}
}
