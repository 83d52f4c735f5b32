package model

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

var (
	// ErrOff is what Set.Explain is given for a model named "none":
	// turned off on purpose.
	ErrOff = errors.New("model: turned off")
	// ErrBadSet means a Set's number is out of range.
	ErrBadSet = errors.New("model: invalid set")
)

// CrossBatch and CrossTokenBudget are the pairs and the tokens (padding
// included) per model call Load loads cross-encoders with on the CPU: a
// rerank's 50 pairs go through the model in 4 calls at the default
// window, not 13 (8 pairs and 512 tokens before). On two AVX2 cores, 50
// pairs interleaved with the old batching, p50: TinyBERT-L2 int8 30.9
// against 36.7 ms at a 64-word window (60.6/70.1 at 128, 146/188 at 256),
// its fp32 48.3 against 61.7, MiniLM-L6 int8 1018 against 1082 at 128.
const (
	CrossBatch       = 16
	CrossTokenBudget = 2048
)

// Set names the embedding model and the cross-encoder a search runs
// with, and how to run them (Load). The zero value loads the default
// models from the user cache with the first ONNX Runtime found in the
// known places.
type Set struct {
	// Embedder is the embedding model: a registry id, a directory holding
	// model.onnx and tokenizer.json, "" for the default, or "none" for no
	// vectors (search is BM25 only, and stored embeddings that go
	// unsearched are no fault).
	Embedder string
	// Reranker is the cross-encoder, named the same way; "none" turns
	// reranking off.
	Reranker string
	// NoEmbedder and NoReranker leave a model unloaded for a caller that
	// will not use it (a search that asked for keywords only, an index
	// run that never reranks); unlike "none" they give no reason why.
	NoEmbedder, NoReranker bool
	// Dir holds pulled models; "" means the user cache (ModelsDir).
	Dir string
	// ORTLib is the ONNX Runtime shared library; "" searches the known
	// places (FindRuntime).
	ORTLib string
	// Device is where the models run: "auto" (or ""), "cpu", "cuda" or
	// "cuda:N" (ParseDevice). Auto takes CUDA device 0 when the runtime
	// has the CUDA execution provider and the device is there, else the
	// CPU; Loaded.Device and Checks say which and why.
	Device string
	// Threads bounds the threads a model may use; 0 means every CPU.
	Threads int
	// TokenBudget bounds the tokens, padding included, in one batch
	// through the embedding model; 0 means 512. Cross-encoders batch by
	// CrossTokenBudget.
	TokenBudget int
	// OneShot loads the embedding model for a process that embeds a
	// query or two and exits (Config.OneShot). braid search sets it.
	OneShot bool
	// Warm runs each loaded model once on a short input before Load
	// returns, so that a long-lived process's first search does not pay
	// ONNX Runtime's first run (bge-small int8: a query's 20 ms, against
	// 8-9 ms after it). braid serve sets it.
	Warm bool
	// Resolve, when set, finds a model's directory and specification in
	// place of the registry and Dir (bench falls back to random-weight
	// fixtures with it); it sees the name after "" became the default's id.
	// Errors it returns are sorted as a missing model is. Load calls it
	// (and Explain) one call at a time, for the two models in either
	// order, as they load side by side.
	Resolve func(name string, kind Kind) (dir string, spec Spec, err error)
	// Explain says in one short clause why a model cannot be used (no
	// runtime, not installed, damaged; ErrOff for one named "none"),
	// naming the fix the caller's users have; nil uses the error's own
	// message. The clause becomes Loaded's NoVectors or NoRerank.
	Explain func(err error, name string, kind Kind) string
}

