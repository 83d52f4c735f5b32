package model_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/model"
	"github.com/google/go-cmp/cmp"
)

// What Load does with models it cannot use: a model named wrongly or a
// number out of range is an error; a missing runtime or model, or one
// turned off, is a reason, said by Explain when it is set.
func TestLoadWithout(t *testing.T) {
	noRuntime := filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1")
	explainAs := func(error, string, model.Kind) string { return "explained" }
	tests := []struct {
		name      string
		s         model.Set
		wantErr   error
		noVectors string // part of the reason; "" wants none
		noRerank  string
		off       bool
		named     bool    // RerankNamed: the reranker was named, not the default
		explained []error // what Explain was given, in order
	}{
		{name: "turned off", s: model.Set{Embedder: "none", Reranker: "none"},
			noVectors: "vectors are turned off", off: true},
		{name: "turned off, explained", s: model.Set{Embedder: "none", Reranker: "none", Explain: explainAs},
			noVectors: "explained", off: true, explained: []error{model.ErrOff}},
		{name: "no runtime", s: model.Set{ORTLib: noRuntime},
			noVectors: "ONNX Runtime library not found", noRerank: "ONNX Runtime library not found"},
		{name: "no runtime, explained", s: model.Set{ORTLib: noRuntime, Explain: explainAs},
			noVectors: "explained", noRerank: "explained", explained: []error{model.ErrNoRuntime, model.ErrNoRuntime}},
		{name: "no runtime, resolved", s: model.Set{ORTLib: noRuntime, Resolve: func(string, model.Kind) (string, model.Spec, error) {
			t.Error("Resolve called without a runtime")
			return "", model.Spec{}, model.ErrNoModel
		}}, noVectors: "ONNX Runtime library not found", noRerank: "ONNX Runtime library not found"},
		{name: "no runtime, reranker named", s: model.Set{ORTLib: noRuntime, Reranker: "ms-marco-MiniLM-L-6-v2"},
			noVectors: "ONNX Runtime library not found", noRerank: "ONNX Runtime library not found", named: true},
		{name: "not loaded: no reasons", s: model.Set{ORTLib: noRuntime, NoEmbedder: true, NoReranker: true}},
		{name: "unknown model", s: model.Set{Embedder: "no/such-model", Reranker: "none", ORTLib: modeltest.RuntimePath()}, wantErr: model.ErrUnknownModel},
		{name: "negative threads", s: model.Set{Threads: -1}, wantErr: model.ErrBadSet},
		{name: "negative token budget", s: model.Set{Embedder: "none", TokenBudget: -1}, wantErr: model.ErrBadSet},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if errors.Is(tc.wantErr, model.ErrUnknownModel) {
				modeltest.NeedRuntime(t)
			}
			var got []error
			if explain := tc.s.Explain; explain != nil {
				tc.s.Explain = func(err error, name string, kind model.Kind) string {
					got = append(got, err)
					return explain(err, name, kind)
				}
			}
			l, err := model.Load(context.Background(), tc.s)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Load: %v, want %v", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "--") {
					t.Errorf("Load: %v: a library error names no command-line flag", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Embedder != nil || l.CrossEncoder != nil {
				t.Fatalf("loaded %+v, want no models", l)
			}
			if tc.noVectors == "" && l.NoVectors != "" || !strings.Contains(l.NoVectors, tc.noVectors) ||
				tc.noRerank == "" && l.NoRerank != "" || !strings.Contains(l.NoRerank, tc.noRerank) || l.VectorsOff != tc.off || l.RerankNamed != tc.named {
				t.Errorf("NoVectors %q, NoRerank %q, VectorsOff %v, RerankNamed %v; want %q, %q, %v, %v",
					l.NoVectors, l.NoRerank, l.VectorsOff, l.RerankNamed, tc.noVectors, tc.noRerank, tc.off, tc.named)
			}
			if len(got) != len(tc.explained) {
				t.Fatalf("Explain given %v, want %v", got, tc.explained)
			}
			for i, want := range tc.explained {
				if !errors.Is(got[i], want) {
					t.Errorf("Explain given %v, want %v", got[i], want)
				}
			}
		})
	}
}

// Load reaches a model through Resolve, which sees the default's id for
// "", and loads what it returns.
func TestLoadResolve(t *testing.T) {
	lib := modeltest.NeedRuntime(t)
	var asked []string
	s := model.Set{ORTLib: lib, Resolve: func(name string, kind model.Kind) (string, model.Spec, error) {
		asked = append(asked, name)
		if kind == model.KindCrossEncoder {
			return "", model.Spec{}, model.ErrNoModel
		}
		return modeltest.TinyDir(), modeltest.TinySpec(), nil
	}}
	l, err := model.Load(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Embedder == nil || l.NoVectors != "" || l.CrossEncoder != nil || !strings.Contains(l.NoRerank, "not installed") {
		t.Errorf("loaded %+v, want the embedder and a reason for the cross-encoder", l)
	}
	want := []string{model.DefaultEmbedder().ID(), model.DefaultCrossEncoder().ID()}
	slices.Sort(want)
	slices.Sort(asked) // the two load side by side
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("Resolve asked for (-want +got):\n%s", diff)
	}
}

