package model

import (
	"context"
	"errors"
	"fmt"
	"github.com/braidsearch/braid/internal/lru"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/braidsearch/braid/tokenizer"
)

// Embedder turns texts into unit-length vectors with a bi-encoder (BGE,
// MiniLM, E5) run by ONNX Runtime. It is safe for concurrent use.
//
// It runs a single text (a query) and a batch on two sessions. A query
// is too short to share among threads: bge-small int8 embeds a 22-token
// query in 5.33 ms p50 on one intra-op thread and on two alike on a Zen 4
// (400 queries each, interleaved), and on one it leaves the other cores
// to the BM25 search that runs beside it. On two AVX2 cores two threads
// whose workers spin were 10-14% faster on an idle machine (9.4 against
// 10.5 ms, 600 queries interleaved), but with one other busy process
// 12.1 against 9.5 ms and with two 19.2 against 10.0: a query waits at
// every operator for a worker the scheduler has set aside. A batch does
// use every thread. A search process thus opens one session, with one
// thread; the batch session opens on the first batch (it is the same
// session when the configuration asks for one thread). An index run asks
// for no single text, so its first batch closes the one-thread session
// before opening its own: it holds one copy of the model, as before there
// were two. Runs on one session are serialised, so a query does not wait
// behind a batch.
type Embedder struct {
	spec   Spec
	tok    *tokenizer.Tokenizer
	path   string // the model file
	output string // the output read
	outDim []int64
	cfg    Config
	dim    int
	maxLen int
	key    string
	choice Choice // the device the first session chose

	mu      sync.Mutex
	one     *session // single texts, one intra-op thread; nil until needed again
	batch   *session // batches, cfg.Threads threads (one when that is one); nil until the first
	oneUsed bool     // a single text has run: a batch no longer closes one
	closed  bool

	tokens  atomic.Int64          // tokens embedded (padding not counted)
	queries *lru.Cache[[]float32] // EmbedQuery's recent vectors, by instruction and text
}

// queryCacheSize is how many query vectors an Embedder keeps (1.5 KiB
// each for bge-small).
const queryCacheSize = 512

// Tokens is how many tokens (after truncation, without padding) Embed has
// put through the model so far.
func (e *Embedder) Tokens() int64 { return e.tokens.Load() }

// LoadEmbedder loads the embedding model in dir, which holds model.onnx and
// tokenizer.json. spec says how to pool and prefix and, when Dim is not
// zero, the dimension the model must put out; a Dim of zero takes the
// model's own. InitRuntime must have succeeded first. ctx bounds the
// one short embedding that learns the output size of a model that does
// not declare it.
func LoadEmbedder(ctx context.Context, dir string, spec Spec, cfg Config) (*Embedder, error) {
	if spec.Kind != "" && spec.Kind != KindEmbedder {
		return nil, fmt.Errorf("model: %s is a %s, not an %s", spec.ID(), spec.Kind, KindEmbedder)
	}
	switch spec.Pooling {
	case PoolCLS, PoolMean:
	default:
		return nil, fmt.Errorf("model: %s: pooling %q unknown, want %q or %q", spec.ID(), spec.Pooling, PoolCLS, PoolMean)
	}
	if spec.Dim < 0 {
		return nil, fmt.Errorf("model: %s: dimension %d out of range, want >= 0", spec.ID(), spec.Dim)
	}
	if cfg.Threads < 0 {
		return nil, fmt.Errorf("model: threads %d out of range, want >= 0", cfg.Threads)
	}
	tok, s, err := openDir(dir, spec, queryConfig(cfg), "last_hidden_state")
	if err != nil {
		return nil, err
	}
	e := &Embedder{spec: spec, tok: tok, path: s.path, output: s.output, outDim: s.outDims, one: s, cfg: cfg, maxLen: maxLen(spec), choice: s.choice,
		queries: lru.New[[]float32](queryCacheSize)}
	if threadsOf(cfg) == 1 {
		e.batch = s
	}
	if err := e.setDim(ctx); err != nil {
		s.close()
		return nil, err
	}
	return e, nil
}

// setDim checks the model's hidden size against spec.Dim. A model that
// does not declare its hidden size embeds one short text to learn it.
func (e *Embedder) setDim(ctx context.Context) error {
	d := e.outDim
	if len(d) != 3 {
		return fmt.Errorf("model: %s output %s has shape %v, want [batch, sequence, hidden]", e.path, e.output, d)
	}
	hidden := int(d[2])
	if hidden <= 0 {
		// On the one-thread session directly: a probe is no query, and
		// must not keep that session from giving way to a batch's.
		v, err := e.embedOn(ctx, e.one, []string{"dimension probe"}, e.spec.PassagePrefix)
		if err != nil {
			return fmt.Errorf("model: probe the output size of %s: %w", e.path, err)
		}
		hidden = len(v[0])
	}
	if e.spec.Dim != 0 && hidden != e.spec.Dim {
		return fmt.Errorf("%w: %s puts out %d dimensions, but %s has %d; the files in %s belong to another model",
			ErrDimMismatch, e.path, hidden, e.spec.ID(), e.spec.Dim, filepath.Dir(e.path))
	}
	e.dim = hidden
	return nil
}

