package model

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// Setup says where to find ONNX Runtime and which model to run.
type Setup struct {
	// ORTLib is the runtime library (--ort-lib); empty searches the known
	// places (see FindRuntime).
	ORTLib string
	// ModelsDir holds pulled models (--models); empty means ModelsDir("").
	ModelsDir string
	// Name is a registry id or a model directory; empty means the default.
	Name   string
	Config Config
}

// OpenEmbedder finds the runtime, resolves the embedding model and loads
// it. Its errors wrap ErrNoRuntime, ErrRuntimeTooOld, ErrNoModel,
// ErrUnknownModel or ErrWrongKind and name the fix.
func OpenEmbedder(ctx context.Context, s Setup) (*Embedder, error) {
	dir, spec, err := s.resolve(KindEmbedder)
	if err != nil {
		return nil, err
	}
	e, err := LoadEmbedder(ctx, dir, spec, s.Config)
	if err != nil {
		return nil, err
	}
	e.key = key(dir, spec)
	return e, nil
}

// OpenCrossEncoder is OpenEmbedder for a reranking model.
func OpenCrossEncoder(s Setup) (*CrossEncoder, error) {
	dir, spec, err := s.resolve(KindCrossEncoder)
	if err != nil {
		return nil, err
	}
	return LoadCrossEncoder(dir, spec, s.Config)
}

func (s Setup) resolve(kind Kind) (string, Spec, error) {
	lib, err := FindRuntimeFor(s.ORTLib, s.Config.Device)
	if err != nil {
		return "", Spec{}, err
	}
	if err := InitRuntime(lib); err != nil {
		return "", Spec{}, err
	}
	return ResolveKind(s.Name, ModelsDir(s.ModelsDir), kind)
}

// key names a model's embeddings in an index: the registry id, or for a
// model directory its name and a hash of its absolute path, so two
// directories with the same base name never share cached vectors.
func key(dir string, spec Spec) string {
	if _, ok := Lookup(spec.ID()); ok && len(spec.Files) > 0 && spec.Files[0].SHA256 != "" {
		return spec.ID()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := sha256.Sum256([]byte(abs))
	return spec.ID() + "@" + hex.EncodeToString(h[:4])
}
