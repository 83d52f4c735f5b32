package braid

import (
	"context"
	"errors"
	"fmt"

	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/settings"
	"github.com/braidsearch/braid/vecstore"
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
	o, err := withModels(opt, lm)
	if err != nil {
		return nil, err
	}
	return Open(dir, &o)
}

// withModels is opt with the models lm put in its model fields.
func withModels(opt *Options, lm *LoadedModels) (Options, error) {
	o := Options{}
	if opt != nil {
		o = *opt
	}
	if o.RerankTop < 0 {
		return o, fmt.Errorf("%w: Options.RerankTop %d, want 0 (the default) or more", ErrBadOption, o.RerankTop)
	}
	o.NoVectors, o.VectorsOff, o.NoRerank, o.RerankNamed, o.Device = lm.NoVectors, lm.VectorsOff, lm.NoRerank, lm.RerankNamed, lm.Device
	o.Embedder, o.Model, o.Reranker = nil, "", nil
	if lm.Embedder != nil {
		o.Embedder, o.Model = lm.Embedder, lm.Embedder.Key()
	}
	if lm.CrossEncoder != nil {
		o.Reranker = rerank.New(lm.CrossEncoder, rerank.Options{Top: o.RerankTop, Budget: settings.DefaultRerankBudget})
	}
	return o, nil
}

// OpenWithModels loads the models m names (LoadModels) and opens the index
// in dir with them (OpenLoaded). The engine's own Options.Embedder,
// Model, Reranker, NoVectors, VectorsOff and NoRerank are replaced by what
// was loaded (RerankNamed too). The engine owns the models: its Close closes them too.
//
// A reader of an index directory opens the index and reads the graph of
// the embedder's vectors while the models load (each costs a fresh search
// process tens to hundreds of milliseconds of its own CPU at a million
// chunks; the graph some 60 ms): the graph's file is named by the key the
// embedder will have (model.Set.EmbedderKey), and read again after the
// load should the loaded embedder's key name another. A writer, which
// may create the index, and a cluster backend, which needs the embedder
// to open, load the models first.
func OpenWithModels(dir string, opt *Options, m Models) (*Engine, error) {
	if opt == nil || !opt.ReadOnly || opt.Backend.URL != "" || opt.RerankTop < 0 {
		return openAfterModels(dir, opt, m)
	}
	type loaded struct {
		lm  *LoadedModels
		err error
	}
	key := m.EmbedderKey() // before Load: m.Resolve is called one call at a time
	models := make(chan loaded, 1)
	go func() {
		lm, err := LoadModels(m)
		models <- loaded{lm, err}
	}()
	bare := *opt
	bare.Embedder, bare.Model, bare.Reranker = nil, "", nil
	e, err := Open(dir, &bare)
	var read *vecstore.Read
	if err == nil && key != "" {
		read = vecstore.Preload(e.st, vecstore.Options{Dir: dir, Model: key, Vector: &opt.Vector})
	}
	l := <-models
	switch {
	case l.err != nil: // a model named wrongly is said first, as before
		if e != nil {
			e.Close()
		}
		return nil, l.err
	case err != nil:
		l.lm.Close()
		return nil, err
	}
	if err := e.attach(opt, l.lm, read); err != nil {
		e.Close()
		l.lm.Close()
		return nil, err
	}
	e.models = l.lm
	return e, nil
}

// openAfterModels loads the models, then opens the index with them.
func openAfterModels(dir string, opt *Options, m Models) (*Engine, error) {
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

// attach gives an engine opened without models (OpenWithModels) the
// models lm, as OpenLoaded would have opened it with them, and loads the
// embedder's graph (from read, when that read the same file).
func (e *Engine) attach(opt *Options, lm *LoadedModels, read *vecstore.Read) error {
	o, err := withModels(opt, lm)
	if err != nil {
		return err
	}
	o.recovering = e.opt.recovering
	e.opt = o
	if o.Embedder == nil {
		return nil
	}
	return e.loadVectors(read)
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