// EmbedQuery embeds one query, with the model's query instruction
// (spec.QueryPrefix) or, with instruction false, without it. The vectors
// of the last queryCacheSize queries are kept: agents repeat and refine
// their queries, and a repeated one then costs no model run.
func (e *Embedder) EmbedQuery(ctx context.Context, text string, instruction bool) ([]float32, error) {
	prefix := ""
	if instruction {
		prefix = e.spec.QueryPrefix
	}
	k := e.queries.Key(prefix, text)
	if v, ok := e.queries.Get(k); ok {
		return slices.Clone(v), nil
	}
	out, err := e.embed(ctx, []string{text}, prefix)
	if err != nil {
		return nil, err
	}
	e.queries.Put(k, slices.Clone(out[0]))
	return out[0], nil
}

// HasQueryInstruction says whether the model puts an instruction before
// queries.
func (e *Embedder) HasQueryInstruction() bool { return e.spec.QueryPrefix != "" }

// Embed returns one unit-length vector per text, in the order of texts.
// Queries (query true) get spec.QueryPrefix, passages spec.PassagePrefix;
// texts longer than spec.MaxLen tokens are truncated. Texts go through the
// model in batches of similar length; ctx is checked between batches.
func (e *Embedder) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	prefix := e.spec.PassagePrefix
	if query {
		prefix = e.spec.QueryPrefix
	}
	return e.embed(ctx, texts, prefix)
}

func (e *Embedder) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	s, err := e.session(len(texts) > 1)
	if err != nil {
		return nil, err
	}
	return e.embedOn(ctx, s, texts, prefix)
}

// embedOn runs texts through the model on session s.
func (e *Embedder) embedOn(ctx context.Context, s *session, texts []string, prefix string) ([][]float32, error) {
	encs := make([]tokenizer.Encoding, len(texts))
	n := 0
	for i, t := range texts {
		encs[i] = e.tok.Encode(prefix+t, e.maxLen)
		n += len(encs[i].IDs)
	}
	defer e.tokens.Add(int64(n))
	out := make([][]float32, len(texts))
	err := s.runAll(ctx, encs, e.tok.PadID(), func(o output) error {
		if len(o.shape) != 3 || int(o.shape[0]) != len(o.rows) {
			return fmt.Errorf("model: %s output %s has shape %v, want [%d, sequence, hidden]", e.path, e.output, o.shape, len(o.rows))
		}
		seq, hidden := int(o.shape[1]), int(o.shape[2])
		if e.dim != 0 && hidden != e.dim {
			return fmt.Errorf("%w: %s put out %d dimensions, want %d", ErrDimMismatch, e.path, hidden, e.dim)
		}
		for j, i := range o.rows {
			states := o.data[j*seq*hidden : (j+1)*seq*hidden]
			out[i] = pool(states, o.encs[j], hidden, e.spec.Pooling)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// queryConfig is the configuration of the session single texts run on:
// cfg with one intra-op thread.
func queryConfig(cfg Config) Config {
	q := cfg
	q.Threads = 1
	return q
}

// session returns the session to run texts on: the batch session for a
// batch, else the one-thread session, each opened when first needed. The
// first batch closes a one-thread session no single text has used (a
// batch's texts go through the model together, so nothing else holds it).
func (e *Embedder) session(batch bool) (*session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("model: %s: session closed", e.path)
	}
	if !batch {
		e.oneUsed = true
		if e.one == nil {
			s, err := openSession(e.path, e.output, queryConfig(e.cfg))
			if err != nil {
				return nil, err
			}
			e.one = s
		}
		return e.one, nil
	}
	if e.batch == nil {
		if e.one != nil && !e.oneUsed {
			e.one.close()
			e.one = nil
		}
		s, err := openSession(e.path, e.output, e.cfg)
		if err != nil {
			return nil, err
		}
		e.batch = s
	}
	return e.batch, nil
}

// pool reduces one input's token states [sequence, hidden] to one
// unit-length vector.
func pool(states []float32, enc tokenizer.Encoding, hidden int, p Pooling) []float32 {
	sum := make([]float64, hidden)
	switch p {
	case PoolCLS:
		for k := range hidden {
			sum[k] = float64(states[k])
		}
	case PoolMean:
		n := 0
		for t := range enc.IDs {
			if len(enc.Mask) == len(enc.IDs) && enc.Mask[t] == 0 {
				continue
			}
			row := states[t*hidden : (t+1)*hidden]
			for k, x := range row {
				sum[k] += float64(x)
			}
			n++
		}
		for k := range sum {
			sum[k] /= float64(max(n, 1))
		}
	}
	var norm float64
	for _, x := range sum {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	v := make([]float32, hidden)
	if norm == 0 {
		return v
	}
	for k, x := range sum {
		v[k] = float32(x / norm)
	}
	return v
}

// Dim is the length of the vectors Embed returns.
func (e *Embedder) Dim() int { return e.dim }

// Key names the model's embeddings: its registry id, or for a model
// directory loaded by OpenEmbedder its name and a hash of its path. An index
// keeps embeddings under this key, so switching models never mixes them.
func (e *Embedder) Key() string {
	if e.key == "" {
		return e.spec.ID()
	}
	return e.key
}

// Spec returns the model's specification.
func (e *Embedder) Spec() Spec { return e.spec }

// Device says where the model runs and why (cpu or cuda:N).
func (e *Embedder) Device() Choice { return e.choice }

// Close releases the model. Embed fails after it; Close is idempotent.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	var errs []error
	if e.batch != nil && e.batch != e.one {
		errs = append(errs, e.batch.close())
	}
	if e.one != nil {
		errs = append(errs, e.one.close())
	}
	return errors.Join(errs...)
}

// FLOPsPerToken estimates what one token costs the model (see the function
// of that name).
func (e *Embedder) FLOPsPerToken() (int64, error) { return FLOPsPerToken(e.path) }
