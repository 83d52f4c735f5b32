package model

import (
	"fmt"
	"os"
	"path/filepath"
)

// Entry is a registry model as List finds it in a models directory.
type Entry struct {
	ID        string  `json:"id"`
	Kind      Kind    `json:"kind"`
	Dim       int     `json:"dim,omitempty"`
	Pooling   Pooling `json:"pooling,omitempty"`
	MaxLen    int     `json:"max_len"`
	Default   bool    `json:"default"`
	Installed bool    `json:"installed"` // every file present, with its pinned size
	Dir       string  `json:"dir"`       // where it is, or would be, installed
}

// String is the entry as braid models list prints it: id, kind,
// dimensions, pooling, whether it is installed, and (default).
func (e Entry) String() string {
	state, def := "not installed", ""
	if e.Installed {
		state = "installed"
	}
	if e.Default {
		def = " (default)"
	}
	return fmt.Sprintf("%-46s %-13s %4d  %-4s  %-13s%s", e.ID, e.Kind, e.Dim, e.Pooling, state, def)
}

// List is the registry's models, in its order, with whether each is
// installed in modelsDir. It hashes nothing: Verify checks the bytes.
func List(modelsDir string) []Entry {
	out := []Entry{}
	for _, s := range registry {
		_, _, err := installed(s, modelsDir)
		out = append(out, Entry{ID: s.ID(), Kind: s.Kind, Dim: s.Dim, Pooling: s.Pooling, MaxLen: s.MaxLen,
			Default: s.Default, Installed: err == nil, Dir: s.InstallDir(modelsDir)})
	}
	return out
}

// Present is the registry models that have a directory in modelsDir,
// complete or not: the ones worth a Verify.
func Present(modelsDir string) []Spec {
	var out []Spec
	for _, s := range Registry() {
		if _, err := os.Stat(s.InstallDir(modelsDir)); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// InstallDir is where Pull installs s under modelsDir.
func (s Spec) InstallDir(modelsDir string) string {
	return filepath.Join(modelsDir, s.DirName())
}