// Loaded are the models Load loaded, and why one is missing.
type Loaded struct {
	// Embedder is nil when no embedding model is loaded; NoVectors then
	// says why ("" when Set.NoEmbedder asked for none).
	Embedder  *Embedder
	NoVectors string
	// VectorsOff says vectors are turned off (Set.Embedder "none").
	VectorsOff bool
	// CrossEncoder is nil when no cross-encoder is loaded; NoRerank then
	// says why ("" when it was turned off or not asked for).
	CrossEncoder *CrossEncoder
	NoRerank     string
	// Device says where the loaded models run and why, as one line of
	// plain data ("cpu (auto: ...)", "cuda:0 (auto: ...)"); "" when no
	// model is loaded.
	Device string
	// RerankNamed says Set.Reranker named the cross-encoder (not the
	// default, not "none"): the user asked for it, so a NoRerank is worth
	// telling them in searches, where the default's absence is not.
	RerankNamed bool
}

// Load loads the models s names. A model that cannot be used because
// the runtime or its files are missing is left out with the reason in
// NoVectors or NoRerank, so the caller can still serve lexical search; a
// model named wrongly (ErrUnknownModel, ErrWrongKind) and a number out of
// range (ErrBadSet) are errors. ctx bounds the loading (see
// LoadEmbedder). Close the models when done.
func Load(ctx context.Context, s Set) (*Loaded, error) {
	// The cross-encoder loads beside the embedder: each session costs a
	// fresh search process tens of milliseconds of its own CPU.
	type loadedCross struct {
		ce  *CrossEncoder
		why string
		err error
	}
	s = s.oneAtATime()
	var cross chan loadedCross
	if !s.NoReranker && s.Reranker != "none" {
		cross = make(chan loadedCross, 1)
		go func() {
			ce, why, err := load(ctx, s, s.Reranker, KindCrossEncoder,
				func(_ context.Context, s Setup) (*CrossEncoder, error) { return OpenCrossEncoder(s) },
				func(_ context.Context, dir string, spec Spec, cfg Config) (*CrossEncoder, error) {
					return LoadCrossEncoder(dir, spec, cfg)
				})
			cross <- loadedCross{ce, why, err}
		}()
	}
	l := &Loaded{VectorsOff: s.Embedder == "none"}
	switch {
	case s.NoEmbedder:
	case l.VectorsOff:
		l.NoVectors = s.explain(ErrOff, s.Embedder, KindEmbedder)
	default:
		emb, why, err := load(ctx, s, s.Embedder, KindEmbedder, OpenEmbedder, LoadEmbedder)
		if err != nil {
			if cross != nil {
				if c := <-cross; c.ce != nil {
					c.ce.Close()
				}
			}
			return nil, err
		}
		l.Embedder, l.NoVectors = emb, why
	}
	if cross != nil {
		c := <-cross
		if c.err != nil {
			l.Close()
			return nil, c.err
		}
		l.CrossEncoder, l.NoRerank = c.ce, c.why
		l.RerankNamed = strings.TrimSpace(s.Reranker) != ""
	}
	l.setDevice()
	if s.Warm {
		l.warm(ctx)
	}
	return l, nil
}

// EmbedderKey is the key (Embedder.Key) the embedding model s names will
// have once Load loads it, found without loading it: a caller can read
// what an index keeps under that key while the model loads. It is ""
// when s loads no embedder or the model cannot be found (Load then says
// why). It calls s.Resolve when set, so it must not run beside a Load of
// the same s.
func (s Set) EmbedderKey() string {
	if s.NoEmbedder || s.Embedder == "none" {
		return ""
	}
	dir, spec, err := s.resolve(s.Embedder, KindEmbedder)
	switch {
	case err != nil:
		return ""
	case s.Resolve != nil: // resolveAndLoad: LoadEmbedder's key
		return spec.ID()
	}
	return key(dir, spec) // OpenEmbedder's
}

// oneAtATime is s with its callbacks serialised: the caller's Resolve and
// Explain need not be safe for concurrent use.
func (s Set) oneAtATime() Set {
	var mu sync.Mutex
	if r := s.Resolve; r != nil {
		s.Resolve = func(name string, kind Kind) (string, Spec, error) {
			mu.Lock()
			defer mu.Unlock()
			return r(name, kind)
		}
	}
	if e := s.Explain; e != nil {
		s.Explain = func(err error, name string, kind Kind) string {
			mu.Lock()
			defer mu.Unlock()
			return e(err, name, kind)
		}
	}
	return s
}

