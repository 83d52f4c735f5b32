package braid

import (
	"errors"
	"fmt"
	"strings"

	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
)

// ErrModelOff is what Models.Explain is given for a model named "none":
// turned off on purpose.
var ErrModelOff = errors.New("braid: model turned off")

// Models names the embedding model and the cross-encoder an engine
// searches with, and how to run them (LoadModels, OpenWithModels). The
// zero value loads the default models from the user cache with the first
// ONNX Runtime found in the known places.
type Models struct {
	// Embedder is the embedding model: a registry id, a directory holding
	// model.onnx and tokenizer.json, "" for the default, or "none" for no
	// vectors (search is BM25 only, and stored embeddings that go
	// unsearched are no fault).
	Embedder string
	// Reranker is the cross-encoder, named the same way; "none" turns
	// reranking off.
	Reranker string
	// NoEmbedder and NoReranker leave a model unloaded for an engine that
	// will not use it (a search that asked for keywords only, an index
	// run that never reranks); unlike "none" they give no reason why.
	NoEmbedder, NoReranker bool
	// Dir holds pulled models; "" means the user cache (model.ModelsDir).
	Dir string
	// ORTLib is the ONNX Runtime shared library; "" searches the known
	// places (model.FindRuntime).
	ORTLib string
	// Threads bounds the threads a model may use; 0 means every CPU.
	Threads int
	// TokenBudget bounds the tokens, padding included, in one batch
	// through the embedding model; 0 means 512.
	TokenBudget int
	// Resolve, when set, finds a model's directory and specification in
	// place of the registry and Dir (bench falls back to random-weight
	// fixtures with it); it sees the name after "" became the default's id.
	// Errors it returns are sorted as a missing model is.
	Resolve func(name string, kind model.Kind) (dir string, spec model.Spec, err error)
	// Explain says in one short clause why a model cannot be used (no
	// runtime, not installed, damaged; ErrModelOff for one named "none"),
	// naming the fix the caller's users have; nil uses the error's own
	// message. The clause becomes the engine's NoVectors or NoRerank.
	Explain func(err error, name string, kind model.Kind) string
}

// LoadedModels are the models LoadModels loaded, and why one is missing.
type LoadedModels struct {
	// Embedder is nil when no embedding model is loaded; NoVectors then
	// says why ("" when Models.NoEmbedder asked for none).
	Embedder  *model.Embedder
	NoVectors string
	// VectorsOff says vectors are turned off (Models.Embedder "none").
	VectorsOff bool
	// CrossEncoder is nil when no cross-encoder is loaded; NoRerank then
	// says why ("" when it was turned off or not asked for).
	CrossEncoder *model.CrossEncoder
	NoRerank     string
}

// LoadModels loads the models m names. A model that cannot be used
// because the runtime or its files are missing is left out with the
// reason in NoVectors or NoRerank, so the engine still serves lexical
// search; a model named wrongly (unknown, or of the wrong kind) and an
// option out of range are errors. Close the models when done.
func LoadModels(m Models) (*LoadedModels, error) {
	lm := &LoadedModels{VectorsOff: m.Embedder == "none"}
	switch {
	case m.NoEmbedder:
	case lm.VectorsOff:
		lm.NoVectors = m.explain(ErrModelOff, m.Embedder, model.KindEmbedder)
	default:
		emb, why, err := loadModel(m, m.Embedder, model.KindEmbedder, model.OpenEmbedder, model.LoadEmbedder)
		if err != nil {
			return nil, err
		}
		lm.Embedder, lm.NoVectors = emb, why
	}
	if m.NoReranker || m.Reranker == "none" {
		return lm, nil
	}
	ce, why, err := loadModel(m, m.Reranker, model.KindCrossEncoder, model.OpenCrossEncoder, model.LoadCrossEncoder)
	if err != nil {
		lm.Close()
		return nil, err
	}
	lm.CrossEncoder, lm.NoRerank = ce, why
	return lm, nil
}

// loadModel loads the model name of kind, by the registry and m.Dir with
// open or by m.Resolve with load. Nil and a reason is a model that cannot
// be used; an error is a model named wrongly.
func loadModel[T any](m Models, name string, kind model.Kind,
	open func(model.Setup) (*T, error), load func(string, model.Spec, model.Config) (*T, error)) (*T, string, error) {
	if m.Threads < 0 || m.TokenBudget < 0 {
		return nil, "", fmt.Errorf("%w: Models.Threads %d and TokenBudget %d, want 0 (the default) or more", ErrBadOption, m.Threads, m.TokenBudget)
	}
	s := model.Setup{ORTLib: m.ORTLib, ModelsDir: m.Dir, Name: name, Config: model.Config{Threads: m.Threads, TokenBudget: m.TokenBudget}}
	if kind == model.KindCrossEncoder {
		s.Config.BatchSize = rerank.Batch
	}
	var got *T
	var err error
	if m.Resolve == nil {
		got, err = open(s)
	} else {
		got, err = resolveAndLoad(m, s, kind, load)
	}
	if err == nil {
		return got, "", nil
	}
	if errors.Is(err, model.ErrUnknownModel) || errors.Is(err, model.ErrWrongKind) {
		return nil, "", err
	}
	return nil, m.explain(err, name, kind), nil
}

// explain is m.Explain, else the error's message.
func (m Models) explain(err error, name string, kind model.Kind) string {
	switch {
	case m.Explain != nil:
		return m.Explain(err, name, kind)
	case errors.Is(err, ErrModelOff) && kind == model.KindCrossEncoder:
		return "reranking is turned off (reranker none)"
	case errors.Is(err, ErrModelOff):
		return "vectors are turned off (embedding model none)"
	}
	return errorClause(err)
}

