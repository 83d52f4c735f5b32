package ingest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/index"
)

func TestWatched(t *testing.T) {
	dir := t.TempDir()
	a := &index.Source{ID: "a", Path: filepath.Join(dir, "a"), Kind: index.SourceDir}
	b := &index.Source{ID: "b", Path: filepath.Join(dir, "b.md"), Kind: index.SourceFile}
	store := &index.Source{ID: "s", Path: filepath.Join(dir, "store"), Kind: index.SourceStore}
	bucket := &index.Source{ID: "3", Path: "s3://bucket/notes", Kind: index.SourceS3}
	all := []*index.Source{a, store, b, bucket}
	got, err := Watched(all, nil)
	if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("every source: %v, %v; want a and b", got, err)
	}
	if len(all) != 4 || all[1] != store {
		t.Errorf("Watched changed its argument: %v", all)
	}
	if got, err := Watched(all, []string{b.Path}); err != nil || len(got) != 1 || got[0] != b {
		t.Errorf("by path: %v, %v; want b", got, err)
	}
	for _, tc := range []struct {
		name  string
		all   []*index.Source
		paths []string
		is    error
		want  string
	}{
		{"nothing registered", nil, nil, index.ErrNotFound, "no sources registered yet"},
		{"nothing watchable", []*index.Source{store, bucket}, nil, index.ErrNotFound, "S3 sources and the document store are not"},
		{"a bucket", all, []string{"s3://bucket/notes"}, index.ErrBadOption, "S3 sources cannot be watched"},
		{"the store", all, []string{store.Path}, index.ErrNotFound, "no source at"},
		{"unknown path", all, []string{filepath.Join(dir, "c")}, index.ErrNotFound, "index it before watching it"},
	} {
		if _, err := Watched(tc.all, tc.paths); !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %v saying %q", tc.name, err, tc.is, tc.want)
		}
	}
}