// warm runs the loaded models once each, as a query and a rerank would. A
// model that fails here fails the same way in the search that uses it,
// which says so; warming has nothing to add.
func (l *Loaded) warm(ctx context.Context) {
	if l.Embedder != nil {
		if s, err := l.Embedder.session(false); err == nil {
			l.Embedder.embedOn(ctx, s, []string{"warm up"}, l.Embedder.spec.QueryPrefix)
		}
	}
	if l.CrossEncoder != nil {
		l.CrossEncoder.Score(ctx, "warm up", []string{"a passage to warm up the model"})
	}
}

// setDevice fills l.Device from the loaded models: one choice, or each
// model's when they differ (auto fell back for one of them).
func (l *Loaded) setDevice() {
	var got []string
	if l.Embedder != nil {
		got = append(got, l.Embedder.Device().String())
	}
	if l.CrossEncoder != nil {
		if c := l.CrossEncoder.Device().String(); len(got) == 0 || got[0] != c {
			got = append(got, c)
		}
	}
	switch len(got) {
	case 1:
		l.Device = got[0]
	case 2:
		l.Device = "embedder " + got[0] + ", cross-encoder " + got[1]
	}
}

// load loads the model name of kind, by the registry and s.Dir with open
// or by s.Resolve with loadDir. Nil and a reason is a model that cannot
// be used; an error is a model named wrongly.
func load[T any](ctx context.Context, s Set, name string, kind Kind,
	open func(context.Context, Setup) (*T, error), loadDir func(context.Context, string, Spec, Config) (*T, error)) (*T, string, error) {
	if s.Threads < 0 || s.TokenBudget < 0 {
		return nil, "", fmt.Errorf("%w: Threads %d and TokenBudget %d, want 0 (the default) or more", ErrBadSet, s.Threads, s.TokenBudget)
	}
	dev, err := ParseDevice(s.Device)
	if err != nil {
		return nil, "", err
	}
	setup := Setup{ORTLib: s.ORTLib, ModelsDir: s.Dir, Name: name, Config: Config{Threads: s.Threads, TokenBudget: s.TokenBudget, Device: dev}}
	if kind == KindEmbedder {
		setup.Config.OneShot = s.OneShot
	}
	if kind == KindCrossEncoder {
		// Set.TokenBudget is the embedding model's.
		setup.Config.cpuBatch, setup.Config.cpuBudget, setup.Config.TokenBudget = CrossBatch, CrossTokenBudget, 0
	}
	var got *T
	if s.Resolve == nil {
		got, err = open(ctx, setup)
	} else {
		got, err = resolveAndLoad(ctx, s, setup, kind, loadDir)
	}
	if err == nil {
		return got, "", nil
	}
	if errors.Is(err, ErrUnknownModel) || errors.Is(err, ErrWrongKind) || errors.Is(err, ErrNoGPU) {
		// A device asked for by name that cannot run fails the load: the
		// caller asked for the GPU, not for lexical search.
		return nil, "", err
	}
	return nil, s.explain(err, name, kind), nil
}

// explain is s.Explain, else the error's message.
func (s Set) explain(err error, name string, kind Kind) string {
	switch {
	case s.Explain != nil:
		return s.Explain(err, name, kind)
	case errors.Is(err, ErrOff) && kind == KindCrossEncoder:
		return "reranking is turned off (reranker none)"
	case errors.Is(err, ErrOff):
		return "vectors are turned off (embedding model none)"
	}
	return Clause(err)
}

// resolveAndLoad is OpenEmbedder and OpenCrossEncoder with s.Resolve in
// place of the registry lookup.
func resolveAndLoad[T any](ctx context.Context, s Set, setup Setup, kind Kind, loadDir func(context.Context, string, Spec, Config) (*T, error)) (*T, error) {
	lib, err := FindRuntimeFor(setup.ORTLib, setup.Config.Device)
	if err == nil {
		err = InitRuntime(lib)
	}
	if err != nil {
		return nil, err
	}
	dir, spec, err := s.resolve(setup.Name, kind)
	if err != nil {
		return nil, err
	}
	return loadDir(ctx, dir, spec, setup.Config)
}