// resolveAndLoad is model.OpenEmbedder and OpenCrossEncoder with
// m.Resolve in place of the registry lookup.
func resolveAndLoad[T any](m Models, s model.Setup, kind model.Kind, load func(string, model.Spec, model.Config) (*T, error)) (*T, error) {
	lib, err := model.FindRuntime(s.ORTLib)
	if err == nil {
		err = model.InitRuntime(lib)
	}
	if err != nil {
		return nil, err
	}
	name := s.Name
	if name == "" {
		name = defaultModel(kind).ID()
	}
	dir, spec, err := m.Resolve(name, kind)
	if err != nil {
		return nil, err
	}
	return load(dir, spec, s.Config)
}

func defaultModel(kind model.Kind) model.Spec {
	if kind == model.KindCrossEncoder {
		return model.DefaultCrossEncoder()
	}
	return model.DefaultEmbedder()
}

// Close releases the models. Closing twice is harmless.
func (lm *LoadedModels) Close() error {
	var errs []error
	if lm.Embedder != nil {
		errs = append(errs, lm.Embedder.Close())
	}
	if lm.CrossEncoder != nil {
		errs = append(errs, lm.CrossEncoder.Close())
	}
	return errors.Join(errs...)
}

// Open opens the index in dir (as Open does) with these models: the
// embedder and its model key, the cross-encoder as opt's reranker (reading
// opt.RerankTop candidates), and the reasons for what is missing. The
// engine does not own the models: close them after it.
func (lm *LoadedModels) Open(dir string, opt *Options) (*Engine, error) {
	o := Options{}
	if opt != nil {
		o = *opt
	}
	if o.RerankTop < 0 {
		return nil, fmt.Errorf("%w: Options.RerankTop %d, want 0 (the default) or more", ErrBadOption, o.RerankTop)
	}
	o.NoVectors, o.VectorsOff, o.NoRerank = lm.NoVectors, lm.VectorsOff, lm.NoRerank
	o.Embedder, o.Model, o.Reranker = nil, "", nil
	if lm.Embedder != nil {
		o.Embedder, o.Model = lm.Embedder, lm.Embedder.Key()
	}
	if lm.CrossEncoder != nil {
		o.Reranker = rerank.New(lm.CrossEncoder, rerank.Options{Top: o.RerankTop, Budget: DefaultRerankBudget})
	}
	return Open(dir, &o)
}

// OpenWithModels loads the models m names (LoadModels) and opens the index
// in dir with them (LoadedModels.Open). The engine's own Options.Embedder,
// Model, Reranker, NoVectors, VectorsOff and NoRerank are replaced by what
// was loaded. The engine owns the models: its Close closes them too.
func OpenWithModels(dir string, opt *Options, m Models) (*Engine, error) {
	lm, err := LoadModels(m)
	if err != nil {
		return nil, err
	}
	e, err := lm.Open(dir, opt)
	if err != nil {
		lm.Close()
		return nil, err
	}
	e.models = lm
	return e, nil
}

// ModelChecks are what Doctor cannot see about the models m names: whether
// the runtime loads and each model is installed. A missing one is a
// warning, not a fault: the index is healthy and search is BM25 only (or in
// fused order, without the cross-encoder).
func ModelChecks(m Models) []Check {
	if m.Embedder == "none" {
		return []Check{{Name: "model", OK: true, Detail: m.explain(ErrModelOff, m.Embedder, model.KindEmbedder) + "; search is BM25 only"}}
	}
	resolve := func(name string, kind model.Kind) (string, model.Spec, error) {
		if m.Resolve != nil {
			if name == "" {
				name = defaultModel(kind).ID()
			}
			return m.Resolve(name, kind)
		}
		return model.ResolveKind(name, model.ModelsDir(m.Dir), kind)
	}
	var checks []Check
	lib, err := model.FindRuntime(m.ORTLib)
	if err == nil {
		err = model.InitRuntime(lib)
	}
	if err != nil {
		checks = append(checks, Check{Name: "runtime", OK: true, Warning: true, Detail: errorClause(err) + "; until then search is BM25 only"})
	} else {
		checks = append(checks, Check{Name: "runtime", OK: true, Detail: fmt.Sprintf("ONNX Runtime %s at %s", model.RuntimeVersion(), lib)})
	}
	dir, spec, err := resolve(m.Embedder, model.KindEmbedder)
	if err != nil {
		checks = append(checks, Check{Name: "model", OK: true, Warning: true, Detail: errorClause(err) + "; until then search is BM25 only"})
	} else {
		checks = append(checks, Check{Name: "model", OK: true, Detail: fmt.Sprintf("%s in %s", spec.ID(), dir)})
	}
	if m.Reranker == "none" {
		return append(checks, Check{Name: "reranker", OK: true, Detail: m.explain(ErrModelOff, m.Reranker, model.KindCrossEncoder)})
	}
	dir, spec, err = resolve(m.Reranker, model.KindCrossEncoder)
	if err != nil {
		checks = append(checks, Check{Name: "reranker", OK: true, Warning: true, Detail: errorClause(err) + "; until then results are in fused order"})
	} else {
		checks = append(checks, Check{Name: "reranker", OK: true, Detail: fmt.Sprintf("%s in %s", spec.ID(), dir)})
	}
	return checks
}

// errorClause is an error as one line without the package prefix that
// braid's own errors start with, to follow a colon or stand in a list.
func errorClause(err error) string {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	for _, p := range []string{"braid: ", "index: ", "grep: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
