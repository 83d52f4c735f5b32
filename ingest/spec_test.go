package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/index"
)

func TestSourceSpecSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	none := func(string) (*index.Source, error) { return nil, nil }
	zero, sixteen := 0, 16
	bad := []struct {
		name string
		spec SourceSpec
		want string // in the error
	}{
		{"empty path", SourceSpec{}, "empty path"},
		{"tiny chunks", SourceSpec{Path: dir, ChunkTokens: 8}, "chunk size 8"},
		{"overlap past size", SourceSpec{Path: dir, ChunkTokens: 16, ChunkOverlap: &sixteen}, "overlap 16"},
		{"endpoint on a folder", SourceSpec{Path: dir, Endpoint: "http://127.0.0.1:9000"}, "is a local path"},
		{"bad glob", SourceSpec{Path: dir, Patterns: []string{"["}}, "["},
		{"negative versions", SourceSpec{Path: dir, KeepVersions: func() *int { n := -1; return &n }()}, "keep-versions -1"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.spec.Source(none)
			if !errors.Is(err, index.ErrBadOption) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrBadOption saying %q", err, tc.want)
			}
		})
	}
	if _, _, err := (SourceSpec{Path: filepath.Join(dir, "missing")}).Source(none); err == nil || !strings.Contains(err.Error(), "does not exist; check the path") {
		t.Errorf("missing path: %v", err)
	}
	src, rechunk, err := SourceSpec{Path: file, Name: "a"}.Source(none)
	if err != nil || src.Kind != index.SourceFile || src.Name != "a" || src.ID != index.SourceID(file) || rechunk {
		t.Fatalf("new file source: %+v, %v, %v", src, rechunk, err)
	}
	// The registered source is reused: excludes add up, and a changed
	// overlap re-chunks (0 is kept as "none", -1).
	reg := &index.Source{ID: src.ID, Path: file, Name: "kept", Excludes: []string{"x"}}
	src, rechunk, err = SourceSpec{Path: file, Excludes: []string{"x", "y"}, ChunkOverlap: &zero}.Source(func(id string) (*index.Source, error) {
		if id != reg.ID {
			t.Errorf("looked up %q, want %q", id, reg.ID)
		}
		return reg, nil
	})
	if err != nil || src != reg || src.Name != "kept" || strings.Join(src.Excludes, ",") != "x,y" || src.ChunkOverlap != -1 || !rechunk {
		t.Errorf("registered source: %+v, %v, %v", src, rechunk, err)
	}
}