// resolve is s.Resolve, "" given as the default's id, else ResolveKind in
// s.Dir.
func (s Set) resolve(name string, kind Kind) (string, Spec, error) {
	if s.Resolve == nil {
		return ResolveKind(name, ModelsDir(s.Dir), kind)
	}
	if name == "" {
		name = DefaultEmbedder().ID()
		if kind == KindCrossEncoder {
			name = DefaultCrossEncoder().ID()
		}
	}
	return s.Resolve(name, kind)
}

// Close releases the models. Closing twice is harmless.
func (l *Loaded) Close() error {
	var errs []error
	if l.Embedder != nil {
		errs = append(errs, l.Embedder.Close())
	}
	if l.CrossEncoder != nil {
		errs = append(errs, l.CrossEncoder.Close())
	}
	return errors.Join(errs...)
}

// Check is one thing Checks found about a Set's models. None is a fault:
// a missing runtime or model is a Warning, as search still runs without
// it.
type Check struct {
	Name    string // "runtime", "model" or "reranker"
	Warning bool
	Detail  string
}

// Checks are what can be seen about the models s names without loading
// them: whether the runtime loads and each model is installed. A missing
// one is a warning: search is BM25 only (or in fused order, without the
// cross-encoder).
func Checks(s Set) []Check {
	if s.Embedder == "none" {
		return []Check{{Name: "model", Detail: s.explain(ErrOff, s.Embedder, KindEmbedder) + "; search is BM25 only"}}
	}
	var checks []Check
	dev, _ := ParseDevice(s.Device) // DeviceCheck reports a bad one
	lib, err := FindRuntimeFor(s.ORTLib, dev)
	if err == nil {
		err = InitRuntime(lib)
	}
	if err != nil {
		checks = append(checks, Check{Name: "runtime", Warning: true, Detail: Clause(err) + "; until then search is BM25 only"})
	} else {
		checks = append(checks, Check{Name: "runtime", Detail: fmt.Sprintf("ONNX Runtime %s at %s", RuntimeVersion(), lib)})
		checks = append(checks, DeviceCheck(s))
	}
	dir, spec, err := s.resolve(s.Embedder, KindEmbedder)
	if err != nil {
		checks = append(checks, Check{Name: "model", Warning: true, Detail: Clause(err) + "; until then search is BM25 only"})
	} else {
		checks = append(checks, Check{Name: "model", Detail: fmt.Sprintf("%s in %s", spec.ID(), dir)})
	}
	if s.Reranker == "none" {
		return append(checks, Check{Name: "reranker", Detail: s.explain(ErrOff, s.Reranker, KindCrossEncoder)})
	}
	dir, spec, err = s.resolve(s.Reranker, KindCrossEncoder)
	if err != nil {
		checks = append(checks, Check{Name: "reranker", Warning: true, Detail: Clause(err) + "; until then results are in fused order"})
	} else {
		checks = append(checks, Check{Name: "reranker", Detail: fmt.Sprintf("%s in %s", spec.ID(), dir)})
	}
	return checks
}

// DeviceCheck says where models s names would run and why, with the
// runtime InitRuntime loaded: a warning when a device asked for by name
// cannot run (the models would not load) or Set.Device is not a device.
func DeviceCheck(s Set) Check {
	dev, err := ParseDevice(s.Device)
	if err == nil {
		var c Choice
		if c, err = Choose(dev); err == nil {
			return Check{Name: "device", Detail: c.String()}
		}
	}
	return Check{Name: "device", Warning: true, Detail: Clause(err)}
}

// Clause is an error as one line without the package prefix that
// braid's own errors start with (a Set.Resolve may return them), to
// follow a colon or stand in a list: a check's detail, a reason, a
// braid batch answer's error.
func Clause(err error) string {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	for _, p := range []string{"braid: ", "index: ", "grep: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
