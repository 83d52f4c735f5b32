package bench

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/tokenizer"
)

// Embedder is the query embedder a bench times, with where its weights
// came from.
type Embedder struct {
	*model.Embedder
	Name      string // registry id
	Origin    string // "real weights" or "random-weight fixture"
	Tokenizer *tokenizer.Tokenizer
	// Cost is the model's arithmetic (model.ReadCost); zero when it could
	// not be read, and the roofline then leaves the model out.
	Cost model.Cost
}

// CrossEncoder is one reranking model a bench times.
type CrossEncoder struct {
	*model.CrossEncoder
	Name   string
	Origin string
	// Tokenizer counts the tokens of the pairs the model scores, and Cost
	// is their arithmetic; without either the roofline leaves the model
	// out.
	Tokenizer *tokenizer.Tokenizer
	Cost      model.Cost
	// Threads is how many intra-op threads the model runs on.
	Threads int
}

// Skipped names a model the bench could not time, and why.
type Skipped struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// Models are what a bench runs: the embedder (nil when none could be
// loaded), the rerankers, and what was left out.
type Models struct {
	Embedder  *Embedder
	Rerankers []CrossEncoder
	Skipped   []Skipped
	// Device says where the models run and why (model.Loaded.Device).
	Device string
}

// Close releases every model.
func (m *Models) Close() {
	if m.Embedder != nil {
		m.Embedder.Close()
	}
	for _, r := range m.Rerankers {
		r.Close()
	}
}

// fixtureDirs maps registry ids to the directories `make fixtures` writes
// architecture-exact random-weight models to.
var fixtureDirs = map[string]string{
	"BAAI/bge-small-en-v1.5":                      "bge-small",
	"BAAI/bge-small-en-v1.5:int8":                 "bge-small-int8",
	"cross-encoder/ms-marco-MiniLM-L-6-v2":        "ms-marco-minilm-l6",
	"cross-encoder/ms-marco-MiniLM-L-6-v2:int8":   "ms-marco-minilm-l6-int8",
	"cross-encoder/ms-marco-TinyBERT-L-2-v2":      "ms-marco-tinybert-l2",
	"cross-encoder/ms-marco-TinyBERT-L-2-v2:int8": "ms-marco-tinybert-l2-int8",
	// 1.1 GB and 280 MB: built by make fixtures-xlmr, not make fixtures.
	"BAAI/bge-reranker-base":      "bge-reranker-base",
	"BAAI/bge-reranker-base:int8": "bge-reranker-base-int8",
}

// LoadModels loads the embedder m names (the default when m.Embedder is
// empty) and the registered cross-encoders named in only (every one when
// only is empty), as braid.LoadModels does for search: real weights from
// the models directory when installed, else the fixture of the same
// architecture under fixtures. What neither provides is listed in Skipped
// with the fix; m.Reranker and m.Resolve are not read.
func LoadModels(m braid.Models, fixtures string, only []string) (*Models, error) {
	dev, err := model.ParseDevice(m.Device)
	if err != nil {
		return nil, err
	}
	lib, err := model.FindRuntimeFor(m.ORTLib, dev)
	if err == nil {
		err = model.InitRuntime(lib)
	}
	out := &Models{}
	if err != nil {
		out.Skipped = append(out.Skipped, Skipped{"every model", err.Error()})
		return out, nil
	}
	var dir, origin string
	var spec model.Spec
	m.Resolve = func(name string, kind model.Kind) (string, model.Spec, error) {
		var err error
		dir, spec, origin, err = locate(name, kind, m.Dir, fixtures)
		return dir, spec, err
	}
	em := m
	em.NoReranker = true
	lm, err := braid.LoadModels(em)
	if err != nil {
		return nil, err
	}
	if lm.Embedder == nil {
		out.Skipped = append(out.Skipped, Skipped{cmp.Or(m.Embedder, model.DefaultEmbedder().ID()), lm.NoVectors})
	} else {
		tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			lm.Close()
			return nil, err
		}
		cost, _ := model.ReadCost(spec.ModelPath(dir)) // zero: no roofline
		out.Embedder = &Embedder{Embedder: lm.Embedder, Name: lm.Embedder.Spec().ID(), Origin: origin, Tokenizer: tok, Cost: cost}
		out.Device = lm.Device
	}
	for _, reg := range model.Registry() {
		if reg.Kind != model.KindCrossEncoder || len(only) > 0 && !slices.Contains(only, reg.ID()) {
			continue
		}
		cm := m
		cm.NoEmbedder, cm.Reranker = true, reg.ID()
		lm, err := braid.LoadModels(cm)
		if err != nil {
			out.Close()
			return nil, err
		}
		if lm.CrossEncoder == nil {
			out.Skipped = append(out.Skipped, Skipped{reg.ID(), lm.NoRerank})
			continue
		}
		c := CrossEncoder{CrossEncoder: lm.CrossEncoder, Name: reg.ID(), Origin: origin, Threads: cmp.Or(m.Threads, runtime.NumCPU())}
		if tok, err := tokenizer.Load(spec.TokenizerPath(dir)); err == nil { // else no roofline
			c.Tokenizer = tok
			c.Cost, _ = model.ReadCost(spec.ModelPath(dir))
		}
		out.Rerankers = append(out.Rerankers, c)
		if out.Device == "" {
			out.Device = lm.Device
		}
	}
	return out, nil
}

// locate finds a model's directory: installed real weights first, then
// the fixture. Its error says what to run when there is neither.
func locate(name string, kind model.Kind, modelsDir, fixtures string) (dir string, spec model.Spec, origin string, err error) {
	dir, spec, err = model.ResolveKind(name, model.ModelsDir(modelsDir), kind)
	if err == nil {
		return dir, spec, "real weights", nil
	}
	spec, ok := model.Lookup(name)
	fx, known := fixtureDirs[name]
	if !ok || !known {
		return "", spec, "", err
	}
	dir = filepath.Join(fixtures, fx)
	if _, serr := os.Stat(filepath.Join(dir, model.ModelFile)); serr != nil {
		target := "make fixtures"
		if strings.HasPrefix(fx, "bge-reranker") {
			target = "make fixtures-xlmr"
		}
		return "", spec, "", fmt.Errorf("not installed (braid models pull %s) and no fixture in %s (%s)", name, dir, target)
	}
	spec.Files = nil // a fixture is not the pinned file
	return dir, spec, "random-weight fixture", nil
}
