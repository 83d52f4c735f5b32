package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/braidsearch/braid/model"
	"github.com/braidsearch/braid/rerank"
	"github.com/braidsearch/braid/tokenizer"
)

// Embedder is the query embedder a bench times, with where its weights
// came from.
type Embedder struct {
	*model.Embedder
	Name      string // registry id
	Origin    string // "real weights" or "random-weight fixture"
	Tokenizer *tokenizer.Tokenizer
}

// CrossEncoder is one reranking model a bench times.
type CrossEncoder struct {
	*model.CrossEncoder
	Name   string
	Origin string
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

// LoadModels loads the embedder s names (the default when s.Name is empty)
// and the registered cross-encoders named in only (every one when only is
// empty): real weights from the models
// directory when installed, else the fixture of the same architecture
// under fixtures. What neither provides is listed in Skipped with the fix.
func LoadModels(s model.Setup, fixtures string, only []string) (*Models, error) {
	lib, err := model.FindRuntime(s.ORTLib)
	if err == nil {
		err = model.InitRuntime(lib)
	}
	m := &Models{}
	if err != nil {
		why := err.Error()
		m.Skipped = append(m.Skipped, Skipped{"every model", why})
		return m, nil
	}
	name := s.Name
	if name == "" {
		name = model.DefaultEmbedder().ID()
	}
	dir, spec, origin, why := locate(name, model.KindEmbedder, s.ModelsDir, fixtures)
	if name == "none" {
		why = "vectors are turned off (--model none)"
	}
	if why != "" {
		m.Skipped = append(m.Skipped, Skipped{name, why})
	} else {
		e, err := model.LoadEmbedder(dir, spec, s.Config)
		if err != nil {
			return nil, err
		}
		tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			e.Close()
			return nil, err
		}
		m.Embedder = &Embedder{Embedder: e, Name: spec.ID(), Origin: origin, Tokenizer: tok}
	}
	for _, spec := range model.Registry() {
		if spec.Kind != model.KindCrossEncoder || len(only) > 0 && !slices.Contains(only, spec.ID()) {
			continue
		}
		dir, spec, origin, why := locate(spec.ID(), model.KindCrossEncoder, s.ModelsDir, fixtures)
		if why != "" {
			m.Skipped = append(m.Skipped, Skipped{spec.ID(), why})
			continue
		}
		cfg := s.Config
		cfg.BatchSize = rerank.Batch // as search loads it
		c, err := model.LoadCrossEncoder(dir, spec, cfg)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.Rerankers = append(m.Rerankers, CrossEncoder{CrossEncoder: c, Name: spec.ID(), Origin: origin})
	}
	return m, nil
}

// locate finds a model's directory: installed real weights first, then
// the fixture. why says what to run when there is neither.
func locate(name string, kind model.Kind, modelsDir, fixtures string) (dir string, spec model.Spec, origin, why string) {
	dir, spec, err := model.ResolveKind(name, model.ModelsDir(modelsDir), kind)
	if err == nil {
		return dir, spec, "real weights", ""
	}
	spec, ok := model.Lookup(name)
	fx, known := fixtureDirs[name]
	if !ok || !known {
		return "", spec, "", err.Error()
	}
	dir = filepath.Join(fixtures, fx)
	if _, serr := os.Stat(filepath.Join(dir, model.ModelFile)); serr != nil {
		target := "make fixtures"
		if strings.HasPrefix(fx, "bge-reranker") {
			target = "make fixtures-xlmr"
		}
		return "", spec, "", fmt.Sprintf("not installed (braid models pull %s) and no fixture in %s (%s)", name, dir, target)
	}
	spec.Files = nil // a fixture is not the pinned file
	return dir, spec, "random-weight fixture", ""
}
