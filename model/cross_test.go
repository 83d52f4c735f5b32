package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func crossSpec() Spec {
	return Spec{Name: "braid/tiny-cross", Kind: KindCrossEncoder, MaxLen: 64}
}

func loadCross(t testing.TB, cfg Config) *CrossEncoder {
	t.Helper()
	needRuntime(t)
	c, err := LoadCrossEncoder(tinyCross, crossSpec(), cfg)
	if err != nil {
		t.Fatalf("LoadCrossEncoder: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func score(t *testing.T, c *CrossEncoder, query string, passages []string) []float32 {
	t.Helper()
	s, err := c.Score(context.Background(), query, passages)
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	if len(s) != len(passages) {
		t.Fatalf("Score returned %d scores for %d passages", len(s), len(passages))
	}
	return s
}

func TestCrossScoreDeterministicAndBatchInvariant(t *testing.T) {
	const query = "how do plugins load"
	for _, batch := range []int{1, 2, 3, 32} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			c := loadCross(t, Config{BatchSize: batch, Threads: 1})
			all := score(t, c, query, texts)
			again := score(t, c, query, texts)
			distinct := map[float32]bool{}
			for i, p := range texts {
				if all[i] != again[i] {
					t.Errorf("passage %d: %v then %v", i, all[i], again[i])
				}
				if math.IsNaN(float64(all[i])) || math.IsInf(float64(all[i]), 0) {
					t.Errorf("passage %d: score %v", i, all[i])
				}
				one := score(t, c, query, []string{p})[0]
				if d := math.Abs(float64(all[i] - one)); d > 1e-5 {
					t.Errorf("passage %d: batched %v, alone %v", i, all[i], one)
				}
				distinct[all[i]] = true
			}
			if len(distinct) < len(texts)-1 {
				t.Errorf("only %d distinct scores for %d passages: %v", len(distinct), len(texts), all)
			}
		})
	}
}

func TestCrossScoreQueryMatters(t *testing.T) {
	c := loadCross(t, Config{})
	a := score(t, c, "how do plugins load", texts[:3])
	b := score(t, c, "cold water", texts[:3])
	if fmt.Sprint(a) == fmt.Sprint(b) {
		t.Errorf("two queries score alike: %v", a)
	}
}

func TestCrossScoreContextAndClose(t *testing.T) {
	c := loadCross(t, Config{BatchSize: 2})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Score(ctx, "q", texts); !errors.Is(err, context.Canceled) {
		t.Errorf("Score(cancelled) = %v, want context.Canceled", err)
	}
	if _, err := c.Score(&stopAfter{Context: context.Background(), n: 2}, "q", texts); !errors.Is(err, context.Canceled) {
		t.Errorf("Score(cancelled after two batches) = %v, want context.Canceled", err)
	}
	if s, err := c.Score(context.Background(), "q", nil); err != nil || len(s) != 0 {
		t.Errorf("Score(no passages) = %v, %v; want empty", s, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Score(context.Background(), "q", texts[:1]); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Score after Close = %v, want a closed error", err)
	}
}

func TestLoadCrossEncoderErrors(t *testing.T) {
	needRuntime(t)
	if _, err := LoadCrossEncoder(t.TempDir(), crossSpec(), Config{}); !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("LoadCrossEncoder(empty dir) = %v, want ErrNoModel naming %s", err, ModelFile)
	}
	spec := crossSpec()
	spec.Kind = KindEmbedder
	if _, err := LoadCrossEncoder(tinyCross, spec, Config{}); err == nil || !strings.Contains(err.Error(), "not a cross-encoder") {
		t.Errorf("LoadCrossEncoder(embedder spec) = %v, want a kind error", err)
	}
	// An encoder's last_hidden_state is no logits.
	if _, err := LoadCrossEncoder(tinyEncoder, crossSpec(), Config{}); err == nil || !strings.Contains(err.Error(), "last_hidden_state") {
		t.Errorf("LoadCrossEncoder(encoder files) = %v, want a shape error", err)
	}
}

// tinyXLMR is a random-weight XLM-RoBERTa cross-encoder (RoBERTa positions
// from padding id 1, no token_type_ids input; genmodel.py --preset tiny
// --kind cross-encoder --roberta --vocab 4002 --max-positions 514) for the
// SentencePiece fixture tokenizer of the tokenizer package, which the test
// links beside it.
const (
	tinyXLMR    = "testdata/tiny-xlmr-cross"
	xlmrTokJSON = "../tokenizer/testdata/xlmr.json"
)

func loadXLMR(t *testing.T, cfg Config) *CrossEncoder {
	t.Helper()
	needRuntime(t)
	dir := t.TempDir()
	for name, target := range map[string]string{ModelFile: filepath.Join(tinyXLMR, ModelFile), TokenizerFile: xlmrTokJSON} {
		abs, err := filepath.Abs(target)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadCrossEncoder(dir, Spec{Name: "braid/tiny-xlmr-cross", Kind: KindCrossEncoder, MaxLen: 512}, cfg)
	if err != nil {
		t.Fatalf("LoadCrossEncoder: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCrossEncoderXLMR runs an XLM-R shaped cross-encoder end to end: the
// Unigram tokenizer's <s> A </s></s> B </s> pairs, no token_type_ids fed,
// padding with <pad> (id 1), which RoBERTa's positions skip, so that a pair
// scores the same alone and padded in a batch.
func TestCrossEncoderXLMR(t *testing.T) {
	c := loadXLMR(t, Config{BatchSize: 4, Threads: 1})
	for _, f := range c.s.feeds {
		if f == feedTypes {
			t.Fatal("the XLM-R model has no token_type_ids input, yet the session feeds one")
		}
	}
	if pad := c.tok.PadID(); pad != 1 {
		t.Errorf("PadID = %d, want 1 (<pad>)", pad)
	}
	passages := append([]string{
		"Der schnelle braune Fuchs springt über den faulen Hund.",
		"東京は日本の首都です。",
		strings.Repeat("long passage about hybrid search and reranking ", 80), // truncated to 512
	}, texts[:5]...)
	const query = "où est la bibliothèque?"
	all := score(t, c, query, passages)
	distinct := map[float32]bool{}
	for i, p := range passages {
		if math.IsNaN(float64(all[i])) || math.IsInf(float64(all[i]), 0) {
			t.Fatalf("passage %d: score %v", i, all[i])
		}
		one := score(t, c, query, []string{p})[0]
		if d := math.Abs(float64(all[i] - one)); d > 1e-4 {
			t.Errorf("passage %d: batched %v, alone %v", i, all[i], one)
		}
		distinct[all[i]] = true
	}
	if len(distinct) < len(passages)-1 {
		t.Errorf("only %d distinct scores for %d passages: %v", len(distinct), len(passages), all)
	}
}
