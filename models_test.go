package braid_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/model"
)

// What LoadModels does with models it cannot use: a model named wrongly
// or an option out of range is an error; a missing runtime or model, or
// one turned off, is a reason, said by Explain when it is set.
func TestLoadModelsWithout(t *testing.T) {
	noRuntime := filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1")
	type explained struct {
		err  error
		name string
		kind model.Kind
	}
	tests := []struct {
		name      string
		m         braid.Models
		wantErr   error
		noVectors string // part of the reason; "" wants none
		noRerank  string
		off       bool
		explained []error // what Explain was given, in order
	}{
		{name: "turned off", m: braid.Models{Embedder: "none", Reranker: "none"},
			noVectors: "vectors are turned off", off: true},
		{name: "turned off, explained", m: braid.Models{Embedder: "none", Reranker: "none", Explain: func(error, string, model.Kind) string { return "explained" }},
			noVectors: "explained", off: true, explained: []error{braid.ErrModelOff}},
		{name: "no runtime", m: braid.Models{ORTLib: noRuntime},
			noVectors: "ONNX Runtime library not found", noRerank: "ONNX Runtime library not found"},
		{name: "no runtime, explained", m: braid.Models{ORTLib: noRuntime, Explain: func(error, string, model.Kind) string { return "explained" }},
			noVectors: "explained", noRerank: "explained", explained: []error{model.ErrNoRuntime, model.ErrNoRuntime}},
		{name: "not loaded: no reasons", m: braid.Models{ORTLib: noRuntime, NoEmbedder: true, NoReranker: true}},
		{name: "unknown model", m: braid.Models{Embedder: "no/such-model", Reranker: "none", ORTLib: modeltest.RuntimePath()}, wantErr: model.ErrUnknownModel},
		{name: "negative threads", m: braid.Models{Threads: -1}, wantErr: braid.ErrBadOption},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if errors.Is(tc.wantErr, model.ErrUnknownModel) {
				modeltest.NeedRuntime(t)
			}
			var got []explained
			if explain := tc.m.Explain; explain != nil {
				tc.m.Explain = func(err error, name string, kind model.Kind) string {
					got = append(got, explained{err, name, kind})
					return explain(err, name, kind)
				}
			}
			lm, err := braid.LoadModels(tc.m)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("LoadModels: %v, want %v", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "--") {
					t.Errorf("LoadModels: %v: a library error names no command-line flag", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer lm.Close()
			if lm.Embedder != nil || lm.CrossEncoder != nil {
				t.Fatalf("loaded %+v, want no models", lm)
			}
			if tc.noVectors == "" && lm.NoVectors != "" || !strings.Contains(lm.NoVectors, tc.noVectors) ||
				tc.noRerank == "" && lm.NoRerank != "" || !strings.Contains(lm.NoRerank, tc.noRerank) || lm.VectorsOff != tc.off {
				t.Errorf("NoVectors %q, NoRerank %q, VectorsOff %v; want %q, %q, %v", lm.NoVectors, lm.NoRerank, lm.VectorsOff, tc.noVectors, tc.noRerank, tc.off)
			}
			if len(got) != len(tc.explained) {
				t.Fatalf("Explain given %+v, want %v", got, tc.explained)
			}
			for i, want := range tc.explained {
				if !errors.Is(got[i].err, want) {
					t.Errorf("Explain given %v, want %v", got[i].err, want)
				}
			}
			// The engine repeats the reasons.
			e, err := braid.OpenLoaded(filepath.Join(t.TempDir(), "idx"), nil, lm)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if tc.noVectors != "" && e.Capabilities().NoVectors != lm.NoVectors || tc.noRerank != "" && e.Capabilities().NoRerank != lm.NoRerank {
				t.Errorf("engine says %q and %q, want the models' reasons", e.Capabilities().NoVectors, e.Capabilities().NoRerank)
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
