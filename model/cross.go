package model

import (
	"context"
	"fmt"

	"github.com/braidsearch/braid/tokenizer"
)

// CrossEncoder scores (query, passage) pairs with a cross-encoder reranker
// (ms-marco MiniLM, bge-reranker) run by ONNX Runtime. It is safe for
// concurrent use; runs of one CrossEncoder are serialised.
type CrossEncoder struct {
	spec   Spec
	tok    *tokenizer.Tokenizer
	s      *session
	maxLen int
}

// LoadCrossEncoder loads the cross-encoder in dir, which holds model.onnx
// and tokenizer.json. InitRuntime must have succeeded first.
func LoadCrossEncoder(dir string, spec Spec, cfg Config) (*CrossEncoder, error) {
	if spec.Kind != "" && spec.Kind != KindCrossEncoder {
		return nil, fmt.Errorf("model: %s is a %s, not a %s", spec.ID(), spec.Kind, KindCrossEncoder)
	}
	tok, s, err := openDir(dir, spec, cfg, "logits")
	if err != nil {
		return nil, err
	}
	if d := s.outDims; len(d) != 2 || d[1] == 0 {
		s.close()
		return nil, fmt.Errorf("model: %s output %s has shape %v, want [batch, labels]", s.path, s.output, d)
	}
	return &CrossEncoder{spec: spec, tok: tok, s: s, maxLen: maxLen(spec)}, nil
}

// Device says where the model runs and why (cpu or cuda:N).
func (c *CrossEncoder) Device() Choice { return c.s.choice }

// Score returns the raw relevance logit (the first label's) of each
// passage for query, in the order of passages; higher is more relevant.
// Each pair is truncated to spec.MaxLen tokens, longest side first.
// Pairs go through the model in batches; ctx is checked between batches.
func (c *CrossEncoder) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	if len(passages) == 0 {
		return []float32{}, nil
	}
	encs := make([]tokenizer.Encoding, len(passages))
	for i, p := range passages {
		encs[i] = c.tok.EncodePair(query, p, c.maxLen)
	}
	scores := make([]float32, len(passages))
	err := c.s.runAll(ctx, encs, c.tok.PadID(), func(o output) error {
		if len(o.shape) != 2 || int(o.shape[0]) != len(o.rows) || o.shape[1] < 1 {
			return fmt.Errorf("model: %s output %s has shape %v, want [%d, labels]", c.s.path, c.s.output, o.shape, len(o.rows))
		}
		labels := int(o.shape[1])
		for j, i := range o.rows {
			scores[i] = o.data[j*labels]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return scores, nil
}

// Spec returns the model's specification.
func (c *CrossEncoder) Spec() Spec { return c.spec }

// Close releases the model. Score fails after it; Close is idempotent.
func (c *CrossEncoder) Close() error { return c.s.close() }
