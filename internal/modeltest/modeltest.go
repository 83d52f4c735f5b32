// Package modeltest gives tests outside package model the generated tiny
// embedding model (model/testdata/tiny-encoder: a BERT graph with random
// weights, hidden size 8) running on the real ONNX Runtime.
package modeltest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/braidsearch/braid/model"
)

// root is the repository root, found from this file's path.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TinyDir is the directory of the tiny encoder fixture.
func TinyDir() string { return filepath.Join(root(), "model", "testdata", "tiny-encoder") }

// TinySpec describes the tiny encoder: no prefixes, so a query embeds
// exactly as the same passage does.
func TinySpec() model.Spec {
	return model.Spec{Name: "braid/tiny-encoder", Kind: model.KindEmbedder, Pooling: model.PoolMean, Dim: 8, MaxLen: 128}
}

// RuntimePath finds ONNX Runtime: BRAID_ORT_LIB, the known places, then
// the copy `make ort` installs in the repository. It returns "" when there
// is none.
func RuntimePath() string {
	if p, err := model.FindRuntime(os.Getenv(model.EnvRuntimeLib)); err == nil {
		return p
	}
	p := filepath.Join(root(), ".tools", "onnxruntime", "libonnxruntime.so.1")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// NeedRuntime initialises ONNX Runtime, or skips the test when it is
// absent; with BRAID_REQUIRE_ORT=1 (as make test sets) absence fails it.
func NeedRuntime(tb testing.TB) string {
	tb.Helper()
	p := RuntimePath()
	if p == "" {
		if os.Getenv("BRAID_REQUIRE_ORT") == "1" {
			_, err := model.FindRuntime(os.Getenv(model.EnvRuntimeLib))
			tb.Fatalf("BRAID_REQUIRE_ORT=1 but %v", err)
		}
		tb.Skip("no ONNX Runtime: run `make ort` or set BRAID_ORT_LIB")
	}
	if err := model.InitRuntime(p); err != nil {
		tb.Fatalf("InitRuntime(%s): %v", p, err)
	}
	return p
}

// Tiny loads the tiny encoder, closed when the test ends.
func Tiny(tb testing.TB) *model.Embedder {
	tb.Helper()
	NeedRuntime(tb)
	e, err := model.LoadEmbedder(context.Background(), TinyDir(), TinySpec(), model.Config{Threads: 1})
	if err != nil {
		tb.Fatalf("load tiny encoder: %v", err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// TinyCrossDir is the directory of the tiny cross-encoder fixture.
func TinyCrossDir() string { return filepath.Join(root(), "model", "testdata", "tiny-cross") }

// TinyCross loads the tiny cross-encoder, closed when the test ends.
func TinyCross(tb testing.TB) *model.CrossEncoder {
	tb.Helper()
	NeedRuntime(tb)
	spec := model.Spec{Name: "braid/tiny-cross", Kind: model.KindCrossEncoder, MaxLen: 128}
	c, err := model.LoadCrossEncoder(TinyCrossDir(), spec, model.Config{Threads: 1})
	if err != nil {
		tb.Fatalf("load tiny cross-encoder: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
