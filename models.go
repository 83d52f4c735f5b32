package braid

import (
	"context"
	"errors"
	"fmt"

	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/settings"
)

// Models names the embedding model and the cross-encoder an engine
// searches with, and how to run them (LoadModels, OpenWithModels); see
// model.Set. The zero value loads the default models from the user cache
// with the first ONNX Runtime found in the known places.
type Models = model.Set

// LoadedModels are the models LoadModels loaded, and why one is missing
// (model.Loaded).
type LoadedModels = model.Loaded

// LoadModels loads the models m names (model.Load). A model that cannot
// be used because the runtime or its files are missing is left out with
// the reason in NoVectors or NoRerank, so the engine still serves lexical
// search; a model named wrongly (unknown, or of the wrong kind) and an
// option out of range (ErrBadOption) are errors. Close the models when
// done.
func LoadModels(m Models) (*LoadedModels, error) {
	lm, err := model.Load(context.Background(), m) // opening an engine takes no ctx
	if errors.Is(err, model.ErrBadSet) {
		return nil, fmt.Errorf("%w: Models.Threads %d and TokenBudget %d, want 0 (the default) or more", ErrBadOption, m.Threads, m.TokenBudget)
	}
	return lm, err
}

// OpenLoaded opens the index in dir (as Open does) with the models lm:
// the embedder and its model key, the cross-encoder as opt's reranker
// (reading opt.RerankTop candidates), and the reasons for what is
// missing. The engine does not own the models: close them after it.
func OpenLoaded(dir string, opt *Options, lm *LoadedModels) (*Engine, error) {
	o := Options{}
	if opt != nil {
		o = *opt
	}
	if o.RerankTop < 0 {
		return nil, fmt.Errorf("%w: Options.RerankTop %d, want 0 (the default) or more", ErrBadOption, o.RerankTop)
	}
	o.NoVectors, o.VectorsOff, o.NoRerank, o.RerankNamed, o.Device = lm.NoVectors, lm.VectorsOff, lm.NoRerank, lm.RerankNamed, lm.Device
	o.Embedder, o.Model, o.Reranker = nil, "", nil
	if lm.Embedder != nil {
		o.Embedder, o.Model = lm.Embedder, lm.Embedder.Key()
	}
	if lm.CrossEncoder != nil {
		o.Reranker = rerank.New(lm.CrossEncoder, rerank.Options{Top: o.RerankTop, Budget: settings.DefaultRerankBudget})
	}
	return Open(dir, &o)
}

// OpenWithModels loads the models m names (LoadModels) and opens the index
// in dir with them (OpenLoaded). The engine's own Options.Embedder,
// Model, Reranker, NoVectors, VectorsOff and NoRerank are replaced by what
// was loaded (RerankNamed too). The engine owns the models: its Close closes them too.
func OpenWithModels(dir string, opt *Options, m Models) (*Engine, error) {
	lm, err := LoadModels(m)
	if err != nil {
		return nil, err
	}
	e, err := OpenLoaded(dir, opt, lm)
	if err != nil {
		lm.Close()
		return nil, err
	}
	e.models = lm
	return e, nil
}

// ModelChecks are what Doctor cannot see about the models m names: whether
// the runtime loads and each model is installed (model.Checks). A missing
// one is a warning, not a fault: the index is healthy and search is BM25
// only (or in fused order, without the cross-encoder).
func ModelChecks(m Models) []Check {
	found := model.Checks(m)
	checks := make([]Check, len(found))
	for i, c := range found {
		checks[i] = Check{Name: c.Name, OK: true, Warning: c.Warning, Detail: c.Detail}
	}
	return checks
}