// EmbedderKey is, without loading anything, the key the embedder Load
// loads has: by the registry and a directory (OpenEmbedder's), and by
// Resolve (the spec's id); "" for no embedder or one not found.
func TestEmbedderKey(t *testing.T) {
	lib := modeltest.NeedRuntime(t)
	resolve := func(string, model.Kind) (string, model.Spec, error) {
		return modeltest.TinyDir(), modeltest.TinySpec(), nil
	}
	for _, s := range []model.Set{
		{Embedder: modeltest.TinyDir()},
		{Resolve: resolve},
	} {
		s.ORTLib, s.Reranker = lib, "none"
		key := s.EmbedderKey()
		l, err := model.Load(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if l.Embedder == nil || key != l.Embedder.Key() || key == "" {
			t.Errorf("EmbedderKey = %q, want the loaded embedder's %+v", key, l.Embedder)
		} else if s.Resolve == nil && !strings.Contains(key, "@") {
			t.Errorf("EmbedderKey = %q for a directory, want its path's hash in it", key)
		}
		l.Close()
	}
	for _, s := range []model.Set{
		{Embedder: "none"},
		{Embedder: modeltest.TinyDir(), NoEmbedder: true},
		{Embedder: filepath.Join(t.TempDir(), "no-such-model")},
		{Resolve: func(string, model.Kind) (string, model.Spec, error) { return "", model.Spec{}, model.ErrNoModel }},
	} {
		if key := s.EmbedderKey(); key != "" {
			t.Errorf("EmbedderKey of %+v = %q, want \"\"", s, key)
		}
	}
}

// Warm runs the embedder once as Load returns (a long-lived server's first
// search then finds it warm), without putting anything in the query cache.
func TestLoadWarm(t *testing.T) {
	lib := modeltest.NeedRuntime(t)
	for _, warm := range []bool{false, true} {
		s := model.Set{ORTLib: lib, Reranker: "none", Warm: warm, Resolve: func(string, model.Kind) (string, model.Spec, error) {
			return modeltest.TinyDir(), modeltest.TinySpec(), nil
		}}
		l, err := model.Load(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		ran := l.Embedder.Tokens()
		if (ran > 0) != warm {
			t.Errorf("Warm %v: %d tokens through the model as Load returned", warm, ran)
		}
		if _, err := l.Embedder.EmbedQuery(context.Background(), "warm up", true); err != nil {
			t.Fatal(err)
		}
		if l.Embedder.Tokens() == ran {
			t.Errorf("Warm %v: the first query came from the cache, so warming filled it", warm)
		}
		l.Close()
	}
}

// Checks say a model is turned off, or missing with the fix, as a
// warning; Resolve sees the default's id for "".
func TestChecks(t *testing.T) {
	noRuntime := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	tests := []struct {
		name string
		s    model.Set
		want []model.Check
	}{
		{name: "vectors off", s: model.Set{Embedder: "none"},
			want: []model.Check{{Name: "model", Detail: "vectors are turned off (embedding model none); search is BM25 only"}}},
		{name: "vectors off, explained", s: model.Set{Embedder: "none", Explain: func(err error, name string, kind model.Kind) string {
			if !errors.Is(err, model.ErrOff) || name != "none" || kind != model.KindEmbedder {
				t.Errorf("Explain given %v, %q, %v; want ErrOff for the embedder none", err, name, kind)
			}
			return "off by request"
		}}, want: []model.Check{{Name: "model", Detail: "off by request; search is BM25 only"}}},
		{name: "nothing installed", s: model.Set{ORTLib: noRuntime, Reranker: "none", Resolve: func(name string, kind model.Kind) (string, model.Spec, error) {
			return "", model.Spec{}, errors.New("braid: no " + name)
		}}, want: []model.Check{
			{Name: "runtime", Warning: true, Detail: "model: ONNX Runtime library not found"},
			{Name: "model", Warning: true, Detail: "no " + model.DefaultEmbedder().ID() + "; until then search is BM25 only"},
			{Name: "reranker", Detail: "reranking is turned off (reranker none)"},
		}},
		{name: "no cross-encoder", s: model.Set{ORTLib: noRuntime, Resolve: func(name string, kind model.Kind) (string, model.Spec, error) {
			if kind == model.KindCrossEncoder {
				return "", model.Spec{}, model.ErrNoModel
			}
			return "/models/tiny", modeltest.TinySpec(), nil
		}}, want: []model.Check{
			{Name: "runtime", Warning: true, Detail: "model: ONNX Runtime library not found"},
			{Name: "model", Detail: modeltest.TinySpec().ID() + " in /models/tiny"},
			{Name: "reranker", Warning: true, Detail: "model: model not installed; until then results are in fused order"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := model.Checks(tc.s)
			// The missing runtime's message names where it looked.
			for i := range got {
				if got[i].Name == "runtime" && strings.HasPrefix(got[i].Detail, "model: ONNX Runtime library not found") {
					if !strings.HasSuffix(got[i].Detail, "; until then search is BM25 only") {
						t.Errorf("runtime check %q, want it to say search is BM25 only", got[i].Detail)
					}
					got[i].Detail = "model: ONNX Runtime library not found"
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Checks (-want +got):\n%s", diff)
			}
		})
	}
}
